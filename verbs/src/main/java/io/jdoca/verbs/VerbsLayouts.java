package io.jdoca.verbs;

import static java.lang.foreign.MemoryLayout.paddingLayout;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.MemoryLayout.unionLayout;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * The rdma-core structs jdoca reads or writes, as {@code java.lang.foreign} layouts, for x86-64 / aarch64
 * Linux (LP64). Each layout is named after its C struct, each named member after its C field (a dotted
 * path for nested members: {@code wr.rdma.rkey}); members jdoca does not touch are padding. Unnamed
 * groups stand for C's anonymous unions. {@code VerbsLayoutTest} compiles a C program against the
 * installed headers and checks every named member's offset and size and every struct's size, so a
 * change in rdma-core shows up as a failing test rather than as memory corruption.
 * Written against rdma-core 44 (Debian bookworm); stable since the v1.1 ABI for these structs.
 * Thread rules: immutable constants.
 */
public final class VerbsLayouts {
    private VerbsLayouts() {
    }

    // ---- <infiniband/verbs.h> -------------------------------------------------------------------

    /** {@code union ibv_gid} (verbs.h): 16 raw bytes, network order. */
    public static final GroupLayout IBV_GID = unionLayout(
            sequenceLayout(16, JAVA_BYTE).withName("raw"),
            structLayout(JAVA_LONG.withName("subnet_prefix"), JAVA_LONG.withName("interface_id")).withName("global"))
            .withName("ibv_gid");

    /** {@code struct ibv_device_attr} (verbs.h), filled by {@code ibv_query_device}. */
    public static final GroupLayout IBV_DEVICE_ATTR = structLayout(
            sequenceLayout(64, JAVA_BYTE).withName("fw_ver"),
            JAVA_LONG.withName("node_guid"),
            JAVA_LONG.withName("sys_image_guid"),
            JAVA_LONG.withName("max_mr_size"),
            JAVA_LONG.withName("page_size_cap"),
            JAVA_INT.withName("vendor_id"),
            JAVA_INT.withName("vendor_part_id"),
            JAVA_INT.withName("hw_ver"),
            JAVA_INT.withName("max_qp"),
            JAVA_INT.withName("max_qp_wr"),
            JAVA_INT.withName("device_cap_flags"),
            JAVA_INT.withName("max_sge"),
            JAVA_INT.withName("max_sge_rd"),
            JAVA_INT.withName("max_cq"),
            JAVA_INT.withName("max_cqe"),
            JAVA_INT.withName("max_mr"),
            JAVA_INT.withName("max_pd"),
            JAVA_INT.withName("max_qp_rd_atom"),
            paddingLayout(8),                              // max_ee_rd_atom, max_res_rd_atom
            JAVA_INT.withName("max_qp_init_rd_atom"),
            paddingLayout(4),                              // max_ee_init_rd_atom
            JAVA_INT.withName("atomic_cap"),               // enum ibv_atomic_cap
            paddingLayout(48),                             // max_ee .. max_srq
            JAVA_INT.withName("max_srq_wr"),
            JAVA_INT.withName("max_srq_sge"),
            JAVA_SHORT.withName("max_pkeys"),
            JAVA_BYTE.withName("local_ca_ack_delay"),
            JAVA_BYTE.withName("phys_port_cnt"),
            paddingLayout(4))
            .withName("ibv_device_attr");

