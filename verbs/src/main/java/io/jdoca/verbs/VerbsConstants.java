package io.jdoca.verbs;

/**
 * rdma-core enum values and flags jdoca uses, under their C names, from {@code <infiniband/verbs.h>}
 * and {@code <rdma/rdma_cma.h>}. {@code VerbsLayoutTest} prints every one of them from C and compares.
 * Thread rules: constants.
 */
public final class VerbsConstants {
    private VerbsConstants() {
    }

    // enum ibv_access_flags
    public static final int IBV_ACCESS_LOCAL_WRITE = 1;
    public static final int IBV_ACCESS_REMOTE_WRITE = 1 << 1;
    public static final int IBV_ACCESS_REMOTE_READ = 1 << 2;
    public static final int IBV_ACCESS_REMOTE_ATOMIC = 1 << 3;

    // enum ibv_qp_type
    public static final int IBV_QPT_RC = 2;

    // enum ibv_qp_state
    public static final int IBV_QPS_RESET = 0;
    public static final int IBV_QPS_INIT = 1;
    public static final int IBV_QPS_RTR = 2;
    public static final int IBV_QPS_RTS = 3;
    public static final int IBV_QPS_ERR = 6;

    // enum ibv_qp_attr_mask
    public static final int IBV_QP_STATE = 1;
    public static final int IBV_QP_ACCESS_FLAGS = 1 << 3;
    public static final int IBV_QP_PKEY_INDEX = 1 << 4;
    public static final int IBV_QP_PORT = 1 << 5;
    public static final int IBV_QP_AV = 1 << 7;
    public static final int IBV_QP_PATH_MTU = 1 << 8;
    public static final int IBV_QP_TIMEOUT = 1 << 9;
    public static final int IBV_QP_RETRY_CNT = 1 << 10;
    public static final int IBV_QP_RNR_RETRY = 1 << 11;
    public static final int IBV_QP_RQ_PSN = 1 << 12;
    public static final int IBV_QP_MAX_QP_RD_ATOMIC = 1 << 13;
    public static final int IBV_QP_MIN_RNR_TIMER = 1 << 15;
    public static final int IBV_QP_SQ_PSN = 1 << 16;
    public static final int IBV_QP_MAX_DEST_RD_ATOMIC = 1 << 17;
    public static final int IBV_QP_DEST_QPN = 1 << 20;

    // enum ibv_wr_opcode
    public static final int IBV_WR_RDMA_WRITE = 0;
    public static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;
    public static final int IBV_WR_SEND = 2;
    public static final int IBV_WR_SEND_WITH_IMM = 3;
    public static final int IBV_WR_RDMA_READ = 4;
    public static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;
    public static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;
    /** SEND that invalidates the peer's {@code invalidate_rkey} (verbs.h {@code IBV_WR_SEND_WITH_INV}; NVMe/RDMA). */
    public static final int IBV_WR_SEND_WITH_INV = 9;

    // enum ibv_send_flags
    public static final int IBV_SEND_FENCE = 1;
    public static final int IBV_SEND_SIGNALED = 1 << 1;
    public static final int IBV_SEND_SOLICITED = 1 << 2;
    public static final int IBV_SEND_INLINE = 1 << 3;

    // enum ibv_wc_opcode
    public static final int IBV_WC_SEND = 0;
    public static final int IBV_WC_RDMA_WRITE = 1;
    public static final int IBV_WC_RDMA_READ = 2;
    public static final int IBV_WC_COMP_SWAP = 3;
    public static final int IBV_WC_FETCH_ADD = 4;
    public static final int IBV_WC_RECV = 1 << 7;
    public static final int IBV_WC_RECV_RDMA_WITH_IMM = (1 << 7) + 1;

    // enum ibv_wc_flags
    public static final int IBV_WC_WITH_IMM = 1 << 1;

    // enum ibv_wc_status (the ones jdoca names; ibv_wc_status_str gives the rest)
    public static final int IBV_WC_SUCCESS = 0;
    public static final int IBV_WC_LOC_LEN_ERR = 1;
    public static final int IBV_WC_LOC_QP_OP_ERR = 2;
    public static final int IBV_WC_LOC_PROT_ERR = 4;
    public static final int IBV_WC_WR_FLUSH_ERR = 5;
    public static final int IBV_WC_BAD_RESP_ERR = 7;
    public static final int IBV_WC_LOC_ACCESS_ERR = 8;
    public static final int IBV_WC_REM_INV_REQ_ERR = 9;
    public static final int IBV_WC_REM_ACCESS_ERR = 10;
    public static final int IBV_WC_REM_OP_ERR = 11;
    public static final int IBV_WC_RETRY_EXC_ERR = 12;
    public static final int IBV_WC_RNR_RETRY_EXC_ERR = 13;
    public static final int IBV_WC_FATAL_ERR = 19;
    public static final int IBV_WC_RESP_TIMEOUT_ERR = 20;
    public static final int IBV_WC_GENERAL_ERR = 21;

