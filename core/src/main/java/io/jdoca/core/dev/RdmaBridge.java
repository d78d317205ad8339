package io.jdoca.core.dev;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.MemoryMap;
import java.lang.foreign.MemorySegment;

/**
 * DOCA Core's RDMA bridge (doca-core §3.6, DOCA's {@code doca_rdma_bridge.h}): the rdma-core objects behind jdoca's,
 * for an application already written against rdma-core. On an RDMA device of rdma-core ({@link DevInfo#isVerbs()}:
 * {@code rxe0}, {@code mlx5_0}) a {@link Dev} is the process's {@code ibv_context} with one protection domain on it,
 * and a started {@link MemoryMap} that has the device is an {@code ibv_mr} on that PD:
 *
 * <table>
 *   <caption>DOCA Core object → rdma-core object</caption>
 *   <tr><th>DOCA</th><th>rdma-core</th><th>here</th></tr>
 *   <tr><td>{@code doca_dev}</td><td>{@code struct ibv_pd *}</td><td>{@link #getDevPd}
 * ({@code doca_rdma_bridge_get_dev_pd}), {@link #openDevFromPd} ({@code doca_rdma_bridge_open_dev_from_pd})</td></tr>
 *   <tr><td>{@code doca_buf}</td><td>the memory key of its {@code ibv_mr}</td><td>{@link #getBufMkey}
 *       ({@code doca_rdma_bridge_get_buf_mkey})</td></tr>
 * </table>
 *
 * Objects an application makes on the PD it gets here (QPs, CQs, its own MRs) are its own to destroy, before the
 * process exits; jdoca keeps the PD and the device context open for the life of the process. Software devices
 * ({@code sw0}) have no rdma-core objects: NOT_SUPPORTED.
 *
 * <p>Control path; thread-safe. Errors are {@link DocaException}s with DOCA's codes and a one-line message.
 */
public final class RdmaBridge {
    private RdmaBridge() {
    }

    /** {@code doca_rdma_bridge_get_dev_pd}: the {@code struct ibv_pd *} of {@code dev} (opens the device's context). */
    public static MemorySegment getDevPd(Dev dev) {
        if (dev == null) {
            throw new DocaException(DocaError.INVALID_VALUE, "no device");
        }
        return dev.devInfo().verbsContext().pd();
    }

    /**
     * {@code doca_rdma_bridge_open_dev_from_pd}: the device whose protection domain {@code pd} is. jdoca opens one
     * PD per RDMA device and process, so {@code pd} must be one {@link #getDevPd} gave; a PD the application
     * allocated on its own {@code ibv_context} is refused (NOT_SUPPORTED), as is a null one (INVALID_VALUE).
     */
    public static Dev openDevFromPd(MemorySegment pd) {
        if (pd == null || pd.address() == 0) {
            throw new DocaException(DocaError.INVALID_VALUE, "no protection domain (null ibv_pd)");
        }
        for (DevInfo info : Devices.list()) {
            if (info.isVerbs() && pdOf(info) == pd.address()) {
                return info.open();
            }
        }
        throw new DocaException(DocaError.NOT_SUPPORTED, "ibv_pd 0x" + Long.toHexString(pd.address())
                + " is not the protection domain of a jdoca device: jdoca opens one PD per RDMA device and process; "
                + "take it with RdmaBridge.getDevPd(Devices.open(\"<ibdev>\")) and create your rdma-core objects on "
                        + "it");
    }

    /** The address of the PD of {@code info}, or 0 when its context cannot be opened (then it is not that device). */
    private static long pdOf(DevInfo info) {
        try {
            return info.verbsContext().pd().address();
        } catch (DocaException e) {
            return 0;
        }
    }

    /**
     * {@code doca_rdma_bridge_get_buf_mkey}: the memory key rdma-core knows {@code buf}'s memory by on {@code dev}: the
     * {@code lkey} of its map's {@code ibv_mr} there, or for a buffer of an imported map the exporter's {@code rkey}
     * (what a work request addressing that remote memory carries). NOT_FOUND when the map is not registered on
     * {@code dev} (a device added to a map is registered when the map starts), NOT_SUPPORTED for a software device.
     */
    public static int getBufMkey(Buf buf, Dev dev) {
        if (buf == null || dev == null || buf.mmap() == null) {
            throw new DocaException(DocaError.INVALID_VALUE, buf == null || buf.mmap() == null
                    ? "no buffer" : "no device");
        }
        DevInfo info = dev.devInfo();
        if (!info.isVerbs()) {
            throw new DocaException(DocaError.NOT_SUPPORTED, info.name()
                    + " is a software device: no rdma-core memory key");
        }
        MemoryMap m = buf.mmap();
        int key = m.isImported() ? m.verbsRemoteKey() : m.verbsLkey(info);
        if (key == -1) {
            throw new DocaException(DocaError.NOT_FOUND, (m.isImported() ? "the imported memory map carries no rkey"
                    : "the buffer's memory map is not registered on " + info.name()
                    + " (add the device to the map before starting it)"));
        }
        return key;
    }
}
