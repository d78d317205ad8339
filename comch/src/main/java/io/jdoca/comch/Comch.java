package io.jdoca.comch;

import io.jdoca.core.dev.DevInfo;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * DOCA Comch capability queries and the rendezvous rules of jdoca's Comch transport.
 *
 * <p>Transport: a server listens on a Unix domain socket named after its channel name under a
 * runtime directory ({@link #socketPath(String)}); control messages and consumer announcements travel
 * on it, while the fast path (producer → consumer) runs over shared-memory rings the consumer
 * creates and the peer maps. Both ends must run on this host, as host and DPU share one machine here.
 *
 * <p>Stateless; any thread.
 */
public final class Comch {
    /** DOCA's default channel name of the storage apps. */
    public static final String DEFAULT_CHANNEL_NAME = "doca_storage_comch";
    /**
     * Largest control message ({@code doca_comch_cap_get_max_msg_size}); BlueField reports 4080
     * bytes, and control protocols are written to fit it.
     */
    public static final int MAX_MSG_SIZE = 4080;
    /** Largest immediate data of a producer send ({@code doca_comch_producer_cap_get_max_imm_data_len}). */
    public static final int MAX_IMM_DATA_LEN = 32;
    /** Largest fast-path message a consumer can be configured for. */
    public static final int MAX_CONSUMER_MSG_SIZE = 1 << 20;
    /** Longest channel name ({@code doca_comch_cap_get_max_name_len}, 120 in DOCA minus the terminator). */
    public static final int MAX_NAME_LEN = 119;

    private Comch() {
    }

    /** {@code doca_comch_cap_server_is_supported}: any device of this implementation can host a server. */
    public static boolean capServerIsSupported(DevInfo info) {
        return info != null;
    }

    /** {@code doca_comch_cap_client_is_supported}. */
    public static boolean capClientIsSupported(DevInfo info) {
        return info != null;
    }

    /** {@code doca_comch_cap_get_max_msg_size}. */
    public static int capGetMaxMsgSize(DevInfo info) {
        return MAX_MSG_SIZE;
    }

    /** {@code doca_comch_cap_get_max_clients}: one client per server. */
    public static int capGetMaxClients(DevInfo info) {
        return 1;
    }

    /** {@code doca_comch_producer_cap_get_max_imm_data_len}. */
    public static int capProducerGetMaxImmDataLen(DevInfo info) {
        return MAX_IMM_DATA_LEN;
    }

    /** {@code doca_comch_consumer_cap_get_max_buf_size}. */
    public static int capConsumerGetMaxBufSize(DevInfo info) {
        return MAX_CONSUMER_MSG_SIZE;
    }

    /**
     * The directory of the rendezvous sockets: system property {@code jdoca.comch.dir}, else
     * {@code $XDG_RUNTIME_DIR/jdoca-comch}, else {@code <tmp>/jdoca-comch-<user>}.
     */
    public static Path runtimeDir() {
        String p = ComchProperties.DIR.asString();
        if (!p.isBlank()) {
            return Path.of(p);
        }
        String xdg = System.getenv("XDG_RUNTIME_DIR");
        if (xdg != null && !xdg.isBlank() && Files.isDirectory(Path.of(xdg))) {
            return Path.of(xdg, "jdoca-comch");
        }
        return Path.of(System.getProperty("java.io.tmpdir"), "jdoca-comch-" + System.getProperty("user.name", "user"));
    }

    /**
     * Creates {@link #runtimeDir()} private to this user (mode 0700) if absent; refuses one that
     * another user owns or that others may write to (a squatted directory in a shared tmp would let
     * them replace or intercept the rendezvous sockets). IOException with the reason.
     */
    public static Path ensurePrivateRuntimeDir() throws java.io.IOException {
        Path dir = runtimeDir();
        java.nio.file.attribute.PosixFileAttributeView view;
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.createDirectories(dir.getParent());
                Files.createDirectory(dir, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                        java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                // another process of ours created it meanwhile: checked below
            } catch (UnsupportedOperationException noPosix) {
                Files.createDirectories(dir);
                return dir;
            }
        }
        view = Files.getFileAttributeView(dir, java.nio.file.attribute.PosixFileAttributeView.class,
                java.nio.file.LinkOption.NOFOLLOW_LINKS);
        if (view == null) {
            return dir;
        }
        var attrs = view.readAttributes();
        if (!attrs.isDirectory()) {
            throw new java.io.IOException(dir + " is not a directory (a symbolic link or a file)");
        }
        String me = System.getProperty("user.name");
        if (me != null && !attrs.owner().getName().equals(me)) {
            throw new java.io.IOException(dir + " belongs to " + attrs.owner().getName() + ", not to " + me);
        }
        var perms = attrs.permissions();
        if (perms.contains(java.nio.file.attribute.PosixFilePermission.GROUP_WRITE)
                || perms.contains(java.nio.file.attribute.PosixFilePermission.OTHERS_WRITE)) {
            throw new java.io.IOException(dir + " is writable by others ("
                    + java.nio.file.attribute.PosixFilePermissions.toString(perms) + ")");
        }
        return dir;
    }

    /**
     * Asks the server listening at {@code socket} who it is (a HELLO that only probes: the server
     * answers with its {@link ComchIdentity} and closes, without taking it as a client). Returns the
     * identity, or null if the server accepted but did not answer within {@code timeoutNanos};
     * IOException if nothing listens there (a stale socket file). Control path.
     */
    public static ComchIdentity probe(Path socket, long timeoutNanos) throws java.io.IOException {
        try (java.nio.channels.SocketChannel ch = java.nio.channels.SocketChannel.open(
                java.net.StandardProtocolFamily.UNIX)) {
            ch.connect(java.net.UnixDomainSocketAddress.of(socket));
            java.nio.ByteBuffer hello = ComchWire.hello(ComchWire.PURPOSE_PROBE, ComchIdentity.of("comch-probe", ""));
            while (hello.hasRemaining()) {
                ch.write(hello);
            }
            ch.configureBlocking(false);
            java.nio.ByteBuffer in = java.nio.ByteBuffer.allocate(ComchWire.MAX_FRAME + 8);
            long deadline = System.nanoTime() + timeoutNanos;
            while (System.nanoTime() - deadline < 0) {
                if (ch.read(in) < 0 && in.position() < 5) {
                    return null;
                }
                if (in.position() >= 5 && in.position() >= 4 + in.getInt(0)) {
                    java.nio.ByteBuffer f = in.flip().position(4);
                    try {
                        return f.get() == ComchWire.IDENTITY ? ComchIdentity.decode(f) : null;
                    } catch (RuntimeException malformed) {
                        return null;
                    }
                }
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
            return null;
        }
    }

    /** The socket of channel {@code name}: characters outside {@code [A-Za-z0-9_.-]} become '_'. */
    public static Path socketPath(String name) {
        return runtimeDir().resolve(sanitize(name) + ".sock");
    }

    static String sanitize(String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_NAME_LEN) {
            throw new IllegalArgumentException("channel name must be 1.." + MAX_NAME_LEN + " characters");
        }
        return name.replaceAll("[^A-Za-z0-9_.-]", "_");
    }
}
