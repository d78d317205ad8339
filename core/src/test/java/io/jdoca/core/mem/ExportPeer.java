package io.jdoca.core.mem;

import io.jdoca.core.dev.Devices;
import io.jdoca.core.sync.SyncEvent;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;

/** The other process of the export/import tests: imports a blob given in hex and acts on it. */
public final class ExportPeer {
    private ExportPeer() {
    }

    public static void main(String[] args) {
        byte[] blob = HexFormat.of().parseHex(args[1]);
        switch (args[0]) {
            case "mmap-write" -> {
                MemoryMap m = MemoryMap.createFromExport(blob, Devices.open("sw1"));
                MemorySegment s = m.segment();
                long n = Long.parseLong(args[2]);
                for (long i = 0; i < n; i++) {
                    s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 3));
                }
                System.out.println("base=" + Long.toHexString(m.baseAddress()) + " len=" + m.length());
                System.out.println("DONE");
            }
            case "sync-wait" -> {
                SyncEvent e = SyncEvent.createFromExport(Devices.open("sw1"), blob);
                if (!e.waitGt(41, TimeUnit.SECONDS.toNanos(20))) {
                    System.out.println("TIMEOUT value=" + e.get());
                    System.exit(3);
                }
                long before = e.updateAdd(100);
                System.out.println("saw " + before);
                System.out.println("DONE");
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
        System.out.flush();
    }
}
