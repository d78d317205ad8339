package io.jdoca.cli;

import io.jdoca.argp.HelpVersionFlags;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./jdoca demo}: the README's main job. Default mode {@code gga}: three targets, the
 * erasure-coding + LZ4 gateway and the initiator on loopback. {@code zero-copy}: one target, the
 * zero-copy relay and the initiator. {@code dma}: the DMA sample through the progress engine.
 * A mode whose apps are not in this build says so and runs the DMA sample instead.
 */
@Command(name = "demo",
        description = {"Runs the storage pipeline on loopback with defaults and prints the stats tables.",
            "Modes: gga (default: 3 targets + EC/LZ4 gateway + initiator), zero-copy (target + relay + initiator),",
            "dma (DMA copy through the progress engine).",
            "",
            "By hand, each piece is its own app: ./jdoca target-rdma --help, ./jdoca gga-offload --help,",
            "./jdoca zero-copy --help, ./jdoca initiator-comch --help, ./jdoca sbc-generator --help "
                    + "(docs/STORAGE.md)."})
public final class DemoCommand implements Callable<Integer> {
    /** -h/--help and -v/--version (the one version line of every app). */
    @Mixin
    HelpVersionFlags helpVersion;

    @Option(names = "--mode", defaultValue = "gga", description = "gga | zero-copy | dma (default: ${DEFAULT-VALUE})")
    String mode;

    @Option(names = {"-d", "--device"}, defaultValue = "sw0", description = {"RDMA device of the targets and of"
        + " gga-offload or the zero-copy relay (default: ${DEFAULT-VALUE}); an RDMA device (-d rxe0, -d mlx5_0 from"
        + " ./jdoca devices) moves their RDMA to verbs, Comch and DMA stay on shared memory"})
    String device;

    @Option(names = {"-g", "--gid-index"}, defaultValue = "-1", paramLabel = "N", description = {"GID index of the"
        + " RDMA contexts of the apps that get -d, passed on to them as -g (default ${DEFAULT-VALUE}: the device's; a"
        + " software device ignores it)"})
    int gidIndex;

    @Option(names = "--quick", description = "zero-copy mode: one data-validity run over 256 blocks, no throughput run"
        + " (slow or emulated machines)")
    boolean quick;

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        String cls = switch (mode) {
            case "gga" -> "io.jdoca.gga.demo.GgaDemo";
            case "zero-copy" -> "io.jdoca.storage.demo.ZeroCopyDemo";
            case "dma" -> null;
            default -> {
                System.err.println("demo: unknown --mode '" + mode + "' (gga, zero-copy, dma)");
                yield "";
            }
        };
        if ("".equals(cls)) {
            return 2;
        }
        if (!"sw0".equals(device) && "dma".equals(mode)) {
            System.err.println("demo: -d " + device + " is for --mode gga and zero-copy (the DMA sample runs on sw0)");
            return 2;
        }
        if (quick && !"zero-copy".equals(mode)) {
            System.err.println("demo: --quick is for --mode zero-copy");
            return 2;
        }
        if (gidIndex != -1 && cls == null) {
            System.err.println("demo: -g is for --mode gga and zero-copy (the DMA sample has no RDMA)");
            return 2;
        }
        if (gidIndex != -1) {
            // The pipelines check the value themselves (one line, exit 2) before any child starts.
            boolean zeroCopy = "zero-copy".equals(mode);
            Method run = zeroCopy ? find(cls, String.class, boolean.class, int.class)
                    : find(cls, String.class, int.class);
            if (run == null) {
                out.println("demo: the '" + mode + "' pipeline is not in this build yet (see docs/FEATURES.md)");
                return 1;
            }
            return (Integer) (zeroCopy ? run.invoke(null, out, device, quick, gidIndex)
                    : run.invoke(null, out, device, gidIndex));
        }
        if (quick && cls != null) {
            Method run = find(cls, String.class, boolean.class);
            if (run == null) {
                out.println("demo: the '" + mode + "' pipeline is not in this build yet (see docs/FEATURES.md)");
                return 1;
            }
            return (Integer) run.invoke(null, out, device, true);
        }
        if (cls != null) {
            Method run = find(cls, String.class);
            if (run != null) {
                return (Integer) run.invoke(null, out, device);
            }
            run = find(cls);
            if (run != null) {
                return (Integer) run.invoke(null, out);
            }
            out.println("demo: the '" + mode + "' pipeline is not in this build yet (see docs/FEATURES.md);");
            out.println("      running what exists instead: a DMA copy of host memory through the progress engine.");
        }
        return DmaCopyCommand.run(out, 256L << 20, 64 << 10, 32, "sw0");
    }

    /** {@code cls.run(PrintStream, params...)}, or null when the class or method is not in this build. */
    private static Method find(String cls, Class<?>... params) {
        Class<?>[] all = new Class<?>[params.length + 1];
        all[0] = PrintStream.class;
        System.arraycopy(params, 0, all, 1, params.length);
        try {
            return Class.forName(cls).getMethod("run", all);
        } catch (ReflectiveOperationException | LinkageError e) {
            return null;
        }
    }
}
