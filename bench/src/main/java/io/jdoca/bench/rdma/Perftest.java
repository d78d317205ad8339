package io.jdoca.bench.rdma;

import io.jdoca.bench.Measure;
import java.io.File;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The perftest baseline of {@code ./jdoca bench rdma -d DEV}: runs an rdma-core perftest tool
 * ({@code ib_write_bw}, {@code ib_read_lat}) as server and client on one device (connection setup
 * through rdma_cm, {@code -R}, the client to the device's own address) and parses its result table.
 * Control path only; one caller thread.
 *
 * <p>The result table perftest 4.x prints (client side) is a header line starting with {@code #bytes}
 * whose column names carry their unit in brackets ({@code BW average[MB/sec]}, {@code t_typical[usec]},
 * {@code 99% percentile[usec]}), followed by one line of numbers. perftest's "MB" is 2^20 bytes
 * ({@code format_factor = 0x100000} in its bandwidth report), so its MB/sec is MiB/s.
 */
public final class Perftest {
    /** A column name: {@code #bytes}, {@code #iterations}, or any text up to and including a {@code [unit]}. */
    private static final Pattern COLUMN = Pattern.compile("#\\S+|[^#\\s][^\\[\\]]*\\[[^\\]]*\\]");

    private Perftest() {
    }

    /** Output perftest could not be parsed from: the message names the tool and what is wrong. */
    public static final class FormatException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        FormatException(String msg) {
            super(msg);
        }
    }

    /**
     * Parses the result table of a perftest run: column name → value, in the header's order
     * (e.g. {@code "BW average[MB/sec]" -> 31.7}). Throws {@link FormatException} naming {@code tool}
     * when there is no {@code #bytes} header, the header has a part that is no column, or the line
     * after it does not hold one number per column.
     */
    public static Map<String, Double> parse(String tool, String output) {
        String[] lines = output.split("\\R");
        int h = -1;
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].trim().startsWith("#bytes")) {
                h = i;
            }
        }
        if (h < 0) {
            throw new FormatException(tool + ": no result table (no '#bytes' header line) in its output: "
                    + firstLine(output));
        }
        String header = lines[h].trim();
        List<String> cols = new ArrayList<>();
        Matcher m = COLUMN.matcher(header);
        int end = 0;
        while (m.find()) {
            if (!header.substring(end, m.start()).isBlank()) {
                throw new FormatException(tool + ": result header has text that is no column: '" + header + "'");
            }
            cols.add(m.group().trim());
            end = m.end();
        }
        if (!header.substring(end).isBlank() || cols.size() < 2) {
            throw new FormatException(tool + ": result header has text that is no column: '" + header + "'");
        }
        String data = null;
        for (int i = h + 1; i < lines.length && data == null; i++) {
            String t = lines[i].trim();
            if (!t.isEmpty()) {
                data = t;
            }
        }
        if (data == null) {
            throw new FormatException(tool + ": result header without a result line");
        }
        String[] f = data.split("\\s+");
        if (f.length != cols.size()) {
            throw new FormatException(tool + ": result line has " + f.length + " fields, its header " + cols.size()
                    + " columns: '" + data + "'");
        }
        Map<String, Double> out = new LinkedHashMap<>();
        for (int i = 0; i < f.length; i++) {
            try {
                out.put(cols.get(i), number(f[i]));
            } catch (NumberFormatException e) {
                throw new FormatException(tool + ": result column '" + cols.get(i) + "' is not a number: '" + f[i]
                        + "'");
            }
        }
        return out;
    }

    /**
     * A number as perftest prints it: C's {@code printf("%.2f")}, which writes {@code nan} / {@code -nan} /
     * {@code inf} for a figure it could not compute (ib_read_lat's t_stdev under TCG was {@code -nan}).
     */
    private static double number(String s) {
        return switch (s.toLowerCase(java.util.Locale.ROOT)) {
            case "nan", "-nan", "+nan" -> Double.NaN;
            case "inf", "+inf" -> Double.POSITIVE_INFINITY;
            case "-inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(s);
        };
    }

    /**
     * The value of column {@code name} of a parsed table; {@link FormatException} naming the tool when absent
     * or not a finite number (perftest's nan / inf).
     */
    public static double column(String tool, Map<String, Double> table, String name) {
        Double v = table.get(name);
        if (v == null) {
            throw new FormatException(tool + ": no column '" + name + "' in its result table " + table.keySet());
        }
        if (!Double.isFinite(v)) {
            throw new FormatException(tool + ": column '" + name + "' has no figure (" + v + ")");
        }
        return v;
    }

    private static String firstLine(String s) {
        String t = s.strip();
        if (t.isEmpty()) {
            return "(empty)";
        }
        int nl = t.indexOf('\n');
        return "'" + (nl < 0 ? t : t.substring(0, nl).strip()) + "'";
    }

    /** The first {@code cpu MHz} of /proc/cpuinfo (the kernel's CPU frequency), or 0 when there is none. */
    static double cpuMhz() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (l.startsWith("cpu MHz")) {
                    return Double.parseDouble(l.substring(l.indexOf(':') + 1).trim());
                }
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }

    // ------------------------------------------------------------------ running

    /** The executable {@code tool} on PATH, or null. */
    static Path which(String tool) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String d : path.split(File.pathSeparator)) {
            if (d.isEmpty()) {
                continue;
            }
            Path p = Path.of(d, tool);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /**
     * The first IPv4 address of the device's network interface (its RoCE GID; 10.0.2.15 for rxe0 in the
     * guest), or null when it has none. The perftest client connects there: an address of this machine.
     */
    static InetAddress deviceAddress(String iface) throws IOException {
        if (iface == null || iface.isEmpty()) {
            return null;
        }
        java.net.NetworkInterface ni = java.net.NetworkInterface.getByName(iface);
        if (ni == null) {
            return null;
        }
        for (InetAddress a : java.util.Collections.list(ni.getInetAddresses())) {
            if (a instanceof Inet4Address && !a.isAnyLocalAddress()) {
                return a;
            }
        }
        return null;
    }

    /**
     * Runs {@code tool} as server, waits until its rdma_cm listener is up, runs it as client against
     * {@code addr} and returns the client's output (both exit 0), or throws with the outputs' tails.
     * {@code args} are the arguments both sides share; each process is bounded by {@code timeoutSeconds}.
     */
    static String runPair(String tool, List<String> args, int port, InetAddress addr, long timeoutSeconds)
            throws IOException, InterruptedException {
        List<String> server = new ArrayList<>();
        server.add(tool);
        server.addAll(args);
        server.add("-p");
        server.add(Integer.toString(port));
        List<String> client = new ArrayList<>(server);
        client.add(addr.getHostAddress());
        Path so = Files.createTempFile("jdoca-perftest-server", ".txt");
        Path co = Files.createTempFile("jdoca-perftest-client", ".txt");
        Process s = null;
        Process c = null;
        try {
            Measure.progress(String.join(" ", server) + " &");
            s = new ProcessBuilder(server).redirectErrorStream(true).redirectOutput(so.toFile()).start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
            boolean canSee = which("rdma") != null;
            if (canSee) {
                waitForListener(s, port, deadline, so);
            }
            Measure.progress(String.join(" ", client));
            int crc;
            // Without the rdma tool the listener cannot be seen: a client refused because the server was not
            // listening yet (rdma_cm reject, exit 1 at once) is retried while the server runs, until the deadline.
            while (true) {
                c = new ProcessBuilder(client).redirectErrorStream(true).redirectOutput(co.toFile()).start();
                if (!c.waitFor(Math.max(1, TimeUnit.NANOSECONDS.toSeconds(deadline - System.nanoTime())),
                        TimeUnit.SECONDS)) {
                    throw new IOException(tool + " client did not finish within " + timeoutSeconds + " s; output: "
                            + tail(co));
                }
                crc = c.exitValue();
                if (crc == 0 || canSee || !s.isAlive() || System.nanoTime() > deadline) {
                    break;
                }
                Thread.sleep(200); // retry pacing for an invisible listener, not synchronisation: the loop re-checks
            }
            if (!s.waitFor(Math.max(1, TimeUnit.NANOSECONDS.toSeconds(deadline - System.nanoTime())),
                    TimeUnit.SECONDS)) {
                throw new IOException(tool + " server did not finish within " + timeoutSeconds + " s; output: "
                        + tail(so));
            }
            String out = Files.readString(co, StandardCharsets.UTF_8);
            if (crc != 0 || s.exitValue() != 0) {
                throw new IOException(tool + " failed (client exit " + crc + ", server exit " + s.exitValue()
                        + "); client: " + tail(co) + " server: " + tail(so));
            }
            System.err.println("---- " + tool + " client output");
            System.err.print(out);
            System.err.println("---- end of " + tool + " client output");
            return out;
        } finally {
            for (Process p : new Process[] {c, s}) {
                if (p != null && p.isAlive()) {
                    p.destroyForcibly();
                    p.waitFor(10, TimeUnit.SECONDS);
                }
            }
            Files.deleteIfExists(so);
            Files.deleteIfExists(co);
        }
    }

    /** Polls {@code rdma resource show cm_id} until a LISTEN entry on {@code port} shows (or the server exits). */
    private static void waitForListener(Process server, int port, long deadline, Path serverOut)
            throws IOException, InterruptedException {
        Pattern listen = Pattern.compile("LISTEN.*:" + port + "(\\s|$)");
        while (true) {
            Process p = new ProcessBuilder("rdma", "resource", "show", "cm_id").redirectErrorStream(true).start();
            String o = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(30, TimeUnit.SECONDS);
            for (String l : o.split("\\R")) {
                if (listen.matcher(l).find()) {
                    return;
                }
            }
            if (!server.isAlive()) {
                throw new IOException("perftest server exited (" + server.exitValue() + ") before listening: "
                        + tail(serverOut));
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("perftest server not listening on port " + port + " in time: " + tail(serverOut));
            }
            Thread.sleep(100); // poll period of the condition above
        }
    }

    private static String tail(Path f) throws IOException {
        String s = Files.readString(f, StandardCharsets.UTF_8).strip();
        return s.isEmpty() ? "(none)" : "'" + (s.length() > 600 ? "..." + s.substring(s.length() - 600) : s) + "'";
    }
}
