package io.jdoca.nvmf.tgt;

import io.jdoca.sta.StaNamespace;
import io.jdoca.sta.nvmf.NvmfNamespace;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Builders of the data structures the admin commands return: Identify Controller (NVMe Base 2.0
 * figure 275 + NVMe-oF 1.1 figure 28 for bytes 1792..2047), Identify Namespace (NVM Command Set 1.0
 * figure 97), the active namespace list, namespace identification descriptors (Base 2.0 figure
 * 278) and log pages (error figure 205, SMART figure 207, firmware slot figure 209, changed
 * namespace list figure 210). Each returns a fresh little-endian byte array (control path).
 *
 * <p>Stateless; safe from any thread.
 */
public final class IdentifyData {
    public static final int SIZE = 4096;
    /** Controller types (CNTRLTYPE, byte 111). */
    public static final int CNTRLTYPE_IO = 1;
    public static final int CNTRLTYPE_DISCOVERY = 2;
    /**
     * NVMe 1.4.0 (VS property and VER field): what a fabrics I/O controller must have for 1.4 is
     * here (CNTRLTYPE, CTRATT with the 128-bit host identifier, the mandatory features, the
     * commands supported and effects log, the error log, SQ flow control disable).
     */
    public static final int VERSION = 0x00010400;
    public static final String FIRMWARE = "0.1.0";
    /**
     * IEEE field (bytes 73..75, stored least significant byte first): 02-6A-64 ("jd"). jdoca owns no
     * IEEE registration, so this is deliberately not an OUI anyone could hold: the first octet has
     * the local (U/L) bit set, in the IEEE 802c "administratively assigned" quadrant, which the IEEE
     * never assigns to a vendor. It claims no vendor and collides with none.
     */
    public static final int IEEE_OUI = 0x026a64;
    /** Bytes in one error information log entry. */
    public static final int ERROR_ENTRY_SIZE = 64;
    /** TRTYPE of NVMe/TCP (NVMe-oF transport type 3). */
    public static final int TRTYPE_TCP = 3;
    /** ONCS: Compare (0), Dataset Management (2), Write Zeroes (3), Save field / Select field (4), Reservations (5). */
    public static final int ONCS = (1 << 0) | (1 << 2) | (1 << 3) | (1 << 4) | (1 << 5);
    /**
     * RESCAP (Identify Namespace byte 31): every reservation type (bits 1-6) and Ignore Existing Key
     * as NVMe 1.3 defines it (bit 7); Persist Through Power Loss (bit 0) only with a ptpl_file.
     */
    public static final int RESCAP = 0x7e | 0x80;
    /** Admin opcodes an I/O controller executes (Commands Supported and Effects log). */
    static final int[] ADMIN_OPCODES = {0x02, 0x06, 0x08, 0x09, 0x0a, 0x0c, 0x18};
    /** I/O opcodes: Flush, Write, Read, Compare, Write Zeroes, Dataset Management, the four reservation commands. */
    static final int[] IO_OPCODES = {0x00, 0x01, 0x02, 0x05, 0x08, 0x09, 0x0d, 0x0e, 0x11, 0x15};
    /** I/O opcodes that change logical block content (LBCC in the effects log). */
    static final int[] IO_LBCC = {0x01, 0x08, 0x09};

    private IdentifyData() {
    }

    static ByteBuffer le(int n) {
        return ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** ASCII, space-padded (SN, MN, FR, TRSVCID, TRADDR). */
    static void ascii(ByteBuffer b, int off, int len, String s) {
        byte[] v = s.getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < len; i++) {
            b.put(off + i, i < v.length ? v[i] : (byte) ' ');
        }
    }

