package io.jdoca.rdma;

import io.jdoca.rdma.wire.RdmaConnectionBlob;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Which addresses a peer's connection blob may make this process reach (jdoca, issue 29 item 3):
 * {@code doca_rdma_connect} dials the TCP address a blob names (or, for VERBS, moves a QP towards
 * the blob's GID), and whoever sends a blob over a control connection chooses it. Rules:
 * <ul>
 *   <li>A blob's host must be an IP literal: a host name is refused, never resolved (no DNS lookup
 *       a peer can trigger).</li>
 *   <li>With an allow-list (the storage apps give the address their control peer connects from,
 *       plus the operator's {@code --allow-peer}), the address dialled must be on it, exactly: a
 *       client of 127.0.0.1 cannot make this process dial 127.0.0.2. A peer that claims to share
 *       this host (its boot id) is dialled on 127.0.0.1, which is allowed only when the list holds an
 *       address of this host (a local peer could reach this host's ports itself).</li>
 *   <li>VERBS: an IPv4-mapped or global IPv6 GID must be on the list too, or, when the list holds an
 *       address of this host, be the address of one of this host's interfaces (Soft-RoCE on eth0
 *       while the control connection runs on loopback). A link-local GID (fe80::/10, on-link only)
 *       and an InfiniBand port (no IP) are not addresses a peer can route elsewhere and pass.</li>
 *   <li>Without a list any literal passes: {@code connect} itself refuses host names only, and the
 *       apps (target-rdma, zero-copy, gga-offload) check their list with {@link #refusal(byte[], List)}
 *       before they connect.</li>
 * </ul>
 * Stateless; any thread (control path: it may look up this host's interfaces).
 */
public final class RdmaPeerAddresses {
    private RdmaPeerAddresses() {
    }

    /**
     * Why {@code blob} may not be connected to under {@code allowed} (null: no list), or null when
     * it may. A malformed blob is not judged here ({@code connect} refuses it with INVALID_VALUE).
     */
    public static String refusal(byte[] blob, List<InetAddress> allowed) {
        RdmaConnectionBlob peer;
        try {
            peer = RdmaConnectionBlob.decode(blob);
        } catch (IllegalArgumentException e) {
            return null;
        }
        return refusal(peer, Rdma.HOST.equals(peer.hostId()), allowed);
    }

    static String refusal(RdmaConnectionBlob peer, boolean sameHost, List<InetAddress> allowed) {
        InetAddress host = null;
        if (!peer.host().isEmpty()) {
            try {
                host = InetAddress.ofLiteral(peer.host());
            } catch (IllegalArgumentException e) {
                return "the peer's connection blob names the host '" + printable(peer.host())
                        + "', not an IP address (host names are refused, never resolved)";
            }
        }
        if (allowed == null) {
            return null;
        }
        boolean localPeer = false;
        for (InetAddress x : allowed) {
            localPeer |= isLocal(x);
        }
        if (peer.tcpPort() != 0 && host != null) {
            boolean ok = sameHost ? localPeer : allowed.contains(host);
            if (!ok) {
                return "the peer's connection blob names " + (sameHost ? "this host (its boot id says it runs here;"
                        + " dialled on " + InetAddress.getLoopbackAddress().getHostAddress()
                        + ")" : host.getHostAddress())
                        + ":" + peer.tcpPort() + ", which is not the control peer's address (" + list(allowed) + ")";
            }
        }
        if (peer.verbs() != null && peer.verbs().linkLayer() != 1) {
            InetAddress gid = gidAddress(peer.verbs().gid());
            if (gid != null && !gid.isLinkLocalAddress() && !allowed.contains(gid)
                    && !(localPeer && !gid.isLoopbackAddress() && isLocal(gid))) {
                return "the peer's connection blob names the GID " + gid.getHostAddress()
                        + ", which is not the control peer's address (" + list(allowed) + ")";
            }
        }
        return null;
    }

    /** A loopback address or one of this host's interface addresses. */
    static boolean isLocal(InetAddress a) {
        if (a.isLoopbackAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(a) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    /** The IP address a 16-byte GID stands for (IPv4-mapped → IPv4), or null if it is none. */
    static InetAddress gidAddress(byte[] gid) {
        boolean zero = true;
        for (byte b : gid) {
            zero &= b == 0;
        }
        if (zero || gid.length != 16) {
            return null;
        }
        try {
            return InetAddress.getByAddress(gid); // an IPv4-mapped GID comes back as the IPv4 address
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private static String list(List<InetAddress> allowed) {
        StringBuilder sb = new StringBuilder();
        for (InetAddress a : allowed) {
            sb.append(sb.isEmpty() ? "" : ", ").append(a.getHostAddress());
        }
        return sb.isEmpty() ? "none allowed" : sb.toString();
    }

    /** A peer's string made safe for one log line (no control characters, at most 64 characters). */
    private static String printable(String s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length() && sb.length() < 64; i++) {
            char c = s.charAt(i);
            sb.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return sb.toString();
    }
}
