package io.jdoca.nvmf.tgt;

import io.jdoca.sta.Sta;
import io.jdoca.sta.StaNamespace;
import io.jdoca.sta.StaQp;
import io.jdoca.sta.backend.StaStats;
import io.jdoca.sta.nvme.FabricsConnectCommand;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import java.lang.foreign.MemorySegment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NVMe-oF controller logic for the commands the IO engines do not execute (SPDK's
 * {@code lib/nvmf/ctrlr.c}), on top of the STA public API only: Fabrics Connect (with
 * subsystem/host validation and the dynamic controller model), Property Get/Set, Disconnect,
 * Identify, Get Log Page, Set/Get Features ({@link NvmfFeatures}), Keep Alive, Asynchronous Event
 * Request, Abort, and the discovery controller. Everything else is answered Invalid Opcode.
 *
 * <p>Threads: {@code sta-main} only. The IO engines hand it copies of their commands
 * ({@link NvmfCommandForwarder}); it reads and changes the target state with no lock (it is that
 * state's only writer) and answers by posting the command back to its QP's IO thread
 * ({@link NvmfAdminCommand#complete}).
 */
final class AdminHandler {
    private static final Logger LOG = LoggerFactory.getLogger(AdminHandler.class);

    /** CAP (Base 2.0 §3.1.1): MQES, CQR=1, TO=15 (7.5 s), CSS bit 37 = NVM command set; MPSMIN=MPSMAX=0 (4 KiB). */
    static long capValue(int maxQueueEntries) {
        return (maxQueueEntries - 1) | (1L << 16) | (15L << 24) | (1L << 37);
    }

    // Property offsets (Base 2.0 figure 33).
    static final int PROP_CAP = 0x00;
    static final int PROP_VS = 0x08;
    static final int PROP_CC = 0x14;
    static final int PROP_CSTS = 0x1c;

    static final int AER_LIMIT = 4;

    private final NvmfTarget target;
    private final NvmfControllers controllers;
    private final NvmfFeatures features = new NvmfFeatures(this);
    private final NvmfReservations reservations;
    private final NvmfAuthentication auth;

    AdminHandler(NvmfTarget target, NvmfControllers controllers) {
        this.target = target;
        this.controllers = controllers;
        this.reservations = new NvmfReservations(this, controllers);
        this.auth = new NvmfAuthentication(this, (c, why) -> controllers.killAll(k -> k == c, why),
                () -> target.subsystemTable().keyring(),
                () -> target.subsystemTable().dhchapPolicy());
    }

    /** Periodic work of the management agent: ANA transitions to end, reservation files another target changed. */
    void periodic() {
        target.subsystemTable().settleAna();
        NvmfReservations.refreshAll(target.subsystemTable().all());
    }

    /** Executes one command an IO engine handed over, or forgets a QP it closed. sta-main. */
    void execute(NvmfAdminCommand c) {
        if (c.gone != null) {
            controllers.qpGone(c.qp, c.gone);
            auth.qpGone(c.qp);
            return;
        }
        NvmeCommand cmd = c.sqe;
        try {
            if (cmd.opcode() == NvmeOpcode.FABRICS) {
                fabrics(c);
                return;
            }
            NvmfController ctrl = controllers.owner(c.qp);
            if (ctrl == null) {
                // Commands before Connect (NVMe-oF 1.1 §3.3: the first command must be Connect).
                reply(c, NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0);
                return;
            }
            if (auth.blocks(c.qp)) {
                reply(c, NvmfAuthentication.AUTH_REQUIRED, 0, 0);
                return;
            }
            if (c.qid != 0) {
                // I/O queue: the reservation commands are executed here; nothing else the engine did not offload.
                if (NvmfReservations.isReservationCommand(cmd.opcode()) && !ctrl.subsystem().isDiscovery()) {
                    reservations.execute(c, ctrl);
                } else {
                    reply(c, NvmeStatus.INVALID_OPCODE, 0, 0);
                }
                return;
            }
            ctrl.keepAlive();
            if (!ctrl.ready()) {
                reply(c, NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0);
                return;
            }
            admin(c, ctrl);
        } catch (RuntimeException e) {
            LOG.error("{}: command opcode {} failed", c.qp, cmd.opcode(), e);
            reply(c, NvmeStatus.INTERNAL_ERROR, 0, 0);
        }
    }

    // ------------------------------------------------------------------ fabrics

    private void fabrics(NvmfAdminCommand c) {
        MemorySegment s = c.sqe.segment();
        long sqe = c.sqe.base();
        int fctype = c.sqe.fctype();
        if ((fctype == NvmeOpcode.FCTYPE_PROPERTY_GET || fctype == NvmeOpcode.FCTYPE_PROPERTY_SET)
                && auth.blocks(c.qp)) {
            reply(c, NvmfAuthentication.AUTH_REQUIRED, 0, 0);
            return;
        }
        switch (fctype) {
            case NvmeOpcode.FCTYPE_CONNECT -> {
                if (controllers.owner(c.qp) != null) {
                    reply(c, NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0);
                } else if (c.data == null) {
                    reply(c, NvmeStatus.DATA_SGL_LENGTH_INVALID, 0, 0);
                } else {
                    connect(c, FabricsConnectCommand.qid(s, sqe), FabricsConnectCommand.sqsize(s, sqe),
                            FabricsConnectCommand.recfmt(s, sqe), FabricsConnectCommand.kato(s, sqe));
                }
            }
            case NvmeOpcode.FCTYPE_AUTH_SEND, NvmeOpcode.FCTYPE_AUTH_RECV -> {
                NvmfController ctrl = controllers.owner(c.qp);
                if (ctrl == null) {
                    reply(c, NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0);
                } else {
                    if (c.sqe.fctype() == NvmeOpcode.FCTYPE_AUTH_SEND) {
                        auth.send(c, ctrl);
                    } else {
                        auth.receive(c, ctrl);
                    }
                    if (c.qid == 0) {
                        // Until the admin queue has authenticated it answers Keep Alive "Authentication
                        // Required", so its transaction is the host's traffic; silence counts from this answer
                        // (a slow host or DH group could otherwise outlast twice the KATO mid-transaction).
                        ctrl.keepAlive();
                    }
                }
            }
            case NvmeOpcode.FCTYPE_PROPERTY_GET -> {
                NvmfController ctrl = adminController(c);
                if (ctrl == null) {
                    return;
                }
                long v;
                switch (FabricsConnectCommand.propertyOffset(s, sqe)) {
                    case PROP_CAP -> v = capValue(maxQueueEntries());
                    case PROP_VS -> v = IdentifyData.VERSION;
                    case PROP_CC -> v = ctrl.cc();
                    case PROP_CSTS -> v = ctrl.csts();
                    default -> {
                        reply(c, NvmeStatus.INVALID_FIELD, 0, 0);
                        return;
                    }
                }
                reply(c, NvmeStatus.SUCCESS, (int) v, (int) (v >>> 32));
            }
            case NvmeOpcode.FCTYPE_PROPERTY_SET -> {
                NvmfController ctrl = adminController(c);
                if (ctrl == null) {
                    return;
                }
                if (FabricsConnectCommand.propertyOffset(s, sqe) != PROP_CC) {
                    reply(c, NvmeStatus.INVALID_FIELD, 0, 0);
                    return;
                }
                long value = FabricsConnectCommand.propertyValue(s, sqe);
                ctrl.setCc(value);
                if (((value >>> 14) & 3) != 0) {
                    LOG.info("{}: shutdown requested", ctrl);
                }
                reply(c, NvmeStatus.SUCCESS, 0, 0);
            }
            case NvmeOpcode.FCTYPE_DISCONNECT -> {
                // The QP closes after the answer (posted to its IO thread in this order); its controller
                // forgets it now, as when the host closes it: an admin queue takes its controller along.
                reply(c, NvmeStatus.SUCCESS, 0, 0);
                NvmfController owner = controllers.owner(c.qp);
                controllers.qpGone(c.qp, "Fabrics Disconnect");
                if (owner == null || owner.adminQp() != c.qp) {
                    NvmfControllers.disconnect(c.qp);
                }
            }
            default -> reply(c, NvmeStatus.INVALID_OPCODE, 0, 0);
        }
    }

    private NvmfController adminController(NvmfAdminCommand c) {
        NvmfController ctrl = controllers.owner(c.qp);
        if (ctrl == null) {
            reply(c, NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0);
            return null;
        }
        if (c.qid != 0) {
            reply(c, NvmeStatus.INVALID_FIELD, 0, 0);
            return null;
        }
        ctrl.keepAlive();
        return ctrl;
    }

    /** Connect (NVMe-oF 1.1 §3.3): validate, create or join a controller, bind the QP. */
    private void connect(NvmfAdminCommand c, int qid, int sqsize0, int recfmt, long kato) {
        if (recfmt != 0) {
            reply(c, NvmeStatus.CONNECT_INCOMPATIBLE_FORMAT, 0, 0);
            return;
        }
        MemorySegment data = c.data;
        StaQp qp = c.qp;
        String subnqn = FabricsConnectCommand.subNqn(data, 0);
        String hostnqn = FabricsConnectCommand.hostNqn(data, 0);
        int cntlid = FabricsConnectCommand.cntlid(data, 0);
        NvmfSubsystem subsys = target.subsystemOnMain(subnqn);
        if (subsys == null) {
            LOG.info("connect to unknown subsystem {} from {}", subnqn, hostnqn);
            invalidParameters(c, true, FabricsConnectCommand.DATA_OFF_SUBNQN);
            return;
        }
        if (!target.reachable(subsys, qp)) {
            LOG.info("subsystem {} is not reachable on {}", subnqn, qp.localAddress());
            invalidParameters(c, true, FabricsConnectCommand.DATA_OFF_SUBNQN);
            return;
        }
        if (!subsys.isDiscovery() && !subsys.hostAllowed(hostnqn)) {
            LOG.info("host {} not allowed on {}", hostnqn, subnqn);
            reply(c, NvmeStatus.CONNECT_INVALID_HOST, 0, 0);
            return;
        }
        io.jdoca.sta.nvmf.tls.NvmeTlsIdentity tls = qp.tlsIdentity();
        if (tls != null && !subsys.isDiscovery() && !(tls.hostNqn().equals(hostnqn) && tls.subNqn().equals(subnqn))) {
            LOG.info("host {} connects to {} over TLS secured for {}: refused", hostnqn, subnqn, tls);
            reply(c, NvmeStatus.CONNECT_INVALID_HOST, 0, 0);
            return;
        }
        int entries = sqsize0 + 1;
        if (sqsize0 < 1 || entries > maxQueueEntries() || (qid == 0 && entries > 4096)) {
            invalidParameters(c, false, FabricsConnectCommand.OFF_SQSIZE);
            return;
        }
        if (qid == 0) {
            if (cntlid != 0xffff) {
                invalidParameters(c, true, FabricsConnectCommand.DATA_OFF_CNTLID);
                return;
            }
            NvmfController ctrl = controllers.create(subsys, hostnqn, FabricsConnectCommand.hostId(data, 0), qp, kato,
                    listenerKey(qp));
            if (ctrl == null) {
                reply(c, NvmeStatus.CONNECT_CONTROLLER_BUSY, 0, 0);
                return;
            }
            c.grant(entries);
            boolean authenticate = auth.required(subsys, hostnqn);
            if (authenticate) {
                auth.expect(qp, null);
            }
            LOG.info("{}: admin queue connected ({} entries, kato {} ms) from {}{}", ctrl, entries, kato,
                    qp.remoteAddress(), authenticate ? "; DH-HMAC-CHAP required" : "");
            reply(c, NvmeStatus.SUCCESS, ctrl.cntlid() | (authenticate ? NvmfAuthentication.CONNECT_ATR : 0), 0);
            return;
        }
        NvmfController ctrl = controllers.get(cntlid);
        if (ctrl == null || ctrl.isDead() || ctrl.subsystem() != subsys || !ctrl.hostNqn().equals(hostnqn)
                || subsys.isDiscovery()) {
            invalidParameters(c, true, FabricsConnectCommand.DATA_OFF_CNTLID);
            return;
        }
        if (!ctrl.ready()) {
            reply(c, NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0);
            return;
        }
        if (qid > ctrl.grantedIoQueues()) {
            invalidParameters(c, false, FabricsConnectCommand.OFF_QID);
            return;
        }
        // The IO thread sets the SQ size, binds the QP to the subsystem and to its path (the ANA states
        // of the listener it came in on, the host identifier for reservations) before it answers; a
        // queue that must authenticate first is bound once it did.
        io.jdoca.sta.nvmf.NvmfListenerAna ana = subsys.anaReporting() ? subsys.anaOf(listenerKey(qp)) : null;
        controllers.addIoQp(ctrl, qp);
        if (auth.required(subsys, hostnqn)) {
            c.grant(entries);
            auth.expect(qp, () -> NvmfMain.post(qp.io(), () -> NvmfAdminCommand.bind(qp, subsys.sta(), ana,
                    ctrl.hostIdHi(), ctrl.hostIdLo())));
            reply(c, NvmeStatus.SUCCESS, ctrl.cntlid() | NvmfAuthentication.CONNECT_ATR, 0);
            return;
        }
        c.grant(entries, subsys.sta(), ana, ctrl.hostIdHi(), ctrl.hostIdLo());
        LOG.debug("{}: I/O queue {} connected ({} entries)", ctrl, qid, entries);
        reply(c, NvmeStatus.SUCCESS, ctrl.cntlid(), 0);
    }

    /** The key of the listener {@code qp} came in on (Connect checked it is reachable, so there is one). */
    private String listenerKey(StaQp qp) {
        NvmfListeners.Listener l = target.listenerTable().listenerOf(qp);
        return l == null ? "" : l.key();
    }

    private void invalidParameters(NvmfAdminCommand c, boolean inData, int offset) {
        reply(c, NvmeStatus.CONNECT_INVALID_PARAMETERS, invalidParam(inData, offset), 0);
    }

    /** DW0 of Connect Invalid Parameters: IATTR (bit 16: in Connect data) and IPO (byte offset). */
    static int invalidParam(boolean inData, int offset) {
        return (inData ? 1 << 16 : 0) | (offset & 0xffff);
    }

    // ------------------------------------------------------------------ admin

    private void admin(NvmfAdminCommand c, NvmfController ctrl) {
        switch (c.sqe.opcode()) {
            case NvmeOpcode.ADMIN_IDENTIFY -> identify(c, ctrl);
            case NvmeOpcode.ADMIN_GET_LOG_PAGE -> getLogPage(c, ctrl);
            case NvmeOpcode.ADMIN_SET_FEATURES -> features.setFeatures(c, ctrl);
            case NvmeOpcode.ADMIN_GET_FEATURES -> features.getFeatures(c, ctrl);
            case NvmeOpcode.ADMIN_KEEP_ALIVE -> reply(c, NvmeStatus.SUCCESS, 0, 0);
            case NvmeOpcode.ADMIN_ASYNC_EVENT_REQUEST -> {
                if (!ctrl.addAer(c, AER_LIMIT)) {
                    reply(c, NvmeStatus.ASYNC_EVENT_REQUEST_LIMIT_EXCEEDED, 0, 0);
                } else {
                    ctrl.deliverEvents();
                }
            }
            case NvmeOpcode.ADMIN_ABORT -> reply(c, NvmeStatus.SUCCESS, 1, 0); // bit 0: not aborted
            default -> {
                if (ctrl.subsystem().isDiscovery()) {
                    LOG.debug("discovery controller: unsupported admin opcode {}", c.sqe.opcode());
                }
                reply(c, NvmeStatus.INVALID_OPCODE, 0, 0);
            }
        }
    }

    private void identify(NvmfAdminCommand c, NvmfController ctrl) {
        NvmeCommand cmd = c.sqe;
        int cns = cmd.cdw10() & 0xff;
        int csi = cmd.cdw11() >>> 24;
        NvmfSubsystem subsys = ctrl.subsystem();
        byte[] data;
        switch (cns) {
            case 0x01 -> data = IdentifyData.controller(controllerParams(ctrl));
            case 0x00 -> {
                if (subsys.isDiscovery()) {
                    reply(c, NvmeStatus.INVALID_FIELD, 0, 0);
                    return;
                }
                int nsid = cmd.nsid();
                StaNamespace ns = subsys.ns(nsid);
                if (ns == null) {
                    if (nsid == 0 || nsid == 0xffffffff || Integer.compareUnsigned(nsid, subsys.maxNamespaces()) > 0) {
                        reply(c, NvmeStatus.INVALID_NAMESPACE, 0, 0);
                        return;
                    }
                    data = new byte[IdentifyData.SIZE]; // an inactive namespace identifies as zeroes
                } else {
                    var r = subsys.reservation(nsid);
                    data = IdentifyData.namespace(ns, subsys.nguid(nsid), subsys.anaReporting() ? ns.anaGroup() : 0,
                            r != null && r.ptplCapable());
                }
            }
            case 0x02 -> {
                if (subsys.isDiscovery()) {
                    reply(c, NvmeStatus.INVALID_FIELD, 0, 0);
                    return;
                }
                int after = cmd.nsid();
                if (after == 0xfffffffe || after == 0xffffffff) {
                    reply(c, NvmeStatus.INVALID_NAMESPACE, 0, 0);
                    return;
                }
                data = IdentifyData.activeNsList(subsys.sta().namespaces(), after);
            }
            case 0x03 -> {
                int nsid = cmd.nsid();
                if (subsys.isDiscovery() || subsys.ns(nsid) == null) {
                    reply(c, NvmeStatus.INVALID_NAMESPACE, 0, 0);
                    return;
                }
                data = IdentifyData.nsDescriptors(subsys.nguid(nsid), subsys.uuidBytes(nsid));
            }
            case 0x05, 0x06 -> {
                // I/O command set specific structures for the NVM command set: all zero = no extra limits.
                if (csi != 0 || subsys.isDiscovery()) {
                    reply(c, NvmeStatus.INVALID_FIELD, 0, 0);
                    return;
                }
                if (cns == 0x05 && subsys.ns(cmd.nsid()) == null) {
                    reply(c, NvmeStatus.INVALID_NAMESPACE, 0, 0);
                    return;
                }
                data = new byte[IdentifyData.SIZE];
            }
            default -> {
                reply(c, NvmeStatus.INVALID_FIELD, 0, 0);
                return;
            }
        }
        replyData(c, data, (int) Math.min(cmd.sglLength(), data.length));
    }

    private void getLogPage(NvmfAdminCommand c, NvmfController ctrl) {
        NvmeCommand cmd = c.sqe;
        int lid = cmd.cdw10() & 0xff;
        long numd = ((((long) cmd.cdw11() & 0xffff) << 16) | (cmd.cdw10() >>> 16)) + 1;
        long len = numd * 4;
        long lpo = ((long) cmd.cdw13() << 32) | (cmd.cdw12() & 0xffffffffL);
        boolean discovery = ctrl.subsystem().isDiscovery();
        byte[] log;
        switch (lid) {
            case 0x01 -> log = IdentifyData.errorLog(ctrl.errorLog());
            case 0x02 -> {
                long[] t = subsystemTotals(ctrl.subsystem());
                log = IdentifyData.smartLog(t[0], t[1], t[2], t[3], ctrl.errorCount());
            }
            case 0x03 -> log = IdentifyData.firmwareLog();
            case 0x05 -> {
                if (discovery) {
                    reply(c, NvmeStatus.INVALID_LOG_PAGE, 0, 0);
                    return;
                }
                log = IdentifyData.commandsEffectsLog();
            }
            case 0x04 -> {
                if (discovery) {
                    reply(c, NvmeStatus.INVALID_LOG_PAGE, 0, 0);
                    return;
                }
                // RAE set: the list and the masked notice stay; clear: both cleared (Base spec, Get Log Page RAE)
                boolean rae = (cmd.cdw10() & (1 << 15)) != 0;
                log = IdentifyData.changedNsList(rae ? ctrl.changedNs() : ctrl.takeChangedNs());
            }
            case io.jdoca.nvmf.resv.ReservationNotificationLog.LOG_PAGE_ID -> {
                if (discovery) {
                    reply(c, NvmeStatus.INVALID_LOG_PAGE, 0, 0);
                    return;
                }
                log = NvmfReservations.log(ctrl, cmd.cdw10());
            }
            case 0x0c -> {
                if (discovery || !ctrl.subsystem().anaReporting()) {
                    reply(c, NvmeStatus.INVALID_LOG_PAGE, 0, 0);
                    return;
                }
                log = anaLog(ctrl, (cmd.cdw10() & (1 << 8)) != 0);
                if ((cmd.cdw10() & (1 << 15)) == 0) {
                    ctrl.anaLogRead(); // RAE clear: the host has seen the change
                }
            }
            case 0x70 -> {
                if (!discovery) {
                    reply(c, NvmeStatus.INVALID_LOG_PAGE, 0, 0);
                    return;
                }
                log = target.discovery().log(ctrl);
            }
            default -> {
                reply(c, NvmeStatus.INVALID_LOG_PAGE, 0, 0);
                return;
            }
        }
        if ((lpo & 3) != 0 || lpo > log.length || len > cmd.sglLength() || len > target.sta().getMaxIoSize()) {
            reply(c, NvmeStatus.INVALID_FIELD, 0, 0);
            return;
        }
        byte[] out = new byte[(int) len];
        System.arraycopy(log, (int) lpo, out, 0, (int) Math.min(len, log.length - lpo));
        replyData(c, out, out.length);
    }

    /**
     * The ANA log page (LID 0Ch, Base 2.0 §5.16.1.13) as {@code ctrl} reports it: one descriptor per
     * ANA group holding a namespace, in group order, each group in the state of the listener the
     * controller came in on; {@code rgo} (Return Groups Only) leaves out the namespace lists.
     */
    private static byte[] anaLog(NvmfController ctrl, boolean rgo) {
        NvmfSubsystem s = ctrl.subsystem();
        java.util.TreeMap<Integer, java.util.List<Integer>> groups = new java.util.TreeMap<>();
        for (StaNamespace ns : s.sta().namespaces()) {
            groups.computeIfAbsent(ns.anaGroup(), g -> new java.util.ArrayList<>()).add(ns.nsid());
        }
        io.jdoca.sta.nvmf.NvmfListenerAna ana = s.anaOf(ctrl.listenerKey());
        java.util.Map<Integer, Integer> states = new java.util.TreeMap<>();
        for (int g : groups.keySet()) {
            states.put(g, ana.state(g));
        }
        return IdentifyData.anaLog(s.anaChangeCount(), groups, states, rgo);
    }

    // ------------------------------------------------------------------ controller data

    private int maxQueueEntries() {
        return Sta.MAX_IO_QUEUE_SIZE;
    }

    private IdentifyData.ControllerParams controllerParams(NvmfController c) {
        Sta sta = target.sta();
        NvmfSubsystem s = c.subsystem();
        boolean disc = s.isDiscovery();
        int mdts = Integer.numberOfTrailingZeros(sta.getMaxIoSize() / 4096);
        return new IdentifyData.ControllerParams(c.cntlid(), s.serial(), s.model(), s.nqn(),
                disc ? IdentifyData.CNTRLTYPE_DISCOVERY : IdentifyData.CNTRLTYPE_IO, mdts, maxQueueEntries(),
                disc ? 0 : s.maxNamespaces(), disc ? 0 : sta.inCapsuleDataSize(), 1, !disc,
                StaQp.TRTYPE_RDMA.equals(c.adminQp().transportType()), !disc && s.anaReporting() ? s.anaGroupMax() : 0);
    }

    /** Read bytes, written bytes, reads, writes of a subsystem's namespaces (SMART log). */
    private static long[] subsystemTotals(NvmfSubsystem s) {
        long[] t = new long[4];
        if (s.sta() != null) {
            for (StaNamespace ns : s.sta().namespaces()) {
                StaStats st = ns.stats();
                t[0] += st.get("read_bytes");
                t[1] += st.get("write_bytes");
                t[2] += st.get("reads");
                t[3] += st.get("writes");
            }
        }
        return t;
    }

    // ------------------------------------------------------------------ replies

    /**
     * Answers {@code c} (status, DW0, DW1), recording an error in its controller's error log, and
     * posts it back to its QP's IO thread.
     */
    void reply(NvmfAdminCommand c, int status, int dw0, int dw1) {
        if (status != NvmeStatus.SUCCESS) {
            NvmfController ctrl = controllers.owner(c.qp);
            if (ctrl != null) {
                ctrl.logError(c.qid, c.cid(), status, 0);
            }
        }
        c.complete(status, dw0, dw1);
    }

    /** Answers {@code c} with {@code len} bytes of {@code data} and a successful completion. */
    void replyData(NvmfAdminCommand c, byte[] data, int len) {
        c.completeWithData(data, len);
    }
}
