package io.jdoca.sta.target.nvmf;

import io.jdoca.sta.StaNamespace;
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
    /** Version 1.3.0, like Linux nvmet (VS property and VER field). */
    public static final int VERSION = 0x00010300;
    public static final String FIRMWARE = "0.1.0";

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
                                   boolean volatileWriteCache) {
    }

    public static byte[] controller(ControllerParams p) {
        ByteBuffer b = le(SIZE);
        b.putShort(0, (short) 0x0000);          // VID
        b.putShort(2, (short) 0x0000);          // SSVID
        ascii(b, 4, 20, p.serial());            // SN
        ascii(b, 24, 40, p.model());            // MN
        ascii(b, 64, 8, FIRMWARE);              // FR
        b.put(72, (byte) 6);                    // RAB
        b.put(76, (byte) 0x0);                  // CMIC
        b.put(77, (byte) p.mdts());             // MDTS (power of two of 4 KiB pages)
        b.putShort(78, (short) p.cntlid());     // CNTLID
        b.putInt(80, VERSION);                  // VER
        b.putInt(92, p.controllerType() == CNTRLTYPE_IO ? (1 << 8) : (1 << 31)); // OAES: ns attribute / discovery log change
        b.put(111, (byte) p.controllerType());  // CNTRLTYPE
        b.putShort(256, (short) 0);             // OACS: no optional admin commands
        b.put(258, (byte) 3);                   // ACL (0's based)
        b.put(259, (byte) 3);                   // AERL (0's based): 4 outstanding AERs
        b.put(260, (byte) 0x03);                // FRMW: slot 1 read-only, 1 slot
        b.put(261, (byte) 0x04);                // LPA: extended data for Get Log Page (NUMDU, LPO)
        b.put(262, (byte) 0);                   // ELPE: 1 error log entry
        b.put(263, (byte) 0);                   // NPSS: 1 power state
        b.putShort(266, (short) 0);             // WCTEMP
        b.putShort(320, (short) p.katoGranularity100ms()); // KAS, 100 ms units
        b.put(512, (byte) 0x66);                // SQES: 64-byte entries
        b.put(513, (byte) 0x44);                // CQES: 16-byte entries
        b.putShort(514, (short) p.maxCmd());    // MAXCMD
        b.putInt(516, p.numNamespaces());       // NN
        if (p.controllerType() == CNTRLTYPE_IO) {
            b.putShort(520, (short) ((1 << 2) | (1 << 3))); // ONCS: Dataset Management, Write Zeroes
            b.put(525, (byte) (p.volatileWriteCache() ? 1 : 0)); // VWC
        }
        b.putInt(540, 0);                       // MNAN
        // SGLS: SGLs supported (bit 0), SGL data block with offset address (bit 20), as Linux requires.
        b.putInt(536, 1 | (1 << 20));
        nqn(b, 768, 256, p.subnqn());          // SUBNQN
        // NVMe over Fabrics attributes (NVMe-oF 1.1 figure 28).
        b.putInt(1792, (p.ioccszBytes() + 64) / 16); // IOCCSZ in 16-byte units
        b.putInt(1796, 1);                      // IORCSZ: 16 bytes
        b.putShort(1800, (short) 0);            // ICDOFF: Linux requires 0
        b.put(1802, (byte) 0);                  // FCATT: dynamic controller model
        b.put(1803, (byte) 0);                  // MSDBD
        b.putShort(1804, (short) 0);            // OFCS
        // Power state 0 descriptor (bytes 2048..2079): max power 25.00 W in 0.01 W units.
        b.putShort(2048, (short) 2500);
        return b.array();
    }

    /** Identify Namespace for an active namespace. */
    public static byte[] namespace(StaNamespace ns, byte[] nguid) {
        ByteBuffer b = le(SIZE);
        long blocks = ns.sizeBlocks();
        b.putLong(0, blocks);                   // NSZE
        b.putLong(8, blocks);                   // NCAP
        b.putLong(16, blocks);                  // NUSE
        b.put(24, (byte) 0);                    // NSFEAT
        b.put(25, (byte) 0);                    // NLBAF (0's based): one format
        b.put(26, (byte) 0);                    // FLBAS: format 0, no metadata
        b.put(33, (byte) 0x01);                 // DLFEAT: deallocated blocks read as zeroes
        b.put(104, (byte) 0);
        b.put(104, nguid, 0, 16);               // NGUID
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

    /** Error information log (LID 01h): one empty entry of 64 bytes. */
    public static byte[] errorLog() {
        return new byte[64];
    }

    /** SMART / health information (LID 02h). Data units are thousands of 512-byte units. */
    public static byte[] smartLog(long readBytes, long writeBytes, long reads, long writes) {
        ByteBuffer b = le(512);
        b.put(0, (byte) 0);                     // critical warning
        b.putShort(1, (short) 313);             // composite temperature, kelvin
        b.put(3, (byte) 100);                   // available spare %
        b.put(4, (byte) 10);                    // available spare threshold
        b.put(5, (byte) 0);                     // percentage used
        b.putLong(32, ceilDiv(readBytes, 512_000));
        b.putLong(48, ceilDiv(writeBytes, 512_000));
        b.putLong(64, reads);
        b.putLong(80, writes);
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
