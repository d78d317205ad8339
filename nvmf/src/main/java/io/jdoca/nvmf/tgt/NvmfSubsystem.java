package io.jdoca.nvmf.tgt;

import io.jdoca.sta.StaNamespace;
import io.jdoca.sta.StaSubsystem;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The target's view of a subsystem: the library's {@link StaSubsystem} plus what the controller
 * logic needs (serial and model numbers, host allow-list, namespace UUIDs). The discovery
 * subsystem has no StaSubsystem.
 *
 * <p>Thread-safe: concurrent collections; mutated on RPC and control threads.
 */
public final class NvmfSubsystem {
    public static final String DISCOVERY_NQN = "nqn.2014-08.org.nvmexpress.discovery";

    private final String nqn;
    private final StaSubsystem sta;
    private final String serial;
    private final String model;
    private volatile boolean allowAnyHost;
    private final Set<String> hosts = ConcurrentHashMap.newKeySet();
    private final Map<Integer, UUID> uuids = new ConcurrentHashMap<>();
    private final Map<Integer, byte[]> nguids = new ConcurrentHashMap<>();
    /** SPDK's max_namespaces: nsids 1..this (at most the STA subsystem's own limit). */
    private volatile int maxNamespaces;
    /** "address:port" of the listeners this subsystem was given (SPDK's listen addresses). */
    private final Set<String> listeners = ConcurrentHashMap.newKeySet();
    /** Defined by the JSON without listeners of its own: also reachable on the top-level ones. */
    private volatile boolean followsTopLevel;

    public NvmfSubsystem(String nqn, StaSubsystem sta, String serial, String model, boolean allowAnyHost) {
        this.nqn = nqn;
        this.sta = sta;
        this.serial = serial == null ? defaultSerial(nqn) : serial;
        this.model = model == null ? "jdoca STA" : model;
        this.allowAnyHost = allowAnyHost;
        this.maxNamespaces = sta == null ? 0 : sta.maxNamespaces();
    }

    /** Namespace ids are 1..this (Identify Controller NN). */
    public int maxNamespaces() {
        return maxNamespaces;
    }

    /** SPDK's max_namespaces; 0 = the STA subsystem's limit. Control path, before namespaces are added. */
    public void setMaxNamespaces(int n) {
        maxNamespaces = n <= 0 || sta == null ? (sta == null ? 0 : sta.maxNamespaces()) : Math.min(n, sta.maxNamespaces());
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

    public void setAllowAnyHost(boolean v) {
        allowAnyHost = v;
    }

    public Set<String> hosts() {
        return hosts;
    }

    public boolean hostAllowed(String hostNqn) {
        return allowAnyHost || hosts.contains(hostNqn);
    }

    /** Gives the subsystem a listener, "address:port" as bound (SPDK's nvmf_subsystem_add_listener). */
    public void addListener(String key) {
        listeners.add(key);
    }

    /** Whether the subsystem was given the listener "address:port". */
    public boolean hasListener(String key) {
        return listeners.contains(key);
    }

    public boolean followsTopLevelListeners() {
        return followsTopLevel;
    }

    public void setFollowsTopLevelListeners(boolean v) {
        followsTopLevel = v;
    }

    public void setUuid(int nsid, UUID uuid) {
        uuids.put(nsid, uuid);
    }

    /** The namespace's UUID: configured, else derived from the NQN and nsid (stable across restarts). */
    public UUID uuid(int nsid) {
        return uuids.computeIfAbsent(nsid, id -> UUID.nameUUIDFromBytes((nqn + "/" + id).getBytes(StandardCharsets.UTF_8)));
    }

    public byte[] uuidBytes(int nsid) {
        UUID u = uuid(nsid);
        return ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits()).array();
    }

    /** Sets (or with null, clears) a namespace's configured NGUID (16 bytes). */
    public void setNguid(int nsid, byte[] nguid) {
        if (nguid == null) {
            nguids.remove(nsid);
        } else {
            nguids.put(nsid, nguid.clone());
        }
    }

    /** Gives up the listener "address:port"; true if the subsystem had it. */
    public boolean removeListener(String key) {
        return listeners.remove(key);
    }

    /** NGUID: configured, else 16 bytes of SHA-256 over NQN and nsid. */
    public byte[] nguid(int nsid) {
        byte[] set = nguids.get(nsid);
        if (set != null) {
            return set.clone();
        }
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest((nqn + "#" + nsid).getBytes(StandardCharsets.UTF_8));
            byte[] g = new byte[16];
            System.arraycopy(h, 0, g, 0, 16);
            return g;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public StaNamespace ns(int nsid) {
        return sta == null ? null : sta.ns(nsid);
    }
}
