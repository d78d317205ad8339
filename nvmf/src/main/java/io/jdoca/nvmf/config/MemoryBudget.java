package io.jdoca.nvmf.config;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How much memory a RAM namespace may still take: the smaller of what this JVM may still reserve
 * off-heap ({@code -XX:MaxDirectMemorySize} less what is reserved) and what the machine has
 * available ({@code MemAvailable} in /proc/meminfo). A namespace larger than that is refused up
 * front with a clear message, rather than dying later of OutOfMemoryError or the OOM killer
 * (RAM namespaces are zero-filled, so every page is touched at creation).
 *
 * <p>Stateless; safe from any thread.
 */
public final class MemoryBudget {
    private MemoryBudget() {
    }

    /** Bytes a new RAM namespace may take now. */
    public static long available() {
        return Math.min(directAvailable(), machineAvailable());
    }

    static long directAvailable() {
        long max = maxDirect();
        long used = 0;
        for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if ("direct".equals(b.getName())) {
                used = Math.max(0, b.getMemoryUsed());
            }
        }
        return Math.max(0, max - used);
    }

    static long maxDirect() {
        try {
            var hs = ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            long v = Long.parseLong(hs.getVMOption("MaxDirectMemorySize").getValue());
            return v > 0 ? v : Runtime.getRuntime().maxMemory();
        } catch (RuntimeException e) {
            return Runtime.getRuntime().maxMemory();
        }
    }

    static long machineAvailable() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (l.startsWith("MemAvailable:")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024L;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: fall back on the JVM's view
        }
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        return os.getFreeMemorySize();
    }

    /** Throws {@link ConfigException} naming {@code field} when {@code bytes} more cannot be held. */
    public static void check(String field, long bytes) {
        long avail = available();
        if (bytes > avail) {
            throw new ConfigException(field, (bytes >> 20)
                    + " MiB of RAM namespaces is more than this machine can hold now ("
                    + (avail >> 20) + " MiB available to this process)");
        }
    }
}
