package io.jdoca.verbs;

/**
 * A failed rdma-core call on the control path (open, register, create, connect): names the call and
 * carries errno. The data path never throws; its calls return the provider's status instead.
 */
public final class VerbsException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String call;
    private final int errno;

    public VerbsException(String call, int errno) {
        super(call + " failed: " + NativeLib.strerror(errno) + " (errno " + errno + ")");
        this.call = call;
        this.errno = errno;
    }

    public VerbsException(String call, String message) {
        super(call + ": " + message);
        this.call = call;
        this.errno = 0;
    }

    /** The rdma-core function that failed. */
    public String call() {
        return call;
    }

    /** errno it left, or 0 when the failure carried none. */
    public int errno() {
        return errno;
    }
}
