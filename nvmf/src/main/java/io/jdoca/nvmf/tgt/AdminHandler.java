package io.jdoca.nvmf.tgt;

import io.jdoca.core.DocaError;
import io.jdoca.sta.StaIo;
import io.jdoca.sta.StaIoTaskNonOffloadRead;
import io.jdoca.sta.StaNamespace;
import io.jdoca.sta.StaNonOffloadCallback;
import io.jdoca.sta.StaQp;
import io.jdoca.sta.nvme.FabricsConnectCommand;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NVMe-oF controller logic for non-offloaded commands, on top of the STA public API only:
 * Fabrics Connect (with subsystem/host validation and the dynamic controller model), Property
 * Get/Set, Identify, Get Log Page, Set/Get Features, Keep Alive, Asynchronous Event Request,
 * Abort, and the discovery controller. Everything else is answered Invalid Opcode.
 *
 * <p>Runs on each IO context's thread (registered as its non-offload callback); shared state
 * lives in {@link NvmfTarget} and {@link NvmfController} (synchronized).
 */
public final class AdminHandler implements StaNonOffloadCallback {
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

    AdminHandler(NvmfTarget target) {
        this.target = target;
    }

    @Override
    public void onCommand(StaQp qp, NvmeCommand cmd, MemorySegment payload, int payloadLen, boolean payloadValid, long ud) {
        StaIo io = qp.io();
        int cid = cmd.cid();
        int opcode = cmd.opcode();
        try {
            if (opcode == NvmeOpcode.FABRICS) {
                fabrics(io, qp, cmd, payload, payloadLen, payloadValid);
                return;
            }
            Object o = qp.userObject();
            if (!(o instanceof NvmfController ctrl)) {
                // Commands before Connect (NVMe-oF 1.1 §3.3: the first command must be Connect).
                send(io, qp, cid, NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0);
                return;
            }
            if (qp.qid() != 0) {
                // I/O queue: everything the engine did not offload is unsupported here.
                send(io, qp, cid, NvmeStatus.INVALID_OPCODE, 0, 0);
                return;
            }
            ctrl.keepAlive(); // any admin command counts as traffic for KATO purposes
            if (!ctrl.ready()) {
                send(io, qp, cid, NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0);
                return;
            }
            admin(io, qp, ctrl, cmd);
        } catch (RuntimeException e) {
            LOG.error("{}: command opcode {} failed", qp, opcode, e);
            send(io, qp, cid, NvmeStatus.INTERNAL_ERROR, 0, 0);
        }
    }

    // ------------------------------------------------------------------ fabrics

