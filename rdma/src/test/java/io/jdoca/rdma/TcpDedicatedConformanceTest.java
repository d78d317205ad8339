package io.jdoca.rdma;

/**
 * The TCP conformance suite with each context's transport agent on a thread of its own
 * ({@link TcpTransportAgent.Threading#DEDICATED}): the peer is served whether or not its application
 * progresses. The child processes of the suite keep the default (the engine runs the agent), so the
 * two modes also meet on one connection.
 */
class TcpDedicatedConformanceTest extends TcpConformanceTest {
    @Override
    TcpTransportAgent.Threading threading() {
        return TcpTransportAgent.Threading.DEDICATED;
    }
}
