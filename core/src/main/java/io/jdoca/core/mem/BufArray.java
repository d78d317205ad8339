package io.jdoca.core.mem;

import io.jdoca.core.DocaError;

/**
 * A fixed array of same-size buffers over one memory map ({@code doca_buf_arr}): element {@code i}
 * covers {@code [base + i*elementSize, +elementSize)}. The buffers exist for the array's whole life;
 * {@link #get(int)} returns one with its data section reset to the whole element.
 *
 * <p>Not thread-safe. Allocation-free after {@link #start()}.
 */
public final class BufArray implements BufOwner {
    private final int numElements;
    private final long elementSize;
    private final MemoryMap mmap;
    private final Buf[] bufs;
    private InventoryState state = InventoryState.CREATED;

    private BufArray(int numElements, long elementSize, MemoryMap mmap) {
        this.numElements = numElements;
        this.elementSize = elementSize;
        this.mmap = mmap;
        this.bufs = new Buf[numElements];
    }

    /** {@code doca_buf_arr_create} + {@code set_params}. */
    public static BufArray create(int numElements, long elementSize, MemoryMap mmap) {
        if (numElements <= 0 || elementSize <= 0 || mmap == null) {
            throw new IllegalArgumentException("buf array needs elements > 0, element size > 0 and a map");
        }
        return new BufArray(numElements, elementSize, mmap);
    }

    public DocaError start() {
        if (state != InventoryState.CREATED) {
            return DocaError.BAD_STATE;
        }
        if (!mmap.isStarted()) {
            return DocaError.BAD_STATE;
        }
        if (elementSize * numElements > mmap.length()) {
            return DocaError.INVALID_VALUE;
        }
        for (int i = 0; i < numElements; i++) {
            bufs[i] = new Buf(this);
            long a = mmap.baseAddress() + elementSize * i;
            bufs[i].init(mmap, a, elementSize, a, elementSize);
        }
        state = InventoryState.STARTED;
        return DocaError.SUCCESS;
    }

    public DocaError stop() {
        if (state != InventoryState.STARTED) {
            return DocaError.BAD_STATE;
        }
        state = InventoryState.STOPPED;
        return DocaError.SUCCESS;
    }

    /** Element {@code i} with its data section set to the whole element; null if out of range or not started. */
    public Buf get(int i) {
        if (state != InventoryState.STARTED || i < 0 || i >= numElements) {
            return null;
        }
        Buf b = bufs[i];
        long a = mmap.baseAddress() + elementSize * i;
        b.init(mmap, a, elementSize, a, elementSize);
        return b;
    }

    @Override
    public void release(Buf buf) {
        // Array buffers are permanent: a refcount reaching zero just leaves them for the next get().
    }

    public int numElements() {
        return numElements;
    }
}
