package io.jdoca.comch;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.DocaError;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.ProgressEngine;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 29 item 4: a Comch server and client say who they are at connect (HELLO / ACCEPT); a second
 * server on a taken name learns the holder's identity and the holder takes the probe for no client; a
 * connection must say HELLO first, within its deadline. Fails on the code before: no identities, and
 * the second server's probe connected to the holder as a client.
 */
class ComchIdentityTest {
    private final Dev dev = Devices.open("sw0");
    private final String name = "ident-" + UUID.randomUUID();
    private final ProgressEngine spe = ProgressEngine.create();
    private ComchServer server;
    private final List<Boolean> connEvents = new ArrayList<>();
    private final List<String> msgs = new ArrayList<>();

    @BeforeEach
    void setUp() {
        server = ComchServer.create(dev, null, name);
        server.setIdentity(ComchIdentity.of("gga-offload", "targets data_1 127.0.0.1:7001; 1024 blocks of 4096 bytes"));
        server.eventConnectionStatusChangedRegister((c, up) -> connEvents.add(up));
        server.eventMsgRecvRegister((c, m, l) -> msgs.add(new String(m, 0, l)));
        spe.connectCtx(server);
        assertThat(server.start()).isEqualTo(DocaError.SUCCESS);
    }

    @AfterEach
    void tearDown() {
        server.stop();
        until(() -> server.state() == CtxState.IDLE, spe);
        spe.close();
    }

    private static void until(BooleanSupplier c, ProgressEngine... pes) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!c.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not reached");
            }
            for (ProgressEngine p : pes) {
                p.progress();
            }
        }
    }

    @Test
    @Timeout(30)
    void clientAndServerLearnEachOthersIdentityAtConnect() {
        ProgressEngine cpe = ProgressEngine.create();
        ComchClient client = ComchClient.create(dev, name);
        assertThat(client.setIdentity(ComchIdentity.of("initiator-comch", "read_write_data_validity_test"))).isEqualTo(
                DocaError.SUCCESS);
        cpe.connectCtx(client);
        client.start();
        until(() -> client.state() == CtxState.RUNNING && server.connection() != null, spe, cpe);
        long me = ProcessHandle.current().pid();
        assertThat(client.serverIdentity()).isEqualTo(new ComchIdentity(me, "gga-offload",
                "targets data_1 127.0.0.1:7001; 1024 blocks of 4096 bytes"));
        assertThat(server.connection().peerIdentity()).isEqualTo(new ComchIdentity(me, "initiator-comch",
                "read_write_data_validity_test"));
        assertThat(client.serverIdentity().matches(Long.toString(me))).isTrue();
        assertThat(client.serverIdentity().matches("gga-offload")).isTrue();
        assertThat(client.serverIdentity().matches("zero-copy")).isFalse();
        assertThat(client.serverIdentity().matches(Long.toString(me + 1))).isFalse();
        client.stop();
        until(() -> client.state() == CtxState.IDLE, spe, cpe);
        cpe.close();
    }

    @Test
    @Timeout(30)
    void aSecondServerOnATakenNameLearnsWhoHoldsItAndTheHolderSeesNoClient() throws Exception {
        AtomicBoolean done = new AtomicBoolean();
        // the holder runs its own engine, as another process would
        Thread holder = Thread.ofPlatform().start(() -> {
            while (!done.get()) {
                spe.progress();
            }
        });
        ComchServer second = ComchServer.create(dev, null, name);
        ProgressEngine pe2 = ProgressEngine.create();
        pe2.connectCtx(second);
        try {
            assertThat(second.start()).isEqualTo(DocaError.IN_USE);
        } finally {
            done.set(true);
            holder.join();
            pe2.close();
        }
        assertThat(second.holder()).isNotNull();
        assertThat(second.holder().pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(second.holder().app()).isEqualTo("gga-offload");
        long end = System.nanoTime() + 100_000_000L;
        while (System.nanoTime() < end) {
            spe.progress();
        }
        assertThat(connEvents).as("the probe was taken for a client").isEmpty();
        assertThat(server.connection()).isNull();
    }

    @Test
    @Timeout(30)
    void aConnectionThatSendsMessagesBeforeHelloIsDropped() throws Exception {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(Comch.socketPath(name)));
            ByteBuffer msg = ComchWire.frame(ComchWire.MSG, 3).put(new byte[] {1, 2, 3}).flip();
            ch.write(msg);
            ch.configureBlocking(false);
            ByteBuffer in = ByteBuffer.allocate(64);
            until(() -> {
                try {
                    return ch.read(in) < 0;
                } catch (java.io.IOException reset) {
                    return true;
                }
            }, spe);
        }
        assertThat(msgs).isEmpty();
        assertThat(connEvents).isEmpty();
    }
}
