package io.jdoca.sta.nvmf.tls;

import java.io.IOException;

/**
 * A TLS handshake that did not complete: its message is one line for the log or the user (why: a wrong PSK,
 * no PSK for the host, a plaintext ICReq, the deadline), never key material.
 *
 * <p>Immutable; any thread.
 */
public final class TlsHandshakeException extends IOException {
    private static final long serialVersionUID = 1L;

    /** A failure described by {@code message}. */
    public TlsHandshakeException(String message) {
        super(message);
    }
}
