package io.jdoca.core.mem;

import io.jdoca.core.DocaError;
import java.lang.foreign.MemorySegment;

/**
 * A buffer descriptor ({@code doca_buf}): a window {@code [addr, addr+len)} of a {@link MemoryMap},
 * with a data section inside it. Three parts, exactly as DOCA Core describes them:
 *
 * <pre>
 *   addr            data            data+dataLen        addr+len
 *    |-- headroom --|---- dataroom ----|----- tailroom -----|
 * </pre>
 * As a <b>source</b>, a library reads the dataroom. As a <b>destination</b>, it appends to the
 * tailroom and grows {@link #dataLen()} ({@link #appendData}); {@link #resetDataLen()} empties the
 * dataroom to write at the same data address again. Buffers chain into scatter/gather lists
 * ({@link #chainList}); a list is used as one contiguous source or destination.
 *
 * <p>Descriptors come from an inventory ({@link BufInventory}, {@link BufPool}, {@link BufArray})
 * and go back to it when their reference count drops to zero. A buffer does not own its memory.
 *
 * <p>Not thread-safe. All accessors are allocation-free.
 */
public final class Buf {
    private final BufOwner owner;
    private MemoryMap mmap;
    private MemorySegment segment;
    private long bufOff;
    private long len;
    private long dataOff;
    private long dataLen;
    private Buf next;
    private int refcount;

    Buf(BufOwner owner) {
        this.owner = owner;
    }

    void init(MemoryMap m, long address, long length, long dataAddress, long dataLength) {
        this.mmap = m;
        this.segment = m.segment();
        this.bufOff = address - m.baseAddress();
        this.len = length;
        this.dataOff = dataAddress - m.baseAddress();
        this.dataLen = dataLength;
        this.next = null;
        this.refcount = 1;
    }

    // ---------------------------------------------------------------- geometry (DOCA addresses)

    /** {@code doca_buf_get_head}: start of the buffer (map address space). */
    public long addr() {
        return mmap.baseAddress() + bufOff;
    }

    /** {@code doca_buf_get_len}: headroom + dataroom + tailroom. */
    public long len() {
        return len;
    }

    /** {@code doca_buf_get_data}: start of the data section. */
    public long data() {
        return mmap.baseAddress() + dataOff;
    }

    /** {@code doca_buf_get_data_len}. */
    public long dataLen() {
        return dataLen;
    }

    public long headroomLen() {
        return dataOff - bufOff;
    }

    public long tailroomLen() {
        return bufOff + len - (dataOff + dataLen);
    }

    /**
     * {@code doca_buf_set_data}: the data section must lie inside the buffer (INVALID_VALUE
     * otherwise, buffer unchanged).
     */
    public DocaError setData(long dataAddress, long dataLength) {
        long off = dataAddress - mmap.baseAddress();
        if (dataLength < 0 || off < bufOff || off + dataLength > bufOff + len) {
            return DocaError.INVALID_VALUE;
        }
        this.dataOff = off;
        this.dataLen = dataLength;
        return DocaError.SUCCESS;
    }

    /** {@code doca_buf_set_data_len}: data address unchanged; INVALID_VALUE if it overruns the buffer. */
    public DocaError setDataLen(long dataLength) {
        if (dataLength < 0 || dataOff + dataLength > bufOff + len) {
            return DocaError.INVALID_VALUE;
        }
        this.dataLen = dataLength;
        return DocaError.SUCCESS;
    }

    /** {@code doca_buf_reset_data_len}: data length 0, data address unchanged. */
    public void resetDataLen() {
        this.dataLen = 0;
    }

    /**
     * Library side of "a destination appends to the tailroom": grows the data section by {@code n}
     * bytes; INVALID_VALUE if the tailroom is shorter.
     */
    public DocaError appendData(long n) {
        if (n < 0 || n > tailroomLen()) {
            return DocaError.INVALID_VALUE;
        }
        dataLen += n;
        return DocaError.SUCCESS;
    }

    // ---------------------------------------------------------------- CPU access

    public MemoryMap mmap() {
        return mmap;
    }

    /** The whole map's memory in this process (null if not locally accessible); use with the offsets below. */
    public MemorySegment segment() {
        return segment;
    }

    /** Offset of the buffer start in {@link #segment()}. */
    public long headOffset() {
        return bufOff;
    }

    /** Offset of the data section in {@link #segment()}. */
    public long dataOffset() {
        return dataOff;
    }

    /** Offset of the tailroom (where a destination writes) in {@link #segment()}. */
    public long tailOffset() {
        return dataOff + dataLen;
    }

    // ---------------------------------------------------------------- scatter/gather lists

    /**
     * {@code doca_buf_chain_list}: appends the list starting at {@code tail} to the list this buffer
     * heads. INVALID_VALUE if {@code tail} is already in this list.
     */
    public DocaError chainList(Buf tail) {
        if (tail == null) {
            return DocaError.INVALID_VALUE;
        }
        Buf last = this;
        for (Buf b = this; b != null; b = b.next) {
            if (b == tail) {
                return DocaError.INVALID_VALUE;
            }
            last = b;
        }
        last.next = tail;
        return DocaError.SUCCESS;
    }

    /** {@code doca_buf_unchain_list}: cuts the list before {@code tail}; NOT_FOUND if not in this list. */
    public DocaError unchainList(Buf tail) {
        for (Buf b = this; b != null; b = b.next) {
            if (b.next == tail) {
                b.next = null;
                return DocaError.SUCCESS;
            }
        }
        return DocaError.NOT_FOUND;
    }

    /** {@code doca_buf_get_next_in_list}; null at the end. */
    public Buf next() {
        return next;
    }

    /** {@code doca_buf_get_last_in_list}. */
    public Buf last() {
        Buf b = this;
        while (b.next != null) {
            b = b.next;
        }
        return b;
    }

    /** {@code doca_buf_get_list_len}: number of buffers from this one to the end. */
    public int listLen() {
        int n = 0;
        for (Buf b = this; b != null; b = b.next) {
            n++;
        }
        return n;
    }

    /** Sum of the data lengths over the list from this buffer. */
    public long listDataLen() {
        long n = 0;
        for (Buf b = this; b != null; b = b.next) {
            n += b.dataLen;
        }
        return n;
    }

    /** Sum of the tailroom lengths over the list from this buffer (destination capacity). */
    public long listTailroomLen() {
        long n = 0;
        for (Buf b = this; b != null; b = b.next) {
            n += b.tailroomLen();
        }
        return n;
    }

    // ---------------------------------------------------------------- reference counting

    /** {@code doca_buf_inc_refcount}; returns the new count. */
    public int incRefcount() {
        return ++refcount;
    }

    /**
     * {@code doca_buf_dec_refcount}: at zero the descriptor returns to its inventory (its list link is
     * cut). Returns the new count; BAD_STATE-like misuse (already free) returns -1.
     */
    public int decRefcount() {
        if (refcount <= 0) {
            return -1;
        }
        if (--refcount == 0) {
            next = null;
            owner.release(this);
        }
        return refcount;
    }

    public int refcount() {
        return refcount;
    }

    void markFree() {
        refcount = 0;
        mmap = null;
        segment = null;
    }

    @Override
    public String toString() {
        return mmap == null ? "Buf[free]"
                : "Buf[addr=" + Long.toHexString(addr()) + ", len=" + len + ", data+" + (dataOff - bufOff)
                        + ", dataLen="
                        + dataLen + "]";
    }
}
