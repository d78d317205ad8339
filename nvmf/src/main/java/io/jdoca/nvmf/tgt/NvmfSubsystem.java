package io.jdoca.nvmf.tgt;

import io.jdoca.sta.StaNamespace;
import io.jdoca.sta.StaSubsystem;
import io.jdoca.sta.nvmf.NvmfListenerAna;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The target's view of a subsystem (SPDK's {@code spdk_nvmf_subsystem}): the library's
 * {@link StaSubsystem} plus what the controller logic needs (serial and model numbers, host
 * allow-list, listeners, namespace UUIDs and NGUIDs). The discovery subsystem has no StaSubsystem.
 *
 * <p>Threads: changed only by {@code sta-main} (the package-private setters, called by
 * {@link NvmfSubsystems}). Every mutable value is a volatile scalar or an immutable set or map
 * that a change replaces, so any thread may read a consistent snapshot with the public getters;
 * the ANA tables ({@link #anaOf}) and change count are {@code sta-main}'s alone (IO engines read
 * a table's states through the {@link NvmfListenerAna} their queue was given).
 */
public final class NvmfSubsystem {
    public static final String DISCOVERY_NQN = "nqn.2014-08.org.nvmexpress.discovery";

    private final String nqn;
    private final StaSubsystem sta;
    private final String serial;
    private final String model;
    private volatile boolean allowAnyHost;
    private volatile Set<String> hosts = Set.of();
    private volatile Map<Integer, UUID> uuids = Map.of();
    private volatile Map<Integer, byte[]> nguids = Map.of();
    /** SPDK's max_namespaces: nsids 1..this (at most the STA subsystem's own limit). */
    private volatile int maxNamespaces;
    /** "address:port" of the listeners this subsystem was given (SPDK's listen addresses). */
    private volatile Set<String> listeners = Set.of();
    /** Defined by the JSON without listeners of its own: also reachable on the top-level ones. */
    private volatile boolean followsTopLevel;
    /** SPDK's ana_reporting: CMIC bit 3, the ANA log page and ANA states per listener. */
    private volatile boolean anaReporting;
    /** The controller ids this target hands out for the subsystem (SPDK's min_cntlid, max_cntlid). */
    private volatile int minCntlid = 1;
    private volatile int maxCntlid = NvmfControllers.MAX_CNTLID;
    private volatile boolean explicitCntlidRange;
    /** ANA states per listener key (sta-main only), made on first use: every group optimized. */
    private final Map<String, NvmfListenerAna> ana = new HashMap<>();
    /** DH-HMAC-CHAP key names per host NQN (keyring names; SPDK's add_host --dhchap-key, --dhchap-ctrlr-key). */
    private volatile Map<String, HostKeys> hostKeys = Map.of();
    /** TLS PSK key names per host NQN (keyring names; SPDK's add_host --psk). */
    private volatile Map<String, String> hostPsk = Map.of();
    /** Each namespace's reservation state (sta-main only); the IO engines see its published view. */
    private final Map<Integer, io.jdoca.nvmf.resv.NamespaceReservation> reservations = new HashMap<>();
    private final Map<Integer, Object> reservationStamps = new HashMap<>();
    /** ANA log page change count (Base 2.0 figure 199): bumped on every ANA state change. sta-main. */
    private long anaChangeCount;

    NvmfSubsystem(String nqn, StaSubsystem sta, String serial, String model, boolean allowAnyHost) {
        this.nqn = nqn;
        this.sta = sta;
        this.serial = serial == null ? defaultSerial(nqn) : serial;
        this.model = model == null ? "jdoca STA" : model;
        this.allowAnyHost = allowAnyHost;
        this.maxNamespaces = sta == null ? 0 : sta.maxNamespaces();
    }

    public boolean anaReporting() {
        return anaReporting;
    }

    void setAnaReporting(boolean v) {
        anaReporting = v;
    }

    public int minCntlid() {
        return minCntlid;
    }

    public int maxCntlid() {
        return maxCntlid;
    }

    /** True when the operator chose the range (then it may not overlap another subsystem's chosen one). */
    boolean explicitCntlidRange() {
        return explicitCntlidRange;
    }

    void setCntlidRange(int min, int max, boolean explicit) {
        minCntlid = min;
        maxCntlid = max;
        explicitCntlidRange = explicit;
    }

    /** ANAGRPMAX and NANAGRPID: one group per possible namespace, as SPDK (group ids 1..NN). */
    public int anaGroupMax() {
        return maxNamespaces;
    }

    /** The ANA states of the listener {@code listenerKey} ("address:port"). sta-main. */
    NvmfListenerAna anaOf(String listenerKey) {
        return ana.computeIfAbsent(listenerKey, k -> new NvmfListenerAna(anaGroupMax(), NvmfListenerAna.OPTIMIZED));
    }

    /** The listeners that have ANA states. sta-main. */
    java.util.Set<String> anaListenerKeys() {
        return java.util.Set.copyOf(ana.keySet());
    }

    /** Forgets a listener's ANA states (the subsystem lost the listener). sta-main. */
    void forgetAna(String listenerKey) {
        ana.remove(listenerKey);
    }

    long anaChangeCount() {
        return anaChangeCount;
    }

    void anaChanged() {
        anaChangeCount++;
    }

    /** Namespace {@code nsid}'s reservation state, or null (no such namespace). sta-main. */
    io.jdoca.nvmf.resv.NamespaceReservation reservation(int nsid) {
        return reservations.get(nsid);
    }

    void setReservation(int nsid, io.jdoca.nvmf.resv.NamespaceReservation r) {
        if (r == null) {
            reservations.remove(nsid);
            reservationStamps.remove(nsid);
        } else {
            reservations.put(nsid, r);
            reservationStamps.put(nsid, r.store() == null ? null : r.store().stamp());
        }
    }

    /** The stamp of namespace {@code nsid}'s reservation file when this process last read or wrote it. */
    Object reservationStamp(int nsid) {
        return reservationStamps.get(nsid);
    }

    void setReservationStamp(int nsid, Object stamp) {
        reservationStamps.put(nsid, stamp);
    }

    /** Namespace ids with a reservation state (sta-main). */
    java.util.Set<Integer> reservedNamespaces() {
        return java.util.Set.copyOf(reservations.keySet());
    }

    /** A host's keys: the key it proves itself with, and the controller's key (null: unidirectional). */
    public record HostKeys(String dhchapKey, String ctrlrKey) {
    }

    /** The keys host {@code host} must authenticate with, or null (it need not). */
    public HostKeys hostKeys(String host) {
        return hostKeys.get(host);
    }

    /** Sets (null: clears) the keys of {@code host}. sta-main. */
    void setHostKeys(String host, HostKeys keys) {
        Map<String, HostKeys> m = new HashMap<>(hostKeys);
        if (keys == null) {
            m.remove(host);
        } else {
            m.put(host, keys);
        }
        hostKeys = Map.copyOf(m);
    }

    /** The keyring name of the TLS PSK of {@code host}, or null. */
    public String hostPsk(String host) {
        return hostPsk.get(host);
    }

    /** Sets (null: clears) the TLS PSK key name of {@code host}. sta-main. */
    void setHostPsk(String host, String keyName) {
        Map<String, String> m = new HashMap<>(hostPsk);
        if (keyName == null) {
            m.remove(host);
        } else {
            m.put(host, keyName);
        }
        hostPsk = Map.copyOf(m);
    }

    /** Namespace ids are 1..this (Identify Controller NN). */
    public int maxNamespaces() {
        return maxNamespaces;
    }

    /** SPDK's max_namespaces; 0 = the STA subsystem's limit. sta-main, before namespaces are added. */
    void setMaxNamespaces(int n) {
        int limit = sta == null ? 0 : sta.maxNamespaces();
        maxNamespaces = n <= 0 ? limit : Math.min(n, limit);
    }

    private static String defaultSerial(String nqn) {
        return String.format("JD%016x", nqn.hashCode() & 0xffffffffL).substring(0, 18);
    }

    public String nqn() {
        return nqn;
    }

    public StaSubsystem sta() {
        return sta;
    }

    public boolean isDiscovery() {
        return sta == null;
    }

    public String serial() {
        return serial;
    }

    public String model() {
        return model;
    }

    public boolean allowAnyHost() {
        return allowAnyHost;
    }

    void setAllowAnyHost(boolean v) {
        allowAnyHost = v;
    }

    /** The allowed host NQNs (an immutable snapshot). */
    public Set<String> hosts() {
        return hosts;
    }

    /** Allows {@code host}; false if it already was. sta-main. */
    boolean addHost(String host) {
        if (hosts.contains(host)) {
            return false;
        }
        Set<String> s = new HashSet<>(hosts);
        s.add(host);
        hosts = Set.copyOf(s);
        return true;
    }

    /** No longer allows {@code host}; false if it was not. sta-main. */
    boolean removeHost(String host) {
        if (!hosts.contains(host)) {
            return false;
        }
        Set<String> s = new HashSet<>(hosts);
        s.remove(host);
        hosts = Set.copyOf(s);
        return true;
    }

    public boolean hostAllowed(String hostNqn) {
        return allowAnyHost || hosts.contains(hostNqn);
    }

    /** Gives the subsystem a listener, "address:port" as bound (SPDK's nvmf_subsystem_add_listener). sta-main. */
    void addListener(String key) {
        Set<String> s = new HashSet<>(listeners);
        s.add(key);
        listeners = Set.copyOf(s);
    }

    /** Gives up the listener "address:port"; true if the subsystem had it. sta-main. */
    boolean removeListener(String key) {
        if (!listeners.contains(key)) {
            return false;
        }
        Set<String> s = new HashSet<>(listeners);
        s.remove(key);
        listeners = Set.copyOf(s);
        return true;
    }

    /** Whether the subsystem was given the listener "address:port". */
    public boolean hasListener(String key) {
        return listeners.contains(key);
    }

    public boolean followsTopLevelListeners() {
        return followsTopLevel;
    }

    void setFollowsTopLevelListeners(boolean v) {
        followsTopLevel = v;
    }

    /** Sets (or with null, forgets) a namespace's configured UUID. sta-main. */
    void setUuid(int nsid, UUID uuid) {
        Map<Integer, UUID> m = new HashMap<>(uuids);
        if (uuid == null) {
            m.remove(nsid);
        } else {
            m.put(nsid, uuid);
        }
        uuids = Map.copyOf(m);
    }

    /** The namespace's UUID: configured, else derived from the NQN and nsid (stable across restarts). */
    public UUID uuid(int nsid) {
        UUID u = uuids.get(nsid);
        return u != null ? u : UUID.nameUUIDFromBytes((nqn + "/" + nsid).getBytes(StandardCharsets.UTF_8));
    }

    public byte[] uuidBytes(int nsid) {
        UUID u = uuid(nsid);
        return ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits()).array();
    }

    /** Sets (or with null, clears) a namespace's configured NGUID (16 bytes). sta-main. */
    void setNguid(int nsid, byte[] nguid) {
        Map<Integer, byte[]> m = new HashMap<>(nguids);
        if (nguid == null) {
            m.remove(nsid);
        } else {
            m.put(nsid, nguid.clone());
        }
        nguids = Map.copyOf(m);
    }

    /**
     * NGUID: configured, else the namespace's UUID (SPDK's {@code spdk_nvmf_subsystem_add_ns_ext}:
     * an NGUID not given is the namespace UUID, itself the bdev's UUID unless given), so distinct
     * bdevs never share one.
     */
    public byte[] nguid(int nsid) {
        byte[] set = nguids.get(nsid);
        return set != null ? set.clone() : uuidBytes(nsid);
    }

    public StaNamespace ns(int nsid) {
        return sta == null ? null : sta.ns(nsid);
    }
}
