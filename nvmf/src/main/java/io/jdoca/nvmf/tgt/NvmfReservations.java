package io.jdoca.nvmf.tgt;

import io.jdoca.nvmf.resv.ControllerIdResolver;
import io.jdoca.nvmf.resv.NamespaceReservation;
import io.jdoca.nvmf.resv.ReservationFields;
import io.jdoca.nvmf.resv.ReservationNotice;
import io.jdoca.nvmf.resv.ReservationNotificationLog;
import io.jdoca.nvmf.resv.ReservationReport;
import io.jdoca.nvmf.resv.ReservationResult;
import io.jdoca.sta.StaNamespace;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reservation commands of the NVM command set (SPDK's {@code nvmf_ns_reservation_request},
 * NVMe Base 2.0 §7.2-7.5 and §8.19): Reservation Register, Report, Acquire and Release arrive on
 * I/O queues, are handed to {@code sta-main} like admin commands and executed against the
 * namespace's {@link NamespaceReservation}; after each change the namespace's new
 * {@link io.jdoca.sta.nvmf.NvmfReservationView} is published, which the IO engines check before
 * every read and write, and the hosts due a Reservation Notification get a log entry (80h) and
 * the asynchronous event. Preempt and Abort does not abort commands already executing (as SPDK):
 * the preempted hosts' next commands meet the new reservation.
 *
 * <p>Threads: {@code sta-main} only (part of {@link AdminHandler}).
 */
final class NvmfReservations {
    private static final Logger LOG = LoggerFactory.getLogger(NvmfReservations.class);

    private final AdminHandler admin;
    private final NvmfControllers controllers;

    NvmfReservations(AdminHandler admin, NvmfControllers controllers) {
        this.admin = admin;
        this.controllers = controllers;
    }

    static boolean isReservationCommand(int opcode) {
        return opcode == NvmeOpcode.IO_RESERVATION_REGISTER || opcode == NvmeOpcode.IO_RESERVATION_REPORT
                || opcode == NvmeOpcode.IO_RESERVATION_ACQUIRE || opcode == NvmeOpcode.IO_RESERVATION_RELEASE;
    }

    /**
     * Executes reservation command {@code c} that arrived on an I/O queue of {@code ctrl}. With a
     * reservation file (ptpl_file) the command runs under the file's cross-process lock on the
     * file's latest state, so two targets serving the namespace share one reservation.
     */
    void execute(NvmfAdminCommand c, NvmfController ctrl) {
        NvmfSubsystem s = ctrl.subsystem();
        int nsid = c.sqe.nsid();
        NamespaceReservation r = s.ns(nsid) == null ? null : s.reservation(nsid);
        if (r == null) {
            admin.reply(c, NvmeStatus.INVALID_NAMESPACE, 0, 0);
            return;
        }
        if (r.store() == null) {
            execute(c, ctrl, r);
            return;
        }
        java.io.Closeable lock;
        try {
            lock = r.store().lock();
        } catch (java.io.IOException e) {
            LOG.error("{}: reservation file {} cannot be locked: {}", s.nqn(), r.store().file(), e.getMessage());
            admin.reply(c, NvmeStatus.INTERNAL_ERROR, 0, 0);
            return;
        }
        try {
            r = refresh(s, nsid);
            execute(c, ctrl, r);
            s.setReservationStamp(nsid, r.store().stamp());
        } finally {
            try {
                lock.close();
            } catch (java.io.IOException e) {
                LOG.warn("{}: reservation file lock not released: {}", s.nqn(), e.getMessage());
            }
        }
    }

    /**
     * Namespace {@code nsid}'s reservation, read again from its file when another target changed the
     * file since this one last read or wrote it (a file PTPL-off left empty is not read: it holds no
     * state to share). The new view is published to the IO engines. sta-main.
     */
    static NamespaceReservation refresh(NvmfSubsystem s, int nsid) {
        NamespaceReservation r = s.reservation(nsid);
        if (r == null || r.store() == null) {
            return r;
        }
        Object stamp = r.store().stamp();
        if (java.util.Objects.equals(stamp, s.reservationStamp(nsid))) {
            return r;
        }
        s.setReservationStamp(nsid, stamp);
        try {
            if (r.store().load().isEmpty()) {
                return r;
            }
            NamespaceReservation fresh = NamespaceReservation.load(r.store());
            s.setReservation(nsid, fresh);
            s.setReservationStamp(nsid, stamp);
            StaNamespace ns = s.ns(nsid);
            if (ns != null) {
                ns.setReservation(fresh.view());
            }
            LOG.info("{} namespace {}: reservation read again from {} (changed by another target)", s.nqn(), nsid,
                    r.store().file());
            return fresh;
        } catch (java.io.IOException | RuntimeException e) {
            LOG.warn("{} namespace {}: reservation file {} not read again: {}", s.nqn(), nsid, r.store().file(),
                    e.getMessage());
            return r;
        }
    }

