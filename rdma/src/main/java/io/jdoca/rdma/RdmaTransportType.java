package io.jdoca.rdma;

/**
 * How an {@link Rdma} context moves data to its peers ({@link Rdma#setTransport}).
 *
 * <ul>
 *   <li>{@link #SHM}: both peers on one host. One-sided operations (read, write, atomics) are
 *       executed by the submitting side directly on the peer's shared-memory maps; send/receive go
 *       through shared-memory rings.</li>
 *   <li>{@link #TCP}: any two hosts. One TCP connection per RDMA connection; the peer's transport
 *       thread services one-sided operations against its exported maps, like a NIC.</li>
 *   <li>{@link #VERBS}: rdma-core (libibverbs): an RC queue pair per connection on an RDMA device (a
 *       ConnectX, a BlueField, Soft-RoCE {@code rxe0}); the device executes every operation. Needs a
 *       verbs device ({@code Devices.open("rxe0")}) and memory maps registered on it.</li>
 *   <li>{@link #AUTO}: on a verbs device VERBS; otherwise SHM when both blobs come from the same host, else TCP.</li>
 * </ul>
 * Both sides must agree: a side forcing SHM cannot connect to a side forcing TCP, and VERBS talks only to VERBS.
 */
public enum RdmaTransportType {
    AUTO(0),
    SHM(1),
    TCP(2),
    VERBS(3);

    private final int code;

    RdmaTransportType(int code) {
        this.code = code;
    }

    /** Value carried in the connection blob. */
    public int code() {
        return code;
    }

    /** Inverse of {@link #code()}; null for an unknown value. */
    public static RdmaTransportType fromCode(int code) {
        return switch (code) {
            case 0 -> AUTO;
            case 1 -> SHM;
            case 2 -> TCP;
            case 3 -> VERBS;
            default -> null;
        };
    }

    /**
     * The transport two peers use, computed identically on both sides from the two preferences;
     * null if they conflict (or SHM is forced across hosts).
     */
    public static RdmaTransportType resolve(RdmaTransportType a, RdmaTransportType b, boolean sameHost) {
        if (a == VERBS || b == VERBS) {
            return a == b ? VERBS : null;
        }
        if (a == TCP || b == TCP) {
            return a == SHM || b == SHM ? null : TCP;
        }
        if (a == SHM || b == SHM) {
            return sameHost ? SHM : null;
        }
        return sameHost ? SHM : TCP;
    }
}
