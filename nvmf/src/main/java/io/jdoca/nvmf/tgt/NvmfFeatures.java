package io.jdoca.nvmf.tgt;

import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeStatus;

/**
 * Set Features and Get Features of a controller (SPDK's {@code nvmf_ctrlr_set_features_*} and
 * {@code nvmf_ctrlr_get_features_*}): the values are the {@link NvmfController}'s, nothing is
 * saveable, and a discovery controller has only the features NVMe-oF gives it.
 *
 * <p>Threads: {@code sta-main} only (part of {@link AdminHandler}).
 */
final class NvmfFeatures {
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
    /** Reservation Notification Mask (82h) and Reservation Persistence (83h): per namespace (Base 2.0 §5.27.1). */
    static final int FEAT_RESV_MASK = 0x82;
    static final int FEAT_RESV_PERSISTENCE = 0x83;
    /** Get Features SEL=3: namespace specific (bit 1). */
    private static final int CAP_NS_SPECIFIC = 1 << 1;
    /** Get Features SEL=3 capability bits: changeable (bit 2); nothing is saveable or per namespace. */
    private static final int CAP_CHANGEABLE = 1 << 2;

    private final AdminHandler admin;

    NvmfFeatures(AdminHandler admin) {
        this.admin = admin;
    }

    /** Features a discovery controller has (the others belong to I/O controllers). */
    private static boolean discoveryFeature(int fid) {
        return fid == FEAT_ASYNC_EVENT_CONFIG || fid == FEAT_KEEP_ALIVE_TIMER || fid == FEAT_HOST_IDENTIFIER;
    }

