package io.jdoca.rdma;

/**
 * Result of {@link Rdma#export()} ({@code doca_rdma_export}): the opaque blob to hand to the peer
 * out of band, and the local connection it describes (give it to {@link Rdma#connect}).
 *
 * @param blob       the connection descriptor, for the peer's {@code connect}
 * @param connection the local end of the connection
 */
public record RdmaExport(byte[] blob, RdmaConnection connection) {
}
