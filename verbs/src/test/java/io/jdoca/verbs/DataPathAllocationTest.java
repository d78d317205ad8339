package io.jdoca.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.testkit.AllocationMeter;
import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * The data-path calls allocate nothing once compiled, on any machine (the static bindings, and the object layer's
 * posts, polls, arm and drain on the same fakes): {@link ContextOps} is pointed at a
 * fake {@code ibv_context} whose four ops are libc's {@code getpid} (it ignores its arguments, so any
 * signature is safe on x86-64 / aarch64), {@link Libc#poll} waits on nothing with a zero timeout, and (where
 * libibverbs is installed) {@code ibv_get_cq_event} / {@code ibv_ack_cq_events} run on harmless fakes.
 */
class DataPathAllocationTest {

    @Test
    void contextOpsAndPollAllocateNothingInSteadyState() {
        MemorySegment getpid = Linker.nativeLinker().defaultLookup().find("getpid").orElseThrow();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ctx = a.allocate(VerbsLayouts.IBV_CONTEXT);
            for (String op : new String[] {"ops.poll_cq", "ops.req_notify_cq", "ops.post_send", "ops.post_recv"}) {
                ctx.set(ADDRESS, VerbsLayouts.offset(VerbsLayouts.IBV_CONTEXT, op), getpid);
            }
            ContextOps ops = new ContextOps(ctx);
            MemorySegment cq = a.allocate(VerbsLayouts.IBV_CQ);
            MemorySegment qp = a.allocate(VerbsLayouts.IBV_QP);
            MemorySegment wr = a.allocate(VerbsLayouts.IBV_SEND_WR);
            MemorySegment bad = a.allocate(ADDRESS);
            MemorySegment wcs = a.allocate(VerbsLayouts.IBV_WC, 8);
            MemorySegment pfd = a.allocate(VerbsLayouts.POLLFD);
            pfd.set(JAVA_INT, 0, -1); // a negative fd is ignored by poll(2)
            pfd.set(JAVA_SHORT, 4, (short) VerbsConstants.POLLIN);
            // ibv_get_cq_event on a channel whose fd is -1 fails at read(2) (EBADF): the call and its errno
            // capture run, nothing else; ibv_ack_cq_events on a zeroed CQ locks and signals its zeroed mutex/cond
            boolean verbs = Verbs.isAvailable();
            MemorySegment channel = a.allocate(VerbsLayouts.IBV_COMP_CHANNEL);
            channel.set(JAVA_INT, VerbsLayouts.COMP_CHANNEL_FD, -1);
            MemorySegment cqCell = a.allocate(ADDRESS);
            MemorySegment ctxCell = a.allocate(ADDRESS);
            int[] sink = new int[1];
            AllocationMeter.Result r = AllocationMeter.steadyState(200_000, 100_000, () -> {
                sink[0] += ops.pollCq(cq, 8, wcs);
                sink[0] += ops.reqNotifyCq(cq, false);
                sink[0] += ops.postSend(qp, wr, bad);
                sink[0] += ops.postRecv(qp, wr, bad);
                sink[0] += Libc.poll(pfd, 1, 0);
                sink[0] += wcs.get(JAVA_INT, VerbsLayouts.WC_STATUS) + wcs.get(JAVA_INT, VerbsLayouts.WC_BYTE_LEN);
                if (verbs) {
                    sink[0] += Verbs.getCqEvent(channel, cqCell, ctxCell);
                    Verbs.ackCqEvents(cq, 1);
                }
            });
            assertThat(sink[0]).isNotZero(); // getpid answered: the calls really went native
            assertThat(r.bytes()).as("bytes allocated over %d rounds of the data-path calls", r.ops()).isZero();
        }
    }

    @Test
    void theObjectLayersPostsPollsArmAndDrainAllocateNothing() throws Throwable {
        MemorySegment getpid = Linker.nativeLinker().defaultLookup().find("getpid").orElseThrow();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ctx = a.allocate(VerbsLayouts.IBV_CONTEXT);
            for (String op : new String[] {"ops.poll_cq", "ops.req_notify_cq", "ops.post_send", "ops.post_recv",
                "ops.post_srq_recv"}) {
                ctx.set(ADDRESS, VerbsLayouts.offset(VerbsLayouts.IBV_CONTEXT, op), getpid);
            }
            VerbsContext vc = VerbsContext.of(ctx);
            CompletionQueue cq = new CompletionQueue(vc, a.allocate(VerbsLayouts.IBV_CQ), null);
            QueuePair qp = new QueuePair(vc.ops(), a.allocate(VerbsLayouts.IBV_QP), null,
                    QueuePair.Init.rc(cq, 16, 16));
            SharedReceiveQueue srq = new SharedReceiveQueue(vc.ops(), a.allocate(64));
            WorkCompletions wc = new WorkCompletions(4);
            SendWr[] wrs = SendWr.array(4, 2);
            RecvWr[] rwrs = RecvWr.array(4, 2);
            // a completion channel over /dev/null: ibv_get_cq_event reads 0 bytes there and returns -1 (no event)
            int fd = openDevNull(a);
            boolean verbs = Verbs.isAvailable();
            CompletionChannel ch = null;
            if (verbs) {
                MemorySegment raw = a.allocate(VerbsLayouts.IBV_COMP_CHANNEL);
                raw.set(JAVA_INT, VerbsLayouts.COMP_CHANNEL_FD, fd);
                ch = new CompletionChannel(vc, raw);
            }
            CompletionChannel channel = ch;
            PollSet ps = new PollSet(1).set(0, -1);
            int[] sink = new int[1];
            AllocationMeter.Result r = AllocationMeter.steadyState(200_000, 100_000, () -> {
                sink[0] += qp.postSend(1, 0x1000, 64, 7, VerbsConstants.IBV_SEND_SIGNALED);
                sink[0] += qp.postSendWithInvalidate(2, 0x1000, 64, 7, 0, 0x1234);
                sink[0] += qp.postWrite(3, 0x1000, 64, 7, 0x2000, 9, 0);
                sink[0] += qp.postRead(4, 0x1000, 64, 7, 0x2000, 9, VerbsConstants.IBV_SEND_SIGNALED);
                sink[0] += qp.postRecv(5, 0x1000, 64, 7);
                sink[0] += qp.post(wrs[1].wrId(6).opcode(VerbsConstants.IBV_WR_RDMA_WRITE).sge(0, 1, 2, 3)
                        .sge(1, 4, 5, 6).numSge(2).rdma(7, 8).immData(9));
                sink[0] += qp.post(rwrs[2].wrId(7).sge(0, 1, 2, 3).numSge(1));
                sink[0] += srq.post(rwrs[3].wrId(8).sge(0, 1, 2, 3).numSge(1));
                sink[0] += cq.poll(wc, 1) + cq.arm();
                sink[0] += wc.status(0) + wc.byteLen(0) + (int) wc.wrId(0) + wc.immData(0) + wc.qpNum(0);
                sink[0] += ps.poll(0);
                if (channel != null) {
                    sink[0] += channel.drain();
                }
            });
            assertThat(sink[0]).isNotZero();
            assertThat(r.bytes()).as("bytes allocated over %d rounds of the object layer's data path", r.ops())
                    .isZero();
        }
    }

    /** {@code open("/dev/null", O_RDONLY)} through libc (the test's own fd). */
    @SuppressWarnings("restricted") // FFM: a libc binding of the test's own
    private static int openDevNull(Arena a) throws Throwable {
        Linker l = Linker.nativeLinker();
        java.lang.invoke.MethodHandle open = l.downcallHandle(l.defaultLookup().find("open").orElseThrow(),
                java.lang.foreign.FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT),
                        Linker.Option.firstVariadicArg(2));
        return (int) open.invokeExact(a.allocateFrom("/dev/null"), 0);
    }
}
