package io.jdoca.nvmf.rpc;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;

/**
 * A JSON-RPC error answered with SPDK's code and message: a negative errno as SPDK's methods
 * answer them (-19 "No such device", -16 "Device or resource busy", -17 "File exists") or a
 * JSON-RPC code. Control path only; immutable.
 */
public final class RpcError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int code;

    public RpcError(int code, String message) {
        super(message);
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** A DOCA error as SPDK's methods answer it: a negative errno and its strerror before the message. */
    public static RpcError errno(DocaException ex) {
        DocaError d = ex.error();
        String msg = plain(ex);
        if (d == DocaError.NOT_FOUND) {
            return new RpcError(-19, "No such device: " + msg);
        } else if (d == DocaError.IN_USE) {
            return new RpcError(-16, "Device or resource busy: " + msg);
        } else if (d == DocaError.ALREADY_EXIST) {
            return new RpcError(-17, "File exists: " + msg);
        } else if (d == DocaError.NO_MEMORY || d == DocaError.FULL) {
            return new RpcError(-12, "Cannot allocate memory: " + msg);
        }
        return new RpcError(-5, "Input/output error: " + msg);
    }

    /**
     * A DOCA error's message without DOCA's error name and description (the "(DOCA_ERROR_X: ...)"
     * every DocaException carries): SPDK-style answers speak errno, not DOCA.
     */
    public static String plain(DocaException ex) {
        return plain(ex.getMessage());
    }

    /** {@code msg} without the DOCA error names a DocaException's message carries (wherever it was quoted). */
    public static String plain(String msg) {
        return msg == null ? null : msg.replaceAll(" ?\\(DOCA_ERROR_[A-Z_]+: [^)]*\\)", "");
    }
}
