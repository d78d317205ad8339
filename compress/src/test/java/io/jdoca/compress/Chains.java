package io.jdoca.compress;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.mem.Buf;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Random;

/** Buffer lists for tests: sources split at random points, destinations with random tailrooms. */
final class Chains {
    private Chains() {
    }

    /** {@code pieces + 1} sorted cut points from 0 to {@code len} (repeats allowed: empty pieces). */
    static int[] cuts(int len, int pieces, Random r) {
        int[] c = new int[pieces + 1];
        c[pieces] = len;
        for (int i = 1; i < pieces; i++) {
            c[i] = r.nextInt(len + 1);
        }
        Arrays.sort(c, 1, pieces);
        return c;
    }

    /**
     * A source list whose data, concatenated, is {@code bytes}: {@code pieces} buffers placed apart
     * from {@code base} on, each with some headroom and tailroom around its data.
     */
    static Buf source(CompressFixture f, long base, byte[] bytes, int pieces, Random r) {
        int[] c = cuts(bytes.length, pieces, r);
        Buf head = null;
        long at = base;
        for (int i = 0; i < pieces; i++) {
            int n = c[i + 1] - c[i];
            int hr = r.nextInt(8);
            int tr = 1 + r.nextInt(8);
            f.put(at + hr, Arrays.copyOfRange(bytes, c[i], c[i + 1]));
            long a = f.mmap.baseAddress() + at;
            Buf b = f.inv.getByArgs(f.mmap, a, hr + n + tr, a + hr, n);
            if (head == null) {
                head = b;
            } else {
                CompressFixture.check(head.chainList(b));
            }
            at += hr + n + tr + r.nextInt(32);
        }
        return head;
    }

    /** A destination list of {@code pieces} buffers whose tailrooms add up to {@code room}; some hold data already. */
    static Dst destination(CompressFixture f, long base, int room, int pieces, Random r) {
        return new Dst(f, base, room, pieces, r);
    }

    /** A destination list and what it held before the task. */
    static final class Dst {
        final CompressFixture f;
        final Buf head;
        final Buf[] bufs;
        final long[] dataAt;
        final byte[][] pre;
        final long[] room;

        Dst(CompressFixture f, long base, int total, int pieces, Random r) {
            this.f = f;
            int[] c = cuts(total, pieces, r);
            bufs = new Buf[pieces];
            dataAt = new long[pieces];
            pre = new byte[pieces][];
            room = new long[pieces];
            long at = base;
            Buf h = null;
            for (int i = 0; i < pieces; i++) {
                int hr = 1 + r.nextInt(4);
                pre[i] = TestData.random(r.nextInt(3) == 0 ? 0 : 1 + r.nextInt(6), r.nextLong());
                room[i] = c[i + 1] - c[i];
                dataAt[i] = at + hr;
                f.put(dataAt[i], pre[i]);
                long a = f.mmap.baseAddress() + at;
                Buf b = f.inv.getByArgs(f.mmap, a, hr + pre[i].length + room[i], a + hr, pre[i].length);
                bufs[i] = b;
                if (h == null) {
                    h = b;
                } else {
                    CompressFixture.check(h.chainList(b));
                }
                at += hr + pre[i].length + room[i] + r.nextInt(32);
            }
            head = h;
        }

        /** The bytes appended, after checking that earlier data is intact and the tailrooms filled in order. */
        byte[] appended() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            boolean partial = false;
            for (int i = 0; i < bufs.length; i++) {
                assertThat(f.get(dataAt[i], pre[i].length)).as("earlier data of buffer %d", i).isEqualTo(pre[i]);
                long added = bufs[i].dataLen() - pre[i].length;
                assertThat(added).as("buffer %d", i).isBetween(0L, room[i]);
                if (added > 0) {
                    assertThat(partial).as("buffer %d written after a buffer left with room", i).isFalse();
                }
                if (added < room[i]) {
                    partial = true;
                }
                out.writeBytes(f.get(dataAt[i] + pre[i].length, added));
            }
            return out.toByteArray();
        }

        /** Nothing appended to any buffer and the earlier data intact. */
        void assertUntouched() {
            for (int i = 0; i < bufs.length; i++) {
                assertThat(bufs[i].dataLen()).as("buffer %d data length", i).isEqualTo(pre[i].length);
                assertThat(f.get(dataAt[i], pre[i].length)).isEqualTo(pre[i]);
            }
        }

        void release() {
            CompressFixture.release(head);
        }
    }
}
