package io.jdoca.systemtests.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The TCP sockets a process listens on, read from {@code /proc}: its socket inodes
 * ({@code /proc/PID/fd/* -> socket:[N]}) matched with the LISTEN rows (state 0A) of
 * {@code /proc/net/tcp} and {@code /proc/net/tcp6}. Linux only; for tests.
 */
final class Listeners {
    private Listeners() {
    }

    /** {@code address:port} of every TCP socket {@code pid} listens on (IPv4 dotted, IPv6 in hex groups). */
    static List<String> of(long pid) {
        try {
            return read(pid);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<String> read(long pid) throws IOException {
        Set<String> inodes = new HashSet<>();
        try (var fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String t = Files.readSymbolicLink(fd).toString();
                    if (t.startsWith("socket:[")) {
                        inodes.add(t.substring(8, t.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // the fd went away while listing
                }
            }
        }
        List<String> out = new ArrayList<>();
        for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
            Path p = Path.of(table);
            if (!Files.exists(p)) {
                continue;
            }
            List<String> lines = Files.readAllLines(p);
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 9 && f[3].equals("0A") && inodes.contains(f[9])) {
                    out.add(decode(f[1]));
                }
            }
        }
        return out;
    }

    /**
     * {@code 0100007F:1F90} → {@code 127.0.0.1:8080}; IPv6: four little-endian words, an IPv4-mapped
     * one ({@code ::ffff:127.0.0.1}, Java's dual-stack sockets) shown as its IPv4 address.
     */
    static String decode(String hexAddrPort) {
        String[] ap = hexAddrPort.split(":");
        int port = Integer.parseInt(ap[1], 16);
        String a = ap[0];
        byte[] b = new byte[a.length() / 2];
        for (int w = 0; w < b.length / 4; w++) {
            for (int k = 0; k < 4; k++) {
                b[w * 4 + k] = (byte) Integer.parseInt(a.substring(w * 8 + (3 - k) * 2, w * 8 + (3 - k) * 2 + 2), 16);
            }
        }
        try {
            java.net.InetAddress addr = java.net.InetAddress.getByAddress(b);
            String h = addr.getHostAddress();
            return (addr instanceof java.net.Inet6Address ? "[" + h + "]" : h) + ":" + port;
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(hexAddrPort, e);
        }
    }
}
