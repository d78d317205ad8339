package io.jdoca.core;

/**
 * DOCA memory access flags ({@code enum doca_access_flag} in {@code doca_types.h}), combined with
 * bitwise OR and given to {@code MemoryMap.setPermissions}. Values match DOCA.
 */
public final class AccessFlags {
    /** Local read only: the baseline, always granted. */
    public static final int LOCAL_READ_ONLY = 0;
    public static final int LOCAL_READ_WRITE = 1;
    public static final int RDMA_READ = 1 << 1;
    public static final int RDMA_WRITE = 1 << 2;
    public static final int RDMA_ATOMIC = 1 << 3;
    /** DOCA 3 calls these PCI_READ_ONLY / PCI_READ_WRITE (DPU_READ_ONLY / DPU_READ_WRITE in older releases). */
    public static final int PCI_READ_ONLY = 1 << 4;
    public static final int PCI_READ_WRITE = 1 << 5;

    public static final int ALL =
            LOCAL_READ_WRITE | RDMA_READ | RDMA_WRITE | RDMA_ATOMIC | PCI_READ_ONLY | PCI_READ_WRITE;
    public static final int ANY_RDMA = RDMA_READ | RDMA_WRITE | RDMA_ATOMIC;
    public static final int ANY_PCI = PCI_READ_ONLY | PCI_READ_WRITE;

    private AccessFlags() {
    }

    public static boolean has(int flags, int flag) {
        return (flags & flag) == flag;
    }

    /** Human-readable form, e.g. {@code LOCAL_READ_WRITE|RDMA_WRITE}. Control path only. */
    public static String toString(int flags) {
        if (flags == 0) {
            return "LOCAL_READ_ONLY";
        }
        StringBuilder sb = new StringBuilder();
        String[] names = {"LOCAL_READ_WRITE", "RDMA_READ", "RDMA_WRITE", "RDMA_ATOMIC", "PCI_READ_ONLY",
                "PCI_READ_WRITE"};
        for (int i = 0; i < names.length; i++) {
            if ((flags & (1 << i)) != 0) {
                if (!sb.isEmpty()) {
                    sb.append('|');
                }
                sb.append(names[i]);
            }
        }
        return sb.toString();
    }
}
