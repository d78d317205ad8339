package io.jdoca.sta;

import static io.jdoca.sta.nvmf.NvmfRequestState.COMPLETED;
import static io.jdoca.sta.nvmf.NvmfRequestState.EXECUTED;
import static io.jdoca.sta.nvmf.NvmfRequestState.EXECUTING;
import static io.jdoca.sta.nvmf.NvmfRequestState.FREE;
import static io.jdoca.sta.nvmf.NvmfRequestState.NEED_BUFFER;
import static io.jdoca.sta.nvmf.NvmfRequestState.READY_TO_EXECUTE;
import static io.jdoca.sta.nvmf.NvmfRequestState.TRANSFERRING_CONTROLLER_TO_HOST;
import static io.jdoca.sta.nvmf.NvmfRequestState.TRANSFERRING_HOST_TO_CONTROLLER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.core.DocaError;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.sta.nvmf.NvmfRequest;
import io.jdoca.sta.nvmf.NvmfRequestPool;
import io.jdoca.sta.nvmf.NvmfRequestState;
import io.jdoca.sta.nvmf.tcp.DataPdu;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The request state machine: its table (every illegal transition refused with BAD_STATE and
 * counted, nothing changed), its pool, and the walk each offloaded command takes through the real
 * command layer, read from the pool's per-transition trace. The host is an in-memory pipe
 * ({@link PipeChannel}); no sockets.
 */
class StaRequestTest {
    static final int BS = 4096;
    static final List<NvmfRequestState> SYNC_WALK = List.of(NEED_BUFFER, READY_TO_EXECUTE, EXECUTING, EXECUTED,
            TRANSFERRING_CONTROLLER_TO_HOST, COMPLETED, FREE);
    static final List<NvmfRequestState> R2T_WALK = List.of(NEED_BUFFER, TRANSFERRING_HOST_TO_CONTROLLER,
            READY_TO_EXECUTE, EXECUTING, EXECUTED, TRANSFERRING_CONTROLLER_TO_HOST, COMPLETED, FREE);

    // ------------------------------------------------------------------ the table

    /** Shortest legal path from FREE to every state (BFS over the table). */
    static Map<NvmfRequestState, List<NvmfRequestState>> pathsFromFree() {
        Map<NvmfRequestState, List<NvmfRequestState>> paths = new EnumMap<>(NvmfRequestState.class);
        paths.put(FREE, List.of());
        ArrayDeque<NvmfRequestState> todo = new ArrayDeque<>(List.of(FREE));
        while (!todo.isEmpty()) {
            NvmfRequestState s = todo.poll();
            for (NvmfRequestState n : NvmfRequestState.values()) {
                if (s.canTransitionTo(n) && !paths.containsKey(n)) {
                    List<NvmfRequestState> p = new ArrayList<>(paths.get(s));
                    p.add(n);
                    paths.put(n, p);
                    todo.add(n);
                }
            }
        }
        return paths;
    }

    @Test
    void everyStateIsReachableAndEveryIllegalTransitionIsRefused() {
        Map<NvmfRequestState, List<NvmfRequestState>> paths = pathsFromFree();
        assertEquals(NvmfRequestState.values().length, paths.size(), "unreachable states: " + paths.keySet());
        int illegal = 0;
        for (NvmfRequestState from : NvmfRequestState.values()) {
            for (NvmfRequestState to : NvmfRequestState.values()) {
                NvmfRequestPool pool = new NvmfRequestPool(1, NvmfRequest::new);
                NvmfRequest r = pool.at(0);
                for (NvmfRequestState step : paths.get(from)) {
                    assertEquals(DocaError.SUCCESS, r.transition(step), "legal step to " + step);
                }
                assertEquals(from, r.state());
                DocaError e = r.transition(to);
                if (from.canTransitionTo(to)) {
                    assertEquals(DocaError.SUCCESS, e);
                    assertEquals(to, r.state());
                    assertEquals(0, pool.badTransitions());
                } else {
                    illegal++;
                    assertEquals(DocaError.BAD_STATE, e, from + " -> " + to);
                    assertEquals(from, r.state(), "a refused transition changes nothing");
                    assertEquals(1, pool.badTransitions(), "a refused transition is counted");
                }
            }
        }
        // 9 states, 17 legal transitions: the rest are refused.
        assertEquals(81 - 17, illegal);
    }

