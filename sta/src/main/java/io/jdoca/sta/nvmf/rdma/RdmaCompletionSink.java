package io.jdoca.sta.nvmf.rdma;

/**
 * Receives the work completions {@link RdmaQueuePair#poll} reads: the work-request id the poster
 * chose, the {@code ibv_wc_status} (0 = success, 5 = flushed) and the byte count of a receive.
 * Called on the polling thread, inside the poll; must not allocate.
 */
@FunctionalInterface
public interface RdmaCompletionSink {
    int WC_SUCCESS = 0;
    int WC_WR_FLUSH_ERR = 5;

    void onCompletion(long wrId, int status, int byteLen);
}