    void setFeatures(NvmfAdminCommand c, NvmfController ctrl) {
        NvmeCommand cmd = c.sqe;
        int fid = cmd.cdw10() & 0xff;
        boolean save = (cmd.cdw10() & 0x80000000) != 0;
        int v = cmd.cdw11();
        boolean discovery = ctrl.subsystem().isDiscovery();
        if (discovery && !discoveryFeature(fid)) {
            admin.reply(c, NvmeStatus.INVALID_FIELD, 0, 0);
            return;
        }
        if (save && known(fid, ctrl)) {
            admin.reply(c, NvmeStatus.FEATURE_NOT_SAVEABLE, 0, 0);
            return;
        }
        switch (fid) {
            case FEAT_ARBITRATION -> { // CAP.AMS is round robin only: the weights are kept, not used
                ctrl.setArbitration(v & 0xffffff07);
                admin.reply(c, NvmeStatus.SUCCESS, 0, 0);
            }
            case FEAT_POWER_MANAGEMENT -> // one power state (NPSS 0), no workload hints
                admin.reply(c, (v & 0xff) == 0 ? NvmeStatus.SUCCESS : NvmeStatus.INVALID_FIELD, 0, 0);
            case FEAT_TEMPERATURE_THRESHOLD -> {
                int tmpsel = (v >>> 16) & 0xf;
                int thsel = (v >>> 20) & 0x3;
                // Only the composite temperature exists (TMPSEL 0; Fh = all sensors = the composite).
                if ((tmpsel != 0 && tmpsel != 0xf) || thsel > 1) {
                    admin.reply(c, NvmeStatus.INVALID_FIELD, 0, 0);
                    return;
                }
                ctrl.setTempThreshold(thsel == 1, v & 0xffff);
                admin.reply(c, NvmeStatus.SUCCESS, 0, 0);
            }
            case FEAT_ERROR_RECOVERY -> {
                // DULBE needs deallocated-block error support (NSFEAT bit 2), which is not offered.
                if ((v & (1 << 16)) != 0) {
                    admin.reply(c, NvmeStatus.INVALID_FIELD, 0, 0);
                    return;
                }
                ctrl.setErrorRecovery(v & 0xffff);
                admin.reply(c, NvmeStatus.SUCCESS, 0, 0);
            }
            case FEAT_VOLATILE_WRITE_CACHE -> {
                // The back-ends cannot write through (the file back-end's page cache is the cache):
                // enabled, not changeable.
                if (!hasVwc(ctrl)) {
                    admin.reply(c, NvmeStatus.INVALID_FIELD, 0, 0);
                } else {
                    admin.reply(c, (v & 1) != 0 ? NvmeStatus.SUCCESS : NvmeStatus.FEATURE_NOT_CHANGEABLE, 0, 0);
                }
            }
            case FEAT_NUMBER_OF_QUEUES -> {
                int nsqr = v & 0xffff;
                int ncqr = v >>> 16;
                if (nsqr == 0xffff || ncqr == 0xffff) {
                    admin.reply(c, NvmeStatus.INVALID_FIELD, 0, 0);
                    return;
                }
                int granted = Math.min(Math.min(nsqr, ncqr) + 1, NvmfTarget.MAX_IO_QUEUES);
                ctrl.setGrantedIoQueues(granted);
                admin.reply(c, NvmeStatus.SUCCESS, ((granted - 1) << 16) | (granted - 1), 0);
            }
            case FEAT_WRITE_ATOMICITY -> {
                ctrl.setWriteAtomicity(v & 1);
                admin.reply(c, NvmeStatus.SUCCESS, 0, 0);
            }
            case FEAT_ASYNC_EVENT_CONFIG -> {
                ctrl.setAec(v);
                admin.reply(c, NvmeStatus.SUCCESS, 0, 0);
            }
            case FEAT_KEEP_ALIVE_TIMER -> {
                ctrl.setKatoMs(v & 0xffffffffL);
                admin.reply(c, NvmeStatus.SUCCESS, 0, 0);
            }
            // The host identifier of a fabrics controller comes with Connect and cannot change.
            case FEAT_HOST_IDENTIFIER -> admin.reply(c, NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0);
            case FEAT_RESV_MASK -> {
                int nsid = cmd.nsid();
                if (nsid == 0xffffffff) {
                    for (var ns : ctrl.subsystem().sta().namespaces()) {
                        ctrl.setReservationMask(ns.nsid(), v & 0xe);
                    }
                } else if (ctrl.subsystem().ns(nsid) != null) {
                    ctrl.setReservationMask(nsid, v & 0xe);
                } else {
                    admin.reply(c, NvmeStatus.INVALID_NAMESPACE, 0, 0);
                    return;
                }
                admin.reply(c, NvmeStatus.SUCCESS, 0, 0);
            }
            case FEAT_RESV_PERSISTENCE -> {
                var r = ctrl.subsystem().ns(cmd.nsid()) == null ? null : ctrl.subsystem().reservation(cmd.nsid());
                if (r == null) {
                    admin.reply(c, NvmeStatus.INVALID_NAMESPACE, 0, 0);
                    return;
                }
                // Without a ptpl_file the namespace cannot persist (RESCAP bit 0 is 0): PTPL=1 is refused.
                admin.reply(c, r.setPersistThroughPowerLoss((v & 1) != 0), 0, 0);
            }
            default -> admin.reply(c, NvmeStatus.INVALID_FIELD, 0, 0);
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
            case FEAT_VOLATILE_WRITE_CACHE, FEAT_RESV_MASK, FEAT_RESV_PERSISTENCE -> hasVwc(ctrl);
            default -> false;
        };
    }

