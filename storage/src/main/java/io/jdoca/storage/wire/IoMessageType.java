package io.jdoca.storage.wire;

/**
 * The u32 {@code type} of an IO message (reference §2, offset 0): 0 = result, 1 = read, 2 = write. Immutable; any
 * thread.
 */
public enum IoMessageType {
    RESULT(0),
    READ(1),
    WRITE(2);

    private final int code;

    IoMessageType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The type for a wire value, or null. Allocation-free. */
    public static IoMessageType fromCode(int code) {
        return switch (code) {
            case 0 -> RESULT;
            case 1 -> READ;
            case 2 -> WRITE;
            default -> null;
        };
    }
}
