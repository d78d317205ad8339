package io.jdoca.core;

/**
 * Control-path failure carrying a {@link DocaError}. Never thrown on the data path: data-path
 * calls return {@link DocaError} instead.
 */
public class DocaException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final DocaError error;

    public DocaException(DocaError error, String message) {
        super(message + " (" + error.docaName() + ": " + error.description() + ")");
        this.error = error;
    }

    public DocaException(DocaError error, String message, Throwable cause) {
        super(message + " (" + error.docaName() + ": " + error.description() + ")", cause);
        this.error = error;
    }

    public DocaError error() {
        return error;
    }

    /** Throws if {@code e} is not SUCCESS; for control-path code that prefers exceptions. */
    public static void check(DocaError e, String what) {
        if (e != DocaError.SUCCESS) {
            throw new DocaException(e, what);
        }
    }
}
