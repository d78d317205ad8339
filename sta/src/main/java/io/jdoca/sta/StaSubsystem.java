package io.jdoca.sta;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.sta.backend.StaBackend;
import io.jdoca.sta.nvmf.NvmfNamespaceMap;
import java.util.ArrayList;
import java.util.List;

/**
 * An NVM subsystem ({@code doca_sta_subs}), named by its NQN, holding namespaces by front-end
 * namespace id. QPs are bound to a subsystem after a valid Fabrics Connect
 * ({@link StaIo#qpAddSubsystem}); the IO engines then execute I/O on its namespaces.
 *
 * <p><b>Threads.</b> Namespaces are added and removed on the control path (synchronized); IO
 * engines look them up without locks through a volatile copy-on-write array.
 */
public final class StaSubsystem implements NvmfNamespaceMap {
    private final Sta sta;
    private final String nqn;
    private final int maxNs;
    private volatile StaNamespace[] byNsid;
    private volatile long generation;

    StaSubsystem(Sta sta, String nqn, int maxNs) {
        this.sta = sta;
        this.nqn = nqn;
        this.maxNs = maxNs;
        this.byNsid = new StaNamespace[maxNs + 1];
    }

    public String nqn() {
        return nqn;
    }

    public Sta sta() {
        return sta;
    }

    /** Largest valid namespace id (NN in Identify Controller). */
    public int maxNamespaces() {
        return maxNs;
    }

    /** Changes whenever a namespace is added or removed (discovery/AER bookkeeping). */
    public long generation() {
        return generation;
    }

    /**
     * {@code doca_sta_subsystem_add_ns}: maps front-end {@code nsid} to {@code backend}. Throws
     * DocaException: INVALID_VALUE (nsid or block size), ALREADY_EXIST, BAD_STATE (destroyed
     * back-end), NOT_SUPPORTED (block size). Control path.
     */
    public synchronized StaNamespace addNs(int nsid, int blockSize, int beNsId, StaBackend backend) {
        if (nsid < 1 || nsid > maxNs) {
            throw new DocaException(DocaError.INVALID_VALUE, "namespace id " + nsid + " outside 1.." + maxNs);
        }
        if (!Sta.isLogicalBlockSizeSupported(blockSize)) {
            throw new DocaException(DocaError.NOT_SUPPORTED, "logical block size " + blockSize + " (512 or 4096)");
        }
        if (backend == null || backend.isDestroyed()) {
            throw new DocaException(DocaError.BAD_STATE, "back-end missing or destroyed");
        }
        if (backend.sizeBytes() < blockSize) {
            throw new DocaException(DocaError.INVALID_VALUE, "back-end smaller than one block");
        }
        StaNamespace cur = byNsid[nsid];
        if (cur != null) {
            throw new DocaException(DocaError.ALREADY_EXIST, "namespace " + nsid + " exists in " + nqn);
        }
        StaNamespace ns = new StaNamespace(this, nsid, blockSize, backend, beNsId);
        StaNamespace[] next = byNsid.clone();
        next[nsid] = ns;
        byNsid = next;
        generation++;
        return ns;
    }

    /**
     * {@code doca_sta_subsystem_rm_ns} (synchronous form): marks the namespace removed (new I/O to
     * it fails with Invalid Namespace) and detaches it if no I/O is in flight; otherwise returns
     * IN_USE and the caller retries (or uses {@link Sta#taskRmNsAllocInit}, which waits). Control path.
     */
    public synchronized DocaError rmNs(StaNamespace ns) {
        if (ns == null || ns.subsystem() != this || byNsid[ns.nsid()] != ns) {
            return DocaError.NOT_FOUND;
        }
        ns.markRemoved();
        if (ns.inflight() != 0) {
            return DocaError.IN_USE;
        }
        detach(ns);
        return DocaError.SUCCESS;
    }

    synchronized void detach(StaNamespace ns) {
        ns.markRemoved();
        if (byNsid[ns.nsid()] == ns) {
            StaNamespace[] next = byNsid.clone();
            next[ns.nsid()] = null;
            byNsid = next;
            generation++;
        }
    }

    /** The namespace with front-end id {@code nsid}, or null. Allocation-free, lock-free. */
    @Override
    public StaNamespace ns(int nsid) {
        StaNamespace[] a = byNsid;
        return nsid > 0 && nsid < a.length ? a[nsid] : null;
    }

    /** Active namespaces in ascending id order. Control path. */
    public List<StaNamespace> namespaces() {
        List<StaNamespace> l = new ArrayList<>();
        for (StaNamespace ns : byNsid) {
            if (ns != null && !ns.isRemoved()) {
                l.add(ns);
            }
        }
        return l;
    }

    @Override
    public String toString() {
        return "StaSubsystem[" + nqn + "]";
    }
}