    /** Reads every shared reservation file another target changed. sta-main, periodically. */
    static void refreshAll(List<NvmfSubsystem> subsystems) {
        for (NvmfSubsystem s : subsystems) {
            if (!s.isDiscovery()) {
                for (int nsid : s.reservedNamespaces()) {
                    refresh(s, nsid);
                }
            }
        }
    }

    private void execute(NvmfAdminCommand c, NvmfController ctrl, NamespaceReservation r) {
        NvmeCommand cmd = c.sqe;
        NvmfSubsystem s = ctrl.subsystem();
        int nsid = cmd.nsid();
        StaNamespace ns = s.ns(nsid);
        long hi = ctrl.hostIdHi();
        long lo = ctrl.hostIdLo();
        if (!NamespaceReservation.hostIdValid(hi, lo)) {
            LOG.info("{}: reservation command refused: host {} connected without a Host Identifier (all zeros)",
                    ctrl, ctrl.hostNqn());
        }
        int cdw10 = cmd.cdw10();
        if (cmd.opcode() == NvmeOpcode.IO_RESERVATION_REPORT) {
            ReservationReport rep = r.report(hi, lo, ReservationFields.reportLengthBytes(cdw10),
                    ReservationFields.eds(cmd.cdw11()), cntlids(s));
            if (rep.status() != NvmeStatus.SUCCESS) {
                admin.reply(c, rep.status(), 0, 0);
            } else {
                int len = (int) Math.min(rep.data().length, cmd.sglLength());
                admin.replyData(c, rep.data(), len);
            }
            return;
        }
        int need = cmd.opcode() == NvmeOpcode.IO_RESERVATION_RELEASE ? ReservationFields.RELEASE_DATA_BYTES
                : ReservationFields.REGISTER_ACQUIRE_DATA_BYTES;
        byte[] data = c.data == null || c.data.byteSize() < need ? null : c.data.toArray(ValueLayout.JAVA_BYTE);
        if (data == null) {
            admin.reply(c, NvmeStatus.DATA_SGL_LENGTH_INVALID, 0, 0);
            return;
        }
        long crkey = ReservationFields.key(data, 0);
        int action = ReservationFields.action(cdw10);
        boolean iekey = ReservationFields.iekey(cdw10);
        ReservationResult res = switch (cmd.opcode()) {
            case NvmeOpcode.IO_RESERVATION_REGISTER -> r.register(hi, lo, action, iekey, crkey,
                    ReservationFields.key(data, 8), ReservationFields.cptpl(cdw10));
            case NvmeOpcode.IO_RESERVATION_ACQUIRE -> r.acquire(hi, lo, action, iekey, crkey,
                    ReservationFields.key(data, 8), ReservationFields.rtype(cdw10));
            default -> r.release(hi, lo, action, iekey, crkey, ReservationFields.rtype(cdw10));
        };
        if (res.success()) {
            ns.setReservation(r.view());
            notify(s, nsid, res.notices());
        }
        admin.reply(c, res.status(), 0, 0);
    }

    /** Registered Controller CNTLID: the host's one controller on the subsystem, else FFFFh (several or none). */
    private ControllerIdResolver cntlids(NvmfSubsystem s) {
        return (hi, lo) -> {
            List<NvmfController> of = controllers.all().stream()
                    .filter(c -> c.subsystem() == s && c.hostIdHi() == hi && c.hostIdLo() == lo).toList();
            return of.size() == 1 ? of.getFirst().cntlid() : ControllerIdResolver.DYNAMIC;
        };
    }

    /** Posts each notice to every controller of the host it names, raising the event where due. */
    private void notify(NvmfSubsystem s, int nsid, List<ReservationNotice> notices) {
        for (ReservationNotice n : notices) {
            for (NvmfController c : controllers.all()) {
                if (c.subsystem() != s || c.hostIdHi() != n.host().hi() || c.hostIdLo() != n.host().lo()
                        || ReservationNotificationLog.masked(c.reservationMask(nsid), n.logPageType())) {
                    continue;
                }
                if (c.reservationLog().post(n.logPageType(), nsid)) {
                    c.queueEvent(ReservationNotificationLog.ASYNC_EVENT_DW0);
                    c.deliverEvents();
                }
            }
        }
    }

    /** Get Log Page 80h for {@code ctrl}: one page, the event unmasked unless RAE (cdw10 bit 15). */
    static byte[] log(NvmfController ctrl, int cdw10) {
        boolean rae = (cdw10 & (1 << 15)) != 0;
        byte[] page = ctrl.reservationLog().take(rae);
        if (ctrl.reservationLog().eventDue()) {
            ctrl.queueEvent(ReservationNotificationLog.ASYNC_EVENT_DW0);
            ctrl.deliverEvents();
        }
        return page;
    }

    /** The data of a Reservation Register, Acquire or Release (host to controller), when it was in the capsule. */
    static MemorySegment copyData(MemorySegment payload, int len) {
        MemorySegment d = NvmfAdminCommand.offHeap(len);
        MemorySegment.copy(payload, 0, d, 0, len);
        return d;
    }
}