    private void fabrics(StaIo io, StaQp qp, NvmeCommand cmd, MemorySegment payload, int len, boolean valid) {
        int cid = cmd.cid();
        MemorySegment s = cmd.segment();
        long sqe = cmd.base();
        switch (cmd.fctype()) {
            case NvmeOpcode.FCTYPE_CONNECT -> {
                if (qp.userObject() != null) {
                    send(io, qp, cid, NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0);
                    return;
                }
                int qid = FabricsConnectCommand.qid(s, sqe);
                int sqsize = FabricsConnectCommand.sqsize(s, sqe);
                int recfmt = FabricsConnectCommand.recfmt(s, sqe);
                long kato = FabricsConnectCommand.kato(s, sqe);
                if (payload != null && len >= FabricsConnectCommand.DATA_LEN) {
                    connect(io, qp, cid, qid, sqsize, recfmt, kato, payload);
                } else if (!valid && cmd.sglLength() >= FabricsConnectCommand.DATA_LEN) {
                    // Connect data not in the capsule: fetch it, then continue.
                    MemorySegment buf = Arena.ofAuto().allocate(FabricsConnectCommand.DATA_LEN);
                    StaIoTaskNonOffloadRead t = io.taskNonOffloadReadAllocInit(qp, cid, buf, 0, FabricsConnectCommand.DATA_LEN, 0);
                    if (t == null) {
                        send(io, qp, cid, NvmeStatus.INTERNAL_ERROR, 0, 0);
                        return;
                    }
                    t.setUserObject((Runnable) () -> connect(io, qp, cid, qid, sqsize, recfmt, kato, buf));
                    if (t.submit() != DocaError.SUCCESS) {
                        t.free();
                        send(io, qp, cid, NvmeStatus.INTERNAL_ERROR, 0, 0);
                    }
                } else {
                    send(io, qp, cid, NvmeStatus.DATA_SGL_LENGTH_INVALID, 0, 0);
                }
            }
            case NvmeOpcode.FCTYPE_PROPERTY_GET -> {
                NvmfController ctrl = adminController(io, qp, cid);
                if (ctrl == null) {
                    return;
                }
                int off = FabricsConnectCommand.propertyOffset(s, sqe);
                long v;
                switch (off) {
                    case PROP_CAP -> v = capValue(target.maxQueueEntries());
                    case PROP_VS -> v = IdentifyData.VERSION;
                    case PROP_CC -> v = ctrl.cc();
                    case PROP_CSTS -> v = ctrl.csts();
                    default -> {
                        send(io, qp, cid, NvmeStatus.INVALID_FIELD, 0, 0);
                        return;
                    }
                }
                send(io, qp, cid, NvmeStatus.SUCCESS, (int) v, (int) (v >>> 32));
            }
            case NvmeOpcode.FCTYPE_PROPERTY_SET -> {
                NvmfController ctrl = adminController(io, qp, cid);
                if (ctrl == null) {
                    return;
                }
                int off = FabricsConnectCommand.propertyOffset(s, sqe);
                if (off != PROP_CC) {
                    send(io, qp, cid, NvmeStatus.INVALID_FIELD, 0, 0);
                    return;
                }
                long value = FabricsConnectCommand.propertyValue(s, sqe);
                ctrl.setCc(value);
                if (((value >>> 14) & 3) != 0) {
                    LOG.info("{}: shutdown requested", ctrl);
                }
                send(io, qp, cid, NvmeStatus.SUCCESS, 0, 0);
            }
            case NvmeOpcode.FCTYPE_DISCONNECT -> {
                send(io, qp, cid, NvmeStatus.SUCCESS, 0, 0);
                target.disconnectQp(qp);
            }
            default -> send(io, qp, cid, NvmeStatus.INVALID_OPCODE, 0, 0);
        }
    }

    private NvmfController adminController(StaIo io, StaQp qp, int cid) {
        if (!(qp.userObject() instanceof NvmfController ctrl)) {
            send(io, qp, cid, NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0);
            return null;
        }
        if (qp.qid() != 0) {
            send(io, qp, cid, NvmeStatus.INVALID_FIELD, 0, 0);
            return null;
        }
        ctrl.keepAlive();
        return ctrl;
    }

