package io.jdoca.bench.nvmf;

import io.jdoca.core.agent.ThreadAllocation;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.perf.NvmeTcpHost;
import io.jdoca.nvmf.tgt.NvmfTarget;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Bytes the target's IO engine thread allocates per I/O in steady state, over real loopback
 * sockets: an in-process {@code NvmfTarget} (memory namespace) driven by {@link NvmeTcpHost}
 * (4 KiB random reads, in-capsule writes and R2T writes at QD 32), measured with the engine
 * thread's {@code ThreadMXBean} allocation counter after a warm-up.
 */
final class TargetAllocationProbe {
    private TargetAllocationProbe() {
    }

    static double bytesPerIo(long warmupIos, long ios) throws Exception {
        TargetConfig cfg = TargetConfig.parse("""
                { "subsystems": [ { "nqn": "nqn.probe", "allow_any_host": true,
                  "namespaces": [ { "backend": "memory", "size_mb": 64, "block_size": 4096 } ] } ] }""");
        try (NvmfTarget target = new NvmfTarget(cfg)) {
            target.start();
            int port = target.addListener("127.0.0.1", 0);
            Thread engine = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("sta-io-0")).findFirst().orElseThrow();
            try (NvmeTcpHost admin = new NvmeTcpHost("127.0.0.1", port, false, false, 8, 8192);
                 NvmeTcpHost io = new NvmeTcpHost("127.0.0.1", port, false, false, 32, 131072)) {
                admin.initialize();
                int cntlid = admin.connect(0, 31, "nqn.probe", "nqn.probe.host", 0xffff, 0)[1] & 0xffff;
                admin.propertySet(0x14, 1);
                io.initialize();
                io.connect(1, 127, "nqn.probe", "nqn.probe.host", cntlid, 0);
                Driver d = new Driver(io);
                d.run(warmupIos);
                long before = ThreadAllocation.of(engine);
                d.run(ios);
                long after = ThreadAllocation.of(engine);
                if (d.errors > 0) {
                    throw new IllegalStateException(d.errors + " I/O errors in the allocation probe");
                }
                return (double) (after - before) / ios;
            }
        }
    }

    /** Keeps 32 commands in flight: reads, in-capsule writes and R2T writes in turn. */
    private static final class Driver implements NvmeTcpHost.Listener {
        final NvmeTcpHost io;
        final MemorySegment data = Arena.ofAuto().allocate(16384, 4096);
        long completed;
        long issued;
        long target;
        long errors;
        long rng = 0x9E3779B97F4A7C15L;

        Driver(NvmeTcpHost io) {
            this.io = io;
            io.setListener(this);
        }

        void run(long n) throws Exception {
            target = completed + n;
            long start = issued;
            for (int cid = 0; cid < 32 && issued - start < n; cid++) {
                submit(cid);
            }
            while (completed < target) {
                io.poll();
            }
        }

        void submit(int cid) {
            rng ^= rng << 13;
            rng ^= rng >>> 7;
            rng ^= rng << 17;
            long lba = Long.remainderUnsigned(rng, 16384 - 4);
            switch ((int) (issued % 3)) {
                case 0 -> io.read(cid, 1, lba, 1, 4096);
                case 1 -> io.write(cid, 1, lba, 1, data, 0, 4096, 8192);
                default -> io.write(cid, 1, lba, 4, data, 0, 16384, 8192);
            }
            issued++;
        }

        @Override
        public void onData(int cid, MemorySegment seg, long off, int len, int dataOffset) {
        }

        @Override
        public void onCompletion(int cid, int status, int dw0) {
            completed++;
            if (status != 0) {
                errors++;
            }
            if (issued < target) {
                submit(cid);
            }
        }
    }
}
