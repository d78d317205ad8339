package io.jdoca.verbs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The parameters of {@code rdma_connect} / {@code rdma_accept} ({@code struct rdma_conn_param}): private data
 * (at most 56 bytes in a request and 196 in an accept on RDMA_PS_TCP), RDMA read depths, end-to-end flow
 * control, retry counts, and for a QP the application created itself ({@link ProtectionDomain#createQp}) its
 * number and whether it receives from an SRQ (0 / false when the QP was made on the id).
 *
 * <p>Thread rules: immutable.
 */
public record ConnParam(byte[] privateData, int responderResources, int initiatorDepth, boolean flowControl,
        int retryCount, int rnrRetryCount, int qpNum, boolean srq) {
    /** Private data and read depths, rping's retry counts (7, 7), for a QP made on the id. */
    public static ConnParam of(byte[] privateData, int responderResources, int initiatorDepth) {
        return new ConnParam(privateData, responderResources, initiatorDepth, false, 7, 7, 0, false);
    }

    /** The same with flow control on (NVMe/RDMA hosts and targets set it). */
    public ConnParam withFlowControl() {
        return new ConnParam(privateData, responderResources, initiatorDepth, true, retryCount, rnrRetryCount, qpNum,
                srq);
    }

    /** The same for a QP the application owns: its number, whether it uses an SRQ, the retry counts to use. */
    public ConnParam forQp(int num, boolean usesSrq, int retry, int rnrRetry) {
        return new ConnParam(privateData, responderResources, initiatorDepth, flowControl, retry, rnrRetry, num,
                usesSrq);
    }

    MemorySegment fill(Arena a) {
        MemorySegment pd = MemorySegment.NULL;
        int len = privateData == null ? 0 : privateData.length;
        if (len > 0) {
            pd = a.allocate(len);
            MemorySegment.copy(privateData, 0, pd, JAVA_BYTE, 0, len);
        }
        return RdmaCm.connParam(a.allocate(VerbsLayouts.RDMA_CONN_PARAM), pd, len, responderResources, initiatorDepth,
                flowControl, retryCount, rnrRetryCount, qpNum, srq);
    }
}