    /** UTF-8, NUL-padded (NQNs). */
    static void nqn(ByteBuffer b, int off, int len, String s) {
        byte[] v = s.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < len; i++) {
            b.put(off + i, i < v.length && i < len - 1 ? v[i] : 0);
        }
    }

    /** Parameters of Identify Controller. */
    public record ControllerParams(int cntlid, String serial, String model, String subnqn, int controllerType,
                                   int mdts, int maxCmd, int numNamespaces, int ioccszBytes, int katoGranularity100ms,
                                   boolean volatileWriteCache, boolean keyedSgl, int anaGroupMax) {
        /** Without ANA reporting (0 = no ANA groups). */
        public ControllerParams(int cntlid, String serial, String model, String subnqn, int controllerType, int mdts,
                                int maxCmd, int numNamespaces, int ioccszBytes, int katoGranularity100ms,
                                boolean volatileWriteCache, boolean keyedSgl) {
            this(cntlid, serial, model, subnqn, controllerType, mdts, maxCmd, numNamespaces, ioccszBytes,
                    katoGranularity100ms, volatileWriteCache, keyedSgl, 0);
        }
    }

    /**
     * CMIC (byte 76): the subsystem may have several ports (bit 0: jdoca listens on as many as the
     * operator gives it) and several controllers (bit 1: every Connect makes one), and with ANA
     * reporting it reports ANA (bit 3).
     */
    public static int cmic(boolean anaReporting) {
        return 0x01 | 0x02 | (anaReporting ? 0x08 : 0);
    }

    /** ANA Transition Time (ANATT, seconds): states change at once; SPDK's value. */
    public static final int ANATT_SECONDS = 10;
    /**
     * ANACAP (byte 344): the states a path may report here: optimized (bit 0), non-optimized (1),
     * inaccessible (2), change (4: while a state set over RPC takes effect); ANAGRPID does not
     * change while the namespace is attached (bit 6).
     */
    public static final int ANACAP = 0x01 | 0x02 | 0x04 | 0x10 | 0x40;

    public static byte[] controller(ControllerParams p) {
        ByteBuffer b = le(SIZE);
        b.putShort(0, (short) 0x0000);          // VID
        b.putShort(2, (short) 0x0000);          // SSVID
        ascii(b, 4, 20, p.serial());            // SN
        ascii(b, 24, 40, p.model());            // MN
        ascii(b, 64, 8, FIRMWARE);              // FR
        b.put(72, (byte) 6);                    // RAB
        b.put(73, (byte) IEEE_OUI);             // IEEE OUI, least significant byte first
        b.put(74, (byte) (IEEE_OUI >>> 8));
        b.put(75, (byte) (IEEE_OUI >>> 16));
        boolean ana = p.anaGroupMax() > 0;
        b.put(76, (byte) cmic(ana));            // CMIC
        b.put(77, (byte) p.mdts());             // MDTS (power of two of 4 KiB pages)
        b.putShort(78, (short) p.cntlid());     // CNTLID
        b.putInt(80, VERSION);                  // VER
        // OAES: ns attribute (bit 8: namespaces added, removed or resized), ANA change (bit 11) /
        // discovery log change (bit 31)
        b.putInt(92, p.controllerType() == CNTRLTYPE_IO ? (1 << 8) | (ana ? 1 << 11 : 0) : (1 << 31));
        b.putInt(96, 1);                        // CTRATT bit 0: 128-bit host identifier (every Connect carries one)
        b.put(111, (byte) p.controllerType());  // CNTRLTYPE
        b.putShort(256, (short) 0);             // OACS: no optional admin commands
        b.put(258, (byte) 3);                   // ACL (0's based)
        b.put(259, (byte) 3);                   // AERL (0's based): 4 outstanding AERs
        b.put(260, (byte) 0x03);                // FRMW: slot 1 read-only, 1 slot
        // LPA: extended data for Get Log Page (bit 2); commands supported and effects log (bit 1, I/O controllers)
        b.put(261, (byte) (p.controllerType() == CNTRLTYPE_IO ? 0x06 : 0x04));
        // ELPE (0's based): the entries each controller keeps
        b.put(262, (byte) (NvmfController.ERROR_LOG_ENTRIES - 1));
        b.put(263, (byte) 0);                   // NPSS: 1 power state
        b.putShort(266, (short) 0);             // WCTEMP: 0 = not reported (no temperature sensor)
        b.putShort(268, (short) 0);             // CCTEMP: 0 = not reported
        b.putShort(320, (short) p.katoGranularity100ms()); // KAS, 100 ms units
        if (ana) {
            b.put(343, (byte) ANATT_SECONDS);   // ANATT
            b.put(344, (byte) ANACAP);          // ANACAP
            b.putInt(348, p.anaGroupMax());     // ANAGRPMAX
            b.putInt(352, p.anaGroupMax());     // NANAGRPID: every group id 1..ANAGRPMAX exists
        }
        b.put(512, (byte) 0x66);                // SQES: 64-byte entries
        b.put(513, (byte) 0x44);                // CQES: 16-byte entries
        b.putShort(514, (short) p.maxCmd());    // MAXCMD
        b.putInt(516, p.numNamespaces());       // NN
        if (p.controllerType() == CNTRLTYPE_IO) {
            b.putShort(520, (short) ONCS);      // ONCS: Compare, Dataset Management, Write Zeroes, Save/Select
            // VWC: bit 0 present; bits 2:1 = 10b: Flush with NSID FFFFFFFFh is not supported
            b.put(525, (byte) (p.volatileWriteCache() ? 0x05 : 0x04));
        }
        // MNAN: namespaces the subsystem supports (Linux's ANA support requires 0 < MNAN <= NN)
        b.putInt(540, p.controllerType() == CNTRLTYPE_IO ? p.numNamespaces() : 0);
        // SGLS: SGLs supported (bit 0), SGL data block with offset address (bit 20), as Linux requires;
        // over RDMA also Keyed SGL Data Block (bit 2), which the Linux nvme-rdma host insists on.
        b.putInt(536, 1 | (1 << 20) | (p.keyedSgl() ? 1 << 2 : 0));
        nqn(b, 768, 256, p.subnqn());          // SUBNQN
        // NVMe over Fabrics attributes (NVMe-oF 1.1 figure 28).
        b.putInt(1792, (p.ioccszBytes() + 64) / 16); // IOCCSZ in 16-byte units
        b.putInt(1796, 1);                      // IORCSZ: 16 bytes
        b.putShort(1800, (short) 0);            // ICDOFF: Linux requires 0
        b.put(1802, (byte) 0);                  // FCATT: dynamic controller model
        b.put(1803, (byte) 1);                  // MSDBD: one SGL data block descriptor per command
        b.putShort(1804, (short) 0);            // OFCS
        // Power state 0 descriptor (bytes 2048..2079): MP 0 = maximum power not reported (a
        // software target does not know its power draw); the other fields are 0 too.
        return b.array();
    }

    /** Identify Namespace for an active namespace, without ANA reporting. */
    public static byte[] namespace(NvmfNamespace ns, byte[] nguid) {
        return namespace(ns, nguid, 0, false);
    }

    /**
     * Identify Namespace for an active namespace; {@code anagrpid} its ANA group (0 when the
     * subsystem does not report ANA, as the field must then be); {@code ptpl}: its reservations can
     * persist through power loss (a ptpl_file is configured). NSZE, NCAP and NUSE are the size now
     * (a namespace grows with its bdev: {@link NvmfNamespace#grow}).
     */
    public static byte[] namespace(NvmfNamespace ns, byte[] nguid, int anagrpid, boolean ptpl) {
        ByteBuffer b = le(SIZE);
        long blocks = ns.sizeBlocks();
        b.putLong(0, blocks);                   // NSZE
        b.putLong(8, blocks);                   // NCAP
        b.putLong(16, blocks);                  // NUSE
        b.put(24, (byte) 0);                    // NSFEAT
        b.put(25, (byte) 0);                    // NLBAF (0's based): one format
        b.put(26, (byte) 0);                    // FLBAS: format 0, no metadata
        b.put(30, (byte) 0x01);                 // NMIC: may be attached to several controllers at once
        b.put(31, (byte) (RESCAP | (ptpl ? 1 : 0))); // RESCAP
        b.put(33, (byte) 0x01);                 // DLFEAT: deallocated blocks read as zeroes
        b.put(104, (byte) 0);
        b.put(104, nguid, 0, 16);               // NGUID
        b.putInt(92, anagrpid);                 // ANAGRPID
        b.putInt(128, (ns.blockShift() & 0xff) << 16); // LBAF0: MS 0, LBADS, RP 0
        return b.array();
    }

    /** Active namespace id list (CNS 02h): ids greater than {@code after}, ascending, up to 1024. */
    public static byte[] activeNsList(List<StaNamespace> namespaces, int after) {
        ByteBuffer b = le(SIZE);
        int i = 0;
        for (StaNamespace ns : namespaces) {
            if (Integer.compareUnsigned(ns.nsid(), after) > 0 && i < 1024) {
                b.putInt(4 * i++, ns.nsid());
            }
        }
        return b.array();
    }

    /** Namespace identification descriptor list (CNS 03h): NGUID, UUID and CSI (NVM). */
    public static byte[] nsDescriptors(byte[] nguid, byte[] uuid) {
        ByteBuffer b = le(SIZE);
        int o = 0;
        b.put(o, (byte) 2).put(o + 1, (byte) 16);   // NIDT NGUID, NIDL 16
        b.put(o + 4, nguid, 0, 16);
        o += 20;
        b.put(o, (byte) 3).put(o + 1, (byte) 16);   // NIDT UUID
        b.put(o + 4, uuid, 0, 16);
        o += 20;
        b.put(o, (byte) 4).put(o + 1, (byte) 1);    // NIDT CSI: NVM command set (0)
        b.put(o + 4, (byte) 0);
        return b.array();
    }

    /**
     * Error information log (LID 01h): ELPE+1 entries of 64 bytes, newest first; entries beyond the
     * recorded ones are zero (error count 0 = invalid entry).
     */
    public static byte[] errorLog(List<byte[]> newestFirst) {
        byte[] out = new byte[NvmfController.ERROR_LOG_ENTRIES * ERROR_ENTRY_SIZE];
        for (int i = 0; i < newestFirst.size() && i < NvmfController.ERROR_LOG_ENTRIES; i++) {
            System.arraycopy(newestFirst.get(i), 0, out, i * ERROR_ENTRY_SIZE, ERROR_ENTRY_SIZE);
        }
        return out;
    }

    /**
     * SMART / health information (LID 02h, controller scope) with only what a RAM or file target
     * knows: data units read and written (thousands of 512-byte units, rounded up), host read and
     * write commands and the error log entries recorded. Temperature, spare, wear, power-on time
     * and the other counters are unknown to a software target and reported as 0, as the spec allows.
     */
    public static byte[] smartLog(long readBytes, long writeBytes, long reads, long writes, long errorEntries) {
        ByteBuffer b = le(512);
        b.put(0, (byte) 0);                     // critical warning: none
        b.putShort(1, (short) 0);               // composite temperature: 0 = no sensor
        b.putLong(32, ceilDiv(readBytes, 512_000));
        b.putLong(48, ceilDiv(writeBytes, 512_000));
        b.putLong(64, reads);                   // host read commands
        b.putLong(80, writes);                  // host write commands
        b.putLong(176, errorEntries);           // number of error information log entries
        return b.array();
    }

    /**
     * Commands Supported and Effects log (LID 05h): 256 admin then 256 I/O entries of 4 bytes:
     * CSUPP (bit 0) for each command this controller executes, LBCC (bit 1) for those that change
     * logical block content; no namespace/controller capability changes, no submission limits.
     */
    public static byte[] commandsEffectsLog() {
        ByteBuffer b = le(SIZE);
        for (int op : ADMIN_OPCODES) {
            b.putInt(4 * op, 1);
        }
        for (int op : IO_OPCODES) {
            b.putInt(1024 + 4 * op, 1);
        }
        for (int op : IO_LBCC) {
            b.putInt(1024 + 4 * op, 1 | (1 << 1));
        }
        return b.array();
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    /** Firmware slot information (LID 03h): slot 1 active, revision {@link #FIRMWARE}. */
    public static byte[] firmwareLog() {
        ByteBuffer b = le(512);
        b.put(0, (byte) 0x01);                  // AFI: slot 1 active
        ascii(b, 8, 8, FIRMWARE);               // FRS1
        return b.array();
    }

    /** Bytes of the ANA log header and of one group descriptor before its NSID list (Base 2.0 figures 199, 200). */
    public static final int ANA_HEADER_SIZE = 16;
    public static final int ANA_DESCRIPTOR_SIZE = 32;

    /**
     * Asymmetric Namespace Access log (LID 0Ch, Base 2.0 figures 199-200): header (change count,
     * number of descriptors), then per group: ANAGRPID, NNSID, change count, ANA state, the NSIDs
     * (none with {@code rgo}: Return Groups Only).
     */
    public static byte[] anaLog(long changeCount, java.util.SortedMap<Integer, List<Integer>> groups,
                                java.util.Map<Integer, Integer> states, boolean rgo) {
        int size = ANA_HEADER_SIZE;
        for (List<Integer> l : groups.values()) {
            size += ANA_DESCRIPTOR_SIZE + (rgo ? 0 : 4 * l.size());
        }
        ByteBuffer b = le(size);
        b.putLong(0, changeCount);
        b.putShort(8, (short) groups.size());
        int o = ANA_HEADER_SIZE;
        for (var e : groups.entrySet()) {
            List<Integer> nsids = rgo ? List.of() : e.getValue();
            b.putInt(o, e.getKey());
            b.putInt(o + 4, nsids.size());
            b.putLong(o + 8, changeCount);
            b.put(o + 16, (byte) (states.get(e.getKey()) & 0x0f));
            o += ANA_DESCRIPTOR_SIZE;
            for (int nsid : nsids) {
                b.putInt(o, nsid);
                o += 4;
            }
        }
        return b.array();
    }

    /** Changed namespace list (LID 04h): up to 1024 ids; 0xffffffff in entry 0 when more changed. */
    public static byte[] changedNsList(List<Integer> nsids) {
        ByteBuffer b = le(SIZE);
        if (nsids.size() > 1024) {
            b.putInt(0, 0xffffffff);
        } else {
            for (int i = 0; i < nsids.size(); i++) {
                b.putInt(4 * i, nsids.get(i));
            }
        }
        return b.array();
    }
}
