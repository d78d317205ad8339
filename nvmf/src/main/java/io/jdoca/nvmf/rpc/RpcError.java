package io.jdoca.nvmf.rpc;

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
}
