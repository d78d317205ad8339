package io.jdoca.nvmf.tgt;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.nvmf.bdev.Bdev;
import io.jdoca.nvmf.bdev.BdevModules;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.resv.NamespaceReservation;
import io.jdoca.nvmf.resv.ReservationStore;
import io.jdoca.sta.Sta;
import io.jdoca.sta.StaNamespace;
import io.jdoca.sta.StaSubsystem;
import io.jdoca.sta.StaTaskRmNs;
import io.jdoca.sta.backend.StaBackend;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The target's subsystems (SPDK's {@code lib/nvmf/subsystem.c}): creation and deletion, their
 * namespaces (added from a bdev or in jdoca's own namespace form, removed once their in-flight
 * I/O drained), allowed hosts and the listeners each one was given. Every change that a host can
 * see raises what it raises in SPDK: the namespace-changed event on the subsystem's controllers,
 * a new discovery log generation.
 *
 * <p>Threads: {@code sta-main} only (plain map, no lock); {@link NvmfTarget} submits each public
 * management method here as a command. The STA rm-ns task completes on {@code sta-main} too (its
 * main context's progress engine).
 */
final class NvmfSubsystems {
    private static final Logger LOG = LoggerFactory.getLogger(NvmfSubsystems.class);

    private final NvmfTarget target;
    private final Map<String, NvmfSubsystem> subsystems = new HashMap<>();
    private final NvmfKeyring keyring = new NvmfKeyring();
    /** nvmf_set_config's dhchap_digests and dhchap_dhgroups. */
    private io.jdoca.nvmf.auth.DhchapPolicy dhchapPolicy = io.jdoca.nvmf.auth.DhchapPolicy.strongestFirst();

    NvmfSubsystems(NvmfTarget target) {
        this.target = target;
        subsystems.put(NvmfSubsystem.DISCOVERY_NQN, new NvmfSubsystem(NvmfSubsystem.DISCOVERY_NQN, null, "discovery",
                "jdoca discovery", true));
    }

    /** The target's keys (SPDK's keyring). */
    NvmfKeyring keyring() {
        return keyring;
    }

    /** The hashes and DH groups a DH-HMAC-CHAP transaction may choose, in order of preference. */
    io.jdoca.nvmf.auth.DhchapPolicy dhchapPolicy() {
        return dhchapPolicy;
    }

    void dhchapPolicy(io.jdoca.nvmf.auth.DhchapPolicy p) {
        this.dhchapPolicy = p;
    }

    NvmfSubsystem get(String nqn) {
        return nqn == null ? null : subsystems.get(nqn);
    }

    /** Every subsystem (the discovery one too), by NQN. */
    List<NvmfSubsystem> all() {
        List<NvmfSubsystem> l = new ArrayList<>(subsystems.values());
        l.sort((a, b) -> a.nqn().compareTo(b.nqn()));
        return l;
    }

    /** An NVM subsystem (not the discovery one), or NOT_FOUND. */
    NvmfSubsystem require(String nqn) {
        NvmfSubsystem s = subsystems.get(nqn);
        if (s == null || s.isDiscovery()) {
            throw new DocaException(DocaError.NOT_FOUND, "no subsystem " + nqn);
        }
        return s;
    }

    // ------------------------------------------------------------------ subsystems

    /** See {@link NvmfTarget#createSubsystem(TargetConfig.SubsystemConfig, boolean)}. */
    NvmfSubsystem create(TargetConfig.SubsystemConfig c, boolean fromConfig, int maxNamespaces) {
        if (!fromConfig) {
            // The JSON is validated as a whole (TargetConfig.validate) by the app before start.
            c.validate("");
        }
        if (c.nqn() == null || subsystems.containsKey(c.nqn())) {
            throw new ConfigException("nqn", "subsystem " + c.nqn() + " already exists");
        }
        checkCntlidRange(c);
        StaSubsystem s = target.sta().subsystemCreate(c.nqn());
        NvmfSubsystem ns = new NvmfSubsystem(c.nqn(), s, c.serialNumber(), c.modelNumber(), c.allowAnyHost());
        ns.setFollowsTopLevelListeners(fromConfig && c.listeners() == null);
        ns.setMaxNamespaces(maxNamespaces);
        ns.setAnaReporting(c.anaReporting());
        ns.setCntlidRange(c.minCntlid(), c.maxCntlid(), c.explicitCntlidRange());
        for (String h : c.hosts()) {
            ns.addHost(h);
        }
        subsystems.put(c.nqn(), ns);
        try {
            if (c.listeners() != null) {
                for (TargetConfig.ListenerConfig l : c.listeners()) {
                    try {
                        int port = addListener(c.nqn(), l.trtype(), l.address(), l.port());
                        if (l.anaState() != null) {
                            setAnaState(c.nqn(), l.trtype(), l.address(), port, anaState(l.anaState()), 0, false);
                        }
                    } catch (IOException e) {
                        throw new DocaException(DocaError.OPERATING_SYSTEM, e.getMessage(), e);
                    }
                }
            }
            for (TargetConfig.NamespaceConfig n : c.namespaces()) {
                addNamespace(c.nqn(), n);
            }
        } catch (RuntimeException e) {
            delete(c.nqn()); // nothing can be in flight: no host could connect while this command ran
            throw e;
        }
        target.discovery().changed();
        LOG.info("subsystem {} created ({} namespace(s), allow_any_host={})", c.nqn(), c.namespaces().size(),
                c.allowAnyHost());
        return ns;
    }

    /**
     * Controller id ranges the operator chose must not overlap in one process: carving the id space
     * is how two targets serving one NQN keep their ids apart, and an overlap here means the carving
     * is wrong. SPDK's default full range overlaps everything and is exempt.
     */
    private void checkCntlidRange(TargetConfig.SubsystemConfig c) {
        if (!c.explicitCntlidRange()) {
            return;
        }
        for (NvmfSubsystem o : subsystems.values()) {
            if (o.explicitCntlidRange() && c.minCntlid() <= o.maxCntlid() && o.minCntlid() <= c.maxCntlid()) {
                throw new ConfigException("min_cntlid", "controller ids " + c.minCntlid() + ".." + c.maxCntlid()
                        + " overlap " + o.nqn() + "'s " + o.minCntlid() + ".." + o.maxCntlid());
            }
        }
    }

    /**
     * Deletes a subsystem: disconnects its controllers, removes its namespaces and back-ends, closes
     * the listeners nobody uses any more. The result completes once the namespaces with I/O still
     * in flight have drained (rm-ns tasks); at once when there is none.
     */
    CompletableFuture<Void> delete(String nqn) {
        NvmfSubsystem s = require(nqn);
        target.controllerRegistry().killAll(c -> c.subsystem() == s, "subsystem deleted");
        target.controllerRegistry().subsystemDeleted(s);
        subsystems.remove(nqn);
        List<CompletableFuture<Void>> draining = new ArrayList<>();
        for (StaNamespace ns : s.sta().namespaces()) {
            DocaError e = s.sta().rmNs(ns);
            if (e == DocaError.SUCCESS) {
                target.bdevTable().release(ns.backend());
            } else if (e == DocaError.IN_USE) {
                draining.add(removeWhenDrained(s, ns));
            }
        }
        target.listenerTable().closeUnused(subsystems.values());
        target.discovery().changed();
        CompletableFuture<Void> done = CompletableFuture.allOf(draining.toArray(CompletableFuture[]::new));
        return done.thenRun(() -> {
            DocaError e = target.sta().subsystemDestroy(s.sta());
            if (e != DocaError.SUCCESS) {
                LOG.warn("subsystem {} destroy: {}", nqn, e);
            }
            LOG.info("subsystem {} deleted", nqn);
        });
    }

    // ------------------------------------------------------------------ hosts

    void addHost(String nqn, String host) {
        addHost(nqn, host, null, null);
    }

    /**
     * SPDK's {@code nvmf_subsystem_add_host}: allows {@code host}; with {@code dhchapKey} (a keyring
     * name) the host must authenticate every queue, with {@code ctrlrKey} too the controller proves
     * itself back (bidirectional).
     */
    void addHost(String nqn, String host, String dhchapKey, String ctrlrKey) {
        NvmfSubsystem s = require(nqn);
        checkKeys(dhchapKey, ctrlrKey);
        s.addHost(host);
        s.setHostKeys(host, dhchapKey == null ? null : new NvmfSubsystem.HostKeys(dhchapKey, ctrlrKey));
        target.discovery().changed();
    }

    /** SPDK's {@code nvmf_subsystem_set_keys}: new keys for an allowed host (for its next authentications). */
    void setKeys(String nqn, String host, String dhchapKey, String ctrlrKey) {
        NvmfSubsystem s = require(nqn);
        if (!s.hosts().contains(host)) {
            throw new DocaException(DocaError.NOT_FOUND, nqn + " has no host " + host);
        }
        checkKeys(dhchapKey, ctrlrKey);
        s.setHostKeys(host, dhchapKey == null ? null : new NvmfSubsystem.HostKeys(dhchapKey, ctrlrKey));
    }

    /** The configured TLS PSK host {@code host} was given on subsystem {@code sub} (add_host --psk), or null. */
    io.jdoca.sta.nvmf.tls.NvmeTlsKey tlsKey(String host, String sub) {
        NvmfSubsystem s = subsystems.get(sub);
        String name = s == null || s.isDiscovery() || !s.hosts().contains(host) ? null : s.hostPsk(host);
        NvmfKeyring.Key k = keyring.get(name);
        return k == null ? null : k.tls();
    }

    /** SPDK's add_host --psk: {@code host} reaches {@code nqn} over TLS with key {@code psk} (null: none). */
    void setHostPsk(String nqn, String host, String psk) {
        if (psk != null && (keyring.get(psk) == null || keyring.get(psk).tls() == null)) {
            throw new ConfigException("psk", "no TLS key " + psk + " in the keyring (keyring_file_add_key first, "
                    + "a file holding NVMeTLSkey-1:...)");
        }
        require(nqn).setHostPsk(host, psk);
    }

    private void checkKeys(String dhchapKey, String ctrlrKey) {
        if (ctrlrKey != null && dhchapKey == null) {
            throw new ConfigException("dhchap_ctrlr_key", "only with dhchap_key (the host authenticates first)");
        }
        for (String k : new String[] {dhchapKey, ctrlrKey}) {
            if (k != null && (keyring.get(k) == null || keyring.get(k).dhchap() == null)) {
                throw new ConfigException(k == dhchapKey ? "dhchap_key" : "dhchap_ctrlr_key", "no key " + k
                        + " in the keyring (keyring_file_add_key first)");
            }
        }
    }

    /** Disallows {@code host}: its controllers on the subsystem are torn down (unless any host may connect). */
    void removeHost(String nqn, String host) {
        NvmfSubsystem s = require(nqn);
        s.removeHost(host);
        s.setHostKeys(host, null);
        s.setHostPsk(host, null);
        target.controllerRegistry().killAll(c -> c.subsystem() == s && c.hostNqn().equals(host) && !s.allowAnyHost(),
                "host removed");
        target.discovery().changed();
    }

    // ------------------------------------------------------------------ listeners

    /** See {@link NvmfTarget#addSubsystemListener(String, String, String, int)}. */
    int addListener(String nqn, String trtype, String address, int port) throws IOException {
        return addListener(nqn, trtype, address, port, false);
    }

    /** {@link #addListener(String, String, String, int)}; {@code secure}: a TLS listener (SPDK's secure_channel). */
    int addListener(String nqn, String trtype, String address, int port, boolean secure) throws IOException {
        NvmfSubsystem s = subsystems.get(nqn); // the discovery subsystem too: a discovery-only port
        if (s == null) {
            throw new DocaException(DocaError.NOT_FOUND, "no subsystem " + nqn);
        }
        InetAddress ip = TargetConfig.ipLiteral("listen_address.traddr", address);
        NvmfListeners.Listener use = port != 0 ? target.listenerTable().find(trtype, ip, port) : null;
        if (use != null && use.secure() != secure) {
            throw new ConfigException("secure_channel", address + ":" + port + " is already open "
                    + (use.secure() ? "with" : "without") + " a secure channel");
        }
        if (use == null) {
            use = target.listenerTable().open(trtype, address, port, false, secure);
        }
        s.addListener(use.key());
        target.discovery().changed();
        return use.port();
    }

    /** See {@link NvmfTarget#removeSubsystemListener(String, String, String, int)}. */
    void removeListener(String nqn, String trtype, String address, int port) {
        NvmfSubsystem s = subsystems.get(nqn);
        if (s == null) {
            throw new DocaException(DocaError.NOT_FOUND, "no subsystem " + nqn);
        }
        InetAddress ip = TargetConfig.ipLiteral("listen_address.traddr", address);
        NvmfListeners.Listener l = target.listenerTable().find(trtype, ip, port);
        if (!target.listenerTable().removeFrom(s, trtype, ip, port)) {
            throw new DocaException(DocaError.NOT_FOUND, nqn + " has no listener " + address + ":" + port);
        }
        if (l != null) {
            s.forgetAna(l.key());
        }
        target.listenerTable().closeUnused(subsystems.values());
        target.discovery().changed();
    }

    /**
     * SPDK's {@code nvmf_subsystem_listener_set_ana_state}: the ANA state of group {@code anagrpid}
     * (0: every group) as hosts see it through the listener; the subsystem's controllers on that
     * listener get the ANA change notice, and from now on I/O there obeys the new state.
     */
    void setAnaState(String nqn, String trtype, String address, int port, int state, int anagrpid,
                     boolean transition) {
        NvmfSubsystem s = require(nqn);
        if (!s.anaReporting()) {
            throw new ConfigException("ana_state", nqn + " does not report ANA (create it with ana_reporting, -r)");
        }
        if (anagrpid < 0 || anagrpid > s.anaGroupMax()) {
            throw new ConfigException("anagrpid", anagrpid + " is out of range 1.." + s.anaGroupMax()
                    + " (the subsystem's max_namespaces)");
        }
        InetAddress ip = TargetConfig.ipLiteral("listen_address.traddr", address);
        NvmfListeners.Listener l = target.listenerTable().find(trtype, ip, port);
        if (l == null || !NvmfListeners.reachableOn(s, l)) {
            throw new DocaException(DocaError.NOT_FOUND, nqn + " has no " + trtype.toLowerCase(java.util.Locale.ROOT)
                    + " listener " + address + ":" + port);
        }
        if (!transition) {
            s.anaOf(l.key()).set(anagrpid, state);
        } else if (!s.anaOf(l.key()).beginTransition(anagrpid, state)) {
            return; // already there: nothing changes, nobody is told
        }
        s.anaChanged();
        target.controllerRegistry().anaChanged(s, l.key());
        LOG.info("{}: ANA state of group {} on {} {} {}", nqn, anagrpid == 0 ? "(all)" : anagrpid, l.key(),
                transition ? "changing to" : "is", anaStateName(state));
    }

    /**
     * Ends the ANA transitions {@link #setAnaState} began (they last until the management agent's
     * next periodic tick, at most {@link NvmfMain#KEEP_ALIVE_PERIOD_NANOS}, well inside ANATT): each
     * group takes its new state and the controllers on that listener are told again. sta-main.
     */
    void settleAna() {
        for (NvmfSubsystem s : subsystems.values()) {
            if (!s.anaReporting()) {
                continue;
            }
            for (String key : s.anaListenerKeys()) {
                if (s.anaOf(key).settle()) {
                    s.anaChanged();
                    target.controllerRegistry().anaChanged(s, key);
                    LOG.info("{}: ANA transition on {} done", s.nqn(), key);
                }
            }
        }
    }

    /** An ANA state from SPDK's name (the states a listener may be set to); ConfigException otherwise. */
    static int anaState(String name) {
        return switch (name.toLowerCase(java.util.Locale.ROOT)) {
            case "optimized" -> io.jdoca.sta.nvmf.NvmfListenerAna.OPTIMIZED;
            case "non_optimized" -> io.jdoca.sta.nvmf.NvmfListenerAna.NON_OPTIMIZED;
            case "inaccessible" -> io.jdoca.sta.nvmf.NvmfListenerAna.INACCESSIBLE;
            default -> throw new ConfigException("ana_state", "\"" + name
                    + "\" is not an ANA state (optimized, non_optimized, inaccessible)");
        };
    }

    /** SPDK's names of the ANA states (rpc.py's -n values). */
    static String anaStateName(int state) {
        return switch (state) {
            case io.jdoca.sta.nvmf.NvmfListenerAna.OPTIMIZED -> "optimized";
            case io.jdoca.sta.nvmf.NvmfListenerAna.NON_OPTIMIZED -> "non_optimized";
            case io.jdoca.sta.nvmf.NvmfListenerAna.INACCESSIBLE -> "inaccessible";
            case io.jdoca.sta.nvmf.NvmfListenerAna.PERSISTENT_LOSS -> "persistent_loss";
            default -> "change";
        };
    }

    // ------------------------------------------------------------------ namespaces

    /** See {@link NvmfTarget#addNamespace}. */
    int addNamespace(String nqn, TargetConfig.NamespaceConfig n) {
        NvmfSubsystem s = require(nqn);
        n.validate("namespace");
        BdevModules.checkNamespace(n, "namespace");
        int nsid = pickNsid(s, n.nsid(), "namespace.nsid");
        NvmfBdevs.Made made = target.bdevTable().createForNamespace(nqn + "/ns" + nsid, n,
                n.uuid() != null ? UUID.fromString(n.uuid()) : s.uuid(nsid));
        try {
            attach(s, nsid, made.bdev(), n.uuid() != null ? made.bdev().uuid() : null, null, n.anagrpid(),
                    n.ptplFile());
        } catch (RuntimeException e) {
            target.bdevTable().discard(made);
            throw e;
        }
        target.fileCreated(made.createdFile());
        return nsid;
    }

    /** See {@link NvmfTarget#addBdevNamespace}. */
    int addBdevNamespace(String nqn, int nsid, String bdevName, UUID uuid, byte[] nguid, int anagrpid,
                         String ptplFile) {
        NvmfSubsystem s = require(nqn);
        Bdev d = target.bdevTable().get(bdevName);
        if (d == null) {
            throw new DocaException(DocaError.NOT_FOUND, "no bdev " + bdevName);
        }
        if (d.claimedBy() != null) {
            throw new DocaException(DocaError.IN_USE, "bdev " + bdevName + " is already claimed by " + d.claimedBy());
        }
        int id = pickNsid(s, nsid, "namespace.nsid");
        attach(s, id, d, uuid != null ? uuid : d.uuid(), nguid, anagrpid, ptplFile);
        return id;
    }

    private static int pickNsid(NvmfSubsystem s, int nsid, String field) {
        if (nsid > s.maxNamespaces()) {
            throw new ConfigException(field, nsid + " is above the subsystem's max_namespaces " + s.maxNamespaces());
        }
        if (nsid == 0) {
            nsid = 1;
            while (s.sta().ns(nsid) != null) {
                nsid++;
            }
            if (nsid > s.maxNamespaces()) {
                throw new DocaException(DocaError.FULL, s.nqn() + " already has max_namespaces " + s.maxNamespaces()
                        + " namespaces");
            }
        } else if (s.sta().ns(nsid) != null) {
            throw new ConfigException(field, "namespace " + nsid + " already exists in " + s.nqn());
        }
        return nsid;
    }

    private void attach(NvmfSubsystem s, int nsid, Bdev d, UUID uuid, byte[] nguid, int anagrpid, String ptplFile) {
        if (anagrpid < 0 || anagrpid > s.anaGroupMax()) {
            throw new ConfigException("namespace.anagrpid", anagrpid + " is out of range 1.." + s.anaGroupMax()
                    + " (the subsystem's max_namespaces)");
        }
        NamespaceReservation resv = reservation(ptplFile, uuid != null ? uuid : s.uuid(nsid));
        s.sta().addNs(nsid, d.blockSize(), 1, d.backend());
        StaNamespace added = s.sta().ns(nsid);
        added.setAnaGroup(anagrpid == 0 ? nsid : anagrpid);
        s.setReservation(nsid, resv);
        added.setReservation(resv.view());
        d.claim(s.nqn() + " nsid " + nsid);
        s.setUuid(nsid, uuid);
        s.setNguid(nsid, nguid);
        LOG.info("namespace {} of {}: bdev {} ({} back-end, {} B, {}-byte blocks)", nsid, s.nqn(), d.name(),
                d.backend().kind(), d.backend().sizeBytes(), d.blockSize());
        target.controllerRegistry().namespaceChanged(s, nsid);
    }

    /**
     * A namespace's reservation state: with {@code ptplFile} (SPDK's ptpl_file, named by the
     * operator) loaded from it and kept in it while PTPL is on; else held in memory only.
     */
    private static NamespaceReservation reservation(String ptplFile, UUID uuid) {
        if (ptplFile == null) {
            return new NamespaceReservation();
        }
        try {
            return NamespaceReservation.load(new ReservationStore(java.nio.file.Path.of(ptplFile), uuid.toString()));
        } catch (IOException | RuntimeException e) {
            throw new ConfigException("namespace.ptpl_file", ptplFile + ": " + e.getMessage());
        }
    }

    /**
     * Removes a namespace: new I/O to it fails at once (Invalid Namespace); the result completes
     * once the I/O in flight drained (STA's rm-ns task), its back-end released and the hosts told.
     */
    CompletableFuture<Void> removeNamespace(String nqn, int nsid) {
        NvmfSubsystem s = subsystems.get(nqn);
        StaNamespace ns = s == null || s.isDiscovery() ? null : s.ns(nsid);
        if (ns == null) {
            return CompletableFuture.failedFuture(new DocaException(DocaError.NOT_FOUND, "no namespace " + nsid
                    + " in " + nqn));
        }
        return removeWhenDrained(s, ns).thenRun(() -> {
            s.setReservation(ns.nsid(), null);
            target.controllerRegistry().namespaceChanged(s, ns.nsid());
            LOG.info("namespace {} of {} removed", ns.nsid(), nqn);
        });
    }

    /**
     * Submits STA's rm-ns task for {@code ns}; completes (on sta-main) once it detached and its
     * back-end is released.
     */
    private CompletableFuture<Void> removeWhenDrained(NvmfSubsystem s, StaNamespace ns) {
        Sta sta = target.sta();
        CompletableFuture<Void> f = new CompletableFuture<>();
        StaTaskRmNs t = sta.taskRmNsAllocInit(ns, 0);
        if (t == null) {
            return CompletableFuture.failedFuture(new DocaException(sta.lastError(), "rm_ns task"));
        }
        t.setUserObject(f);
        DocaError e = t.submit();
        if (e != DocaError.SUCCESS) {
            t.free();
            return CompletableFuture.failedFuture(new DocaException(e, "rm_ns submit"));
        }
        return f.thenRun(() -> target.bdevTable().release(ns.backend()));
    }

    /** STA's rm-ns task completed (sta-main: the main context's progress). */
    @SuppressWarnings("unchecked")
    static void finishRmNs(StaTaskRmNs t, boolean ok) {
        CompletableFuture<Void> f = (CompletableFuture<Void>) t.userObject();
        t.free();
        if (ok) {
            f.complete(null);
        } else {
            f.completeExceptionally(new DocaException(DocaError.IO_FAILED, "rm_ns failed"));
        }
    }

    // ------------------------------------------------------------------ descriptions

    /** See {@link NvmfTarget#describeSubsystems}. */
    List<Map<String, Object>> describe(String onlyNqn) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (NvmfSubsystem s : all()) {
            if (onlyNqn != null && !onlyNqn.equals(s.nqn())) {
                continue;
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("nqn", s.nqn());
            m.put("subtype", s.isDiscovery() ? "Discovery" : "NVMe");
            m.put("listen_addresses", target.listenerTable().addressesOf(s, false));
            m.put("allow_any_host", s.allowAnyHost());
            m.put("hosts", s.hosts().stream().sorted().map(h -> Map.of("nqn", h)).toList());
            if (!s.isDiscovery()) {
                m.put("serial_number", s.serial());
                m.put("model_number", s.model());
                m.put("max_namespaces", s.maxNamespaces());
                m.put("min_cntlid", s.minCntlid());
                m.put("max_cntlid", s.maxCntlid());
                m.put("ana_reporting", s.anaReporting());
                List<Map<String, Object>> nss = new ArrayList<>();
                for (StaNamespace ns : s.sta().namespaces()) {
                    nss.add(describe(s, ns));
                }
                m.put("namespaces", nss);
            }
            out.add(m);
        }
        return out;
    }

    private static Map<String, Object> describe(NvmfSubsystem s, StaNamespace ns) {
        StaBackend b = ns.backend();
        Map<String, Object> n = new LinkedHashMap<>();
        n.put("nsid", ns.nsid());
        n.put("bdev_name", b.name());
        n.put("name", b.name());
        n.put("nguid", HexFormat.of().withUpperCase().formatHex(s.nguid(ns.nsid())));
        n.put("uuid", s.uuid(ns.nsid()).toString());
        n.put("anagrpid", ns.anaGroup());
        NamespaceReservation r = s.reservation(ns.nsid());
        if (r != null && r.store() != null) {
            n.put("ptpl_file", r.store().file().toString());
        }
        n.put("no_auto_visible", false);
        n.put("block_size", ns.blockSize());
        n.put("num_blocks", ns.sizeBlocks());
        n.put("backend", b.kind());
        return n;
    }
}
