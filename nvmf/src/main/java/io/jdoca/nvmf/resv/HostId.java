package io.jdoca.nvmf.resv;

import java.nio.ByteBuffer;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * A 128-bit Host Identifier (HOSTID of the Fabrics Connect data, NVMe-oF 1.1 §3.3 figure 21): {@code hi}
 * is bytes 0-7 read big-endian, {@code lo} bytes 8-15, so {@link #toString()} is the UUID form SPDK
 * writes ({@code spdk_uuid_fmt_lower}) and {@code NvmfTargetOps} reports. All zeros means "not set"
 * and may not use reservations ({@link #valid()}).
 *
 * <p>Immutable; safe from any thread.
 */
public record HostId(long hi, long lo) {
    private static final Pattern CANONICAL =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    /** The identifier of the 16 bytes as the host sent them. */
    public static HostId of(byte[] id) {
        if (id.length != 16) {
            throw new IllegalArgumentException("a Host Identifier is 16 bytes, not " + id.length);
        }
        ByteBuffer b = ByteBuffer.wrap(id);
        return new HostId(b.getLong(), b.getLong());
    }

    /**
     * The identifier in canonical UUID text (8-4-4-4-12 hex digits, any case).
     *
     * @throws IllegalArgumentException for anything else ({@link UUID#fromString} alone would accept
     *                                  short groups such as {@code 1-2-3-4-5})
     */
    public static HostId parse(String uuid) {
        if (!CANONICAL.matcher(uuid).matches()) {
            throw new IllegalArgumentException("not a UUID: " + uuid);
        }
        UUID u = UUID.fromString(uuid);
        return new HostId(u.getMostSignificantBits(), u.getLeastSignificantBits());
    }

    /** True unless all 128 bits are zero (a host that set no identifier). */
    public boolean valid() {
        return (hi | lo) != 0;
    }

    /** The 16 bytes as the host sent them. */
    public byte[] toBytes() {
        return ByteBuffer.allocate(16).putLong(hi).putLong(lo).array();
    }

    /** Lower-case UUID text, e.g. {@code 1b4e28ba-2fa1-11d2-883f-0016d3ccabcd}. */
    @Override
    public String toString() {
        return new UUID(hi, lo).toString();
    }
}
