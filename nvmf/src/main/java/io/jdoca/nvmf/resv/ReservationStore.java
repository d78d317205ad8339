package io.jdoca.nvmf.resv;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Persist Through Power Loss for one namespace: its reservation state in a JSON file, SPDK's
 * {@code ptpl_file} (its {@code nvmf_ns_reservation_store_json} / {@code nvmf_ns_reservation_load_json}
 * shape, so a file moves between SPDK and jdoca):
 * <pre>
 * {
 *   "ptpl": true,
 *   "rtype": 1,                      reservation type, 0 = none
 *   "crkey": 1234,                   unsigned 64-bit: the holder's key (types 5, 6: the first registrant's)
 *   "bdev_uuid": "…",                the namespace's UUID, checked at load
 *   "holder_uuid": "…",              the holder's Host Identifier; "" for types 5, 6 and for none
 *   "registrants": [ { "rkey": 5678, "host_uuid": "…" } ]
 * }
 * </pre>
 * SPDK writes an empty file when PTPL is turned off; so does {@link #save} for a state with PTPL off,
 * and {@link #load} reads an empty file (or none) as "nothing saved".
 *
 * <p>The path is the operator's (namespace configuration), never a host's. Writes are atomic: a
 * temporary file in the same directory, created with mode 0600, written, forced to the device,
 * renamed over the file, and the directory forced, so a crash leaves the old or the new state, never
 * a torn one. A malformed file fails {@link #load} with one {@link IllegalArgumentException} line
 * naming the file and the problem (a control-path error at namespace add).
 *
 * <p>Not thread-safe: used by the namespace's management thread ({@code sta-main}) only.
 */
public final class ReservationStore {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final Set<String> KEYS = Set.of("ptpl", "rtype", "crkey", "bdev_uuid", "holder_uuid",
            "registrants");
    private static final Set<String> REGISTRANT_KEYS = Set.of("rkey", "host_uuid");
    private static final BigInteger U64_LIMIT = BigInteger.ONE.shiftLeft(64);

    private final Path file;
    private final String bdevUuid;

    /**
     * @param file     where the state lives (the operator's {@code ptpl_file})
     * @param bdevUuid the namespace's UUID as SPDK's {@code bdev_uuid}: written to the file and
     *                 required to match at load, so a file is not applied to another namespace
     */
    public ReservationStore(Path file, String bdevUuid) {
        this.file = file;
        this.bdevUuid = bdevUuid.toLowerCase(Locale.ROOT);
    }

    public Path file() {
        return file;
    }

    /**
     * Takes the cross-process lock of this file ({@code <file>.lock}, an fcntl lock held through a
     * {@link FileChannel}; 0600): two targets serving one namespace through the same file run their
     * reservation commands one at a time, each on the other's latest state. Blocks until granted;
     * close the result to release it. Control path.
     */
    public java.io.Closeable lock() throws IOException {
        Path lockFile = file.resolveSibling(file.getFileName() + ".lock");
        if (!Files.exists(lockFile)) {
            try {
                Files.createFile(lockFile, PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString("rw-------")));
            } catch (java.nio.file.FileAlreadyExistsException e) {
                // the other target made it first: use it
            }
        }
        FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.WRITE);
        try {
            java.nio.channels.FileLock l = ch.lock();
            return () -> {
                try (ch) {
                    l.release();
                }
            };
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /**
     * What identifies the file's current content for a change check (modification time, size and
     * inode: a save replaces the file by rename, so the inode changes), or null when it does not exist.
     */
    public Object stamp() {
        try {
            var a = Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class);
            return List.of(a.lastModifiedTime().toMillis(), a.size(), String.valueOf(a.fileKey()));
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * The saved state, or empty when the file does not exist or is empty (nothing saved, or PTPL
     * turned off). A state whose {@code ptpl} is false carries no registrations to restore.
     *
     * @throws IOException              when the file exists but cannot be read
     * @throws IllegalArgumentException when it is not a state SPDK or jdoca would write: bad JSON, an
     *                                  unknown or ill-typed key, another namespace's UUID, or a state that
     *                                  breaks {@link ReservationSnapshot}'s invariants
     */
    public Optional<ReservationSnapshot> load() throws IOException {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        String text = Files.readString(file, StandardCharsets.UTF_8);
        if (text.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(parse(text));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("reservation file " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Writes {@code state} atomically (see the class comment): the JSON object when its PTPL state is
     * on, an empty file when off.
     */
    public void save(ReservationSnapshot state) throws IOException {
        byte[] bytes = state.ptpl() ? JSON.writeValueAsBytes(toJson(state)) : new byte[0];
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = Files.createTempFile(dir, "." + file.getFileName() + ".", ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.wrap(bytes);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        // The rename is durable only once the directory entry is: force the directory too.
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    private ObjectNode toJson(ReservationSnapshot s) {
        ObjectNode o = JSON.createObjectNode();
        o.put("ptpl", s.ptpl());
        o.put("rtype", s.type() == null ? 0 : s.type().code());
        o.put("crkey", unsigned(s.holderKey()));
        o.put("bdev_uuid", bdevUuid);
        o.put("holder_uuid", s.holder() == null ? "" : s.holder().toString());
        ArrayNode regs = o.putArray("registrants");
        for (ReservationSnapshot.Registrant r : s.registrants()) {
            ObjectNode e = regs.addObject();
            e.put("rkey", unsigned(r.key()));
            e.put("host_uuid", r.host().toString());
        }
        return o;
    }

    private ReservationSnapshot parse(String text) {
        JsonNode root;
        try {
            root = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("not a JSON object");
        }
        onlyKeys(root, KEYS, "");
        boolean ptpl = root.has("ptpl") && bool(root.get("ptpl"), "ptpl");
        long rtype = root.has("rtype") ? u64(root.get("rtype"), "rtype") : 0;
        long crkey = root.has("crkey") ? u64(root.get("crkey"), "crkey") : 0;
        String uuid = text(root.get("bdev_uuid"), "bdev_uuid");
        if (!uuid.equalsIgnoreCase(bdevUuid)) {
            throw new IllegalArgumentException("bdev_uuid " + uuid + " is not this namespace's " + bdevUuid);
        }
        String holderText = root.has("holder_uuid") ? text(root.get("holder_uuid"), "holder_uuid") : "";
        JsonNode regs = root.get("registrants");
        if (regs == null || !regs.isArray()) {
            throw new IllegalArgumentException("\"registrants\" must be an array");
        }
        List<ReservationSnapshot.Registrant> registrants = new ArrayList<>();
        for (JsonNode r : regs) {
            if (!r.isObject()) {
                throw new IllegalArgumentException("a registrant must be an object");
            }
            onlyKeys(r, REGISTRANT_KEYS, "registrant ");
            long key = u64(r.get("rkey"), "rkey");
            registrants.add(new ReservationSnapshot.Registrant(hostId(text(r.get("host_uuid"), "host_uuid")), key));
        }
        ReservationType type = null;
        if (rtype != 0) {
            type = ReservationType.of((int) Math.min(rtype, Integer.MAX_VALUE));
            if (type == null) {
                throw new IllegalArgumentException("rtype " + rtype + " is not 0..6");
            }
        }
        HostId holder = type == null || type.allRegistrants() || holderText.isEmpty() ? null : hostId(holderText);
        ReservationSnapshot s = new ReservationSnapshot(ptpl, type, holder, registrants, 0);
        if (type != null && !type.allRegistrants() && crkey != s.holderKey()) {
            throw new IllegalArgumentException("crkey " + Long.toUnsignedString(crkey) + " is not the holder's key "
                    + Long.toUnsignedString(s.holderKey()));
        }
        return s;
    }

    private static void onlyKeys(JsonNode o, Set<String> allowed, String what) {
        for (Iterator<String> it = o.fieldNames(); it.hasNext();) {
            String k = it.next();
            if (!allowed.contains(k)) {
                throw new IllegalArgumentException("unknown " + what + "key \"" + k + "\"");
            }
        }
    }

    private static boolean bool(JsonNode n, String name) {
        if (!n.isBoolean()) {
            throw new IllegalArgumentException("\"" + name + "\" must be true or false");
        }
        return n.booleanValue();
    }

    private static String text(JsonNode n, String name) {
        if (n == null || !n.isTextual()) {
            throw new IllegalArgumentException("\"" + name + "\" must be a string");
        }
        return n.textValue();
    }

    /** An unsigned 64-bit JSON integer (SPDK writes keys as such) as the long with the same bits. */
    private static long u64(JsonNode n, String name) {
        if (n == null || !n.isIntegralNumber() || n.bigIntegerValue().signum() < 0
                || n.bigIntegerValue().compareTo(U64_LIMIT) >= 0) {
            throw new IllegalArgumentException("\"" + name + "\" must be an integer 0..2^64-1");
        }
        return n.bigIntegerValue().longValue();
    }

    private static BigInteger unsigned(long v) {
        return new BigInteger(Long.toUnsignedString(v));
    }

    private static HostId hostId(String uuid) {
        try {
            return HostId.parse(uuid);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("\"" + uuid + "\" is not a UUID");
        }
    }
}