    // enum ibv_port_state
    public static final int IBV_PORT_DOWN = 1;
    public static final int IBV_PORT_INIT = 2;
    public static final int IBV_PORT_ARMED = 3;
    public static final int IBV_PORT_ACTIVE = 4;

    // enum ibv_mtu
    public static final int IBV_MTU_256 = 1;
    public static final int IBV_MTU_4096 = 5;

    // IBV_LINK_LAYER_* (verbs.h defines)
    public static final int IBV_LINK_LAYER_UNSPECIFIED = 0;
    public static final int IBV_LINK_LAYER_INFINIBAND = 1;
    public static final int IBV_LINK_LAYER_ETHERNET = 2;

    // enum ibv_atomic_cap
    public static final int IBV_ATOMIC_NONE = 0;
    public static final int IBV_ATOMIC_HCA = 1;
    public static final int IBV_ATOMIC_GLOB = 2;

    // enum ibv_wc_status, more (the verbs transport maps them to DOCA errors)
    public static final int IBV_WC_LOC_EEC_OP_ERR = 3;
    public static final int IBV_WC_MW_BIND_ERR = 6;
    public static final int IBV_WC_REM_ABORT_ERR = 16;
    // enum ibv_mtu, the rest
    public static final int IBV_MTU_512 = 2;
    public static final int IBV_MTU_1024 = 3;
    public static final int IBV_MTU_2048 = 4;

    // enum rdma_port_space
    public static final int RDMA_PS_TCP = 0x0106;

    // enum rdma_cm_event_type
    public static final int RDMA_CM_EVENT_ADDR_RESOLVED = 0;
    public static final int RDMA_CM_EVENT_ADDR_ERROR = 1;
    public static final int RDMA_CM_EVENT_ROUTE_RESOLVED = 2;
    public static final int RDMA_CM_EVENT_ROUTE_ERROR = 3;
    public static final int RDMA_CM_EVENT_CONNECT_REQUEST = 4;
    public static final int RDMA_CM_EVENT_CONNECT_RESPONSE = 5;
    public static final int RDMA_CM_EVENT_CONNECT_ERROR = 6;
    public static final int RDMA_CM_EVENT_UNREACHABLE = 7;
    public static final int RDMA_CM_EVENT_REJECTED = 8;
    public static final int RDMA_CM_EVENT_ESTABLISHED = 9;
    public static final int RDMA_CM_EVENT_DISCONNECTED = 10;
    public static final int RDMA_CM_EVENT_DEVICE_REMOVAL = 11;
    public static final int RDMA_CM_EVENT_TIMEWAIT_EXIT = 15;

    // enum ibv_wc_flags, more
    public static final int IBV_WC_WITH_INV = 1 << 3;
    // enum ibv_wc_opcode, more
    public static final int IBV_WC_LOCAL_INV = 6;
    // enum ibv_qp_type, more
    public static final int IBV_QPT_UD = 4;

    // poll.h
    public static final int POLLIN = 1;
    public static final int POLLERR = 8;
    public static final int POLLHUP = 16;

    // fcntl.h: a channel's fd made non-blocking, so its events are drained without blocking an engine
    public static final int F_GETFL = 3;
    public static final int F_SETFL = 4;
    public static final int O_NONBLOCK = 04000;
    // errno.h
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;

    /** "Ethernet" / "InfiniBand" / the number, for an {@code IBV_LINK_LAYER_*} value. */
    public static String linkLayerName(int ll) {
        return switch (ll) {
            case IBV_LINK_LAYER_ETHERNET -> "Ethernet";
            case IBV_LINK_LAYER_INFINIBAND -> "InfiniBand";
            case IBV_LINK_LAYER_UNSPECIFIED -> "unspecified";
            default -> "link layer " + ll;
        };
    }

    /** Bytes of an {@code enum ibv_mtu} value (1 → 256 ... 5 → 4096), or 0 when out of range. */
    public static int mtuBytes(int mtu) {
        return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : 0;
    }

    /** DOWN / INIT / ARMED / ACTIVE / the number, for an {@code enum ibv_port_state} value. */
    public static String portStateName(int s) {
        return switch (s) {
            case IBV_PORT_DOWN -> "DOWN";
            case IBV_PORT_INIT -> "INIT";
            case IBV_PORT_ARMED -> "ARMED";
            case IBV_PORT_ACTIVE -> "ACTIVE";
            default -> "state " + s;
        };
    }

    /** NONE / HCA / GLOB for an {@code enum ibv_atomic_cap} value. */
    public static String atomicCapName(int a) {
        return switch (a) {
            case IBV_ATOMIC_NONE -> "none";
            case IBV_ATOMIC_HCA -> "HCA (atomic w.r.t. this device)";
            case IBV_ATOMIC_GLOB -> "GLOB (atomic w.r.t. CPU and devices)";
            default -> "atomic cap " + a;
        };
    }
}
