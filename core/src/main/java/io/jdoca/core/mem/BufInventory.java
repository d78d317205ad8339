package io.jdoca.core.mem;

import io.jdoca.core.DocaError;

/**
 * The general buffer inventory ({@code doca_buf_inventory}): a fixed number of descriptors, each
 * pointing anywhere in any started memory map. Every descriptor is created by {@link #create}; after
 * {@link #start()} getting and returning buffers allocates nothing.
 *
 * <p>Failed gets return null; {@link #lastError()} says why (NO_MEMORY: none left; INVALID_VALUE:
 * range outside the map; BAD_STATE: inventory or map not started). Not thread-safe.
 */
public final class BufInventory implements BufOwner {
    private final Buf[] free;
    private final int size;
    private int top;
    private InventoryState state = InventoryState.CREATED;
    private DocaError lastError = DocaError.SUCCESS;

    private BufInventory(int n) {
        this.size = n;
        this.free = new Buf[n];
        for (int i = 0; i < n; i++) {
            free[i] = new Buf(this);
        }
        this.top = n;
    }

    /** {@code doca_buf_inventory_create}. */
    public static BufInventory create(int numElements) {
        if (numElements <= 0) {
            throw new IllegalArgumentException("inventory size must be > 0");
        }
        return new BufInventory(numElements);
    }

    public DocaError start() {
        if (!state.canTransitionTo(InventoryState.STARTED)) {
            return DocaError.BAD_STATE;
        }
        state = InventoryState.STARTED;
        return DocaError.SUCCESS;
    }

    /** Stops the inventory; IN_USE while buffers are still out. */
    public DocaError stop() {
        if (state != InventoryState.STARTED) {
            return DocaError.BAD_STATE;
        }
        if (top != size) {
            return DocaError.IN_USE;
        }
        state = InventoryState.STOPPED;
        return DocaError.SUCCESS;
    }

    /** {@code doca_buf_inventory_buf_get_by_addr}: data section empty at {@code addr}. */
    public Buf getByAddr(MemoryMap mmap, long addr, long len) {
        return get(mmap, addr, len, addr, 0);
    }

    /** {@code doca_buf_inventory_buf_get_by_data}: data section is the whole buffer. */
    public Buf getByData(MemoryMap mmap, long addr, long len) {
        return get(mmap, addr, len, addr, len);
    }

    /** {@code doca_buf_inventory_buf_get_by_args}: buffer and data section given separately. */
    public Buf getByArgs(MemoryMap mmap, long addr, long len, long dataAddr, long dataLen) {
        if (dataAddr < addr || dataLen < 0 || dataAddr - addr > len - dataLen) {
            lastError = DocaError.INVALID_VALUE;
            return null;
        }
        return get(mmap, addr, len, dataAddr, dataLen);
    }

    private Buf get(MemoryMap mmap, long addr, long len, long dataAddr, long dataLen) {
        if (state != InventoryState.STARTED || mmap == null || !mmap.isStarted()) {
            lastError = DocaError.BAD_STATE;
            return null;
        }
        if (len <= 0 || !mmap.contains(addr, len)) {
            lastError = DocaError.INVALID_VALUE;
            return null;
        }
        if (top == 0) {
            lastError = DocaError.NO_MEMORY;
            return null;
        }
        Buf b = free[--top];
        free[top] = null;
        b.init(mmap, addr, len, dataAddr, dataLen);
        return b;
    }

    /**
     * {@code doca_buf_inventory_buf_reuse_by_addr}: points an existing buffer (refcount 1, not in a
     * list) at a new range of its map, data section empty. Allocation-free.
     */
    public DocaError reuseByAddr(Buf buf, long addr, long len) {
        return reuse(buf, addr, len, 0);
    }

    /** {@code doca_buf_inventory_buf_reuse_by_data}: as {@link #reuseByAddr} with the whole range as data. */
    public DocaError reuseByData(Buf buf, long addr, long len) {
        return reuse(buf, addr, len, len);
    }

    private DocaError reuse(Buf buf, long addr, long len, long dataLen) {
        if (buf.refcount() != 1 || buf.next() != null || buf.mmap() == null) {
            return DocaError.BAD_STATE;
        }
        MemoryMap m = buf.mmap();
        if (len <= 0 || !m.contains(addr, len)) {
            return DocaError.INVALID_VALUE;
        }
        buf.init(m, addr, len, addr, dataLen);
        return DocaError.SUCCESS;
    }

    @Override
    public void release(Buf buf) {
        buf.markFree();
        free[top++] = buf;
    }

    public DocaError lastError() {
        return lastError;
    }

    public int numElements() {
        return size;
    }

    /** {@code doca_buf_inventory_get_num_free_elements}. */
    public int numFree() {
        return top;
    }

    public InventoryState state() {
        return state;
    }
}