    /** Connect (NVMe-oF 1.1 §3.3): validate, create or join a controller, bind the QP. */
    void connect(StaIo io, StaQp qp, int cid, int qid, int sqsize0, int recfmt, long kato, MemorySegment data) {
        if (recfmt != 0) {
            send(io, qp, cid, NvmeStatus.CONNECT_INCOMPATIBLE_FORMAT, 0, 0);
            return;
        }
        String subnqn = FabricsConnectCommand.subNqn(data, 0);
        String hostnqn = FabricsConnectCommand.hostNqn(data, 0);
        int cntlid = FabricsConnectCommand.cntlid(data, 0);
        NvmfSubsystem subsys = target.subsystem(subnqn);
        if (subsys == null) {
            LOG.info("connect to unknown subsystem {} from {}", subnqn, hostnqn);
            send(io, qp, cid, NvmeStatus.CONNECT_INVALID_PARAMETERS, invalidParam(true, FabricsConnectCommand.DATA_OFF_SUBNQN), 0);
            return;
        }
        if (!target.reachable(subsys, qp)) {
            LOG.info("subsystem {} is not reachable on {}", subnqn, qp.localAddress());
            send(io, qp, cid, NvmeStatus.CONNECT_INVALID_PARAMETERS, invalidParam(true, FabricsConnectCommand.DATA_OFF_SUBNQN), 0);
            return;
        }
        if (!subsys.isDiscovery() && !subsys.hostAllowed(hostnqn)) {
            LOG.info("host {} not allowed on {}", hostnqn, subnqn);
            send(io, qp, cid, NvmeStatus.CONNECT_INVALID_HOST, 0, 0);
            return;
        }
        int entries = sqsize0 + 1;
        if (sqsize0 < 1 || entries > target.maxQueueEntries() || (qid == 0 && entries > 4096)) {
            send(io, qp, cid, NvmeStatus.CONNECT_INVALID_PARAMETERS, invalidParam(false, FabricsConnectCommand.OFF_SQSIZE), 0);
            return;
        }
        if (qid == 0) {
            if (cntlid != 0xffff) {
                send(io, qp, cid, NvmeStatus.CONNECT_INVALID_PARAMETERS, invalidParam(true, FabricsConnectCommand.DATA_OFF_CNTLID), 0);
                return;
            }
            NvmfController ctrl = target.createController(subsys, hostnqn, FabricsConnectCommand.hostId(data, 0), qp, kato);
            if (ctrl == null) {
                send(io, qp, cid, NvmeStatus.CONNECT_CONTROLLER_BUSY, 0, 0);
                return;
            }
            io.qpConnectSetSqSize(qp, entries);
            qp.setUserObject(ctrl);
            LOG.info("{}: admin queue connected ({} entries, kato {} ms) from {}", ctrl, entries, kato, qp.remoteAddress());
            send(io, qp, cid, NvmeStatus.SUCCESS, ctrl.cntlid(), 0);
            return;
        }
        NvmfController ctrl = target.controller(cntlid);
        if (ctrl == null || ctrl.isDead() || ctrl.subsystem() != subsys || !ctrl.hostNqn().equals(hostnqn)
                || subsys.isDiscovery()) {
            send(io, qp, cid, NvmeStatus.CONNECT_INVALID_PARAMETERS, invalidParam(true, FabricsConnectCommand.DATA_OFF_CNTLID), 0);
            return;
        }
        if (!ctrl.ready()) {
            send(io, qp, cid, NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0);
            return;
        }
        if (qid > ctrl.grantedIoQueues()) {
            send(io, qp, cid, NvmeStatus.CONNECT_INVALID_PARAMETERS, invalidParam(false, FabricsConnectCommand.OFF_QID), 0);
            return;
        }
        io.qpConnectSetSqSize(qp, entries);
        if (io.qpAddSubsystem(qp, subsys.sta()) != DocaError.SUCCESS) {
            send(io, qp, cid, NvmeStatus.INTERNAL_ERROR, 0, 0);
            return;
        }
        qp.setUserObject(ctrl);
        ctrl.addIoQp(qp);
        LOG.debug("{}: I/O queue {} connected ({} entries)", ctrl, qid, entries);
        send(io, qp, cid, NvmeStatus.SUCCESS, ctrl.cntlid(), 0);
    }

    /** DW0 of Connect Invalid Parameters: IATTR (bit 16: in Connect data) and IPO (byte offset). */
    static int invalidParam(boolean inData, int offset) {
        return (inData ? 1 << 16 : 0) | (offset & 0xffff);
    }

    // ------------------------------------------------------------------ admin

    private void admin(StaIo io, StaQp qp, NvmfController ctrl, NvmeCommand cmd) {
        int cid = cmd.cid();
        boolean discovery = ctrl.subsystem().isDiscovery();
        switch (cmd.opcode()) {
            case NvmeOpcode.ADMIN_IDENTIFY -> identify(io, qp, ctrl, cmd);
            case NvmeOpcode.ADMIN_GET_LOG_PAGE -> getLogPage(io, qp, ctrl, cmd);
            case NvmeOpcode.ADMIN_SET_FEATURES -> setFeatures(io, qp, ctrl, cmd);
            case NvmeOpcode.ADMIN_GET_FEATURES -> getFeatures(io, qp, ctrl, cmd);
            case NvmeOpcode.ADMIN_KEEP_ALIVE -> send(io, qp, cid, NvmeStatus.SUCCESS, 0, 0);
            case NvmeOpcode.ADMIN_ASYNC_EVENT_REQUEST -> {
                if (!ctrl.addAer(cid, AER_LIMIT)) {
                    send(io, qp, cid, NvmeStatus.ASYNC_EVENT_REQUEST_LIMIT_EXCEEDED, 0, 0);
                } else {
                    target.deliverEvents(ctrl);
                }
            }
            case NvmeOpcode.ADMIN_ABORT -> send(io, qp, cid, NvmeStatus.SUCCESS, 1, 0); // bit 0: not aborted
            default -> {
                if (discovery) {
                    LOG.debug("discovery controller: unsupported admin opcode {}", cmd.opcode());
                }
                send(io, qp, cid, NvmeStatus.INVALID_OPCODE, 0, 0);
            }
        }
    }

