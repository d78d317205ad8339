package io.jdoca.nvmf.perf;

import io.jdoca.sta.nvme.FabricsConnectCommand;
import io.jdoca.sta.nvme.NvmeStatus;
import java.util.Locale;
import java.util.Map;

/**
 * NVMe completion statuses by name, for nvme-perf's one-line errors: "Connect Invalid Parameters (subnqn)"
 * rather than "status 0x8304". The names are the NVMe Base 2.0 (figures 97-101) and NVMe-oF 1.1
 * (figure 18) ones; the values are core STA's {@link NvmeStatus} (the 16-bit CQE status field, phase 0).
 *
 * <p>Stateless; any thread.
 */
final class PerfStatus {
    private PerfStatus() {
    }

    private static final Map<Integer, String> GENERIC = Map.ofEntries(
            Map.entry(0x00, "Successful Completion"), Map.entry(0x01, "Invalid Command Opcode"),
            Map.entry(0x02, "Invalid Field in Command"), Map.entry(0x03, "Command ID Conflict"),
            Map.entry(0x04, "Data Transfer Error"), Map.entry(0x06, "Internal Error"),
            Map.entry(0x07, "Command Abort Requested"), Map.entry(0x08, "Command Aborted due to SQ Deletion"),
            Map.entry(0x0b, "Invalid Namespace or Format"), Map.entry(0x0c, "Command Sequence Error"),
            Map.entry(0x0f, "Data SGL Length Invalid"), Map.entry(0x11, "SGL Descriptor Type Invalid"),
            Map.entry(0x21, "Command Interrupted"), Map.entry(0x22, "Transient Transport Error"),
            Map.entry(0x80, "LBA Out of Range"), Map.entry(0x81, "Capacity Exceeded"),
            Map.entry(0x82, "Namespace Not Ready"));
    private static final Map<Integer, String> COMMAND_SPECIFIC = Map.ofEntries(
            Map.entry(0x01, "Invalid Queue Identifier"), Map.entry(0x02, "Invalid Queue Size"),
            Map.entry(0x05, "Asynchronous Event Request Limit Exceeded"), Map.entry(0x09, "Invalid Log Page"),
            Map.entry(0x0d, "Feature Identifier Not Saveable"), Map.entry(0x0e, "Feature Not Changeable"),
            Map.entry(0x80, "Connect Incompatible Format"), Map.entry(0x81, "Connect Controller Busy"),
            Map.entry(0x82, "Connect Invalid Parameters"), Map.entry(0x83, "Connect Restart Discovery"),
            Map.entry(0x84, "Connect Invalid Host"));
    private static final Map<Integer, String> MEDIA = Map.of(0x80, "Write Fault", 0x81, "Unrecovered Read Error",
            0x85, "Compare Failure", 0x86, "Access Denied");

    /** The status's name with its type and code, e.g. "LBA Out of Range (SCT 0h, SC 80h)". */
    static String name(int status) {
        int sct = NvmeStatus.sct(status);
        int sc = NvmeStatus.sc(status);
        String n = switch (sct) {
            case NvmeStatus.SCT_GENERIC -> GENERIC.get(sc);
            case NvmeStatus.SCT_COMMAND_SPECIFIC -> COMMAND_SPECIFIC.get(sc);
            case NvmeStatus.SCT_MEDIA -> MEDIA.get(sc);
            default -> null;
        };
        return String.format(Locale.ROOT, "%s (SCT %xh, SC %02xh)", n == null ? "Unknown Status" : n, sct, sc);
    }

    /**
     * A failed Fabrics Connect: its status by name, and for Connect Invalid Parameters the field the target
     * named (IATTR/IPO in the completion's dword 0: NVMe-oF 1.1 figure 21) and what that usually means.
     */
    static String connect(int status, int dw0) {
        StringBuilder b = new StringBuilder(name(status));
        if (NvmeStatus.sct(status) == NvmeStatus.SCT_COMMAND_SPECIFIC && NvmeStatus.sc(status) == 0x82) {
            boolean data = (dw0 & (1 << 16)) != 0;
            int off = dw0 & 0xffff;
            String field = data ? switch (off) {
                case FabricsConnectCommand.DATA_OFF_SUBNQN -> "subnqn: the target has no such subsystem";
                case FabricsConnectCommand.DATA_OFF_HOSTNQN -> "hostnqn";
                case FabricsConnectCommand.DATA_OFF_CNTLID -> "cntlid";
                case FabricsConnectCommand.DATA_OFF_HOSTID -> "hostid";
                default -> "Connect data byte " + off;
            } : switch (off) {
                case FabricsConnectCommand.OFF_QID -> "qid: more queues than the target grants";
                case FabricsConnectCommand.OFF_SQSIZE -> "sqsize: a queue larger than the target allows";
                case FabricsConnectCommand.OFF_KATO -> "kato";
                default -> "Connect command byte " + off;
            };
            b.append(": ").append(field);
        } else if (NvmeStatus.sct(status) == NvmeStatus.SCT_COMMAND_SPECIFIC && NvmeStatus.sc(status) == 0x84) {
            b.append(": this hostnqn is not allowed on the subsystem");
        }
        return b.toString();
    }
}
