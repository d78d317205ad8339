package io.jdoca.core;

/**
 * DOCA's status codes ({@code doca_error_t}), with the same names and numeric values as DOCA 3.x
 * {@code doca_error.h}. Data-path calls return one of these; control-path calls may throw a
 * {@link DocaException} that carries one.
 *
 * <p>Immutable; safe to use from any thread.
 */
public enum DocaError {
    SUCCESS(0, "Success"),
    UNKNOWN(1, "Unknown error"),
    NOT_PERMITTED(2, "Operation not permitted"),
    IN_USE(3, "Resource already in use"),
    NOT_SUPPORTED(4, "Operation not supported"),
    AGAIN(5, "Resource temporarily unavailable, try again"),
    INVALID_VALUE(6, "Invalid input"),
    NO_MEMORY(7, "Memory allocation failure"),
    INITIALIZATION(8, "Resource initialization failure"),
    TIME_OUT(9, "Timer expired waiting for resource"),
    SHUTDOWN(10, "Shut down in process or completed"),
    CONNECTION_RESET(11, "Connection reset by peer"),
    CONNECTION_ABORTED(12, "Connection aborted"),
    CONNECTION_INPROGRESS(13, "Connection in progress"),
    NOT_CONNECTED(14, "Not connected"),
    NO_LOCK(15, "Unable to acquire required lock"),
    NOT_FOUND(16, "Resource not found"),
    IO_FAILED(17, "Input/output operation failed"),
    BAD_STATE(18, "Bad state"),
    UNSUPPORTED_VERSION(19, "Unsupported version"),
    OPERATING_SYSTEM(20, "Operating system call failure"),
    DRIVER(21, "DOCA driver call failure"),
    UNEXPECTED(22, "An unexpected scenario was detected"),
    ALREADY_EXIST(23, "Resource already exists"),
    FULL(24, "No more space in resource"),
    EMPTY(25, "No entry is available in resource"),
    IN_PROGRESS(26, "Operation is in progress"),
    TOO_BIG(27, "Requested operation too big to be contained"),
    AUTHENTICATION(28, "Authentication failure"),
    BAD_CONFIG(29, "Configuration is not recognized or invalid"),
    SKIPPED(30, "Operation was skipped");

    private static final DocaError[] BY_CODE = new DocaError[31];

    static {
        for (DocaError e : values()) {
            BY_CODE[e.code] = e;
        }
    }

    private final int code;
    private final String description;

    DocaError(int code, String description) {
        this.code = code;
        this.description = description;
    }

    /** The numeric {@code doca_error_t} value, as it travels on the wire (IO message result, error_response). */
    public int code() {
        return code;
    }

    /** DOCA's one-line description ({@code doca_error_get_descr}). */
    public String description() {
        return description;
    }

    /** DOCA's name, e.g. {@code DOCA_ERROR_BAD_STATE} ({@code doca_error_get_name}). */
    public String docaName() {
        return this == SUCCESS ? "DOCA_SUCCESS" : "DOCA_ERROR_" + name();
    }

    public boolean isSuccess() {
        return this == SUCCESS;
    }

    /** Maps a wire value back to the enum; unknown values map to {@link #UNKNOWN}. Allocation-free. */
    public static DocaError fromCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : UNKNOWN;
    }
}
