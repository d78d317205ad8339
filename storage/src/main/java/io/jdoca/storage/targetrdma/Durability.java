package io.jdoca.storage.targetrdma;

/**
 * When target-rdma's {@code --backing-file} reaches the storage device (jdoca, issue 29 item 6;
 * {@code --durability}). Both modes put a write into the file's page cache before its response (the
 * storage is the file's shared mapping), so an acknowledged write survives a crash or SIGKILL of the
 * target process in either mode; they differ in what survives the host:
 * <ul>
 *   <li>{@link #SESSION} (default): the file is flushed ({@code msync}) at each session's end and at
 *       exit. An OS crash or a power loss loses the writes acknowledged since the last flush.</li>
 *   <li>{@link #WRITE}: each write's range is flushed ({@code msync(MS_SYNC)}) before its response, so
 *       an acknowledged write survives an OS crash or power loss as far as the device honours cache
 *       flushes. Costs a synchronous flush per write (measured by {@code ./jdoca bench storage}).</li>
 * </ul>
 * Without {@code --backing-file} the blocks are memory and nothing survives the process. Immutable.
 */
public enum Durability {
    SESSION,
    WRITE;

    /**
     * Parses {@code --durability}: {@code session} or {@code write}; IllegalArgumentException naming the flag
     * otherwise.
     */
    public static Durability parse(String s) {
        for (Durability d : values()) {
            if (d.name().equalsIgnoreCase(s)) {
                return d;
            }
        }
        throw new IllegalArgumentException("--durability: '" + s + "' is not session or write");
    }
}
