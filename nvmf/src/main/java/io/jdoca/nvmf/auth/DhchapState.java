package io.jdoca.nvmf.auth;

/**
 * Where one DH-HMAC-CHAP authentication transaction stands on the controller's side ({@link DhchapController}).
 * The host drives it with Authentication Send (a host message in) and Authentication Receive (a controller
 * message out), one at a time (NVMe Base 2.0 §8.13.5.1, Base 2.1 Figure 738):
 *
 * <pre>
 * IDLE            --send AUTH_Negotiate, accepted-->             NEGOTIATED
 * NEGOTIATED      --receive: DH-HMAC-CHAP_Challenge-->           CHALLENGED
 * CHALLENGED      --send DH-HMAC-CHAP_Reply, R1 verified-->      REPLIED
 * REPLIED         --receive: Success1 without R2-->              DONE
 * REPLIED         --receive: Success1 with R2 (bidirectional)--> AWAIT_SUCCESS2
 * AWAIT_SUCCESS2  --send DH-HMAC-CHAP_Success2-->                DONE
 * AWAIT_SUCCESS2  --send AUTH_Failure2-->                        FAILED (nothing more to send)
 * any other send or receive, or a refused message -->           FAILED, AUTH_Failure1 due on receive
 * </pre>
 *
 * <p>DONE and FAILED end the transaction; after FAILED the controller disconnects once the AUTH_Failure1 is
 * out (the spec's rule). Immutable; safe from any thread.
 */
public enum DhchapState {
    /** Waiting for the host's AUTH_Negotiate. */
    IDLE,
    /** AUTH_Negotiate accepted (hash and DH group chosen); the Challenge is due on the next receive. */
    NEGOTIATED,
    /** Challenge sent; waiting for the host's DH-HMAC-CHAP_Reply. */
    CHALLENGED,
    /** The host's response R1 verified; Success1 is due on the next receive. */
    REPLIED,
    /** Success1 with the controller's response R2 sent; waiting for Success2 (or Failure2). */
    AWAIT_SUCCESS2,
    /** Authenticated: the transaction succeeded. */
    DONE,
    /** The transaction failed; {@link DhchapController#result()} says why. */
    FAILED;

    /**
     * Whether {@code next} follows this state in the table above (FAILED follows every state, itself included:
     * a refused message after the end makes another AUTH_Failure1 due).
     */
    public boolean canMoveTo(DhchapState next) {
        return next == FAILED || switch (this) {
            case IDLE -> next == NEGOTIATED;
            case NEGOTIATED -> next == CHALLENGED;
            case CHALLENGED -> next == REPLIED;
            case REPLIED -> next == DONE || next == AWAIT_SUCCESS2;
            case AWAIT_SUCCESS2 -> next == DONE;
            case DONE, FAILED -> false;
        };
    }

    /** The transaction is over (DONE or FAILED). */
    public boolean terminal() {
        return this == DONE || this == FAILED;
    }
}
