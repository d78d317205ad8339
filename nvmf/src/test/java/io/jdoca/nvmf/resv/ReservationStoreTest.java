package io.jdoca.nvmf.resv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Persist Through Power Loss: SPDK's ptpl_file shape, atomic 0600 writes, restore, malformed files. */
class ReservationStoreTest {
    static final String BDEV = "4f3c2b1a-0000-4000-8000-00000000beef";
    static final HostId A = HostId.parse("11111111-2222-3333-4444-555555555555");
    static final HostId B = HostId.parse("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee");

    @TempDir
    Path dir;

    ReservationStore store() {
        return new ReservationStore(dir.resolve("ns1.ptpl"), BDEV);
    }

    void write(String json) throws IOException {
        Files.writeString(dir.resolve("ns1.ptpl"), json);
    }

    static String file(String rtype, String crkey, String holder, String regs) {
        return "{\"ptpl\": true, \"rtype\": " + rtype + ", \"crkey\": " + crkey + ", \"bdev_uuid\": \"" + BDEV
                + "\", \"holder_uuid\": \"" + holder + "\", \"registrants\": [" + regs + "]}";
    }

    static String reg(long key, HostId h) {
        return "{\"rkey\": " + Long.toUnsignedString(key) + ", \"host_uuid\": \"" + h + "\"}";
    }