    private void identify(StaIo io, StaQp qp, NvmfController ctrl, NvmeCommand cmd) {
        int cid = cmd.cid();
        int cns = cmd.cdw10() & 0xff;
        int csi = cmd.cdw11() >>> 24;
        NvmfSubsystem subsys = ctrl.subsystem();
        byte[] data;
        switch (cns) {
            case 0x01 -> data = IdentifyData.controller(target.controllerParams(ctrl));
            case 0x00 -> {
                if (subsys.isDiscovery()) {
                    send(io, qp, cid, NvmeStatus.INVALID_FIELD, 0, 0);
                    return;
                }
                int nsid = cmd.nsid();
                StaNamespace ns = subsys.ns(nsid);
                if (ns == null) {
                    if (nsid == 0 || nsid == 0xffffffff || Integer.compareUnsigned(nsid, subsys.maxNamespaces()) > 0) {
                        send(io, qp, cid, NvmeStatus.INVALID_NAMESPACE, 0, 0);
                        return;
                    }
                    data = new byte[IdentifyData.SIZE]; // an inactive namespace identifies as zeroes
                } else {
                    data = IdentifyData.namespace(ns, subsys.nguid(nsid));
                }
            }
            case 0x02 -> {
                if (subsys.isDiscovery()) {
                    send(io, qp, cid, NvmeStatus.INVALID_FIELD, 0, 0);
                    return;
                }
                int after = cmd.nsid();
                if (after == 0xfffffffe || after == 0xffffffff) {
                    send(io, qp, cid, NvmeStatus.INVALID_NAMESPACE, 0, 0);
                    return;
                }
                data = IdentifyData.activeNsList(subsys.sta().namespaces(), after);
            }
            case 0x03 -> {
                int nsid = cmd.nsid();
                if (subsys.isDiscovery() || subsys.ns(nsid) == null) {
                    send(io, qp, cid, NvmeStatus.INVALID_NAMESPACE, 0, 0);
                    return;
                }
                data = IdentifyData.nsDescriptors(subsys.nguid(nsid), subsys.uuidBytes(nsid));
            }
            case 0x05, 0x06 -> {
                // I/O command set specific structures for the NVM command set: all zero = no extra limits.
                if (csi != 0 || subsys.isDiscovery()) {
                    send(io, qp, cid, NvmeStatus.INVALID_FIELD, 0, 0);
                    return;
                }
                if (cns == 0x05 && subsys.ns(cmd.nsid()) == null) {
                    send(io, qp, cid, NvmeStatus.INVALID_NAMESPACE, 0, 0);
                    return;
                }
                data = new byte[IdentifyData.SIZE];
            }
            default -> {
                send(io, qp, cid, NvmeStatus.INVALID_FIELD, 0, 0);
                return;
            }
        }
        sendData(io, qp, cid, data, (int) Math.min(cmd.sglLength(), data.length));
    }

    private void getLogPage(StaIo io, StaQp qp, NvmfController ctrl, NvmeCommand cmd) {
        int cid = cmd.cid();
        int lid = cmd.cdw10() & 0xff;
        long numd = ((((long) cmd.cdw11() & 0xffff) << 16) | (cmd.cdw10() >>> 16)) + 1;
        long len = numd * 4;
        long lpo = ((long) cmd.cdw13() << 32) | (cmd.cdw12() & 0xffffffffL);
        boolean discovery = ctrl.subsystem().isDiscovery();
        byte[] log;
        switch (lid) {
            case 0x01 -> log = IdentifyData.errorLog(ctrl.errorLog());
            case 0x02 -> {
                long[] t = target.subsystemTotals(ctrl.subsystem());
                log = IdentifyData.smartLog(t[0], t[1], t[2], t[3], ctrl.errorCount());
            }
            case 0x03 -> log = IdentifyData.firmwareLog();
            case 0x05 -> {
                if (discovery) {
                    send(io, qp, cid, NvmeStatus.INVALID_LOG_PAGE, 0, 0);
                    return;
                }
                log = IdentifyData.commandsEffectsLog();
            }
            case 0x04 -> {
                if (discovery) {
                    send(io, qp, cid, NvmeStatus.INVALID_LOG_PAGE, 0, 0);
                    return;
                }
                log = IdentifyData.changedNsList(ctrl.takeChangedNs());
            }
            case 0x70 -> {
                if (!discovery) {
                    send(io, qp, cid, NvmeStatus.INVALID_LOG_PAGE, 0, 0);
                    return;
                }
                log = target.discoveryLog(ctrl);
            }
            default -> {
                send(io, qp, cid, NvmeStatus.INVALID_LOG_PAGE, 0, 0);
                return;
            }
        }
        if ((lpo & 3) != 0 || lpo > log.length || len > cmd.sglLength() || len > target.maxIoSize()) {
            send(io, qp, cid, NvmeStatus.INVALID_FIELD, 0, 0);
            return;
        }
        byte[] out = new byte[(int) len];
        System.arraycopy(log, (int) lpo, out, 0, (int) Math.min(len, log.length - lpo));
        sendData(io, qp, cid, out, out.length);
    }

