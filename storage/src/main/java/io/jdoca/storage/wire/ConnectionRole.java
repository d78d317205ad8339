package io.jdoca.storage.wire;

/**
 * The role of one of the two RDMA connections per worker (reference §1, message 5: u32 role,
 * 0 = io_data, 1 = io_control). io_control carries IO messages; io_data carries the data transfers,
 * so a response is not queued behind unrelated transfers. Immutable; any thread.
 */
public enum ConnectionRole {
    IO_DATA(0),
    IO_CONTROL(1);

    private final int code;

    ConnectionRole(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The role for a wire value, or null if unknown. */
    public static ConnectionRole fromCode(int code) {
        return code == 0 ? IO_DATA : code == 1 ? IO_CONTROL : null;
    }

    public String wireName() {
        return this == IO_DATA ? "io_data" : "io_control";
    }
}