    /**
     * {@code struct ibv_port_attr} (verbs.h), filled by the exported (compat) {@code ibv_query_port};
     * {@code ibv_query_port} in the header is a macro over {@code ibv_query_port_ex}, which newer
     * rdma-core versions extend at the end (so callers pass {@link #PORT_ATTR_BUFFER} bytes, zeroed).
     */
    public static final GroupLayout IBV_PORT_ATTR = structLayout(
            JAVA_INT.withName("state"),                    // enum ibv_port_state
            JAVA_INT.withName("max_mtu"),                  // enum ibv_mtu
            JAVA_INT.withName("active_mtu"),
            JAVA_INT.withName("gid_tbl_len"),
            JAVA_INT.withName("port_cap_flags"),
            JAVA_INT.withName("max_msg_sz"),
            paddingLayout(8),                              // bad_pkey_cntr, qkey_viol_cntr
            JAVA_SHORT.withName("pkey_tbl_len"),
            JAVA_SHORT.withName("lid"),
            paddingLayout(7),                              // sm_lid .. init_type_reply
            JAVA_BYTE.withName("active_width"),
            JAVA_BYTE.withName("active_speed"),
            JAVA_BYTE.withName("phys_state"),
            JAVA_BYTE.withName("link_layer"),
            paddingLayout(5))                              // flags, port_cap_flags2 (+ pad)
            .withName("ibv_port_attr");

    /** Bytes callers give {@code ibv_query_port}: room for fields later rdma-core versions append. */
    public static final long PORT_ATTR_BUFFER = 128;

    /**
     * {@code struct ibv_context} (verbs.h) with its embedded {@code struct ibv_context_ops}: the data-path
     * verbs ({@code ibv_poll_cq}, {@code ibv_req_notify_cq}, {@code ibv_post_send}, {@code ibv_post_recv})
     * are static inline in verbs.h and call these provider function pointers.
     */
    public static final GroupLayout IBV_CONTEXT = structLayout(
            ADDRESS.withName("device"),
            structLayout(
                    paddingLayout(11 * 8),                 // _compat_query_device .. _compat_create_cq
                    ADDRESS.withName("poll_cq"),
                    ADDRESS.withName("req_notify_cq"),
                    paddingLayout(7 * 8),                  // _compat_cq_event .. _compat_destroy_srq
                    ADDRESS.withName("post_srq_recv"),
                    paddingLayout(4 * 8),                  // _compat_create_qp .. _compat_destroy_qp
                    ADDRESS.withName("post_send"),
                    ADDRESS.withName("post_recv"),
                    paddingLayout(5 * 8))                  // _compat_create_ah .. _compat_async_event
                    .withName("ops"),
            JAVA_INT.withName("cmd_fd"),
            JAVA_INT.withName("async_fd"),
            JAVA_INT.withName("num_comp_vectors"),
            paddingLayout(4 + 40 + 8))                     // pad, pthread_mutex_t mutex, abi_compat
            .withName("ibv_context");

    /** {@code struct ibv_comp_channel} (verbs.h): the fd a CQ's completion events arrive on. */
    public static final GroupLayout IBV_COMP_CHANNEL = structLayout(
            ADDRESS.withName("context"),
            JAVA_INT.withName("fd"),
            JAVA_INT.withName("refcnt"))
            .withName("ibv_comp_channel");

    /** {@code struct ibv_cq} (verbs.h). */
    public static final GroupLayout IBV_CQ = structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("channel"),
            ADDRESS.withName("cq_context"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("cqe"),
            paddingLayout(96))                             // mutex, cond, events_completed, async_events_completed
            .withName("ibv_cq");

    /** {@code struct ibv_mr} (verbs.h). */
    public static final GroupLayout IBV_MR = structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("pd"),
            ADDRESS.withName("addr"),
            JAVA_LONG.withName("length"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("lkey"),
            JAVA_INT.withName("rkey"),
            paddingLayout(4))
            .withName("ibv_mr");

    /** {@code struct ibv_qp_cap} (verbs.h). */
    public static final GroupLayout IBV_QP_CAP = structLayout(
            JAVA_INT.withName("max_send_wr"),
            JAVA_INT.withName("max_recv_wr"),
            JAVA_INT.withName("max_send_sge"),
            JAVA_INT.withName("max_recv_sge"),
            JAVA_INT.withName("max_inline_data"))
            .withName("ibv_qp_cap");

    /** {@code struct ibv_qp_init_attr} (verbs.h), for {@code ibv_create_qp} / {@code rdma_create_qp}. */
    public static final GroupLayout IBV_QP_INIT_ATTR = structLayout(
            ADDRESS.withName("qp_context"),
            ADDRESS.withName("send_cq"),
            ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"),
            IBV_QP_CAP.withName("cap"),
            JAVA_INT.withName("qp_type"),                  // enum ibv_qp_type
            JAVA_INT.withName("sq_sig_all"),
            paddingLayout(4))
            .withName("ibv_qp_init_attr");

