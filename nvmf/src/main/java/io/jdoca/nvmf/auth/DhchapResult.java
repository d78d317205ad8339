package io.jdoca.nvmf.auth;

import java.util.Locale;

/**
 * The outcome of a DH-HMAC-CHAP transaction so far, as {@link DhchapController#result()} reports it:
 * authenticated or not, what was negotiated, and why it failed. No secrets: safe to log. Immutable; safe from
 * any thread.
 *
 * @param authenticated the transaction reached {@link DhchapState#DONE}
 * @param hash          the selected hash function, {@code null} before the AUTH_Negotiate was accepted
 * @param dhGroup       the selected DH group, {@code null} likewise ({@link DhchapDhGroup#NULL}: no exchange)
 * @param bidirectional the host asked to authenticate the controller too (CVALID in its Reply)
 * @param failure       why the transaction failed, {@code null} unless it did
 */
public record DhchapResult(boolean authenticated, DhchapHash hash, DhchapDhGroup dhGroup, boolean bidirectional,
        Failure failure) {
    /** Who ended a failed transaction. Immutable; safe from any thread. */
    public enum Source {
        /** This controller refused a message and sends (or sent) AUTH_Failure1. */
        CONTROLLER,
        /** The host refused the controller (its response R2) with AUTH_Failure2. */
        HOST,
        /** The integrator ended it ({@link DhchapController#abort}), e.g. on the transaction timeout. */
        ABORTED
    }

    /**
     * Why a transaction failed. Immutable; safe from any thread.
     *
     * @param explanationCode the AUTH_Failure reason code explanation byte (sent or received)
     * @param source          who ended it
     * @param detail          one line for a log, e.g. "host response mismatch"; never a secret
     */
    public record Failure(int explanationCode, Source source, String detail) {
        /** The explanation decoded, {@code null} for a reserved or vendor-specific value from a host. */
        public AuthFailureReason reason() {
            return AuthFailureReason.ofCode(explanationCode);
        }

        @Override
        public String toString() {
            AuthFailureReason r = reason();
            String why = r == null ? String.format(Locale.ROOT, "explanation %02xh", explanationCode) : r.text();
            return source + " " + why + ": " + detail;
        }
    }
}