    // Feature identifiers (NVMe Base "Feature Identifiers"). Interrupt Coalescing (08h) and
    // Interrupt Vector Configuration (09h) are for PCIe controllers only and prohibited for
    // fabrics controllers: they get Invalid Field, as from Linux nvmet.
    static final int FEAT_ARBITRATION = 0x01;
    static final int FEAT_POWER_MANAGEMENT = 0x02;
    static final int FEAT_TEMPERATURE_THRESHOLD = 0x04;
    static final int FEAT_ERROR_RECOVERY = 0x05;
    static final int FEAT_VOLATILE_WRITE_CACHE = 0x06;
    static final int FEAT_NUMBER_OF_QUEUES = 0x07;
    static final int FEAT_WRITE_ATOMICITY = 0x0a;
    static final int FEAT_ASYNC_EVENT_CONFIG = 0x0b;
    static final int FEAT_KEEP_ALIVE_TIMER = 0x0f;
    static final int FEAT_HOST_IDENTIFIER = 0x81;
    /** Get Features SEL=3 capability bits: changeable (bit 2); nothing is saveable or per namespace. */
    private static final int CAP_CHANGEABLE = 1 << 2;

    /** Features a discovery controller has (the others belong to I/O controllers). */
    private static boolean discoveryFeature(int fid) {
        return fid == FEAT_ASYNC_EVENT_CONFIG || fid == FEAT_KEEP_ALIVE_TIMER || fid == FEAT_HOST_IDENTIFIER;
    }

