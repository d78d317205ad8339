package io.jdoca.storage.wire;

/**
 * The 13 control message types of DOCA 3.3's storage apps ({@code storage_common/control_message.hpp},
 * reference §1 table). The wire value is the u32 {@code message_type} at body offset 0.
 *
 * <p>Immutable; any thread.
 */
public enum ControlMessageType {
    ERROR_RESPONSE(0),
    QUERY_STORAGE_REQUEST(1),
    QUERY_STORAGE_RESPONSE(2),
    INIT_STORAGE_REQUEST(3),
    INIT_STORAGE_RESPONSE(4),
    CREATE_RDMA_CONNECTION_REQUEST(5),
    CREATE_RDMA_CONNECTION_RESPONSE(6),
    START_STORAGE_REQUEST(7),
    START_STORAGE_RESPONSE(8),
    STOP_STORAGE_REQUEST(9),
    STOP_STORAGE_RESPONSE(10),
    SHUTDOWN_REQUEST(11),
    SHUTDOWN_RESPONSE(12);

    private static final ControlMessageType[] BY_CODE = values();

    private final int code;

    ControlMessageType(int code) {
        this.code = code;
    }

    /** The u32 wire value. */
    public int code() {
        return code;
    }

    /** The type for a wire value, or null if unknown. */
    public static ControlMessageType fromCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /** The response type a successful handling of this request produces (null for responses). */
    public ControlMessageType responseType() {
        return switch (this) {
            case QUERY_STORAGE_REQUEST -> QUERY_STORAGE_RESPONSE;
            case INIT_STORAGE_REQUEST -> INIT_STORAGE_RESPONSE;
            case CREATE_RDMA_CONNECTION_REQUEST -> CREATE_RDMA_CONNECTION_RESPONSE;
            case START_STORAGE_REQUEST -> START_STORAGE_RESPONSE;
            case STOP_STORAGE_REQUEST -> STOP_STORAGE_RESPONSE;
            case SHUTDOWN_REQUEST -> SHUTDOWN_RESPONSE;
            default -> null;
        };
    }

    /** DOCA's spelling, e.g. {@code query_storage_request}. */
    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