    void getFeatures(NvmfAdminCommand c, NvmfController ctrl) {
        NvmeCommand cmd = c.sqe;
        int fid = cmd.cdw10() & 0xff;
        int sel = (cmd.cdw10() >>> 8) & 0x7;
        int cdw11 = cmd.cdw11();
        if ((ctrl.subsystem().isDiscovery() && !discoveryFeature(fid)) || !known(fid, ctrl) || sel > 3) {
            admin.reply(c, NvmeStatus.INVALID_FIELD, 0, 0);
            return;
        }
        if (sel == 3) { // supported capabilities
            boolean changeable = fid != FEAT_POWER_MANAGEMENT && fid != FEAT_VOLATILE_WRITE_CACHE
                    && fid != FEAT_HOST_IDENTIFIER;
            boolean perNs = fid == FEAT_RESV_MASK || fid == FEAT_RESV_PERSISTENCE;
            admin.reply(c, NvmeStatus.SUCCESS, (changeable ? CAP_CHANGEABLE : 0) | (perNs ? CAP_NS_SPECIFIC : 0), 0);
            return;
        }
        // Nothing is saveable, so "saved" (SEL 2) is the default (SEL 1).
        boolean dflt = sel != 0;
        int g = dflt ? NvmfTarget.MAX_IO_QUEUES : ctrl.grantedIoQueues();
        switch (fid) {
            case FEAT_ARBITRATION -> admin.reply(c, NvmeStatus.SUCCESS, dflt ? 0 : ctrl.arbitration(), 0);
            case FEAT_POWER_MANAGEMENT -> admin.reply(c, NvmeStatus.SUCCESS, 0, 0);
            case FEAT_TEMPERATURE_THRESHOLD -> {
                int tmpsel = (cdw11 >>> 16) & 0xf;
                int thsel = (cdw11 >>> 20) & 0x3;
                if (tmpsel != 0 || thsel > 1) {
                    admin.reply(c, NvmeStatus.INVALID_FIELD, 0, 0);
                    return;
                }
                boolean under = thsel == 1;
                int t = dflt ? (under ? 0 : NvmfController.TEMP_OVER_DEFAULT) : ctrl.tempThreshold(under);
                admin.reply(c, NvmeStatus.SUCCESS, (thsel << 20) | t, 0);
            }
            case FEAT_ERROR_RECOVERY -> admin.reply(c, NvmeStatus.SUCCESS, dflt ? 0 : ctrl.errorRecovery(), 0);
            case FEAT_VOLATILE_WRITE_CACHE -> admin.reply(c, NvmeStatus.SUCCESS, 1, 0);
            case FEAT_NUMBER_OF_QUEUES -> admin.reply(c, NvmeStatus.SUCCESS, ((g - 1) << 16) | (g - 1), 0);
            case FEAT_WRITE_ATOMICITY -> admin.reply(c, NvmeStatus.SUCCESS, dflt ? 0 : ctrl.writeAtomicity(), 0);
            case FEAT_ASYNC_EVENT_CONFIG -> admin.reply(c, NvmeStatus.SUCCESS, dflt ? 0 : ctrl.aec(), 0);
            case FEAT_KEEP_ALIVE_TIMER -> admin.reply(c, NvmeStatus.SUCCESS, dflt ? 0 : (int) ctrl.katoMs(), 0);
            case FEAT_RESV_MASK -> {
                if (ctrl.subsystem().ns(cmd.nsid()) == null) {
                    admin.reply(c, NvmeStatus.INVALID_NAMESPACE, 0, 0);
                    return;
                }
                admin.reply(c, NvmeStatus.SUCCESS, dflt ? 0 : ctrl.reservationMask(cmd.nsid()), 0);
            }
            case FEAT_RESV_PERSISTENCE -> {
                var r = ctrl.subsystem().ns(cmd.nsid()) == null ? null : ctrl.subsystem().reservation(cmd.nsid());
                if (r == null) {
                    admin.reply(c, NvmeStatus.INVALID_NAMESPACE, 0, 0);
                    return;
                }
                admin.reply(c, NvmeStatus.SUCCESS, !dflt && r.persistThroughPowerLoss() ? 1 : 0, 0);
            }
            case FEAT_HOST_IDENTIFIER -> {
                // EXHID (CDW11 bit 0) must ask for the 128-bit identifier: fabrics has no 64-bit one.
                if ((cdw11 & 1) == 0) {
                    admin.reply(c, NvmeStatus.INVALID_FIELD, 0, 0);
                    return;
                }
                byte[] id = ctrl.hostId();
                admin.replyData(c, id, (int) Math.min(cmd.sglLength(), id.length));
            }
            default -> admin.reply(c, NvmeStatus.INVALID_FIELD, 0, 0);
        }
    }
}
