package io.jdoca.nvmf.auth;

/**
 * The reason code explanations of AUTH_Failure1 and AUTH_Failure2 (NVMe Base 2.0 §8.13.4.2; Base 2.1 Figure
 * 736 "AUTH_Failure reason code explanations"; Linux's {@code NVME_AUTH_DHCHAP_FAILURE_*}, SPDK's {@code
 * spdk_nvmf_auth_failure_reason}). The only reason code is 01h "Authentication failure"
 * ({@link #REASON_CODE_FAILURE}); the explanation says why.
 *
 * <p>Immutable; safe from any thread.
 */
public enum AuthFailureReason {
    /** 01h: authentication of the host or of the NVM subsystem failed (a wrong response, a missing key). */
    FAILED(0x01, "authentication failed"),
    /** 02h: no proposed authentication protocol satisfies the controller (no DH-HMAC-CHAP descriptor). */
    PROTOCOL_UNUSABLE(0x02, "authentication protocol not usable"),
    /** 03h: the SC_C (secure channel concatenation) requested does not satisfy the controller. */
    SECURE_CHANNEL_MISMATCH(0x03, "secure channel concatenation mismatch"),
    /** 04h: no proposed hash function satisfies the controller. */
    HASH_UNUSABLE(0x04, "hash function not usable"),
    /** 05h: no proposed Diffie-Hellman group satisfies the controller. */
    DH_GROUP_UNUSABLE(0x05, "DH group not usable"),
    /** 06h: the payload of the message is not correct (lengths, field values, transaction identifier). */
    INCORRECT_PAYLOAD(0x06, "incorrect payload"),
    /** 07h: the message is not the next one expected in the authentication protocol sequence. */
    INCORRECT_PROTOCOL_MESSAGE(0x07, "incorrect protocol message");

    /** The reason code of every AUTH_Failure message: 01h "Authentication failure" (Base 2.1 Figure 735). */
    public static final int REASON_CODE_FAILURE = 0x01;

    private final int code;
    private final String text;

    AuthFailureReason(int code, String text) {
        this.code = code;
        this.text = text;
    }

    /** The Reason Code Explanation byte. */
    public int code() {
        return code;
    }

    /** The spec's words for it, e.g. "incorrect protocol message". */
    public String text() {
        return text;
    }

    /** The explanation for byte {@code code}, or {@code null} for a reserved or vendor-specific value. */
    public static AuthFailureReason ofCode(int code) {
        for (AuthFailureReason r : values()) {
            if (r.code == code) {
                return r;
            }
        }
        return null;
    }
}
