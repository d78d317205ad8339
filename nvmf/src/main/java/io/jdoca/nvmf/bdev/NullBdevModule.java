package io.jdoca.nvmf.bdev;

import io.jdoca.sta.backend.NullBackend;
import io.jdoca.sta.backend.StaBackend;
import java.util.List;

/**
 * SPDK's null module ({@code module/bdev/null}): reads return zeroes, writes are dropped (STA's
 * null back-end), no unmap. jdoca's namespace form: {@code backend=null} with {@code size_mb}.
 *
 * <p>Stateless; see {@link BdevModule} for the threads.
 */
final class NullBdevModule extends SizedBdevModule {
    NullBdevModule() {
        super("name", "num_blocks", "block_size", "physical_block_size", "uuid", "md_size", "dif_type",
                "dif_is_head_of_md", "dif_pi_format", "preferred_write_alignment", "preferred_write_granularity",
                "optimal_write_size");
    }

    @Override
    public String name() {
        return "null";
    }

    @Override
    public String productName() {
        return "Null disk";
    }

    @Override
    StaBackend make(String name, long bytes) {
        return new NullBackend(name, bytes);
    }

    @Override
    public boolean supportsUnmap() {
        return false;
    }

    @Override
    public List<String> namespaceBackends() {
        return List.of("null");
    }
}
