package io.jdoca.nvmf.bdev;

import io.jdoca.sta.backend.MemoryBackend;
import io.jdoca.sta.backend.StaBackend;
import java.util.List;

/**
 * SPDK's malloc module ({@code module/bdev/malloc}): a RAM disk in this process (STA's memory
 * back-end), counted against the memory budget; {@code bdev_malloc_create} names an unnamed one
 * MallocN. jdoca's namespace form: {@code backend=memory} (or {@code malloc}) with {@code size_mb}.
 *
 * <p>Stateless; see {@link BdevModule} for the threads.
 */
final class MallocBdevModule extends SizedBdevModule {
    MallocBdevModule() {
        super("name", "num_blocks", "block_size", "physical_block_size", "uuid", "optimal_io_boundary", "md_size",
                "md_interleave", "dif_type", "dif_is_head_of_md", "dif_pi_format");
    }

    @Override
    public String name() {
        return "malloc";
    }

    @Override
    public String productName() {
        return "Malloc disk";
    }

    @Override
    public String defaultNamePrefix() {
        return "Malloc";
    }

    @Override
    StaBackend make(String name, long bytes) {
        return new MemoryBackend(name, bytes);
    }

    @Override
    public List<String> namespaceBackends() {
        return List.of("memory", "malloc");
    }

    @Override
    public boolean inMemory() {
        return true;
    }
}
