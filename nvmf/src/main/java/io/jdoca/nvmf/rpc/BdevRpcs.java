package io.jdoca.nvmf.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import io.jdoca.core.DocaException;
import io.jdoca.nvmf.bdev.Bdev;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.JsonParams;
import io.jdoca.nvmf.tgt.NvmfTarget;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * SPDK's bdev methods ({@code lib/bdev/bdev_rpc.c} and each module's {@code bdev_*_rpc.c}):
 * {@code bdev_malloc_create/delete}, {@code bdev_null_create/delete}, {@code bdev_aio_create/delete},
 * {@code bdev_get_bdevs}, {@code bdev_get_iostat}, {@code bdev_wait_for_examine}, with SPDK's
 * parameter names, result shapes and errno codes.
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
        r.register("bdev_malloc_create", p -> p, p -> createMallocOrNull(Bdev.Module.MALLOC, p));
        r.register("bdev_malloc_delete", BdevRpcs::name, n -> delete(Bdev.Module.MALLOC, n.name()));
        r.register("bdev_null_create", p -> p, p -> createMallocOrNull(Bdev.Module.NULL, p));
        r.register("bdev_null_delete", BdevRpcs::name, n -> delete(Bdev.Module.NULL, n.name()));
        r.register("bdev_aio_create", p -> {
            JsonParams a = new JsonParams(p, "", "filename", "name", "block_size", "readonly", "fallocate", "uuid");
            a.onlyDefault("readonly", false);
            a.onlyDefault("fallocate", false);
            return a;
        }, a -> {
            Long bs = a.integer("block_size", false, 0, 1 << 20);
            Path f = Path.of(a.str("filename", true));
            String name = a.str("name", true);
            UUID uuid = a.uuid("uuid");
            return bdevCall(() -> target.get().createBdev(Bdev.Module.AIO, name,
                    bs == null || bs == 0 ? 512 : bs.intValue(), 0, uuid, f).name());
        });
        r.register("bdev_aio_delete", BdevRpcs::name, n -> delete(Bdev.Module.AIO, n.name()));
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

    private Object delete(Bdev.Module m, String name) {
        return bdevCall(() -> {
            target.get().deleteBdev(m, name);
            return true;
        });
    }

    /** Runs a bdev operation, answering DOCA errors with SPDK's errno codes. */
    private static Object bdevCall(Supplier<Object> op) {
        try {
            return op.get();
        } catch (DocaException e) {
            throw RpcError.errno(e);
        }
    }

    private Object createMallocOrNull(Bdev.Module m, JsonNode params) {
        JsonParams p = m == Bdev.Module.MALLOC
                ? new JsonParams(params, "", "name", "num_blocks", "block_size", "physical_block_size", "uuid",
                        "optimal_io_boundary", "md_size", "md_interleave", "dif_type", "dif_is_head_of_md",
                        "dif_pi_format")
                : new JsonParams(params, "", "name", "num_blocks", "block_size", "physical_block_size", "uuid",
                        "md_size", "dif_type", "dif_is_head_of_md", "dif_pi_format", "preferred_write_alignment",
                        "preferred_write_granularity", "optimal_write_size");
        for (String k : List.of("md_size", "dif_type")) {
            p.onlyDefault(k, 0);
        }
        p.onlyDefault("md_interleave", false);
        p.onlyDefault("dif_is_head_of_md", false);
        long blocks = p.integer("num_blocks", true, 1, Long.MAX_VALUE);
        int bs = p.integer("block_size", true, 1, 1 << 20).intValue();
        Long pbs = p.integer("physical_block_size", false, 0, 1 << 20);
        if (pbs != null && pbs != 0 && pbs != bs) {
            throw new ConfigException("physical_block_size", "jdoca bdevs have physical_block_size = block_size");
        }
        NvmfTarget t = target.get();
        // SPDK names an unnamed malloc bdev MallocN.
        String name = p.str("name", m == Bdev.Module.NULL);
        if (name == null) {
            int i = 0;
            while (t.bdev("Malloc" + i) != null) {
                i++;
            }
            name = "Malloc" + i;
        }
        String n = name;
        UUID u = p.uuid("uuid");
        return bdevCall(() -> t.createBdev(m, n, bs, blocks, u, null).name());
    }
}
