package io.jdoca.core.dev;

/**
 * An open device ({@code doca_dev}): what memory maps are mapped to and contexts are created on.
 * Thread-safe (immutable).
 */
public final class Dev implements AutoCloseable {
    private final DevInfo info;

    Dev(DevInfo info) {
        this.info = info;
    }

    /** {@code doca_dev_as_devinfo}. */
    public DevInfo devInfo() {
        return info;
    }

    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return info.toString();
    }
}
