package io.jdoca.sta.backend;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** A read-only 1 MiB block of zeroes shared by back-ends (write zeroes, null reads). Never written. */
final class Zeroes {
    static final MemorySegment SEGMENT = Arena.global().allocate(1 << 20, 4096);

    private Zeroes() {
    }
}