    /** {@code struct ibv_qp} (verbs.h). */
    public static final GroupLayout IBV_QP = structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("qp_context"),
            ADDRESS.withName("pd"),
            ADDRESS.withName("send_cq"),
            ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("qp_num"),
            JAVA_INT.withName("state"),                    // enum ibv_qp_state
            JAVA_INT.withName("qp_type"),
            paddingLayout(96))                             // mutex, cond, events_completed
            .withName("ibv_qp");

    /** {@code struct ibv_global_route} (verbs.h). */
    public static final GroupLayout IBV_GLOBAL_ROUTE = structLayout(
            IBV_GID.withName("dgid"),
            JAVA_INT.withName("flow_label"),
            JAVA_BYTE.withName("sgid_index"),
            JAVA_BYTE.withName("hop_limit"),
            JAVA_BYTE.withName("traffic_class"),
            paddingLayout(1))
            .withName("ibv_global_route");

    /** {@code struct ibv_ah_attr} (verbs.h). */
    public static final GroupLayout IBV_AH_ATTR = structLayout(
            IBV_GLOBAL_ROUTE.withName("grh"),
            JAVA_SHORT.withName("dlid"),
            JAVA_BYTE.withName("sl"),
            JAVA_BYTE.withName("src_path_bits"),
            JAVA_BYTE.withName("static_rate"),
            JAVA_BYTE.withName("is_global"),
            JAVA_BYTE.withName("port_num"),
            paddingLayout(1))
            .withName("ibv_ah_attr");

    /** {@code struct ibv_qp_attr} (verbs.h), for {@code ibv_modify_qp} (RESET → INIT → RTR → RTS). */
    public static final GroupLayout IBV_QP_ATTR = structLayout(
            JAVA_INT.withName("qp_state"),
            JAVA_INT.withName("cur_qp_state"),
            JAVA_INT.withName("path_mtu"),
            JAVA_INT.withName("path_mig_state"),
            JAVA_INT.withName("qkey"),
            JAVA_INT.withName("rq_psn"),
            JAVA_INT.withName("sq_psn"),
            JAVA_INT.withName("dest_qp_num"),
            JAVA_INT.withName("qp_access_flags"),
            IBV_QP_CAP.withName("cap"),
            IBV_AH_ATTR.withName("ah_attr"),
            IBV_AH_ATTR.withName("alt_ah_attr"),
            JAVA_SHORT.withName("pkey_index"),
            JAVA_SHORT.withName("alt_pkey_index"),
            JAVA_BYTE.withName("en_sqd_async_notify"),
            JAVA_BYTE.withName("sq_draining"),
            JAVA_BYTE.withName("max_rd_atomic"),
            JAVA_BYTE.withName("max_dest_rd_atomic"),
            JAVA_BYTE.withName("min_rnr_timer"),
            JAVA_BYTE.withName("port_num"),
            JAVA_BYTE.withName("timeout"),
            JAVA_BYTE.withName("retry_cnt"),
            JAVA_BYTE.withName("rnr_retry"),
            JAVA_BYTE.withName("alt_port_num"),
            JAVA_BYTE.withName("alt_timeout"),
            paddingLayout(1),
            JAVA_INT.withName("rate_limit"),
            paddingLayout(4))
            .withName("ibv_qp_attr");

    /** {@code struct ibv_sge} (verbs.h): one scatter/gather element. */
    public static final GroupLayout IBV_SGE = structLayout(
            JAVA_LONG.withName("addr"),
            JAVA_INT.withName("length"),
            JAVA_INT.withName("lkey"))
            .withName("ibv_sge");

    /** {@code struct ibv_send_wr} (verbs.h); {@code imm_data} is network order. */
    public static final GroupLayout IBV_SEND_WR = structLayout(
            JAVA_LONG.withName("wr_id"),
            ADDRESS.withName("next"),
            ADDRESS.withName("sg_list"),
            JAVA_INT.withName("num_sge"),
            JAVA_INT.withName("opcode"),                   // enum ibv_wr_opcode
            JAVA_INT.withName("send_flags"),
            unionLayout(JAVA_INT.withName("imm_data"), JAVA_INT.withName("invalidate_rkey")),
            unionLayout(
                    structLayout(JAVA_LONG.withName("remote_addr"), JAVA_INT.withName("rkey"), paddingLayout(4))
                            .withName("rdma"),
                    structLayout(JAVA_LONG.withName("remote_addr"), JAVA_LONG.withName("compare_add"),
                            JAVA_LONG.withName("swap"), JAVA_INT.withName("rkey"), paddingLayout(4))
                            .withName("atomic"))
                    .withName("wr"),
            paddingLayout(56))                             // qp_type (xrc), bind_mw / tso union
            .withName("ibv_send_wr");

    /** {@code struct ibv_recv_wr} (verbs.h). */
    public static final GroupLayout IBV_RECV_WR = structLayout(
            JAVA_LONG.withName("wr_id"),
            ADDRESS.withName("next"),
            ADDRESS.withName("sg_list"),
            JAVA_INT.withName("num_sge"),
            paddingLayout(4))
            .withName("ibv_recv_wr");

    /** {@code struct ibv_wc} (verbs.h): one work completion; {@code imm_data} is network order. */
    public static final GroupLayout IBV_WC = structLayout(
            JAVA_LONG.withName("wr_id"),
            JAVA_INT.withName("status"),                   // enum ibv_wc_status
            JAVA_INT.withName("opcode"),                   // enum ibv_wc_opcode
            JAVA_INT.withName("vendor_err"),
            JAVA_INT.withName("byte_len"),
            unionLayout(JAVA_INT.withName("imm_data"), JAVA_INT.withName("invalidated_rkey")),
            JAVA_INT.withName("qp_num"),
            JAVA_INT.withName("src_qp"),
            JAVA_INT.withName("wc_flags"),
            paddingLayout(8))                              // pkey_index, slid, sl, dlid_path_bits
            .withName("ibv_wc");

    /** {@code struct ibv_srq_init_attr} (verbs.h) with its {@code struct ibv_srq_attr}, for {@code ibv_create_srq}. */
    public static final GroupLayout IBV_SRQ_INIT_ATTR = structLayout(
            ADDRESS.withName("srq_context"),
            structLayout(
                    JAVA_INT.withName("max_wr"),
                    JAVA_INT.withName("max_sge"),
                    JAVA_INT.withName("srq_limit"))
                    .withName("attr"),
            paddingLayout(4))
            .withName("ibv_srq_init_attr");

    // ---- <netinet/in.h> -------------------------------------------------------------------------

    /** {@code struct sockaddr_in} (netinet/in.h): family in host order, port and address in network order. */
    public static final GroupLayout SOCKADDR_IN = structLayout(
            JAVA_SHORT.withName("sin_family"),
            JAVA_SHORT.withName("sin_port"),
            sequenceLayout(4, JAVA_BYTE).withName("sin_addr"),
            paddingLayout(8))                              // sin_zero
            .withName("sockaddr_in");

    // ---- <rdma/rdma_cma.h> ----------------------------------------------------------------------

    /** {@code struct rdma_event_channel} (rdma_cma.h). */
    public static final GroupLayout RDMA_EVENT_CHANNEL = structLayout(JAVA_INT.withName("fd"))
            .withName("rdma_event_channel");

    /** {@code struct rdma_conn_param} (rdma_cma.h), for {@code rdma_connect} / {@code rdma_accept}. */
    public static final GroupLayout RDMA_CONN_PARAM = structLayout(
            ADDRESS.withName("private_data"),
            JAVA_BYTE.withName("private_data_len"),
            JAVA_BYTE.withName("responder_resources"),
            JAVA_BYTE.withName("initiator_depth"),
            JAVA_BYTE.withName("flow_control"),
            JAVA_BYTE.withName("retry_count"),
            JAVA_BYTE.withName("rnr_retry_count"),
            JAVA_BYTE.withName("srq"),
            paddingLayout(1),
            JAVA_INT.withName("qp_num"),
            paddingLayout(4))
            .withName("rdma_conn_param");

    /** {@code struct rdma_addr} (rdma_cma.h): source and destination as sockaddr unions of 128 bytes. */
    private static final GroupLayout RDMA_ADDR = structLayout(
            unionLayout(SOCKADDR_IN.withName("src_sin"), paddingLayout(128)),
            unionLayout(SOCKADDR_IN.withName("dst_sin"), paddingLayout(128)),
            paddingLayout(40))                             // union { struct rdma_ib_addr ibaddr; }
            .withName("rdma_addr");

    /** {@code struct rdma_cm_id} (rdma_cma.h). */
    public static final GroupLayout RDMA_CM_ID = structLayout(
            ADDRESS.withName("verbs"),                     // struct ibv_context *
            ADDRESS.withName("channel"),
            ADDRESS.withName("context"),
            ADDRESS.withName("qp"),
            structLayout(RDMA_ADDR.withName("addr"), paddingLayout(16)).withName("route"), // path_rec, num_paths
            JAVA_INT.withName("ps"),
            JAVA_BYTE.withName("port_num"),
            paddingLayout(3),
            ADDRESS.withName("event"),
            paddingLayout(5 * 8),                          // send/recv cq channels and cqs, srq
            ADDRESS.withName("pd"),
            JAVA_INT.withName("qp_type"),
            paddingLayout(4))
            .withName("rdma_cm_id");

    /** {@code struct rdma_cm_event} (rdma_cma.h); {@code param} is a union of conn and ud parameters. */
    public static final GroupLayout RDMA_CM_EVENT = structLayout(
            ADDRESS.withName("id"),
            ADDRESS.withName("listen_id"),
            JAVA_INT.withName("event"),                    // enum rdma_cm_event_type
            JAVA_INT.withName("status"),
            unionLayout(RDMA_CONN_PARAM.withName("conn"), paddingLayout(56)).withName("param"))
            .withName("rdma_cm_event");

    // ---- <poll.h> -------------------------------------------------------------------------------

    /** {@code struct pollfd} (poll.h): how an engine waits on the CM and completion channel fds. */
    public static final GroupLayout POLLFD = structLayout(
            JAVA_INT.withName("fd"),
            JAVA_SHORT.withName("events"),
            JAVA_SHORT.withName("revents"))
            .withName("pollfd");

    /** Every layout above that has a C struct or union of the same name, for the layout test. */
    public static final List<GroupLayout> ALL = List.of(IBV_GID, IBV_DEVICE_ATTR, IBV_PORT_ATTR, IBV_CONTEXT,
            IBV_COMP_CHANNEL, IBV_CQ, IBV_MR, IBV_QP_CAP, IBV_QP_INIT_ATTR, IBV_QP, IBV_GLOBAL_ROUTE, IBV_AH_ATTR,
            IBV_QP_ATTR, IBV_SGE, IBV_SEND_WR, IBV_RECV_WR, IBV_WC, SOCKADDR_IN, RDMA_EVENT_CHANNEL, RDMA_CONN_PARAM,
            RDMA_CM_ID, RDMA_CM_EVENT, POLLFD, IBV_SRQ_INIT_ATTR);

    /** One named member: its dotted path (C designator), byte offset and byte size. */
    public record Field(String path, long offset, long size) {
    }

    /** Every named member of {@code g}, nested ones included; anonymous groups are transparent, as in C. */
    public static List<Field> fields(GroupLayout g) {
        List<Field> out = new ArrayList<>();
        walk(g, "", 0, out);
        return out;
    }

    private static void walk(GroupLayout g, String prefix, long base, List<Field> out) {
        long off = 0;
        boolean union = g instanceof java.lang.foreign.UnionLayout;
        for (MemoryLayout m : g.memberLayouts()) {
            long at = base + (union ? 0 : off);
            if (!(m instanceof PaddingLayout)) {
                if (m.name().isPresent()) {
                    String path = prefix + m.name().get();
                    out.add(new Field(path, at, m.byteSize()));
                    if (m instanceof GroupLayout sub) {
                        walk(sub, path + ".", at, out);
                    }
                } else if (m instanceof GroupLayout sub) {
                    walk(sub, prefix, at, out);
                }
            }
            off += m.byteSize();
        }
    }

    /** Byte offset of the member at dotted {@code path} in {@code g}; throws if there is none (a bug here). */
    public static long offset(GroupLayout g, String path) {
        for (Field f : fields(g)) {
            if (f.path().equals(path)) {
                return f.offset();
            }
        }
        throw new IllegalArgumentException(g.name().orElse("?") + " has no member " + path);
    }

    // Offsets the bindings use on the hot path, resolved once.
    static final long CTX_POLL_CQ = offset(IBV_CONTEXT, "ops.poll_cq");
    static final long CTX_REQ_NOTIFY_CQ = offset(IBV_CONTEXT, "ops.req_notify_cq");
    static final long CTX_POST_SEND = offset(IBV_CONTEXT, "ops.post_send");
    static final long CTX_POST_RECV = offset(IBV_CONTEXT, "ops.post_recv");
    static final long CTX_POST_SRQ_RECV = offset(IBV_CONTEXT, "ops.post_srq_recv");

    /** {@code ibv_sge}: addr, length, lkey. */
    public static final long SGE_ADDR = offset(IBV_SGE, "addr");
    public static final long SGE_LENGTH = offset(IBV_SGE, "length");
    public static final long SGE_LKEY = offset(IBV_SGE, "lkey");
    /** {@code ibv_send_wr} members. */
    public static final long SWR_WR_ID = offset(IBV_SEND_WR, "wr_id");
    public static final long SWR_NEXT = offset(IBV_SEND_WR, "next");
    public static final long SWR_SG_LIST = offset(IBV_SEND_WR, "sg_list");
    public static final long SWR_NUM_SGE = offset(IBV_SEND_WR, "num_sge");
    public static final long SWR_OPCODE = offset(IBV_SEND_WR, "opcode");
    public static final long SWR_SEND_FLAGS = offset(IBV_SEND_WR, "send_flags");
    public static final long SWR_IMM_DATA = offset(IBV_SEND_WR, "imm_data");
    public static final long SWR_RDMA_REMOTE_ADDR = offset(IBV_SEND_WR, "wr.rdma.remote_addr");
    public static final long SWR_RDMA_RKEY = offset(IBV_SEND_WR, "wr.rdma.rkey");
    public static final long SWR_ATOMIC_REMOTE_ADDR = offset(IBV_SEND_WR, "wr.atomic.remote_addr");
    public static final long SWR_ATOMIC_COMPARE_ADD = offset(IBV_SEND_WR, "wr.atomic.compare_add");
    public static final long SWR_ATOMIC_SWAP = offset(IBV_SEND_WR, "wr.atomic.swap");
    public static final long SWR_ATOMIC_RKEY = offset(IBV_SEND_WR, "wr.atomic.rkey");
    /** {@code invalidate_rkey} of a SEND with Invalidate (shares the union with {@code imm_data}). */
    public static final long SWR_INVALIDATE_RKEY = offset(IBV_SEND_WR, "invalidate_rkey");
    /** {@code ibv_recv_wr} members. */
    public static final long RWR_WR_ID = offset(IBV_RECV_WR, "wr_id");
    public static final long RWR_NEXT = offset(IBV_RECV_WR, "next");
    public static final long RWR_SG_LIST = offset(IBV_RECV_WR, "sg_list");
    public static final long RWR_NUM_SGE = offset(IBV_RECV_WR, "num_sge");
    /** {@code ibv_wc} members. */
    public static final long WC_WR_ID = offset(IBV_WC, "wr_id");
    public static final long WC_STATUS = offset(IBV_WC, "status");
    public static final long WC_OPCODE = offset(IBV_WC, "opcode");
    public static final long WC_VENDOR_ERR = offset(IBV_WC, "vendor_err");
    public static final long WC_BYTE_LEN = offset(IBV_WC, "byte_len");
    public static final long WC_IMM_DATA = offset(IBV_WC, "imm_data");
    public static final long WC_QP_NUM = offset(IBV_WC, "qp_num");
    public static final long WC_WC_FLAGS = offset(IBV_WC, "wc_flags");
    /** {@code ibv_mr} keys. */
    public static final long MR_LKEY = offset(IBV_MR, "lkey");
    public static final long MR_RKEY = offset(IBV_MR, "rkey");
    /** {@code ibv_qp.qp_num}, {@code ibv_cq.context}, {@code ibv_qp.context}. */
    public static final long QP_QP_NUM = offset(IBV_QP, "qp_num");
    public static final long QP_CONTEXT = offset(IBV_QP, "context");
    public static final long CQ_CONTEXT = offset(IBV_CQ, "context");
    /** Completion channel and CM event channel fds. */
    public static final long COMP_CHANNEL_FD = offset(IBV_COMP_CHANNEL, "fd");
    public static final long EVENT_CHANNEL_FD = offset(RDMA_EVENT_CHANNEL, "fd");
    /** {@code rdma_cm_id} members. */
    public static final long CM_ID_VERBS = offset(RDMA_CM_ID, "verbs");
    public static final long CM_ID_CONTEXT = offset(RDMA_CM_ID, "context");
    public static final long CM_ID_QP = offset(RDMA_CM_ID, "qp");
    public static final long CM_ID_PORT_NUM = offset(RDMA_CM_ID, "port_num");
    public static final long CM_ID_SRC_SIN = offset(RDMA_CM_ID, "route.addr.src_sin");
    public static final long CM_ID_DST_SIN = offset(RDMA_CM_ID, "route.addr.dst_sin");
    /** {@code rdma_cm_event} members. */
    public static final long CM_EVENT_ID = offset(RDMA_CM_EVENT, "id");
    public static final long CM_EVENT_LISTEN_ID = offset(RDMA_CM_EVENT, "listen_id");
    public static final long CM_EVENT_EVENT = offset(RDMA_CM_EVENT, "event");
    public static final long CM_EVENT_STATUS = offset(RDMA_CM_EVENT, "status");
    public static final long CM_EVENT_PRIVATE_DATA = offset(RDMA_CM_EVENT, "param.conn.private_data");
    public static final long CM_EVENT_PRIVATE_DATA_LEN = offset(RDMA_CM_EVENT, "param.conn.private_data_len");
    /** The peer's QP number in a CONNECT_REQUEST / CONNECT_RESPONSE (a QP the peer created itself). */
    public static final long CM_EVENT_QP_NUM = offset(RDMA_CM_EVENT, "param.conn.qp_num");
    /** {@code rdma_conn_param} members ({@link RdmaCm#connParam}). */
    public static final long CP_PRIVATE_DATA = offset(RDMA_CONN_PARAM, "private_data");
    public static final long CP_PRIVATE_DATA_LEN = offset(RDMA_CONN_PARAM, "private_data_len");
    public static final long CP_RESPONDER_RESOURCES = offset(RDMA_CONN_PARAM, "responder_resources");
    public static final long CP_INITIATOR_DEPTH = offset(RDMA_CONN_PARAM, "initiator_depth");
    public static final long CP_RETRY_COUNT = offset(RDMA_CONN_PARAM, "retry_count");
    public static final long CP_RNR_RETRY_COUNT = offset(RDMA_CONN_PARAM, "rnr_retry_count");
    public static final long CP_SRQ = offset(RDMA_CONN_PARAM, "srq");
    public static final long CP_QP_NUM = offset(RDMA_CONN_PARAM, "qp_num");
    /** The connection request's RDMA read depths, from the passive side's view (rdma_cma.h). */
    public static final long CM_EVENT_RESPONDER_RESOURCES = offset(RDMA_CM_EVENT, "param.conn.responder_resources");
    public static final long CM_EVENT_INITIATOR_DEPTH = offset(RDMA_CM_EVENT, "param.conn.initiator_depth");

    /** {@code ibv_srq_init_attr.attr} members (the verbs transport's shared receive queue). */
    public static final long SRQ_INIT_MAX_WR = offset(IBV_SRQ_INIT_ATTR, "attr.max_wr");
    public static final long SRQ_INIT_MAX_SGE = offset(IBV_SRQ_INIT_ATTR, "attr.max_sge");
    /** {@code ibv_qp_init_attr} / {@code ibv_qp_attr} members the verbs transport sets (RESET → INIT → RTR → RTS). */
    public static final long QPI_SEND_CQ = offset(IBV_QP_INIT_ATTR, "send_cq");
    public static final long QPI_RECV_CQ = offset(IBV_QP_INIT_ATTR, "recv_cq");
    public static final long QPI_SRQ = offset(IBV_QP_INIT_ATTR, "srq");
    public static final long QPI_MAX_SEND_WR = offset(IBV_QP_INIT_ATTR, "cap.max_send_wr");
    public static final long QPI_MAX_RECV_WR = offset(IBV_QP_INIT_ATTR, "cap.max_recv_wr");
    public static final long QPI_MAX_SEND_SGE = offset(IBV_QP_INIT_ATTR, "cap.max_send_sge");
    public static final long QPI_MAX_RECV_SGE = offset(IBV_QP_INIT_ATTR, "cap.max_recv_sge");
    public static final long QPI_QP_TYPE = offset(IBV_QP_INIT_ATTR, "qp_type");
    public static final long QPA_QP_STATE = offset(IBV_QP_ATTR, "qp_state");
    public static final long QPA_PATH_MTU = offset(IBV_QP_ATTR, "path_mtu");
    public static final long QPA_RQ_PSN = offset(IBV_QP_ATTR, "rq_psn");
    public static final long QPA_SQ_PSN = offset(IBV_QP_ATTR, "sq_psn");
    public static final long QPA_DEST_QP_NUM = offset(IBV_QP_ATTR, "dest_qp_num");
    public static final long QPA_ACCESS_FLAGS = offset(IBV_QP_ATTR, "qp_access_flags");
    public static final long QPA_AH_DGID = offset(IBV_QP_ATTR, "ah_attr.grh.dgid");
    public static final long QPA_AH_SGID_INDEX = offset(IBV_QP_ATTR, "ah_attr.grh.sgid_index");
    public static final long QPA_AH_HOP_LIMIT = offset(IBV_QP_ATTR, "ah_attr.grh.hop_limit");
    public static final long QPA_AH_DLID = offset(IBV_QP_ATTR, "ah_attr.dlid");
    public static final long QPA_AH_IS_GLOBAL = offset(IBV_QP_ATTR, "ah_attr.is_global");
    public static final long QPA_AH_PORT_NUM = offset(IBV_QP_ATTR, "ah_attr.port_num");
    public static final long QPA_PKEY_INDEX = offset(IBV_QP_ATTR, "pkey_index");
    public static final long QPA_MAX_RD_ATOMIC = offset(IBV_QP_ATTR, "max_rd_atomic");
    public static final long QPA_MAX_DEST_RD_ATOMIC = offset(IBV_QP_ATTR, "max_dest_rd_atomic");
    public static final long QPA_MIN_RNR_TIMER = offset(IBV_QP_ATTR, "min_rnr_timer");
    public static final long QPA_PORT_NUM = offset(IBV_QP_ATTR, "port_num");
    public static final long QPA_TIMEOUT = offset(IBV_QP_ATTR, "timeout");
    public static final long QPA_RETRY_CNT = offset(IBV_QP_ATTR, "retry_cnt");
    public static final long QPA_RNR_RETRY = offset(IBV_QP_ATTR, "rnr_retry");
}
