package io.jdoca.nvmf.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.perf.NvmeTcpHost;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.nvmf.tgt.NvmfTargetOps;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * DH-HMAC-CHAP against the target over NVMe/TCP (issue 33): a host given keys on a subsystem
 * ({@code keyring_file_add_key}, {@code nvmf_subsystem_add_host --dhchap-key --dhchap-ctrlr-key})
 * gets AUTHREQ.ATR in its Connect answers, can do nothing but authenticate until it did
 * (Authentication Required), authenticates the admin and each I/O queue (bidirectionally here) with
 * a test host, and then works; a wrong secret gets AUTH_Failure1 and stays locked out; key files
 * readable by others or not a DHHC-1 secret are refused in one line that holds no secret.
 */
class DhchapTargetTest {
    static final String NQN = "nqn.2024-01.io.jdoca:auth";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:6a646f63-0000-4000-8000-0000000000c1";
    static final int AUTH_REQUIRED = NvmeStatus.of(NvmeStatus.SCT_COMMAND_SPECIFIC, 0x91, true);

    @TempDir
    Path dir;
    NvmfTarget target;
    int port;
    DhchapKey hostKey;
    DhchapKey ctrlKey;

    private Path keyFile(String name, String text, String perms) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(perms));
        return p;
    }

    private static DhchapKey randomKey(DhchapHash transform) {
        byte[] secret = new byte[32];
        DhchapTestHost.RANDOM.nextBytes(secret);
        return DhchapKey.of(transform, secret);
    }

    @BeforeEach
    void up() throws IOException {
        target = new NvmfTarget(TargetConfig.parse("""
                { "subsystems": [ { "nqn": "%s", "allow_any_host": false,
                    "namespaces": [ { "nsid": 1, "backend": "memory", "size_mb": 4, "block_size": 4096 } ] } ] }
                """.formatted(NQN)));
        target.start();
        port = target.addListener("127.0.0.1", 0);
        hostKey = randomKey(null);
        ctrlKey = randomKey(DhchapHash.SHA_256);
        NvmfTargetOps.addKey(target, "key0", keyFile("key0", hostKey.representation(), "rw-------").toString());
        NvmfTargetOps.addKey(target, "ckey0", keyFile("ckey0", ctrlKey.representation(), "rw-------").toString());
        NvmfTargetOps.addHost(target, NQN, HOST, "key0", "ckey0");
    }

    @AfterEach
    void down() {
        target.close();
    }

    private NvmeTcpHost open() throws IOException {
        NvmeTcpHost h = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072);
        h.initialize();
        return h;
    }

    /** One transaction on {@code h}'s queue; returns whether the controller accepted the host. */
    private static boolean authenticate(NvmeTcpHost h, DhchapTestHost host) throws IOException {
        assertEquals(0, h.authSend(host.negotiate())[0]);
        byte[] buf = new byte[4096];
        assertEquals(0, h.authReceive(buf));
        byte[] challenge = Arrays.copyOf(buf, h.lastDataLength());
        assertEquals(0, h.authSend(host.reply(challenge))[0]);
        assertEquals(0, h.authReceive(buf));
        byte[] answer = Arrays.copyOf(buf, h.lastDataLength());
        if ((answer[1] & 0xff) == AuthMessage.ID_FAILURE1) {
            return false;
        }
        byte[] success2 = host.afterSuccess1(answer);
        if (success2 != null) {
            assertEquals(0, h.authSend(success2)[0]);
        }
        return true;
    }

    @Test
    void aKeyedHostAuthenticatesEveryQueueBidirectionallyAndThenWorks() throws IOException {
        try (NvmeTcpHost admin = open(); NvmeTcpHost io = open()) {
            int[] c = admin.connect(0, 31, NQN, HOST, 0xffff, 0);
            assertThat(c[0]).isZero();
            assertThat(c[1] & (1 << 17)).as("AUTHREQ.ATR").isNotZero();
            int cntlid = c[1] & 0xffff;
            assertThat(admin.propertyGet(0x00, true)[0]).as("before authenticating").isEqualTo(AUTH_REQUIRED);
            assertThat(authenticate(admin, new DhchapTestHost(HOST, NQN, hostKey, ctrlKey))).isTrue();
            assertThat(admin.propertySet(0x14, 1 | (6 << 16) | (4 << 20))[0]).isZero();

            int[] ioc = io.connect(1, 31, NQN, HOST, cntlid, 0);
            assertThat(ioc[0]).isZero();
            assertThat(ioc[1] & (1 << 17)).as("AUTHREQ.ATR on the I/O queue").isNotZero();
            assertThat(io.adminSimple(NvmeOpcode.IO_WRITE_ZEROES, 1, 0, 0)[0]).as("I/O before authenticating")
                    .isEqualTo(AUTH_REQUIRED);
            assertThat(authenticate(io, new DhchapTestHost(HOST, NQN, hostKey, ctrlKey))).isTrue();
            assertThat(io.adminSimple(NvmeOpcode.IO_WRITE_ZEROES, 1, 0, 0)[0]).as("I/O after").isZero();
        }
    }

    /** nvmf_set_config's dhchap_digests and dhchap_dhgroups: the target chooses only among them. */
    @Test
    void theTargetsDigestAndGroupListsDecideWhatIsNegotiated() throws IOException {
        NvmfTargetOps.setDhchapPolicy(target, DhchapPolicy.ofNames(List.of("sha256"), List.of("ffdhe2048")));
        try (NvmeTcpHost admin = open(); NvmeTcpHost other = open()) {
            admin.connect(0, 31, NQN, HOST, 0xffff, 0);
            DhchapTestHost all = new DhchapTestHost(HOST, NQN, hostKey, ctrlKey);
            assertThat(authenticate(admin, all)).isTrue();
            assertThat(all.hash).as("the only digest allowed, although the host prefers none").isEqualTo(
                    DhchapHash.SHA_256);
            assertThat(all.dhGroup).isEqualTo(DhchapDhGroup.FFDHE2048);

            other.connect(0, 31, NQN, HOST, 0xffff, 0);
            DhchapTestHost sha512 = new DhchapTestHost(HOST, NQN, hostKey, ctrlKey);
            sha512.hashIds = new int[] {DhchapHash.SHA_512.id()};
            assertEquals(0, other.authSend(sha512.negotiate())[0]);
            byte[] buf = new byte[4096];
            assertEquals(0, other.authReceive(buf));
            assertThat(buf[1] & 0xff).as("AUTH_Failure1 for a digest the target does not allow")
                    .isEqualTo(AuthMessage.ID_FAILURE1);
            assertThat(other.propertyGet(0x00, true)[0]).isEqualTo(AUTH_REQUIRED);
        }
    }

    /**
     * Re-authentication (Linux's host runs it when its secret changes in sysfs): an authenticated admin or I/O queue
     * runs a new transaction and keeps working; after {@code nvmf_subsystem_set_keys} only the new key passes, and a
     * failed re-authentication tears the controller down (its queues closed by the target).
     */
    @Test
    @Timeout(60)
    void anAuthenticatedQueueReauthenticatesAndAFailedOneEndsTheController() throws Exception {
        try (NvmeTcpHost admin = open(); NvmeTcpHost io = open()) {
            int cntlid = admin.connect(0, 31, NQN, HOST, 0xffff, 0)[1] & 0xffff;
            assertThat(authenticate(admin, new DhchapTestHost(HOST, NQN, hostKey, ctrlKey))).isTrue();
            assertThat(admin.propertySet(0x14, 1 | (6 << 16) | (4 << 20))[0]).isZero();
            assertThat(io.connect(1, 31, NQN, HOST, cntlid, 0)[0]).isZero();
            assertThat(authenticate(io, new DhchapTestHost(HOST, NQN, hostKey, ctrlKey))).isTrue();

            assertThat(authenticate(admin, new DhchapTestHost(HOST, NQN, hostKey, ctrlKey))).as("again").isTrue();
            assertThat(authenticate(io, new DhchapTestHost(HOST, NQN, hostKey, ctrlKey))).as("I/O again").isTrue();
            assertThat(io.adminSimple(NvmeOpcode.IO_WRITE_ZEROES, 1, 0, 0)[0]).isZero();
            assertThat(admin.propertyGet(0x1c, false)[0]).as("the admin queue still works").isZero();

            // A host that starts over mid-transaction gets a fresh one.
            DhchapTestHost h = new DhchapTestHost(HOST, NQN, hostKey, ctrlKey);
            assertEquals(0, admin.authSend(h.negotiate())[0]);
            assertThat(authenticate(admin, new DhchapTestHost(HOST, NQN, hostKey, ctrlKey))).as("restarted").isTrue();

            // Rotation: the target's key changes; the new key passes, the old one ends the controller.
            DhchapKey next = randomKey(DhchapHash.SHA_384);
            NvmfTargetOps.addKey(target, "key1", keyFile("key1", next.representation(), "rw-------").toString());
            NvmfTargetOps.setKeys(target, NQN, HOST, "key1", "ckey0");
            assertThat(authenticate(admin, new DhchapTestHost(HOST, NQN, next, ctrlKey))).as("new key").isTrue();
            assertThat(authenticate(io, new DhchapTestHost(HOST, NQN, hostKey, ctrlKey))).as("old key").isFalse();
            assertThatThrownBy(() -> {
                for (int i = 0; i < 50; i++) {
                    admin.propertyGet(0x1c, false);
                }
            }).as("the controller is gone").isInstanceOf(IOException.class);
        }
    }

    /**
     * A host whose transaction outlasts twice its KATO (a slow CPU computing a large DH group: the Soft-RoCE guest's
     * emulated one took longer than 10 s) keeps its controller: the admin queue answers Keep Alive "Authentication
     * Required" until it authenticated, so each step of the transaction counts as its traffic. The pauses are the
     * slow host being simulated, not synchronisation; each is well inside 2 × KATO, their sum well beyond it.
     */
    @Test
    void aSlowTransactionLongerThanTheKeepAliveTimeoutKeepsItsController() throws Exception {
        try (NvmeTcpHost admin = open()) {
            int[] c = admin.connect(0, 31, NQN, HOST, 0xffff, 500);
            assertThat(c[0]).isZero();
            DhchapTestHost host = new DhchapTestHost(HOST, NQN, hostKey, ctrlKey);
            byte[] buf = new byte[4096];
            Thread.sleep(400);
            assertEquals(0, admin.authSend(host.negotiate())[0]);
            Thread.sleep(400);
            assertEquals(0, admin.authReceive(buf));
            byte[] challenge = Arrays.copyOf(buf, admin.lastDataLength());
            Thread.sleep(400);
            assertEquals(0, admin.authSend(host.reply(challenge))[0]);
            Thread.sleep(400);
            assertEquals(0, admin.authReceive(buf));
            byte[] success2 = host.afterSuccess1(Arrays.copyOf(buf, admin.lastDataLength()));
            Thread.sleep(400);
            assertEquals(0, admin.authSend(success2)[0]);
            assertThat(admin.propertySet(0x14, 1 | (6 << 16) | (4 << 20))[0]).as("2 s after Connect, KATO 500 ms")
                    .isZero();
        }
    }

    @Test
    void aWrongSecretIsRefusedAndTheQueueStaysLocked() throws IOException {
        try (NvmeTcpHost admin = open()) {
            int[] c = admin.connect(0, 31, NQN, HOST, 0xffff, 0);
            assertThat(c[1] & (1 << 17)).isNotZero();
            assertThat(authenticate(admin, new DhchapTestHost(HOST, NQN, randomKey(null), null)))
                    .as("a wrong host secret").isFalse();
            assertThat(admin.propertyGet(0x00, true)[0]).isEqualTo(AUTH_REQUIRED);
        }
    }

    @Test
    void keyFilesMustBePrivateAndHoldADhchapSecret() throws IOException {
        Path open = keyFile("open", randomKey(null).representation(), "rw-r--r--");
        assertThatThrownBy(() -> NvmfTargetOps.addKey(target, "k1", open.toString()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("must not be readable by others");
        String secret = hostKey.representation();
        String broken = secret.substring(0, secret.length() - 6) + "AAAA:";
        Path bad = keyFile("bad", broken, "rw-------");
        assertThatThrownBy(() -> NvmfTargetOps.addKey(target, "k2", bad.toString()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("DHHC-1")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(broken.substring(10, 30)));
        assertThat(NvmfTargetOps.keys(target).toString()).contains("key0").contains("ckey0")
                .doesNotContain(secret.substring(10, 30));
        assertThatThrownBy(() -> NvmfTargetOps.addHost(target, NQN, HOST, "nokey", null))
                .isInstanceOf(ConfigException.class).hasMessageContaining("no key nokey");
    }
}
