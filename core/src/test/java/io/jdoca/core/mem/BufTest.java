package io.jdoca.core.mem;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BufTest {
    private Arena arena;
    private MemoryMap mmap;
    private BufInventory inv;
    private long base;

    @BeforeEach
    void setUp() {
        arena = Arena.ofConfined();
        MemorySegment seg = arena.allocate(4096, 64);
        Dev dev = Devices.open("sw0");
        mmap = MemoryMap.create();
        assertThat(mmap.setMemrange(seg)).isEqualTo(DocaError.SUCCESS);
        assertThat(mmap.addDev(dev)).isEqualTo(DocaError.SUCCESS);
        assertThat(mmap.setPermissions(AccessFlags.LOCAL_READ_WRITE)).isEqualTo(DocaError.SUCCESS);
        assertThat(mmap.start()).isEqualTo(DocaError.SUCCESS);
        inv = BufInventory.create(4);
        assertThat(inv.start()).isEqualTo(DocaError.SUCCESS);
        base = mmap.baseAddress();
    }

    @AfterEach
    void tearDown() {
        mmap.close();
        arena.close();
    }

    @Test
    void headDataTailArithmetic() {
        Buf b = inv.getByAddr(mmap, base + 100, 1000);
        assertThat(b.addr()).isEqualTo(base + 100);
        assertThat(b.len()).isEqualTo(1000);
        assertThat(b.data()).isEqualTo(base + 100);
        assertThat(b.dataLen()).isZero();
        assertThat(b.headroomLen()).isZero();
        assertThat(b.tailroomLen()).isEqualTo(1000);

        assertThat(b.setData(base + 150, 200)).isEqualTo(DocaError.SUCCESS);
        assertThat(b.headroomLen()).isEqualTo(50);
        assertThat(b.dataLen()).isEqualTo(200);
        assertThat(b.tailroomLen()).isEqualTo(750);
        assertThat(b.headroomLen() + b.dataLen() + b.tailroomLen()).isEqualTo(b.len());
        assertThat(b.dataOffset()).isEqualTo(150);
        assertThat(b.tailOffset()).isEqualTo(350);

        // A destination appends to the tailroom.
        assertThat(b.appendData(100)).isEqualTo(DocaError.SUCCESS);
        assertThat(b.dataLen()).isEqualTo(300);
        assertThat(b.tailroomLen()).isEqualTo(650);
        assertThat(b.appendData(651)).isEqualTo(DocaError.INVALID_VALUE);
        assertThat(b.dataLen()).isEqualTo(300);

        b.resetDataLen();
        assertThat(b.dataLen()).isZero();
        assertThat(b.data()).as("reset keeps the data address").isEqualTo(base + 150);

        assertThat(b.setData(base + 99, 10)).as("before the buffer").isEqualTo(DocaError.INVALID_VALUE);
        assertThat(b.setData(base + 1000, 101)).as("past the buffer").isEqualTo(DocaError.INVALID_VALUE);
        assertThat(b.setDataLen(951)).isEqualTo(DocaError.INVALID_VALUE);
        assertThat(b.setDataLen(950)).isEqualTo(DocaError.SUCCESS);
        assertThat(b.tailroomLen()).isZero();
    }

    @Test
    void getByDataCoversTheWholeBuffer() {
        Buf b = inv.getByData(mmap, base, 512);
        assertThat(b.dataLen()).isEqualTo(512);
        assertThat(b.tailroomLen()).isZero();
        Buf c = inv.getByArgs(mmap, base, 512, base + 12, 100);
        assertThat(c.headroomLen()).isEqualTo(12);
        assertThat(inv.getByArgs(mmap, base, 512, base + 500, 100)).isNull();
        assertThat(inv.lastError()).isEqualTo(DocaError.INVALID_VALUE);
    }

    @Test
    void rangesOutsideTheMapAreInvalid() {
        assertThat(inv.getByAddr(mmap, base - 1, 10)).isNull();
        assertThat(inv.lastError()).isEqualTo(DocaError.INVALID_VALUE);
        assertThat(inv.getByAddr(mmap, base + 4000, 97)).isNull();
        assertThat(inv.getByAddr(mmap, base, 0)).isNull();
        assertThat(inv.getByAddr(mmap, base + 4000, 96)).isNotNull();
    }

    @Test
    void inventoryExhaustionAndRefcountReturn() {
        Buf[] bufs = new Buf[4];
        for (int i = 0; i < 4; i++) {
            bufs[i] = inv.getByAddr(mmap, base + i * 64L, 64);
        }
        assertThat(inv.numFree()).isZero();
        assertThat(inv.getByAddr(mmap, base, 64)).isNull();
        assertThat(inv.lastError()).isEqualTo(DocaError.NO_MEMORY);
        assertThat(inv.stop()).isEqualTo(DocaError.IN_USE);
        assertThat(bufs[0].incRefcount()).isEqualTo(2);
        assertThat(bufs[0].decRefcount()).isEqualTo(1);
        assertThat(inv.numFree()).isZero();
        assertThat(bufs[0].decRefcount()).isZero();
        assertThat(inv.numFree()).isEqualTo(1);
        assertThat(bufs[0].decRefcount()).as("already free").isEqualTo(-1);
        for (int i = 1; i < 4; i++) {
            bufs[i].decRefcount();
        }
        assertThat(inv.stop()).isEqualTo(DocaError.SUCCESS);
        assertThat(inv.getByAddr(mmap, base, 64)).isNull();
        assertThat(inv.lastError()).isEqualTo(DocaError.BAD_STATE);
    }

    @Test
    void reuseRepointsWithinTheSameMap() {
        Buf b = inv.getByData(mmap, base, 64);
        assertThat(inv.reuseByAddr(b, base + 128, 256)).isEqualTo(DocaError.SUCCESS);
        assertThat(b.addr()).isEqualTo(base + 128);
        assertThat(b.dataLen()).isZero();
        assertThat(inv.reuseByData(b, base + 256, 32)).isEqualTo(DocaError.SUCCESS);
        assertThat(b.dataLen()).isEqualTo(32);
        assertThat(inv.reuseByData(b, base + 4090, 32)).isEqualTo(DocaError.INVALID_VALUE);
        b.incRefcount();
        assertThat(inv.reuseByAddr(b, base, 8)).as("shared buffer").isEqualTo(DocaError.BAD_STATE);
    }

    @Test
    void chainsFormScatterGatherLists() {
        Buf a = inv.getByData(mmap, base, 100);
        Buf b = inv.getByData(mmap, base + 100, 200);
        Buf c = inv.getByAddr(mmap, base + 300, 50);
        assertThat(a.chainList(b)).isEqualTo(DocaError.SUCCESS);
        assertThat(a.chainList(c)).isEqualTo(DocaError.SUCCESS);
        assertThat(a.listLen()).isEqualTo(3);
        assertThat(a.next()).isSameAs(b);
        assertThat(a.last()).isSameAs(c);
        assertThat(a.listDataLen()).isEqualTo(300);
        assertThat(a.listTailroomLen()).isEqualTo(50);
        assertThat(a.chainList(b)).as("already in the list").isEqualTo(DocaError.INVALID_VALUE);
        assertThat(a.unchainList(c)).isEqualTo(DocaError.SUCCESS);
        assertThat(a.listLen()).isEqualTo(2);
        assertThat(a.unchainList(c)).isEqualTo(DocaError.NOT_FOUND);
        // Freeing a buffer cuts its link.
        b.decRefcount();
        assertThat(inv.numFree()).isEqualTo(2);
    }

    @Test
    void bufPoolAlignsAndExhausts() {
        BufPool pool = BufPool.create(3, 100, mmap);
        assertThat(pool.setElementAlignment(3)).isEqualTo(DocaError.INVALID_VALUE);
        assertThat(pool.setElementAlignment(128)).isEqualTo(DocaError.SUCCESS);
        assertThat(pool.start()).isEqualTo(DocaError.SUCCESS);
        Buf x = pool.alloc();
        Buf y = pool.alloc();
        Buf z = pool.alloc();
        assertThat(pool.alloc()).isNull();
        for (Buf b : new Buf[] {x, y, z}) {
            assertThat(b.addr() % 128).isZero();
            assertThat(b.len()).isEqualTo(100);
            assertThat(b.dataLen()).isZero();
        }
        assertThat(x.addr()).isNotEqualTo(y.addr());
        x.decRefcount();
        assertThat(pool.numFree()).isEqualTo(1);
        assertThat(pool.alloc().addr()).isEqualTo(x.addr());
        assertThat(BufPool.create(100, 100, mmap).start()).as("does not fit").isEqualTo(DocaError.INVALID_VALUE);
    }

    @Test
    void bufArrayElementsAreFixed() {
        BufArray arr = BufArray.create(4, 1024, mmap);
        assertThat(arr.start()).isEqualTo(DocaError.SUCCESS);
        assertThat(arr.get(3).addr()).isEqualTo(base + 3072);
        assertThat(arr.get(3).dataLen()).isEqualTo(1024);
        assertThat(arr.get(4)).isNull();
        assertThat(BufArray.create(5, 1024, mmap).start()).isEqualTo(DocaError.INVALID_VALUE);
    }
}
