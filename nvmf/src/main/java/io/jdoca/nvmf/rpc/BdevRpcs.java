package io.jdoca.nvmf.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import io.jdoca.core.DocaException;
import io.jdoca.nvmf.bdev.Bdev;
import io.jdoca.nvmf.bdev.BdevModule;
import io.jdoca.nvmf.bdev.BdevModules;
import io.jdoca.nvmf.config.JsonParams;
import io.jdoca.nvmf.tgt.NvmfTarget;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * SPDK's bdev methods ({@code lib/bdev/bdev_rpc.c} and each module's {@code bdev_*_rpc.c}):
 * {@code bdev_<module>_create} and {@code bdev_<module>_delete} for every module of
 * {@link BdevModules} (malloc, null, aio), {@code bdev_get_bdevs}, {@code bdev_get_iostat},
 * {@code bdev_wait_for_examine}, with SPDK's parameter names, result shapes and errno codes.
 *
 * <p>Threads: handlers on the RPC client's thread; each target call is a {@code sta-main} command.
 */
final class BdevRpcs implements RpcRegistry.Family {
    private final Supplier<NvmfTarget> target;

    BdevRpcs(Supplier<NvmfTarget> target) {
        this.target = target;
    }

    /** A bdev name (get, iostat, delete). */
    private record Name(String name) {
    }

    @Override
    public void registerWith(RpcRegistry r) {
        for (BdevModule m : BdevModules.all()) {
            r.register("bdev_" + m.name() + "_create", m::parseCreate,
                    spec -> bdevCall(() -> target.get().createBdev(m, spec).name()));
            r.register("bdev_" + m.name() + "_delete", BdevRpcs::name, n -> bdevCall(() -> {
                target.get().deleteBdev(m.name(), n.name());
                return true;
            }));
        }
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