    private void setFeatures(StaIo io, StaQp qp, NvmfController ctrl, NvmeCommand cmd) {
        int cid = cmd.cid();
        int fid = cmd.cdw10() & 0xff;
        boolean save = (cmd.cdw10() & 0x80000000) != 0;
        int v = cmd.cdw11();
        boolean discovery = ctrl.subsystem().isDiscovery();
        if (discovery && !discoveryFeature(fid)) {
            send(io, qp, cid, NvmeStatus.INVALID_FIELD, 0, 0);
            return;
        }
        if (save && known(fid, ctrl)) {
            send(io, qp, cid, NvmeStatus.FEATURE_NOT_SAVEABLE, 0, 0);
            return;
        }
        switch (fid) {
            case FEAT_ARBITRATION -> { // CAP.AMS is round robin only: the weights are kept, not used
                ctrl.setArbitration(v & 0xffffff07);
                send(io, qp, cid, NvmeStatus.SUCCESS, 0, 0);
            }
            case FEAT_POWER_MANAGEMENT -> // one power state (NPSS 0), no workload hints
                send(io, qp, cid, (v & 0xff) == 0 ? NvmeStatus.SUCCESS : NvmeStatus.INVALID_FIELD, 0, 0);
            case FEAT_TEMPERATURE_THRESHOLD -> {
                int tmpsel = (v >>> 16) & 0xf;
                int thsel = (v >>> 20) & 0x3;
                // Only the composite temperature exists (TMPSEL 0; Fh = all sensors = the composite).
                if ((tmpsel != 0 && tmpsel != 0xf) || thsel > 1) {
                    send(io, qp, cid, NvmeStatus.INVALID_FIELD, 0, 0);
                    return;
                }
                ctrl.setTempThreshold(thsel == 1, v & 0xffff);
                send(io, qp, cid, NvmeStatus.SUCCESS, 0, 0);
            }
            case FEAT_ERROR_RECOVERY -> {
                // DULBE needs deallocated-block error support (NSFEAT bit 2), which is not offered.
                if ((v & (1 << 16)) != 0) {
                    send(io, qp, cid, NvmeStatus.INVALID_FIELD, 0, 0);
                    return;
                }
                ctrl.setErrorRecovery(v & 0xffff);
                send(io, qp, cid, NvmeStatus.SUCCESS, 0, 0);
            }
            case FEAT_VOLATILE_WRITE_CACHE -> {
                // The back-ends cannot write through (the file back-end's page cache is the cache):
                // enabled, not changeable.
                if (!hasVwc(ctrl)) {
                    send(io, qp, cid, NvmeStatus.INVALID_FIELD, 0, 0);
                } else {
                    send(io, qp, cid, (v & 1) != 0 ? NvmeStatus.SUCCESS : NvmeStatus.FEATURE_NOT_CHANGEABLE, 0, 0);
                }
            }
            case FEAT_NUMBER_OF_QUEUES -> {
                int nsqr = v & 0xffff;
                int ncqr = v >>> 16;
                if (nsqr == 0xffff || ncqr == 0xffff) {
                    send(io, qp, cid, NvmeStatus.INVALID_FIELD, 0, 0);
                    return;
                }
                int granted = Math.min(Math.min(nsqr, ncqr) + 1, target.maxIoQueues());
                ctrl.setGrantedIoQueues(granted);
                send(io, qp, cid, NvmeStatus.SUCCESS, ((granted - 1) << 16) | (granted - 1), 0);
            }
            case FEAT_WRITE_ATOMICITY -> {
                ctrl.setWriteAtomicity(v & 1);
                send(io, qp, cid, NvmeStatus.SUCCESS, 0, 0);
            }
            case FEAT_ASYNC_EVENT_CONFIG -> {
                ctrl.setAec(v);
                send(io, qp, cid, NvmeStatus.SUCCESS, 0, 0);
            }
            case FEAT_KEEP_ALIVE_TIMER -> {
                ctrl.setKatoMs(v & 0xffffffffL);
                send(io, qp, cid, NvmeStatus.SUCCESS, 0, 0);
            }
            // The host identifier of a fabrics controller comes with Connect and cannot change.
            case FEAT_HOST_IDENTIFIER -> send(io, qp, cid, NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0);
            default -> send(io, qp, cid, NvmeStatus.INVALID_FIELD, 0, 0);
        }
    }

    private static boolean hasVwc(NvmfController ctrl) {
        return !ctrl.subsystem().isDiscovery();
    }

    private static boolean known(int fid, NvmfController ctrl) {
        return switch (fid) {
            case FEAT_ARBITRATION, FEAT_POWER_MANAGEMENT, FEAT_TEMPERATURE_THRESHOLD, FEAT_ERROR_RECOVERY,
                 FEAT_NUMBER_OF_QUEUES, FEAT_WRITE_ATOMICITY, FEAT_ASYNC_EVENT_CONFIG, FEAT_KEEP_ALIVE_TIMER,
                 FEAT_HOST_IDENTIFIER -> true;
            case FEAT_VOLATILE_WRITE_CACHE -> hasVwc(ctrl);
            default -> false;
        };
    }

