package io.jdoca.core.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.ProgressEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SyncEventTest {
    private final Dev dev = Devices.open("sw0");

    private SyncEvent local() {
        SyncEvent e = SyncEvent.create();
        e.addPublisherLocationCpu(dev);
        e.addSubscriberLocationCpu(dev);
        return e;
    }

    @Test
    void startNeedsBothLocations() {
        SyncEvent e = SyncEvent.create();
        e.addPublisherLocationCpu(dev);
        assertThat(e.start()).isEqualTo(DocaError.BAD_STATE);
        e.addSubscriberLocationCpu(dev);
        assertThat(e.start()).isEqualTo(DocaError.SUCCESS);
        assertThat(e.start()).isEqualTo(DocaError.BAD_STATE);
        assertThat(e.addPublisherLocationCpu(dev)).isEqualTo(DocaError.BAD_STATE);
        e.close();
    }

    @Test
    void synchronousSetAddGetWait() {
        SyncEvent e = local();
        e.start();
        assertThat(e.get()).isZero();
        e.updateSet(10);
        assertThat(e.updateAdd(5)).isEqualTo(10);
        assertThat(e.get()).isEqualTo(15);
        assertThat(e.waitGt(14, TimeUnit.MILLISECONDS.toNanos(10))).isTrue();
        assertThat(e.waitGt(15, TimeUnit.MILLISECONDS.toNanos(20))).isFalse();
        assertThat(e.waitEq(0xF, 0xF, 1000)).isTrue();
        assertThat(e.waitNeq(15, -1L, TimeUnit.MILLISECONDS.toNanos(5))).isFalse();
        e.close();
    }

    @Test
    void exportWithoutRemoteLocationIsNotPermitted() {
        SyncEvent e = local();
        e.start();
        assertThatThrownBy(() -> e.exportToRemotePci(dev)).isInstanceOf(DocaException.class)
                .satisfies(x -> assertThat(((DocaException) x).error()).isEqualTo(DocaError.NOT_PERMITTED));
        e.close();
    }

    @Test
    void addsFromManyThreadsAreAtomic() throws Exception {
        SyncEvent e = local();
        e.start();
        Thread[] ts = new Thread[2];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = new Thread(() -> {
                for (int j = 0; j < 100_000; j++) {
                    e.updateAdd(1);
                }
            });
            ts[i].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        assertThat(e.get()).isEqualTo(200_000);
        e.close();
    }

    @Test
    void asynchronousTasksThroughAProgressEngine() {
        SyncEvent e = local();
        SyncEventCtx ctx = e.asCtx();
        List<String> done = new ArrayList<>();
        ctx.taskGetSetConf((t, a, b) -> done.add("get=" + t.result()), (t, a, b) -> done.add("get-err"), 2);
        ctx.taskNotifySetSetConf((t, a, b) -> done.add("set"), (t, a, b) -> done.add("set-err"), 2);
        ctx.taskNotifyAddSetConf((t, a, b) -> done.add("add-prev=" + t.result()), (t, a, b) -> done.add("add-err"), 2);
        ctx.taskWaitSetConf((t, a, b) -> done.add("wait=" + t.result()), (t, a, b) -> done.add("wait-err:"
                + t.status()), 2);
        ProgressEngine pe = ProgressEngine.create();
        pe.connectCtx(ctx);
        assertThat(ctx.start()).isEqualTo(DocaError.SUCCESS);

        SyncEventTask.Wait w = ctx.taskWaitGtAllocInit(9, 0);
        w.submit();
        pe.progress();
        assertThat(done).as("wait pending").isEmpty();
        assertThat(ctx.maxSleepNanos()).isEqualTo(SyncEventCtx.WAIT_POLL_NANOS);
        ctx.taskNotifySetAllocInit(7, 0).submit();
        pe.progress();
        ctx.taskNotifyAddAllocInit(5, 0).submit();
        pe.progress();
        ctx.taskGetAllocInit(0).submit();
        pe.progress();
        assertThat(done).containsExactly("set", "add-prev=7", "wait=12", "get=12");
    }

    @Test
    void stopFlushesPendingWaits() {
        SyncEvent e = local();
        SyncEventCtx ctx = e.asCtx();
        List<DocaError> errs = new ArrayList<>();
        ctx.taskWaitSetConf((t, a, b) -> { }, (t, a, b) -> {
            errs.add(t.status());
            t.free();
        }, 1);
        ProgressEngine pe = ProgressEngine.create();
        pe.connectCtx(ctx);
        ctx.start();
        ctx.taskWaitEqAllocInit(99, -1L, 0).submit();
        assertThat(ctx.stop()).isEqualTo(DocaError.IN_PROGRESS);
        pe.progress();
        assertThat(errs).containsExactly(DocaError.SHUTDOWN);
        assertThat(ctx.state()).isEqualTo(io.jdoca.core.exec.CtxState.IDLE);
    }
}
