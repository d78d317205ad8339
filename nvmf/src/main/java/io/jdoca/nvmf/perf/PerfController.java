package io.jdoca.nvmf.perf;

import io.jdoca.sta.nvme.NvmeOpcode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One controller nvme-perf runs against: the admin queue of a subsystem (or of a discovery service),
 * connected and enabled (Fabrics Connect, CAP, CC.EN, CSTS.RDY), with what the run needs from it: the
 * queue size limit (CAP.MQES), the transfer limit (MDTS), the namespaces to drive, I/O queues granted
 * (Set Features Number of Queues), Keep Alive, and, for a discovery service, the subsystems its log
 * lists. Control path; the nvme-perf main thread only.
 */
final class PerfController implements AutoCloseable {
    /** A failure of the run's set-up: one line and the exit status (2: a flag the target cannot serve). */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;
        final int exit;

        Failure(String line, int exit) {
            super(line, null, false, false);
            this.exit = exit;
        }
    }

    /** A namespace to drive: its controller, id, block size and the I/O units of its range. */
    record Namespace(PerfController ctrl, int nsid, int blockSize, long ios) {
        /** spdk_nvme_perf's row name: "TCP  (addr:... subnqn:...) NSID n". */
        String name() {
            return ctrl.trid.name() + " NSID " + Integer.toUnsignedString(nsid);
        }
    }

    final PerfTrid trid;
    final NvmeHostQueue admin;
    final int cntlid;
    /** CAP.MQES + 1: the largest queue the target allows (entries). */
    final int maxQueueEntries;
    private final long maxIo;
    private int nextQid = 1;

    private PerfController(PerfTrid trid, NvmeHostQueue admin, int cntlid, int maxQueueEntries, long maxIo) {
        this.trid = trid;
        this.admin = admin;
        this.cntlid = cntlid;
        this.maxQueueEntries = maxQueueEntries;
        this.maxIo = maxIo;
    }

    /** Connects and enables the admin queue of {@code t} with keep-alive timeout {@code katoMs} (0: none). */
    static PerfController open(PerfTrid t, NvmePerfApp app, long katoMs) throws IOException, Failure {
        NvmeHostQueue admin = app.openQueue(t, 64, 8192);
        try {
            admin.initialize();
            int[] c = admin.connect(0, 31, t.connectNqn(), t.hostnqn(), 0xffff, katoMs, 0);
            if (c[0] != 0) {
                throw new Failure("admin Connect to " + t.connectNqn() + " refused: "
                        + PerfStatus.connect(c[0], c[1]), 1);
            }
            int[] cap = admin.propertyGet(0x00, true);
            int mqes = cap[0] == 0 ? cap[1] & 0xffff : 0xffff; // CAP.MQES: largest queue size, 0's based
            int mpsmin = (cap[2] >>> 16) & 0xf;                // CAP.MPSMIN (bits 51:48): MDTS unit 2^(12+MPSMIN)
            int[] cc = admin.propertySet(0x14, 1 | (6 << 16) | (4 << 20)); // CC.EN, IOSQES 64 B, IOCQES 16 B
            if (cc[0] != 0) {
                throw new Failure("Property Set CC.EN failed: " + PerfStatus.name(cc[0]), 1);
            }
            String notReady = awaitReady(admin);
            if (notReady != null) {
                throw new Failure(notReady, 1);
            }
            long maxIo = Long.MAX_VALUE;
            byte[] idctrl = new byte[4096];
            if (!t.discovery() && admin.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 0, 0x01, 0, idctrl) == 0 && cap[0] == 0) {
                int mdts = idctrl[77] & 0xff;
                maxIo = mdts == 0 ? Long.MAX_VALUE : 1L << (12 + mpsmin + mdts);
            }
            return new PerfController(t, admin, c[1] & 0xffff, mqes + 1, maxIo);
        } catch (IOException | Failure | RuntimeException e) {
            admin.close();
            throw e;
        }
    }

    /**
     * After CC.EN = 1, polls CSTS until RDY (a controller may become ready later, NVMe Base 2.0 §3.5.1);
     * null when ready (or when CSTS cannot be read: the commands that follow then tell), else one line.
     */
    private static String awaitReady(NvmeHostQueue admin) throws IOException {
        long deadline = System.nanoTime() + 60_000_000_000L; // a TCG guest is slow, not dead
        while (true) {
            int[] csts = admin.propertyGet(0x1c, false);
            if (csts[0] != 0 || (csts[1] & 1) != 0) {
                return null;
            }
            if ((csts[1] & 2) != 0) {
                return "the controller reports a fatal status (CSTS.CFS) after CC.EN";
            }
            if (System.nanoTime() > deadline) {
                return "the controller did not become ready (CSTS.RDY) within 60 s of CC.EN";
            }
            Thread.onSpinWait();
        }
    }

    /**
     * The discovery log's NVM subsystems reachable over the same transport at this service's own address
     * (an entry naming another address is reported on {@code notes} and skipped: nvme-perf dials what the
     * operator named, not what a peer names).
     */
    List<PerfTrid> discoveryLog(List<String> notes) throws IOException, Failure {
        byte[] head = new byte[1024];
        int st = admin.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0, logCdw10(0x70, head.length), 0, head);
        if (st != 0) {
            throw new Failure("discovery log of " + trid.traddr() + ":" + trid.trsvcid() + ": "
                    + PerfStatus.name(st), 1);
        }
        long numrec = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN).getLong(8);
        int n = (int) Math.min(numrec, 64);
        byte[] log = new byte[1024 + 1024 * n];
        if (n > 0) {
            int numdu = (log.length / 4 - 1) >>> 16;
            st = admin.adminRead(NvmeOpcode.ADMIN_GET_LOG_PAGE, 0, logCdw10(0x70, log.length), numdu, log);
            if (st != 0) {
                throw new Failure("discovery log: " + PerfStatus.name(st), 1);
            }
        }
        List<PerfTrid> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int e = 1024 + 1024 * i;
            int trtype = log[e] & 0xff;      // 1 RDMA, 3 TCP
            int subtype = log[e + 2] & 0xff; // 2: NVM subsystem
            String svc = ascii(log, e + 32, 32);
            String nqn = ascii(log, e + 256, 256);
            String addr = ascii(log, e + 512, 256);
            if (subtype != 2 || (trtype != 1 && trtype != 3)) {
                continue;
            }
            if (!addr.equals(trid.traddr())) {
                notes.add("discovery entry " + nqn + " at " + addr + ":" + svc + " skipped: another address than "
                        + trid.traddr() + " (name it with its own -r)");
                continue;
            }
            try {
                out.add(trid.forSubsystem(trtype == 1, addr, Integer.parseInt(svc), nqn));
            } catch (NumberFormatException ex) {
                notes.add("discovery entry " + nqn + " skipped: trsvcid '" + svc + "' is not a port");
            }
        }
        return out;
    }

    private static int logCdw10(int lid, int bytes) {
        return lid | (((bytes / 4 - 1) & 0xffff) << 16);
    }

    private static String ascii(byte[] b, int off, int len) {
        int end = off;
        while (end < off + len && b[end] != 0) {
            end++;
        }
        return new String(b, off, end - off, StandardCharsets.US_ASCII).trim();
    }

    /**
     * The namespaces to drive: the trid's {@code ns:} (or --nsid), else every active one (Identify CNS 02h),
     * each with its block size and the range given ({@code rangeBytes} 0: the whole namespace).
     */
    List<Namespace> namespaces(int ioSize, long rangeBytes) throws IOException, Failure {
        if (ioSize > maxIo) {
            throw new Failure(String.format("-o/--io-size %d exceeds the maximum data transfer size %d (MDTS) of %s",
                    ioSize, maxIo, trid.name()), 2);
        }
        List<Integer> ids = new ArrayList<>();
        if (trid.nsid() != 0) {
            ids.add(trid.nsid());
        } else {
            byte[] list = new byte[4096];
            int st = admin.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 0, 0x02, 0, list);
            if (st != 0) {
                throw new Failure("Identify (active namespace list) of " + trid.name() + ": " + PerfStatus.name(st), 1);
            }
            ByteBuffer b = ByteBuffer.wrap(list).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < 1024 && b.getInt(i * 4) != 0; i++) {
                ids.add(b.getInt(i * 4));
            }
            if (ids.isEmpty()) {
                throw new Failure(trid.name() + " has no active namespace", 1);
            }
        }
        List<Namespace> out = new ArrayList<>();
        for (int nsid : ids) {
            byte[] idns = new byte[4096];
            int st = admin.adminRead(NvmeOpcode.ADMIN_IDENTIFY, nsid, 0x00, 0, idns);
            long nsze = ByteBuffer.wrap(idns).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
            if (st != 0 || nsze == 0) {
                throw new Failure(String.format("namespace %s of %s not found%s", Integer.toUnsignedString(nsid),
                        trid.name(), st != 0 ? ": " + PerfStatus.name(st) : ""), 1);
            }
            int bs = 1 << idns[128 + 2];
            if (ioSize % bs != 0) {
                throw new Failure(String.format("-o/--io-size %d is not a multiple of the %d-byte block of NSID %d",
                        ioSize, bs, nsid), 2);
            }
            long bytes = nsze * bs;
            if (rangeBytes > 0) {
                bytes = Math.min(bytes, rangeBytes);
            }
            long ios = bytes / ioSize;
            if (ios == 0) {
                throw new Failure(String.format("-o/--io-size %d is larger than the %d-byte range of NSID %d "
                        + "(--range-mb, namespace size)", ioSize, bytes, nsid), 2);
            }
            out.add(new Namespace(this, nsid, bs, ios));
        }
        return out;
    }

    /** Asks for {@code n} I/O queues (Set Features Number of Queues); Failure when fewer are granted. */
    void grantQueues(int n) throws IOException, Failure {
        int[] nq = admin.adminSimple(NvmeOpcode.ADMIN_SET_FEATURES, 0, 0x07, ((n - 1) << 16) | (n - 1));
        int granted = Math.min(nq[1] & 0xffff, nq[1] >>> 16) + 1;
        if (nq[0] == 0 && granted < n) {
            throw new Failure(String.format("-P/--num-qpairs: %d I/O queue(s) needed on %s, the target grants %d "
                    + "(Number of Queues)", n, trid.name(), granted), 2);
        }
    }

    /** The next I/O queue id of this controller. */
    int nextQid() {
        return nextQid++;
    }

    /** Sends Keep Alive (NVMe Base 2.0 §5.25) on the admin queue; one line when it fails, else null. */
    String keepAlive() {
        try {
            int[] r = admin.adminSimple(NvmeOpcode.ADMIN_KEEP_ALIVE, 0, 0, 0);
            return r[0] == 0 ? null : trid.name() + ": Keep Alive failed: " + PerfStatus.name(r[0]);
        } catch (IOException e) {
            return trid.name() + ": Keep Alive failed: " + e.getMessage();
        }
    }

    @Override
    public void close() {
        admin.close();
    }
}
