package io.jdoca.nvmf.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import io.jdoca.core.DocaException;
import io.jdoca.nvmf.bdev.Bdev;
import io.jdoca.nvmf.bdev.BdevModule;
import io.jdoca.nvmf.bdev.BdevModules;
import io.jdoca.nvmf.bdev.SpdkHistogram;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.JsonParams;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.nvmf.tgt.NvmfTargetOps;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * SPDK's bdev methods ({@code lib/bdev/bdev_rpc.c} and each module's {@code bdev_*_rpc.c}):
 * {@code bdev_<module>_create} and {@code bdev_<module>_delete} for every module of
 * {@link BdevModules} (malloc, null, aio; rbd's create is
 * {@link RbdRpcs}'), {@code bdev_get_bdevs}, {@code bdev_get_iostat},
 * {@code bdev_wait_for_examine}, {@code bdev_reset_iostat}, {@code bdev_enable_histogram} and
 * {@code bdev_get_histogram} (SPDK's histogram layout, of reads and writes: the I/O jdoca times),
 * {@code bdev_null_resize} (grows the bdev and the namespace on it; its hosts are told),
 * with SPDK's parameter names, result shapes and errno codes. {@code bdev_set_qos_limit} is
 * refused unless every limit is 0: jdoca has no rate limiter.
 *
 * <p>Threads: handlers on the RPC client's thread; each target call is a {@code sta-main} command.
 */
final class BdevRpcs implements RpcRegistry.Family {
    private final Supplier<NvmfTarget> target;

    BdevRpcs(Supplier<NvmfTarget> target) {
        this.target = target;
    }

    /** bdev_null_resize's params: new_size in MiB. */
    private record Resize(String name, long newSizeMb) {
    }

    /**
     * SPDK's {@code bdev_null_resize} (new_size in MiB; a smaller size is -22, as SPDK): the null
     * back-end grows at once, then the bdev and the namespace exposing it, whose hosts get the
     * Namespace Attribute Changed event ({@link NvmfTargetOps#bdevGrown}, the seam every growable
     * bdev uses). One {@code sta-main} command.
     */
    private Object nullResize(Resize r) {
        NvmfTarget t = target.get();
        long bytes = r.newSizeMb() << 20;
        return t.query("bdev_null_resize", () -> {
            Bdev d = t.bdev(r.name());
            if (d == null || !d.module().name().equals("null")) {
                throw new RpcError(-19, "No such device: no null bdev " + r.name());
            }
            long cur = d.numBlocks() * d.blockSize();
            if (bytes < cur) {
                throw new RpcError(-22, "Invalid argument: new_size " + r.newSizeMb() + " MiB is below bdev "
                        + r.name() + "'s " + (cur >> 20) + " MiB (a null bdev only grows)");
            }
            d.backend().grow(bytes);
            NvmfTargetOps.bdevGrown(t, d);
            return true;
        });
    }

    /** A bdev name (get, iostat, delete). */
    private record Name(String name) {
    }

    @Override
    public void registerWith(RpcRegistry r) {
        for (BdevModule m : BdevModules.all()) {
            if (!m.ownCreateRpc()) {
                r.register("bdev_" + m.name() + "_create", m::parseCreate,
                        spec -> bdevCall(() -> target.get().createBdev(m, spec).name()));
            }
            r.register("bdev_" + m.name() + "_delete", BdevRpcs::name, n -> bdevCall(() -> {
                target.get().deleteBdev(m.name(), n.name());
                return true;
            }));
        }
        r.register("bdev_null_resize", p -> {
            JsonParams a = new JsonParams(p, "", "name", "new_size");
            return new Resize(a.str("name", true), a.integer("new_size", true, 1, Long.MAX_VALUE >> 20));
        }, this::nullResize);
        r.register("bdev_get_bdevs", p -> {
            JsonParams a = new JsonParams(p, "", "name", "timeout");
            a.integer("timeout", false, 0, Integer.MAX_VALUE);
            return new Name(a.str("name", false));
        }, n -> {
            List<Map<String, Object>> out = new ArrayList<>();
            for (Bdev d : target.get().bdevs()) {
                if (n.name() == null || n.name().equals(d.name())) {
                    out.add(d.describe());
                }
            }
            if (n.name() != null && out.isEmpty()) {
                throw new RpcError(-19, "No such device: no bdev " + n.name());
            }
            return out;
        });
        r.register("bdev_get_iostat", p -> {
            JsonParams a = new JsonParams(p, "", "name", "per_channel");
            a.onlyDefault("per_channel", false);
            return new Name(a.str("name", false));
        }, n -> {
            List<Map<String, Object>> out = new ArrayList<>();
            for (Bdev d : target.get().bdevs()) {
                if (n.name() == null || n.name().equals(d.name())) {
                    out.add(d.iostat());
                }
            }
            if (n.name() != null && out.isEmpty()) {
                throw new RpcError(-19, "No such device: no bdev " + n.name());
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("tick_rate", NvmfStatsRpcs.TICK_RATE);
            m.put("ticks", System.nanoTime());
            m.put("bdevs", out);
            return m;
        });
        // jdoca examines nothing: every bdev is ready when its create method returns.
        r.register("bdev_wait_for_examine", FrameworkRpcs::none, a -> true);
        r.register("bdev_reset_iostat", p -> {
            JsonParams a = new JsonParams(p, "", "name", "mode");
            String mode = a.has("mode") ? a.str("mode", false) : "all";
            if (!List.of("all", "maxmin", "none").contains(mode)) {
                throw new ConfigException("mode", "\"" + mode + "\" is not one of all, maxmin, none");
            }
            return new Reset(a.str("name", false), mode);
        }, this::resetIostat);
        r.register("bdev_enable_histogram", BdevRpcs::parseHistogram, h -> {
            NvmfTarget t = target.get();
            Bdev d = bdev(t, h.name());
            t.query("bdev_enable_histogram", () -> {
                d.enableHistogram(h.enable() ? h.layout() : null, h.opc());
                return null;
            });
            return true;
        });
        r.register("bdev_get_histogram", BdevRpcs::name, n -> {
            NvmfTarget t = target.get();
            Bdev d = bdev(t, n.name());
            Map<String, Object> h = t.query("bdev_get_histogram", d::histogram);
            if (h == null) {
                throw new RpcError(-32603, "Bad address: no histogram is enabled on bdev " + n.name()
                        + " (bdev_enable_histogram)");
            }
            return h;
        });
        r.register("bdev_set_qos_limit", p -> {
            JsonParams a = new JsonParams(p, "", "name", "rw_ios_per_sec", "rw_mbytes_per_sec", "r_mbytes_per_sec",
                    "w_mbytes_per_sec");
            for (String k : a.allowed()) {
                if (!k.equals("name") && a.has(k) && a.integer(k, false, 0, Long.MAX_VALUE) != 0) {
                    throw new RpcError(-95, "Operation not supported: " + k + ": jdoca has no QoS rate limiter "
                            + "(only 0, unlimited, is accepted)");
                }
            }
            return new Name(a.str("name", true));
        }, n -> {
            bdev(target.get(), n.name());
            return true;
        });
    }

    /** bdev_reset_iostat's params: a bdev (null: all) and SPDK's mode. */
    private record Reset(String name, String mode) {
    }

    /** bdev_enable_histogram's params. */
    private record Hist(String name, boolean enable, String opc, SpdkHistogram layout) {
    }

    private static Hist parseHistogram(JsonNode p) {
        JsonParams a = new JsonParams(p, "", "name", "enable", "opc", "granularity", "min_nsec", "max_nsec");
        String name = a.str("name", true);
        Boolean enable = a.bool("enable");
        if (enable == null) {
            throw new ConfigException("enable", "missing (required)");
        }
        String opc = a.str("opc", false);
        if (opc != null && !opc.equals("read") && !opc.equals("write")) {
            throw new ConfigException("opc", "\"" + opc + "\": jdoca times reads and writes only (read, write)");
        }
        Long g = a.integer("granularity", false, 1, 16);
        Long min = a.integer("min_nsec", false, 0, Long.MAX_VALUE);
        Long max = a.integer("max_nsec", false, 1, Long.MAX_VALUE);
        SpdkHistogram l = new SpdkHistogram(g == null ? SpdkHistogram.DEFAULT_GRANULARITY : g.intValue(),
                min == null ? SpdkHistogram.DEFAULT_MIN_NSEC : min, max == null ? SpdkHistogram.DEFAULT_MAX_NSEC : max);
        if (l.minTicks() >= l.maxTicks()) {
            throw new ConfigException("min_nsec", l.minTicks() + " is not below max_nsec " + l.maxTicks());
        }
        return new Hist(name, enable, opc, l);
    }

    private Object resetIostat(Reset r) {
        NvmfTarget t = target.get();
        if (r.mode().equals("none")) {
            return true; // SPDK: "called with mode none, aborting operation", answered true
        }
        if (r.name() != null) {
            bdev(t, r.name());
        }
        t.query("bdev_reset_iostat", () -> {
            for (Bdev d : t.bdevs()) {
                if (r.name() == null || r.name().equals(d.name())) {
                    d.resetIostat(r.mode().equals("all"));
                }
            }
            return null;
        });
        return true;
    }

    /** The bdev named {@code name}, or SPDK's -19 (spdk_bdev_open_ext's -ENODEV). */
    private static Bdev bdev(NvmfTarget t, String name) {
        Bdev d = t.bdev(name);
        if (d == null) {
            throw new RpcError(-19, "No such device: no bdev " + name);
        }
        return d;
    }

    private static Name name(JsonNode params) {
        return new Name(new JsonParams(params, "", "name").str("name", true));
    }

    /** Runs a bdev operation, answering DOCA errors with SPDK's errno codes. */
    private static Object bdevCall(Supplier<Object> op) {
        try {
            return op.get();
        } catch (DocaException e) {
            throw RpcError.errno(e);
        }
    }
}
