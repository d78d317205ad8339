package io.jdoca.rdma;

import io.jdoca.core.dev.Capability;
import io.jdoca.core.dev.CapabilityProvider;
import io.jdoca.core.dev.DevInfo;
import java.util.ArrayList;
import java.util.List;

/** Lists the RDMA library's {@code doca_rdma_cap_*} answers for {@code ./jdoca devices}. Stateless. */
public final class RdmaCapabilities implements CapabilityProvider {
    @Override
    public List<Capability> capabilities(DevInfo d) {
        List<Capability> l = new ArrayList<>();
        add(l, "task_receive_is_supported", Rdma.capTaskReceiveIsSupported(d));
        add(l, "task_send_is_supported", Rdma.capTaskSendIsSupported(d));
        add(l, "task_send_imm_is_supported", Rdma.capTaskSendImmIsSupported(d));
        add(l, "task_read_is_supported", Rdma.capTaskReadIsSupported(d));
        add(l, "task_write_is_supported", Rdma.capTaskWriteIsSupported(d));
        add(l, "task_write_imm_is_supported", Rdma.capTaskWriteImmIsSupported(d));
        add(l, "task_atomic_cmp_swp_is_supported", Rdma.capTaskAtomicCmpSwpIsSupported(d));
        add(l, "task_atomic_fetch_add_is_supported", Rdma.capTaskAtomicFetchAddIsSupported(d));
        add(l, "task_remote_net_sync_event_get_is_supported", Rdma.capTaskRemoteNetSyncEventGetIsSupported(d));
        add(l, "task_remote_net_sync_event_notify_set_is_supported",
                Rdma.capTaskRemoteNetSyncEventNotifySetIsSupported(d));
        add(l, "task_remote_net_sync_event_notify_add_is_supported",
                Rdma.capTaskRemoteNetSyncEventNotifyAddIsSupported(d));
        add(l, "get_max_message_size", Rdma.capMaxMessageSize(d));
        add(l, "get_max_send_buf_list_len", Rdma.capMaxSendBufListLen(d));
        add(l, "task_receive_get_max_dst_buf_list_len", Rdma.capTaskReceiveMaxDstBufListLen(d));
        add(l, "get_max_send_queue_size", Rdma.capMaxSendQueueSize(d));
        add(l, "get_max_recv_queue_size", Rdma.capMaxRecvQueueSize(d));
        l.add(new Capability("rdma", "transports", d != null && d.isVerbs()
                ? "verbs (rdma-core RC QPs; the default on this device), shm, tcp"
                : "shm (same host), tcp"));
        return l;
    }

    private static void add(List<Capability> l, String name, Object v) {
        l.add(new Capability("rdma", "doca_rdma_cap_" + name, String.valueOf(v)));
    }
}
