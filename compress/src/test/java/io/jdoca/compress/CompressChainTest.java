package io.jdoca.compress;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.MemoryMap;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Buffer lists: the limits and the failures, each a status with nothing appended anywhere. */
class CompressChainTest {
    static final int N = 20_000;

    /** Compresses {@link #N} bytes of text at 0 with {@code fmt} into [100_000, ...); returns the compressed length. */
    static int compressed(CompressFixture f, CompressChainPropertiesTest.Fmt fmt) {
        f.put(0, TestData.text(N, 7));
        Buf out = f.dst(100_000, 2 * N);
        CompressTask t = CompressChainPropertiesTest.task(f, true, fmt, f.data(0, N), out);
        assertThat(f.run(t)).isEqualTo(DocaError.SUCCESS);
        t.free();
        return (int) out.dataLen();
    }

    static Buf list(CompressFixture f, long off, int pieces, int pieceLen, boolean data) {
        Buf head = null;
        for (int i = 0; i < pieces; i++) {
            Buf b = data ? f.data(off + (long) i * pieceLen, pieceLen) : f.dst(off + (long) i * pieceLen, pieceLen);
            if (head == null) {
                head = b;
            } else {
                CompressFixture.check(head.chainList(b));
            }
        }
        return head;
    }

    /** The data {@code [off, +len)} as a list of {@code pieces} adjacent buffers. */
    static Buf split(CompressFixture f, long off, int len, int pieces) {
        Buf head = null;
        for (int i = 0; i < pieces; i++) {
            long from = (long) len * i / pieces;
            long to = (long) len * (i + 1) / pieces;
            Buf b = f.data(off + from, to - from);
            if (head == null) {
                head = b;
            } else {
                CompressFixture.check(head.chainList(b));
            }
        }
        return head;
    }

    @Test
    void capabilityIsTheListLimit() {
        assertThat(Compress.capGetMaxBufListLen(null)).isEqualTo(Compress.MAX_BUF_LIST_LEN);
    }

    @Test
    void listLongerThanTheMaximumIsInvalid() {
        try (CompressFixture f = new CompressFixture(1 << 20, Lz4Codec.create())) {
            int max = Compress.MAX_BUF_LIST_LEN;
            Buf src = list(f, 0, max + 1, 100, true);
            Random r = new Random(1);
            Chains.Dst dst = Chains.destination(f, 300_000, 100_000, 2, r);
            CompressTaskCompressLz4Block t = f.c.taskCompressLz4BlockAllocInit(src, dst.head, 0);
            assertThat(t.submit()).isEqualTo(DocaError.INVALID_VALUE);
            assertThat(f.run(t, true)).as("checked again when executed").isEqualTo(DocaError.INVALID_VALUE);
            dst.assertUntouched();
            // The maximum itself is fine, on both sides.
            src.unchainList(src.last());
            Chains.Dst full = Chains.destination(f, 400_000, 100_000, max, r);
            t.setDst(full.head);
            assertThat(f.run(t)).isEqualTo(DocaError.SUCCESS);
            assertThat(full.appended()).isNotEmpty();
            // One more on the destination side.
            Chains.Dst tooLong = Chains.destination(f, 600_000, 100_000, max + 1, r);
            t.setDst(tooLong.head);
            assertThat(t.submit()).isEqualTo(DocaError.INVALID_VALUE);
            assertThat(f.run(t, true)).isEqualTo(DocaError.INVALID_VALUE);
            tooLong.assertUntouched();
            t.free();
        }
    }

    @Test
    void cyclicListIsRejectedNotLoopedOn() {
        try (CompressFixture f = new CompressFixture(1 << 20, Lz4Codec.create())) {
            Buf a = f.data(0, 100);
            Buf b = f.data(200, 100);
            CompressFixture.check(a.chainList(b));
            CompressFixture.check(b.chainList(a)); // b's own list does not hold a: chainList lets the cycle through
            Buf out = f.dst(100_000, 4096);
            CompressTaskCompressLz4Block t = f.c.taskCompressLz4BlockAllocInit(a, out, 0);
            assertThat(t.submit()).isEqualTo(DocaError.INVALID_VALUE);
            assertThat(f.run(t, true)).isEqualTo(DocaError.INVALID_VALUE);
            assertThat(out.dataLen()).isZero();
            t.free();
            b.unchainList(a);
        }
    }

