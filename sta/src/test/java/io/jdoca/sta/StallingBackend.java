package io.jdoca.sta;

import io.jdoca.sta.backend.StaBackend;
import io.jdoca.sta.backend.StaBackendChannel;
import io.jdoca.sta.nvme.NvmeStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A memory back-end with an asynchronous channel whose operations finish only {@code stallNanos}
 * after submission: a disk that hangs for a while. Synchronous calls (Compare, DSM) are immediate.
 */
final class StallingBackend extends StaBackend {
    final MemorySegment mem;
    final long stallNanos;
    private final Arena arena = Arena.ofShared();
    Channel channel;

    StallingBackend(String name, long size, long stallNanos) {
        super(name, size);
        this.mem = arena.allocate(size, 4096);
        this.stallNanos = stallNanos;
    }

    @Override
    public String kind() {
        return "stalling";
    }

    @Override
    public int read(long offset, MemorySegment dst, long dstOff, int len, MemorySegment scratch) {
        MemorySegment.copy(mem, offset, dst, dstOff, len);
        return NvmeStatus.SUCCESS;
    }

    @Override
    public int write(long offset, MemorySegment src, long srcOff, int len, MemorySegment scratch) {
        MemorySegment.copy(src, srcOff, mem, offset, len);
        return NvmeStatus.SUCCESS;
    }

    @Override
    public int writeZeroes(long offset, long len, MemorySegment scratch) {
        mem.asSlice(offset, len).fill((byte) 0);
        return NvmeStatus.SUCCESS;
    }

    @Override
    public StaBackendChannel openChannel(int depth) {
        channel = new Channel(depth);
        return channel;
    }

    @Override
    protected void close() {
        arena.close();
    }

    final class Channel extends StaBackendChannel {
        final int[] op;
        final long[] off;
        final MemorySegment[] buf;
        final int[] len;
        final int[] tag;
        final long[] due;
        int n;
        int submitted;

        Channel(int depth) {
            op = new int[depth];
            off = new long[depth];
            buf = new MemorySegment[depth];
            len = new int[depth];
            tag = new int[depth];
            due = new long[depth];
        }

        @Override
        public boolean submit(int o, long offset, MemorySegment b, int l, int t) {
            if (n == op.length) {
                return false;
            }
            op[n] = o;
            off[n] = offset;
            buf[n] = b;
            len[n] = l;
            tag[n] = t;
            due[n] = System.nanoTime() + stallNanos;
            n++;
            submitted++;
            return true;
        }

        @Override
        public int poll(Sink sink) {
            int done = 0;
            long now = System.nanoTime();
            for (int i = 0; i < n; ) {
                if (now - due[i] < 0) {
                    i++;
                    continue;
                }
                int st = switch (op[i]) {
                    case OP_READ -> read(off[i], buf[i], 0, len[i], null);
                    case OP_WRITE -> write(off[i], buf[i], 0, len[i], null);
                    default -> NvmeStatus.SUCCESS;
                };
                int t = tag[i];
                n--;
                op[i] = op[n];
                off[i] = off[n];
                buf[i] = buf[n];
                len[i] = len[n];
                tag[i] = tag[n];
                due[i] = due[n];
                buf[n] = null;
                sink.onComplete(t, st);
                done++;
            }
            return done;
        }

        @Override
        public int outstanding() {
            return n;
        }

        @Override
        public void close() {
            n = 0;
        }
    }
}
