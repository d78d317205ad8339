package io.jdoca.storage.targetrdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.mem.SharedMemory;
import io.jdoca.core.mem.SharedRegion;
import io.jdoca.rdma.wire.RdmaConnectionBlob;
import io.jdoca.storage.common.TcpControlChannel;
import io.jdoca.storage.wire.ConnectionRole;
import io.jdoca.storage.wire.ControlMessage;
import io.jdoca.storage.wire.ControlMessageType;
import io.jdoca.storage.wire.ControlPayload;
import io.jdoca.testkit.Await;
import io.jdoca.testkit.JavaProcess;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 29 item 3: target-rdma dials only the address its control client came from (or one the
 * operator allowed with {@code --allow-peer}); a host name in a blob is refused, never resolved.
 * Fails on the code before: bound to 127.0.0.1, the target connected to 127.0.0.2 and to
 * {@code localhost} and sent its hello there.
 */
class TargetPeerAddressTest {
    private final ExecutorService ex = Executors.newCachedThreadPool();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final AtomicBoolean abort = new AtomicBoolean();
    private TargetRdma target;
    private CompletableFuture<Integer> rc;
    private Dev dev;
    private SharedRegion region;
    private MemoryMap map;

    private void startTarget(List<InetAddress> allowed) throws Exception {
        int port = JavaProcess.freePort();
        target = new TargetRdma(new TargetRdma.Config("sw0", List.of(0), InetAddress.getLoopbackAddress(), port,
                null, 16, 4096, null, Durability.SESSION, allowed, 5_000_000_000L, 5_000_000_000L, false), abort);
        rc = CompletableFuture.supplyAsync(() -> target.run(new PrintStream(out, true)), ex);
        Await.until(Duration.ofSeconds(20), () -> target.boundPort() != 0 || rc.isDone(), "target listening");
    }

    @BeforeEach
    void memory() {
        dev = Devices.open("sw0");
        region = SharedMemory.allocate(16 * 4096);
        map = MemoryMap.create();
        map.setMemrange(region.segment());
        map.addDev(dev);
        map.setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.RDMA_READ | AccessFlags.RDMA_WRITE);
        DocaException.check(map.start(), "map");
    }

    @AfterEach
    void stop() throws Exception {
        abort.set(true);
        if (rc != null) {
            rc.get(20, TimeUnit.SECONDS);
        }
        map.close();
        region.close();
        ex.shutdownNow();
    }

    /**
     * A peer's blob for the TCP transport naming {@code host}:{@code port}, from another host (boot id), whose nonce
     * makes the target dial.
     */
    private static byte[] blob(String host, int port) {
        return new RdmaConnectionBlob(2, 4242, AccessFlags.RDMA_READ | AccessFlags.RDMA_WRITE, -1L, UUID.randomUUID(),
                port,
                host, "", 0, 0).encode();
    }

    /** query, init with our memory, then create_rdma_connection(io_data) with {@code peerBlob}; the target's answer. */
    private ControlMessage connectWith(byte[] peerBlob) {
        try (TcpControlChannel c = TcpControlChannel.client(new InetSocketAddress("127.0.0.1", target.boundPort()),
                10_000_000_000L)) {
            long t = 10_000_000_000L;
            c.request(ControlMessage.of(ControlMessageType.QUERY_STORAGE_REQUEST, 1, 1), t);
            c.request(new ControlMessage(ControlMessageType.INIT_STORAGE_REQUEST, 2, 1,
                    new ControlPayload.InitStorage(4, 1, map.exportRdma(dev))), t);
            c.send(new ControlMessage(ControlMessageType.CREATE_RDMA_CONNECTION_REQUEST, 3, 1,
                    new ControlPayload.RdmaConnection(0, ConnectionRole.IO_DATA, peerBlob)));
            ControlMessage r = c.receive(t);
            assertThat(r).as("an answer to create_rdma_connection").isNotNull();
            return r;
        }
    }

    /** Whether {@code s} sees a connection within {@code ms}. */
    private static boolean accepts(ServerSocket s, int ms) throws Exception {
        s.setSoTimeout(ms);
        try {
            s.accept().close();
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        }
    }

    @Test
    @Timeout(60)
    void aBlobNamingAnotherAddressIsRefusedAndThatAddressSeesNoConnection() throws Exception {
        startTarget(List.of());
        try (ServerSocket elsewhere = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.2"))) {
            ControlMessage r = connectWith(blob("127.0.0.2", elsewhere.getLocalPort()));
            assertThat(r.isError()).as("%s", r).isTrue();
            assertThat(r.asError().error()).isEqualTo(DocaError.NOT_PERMITTED);
            assertThat(r.asError().message()).contains("127.0.0.2:" + elsewhere.getLocalPort())
                    .contains("not the control peer's address (127.0.0.1)").contains("--allow-peer");
            assertThat(accepts(elsewhere, 2_000)).as("a connection attempt reached 127.0.0.2").isFalse();
        }
        assertThat(rc).isNotDone();
    }

    @Test
    @Timeout(60)
    void aHostNameInABlobIsRefusedWithoutResolvingIt() throws Exception {
        startTarget(List.of());
        try (ServerSocket local = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            ControlMessage r = connectWith(blob("localhost", local.getLocalPort()));
            assertThat(r.asError().error()).isEqualTo(DocaError.NOT_PERMITTED);
            assertThat(r.asError().message()).contains("'localhost', not an IP address");
            assertThat(accepts(local, 2_000)).as("the target dialled localhost").isFalse();
        }
    }

    @Test
    @Timeout(60)
    void anAddressTheOperatorAllowedIsDialled() throws Exception {
        startTarget(List.of(InetAddress.getByName("127.0.0.2")));
        try (ServerSocket elsewhere = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.2"))) {
            ControlMessage r = connectWith(blob("127.0.0.2", elsewhere.getLocalPort()));
            assertThat(r.type()).as("%s", r).isEqualTo(ControlMessageType.CREATE_RDMA_CONNECTION_RESPONSE);
            assertThat(accepts(elsewhere, 10_000)).as("the target dialled the allowed address").isTrue();
        }
    }
}