    @Test
    void limitBoundsListsNotSingleBuffers() {
        try (CompressFixture f = new CompressFixture(1 << 20, Lz4Codec.create())) {
            assertThat(f.c.maxChainedTaskSize()).isEqualTo(Compress.DEFAULT_MAX_CHAINED_TASK_SIZE);
            assertThat(f.c.setMaxChainedTaskSize(4096)).as("only while idle").isEqualTo(DocaError.BAD_STATE);
            f.restart(c -> {
                assertThat(c.setMaxChainedTaskSize(-1)).isEqualTo(DocaError.INVALID_VALUE);
                assertThat(c.setMaxChainedTaskSize(4096)).isEqualTo(DocaError.SUCCESS);
            });
            int clen = compressed(f, CompressChainPropertiesTest.Fmt.LZ4_STREAM);
            Random r = new Random(2);
            // Source list over the limit.
            Buf bigSrc = list(f, 0, 2, 2049, true);
            Chains.Dst d1 = Chains.destination(f, 300_000, 4096, 3, r);
            CompressTaskCompressLz4Stream c = f.c.taskCompressLz4StreamAllocInit(bigSrc, d1.head, 0);
            assertThat(c.submit()).isEqualTo(DocaError.NOT_SUPPORTED);
            assertThat(f.run(c, true)).isEqualTo(DocaError.NOT_SUPPORTED);
            d1.assertUntouched();
            // Exactly at the limit: fine.
            c.setSrc(list(f, 0, 2, 2048, true));
            assertThat(f.run(c)).isEqualTo(DocaError.SUCCESS);
            assertThat(d1.appended()).isNotEmpty();
            c.free();
            // A single source into a destination list with more room than the limit, more output than the limit.
            assertThat(clen).isGreaterThan(4096);
            Buf in = f.data(100_000, clen);
            Chains.Dst roomy = Chains.destination(f, 300_000, 2 * N, 4, r);
            CompressTaskDecompressLz4Stream d = f.c.taskDecompressLz4StreamAllocInit(false, true, in, roomy.head, 0);
            assertThat(f.run(d)).as("the output size is unknown at submit").isEqualTo(DocaError.NOT_SUPPORTED);
            roomy.assertUntouched();
            // With less room than the limit, a destination too small is still TOO_BIG.
            Chains.Dst small = Chains.destination(f, 400_000, 3000, 4, r);
            d.setDst(small.head);
            assertThat(f.run(d)).isEqualTo(DocaError.TOO_BIG);
            small.assertUntouched();
            // A single destination is not bounded by the limit.
            Buf one = f.dst(500_000, N);
            d.setDst(one);
            assertThat(f.run(d)).isEqualTo(DocaError.SUCCESS);
            assertThat(f.get(500_000, N)).isEqualTo(TestData.text(N, 7));
            d.free();
        }
    }

    @Test
    void zeroLimitDisablesLists() {
        try (CompressFixture f = new CompressFixture(1 << 20, Lz4Codec.create())) {
            f.restart(c -> assertThat(c.setMaxChainedTaskSize(0)).isEqualTo(DocaError.SUCCESS));
            f.put(0, TestData.text(4096, 3));
            CompressTaskCompressLz4Block t = f.c.taskCompressLz4BlockAllocInit(list(f, 0, 2, 2048, true),
                    f.dst(100_000, 8192), 0);
            assertThat(t.submit()).isEqualTo(DocaError.NOT_SUPPORTED);
            t.setSrc(f.data(0, 4096));
            t.setDst(list(f, 200_000, 2, 4096, false));
            assertThat(t.submit()).isEqualTo(DocaError.NOT_SUPPORTED);
            t.setDst(f.dst(100_000, 8192));
            assertThat(f.run(t)).isEqualTo(DocaError.SUCCESS);
            t.free();
        }
    }

    @Test
    void readOnlyBufferInADestinationListIsNotPermitted() {
        try (CompressFixture f = new CompressFixture(1 << 20, Lz4Codec.create())) {
            MemoryMap ro = MemoryMap.create();
            CompressFixture.check(ro.setMemrange(f.arena.allocate(4096, 64)));
            CompressFixture.check(ro.addDev(f.dev));
            CompressFixture.check(ro.setPermissions(AccessFlags.LOCAL_READ_ONLY));
            CompressFixture.check(ro.start());
            Buf dst = f.dst(100_000, 4096);
            Buf roBuf = f.inv.getByAddr(ro, ro.baseAddress(), 4096);
            CompressFixture.check(dst.chainList(roBuf));
            CompressTaskCompressLz4Block t = f.c.taskCompressLz4BlockAllocInit(f.data(0, 1000), dst, 0);
            assertThat(t.submit()).isEqualTo(DocaError.NOT_PERMITTED);
            assertThat(f.run(t, true)).isEqualTo(DocaError.NOT_PERMITTED);
            assertThat(dst.dataLen()).isZero();
            // As a source, read-only memory is fine.
            CompressFixture.check(dst.unchainList(roBuf));
            Buf src = f.data(0, 1000);
            CompressFixture.check(src.chainList(f.inv.getByData(ro, ro.baseAddress(), 4096)));
            t.setSrc(src);
            assertThat(f.run(t)).isEqualTo(DocaError.SUCCESS);
            t.free();
            ro.stop();
        }
    }

    @Test
    void corruptListInputIsInvalidForEveryDecompressType() {
        for (CompressChainPropertiesTest.Fmt fmt : CompressChainPropertiesTest.Fmt.values()) {
            try (CompressFixture f = new CompressFixture(1 << 20, Lz4Codec.create())) {
                f.c.setChecksumsEnabled(true);
                int clen = compressed(f, fmt);
                // Overwrite a stretch in the middle: a block size, match offsets or Huffman codes go bad.
                for (int i = clen / 3; i < clen / 3 + 16; i++) {
                    f.mem.set(ValueLayout.JAVA_BYTE, 100_000 + i, (byte) 0xff);
                }
                f.mem.set(ValueLayout.JAVA_INT_UNALIGNED, 100_000, 0x7fff0000); // and the first LZ4 stream block's size
                Buf in = split(f, 100_000, clen, 3);
                Chains.Dst out = Chains.destination(f, 300_000, 2 * N, 5, new Random(3));
                CompressTask t = CompressChainPropertiesTest.task(f, false, fmt, in, out.head);
                DocaError st = f.run(t);
                assertThat(st).as(fmt.toString()).isIn(DocaError.INVALID_VALUE, DocaError.TOO_BIG);
                out.assertUntouched();
                assertThat(CompressChainPropertiesTest.sums(t)).isEqualTo(new int[3]);
                t.free();
            }
        }
    }
}