    private void getFeatures(StaIo io, StaQp qp, NvmfController ctrl, NvmeCommand cmd) {
        int cid = cmd.cid();
        int fid = cmd.cdw10() & 0xff;
        int sel = (cmd.cdw10() >>> 8) & 0x7;
        int cdw11 = cmd.cdw11();
        if ((ctrl.subsystem().isDiscovery() && !discoveryFeature(fid)) || !known(fid, ctrl) || sel > 3) {
            send(io, qp, cid, NvmeStatus.INVALID_FIELD, 0, 0);
            return;
        }
        if (sel == 3) { // supported capabilities
            boolean changeable = fid != FEAT_POWER_MANAGEMENT && fid != FEAT_VOLATILE_WRITE_CACHE
                    && fid != FEAT_HOST_IDENTIFIER;
            send(io, qp, cid, NvmeStatus.SUCCESS, changeable ? CAP_CHANGEABLE : 0, 0);
            return;
        }
        // Nothing is saveable, so "saved" (SEL 2) is the default (SEL 1).
        boolean dflt = sel != 0;
        int g = dflt ? target.maxIoQueues() : ctrl.grantedIoQueues();
        switch (fid) {
            case FEAT_ARBITRATION -> send(io, qp, cid, NvmeStatus.SUCCESS, dflt ? 0 : ctrl.arbitration(), 0);
            case FEAT_POWER_MANAGEMENT -> send(io, qp, cid, NvmeStatus.SUCCESS, 0, 0);
            case FEAT_TEMPERATURE_THRESHOLD -> {
                int tmpsel = (cdw11 >>> 16) & 0xf;
                int thsel = (cdw11 >>> 20) & 0x3;
                if (tmpsel != 0 || thsel > 1) {
                    send(io, qp, cid, NvmeStatus.INVALID_FIELD, 0, 0);
                    return;
                }
                boolean under = thsel == 1;
                int t = dflt ? (under ? 0 : NvmfController.TEMP_OVER_DEFAULT) : ctrl.tempThreshold(under);
                send(io, qp, cid, NvmeStatus.SUCCESS, (thsel << 20) | t, 0);
            }
            case FEAT_ERROR_RECOVERY -> send(io, qp, cid, NvmeStatus.SUCCESS, dflt ? 0 : ctrl.errorRecovery(), 0);
            case FEAT_VOLATILE_WRITE_CACHE -> send(io, qp, cid, NvmeStatus.SUCCESS, 1, 0);
            case FEAT_NUMBER_OF_QUEUES -> send(io, qp, cid, NvmeStatus.SUCCESS, ((g - 1) << 16) | (g - 1), 0);
            case FEAT_WRITE_ATOMICITY -> send(io, qp, cid, NvmeStatus.SUCCESS, dflt ? 0 : ctrl.writeAtomicity(), 0);
            case FEAT_ASYNC_EVENT_CONFIG -> send(io, qp, cid, NvmeStatus.SUCCESS, dflt ? 0 : ctrl.aec(), 0);
            case FEAT_KEEP_ALIVE_TIMER -> send(io, qp, cid, NvmeStatus.SUCCESS, dflt ? 0 : (int) ctrl.katoMs(), 0);
            case FEAT_HOST_IDENTIFIER -> {
                // EXHID (CDW11 bit 0) must ask for the 128-bit identifier: fabrics has no 64-bit one.
                if ((cdw11 & 1) == 0) {
                    send(io, qp, cid, NvmeStatus.INVALID_FIELD, 0, 0);
                    return;
                }
                byte[] id = ctrl.hostId();
                sendData(io, qp, cid, id, (int) Math.min(cmd.sglLength(), id.length));
            }
            default -> send(io, qp, cid, NvmeStatus.INVALID_FIELD, 0, 0);
        }
    }

    // ------------------------------------------------------------------ replies

    static void send(StaIo io, StaQp qp, int cid, int status, int dw0, int dw1) {
        if (status != NvmeStatus.SUCCESS && qp.userObject() instanceof NvmfController ctrl) {
            ctrl.logError(qp.qid(), cid, status, 0);
        }
        var t = io.taskNonOffloadSendAllocInit(qp, cid, status, dw0, dw1, 0);
        if (t == null) {
            LOG.error("{}: no free non-offload send task ({})", qp, io.lastError());
            return;
        }
        var e = t.submit();
        if (e != DocaError.SUCCESS) {
            LOG.error("{}: non-offload send submit failed: {}", qp, e);
            t.free();
        }
    }

    static void sendData(StaIo io, StaQp qp, int cid, byte[] data, int len) {
        MemorySegment seg = MemorySegment.ofArray(data);
        var t = io.taskNonOffloadWriteSendAllocInit(qp, cid, seg, 0, len, NvmeStatus.SUCCESS, 0, 0, 0);
        if (t == null) {
            LOG.error("{}: no free non-offload write-send task ({})", qp, io.lastError());
            return;
        }
        var e = t.submit();
        if (e != DocaError.SUCCESS) {
            LOG.error("{}: non-offload write-send submit failed: {}", qp, e);
            t.free();
        }
    }
}
