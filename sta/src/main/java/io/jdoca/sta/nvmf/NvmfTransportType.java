package io.jdoca.sta.nvmf;

/**
 * One NVMe-oF transport (SPDK's {@code spdk_nvmf_transport_ops} registered with
 * {@code SPDK_NVMF_TRANSPORT_REGISTER}): its name as SPDK and the discovery log spell it, its TRTYPE
 * code, and how it turns an accepted connection into the {@link NvmfTransport} of a queue pair. A
 * new transport (or a TLS-wrapped TCP) is a new implementation registered in {@link NvmfTransports};
 * the command layer does not change.
 *
 * <p>Implementations are stateless singletons: any thread.
 */
public interface NvmfTransportType {
    /** The name SPDK's RPCs use ({@code "TCP"}, {@code "RDMA"}). */
    String name();

    /** The discovery log's TRTYPE (NVMe-oF 1.1 figure 38: 1 RDMA, 3 TCP). */
    int trtype();

    /** True when {@code connection} is the kind of accepted connection this transport serves. */
    boolean accepts(Object connection);

    /**
     * The transport of queue pair {@code qp} over {@code connection} ({@link #accepts} true): its
     * buffers and {@code params.requests()} requests are allocated here. Control path; throws a
     * {@code DocaException} when the connection cannot be served (the connection is left to the caller).
     */
    NvmfTransport create(NvmfQpair qp, Object connection, Params params);

    /**
     * What the STA IO context grants every queue pair of its engine.
     *
     * @param maxIo        the largest data transfer of one command (MDTS)
     * @param inCapsuleMax the largest in-capsule data (IOCCSZ × 16 − 64)
     * @param requests     the most commands a queue pair may have outstanding
     */
    record Params(int maxIo, int inCapsuleMax, int requests) {
    }
}
