package io.jdoca.nvmf.perf;

import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * Every flag of SPDK's {@code spdk_nvme_perf} (app/spdk_nvme_perf/perf.c: {@code PERF_GETOPT_SHORT} and
 * {@code g_perf_cmdline_opts}) and what {@code nvme-perf} does with it: the same as SPDK, the same with a
 * stated difference, or refused with one line that says why. The refused ones are registered as hidden
 * options ({@link #addRefused}) so that picocli parses them as SPDK would (with or without a value) and
 * {@link #refusal} names the first one given; docs/SPDK-USERS.md's table is checked against {@link #ALL}.
 *
 * <p>Immutable; any thread.
 */
final class PerfFlags {
    private PerfFlags() {
    }

    /** What nvme-perf does with an spdk_nvme_perf flag. */
    enum Status {
        /** The flag means what SPDK means. */
        SAME("same"),
        /** It means what SPDK means; the note says what differs (a default, a unit, a scope). */
        DIFFERS("same, with a difference"),
        /** Refused with one line (exit 2): the note says why. */
        REFUSED("refused");

        final String doc;

        Status(String doc) {
            this.doc = doc;
        }
    }

    /** One spdk_nvme_perf flag: short name (null if long only), long name, whether it takes a value, status, note. */
    record Flag(String shortName, String longName, boolean arg, Status status, String note) {
        /** "-q, --io-depth" or "--io-queue-size": how docs/SPDK-USERS.md's table names it. */
        String names() {
            return shortName == null ? longName : shortName + ", " + longName;
        }
    }

    private static final String PCIE = "a PCIe/DPDK option: nvme-perf connects to NVMe/TCP and NVMe/RDMA targets only "
            + "(-r trtype:TCP or trtype:RDMA) and allocates its memory itself";
    private static final String SOCK = "an SPDK socket-layer option: nvme-perf uses the JDK's sockets";
    private static final String TLS = "TLS is TLS 1.3 in the JVM (BouncyCastle), never the kernel's";
    private static final String AUTH = "DH-HMAC-CHAP authentication is not supported";

    private static Flag same(String s, String l, boolean arg, String note) {
        return new Flag(s, l, arg, Status.SAME, note);
    }

    private static Flag differs(String s, String l, boolean arg, String note) {
        return new Flag(s, l, arg, Status.DIFFERS, note);
    }

    private static Flag refused(String s, String l, boolean arg, String note) {
        return new Flag(s, l, arg, Status.REFUSED, note);
    }

    /** Every spdk_nvme_perf flag, in perf.c's order. */
    static final List<Flag> ALL = List.of(
            differs("-a", "--warmup-time", true, "seconds of warm-up before measuring; default 1 (SPDK: 0); "
                    + "fractions allowed; also --warmup"),
            refused("-b", "--allowed-pci-addr", true, PCIE),
            same("-c", "--core-mask", true, "pins the queue threads to the CPUs of the mask (e.g. 0x3 or [0,1])"),
            refused("-e", "--metadata", true, "end-to-end protection (PRACT/PRCHK) is not supported: no metadata"),
            refused("-g", "--mem-single-seg", false, PCIE),
            same("-h", "--help", false, "the usage"),
            refused("-i", "--shmem-grp-id", true, PCIE),
            refused("-l", "--enable-ssd-latency-tracking", false, "a vendor (Intel) log page of local SSDs; -L "
                    + "tracks latency in software"),
            differs("-m", "--cpu-usage", false, "each queue thread's CPU use over its run, warm-up included (thread "
                    + "CPU time, not TSC busy/idle polls), printed at the end"),
            same("-o", "--io-size", true, "bytes, with SPDK's units (4k, 128K, 1M)"),
            same("-q", "--io-depth", true, "outstanding I/Os per queue, with SPDK's units; also --queue-depth"),
            differs("-r", "--transport", true, "repeatable: every trid's namespaces run at once; a trid without "
                    + "subnqn is a discovery service: every NVM subsystem its log lists at the same traddr is used (an "
                    + "entry naming another address is skipped with a line); without ns: every active namespace; "
                    + "trtype TCP or RDMA; also --transport-id"),
            same("-k", "--keepalive", true, "keep-alive timeout in ms (default 10000) sent at Connect; Keep Alive "
                    + "commands go out every half of it"),
            refused("-s", "--hugemem-size", true, PCIE),
            differs("-t", "--time", true, "seconds to measure; default 10 (SPDK: required); fractions allowed"),
            differs("-d", "--number-ios", true, "I/Os per namespace (or N% of its size) spread over its -P queues, "
                    + "then the run ends (or at -t); with -a refused as in SPDK"),
            same("-w", "--io-pattern", true, "read, write, randread, randwrite, rw, randrw; also --workload"),
            refused("-z", "--disable-zcopy", true, SOCK),
            refused("-A", "--buffer-alignment", true, "buffers are page-aligned; no other alignment is offered"),
            refused("-C", "--max-completion-per-poll", true, "a queue reaps every completion that arrived"),
            refused("-D", "--disable-sq-cmb", false, PCIE),
            refused("-E", "--enable-interrupt", false, PCIE + " (--idle sleep waits in the socket instead)"),
            refused("-F", "--zipf", true, "only the uniform random distribution is offered"),
            refused("-G", "--enable-debug", false, "an SPDK debug-build option (--log-level debug instead)"),
            same("-H", "--enable-tcp-hdgst", false, "NVMe/TCP header digest (CRC32C); also --hdr-digest"),
            same("-I", "--enable-tcp-ddgst", false, "NVMe/TCP data digest (CRC32C); also --data-digest"),
            same("-L", "--enable-sw-latency-tracking", false, "-L latency percentiles, -LL also a histogram"),
            same("-M", "--rwmixread", true, "read percentage of rw and randrw"),
            refused("-N", "--no-shst-notification", false, PCIE),
            refused("-O", "--io-unit-size", true, "I/Os are not split into units"),
            same("-P", "--num-qpairs", true, "I/O queue pairs per namespace, one thread each; also --queues"),
            differs("-Q", "--continue-on-error", true, "I/O errors do not make the exit status 1; every Nth is "
                    + "printed (without -Q: the first 5 are printed, the exit status is 1)"),
            refused("-R", "--enable-uring", false, SOCK),
            differs("-S", "--default-sock-impl", true, "posix or ssl only: ssl is NVMe/TCP over TLS 1.3 with "
                    + "--psk-path"),
            refused("-T", "--logflag", true, "SPDK's per-component log flags (--log-level debug instead)"),
            refused("-U", "--num-unused-qpairs", true, "no unused queue pairs are created"),
            refused("-V", "--enable-vmd", false, PCIE),
            refused("-Z", "--enable-zcopy", true, SOCK),
            refused("-y", "--tpoint-group-mask", true, "SPDK's trace points are not supported"),
            refused(null, "--transport-stats", false, "per-transport poll statistics are not kept"),
            refused(null, "--iova-mode", true, PCIE),
            differs(null, "--io-queue-size", true, "I/O submission queue entries asked at Connect (default -q + 1, at "
                    + "least 32; SPDK: the largest the target allows); -q must stay below it (SPDK queues the excess)"),
            refused(null, "--disable-ktls", false, TLS),
            refused(null, "--enable-ktls", false, TLS),
            refused(null, "--tls-version", true, TLS),
            same(null, "--psk-path", true, "the PSK in the interchange format (NVMeTLSkey-1:...), a 0600 file; "
                    + "implies -S ssl"),
            refused(null, "--psk-identity", true, "the identity is derived from the NQNs (NVMe0R0x hostnqn subnqn)"),
            refused(null, "--zerocopy-threshold", true, SOCK),
            refused(null, "--zerocopy-threshold-sock-impl", true, SOCK),
            refused(null, "--transport-tos", true, SOCK),
            refused(null, "--rdma-srq-size", true, "the NVMe/RDMA host has no shared receive queue"),
            refused(null, "--use-every-core", false, "each namespace has its own -P queue threads"),
            refused(null, "--no-huge", false, PCIE),
            refused(null, "--dhchap-key", true, AUTH),
            refused(null, "--dhchap-ctrlr-key", true, AUTH),
            refused(null, "--vfio-vf-token", true, PCIE),
            differs(null, "--log-level", true, "error, warning, notice, info, debug as SPDK, or a DOCA level "
                    + "10..70; default warning"),
            refused(null, "--enforce-numa", false, PCIE),
            refused(null, "--env-context", true, PCIE),
            same("-v", "--help-full", false, "the usage with every spdk_nvme_perf flag and its status"));

    /** Adds every refused flag to {@code spec} as a hidden option, so it parses (value or not) as in SPDK. */
    static void addRefused(CommandSpec spec) {
        for (Flag f : ALL) {
            if (f.status() == Status.REFUSED) {
                String[] names = f.shortName() == null ? new String[] {f.longName()}
                        : new String[] {f.shortName(), f.longName()};
                spec.addOption(OptionSpec.builder(names).hidden(true).arity(f.arg() ? "1" : "0")
                        .type(f.arg() ? String.class : boolean.class).description(f.note()).build());
            }
        }
    }

    /** One line for the first refused flag on the command line, or null when none was given. */
    static String refusal(ParseResult pr) {
        for (Flag f : ALL) {
            if (f.status() == Status.REFUSED && pr.hasMatchedOption(f.longName())) {
                return f.names().replace(", ", " (") + (f.shortName() == null ? "" : ")") + ": not supported: "
                        + f.note();
            }
        }
        return null;
    }

    /** The -v (--help-full) table: every spdk_nvme_perf flag, its status and note. */
    static String table() {
        StringBuilder b = new StringBuilder("spdk_nvme_perf's flags in nvme-perf:\n");
        for (Flag f : ALL) {
            b.append(String.format(Locale.ROOT, "  %-36s %-24s %s%n", f.names() + (f.arg() ? " <v>" : ""),
                    f.status().doc, f.note()));
        }
        return b.toString();
    }

    /**
     * A size as SPDK's {@code spdk_parse_capacity} reads it: a decimal count with an optional binary unit
     * k/K, m/M or g/G (4k = 4096), here also 4KiB/4kB; IllegalArgumentException naming {@code flag}.
     */
    static long size(String flag, String v) {
        String s = v.trim();
        int i = 0;
        while (i < s.length() && Character.isDigit(s.charAt(i))) {
            i++;
        }
        if (i == 0 || i > 18) {
            throw new IllegalArgumentException(flag + " must be a size such as 4096, 4k or 1M (got '" + v + "')");
        }
        long n = Long.parseLong(s.substring(0, i));
        String unit = s.substring(i).toLowerCase(Locale.ROOT);
        int shift = switch (unit) {
            case "" , "b" -> 0;
            case "k", "kb", "kib" -> 10;
            case "m", "mb", "mib" -> 20;
            case "g", "gb", "gib" -> 30;
            default -> throw new IllegalArgumentException(flag + ": unknown unit '" + s.substring(i) + "' in '" + v
                    + "' (k, m or g: powers of 1024, as SPDK)");
        };
        if (n > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException(flag + ": " + v + " is too large");
        }
        return n << shift;
    }
}