    @Test
    void poolHandsOutEachRequestOnceAndTakesBackOnlyCompletedOnes() {
        NvmfRequestPool pool = new NvmfRequestPool(2, NvmfRequest::new);
        NvmfRequest a = pool.get();
        NvmfRequest b = pool.get();
        assertNotNull(a);
        assertNotNull(b);
        assertNull(pool.get(), "empty pool");
        assertEquals(NEED_BUFFER, a.state());
        assertEquals(2, pool.outstanding());
        assertFalse(pool.put(a), "a request still in NEED_BUFFER cannot be freed");
        assertEquals(1, pool.badTransitions());
        assertEquals(a, pool.byTag(a.tag()));
        a.transition(NvmfRequestState.EXECUTED);
        a.transition(COMPLETED);
        assertTrue(pool.put(a));
        assertNull(pool.byTag(a.tag()), "a FREE request has no live tag");
        assertNull(pool.byTag(99));
        assertNull(pool.byTag(-1));
        assertEquals(1, pool.outstanding());
        assertEquals(a, pool.get());
    }

    // ------------------------------------------------------------------ walks through the command layer

    static NvmfRequestPool poolOf(TestBed bed) {
        return bed.io.qps().get(0).transport().requests();
    }

    /** The states entered since {@code mark} (trace ring). */
    static List<NvmfRequestState> walkSince(NvmfRequestPool pool, long mark) {
        List<NvmfRequestState> w = new ArrayList<>();
        for (long i = mark; i < pool.traced(); i++) {
            w.add(pool.traceAt(i));
        }
        return w;
    }

    @Test
    void eachOffloadedCommandWalksTheMachine() {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            TestClient c = IoPathTest.connected(bed, true, true);
            NvmfRequestPool pool = poolOf(bed);
            MemorySegment data = IoPathTest.pattern(2 * BS, 3);

            long m = pool.traced();
            c.read(1, 0, 1, BS);
            c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus());
            assertEquals(SYNC_WALK, walkSince(pool, m), "read");

