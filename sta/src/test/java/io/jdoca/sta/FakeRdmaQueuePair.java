package io.jdoca.sta;

import io.jdoca.sta.nvmf.rdma.RdmaCompletionSink;
import io.jdoca.sta.nvmf.rdma.RdmaQueuePair;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A queue pair without a device that plays the host: it keeps the posted receives and fills the
 * oldest with the capsules the test sends; RDMA WRITEs land in host memory at once, RDMA READs
 * take host memory and complete on the next poll; SENDs (responses) are recorded with their
 * Invalidate key and complete on the next poll (or when the test releases them, to hold buffers).
 * Host memory is one segment reachable with key {@link #KEY}; any other key fails the work request
 * like a device would (remote access error). Its rings are primitive arrays, so with
 * {@link #record} off it allocates nothing and an allocation meter sees the target alone.
 */
final class FakeRdmaQueuePair implements RdmaQueuePair {
    static final int KEY = 0x1234abcd;
    static final int REM_ACCESS_ERR = 10;
    private static final int RING = 4096;

    final MemorySegment host;
    private MemorySegment recvArea;
    private MemorySegment respArea;
    private MemorySegment dataArea;
    private final long[] recvId = new long[RING];
    private final long[] recvOff = new long[RING];
    private long recvHead;
    private long recvTail;
    private final long[] cqId = new long[RING];
    private final int[] cqStatus = new int[RING];
    private final int[] cqLen = new int[RING];
    private long cqHead;
    private long cqTail;
    private final long[] held = new long[RING];
    private int heldCount;
    /** Record responses and operations in the lists below (allocates). */
    boolean record = true;
    /** Responses seen: {cid, status, invalidated key or 0}. */
    final List<int[]> responses = new ArrayList<>();
    final List<String> ops = new ArrayList<>();
    int responseCount;
    int lastCid;
    int lastStatus;
    boolean holdSends;
    boolean disconnected;
    boolean destroyed;

    FakeRdmaQueuePair(long hostBytes) {
        host = Arena.ofAuto().allocate(hostBytes, 4096);
    }

    @Override
    public void register(MemorySegment recv, MemorySegment resp, MemorySegment data) {
        recvArea = recv;
        respArea = resp;
        dataArea = data;
    }

    @Override
    public int postRecv(long wrId, long off, int len) {
        int i = (int) (recvTail++ % RING);
        recvId[i] = wrId;
        recvOff[i] = off;
        return 0;
    }

    private void complete(long wrId, int status, int len) {
        int i = (int) (cqTail++ % RING);
        cqId[i] = wrId;
        cqStatus[i] = status;
        cqLen[i] = len;
    }

    @Override
    public int postSend(long wrId, long off, int len, boolean invalidate, int rkey) {
        lastCid = respArea.get(NvmeTcpPdu.LE16, off + 12) & 0xffff;
        lastStatus = respArea.get(NvmeTcpPdu.LE16, off + 14) & 0xffff; // raw, as NvmeStatus encodes it
        responseCount++;
        if (record) {
            responses.add(new int[]{lastCid, lastStatus, invalidate ? rkey : 0});
            ops.add("SEND" + (invalidate ? "_INV" : ""));
        }
        if (holdSends) {
            held[heldCount++] = wrId;
        } else {
            complete(wrId, 0, 0);
        }
        return 0;
    }

    @Override
    public int postWrite(long wrId, long off, int len, long raddr, int rkey) {
        if (record) {
            ops.add("WRITE " + len);
        }
        if (rkey != KEY || raddr < 0 || raddr + len > host.byteSize()) {
            complete(wrId, REM_ACCESS_ERR, 0);
            return 0;
        }
        MemorySegment.copy(dataArea, off, host, raddr, len);
        return 0;
    }

    @Override
    public int postRead(long wrId, long off, int len, long raddr, int rkey) {
        if (record) {
            ops.add("READ " + len);
        }
        if (rkey != KEY || raddr < 0 || raddr + len > host.byteSize()) {
            complete(wrId, REM_ACCESS_ERR, 0);
            return 0;
        }
        MemorySegment.copy(host, raddr, dataArea, off, len);
        complete(wrId, 0, len);
        return 0;
    }

    @Override
    public int poll(RdmaCompletionSink sink, int max) {
        int n = 0;
        while (n < max && cqHead < cqTail) {
            int i = (int) (cqHead++ % RING);
            sink.onCompletion(cqId[i], cqStatus[i], cqLen[i]);
            n++;
        }
        return n;
    }

    @Override
    public int arm() {
        return 0;
    }

    @Override
    public MemorySegment cq() {
        return MemorySegment.NULL;
    }

    @Override
    public void disconnect() {
        disconnected = true;
    }

    @Override
    public void destroy() {
        destroyed = true;
    }

    /** The host sends a capsule: SQE plus in-capsule data, into the oldest posted receive; false = no receive (RNR). */
    boolean capsule(MemorySegment sqe, MemorySegment data, int dataLen) {
        if (recvHead == recvTail) {
            return false;
        }
        int i = (int) (recvHead++ % RING);
        MemorySegment.copy(sqe, 0, recvArea, recvOff[i], 64);
        if (dataLen > 0) {
            MemorySegment.copy(data, 0, recvArea, recvOff[i] + 64, dataLen);
        }
        complete(recvId[i], 0, 64 + dataLen);
        return true;
    }

    /** Lets held SEND completions through (buffers go back to the target). */
    void releaseSends() {
        for (int i = 0; i < heldCount; i++) {
            complete(held[i], 0, 0);
        }
        heldCount = 0;
    }

    int postedReceives() {
        return (int) (recvTail - recvHead);
    }

    int[] lastResponse() {
        return responses.get(responses.size() - 1);
    }
}
