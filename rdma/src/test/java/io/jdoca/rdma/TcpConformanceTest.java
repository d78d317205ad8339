package io.jdoca.rdma;

/** The conformance suite over the TCP transport. */
class TcpConformanceTest extends RdmaConformanceTest {
    @Override
    RdmaTransportType transport() {
        return RdmaTransportType.TCP;
    }
}
