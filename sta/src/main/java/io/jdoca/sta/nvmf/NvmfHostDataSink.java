package io.jdoca.sta.nvmf;

import io.jdoca.core.DocaError;
import java.lang.foreign.MemorySegment;

/**
 * Where host data fetched for the application lands (the STA non-offload read task implements it):
 * a destination segment and offset, and the call that ends the fetch.
 *
 * <p>Not thread-safe: the owning IO engine's thread.
 */
public interface NvmfHostDataSink {
    /** The destination of the fetched bytes. */
    MemorySegment destination();

    /** Offset of the first byte in {@link #destination()}. */
    long destinationOffset();

    /** Every byte arrived ({@code status} SUCCESS), or the fetch failed (e.g. the connection went). */
    void fetched(DocaError status);
}
