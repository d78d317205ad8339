package io.jdoca.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.CtxState;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Socket-free unit tests: state machines, transport choice, configuration rules, the lock-free rings. */
class RdmaUnitTest {

    @Test
    void connectionStateTransitionsFollowTheTable() {
        assertTrue(RdmaConnectionState.IDLE.canTransitionTo(RdmaConnectionState.CONNECTING));
        assertTrue(RdmaConnectionState.CONNECTING.canTransitionTo(RdmaConnectionState.ESTABLISHED));
        assertTrue(RdmaConnectionState.ESTABLISHED.canTransitionTo(RdmaConnectionState.DISCONNECTED));
        assertFalse(RdmaConnectionState.IDLE.canTransitionTo(RdmaConnectionState.ESTABLISHED));
        assertFalse(RdmaConnectionState.ESTABLISHED.canTransitionTo(RdmaConnectionState.CONNECTING));
        for (RdmaConnectionState s : RdmaConnectionState.values()) {
            assertFalse(RdmaConnectionState.DISCONNECTED.canTransitionTo(s));
            assertFalse(RdmaConnectionState.FAILED.canTransitionTo(s));
        }
    }

    @Test
    void transportResolutionIsSymmetric() {
        for (RdmaTransportType x : RdmaTransportType.values()) {
            for (RdmaTransportType y : RdmaTransportType.values()) {
                for (boolean same : new boolean[] {true, false}) {
                    assertSame(RdmaTransportType.resolve(x, y, same), RdmaTransportType.resolve(y, x, same));
                }
            }
        }
        assertEquals(RdmaTransportType.SHM, RdmaTransportType.resolve(RdmaTransportType.AUTO, RdmaTransportType.AUTO,
                true));
        assertEquals(RdmaTransportType.TCP, RdmaTransportType.resolve(RdmaTransportType.AUTO, RdmaTransportType.AUTO,
                false));
        assertNull(RdmaTransportType.resolve(RdmaTransportType.SHM, RdmaTransportType.TCP, true));
        assertNull(RdmaTransportType.resolve(RdmaTransportType.SHM, RdmaTransportType.AUTO, false));
    }

    @Test
    void configurationOnlyWhileIdleAndWithinLimits() {
        Rdma r = Rdma.create(Devices.open("sw0"));
        assertEquals(DocaError.INVALID_VALUE, r.setMaxSendBufListLen(0));
        assertEquals(DocaError.INVALID_VALUE, r.setMaxSendBufListLen(Rdma.capMaxSendBufListLen(null) + 1));
        assertEquals(DocaError.INVALID_VALUE, r.setSendQueueSize(0));
        assertEquals(DocaError.INVALID_VALUE, r.setPermissions(AccessFlags.PCI_READ_WRITE));
        assertEquals(DocaError.SUCCESS, r.setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.RDMA_READ));
        assertEquals(-1, r.gidIndex(), "the device's GID by default");
        assertEquals(DocaError.INVALID_VALUE, r.setGidIndex(256), "sgid_index is 8 bits");
        assertEquals(DocaError.SUCCESS, r.setGidIndex(3));
        assertEquals(3, r.gidIndex());
        io.jdoca.core.exec.ProgressEngine pe = io.jdoca.core.exec.ProgressEngine.create();
        pe.connectCtx(r);
        assertEquals(DocaError.IN_PROGRESS, r.start());
        assertEquals(CtxState.STARTING, r.state());
        assertEquals(DocaError.BAD_STATE, r.setPermissions(AccessFlags.LOCAL_READ_WRITE));
        assertEquals(DocaError.BAD_STATE, r.setTransport(RdmaTransportType.TCP));
        assertEquals(DocaError.BAD_STATE, r.setGidIndex(1));
        assertEquals(DocaError.SUCCESS, r.stop());
        assertEquals(CtxState.IDLE, r.state());
        assertThrows(DocaException.class, r::export, "export needs a started context");
    }

    @Test
    void capabilitiesAreListedForDevices() {
        List<io.jdoca.core.dev.Capability> caps = new RdmaCapabilities().capabilities(Devices.find("sw0"));
        assertTrue(caps.stream().anyMatch(c -> c.name().equals("doca_rdma_cap_get_max_message_size") && c.value()
                .equals("2147483648")));
        assertTrue(Rdma.capTaskSendIsSupported(Devices.find("sw0")));
    }

    /**
     * {@code -Djdoca.rdma.tcp.threading}: the two modes by name (any case, spaces trimmed); anything else names none.
     */
    @Test
    void tcpThreadingNames() {
        assertSame(TcpTransportAgent.Threading.INVOKER, TcpTransportAgent.Threading.parse("invoker"));
        assertSame(TcpTransportAgent.Threading.DEDICATED, TcpTransportAgent.Threading.parse(" Dedicated "));
        assertNull(TcpTransportAgent.Threading.parse("thread"));
        assertNull(TcpTransportAgent.Threading.parse(""));
        assertSame(TcpTransportAgent.Threading.INVOKER, TcpTransportAgent.THREADING,
                "the default when no property is set");
    }
}
