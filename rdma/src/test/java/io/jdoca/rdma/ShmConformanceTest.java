package io.jdoca.rdma;

/** The conformance suite over the shared-memory transport. */
class ShmConformanceTest extends RdmaConformanceTest {
    @Override
    RdmaTransportType transport() {
        return RdmaTransportType.SHM;
    }
}
