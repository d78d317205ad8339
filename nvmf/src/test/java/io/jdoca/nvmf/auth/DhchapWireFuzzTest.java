package io.jdoca.nvmf.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.perf.NvmeTcpHost;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.nvmf.tgt.NvmfTargetOps;
import io.jdoca.sta.nvme.NvmeStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Issue 33 item 4 over the wire: a host connects to a subsystem that requires DH-HMAC-CHAP and sends malformed
 * Authentication Send payloads (random bytes, a valid message with a damaged byte, a transfer length beyond the
 * largest message) and Authentication Receives at any point (random allocation lengths, out of order). Properties:
 * every command is answered or the target closes the connection (the host's reads are bounded: no hang), the queue
 * never becomes usable without a valid transaction, a well-behaved host authenticates and works right after, and
 * once both have gone no controller is left (no leak). The state machine's own fuzzing is
 * {@link DhchapFuzzPropertyTest}'s.
 */
class DhchapWireFuzzTest {
    static final String NQN = "nqn.2024-01.io.jdoca:auth-fuzz";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:6a646f63-0000-4000-8000-00000000f022";
    static final int AUTH_REQUIRED = NvmeStatus.of(NvmeStatus.SCT_COMMAND_SPECIFIC, 0x91, true);
    static Path dir;
    static NvmfTarget target;
    static int port;
    static DhchapKey hostKey;
    static DhchapKey ctrlKey;

    @BeforeContainer
    static void up() throws IOException {
        dir = Files.createTempDirectory("dhchap-wire-fuzz");
        target = new NvmfTarget(TargetConfig.parse("""
                { "subsystems": [ { "nqn": "%s", "allow_any_host": false,
                    "namespaces": [ { "nsid": 1, "backend": "memory", "size_mb": 4, "block_size": 4096 } ] } ] }
                """.formatted(NQN)));
        target.start();
        port = target.addListener("127.0.0.1", 0);
        byte[] s = new byte[32];
        DhchapTestHost.RANDOM.nextBytes(s);
        hostKey = DhchapKey.of(null, s.clone());
        DhchapTestHost.RANDOM.nextBytes(s);
        ctrlKey = DhchapKey.of(DhchapHash.SHA_256, s);
        NvmfTargetOps.addKey(target, "key0", keyFile("key0", hostKey));
        NvmfTargetOps.addKey(target, "ckey0", keyFile("ckey0", ctrlKey));
        NvmfTargetOps.addHost(target, NQN, HOST, "key0", "ckey0");
    }

    private static String keyFile(String name, DhchapKey k) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, k.representation());
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
        return p.toString();
    }

    @AfterContainer
    static void down() throws IOException {
        target.close();
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.delete(p);
            }
        }
        Files.delete(dir);
    }

    @Provide
    Arbitrary<byte[]> garbage() {
        return Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(1200);
    }

    private static NvmeTcpHost open() throws IOException {
        NvmeTcpHost h = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072);
        h.initialize();
        return h;
    }

    @Property(tries = 60)
    void malformedAuthenticationCommandsAreAnsweredOrCloseTheConnection(
            @ForAll @Size(min = 1, max = 6) List<@IntRange(min = 0, max = 3) Integer> steps,
            @ForAll("garbage") byte[] junk, @ForAll long seed) throws Exception {
        Random r = new Random(seed);
        try (NvmeTcpHost h = open()) {
            assertThat(h.connect(0, 31, NQN, HOST, 0xffff, 0)[0]).isZero();
            for (int step : steps) {
                switch (step) {
                    case 0 -> h.authSend(junk);
                    case 1 -> {
                        byte[] m = new DhchapTestHost(HOST, NQN, hostKey, ctrlKey).negotiate();
                        m[r.nextInt(m.length)] ^= (byte) (1 + r.nextInt(255));
                        h.authSend(m);
                    }
                    case 2 -> h.authReceive(new byte[1 + r.nextInt(4096)]);
                    default -> h.authSend(Arrays.copyOf(junk, NvmfAuthenticationLimits.MAX_SEND + 1
                            + r.nextInt(2048)));
                }
            }
            assertThat(h.propertyGet(0x00, true)[0]).as("no valid transaction, no access").isEqualTo(AUTH_REQUIRED);
        } catch (IOException closedByTarget) {
            // Allowed: the target may end a connection that sent nonsense (what matters is what follows); a command
            // left unanswered is not (the host's bounded wait reports it as a timeout).
            assertThat(closedByTarget.getMessage()).doesNotContain("timeout");
        }
        healthy();
        noControllerLeft();
    }

    /** A well-behaved host on the same target authenticates both ways and works. */
    private static void healthy() throws IOException {
        try (NvmeTcpHost h = open()) {
            assertThat(h.connect(0, 31, NQN, HOST, 0xffff, 0)[0]).isZero();
            DhchapTestHost host = new DhchapTestHost(HOST, NQN, hostKey, ctrlKey);
            assertThat(h.authSend(host.negotiate())[0]).isZero();
            byte[] buf = new byte[4096];
            assertThat(h.authReceive(buf)).isZero();
            assertThat(h.authSend(host.reply(Arrays.copyOf(buf, h.lastDataLength())))[0]).isZero();
            assertThat(h.authReceive(buf)).isZero();
            byte[] success2 = host.afterSuccess1(Arrays.copyOf(buf, h.lastDataLength()));
            assertThat(success2).as("the controller proved its key").isNotNull();
            assertThat(h.authSend(success2)[0]).isZero();
            assertThat(h.propertySet(0x14, 1 | (6 << 16) | (4 << 20))[0]).isZero();
        }
    }

    /** Both connections closed: the target forgets their controllers (bounded wait for sta-main to see it). */
    private static void noControllerLeft() {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!NvmfTargetOps.controllers(target, NQN).isEmpty() && System.nanoTime() < end) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        assertThat(NvmfTargetOps.controllers(target, NQN)).as("controllers left behind").isEmpty();
    }

    /** The target's largest Authentication Send (NvmfAuthentication.MAX_SEND, package-private there). */
    static final class NvmfAuthenticationLimits {
        static final int MAX_SEND = 4096;

        private NvmfAuthenticationLimits() {
        }
    }
}
