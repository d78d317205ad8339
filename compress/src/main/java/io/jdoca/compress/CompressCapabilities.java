package io.jdoca.compress;

import io.jdoca.core.dev.Capability;
import io.jdoca.core.dev.CapabilityProvider;
import io.jdoca.core.dev.DevInfo;
import java.util.List;

/** Lists the Compress library's capabilities for {@code ./jdoca devices}. Stateless. */
public final class CompressCapabilities implements CapabilityProvider {
    @Override
    public List<Capability> capabilities(DevInfo d) {
        return List.of(
                new Capability("compress", "task_decompress_lz4_stream_is_supported",
                        String.valueOf(Compress.capTaskDecompressLz4StreamIsSupported(d))),
                new Capability("compress", "task_decompress_lz4_block_is_supported",
                        String.valueOf(Compress.capTaskDecompressLz4BlockIsSupported(d))),
                new Capability("compress", "task_compress_deflate_is_supported",
                        String.valueOf(Compress.capTaskCompressDeflateIsSupported(d))),
                new Capability("compress", "task_decompress_deflate_is_supported",
                        String.valueOf(Compress.capTaskDecompressDeflateIsSupported(d))),
                new Capability("compress", "task_compress_lz4_is_supported",
                        String.valueOf(Compress.capTaskCompressLz4IsSupported(d))),
                new Capability("compress", "max_buf_size", String.valueOf(Compress.capGetMaxBufSize(d))),
                new Capability("compress", "max_buf_list_len", String.valueOf(Compress.capGetMaxBufListLen(d))),
                new Capability("compress", "max_chained_task_size",
                        String.valueOf(Compress.DEFAULT_MAX_CHAINED_TASK_SIZE)),
                new Capability("compress", "lz4_engine", Lz4Codec.isLiblz4Available() ? "liblz4-ffm"
                        : Lz4Codec.isNativeAvailable() ? "aircompressor-native" : "java"));
    }
}
