package io.jdoca.storage.initiator;

/**
 * The initiator's execution strategies (reference §4 "Modes"); each transaction walks its action
 * bits in the order copy-expected, write, clear, read, validate, finish. Immutable; any thread.
 */
public enum ExecutionStrategy {
    READ_THROUGHPUT_TEST("read_throughput_test", false, false, true, false),
    WRITE_THROUGHPUT_TEST("write_throughput_test", false, true, false, false),
    READ_ONLY_DATA_VALIDITY_TEST("read_only_data_validity_test", false, false, true, true),
    READ_WRITE_DATA_VALIDITY_TEST("read_write_data_validity_test", true, true, true, true);

    private final String wireName;
    final boolean copyExpected;
    final boolean write;
    final boolean read;
    final boolean validate;

    ExecutionStrategy(String wireName, boolean copyExpected, boolean write, boolean read, boolean validate) {
        this.wireName = wireName;
        this.copyExpected = copyExpected;
        this.write = write;
        this.read = read;
        this.validate = validate;
    }

    public String wireName() {
        return wireName;
    }

    public boolean copyExpected() {
        return copyExpected;
    }

    public boolean write() {
        return write;
    }

    public boolean read() {
        return read;
    }

    public boolean validate() {
        return validate;
    }

    public boolean isThroughput() {
        return !validate;
    }

    /** Parses DOCA's name (e.g. {@code read_throughput_test}); null if unknown. */
    public static ExecutionStrategy of(String name) {
        for (ExecutionStrategy s : values()) {
            if (s.wireName.equals(name)) {
                return s;
            }
        }
        return null;
    }
}