    @Test
    void savesSpdksShapeAtomicallyWithMode0600() throws Exception {
        ReservationStore s = store();
        NamespaceReservation ns = NamespaceReservation.load(s);
        assertThat(ns.ptplCapable()).isTrue();
        assertThat(ns.register(A.hi(), A.lo(), 0, false, 0, -2L, PtplChange.SET.code()).status())
                .isEqualTo(ReservationStatus.SUCCESS);
        ReservationCommandsTest.register(ns, B, 7);
        ReservationCommandsTest.acquire(ns, A, -2L, ReservationType.WRITE_EXCLUSIVE_REGISTRANTS_ONLY);

        JsonNode j = new ObjectMapper().readTree(s.file().toFile());
        assertThat(j.get("ptpl").booleanValue()).isTrue();
        assertThat(j.get("rtype").intValue()).isEqualTo(3);
        assertThat(j.get("crkey").bigIntegerValue().toString()).as("unsigned 64-bit")
                .isEqualTo("18446744073709551614");
        assertThat(j.get("bdev_uuid").textValue()).isEqualTo(BDEV);
        assertThat(j.get("holder_uuid").textValue()).isEqualTo(A.toString());
        assertThat(j.get("registrants")).hasSize(2);
        assertThat(j.get("registrants").get(1).get("rkey").longValue()).isEqualTo(7);
        assertThat(j.get("registrants").get(1).get("host_uuid").textValue()).isEqualTo(B.toString());
        assertThat(Files.getPosixFilePermissions(s.file())).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).as("no temporary left").containsExactly("ns1.ptpl");
        }

        NamespaceReservation back = NamespaceReservation.load(s);
        ReservationSnapshot a = ns.snapshot();
        ReservationSnapshot b = back.snapshot();
        assertThat(b.registrants()).isEqualTo(a.registrants());
        assertThat(b.type()).isEqualTo(a.type());
        assertThat(b.holder()).isEqualTo(A);
        assertThat(b.ptpl()).isTrue();
        assertThat(back.view().type()).isEqualTo(3);
        assertThat(back.view().isHolder(A.hi(), A.lo())).isTrue();
    }

    @Test
    void readsAFileAsSpdkWritesIt() throws Exception {
        // nvmf_ns_reservation_store_json's output: compact, lower-case UUIDs, holder "" for All Registrants.
        write("{\"ptpl\":true,\"rtype\":6,\"crkey\":9,\"bdev_uuid\":\"" + BDEV + "\",\"holder_uuid\":\"\","
                + "\"registrants\":[{\"rkey\":9,\"host_uuid\":\"" + A + "\"},{\"rkey\":10,\"host_uuid\":\"" + B
                + "\"}]}");
        NamespaceReservation ns = NamespaceReservation.load(store());
        assertThat(ns.type()).isEqualTo(ReservationType.EXCLUSIVE_ACCESS_ALL_REGISTRANTS);
        assertThat(ns.holds(A)).isTrue();
        assertThat(ns.holds(B)).isTrue();
        assertThat(ns.persistThroughPowerLoss()).isTrue();
    }

    @Test
    void missingOrEmptyFileIsNothingSaved() throws Exception {
        assertThat(store().load()).isEmpty();
        write("");
        assertThat(store().load()).isEmpty();
        write("  \n");
        assertThat(NamespaceReservation.load(store()).snapshot()).isEqualTo(ReservationSnapshot.empty(false));
    }

    @Test
    void ptplOffIsAnEmptyFileAndNothingRestored() throws Exception {
        ReservationStore s = store();
        NamespaceReservation ns = NamespaceReservation.load(s);
        ns.register(A.hi(), A.lo(), 0, false, 0, 5, PtplChange.SET.code());
        assertThat(Files.size(s.file())).isPositive();
        assertThat(ns.register(A.hi(), A.lo(), 0, false, 0, 5, PtplChange.CLEAR.code()).status())
                .isEqualTo(ReservationStatus.SUCCESS);
        assertThat(ns.persistThroughPowerLoss()).isFalse();
        assertThat(Files.size(s.file())).as("SPDK clears the file the same way").isZero();
        ReservationCommandsTest.register(ns, B, 6);
        assertThat(Files.size(s.file())).as("nothing saved while PTPL is off").isZero();
        assertThat(NamespaceReservation.load(s).snapshot().registrants()).isEmpty();

        write(file("0", "0", "", reg(5, A)).replace("\"ptpl\": true", "\"ptpl\": false"));
        NamespaceReservation off = NamespaceReservation.load(s);
        assertThat(off.snapshot().registrants()).as("PTPL off: registrations do not survive").isEmpty();
        assertThat(off.persistThroughPowerLoss()).isFalse();
    }

    @Test
    void setFeaturesReservationPersistence() throws Exception {
        assertThat(new NamespaceReservation().setPersistThroughPowerLoss(true))
                .isEqualTo(ReservationStatus.INVALID_FIELD);
        ReservationStore s = store();
        NamespaceReservation ns = NamespaceReservation.load(s);
        ReservationCommandsTest.register(ns, A, 3);
        assertThat(Files.exists(s.file())).isFalse();
        assertThat(ns.setPersistThroughPowerLoss(true)).isEqualTo(ReservationStatus.SUCCESS);
        assertThat(s.load().orElseThrow().registrants()).hasSize(1);
    }

    @Test
    void failedSaveUndoesTheCommand() throws Exception {
        Path sub = dir.resolve("gone");
        Files.createDirectory(sub);
        ReservationStore s = new ReservationStore(sub.resolve("ns.ptpl"), BDEV);
        NamespaceReservation ns = NamespaceReservation.load(s);
        assertThat(ns.register(A.hi(), A.lo(), 0, false, 0, 5, PtplChange.SET.code()).status())
                .isEqualTo(ReservationStatus.SUCCESS);
        ReservationSnapshot before = ns.snapshot();
        Files.delete(sub.resolve("ns.ptpl"));
        Files.delete(sub);
        ReservationResult r = ReservationCommandsTest.register(ns, B, 9);
        assertThat(r.status()).isEqualTo(ReservationStatus.INTERNAL_ERROR);
        assertThat(r.notices()).isEmpty();
        assertThat(ns.snapshot()).isEqualTo(before);
        assertThat(ns.registered(B)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "not json",
        "[]",
        "{\"ptpl\": true}",
        "{\"ptpl\": \"yes\", \"bdev_uuid\": \"" + BDEV + "\", \"registrants\": []}",
        "{\"ptpl\": true, \"bdev_uuid\": \"" + BDEV + "\", \"registrants\": [], \"extra\": 1}",
        "{\"ptpl\": true, \"bdev_uuid\": \"00000000-0000-4000-8000-000000000000\", \"registrants\": []}",
        "{\"ptpl\": true, \"bdev_uuid\": \"" + BDEV + "\", \"registrants\": {}}",
        "{\"ptpl\": true, \"bdev_uuid\": \"" + BDEV + "\", \"registrants\": [{\"rkey\": 1}]}",
        "{\"ptpl\": true, \"bdev_uuid\": \"" + BDEV + "\", \"registrants\": [{\"rkey\": -1, \"host_uuid\": \""
            + "11111111-2222-3333-4444-555555555555\"}]}",
        "{\"ptpl\": true, \"bdev_uuid\": \"" + BDEV + "\", \"registrants\": [{\"rkey\": 18446744073709551616,"
            + " \"host_uuid\": \"11111111-2222-3333-4444-555555555555\"}]}",
        "{\"ptpl\": true, \"bdev_uuid\": \"" + BDEV + "\", \"registrants\": [{\"rkey\": 1,"
            + " \"host_uuid\": \"1-2-3-4-5\"}]}",
        "{\"ptpl\": true, \"bdev_uuid\": \"" + BDEV + "\", \"registrants\": [{\"rkey\": 1, \"host_uuid\": \""
            + "00000000-0000-0000-0000-000000000000\"}]}",
        "{\"ptpl\": true, \"bdev_uuid\": \"" + BDEV + "\", \"registrants\": [{\"rkey\": 0, \"host_uuid\": \""
            + "11111111-2222-3333-4444-555555555555\"}]}",
        "{\"ptpl\": true, \"rtype\": 7, \"bdev_uuid\": \"" + BDEV + "\", \"registrants\": [{\"rkey\": 1,"
            + " \"host_uuid\": \"11111111-2222-3333-4444-555555555555\"}]}",
        "{\"ptpl\": true, \"rtype\": 1, \"bdev_uuid\": \"" + BDEV + "\", \"registrants\": []}",
    })
    void malformedFileFailsWithOneLine(String json) throws Exception {
        write(json);
        assertThatThrownBy(() -> store().load()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("reservation file " + dir.resolve("ns1.ptpl") + ": ")
                .hasMessageNotContaining("\n");
    }

    @Test
    void inconsistentStatesAreRefused() throws Exception {
        write(file("1", "5", B.toString(), reg(5, A)));
        assertThatThrownBy(() -> store().load()).hasMessageContaining("is not a registrant");
        write(file("1", "6", A.toString(), reg(5, A)));
        assertThatThrownBy(() -> store().load()).hasMessageContaining("crkey 6 is not the holder's key 5");
        write(file("2", "5", A.toString(), reg(5, A) + "," + reg(6, A)));
        assertThatThrownBy(() -> store().load()).hasMessageContaining("appears twice");
        write(file("1", "5", "", reg(5, A)));
        assertThatThrownBy(() -> store().load()).as("type 1 without a holder").hasMessageContaining("not a registrant");
    }

    @Test
    void snapshotInvariants() {
        var r = new ReservationSnapshot.Registrant(A, 1);
        assertThatThrownBy(() -> new ReservationSnapshot(false, null, A, List.of(r), 0))
                .hasMessageContaining("without a reservation type");
        assertThat(new ReservationSnapshot(false, ReservationType.WRITE_EXCLUSIVE_ALL_REGISTRANTS, A, List.of(r), 0)
                .holder()).as("types 5 and 6 keep no holder").isNull();
        assertThat(ReservationSnapshot.empty(true).holderKey()).isZero();
    }
}
