package io.jdoca.sta.nvmf.rdma;

import io.jdoca.sta.nvmf.NvmfRequest;
import io.jdoca.sta.nvmf.NvmfRequestPool;

/**
 * One command of an NVMe/RDMA queue pair (SPDK's {@code spdk_nvmf_rdma_request}): the generic
 * {@link NvmfRequest} plus what the wire needs: the host's keyed SGL (address, length, key, and
 * whether to answer with SEND with Invalidate), the registered data buffer it holds (if any), the
 * RDMA READ in flight, and its own 16-byte response buffer (at {@code tag × 16} of the response
 * area). Its index is the work-request id of every post made for it, so a completion finds it
 * without a lookup.
 *
 * <p>Not thread-safe: the owning IO engine's thread.
 */
final class NvmfRdmaRequest extends NvmfRequest {
    private final NvmfRdmaQpair qpair;
    /** Host memory named by the keyed SGL (0 when the command has none). */
    long addr;
    int keyedLen;
    int key;
    boolean invalidate;
    /** Index of the registered data buffer this request holds, or -1. */
    int data = -1;
    int readOff;
    int readLen;

    NvmfRdmaRequest(NvmfRequestPool pool, int tag, NvmfRdmaQpair qpair) {
        super(pool, tag);
        this.qpair = qpair;
    }

    /** Returns the data buffer with the request (every path that frees a request goes through here). */
    @Override
    protected void clear() {
        if (data >= 0) {
            qpair.freeData(data);
            data = -1;
        }
        addr = 0;
        keyedLen = 0;
        key = 0;
        invalidate = false;
        super.clear();
    }
}
