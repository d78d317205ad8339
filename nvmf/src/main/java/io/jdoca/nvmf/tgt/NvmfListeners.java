package io.jdoca.nvmf.tgt;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.sta.StaQp;
import io.jdoca.sta.nvmf.rdma.NvmeRdmaCmReject;
import io.jdoca.sta.nvmf.rdma.NvmeRdmaConnectRequest;
import io.jdoca.sta.nvmf.tls.NvmeTlsKey;
import io.jdoca.sta.nvmf.tls.NvmeTlsServer;
import io.jdoca.sta.nvmf.tls.TlsChannel;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link NvmfTarget}'s listeners (SPDK's {@code nvmf_tgt_listen_ext} and the subsystem
 * listener table): bound TCP sockets with their acceptor threads and rdma_cm ids listening for
 * NVMe/RDMA; which subsystem a host may reach on which listener; the ports the discovery log names.
 * A connection is handed to the next IO engine, round robin.
 *
 * <p><b>Threads.</b> {@code sta-main} only: opening, closing, changing and looking up listeners
 * (a plain list, no lock). Each TCP listener has its acceptor thread and NVMe/RDMA requests arrive
 * on the rdma_cm service's thread; those threads touch only their own socket or id and hand each
 * connection to an IO engine ({@code StaIo.qpAccept}), never this table. A secure-channel listener's
 * connection first runs its TLS handshake on a virtual thread of its own (at most {@link #HANDSHAKES} at once,
 * each with a deadline of {@link #HANDSHAKE_MS}), so a slow or stalling host holds neither the acceptor nor an
 * IO engine; the PSK is looked up on {@code sta-main} ({@link NvmfSubsystems#tlsKey}).
 */
final class NvmfListeners {
    private static final Logger LOG = LoggerFactory.getLogger(NvmfListeners.class);
    /** How long a host has to complete its TLS handshake (Linux's nvmet: 10 s too, tls_handshake_timeout). */
    static final long HANDSHAKE_MS = 10_000;
    /** TLS handshakes running at once, per target; a connection beyond them is closed. */
    static final int HANDSHAKES = 64;

    /**
     * One listener: a bound TCP socket, or an rdma_cm id listening for NVMe/RDMA ({@code trtype}
     * {@link StaQp#TRTYPE_RDMA}; {@code rdmaId} its address). {@code topLevel}: opened by
     * {@link NvmfTarget#addListener} (the JSON's top-level listeners, {@code --listen}), so given to
     * the subsystems the JSON defines without listeners of their own; otherwise opened for one
     * subsystem by {@link NvmfTarget#addSubsystemListener}. {@code secure}: NVMe/TCP over TLS 1.3 only
     * (SPDK's {@code secure_channel}).
     */
    record Listener(String trtype, String address, InetAddress ip, int port, int portId, boolean topLevel,
                    ServerSocketChannel channel, long rdmaId, Thread thread, AtomicBoolean open, boolean secure) {
        /** TCP listeners keep their historical key "address:port" (saved configurations); RDMA ones are prefixed. */
        String key() {
            return (StaQp.TRTYPE_TCP.equals(trtype) ? "" : "rdma:") + address + ":" + port;
        }

        boolean accepts(String tr, InetAddress local, int localPort) {
            return trtype.equals(tr) && port == localPort && (ip.isAnyLocalAddress() || ip.equals(local));
        }

        boolean isOpen() {
            return open.get() && (channel == null || channel.isOpen());
        }
    }

    private final NvmfTarget target;
    private final List<Listener> listeners = new ArrayList<>();
    private int nextPortId = 1;
    /** The rdma_cm service, opened with the first NVMe/RDMA listener. */
    private RdmaCmService rdmaCm;
    private final Semaphore handshakes = new Semaphore(HANDSHAKES);

    NvmfListeners(NvmfTarget target) {
        this.target = target;
    }

    /** Opens a listener on {@code address:port} (port 0: any free one). */
    Listener open(String trtype, String address, int port, boolean topLevel) throws IOException {
        return open(trtype, address, port, topLevel, false);
    }

    /** {@link #open(String, String, int, boolean)}, {@code secure}: TLS required (TCP only). */
    Listener open(String trtype, String address, int port, boolean topLevel, boolean secure) throws IOException {
        if (secure && !StaQp.TRTYPE_TCP.equals(trtype)) {
            throw new io.jdoca.nvmf.config.ConfigException("secure_channel", "only NVMe/TCP listeners have TLS");
        }
        InetAddress ip = TargetConfig.ipLiteral("address", address);
        if (StaQp.TRTYPE_RDMA.equals(trtype)) {
            NvmfNetworkDevices.checkRdmaListener(target.sta(), ip);
            if (rdmaCm == null) {
                rdmaCm = new RdmaCmService(this::acceptRdma);
            }
            long[] idPort = rdmaCm.listen(ip, port);
            Listener l = new Listener(trtype, TargetConfig.ipText(ip), ip, (int) idPort[1], nextPortId++, topLevel,
                    null, idPort[0], null, new AtomicBoolean(true), false);
            listeners.add(l);
            target.discoveryChanged();
            LOG.info("listening on {}:{} (NVMe/RDMA{})", l.address(), l.port(), topLevel ? "" : ", per subsystem");
            return l;
        }
        ServerSocketChannel ch = ServerSocketChannel.open();
        try {
            ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            ch.bind(new InetSocketAddress(ip, port), 128);
        } catch (IOException e) {
            ch.close();
            throw new IOException("cannot listen on " + address + ":" + port + ": " + e.getMessage(), e);
        }
        int actual = ((InetSocketAddress) ch.getLocalAddress()).getPort();
        if (secure) {
            TlsChannel.recordProtection(); // logs which AES-GCM the records use, once, now rather than at a connection
        }
        Thread t = new Thread(() -> acceptLoop(ch, secure), "sta-listen-" + actual);
        t.setDaemon(true);
        Listener l = new Listener(StaQp.TRTYPE_TCP, TargetConfig.ipText(ip), ip, actual, nextPortId++, topLevel, ch,
                0, t, new AtomicBoolean(true), secure);
        listeners.add(l);
        target.discoveryChanged();
        t.start();
        LOG.info("listening on {}:{} (NVMe/TCP{}{})", l.address(), actual, secure ? " over TLS 1.3" : "",
                topLevel ? "" : ", per subsystem");
        return l;
    }

    /** An open listener of {@code trtype} on {@code port} that covers {@code ip}, or null. */
    Listener find(String trtype, InetAddress ip, int port) {
        Listener use = null;
        for (Listener l : listeners) {
            if (l.trtype().equals(trtype) && l.port() == port && (l.ip().equals(ip) || l.ip().isAnyLocalAddress())) {
                use = l;
            }
        }
        return use;
    }

    /** Takes {@code s} off every listener of {@code trtype} bound exactly to {@code ip:port}; false if it had none. */
    boolean removeFrom(NvmfSubsystem s, String trtype, InetAddress ip, int port) {
        boolean removed = false;
        for (Listener l : listeners) {
            if (l.trtype().equals(trtype) && l.port() == port && l.ip().equals(ip)) {
                removed |= s.removeListener(l.key());
            }
        }
        return removed;
    }

    /** Closes every listener (the target stops): no new connection arrives. */
    void closeAll() {
        for (Listener l : listeners) {
            close(l);
        }
    }

    /** Closes the rdma_cm service, after the engines: every connection's id is gone. */
    void closeRdmaCm() {
        if (rdmaCm != null) {
            rdmaCm.close();
            rdmaCm = null;
        }
    }

    private void close(Listener l) {
        if (!l.open().getAndSet(false)) {
            return;
        }
        if (l.channel() != null) {
            try {
                l.channel().close();
            } catch (IOException e) {
                // closing
            }
        } else if (rdmaCm != null) {
            rdmaCm.unlisten(l.rdmaId());
        }
    }

    /** Closes per-subsystem listeners that no subsystem uses any more (nothing to reach there). */
    void closeUnused(Collection<NvmfSubsystem> subsystems) {
        for (Listener l : new ArrayList<>(listeners)) {
            if (!l.topLevel() && subsystems.stream().noneMatch(s -> s.hasListener(l.key()))) {
                listeners.remove(l);
                close(l);
                LOG.info("listener {} closed: no subsystem uses it", l.key());
            }
        }
    }

    /** A connection request on an NVMe/RDMA listener (rdma_cm thread): the next engine accepts it, round robin. */
    private StaQp acceptRdma(NvmeRdmaConnectRequest req) {
        if (!target.running()) {
            req.reject(NvmeRdmaCmReject.STS_NO_RSC);
            throw new DocaException(DocaError.BAD_STATE, "target stopping: NVMe/RDMA connection from "
                    + req.remoteAddress() + " refused");
        }
        // DOCA's rdma_offload.c: doca_sta_io_qp_connect on the connect request (alloc + accept in one call).
        return target.nextEngine().io.qpConnect(req);
    }

    private void acceptLoop(ServerSocketChannel ch, boolean secure) {
        while (target.running() && ch.isOpen()) {
            try {
                SocketChannel c = ch.accept();
                if (secure) {
                    startHandshake(c);
                    continue;
                }
                NvmfEngine e = target.nextEngine();
                try {
                    // The seed's two calls: doca_sta_io_qp_alloc, then doca_sta_io_qp_accept.
                    StaQp qp = e.io.qpAlloc();
                    e.io.qpAccept(qp, c);
                } catch (DocaException refused) {
                    c.close();
                    throw refused;
                }
                LOG.debug("accepted {} on {}", c.getRemoteAddress(), e.io.name());
            } catch (IOException | DocaException ex) {
                if (target.running() && ch.isOpen()) {
                    LOG.warn("accept failed: {}", ex.getMessage());
                }
            }
        }
    }

    /** A secure listener's connection: TLS first, on a virtual thread; then an engine serves it as any other. */
    private void startHandshake(SocketChannel c) throws IOException {
        SocketAddress from = c.getRemoteAddress();
        if (!handshakes.tryAcquire()) {
            LOG.warn("TLS connection from {} refused: {} handshakes already running", from, HANDSHAKES);
            c.close();
            return;
        }
        Thread.ofVirtual().name("sta-tls-handshake").start(() -> {
            try {
                TlsChannel tls;
                try {
                    c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    tls = TlsChannel.accept(c, new NvmeTlsServer(TlsChannel.crypto(), this::tlsKey), HANDSHAKE_MS);
                } finally {
                    handshakes.release();
                }
                NvmfEngine e = target.nextEngine();
                StaQp qp = e.io.qpAlloc();
                e.io.qpAccept(qp, tls);
                LOG.debug("accepted {} over TLS ({}) on {}", from, tls.identity(), e.io.name());
            } catch (IOException | RuntimeException ex) {
                LOG.warn("TLS connection from {} refused: {}", from, ex.getMessage());
                try {
                    c.close();
                } catch (IOException closing) {
                    // gone already
                }
            }
        });
    }

    /** The configured PSK of {@code host} on {@code sub} (handshake thread; the tables are read on sta-main). */
    private NvmeTlsKey tlsKey(String host, String sub) {
        return target.query("TLS PSK lookup", () -> target.subsystemTable().tlsKey(host, sub));
    }

    // ------------------------------------------------------------------ reachability

    /** The listener a connection came in on (its transport and local address), or null. */
    Listener listenerOf(StaQp qp) {
        if (qp.localAddress() instanceof InetSocketAddress a) {
            for (Listener l : listeners) {
                if (l.isOpen() && l.accepts(qp.transportType(), a.getAddress(), a.getPort())) {
                    return l;
                }
            }
        }
        return null;
    }

    static boolean reachableOn(NvmfSubsystem s, Listener l) {
        return s.isDiscovery() || s.hasListener(l.key()) || (s.followsTopLevelListeners() && l.topLevel());
    }

    /**
     * Whether a host that connected to {@code qp}'s local address may reach {@code s}: the
     * discovery subsystem on every listener, others only on the listeners they were given.
     */
    boolean reachable(NvmfSubsystem s, StaQp qp) {
        Listener l = listenerOf(qp);
        return l != null && reachableOn(s, l);
    }

    /**
     * The listeners {@code s} is reachable on (for save_config): trtype, adrfam, traddr, trsvcid; with
     * {@code secure}, also secure_channel (true) on a TLS listener's (save_config moves it out of the address).
     */
    List<Map<String, Object>> addressesOf(NvmfSubsystem s, boolean secure) {
        List<Map<String, Object>> ls = new ArrayList<>();
        for (Listener l : listeners) {
            if (!s.isDiscovery() && reachableOn(s, l)) {
                Map<String, Object> a = new LinkedHashMap<>();
                a.put("trtype", l.trtype());
                a.put("adrfam", l.ip() instanceof Inet6Address ? "IPv6" : "IPv4");
                a.put("traddr", l.address());
                a.put("trsvcid", Integer.toString(l.port()));
                if (secure && l.secure()) {
                    a.put("secure_channel", true);
                }
                ls.add(a);
            }
        }
        return ls;
    }

    /** The open listeners, in the order they were opened. */
    List<Listener> open() {
        return listeners.stream().filter(Listener::isOpen).toList();
    }

    /** Every listener: trtype, address, port, portid. */
    List<Map<String, Object>> describe() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Listener l : listeners) {
            out.add(Map.of("trtype", l.trtype(), "address", l.address(), "port", l.port(), "portid", l.portId()));
        }
        return out;
    }
}
