package io.jdoca.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.testkit.AllocationMeter;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CtxLifecycleTest {
    private ProgressEngine pe;
    private EchoCtx ctx;
    private final List<String> transitions = new ArrayList<>();
    private final List<EchoCtx.EchoTask> ok = new ArrayList<>();
    private final List<EchoCtx.EchoTask> failed = new ArrayList<>();

    @BeforeEach
    void setUp() {
        pe = ProgressEngine.create();
        ctx = new EchoCtx();
        ctx.setStateChangedCallback((ud, c, prev, next) -> transitions.add(prev + "->" + next));
        ctx.pool.setConf((t, ud, cud) -> ok.add(t), (t, ud, cud) -> failed.add(t), 4);
    }

    private void connectAndStart() {
        assertThat(pe.connectCtx(ctx)).isEqualTo(DocaError.SUCCESS);
        assertThat(ctx.start()).isEqualTo(DocaError.SUCCESS);
    }

    @Test
    void startNeedsAProgressEngine() {
        assertThat(ctx.start()).isEqualTo(DocaError.BAD_STATE);
        assertThat(ctx.state()).isEqualTo(CtxState.IDLE);
    }

    @Test
    void startNeedsTaskConfiguration() {
        EchoCtx c = new EchoCtx();
        pe.connectCtx(c);
        assertThat(c.start()).isEqualTo(DocaError.BAD_STATE);
        assertThat(c.state()).isEqualTo(CtxState.IDLE);
    }

    @Test
    void synchronousStartAndStop() {
        connectAndStart();
        assertThat(ctx.state()).isEqualTo(CtxState.RUNNING);
        assertThat(ctx.start()).as("second start").isEqualTo(DocaError.BAD_STATE);
        assertThat(ctx.stop()).isEqualTo(DocaError.SUCCESS);
        assertThat(ctx.state()).isEqualTo(CtxState.IDLE);
        assertThat(ctx.stop()).as("stop when idle").isEqualTo(DocaError.BAD_STATE);
        assertThat(transitions).containsExactly("IDLE->RUNNING", "RUNNING->IDLE");
        // Restartable.
        assertThat(ctx.start()).isEqualTo(DocaError.SUCCESS);
    }

    @Test
    void asynchronousStartGoesThroughStarting() {
        ctx.asyncStart = true;
        pe.connectCtx(ctx);
        assertThat(ctx.start()).isEqualTo(DocaError.IN_PROGRESS);
        assertThat(ctx.state()).isEqualTo(CtxState.STARTING);
        assertThat(ctx.pool.alloc()).as("no tasks before RUNNING").isNull();
        assertThat(ctx.lastError()).isEqualTo(DocaError.BAD_STATE);
        ctx.finishStart(DocaError.SUCCESS);
        assertThat(ctx.state()).isEqualTo(CtxState.RUNNING);
        assertThat(transitions).containsExactly("IDLE->STARTING", "STARTING->RUNNING");
    }

    @Test
    void failedAsynchronousStartReturnsToIdle() {
        ctx.asyncStart = true;
        pe.connectCtx(ctx);
        ctx.start();
        ctx.finishStart(DocaError.CONNECTION_ABORTED);
        assertThat(ctx.state()).isEqualTo(CtxState.IDLE);
        assertThat(transitions).containsExactly("IDLE->STARTING", "STARTING->IDLE");
    }

    @Test
    void stopWhileStartingIsAllowed() {
        ctx.asyncStart = true;
        pe.connectCtx(ctx);
        ctx.start();
        assertThat(ctx.stop()).isEqualTo(DocaError.SUCCESS);
        assertThat(ctx.state()).isEqualTo(CtxState.IDLE);
    }

    @Test
    void configurationOnlyWhileIdle() {
        connectAndStart();
        assertThat(ctx.pool.setConf((t, a, b) -> { }, (t, a, b) -> { }, 8)).isEqualTo(DocaError.BAD_STATE);
        assertThat(ctx.setQueueDepth(8)).isEqualTo(DocaError.BAD_STATE);
        assertThat(ctx.setStateChangedCallback(null)).isEqualTo(DocaError.BAD_STATE);
        assertThat(pe.connectCtx(ctx)).isEqualTo(DocaError.BAD_STATE);
    }

    @Test
    void connectingTwiceIsInUse() {
        pe.connectCtx(ctx);
        assertThat(ProgressEngine.create().connectCtx(ctx)).isEqualTo(DocaError.IN_USE);
    }

    @Test
    void taskRoundTripDeliversCallbacksOnlyInProgress() {
        connectAndStart();
        EchoCtx.EchoTask t = ctx.allocInit(42);
        assertThat(t.state()).isEqualTo(TaskState.ALLOCATED);
        assertThat(t.submit()).isEqualTo(DocaError.SUCCESS);
        assertThat(ok).as("not completed inside submit").isEmpty();
        assertThat(ctx.numInflightTasks()).isEqualTo(1);
        assertThat(t.free()).as("free while in flight").isEqualTo(DocaError.BAD_STATE);
        assertThat(pe.progress()).isTrue();
        assertThat(ok).containsExactly(t);
        assertThat(t.userData()).isEqualTo(42);
        assertThat(t.state()).isEqualTo(TaskState.COMPLETED);
        assertThat(pe.progress()).as("nothing left").isFalse();
        // Re-arm: resubmit the completed task.
        t.result = DocaError.IO_FAILED;
        assertThat(t.submit()).isEqualTo(DocaError.SUCCESS);
        pe.progress();
        assertThat(failed).containsExactly(t);
        assertThat(t.status()).isEqualTo(DocaError.IO_FAILED);
        assertThat(t.free()).isEqualTo(DocaError.SUCCESS);
        assertThat(t.free()).as("double free").isEqualTo(DocaError.BAD_STATE);
        assertThat(t.submit()).as("submit of a freed task").isEqualTo(DocaError.BAD_STATE);
        assertThat(pe.hits()).isEqualTo(2);
        assertThat(pe.misses()).isEqualTo(1);
    }

    @Test
    void poolExhaustionIsNoMemory() {
        connectAndStart();
        List<EchoCtx.EchoTask> tasks = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            tasks.add(ctx.allocInit(i));
        }
        assertThat(tasks).doesNotContainNull();
        assertThat(ctx.allocInit(5)).isNull();
        assertThat(ctx.lastError()).isEqualTo(DocaError.NO_MEMORY);
        tasks.get(0).free();
        assertThat(ctx.allocInit(6)).isNotNull();
    }

    @Test
    void fullQueueIsAgain() {
        EchoCtx c = new EchoCtx();
        c.pool.setConf((t, a, b) -> { }, (t, a, b) -> { }, 4);
        assertThat(c.setQueueDepth(2)).isEqualTo(DocaError.SUCCESS);
        pe.connectCtx(c);
        c.start();
        assertThat(c.allocInit(1).submit()).isEqualTo(DocaError.SUCCESS);
        assertThat(c.allocInit(2).submit()).isEqualTo(DocaError.SUCCESS);
        EchoCtx.EchoTask third = c.allocInit(3);
        assertThat(third.submit()).isEqualTo(DocaError.AGAIN);
        assertThat(third.state()).as("AGAIN leaves the task with the caller").isEqualTo(TaskState.ALLOCATED);
        pe.progress();
        assertThat(third.submit()).isEqualTo(DocaError.SUCCESS);
    }

    @Test
    void validationRunsOnSubmitButNotOnTrySubmit() {
        connectAndStart();
        ctx.validation = DocaError.INVALID_VALUE;
        EchoCtx.EchoTask t = ctx.allocInit(1);
        assertThat(t.submit()).isEqualTo(DocaError.INVALID_VALUE);
        assertThat(ctx.numInflightTasks()).isZero();
        assertThat(t.trySubmit()).isEqualTo(DocaError.SUCCESS);
        assertThat(ctx.numInflightTasks()).isEqualTo(1);
    }

    @Test
    void stopWithTasksInFlightFlushesThroughErrorCallbacks() {
        connectAndStart();
        EchoCtx.EchoTask a = ctx.allocInit(1);
        EchoCtx.EchoTask b = ctx.allocInit(2);
        a.submit();
        b.submit();
        assertThat(ctx.stop()).isEqualTo(DocaError.IN_PROGRESS);
        assertThat(ctx.state()).isEqualTo(CtxState.STOPPING);
        assertThat(ctx.stop()).as("stop again while stopping").isEqualTo(DocaError.IN_PROGRESS);
        assertThat(ctx.allocInit(3)).as("no alloc while stopping").isNull();
        EchoCtx.EchoTask c = ctx.pool.alloc();
        assertThat(c).isNull();
        pe.progress();
        assertThat(failed).containsExactly(a, b);
        assertThat(a.status()).isEqualTo(DocaError.SHUTDOWN);
        assertThat(ctx.state()).as("tasks not freed yet").isEqualTo(CtxState.STOPPING);
        a.free();
        assertThat(ctx.state()).isEqualTo(CtxState.STOPPING);
        b.free();
        assertThat(ctx.state()).isEqualTo(CtxState.IDLE);
        assertThat(transitions).containsExactly("IDLE->RUNNING", "RUNNING->STOPPING", "STOPPING->IDLE");
    }

    @Test
    void peCloseRefusesNonIdleContexts() {
        connectAndStart();
        Assertions.assertThatThrownBy(pe::close).isInstanceOf(DocaException.class)
                .satisfies(e -> assertThat(((DocaException) e).error()).isEqualTo(DocaError.IN_USE));
        ctx.stop();
        pe.close();
        assertThat(pe.connectCtx(new EchoCtx())).isEqualTo(DocaError.BAD_STATE);
    }

    @Test
    void steadyStateTaskCycleAllocatesNothing() {
        connectAndStart();
        Runnable cycle = () -> {
            EchoCtx.EchoTask t = ctx.allocInit(7);
            t.submit();
            pe.progress();
            t.free();
        };
        ok.clear();
        // The callbacks above add to a list; use non-allocating ones for the measurement.
        EchoCtx c2 = new EchoCtx();
        long[] count = new long[1];
        c2.pool.setConf((t, a, b) -> count[0]++, (t, a, b) -> count[0]--, 4);
        ProgressEngine pe2 = ProgressEngine.create();
        pe2.connectCtx(c2);
        c2.start();
        Runnable cycle2 = () -> {
            EchoCtx.EchoTask t = c2.allocInit(7);
            t.submit();
            pe2.progress();
            t.free();
        };
        AllocationMeter.Result r = AllocationMeter.steadyState(200_000, 1_000_000, cycle2);
        assertThat(count[0]).isEqualTo(r.totalRuns());
        assertThat(r.bytesPerOp()).as("bytes allocated per task cycle").isLessThan(1.0);
        cycle.run();
    }
}