            m = pool.traced();
            c.io(NvmeOpcode.IO_WRITE, 2, 1, 1, 1, BS, data, BS);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus());
            assertEquals(SYNC_WALK, walkSince(pool, m), "in-capsule write");

            m = pool.traced();
            c.io(NvmeOpcode.IO_WRITE, 3, 1, 2, 2, 2 * BS, null, 0);
            c.expect(NvmeTcpPdu.TYPE_R2T);
            int ttag = DataPdu.ttag(c.rx, 0);
            assertEquals(List.of(NEED_BUFFER, TRANSFERRING_HOST_TO_CONTROLLER), walkSince(pool, m));
            c.h2cData(3, ttag, 0, data, 0, BS, false);
            c.h2cData(3, ttag, BS, data, BS, BS, true);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus());
            assertEquals(R2T_WALK, walkSince(pool, m), "R2T write in two H2CData PDUs");

            m = pool.traced();
            c.io(NvmeOpcode.IO_FLUSH, 4, 1, 0, 1, 0, null, 0);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus());
            assertEquals(SYNC_WALK, walkSince(pool, m), "flush");

            MemorySegment ranges = Arena.ofAuto().allocate(16);
            ranges.set(NvmeTcpPdu.LE32, 4, 1);
            ranges.set(NvmeTcpPdu.LE64, 8, 8L);
            m = pool.traced();
            dsm(c, 5, ranges, true);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus());
            assertEquals(SYNC_WALK, walkSince(pool, m), "DSM, ranges in the capsule");

            m = pool.traced();
            dsm(c, 6, ranges, false);
            c.expect(NvmeTcpPdu.TYPE_R2T);
            c.h2cData(6, DataPdu.ttag(c.rx, 0), 0, ranges, 0, 16, true);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus());
            assertEquals(R2T_WALK, walkSince(pool, m), "DSM, ranges fetched");

            m = pool.traced();
            c.io(NvmeOpcode.IO_COMPARE, 7, 1, 2, 2, 2 * BS, data, 2 * BS);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus());
            assertEquals(SYNC_WALK, walkSince(pool, m), "compare, data in the capsule");

            m = pool.traced();
            c.io(NvmeOpcode.IO_COMPARE, 8, 1, 2, 2, 2 * BS, null, 0);
            c.expect(NvmeTcpPdu.TYPE_R2T);
            c.h2cData(8, DataPdu.ttag(c.rx, 0), 0, data, 0, 2 * BS, true);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(0, c.cqeStatus());
            assertEquals(R2T_WALK, walkSince(pool, m), "compare, data fetched");

            // Refused before execution: validated before it gets a buffer, never EXECUTING.
            m = pool.traced();
            c.read(9, 1 << 20, 1, BS);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(NvmeStatus.LBA_OUT_OF_RANGE, c.cqeStatus());
            assertEquals(List.of(NEED_BUFFER, EXECUTED, TRANSFERRING_CONTROLLER_TO_HOST, COMPLETED, FREE),
                    walkSince(pool, m), "read out of range");
            // Validated once the data is in: a compare of too many blocks, READY_TO_EXECUTE → EXECUTED.
            m = pool.traced();
            c.io(NvmeOpcode.IO_COMPARE, 12, 1, 1 << 20, 1, BS, data, BS);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(NvmeStatus.LBA_OUT_OF_RANGE, c.cqeStatus());
            assertEquals(List.of(NEED_BUFFER, READY_TO_EXECUTE, EXECUTED, TRANSFERRING_CONTROLLER_TO_HOST, COMPLETED,
                    FREE),
                    walkSince(pool, m), "compare out of range");

            // Refused without a namespace.
            m = pool.traced();
            c.io(NvmeOpcode.IO_READ, 10, 9, 0, 1, BS, null, 0);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertEquals(NvmeStatus.INVALID_NAMESPACE, c.cqeStatus());
            assertEquals(List.of(NEED_BUFFER, EXECUTED, TRANSFERRING_CONTROLLER_TO_HOST, COMPLETED, FREE),
                    walkSince(pool, m), "unknown namespace");

            // The connection goes while a write waits for its data: the request ends unanswered.
            m = pool.traced();
            c.io(NvmeOpcode.IO_WRITE, 11, 1, 2, 1, BS, null, 0);
            c.expect(NvmeTcpPdu.TYPE_R2T);
            assertEquals(1, pool.outstanding());
            bed.io.teardown(bed.io.qps().get(0), "recv", DocaError.CONNECTION_RESET, 0);
            assertEquals(List.of(NEED_BUFFER, TRANSFERRING_HOST_TO_CONTROLLER, EXECUTED, COMPLETED, FREE),
                    walkSince(pool, m), "aborted transfer");
            assertEquals(0, pool.outstanding());
            assertEquals(0, bed.ns.inflight());
            assertEquals(0, pool.badTransitions(), "no illegal transition on any path");
        }
    }

    private static void dsm(TestClient c, int cid, MemorySegment ranges, boolean inCapsule) {
        long sqe = c.beginCapsule();
        NvmeCommand.encode(c.tx, sqe, NvmeOpcode.IO_DATASET_MANAGEMENT, cid, 1);
        NvmeCommand.putCdw(c.tx, sqe, 44, 0x4);
        NvmeCommand.putSgl(c.tx, sqe, inCapsule
                ? NvmeCommand.SGL_DATA_BLOCK_OFFSET : NvmeCommand.SGL_TRANSPORT_DATA_BLOCK, 0, 16);
        if (inCapsule) {
            c.endCapsule(ranges, 0, 16);
        } else {
            c.endCapsule(null, 0, 0);
        }
    }
}
