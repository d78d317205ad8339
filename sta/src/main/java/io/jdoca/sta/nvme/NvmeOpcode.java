package io.jdoca.sta.nvme;

/**
 * Opcodes: admin (NVMe Base 2.0 figure 138), NVM I/O (NVM Command Set 1.0 figure 18), Fabrics
 * (opcode 0x7f, FCTYPE values of NVMe-oF 1.1 figure 9).
 *
 * <p>Constants only.
 */
public final class NvmeOpcode {
    // Admin.
    public static final int ADMIN_DELETE_SQ = 0x00;
    public static final int ADMIN_CREATE_SQ = 0x01;
    public static final int ADMIN_GET_LOG_PAGE = 0x02;
    public static final int ADMIN_DELETE_CQ = 0x04;
    public static final int ADMIN_CREATE_CQ = 0x05;
    public static final int ADMIN_IDENTIFY = 0x06;
    public static final int ADMIN_ABORT = 0x08;
    public static final int ADMIN_SET_FEATURES = 0x09;
    public static final int ADMIN_GET_FEATURES = 0x0a;
    public static final int ADMIN_ASYNC_EVENT_REQUEST = 0x0c;
    public static final int ADMIN_KEEP_ALIVE = 0x18;
    // NVM I/O.
    public static final int IO_FLUSH = 0x00;
    public static final int IO_WRITE = 0x01;
    public static final int IO_READ = 0x02;
    public static final int IO_COMPARE = 0x05;
    public static final int IO_WRITE_ZEROES = 0x08;
    public static final int IO_DATASET_MANAGEMENT = 0x09;
    public static final int IO_RESERVATION_REGISTER = 0x0d;
    public static final int IO_RESERVATION_REPORT = 0x0e;
    public static final int IO_RESERVATION_ACQUIRE = 0x11;
    public static final int IO_RESERVATION_RELEASE = 0x15;
    // Fabrics.
    public static final int FABRICS = 0x7f;
    public static final int FCTYPE_PROPERTY_SET = 0x00;
    public static final int FCTYPE_CONNECT = 0x01;
    public static final int FCTYPE_PROPERTY_GET = 0x04;
    public static final int FCTYPE_AUTH_SEND = 0x05;
    public static final int FCTYPE_AUTH_RECV = 0x06;
    public static final int FCTYPE_DISCONNECT = 0x08;

    private NvmeOpcode() {
    }

    /** True for opcodes whose data flows host → controller (bits 1:0 of the opcode = 01b). */
    public static boolean hostToController(int opcode) {
        return (opcode & 0x3) == 0x1;
    }

    /** True for opcodes whose data flows controller → host (bits 1:0 = 10b). */
    public static boolean controllerToHost(int opcode) {
        return (opcode & 0x3) == 0x2;
    }
}
