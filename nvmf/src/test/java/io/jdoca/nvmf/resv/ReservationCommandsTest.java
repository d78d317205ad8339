package io.jdoca.nvmf.resv;

import static io.jdoca.nvmf.resv.ReservationNotificationLog.REGISTRATION_PREEMPTED;
import static io.jdoca.nvmf.resv.ReservationNotificationLog.RESERVATION_PREEMPTED;
import static io.jdoca.nvmf.resv.ReservationNotificationLog.RESERVATION_RELEASED;
import static io.jdoca.nvmf.resv.ReservationStatus.COMMAND_SEQUENCE_ERROR;
import static io.jdoca.nvmf.resv.ReservationStatus.INTERNAL_ERROR;
import static io.jdoca.nvmf.resv.ReservationStatus.INVALID_FIELD;
import static io.jdoca.nvmf.resv.ReservationStatus.RESERVATION_CONFLICT;
import static io.jdoca.nvmf.resv.ReservationStatus.SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.sta.nvmf.NvmfReservationView;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Reservation Register, Acquire and Release against the rules of NVMe Base 2.0 §8.19. */
class ReservationCommandsTest {
    static final HostId A = new HostId(0xaL, 1);
    static final HostId B = new HostId(0xbL, 2);
    static final HostId C = new HostId(0xcL, 3);
    static final HostId ZERO = new HostId(0, 0);

    final NamespaceReservation ns = new NamespaceReservation();

    static ReservationResult register(NamespaceReservation ns, HostId h, long key) {
        return ns.register(h.hi(), h.lo(), RegisterAction.REGISTER.code(), false, 0, key, 0);
    }

    static ReservationResult unregister(NamespaceReservation ns, HostId h, long key) {
        return ns.register(h.hi(), h.lo(), RegisterAction.UNREGISTER.code(), false, key, 0, 0);
    }

    static ReservationResult replace(NamespaceReservation ns, HostId h, boolean iekey, long crkey, long nrkey) {
        return ns.register(h.hi(), h.lo(), RegisterAction.REPLACE.code(), iekey, crkey, nrkey, 0);
    }

    static ReservationResult acquire(NamespaceReservation ns, HostId h, long key, ReservationType t) {
        return ns.acquire(h.hi(), h.lo(), AcquireAction.ACQUIRE.code(), false, key, 0, t.code());
    }

    static ReservationResult preempt(NamespaceReservation ns, HostId h, long key, long prkey, ReservationType t,
                                     boolean abort) {
        AcquireAction a = abort ? AcquireAction.PREEMPT_AND_ABORT : AcquireAction.PREEMPT;
        return ns.acquire(h.hi(), h.lo(), a.code(), false, key, prkey, t.code());
    }

    static ReservationResult release(NamespaceReservation ns, HostId h, long key, int rtype) {
        return ns.release(h.hi(), h.lo(), ReleaseAction.RELEASE.code(), false, key, rtype);
    }

    static ReservationResult clear(NamespaceReservation ns, HostId h, long key) {
        return ns.release(h.hi(), h.lo(), ReleaseAction.CLEAR.code(), false, key, 0);
    }

    static ReservationNotice notice(HostId h, int type) {
        return new ReservationNotice(h, type);
    }

    /** A, B, C registered with keys 1, 2, 3. */
    void threeRegistrants() {
        assertThat(register(ns, A, 1).status()).isEqualTo(SUCCESS);
        assertThat(register(ns, B, 2).status()).isEqualTo(SUCCESS);
        assertThat(register(ns, C, 3).status()).isEqualTo(SUCCESS);
    }

    @Test
    void registerUnregisterReplaceAndGeneration() {
        assertThat(ns.generation()).isZero();
        assertThat(register(ns, A, 10).status()).isEqualTo(SUCCESS);
        assertThat(ns.generation()).isEqualTo(1);
        assertThat(register(ns, A, 10).status()).as("the same key again").isEqualTo(SUCCESS);
        assertThat(ns.generation()).as("every successful Register counts").isEqualTo(2);
        assertThat(register(ns, A, 11).status()).as("another key").isEqualTo(RESERVATION_CONFLICT);
        assertThat(ns.generation()).isEqualTo(2);
        assertThat(replace(ns, A, false, 99, 12).status()).as("CRKEY mismatch").isEqualTo(RESERVATION_CONFLICT);
        assertThat(replace(ns, A, false, 10, 12).status()).isEqualTo(SUCCESS);
        assertThat(ns.snapshot().keyOf(A)).isEqualTo(12);
        assertThat(replace(ns, A, true, 99, 13).status()).as("IEKEY skips the CRKEY check").isEqualTo(SUCCESS);
        assertThat(ns.snapshot().keyOf(A)).isEqualTo(13);
        assertThat(ns.generation()).isEqualTo(4);
        assertThat(unregister(ns, A, 12).status()).isEqualTo(RESERVATION_CONFLICT);
        assertThat(ns.register(A.hi(), A.lo(), 1, true, 0, 0, 0).status()).as("IEKEY unregister").isEqualTo(SUCCESS);
        assertThat(ns.registered(A)).isFalse();
        assertThat(ns.generation()).isEqualTo(5);
        assertThat(unregister(ns, A, 13).status()).as("not a registrant").isEqualTo(RESERVATION_CONFLICT);
    }

    @Test
    void zeroKeysAndReservedCodesAreInvalidField() {
        assertThat(register(ns, A, 0).status()).isEqualTo(INVALID_FIELD);
        assertThat(ns.register(A.hi(), A.lo(), 3, false, 0, 1, 0).status()).as("RREGA 011b").isEqualTo(INVALID_FIELD);
        assertThat(ns.register(A.hi(), A.lo(), 0, false, 0, 1, 1).status()).as("CPTPL 01b").isEqualTo(INVALID_FIELD);
        assertThat(ns.register(A.hi(), A.lo(), 0, false, 0, 1, 3).status()).as("CPTPL 11b, no PTPL support")
                .isEqualTo(INVALID_FIELD);
        assertThat(register(ns, A, 1).status()).isEqualTo(SUCCESS);
        assertThat(replace(ns, A, false, 1, 0).status()).isEqualTo(INVALID_FIELD);
        assertThat(ns.acquire(A.hi(), A.lo(), 3, false, 1, 0, 1).status()).as("RACQA 011b").isEqualTo(INVALID_FIELD);
        assertThat(ns.acquire(A.hi(), A.lo(), 0, false, 1, 0, 0).status()).as("RTYPE 0").isEqualTo(INVALID_FIELD);
        assertThat(ns.acquire(A.hi(), A.lo(), 0, false, 1, 0, 7).status()).as("RTYPE 7").isEqualTo(INVALID_FIELD);
        assertThat(ns.acquire(A.hi(), A.lo(), 0, true, 1, 0, 1).status()).as("IEKEY").isEqualTo(INVALID_FIELD);
        assertThat(ns.release(A.hi(), A.lo(), 2, false, 1, 1).status()).as("RRELA 010b").isEqualTo(INVALID_FIELD);
        assertThat(ns.release(A.hi(), A.lo(), 0, true, 1, 1).status()).as("IEKEY").isEqualTo(INVALID_FIELD);
        assertThat(ns.generation()).isEqualTo(1);
    }

    @Test
    void replaceByANonRegistrantIsAConflictEvenWithIekey() {
        assertThat(replace(ns, A, true, 0, 5).status()).isEqualTo(RESERVATION_CONFLICT);
        assertThat(ns.registered(A)).isFalse();
    }

    @Test
    void allZeroHostIdentifierIsACommandSequenceError() {
        assertThat(NamespaceReservation.hostIdValid(0, 0)).isFalse();
        assertThat(NamespaceReservation.hostIdValid(0, 1)).isTrue();
        assertThat(NamespaceReservation.hostIdValid(1, 0)).isTrue();
        assertThat(register(ns, ZERO, 1).status()).isEqualTo(COMMAND_SEQUENCE_ERROR);
        assertThat(acquire(ns, ZERO, 1, ReservationType.WRITE_EXCLUSIVE).status()).isEqualTo(COMMAND_SEQUENCE_ERROR);
        assertThat(release(ns, ZERO, 1, 1).status()).isEqualTo(COMMAND_SEQUENCE_ERROR);
        assertThat(ns.report(0, 0, 64, true, ControllerIdResolver.ALWAYS_DYNAMIC).status())
                .isEqualTo(COMMAND_SEQUENCE_ERROR);
        assertThat(NvmeStatus.sc(COMMAND_SEQUENCE_ERROR)).isEqualTo(0x0c);
    }

    @Test
    void acquireRules() {
        assertThat(acquire(ns, A, 1, ReservationType.WRITE_EXCLUSIVE).status()).as("not a registrant")
                .isEqualTo(RESERVATION_CONFLICT);
        threeRegistrants();
        int gen = ns.generation();
        assertThat(acquire(ns, A, 9, ReservationType.WRITE_EXCLUSIVE).status()).as("wrong CRKEY")
                .isEqualTo(RESERVATION_CONFLICT);
        assertThat(ns.view()).isNull();
        assertThat(acquire(ns, A, 1, ReservationType.WRITE_EXCLUSIVE).status()).isEqualTo(SUCCESS);
        assertThat(ns.type()).isEqualTo(ReservationType.WRITE_EXCLUSIVE);
        assertThat(ns.holds(A)).isTrue();
        assertThat(acquire(ns, A, 1, ReservationType.WRITE_EXCLUSIVE).status()).as("again, same type")
                .isEqualTo(SUCCESS);
        assertThat(acquire(ns, A, 1, ReservationType.EXCLUSIVE_ACCESS).status()).as("holder, other type")
                .isEqualTo(RESERVATION_CONFLICT);
        assertThat(acquire(ns, B, 2, ReservationType.WRITE_EXCLUSIVE).status()).as("another host")
                .isEqualTo(RESERVATION_CONFLICT);
        assertThat(ns.generation()).as("Acquire does not count").isEqualTo(gen);
        NvmfReservationView v = ns.view();
        assertThat(v.type()).isEqualTo(1);
        assertThat(v.isHolder(A.hi(), A.lo())).isTrue();
        assertThat(v.conflicts(B.hi(), B.lo(), true)).isTrue();
        assertThat(v.conflicts(B.hi(), B.lo(), false)).isFalse();
    }

    @Test
    void allRegistrantsTypesMakeEveryRegistrantAHolder() {
        threeRegistrants();
        assertThat(acquire(ns, A, 1, ReservationType.EXCLUSIVE_ACCESS_ALL_REGISTRANTS).status()).isEqualTo(SUCCESS);
        assertThat(ns.holds(B)).isTrue();
        assertThat(acquire(ns, B, 2, ReservationType.EXCLUSIVE_ACCESS_ALL_REGISTRANTS).status()).isEqualTo(SUCCESS);
        assertThat(acquire(ns, B, 2, ReservationType.WRITE_EXCLUSIVE_ALL_REGISTRANTS).status())
                .isEqualTo(RESERVATION_CONFLICT);
        assertThat(ns.snapshot().holders()).containsExactly(A, B, C);
        // The reservation outlives the registrant that acquired it, and ends with the last registrant.
        assertThat(unregister(ns, A, 1).notices()).isEmpty();
        assertThat(ns.type()).isEqualTo(ReservationType.EXCLUSIVE_ACCESS_ALL_REGISTRANTS);
        assertThat(unregister(ns, B, 2).status()).isEqualTo(SUCCESS);
        assertThat(ns.view().isHolder(C.hi(), C.lo())).isTrue();
        assertThat(unregister(ns, C, 3).status()).isEqualTo(SUCCESS);
        assertThat(ns.type()).isNull();
        assertThat(ns.view()).isNull();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4})
    void holderUnregisteringReleasesAndNotifiesOnlyForRegistrantsOnly(int rtype) {
        threeRegistrants();
        assertThat(acquire(ns, A, 1, ReservationType.of(rtype)).status()).isEqualTo(SUCCESS);
        ReservationResult r = unregister(ns, A, 1);
        assertThat(r.status()).isEqualTo(SUCCESS);
        assertThat(ns.type()).isNull();
        assertThat(ns.view()).isNull();
        if (rtype >= 3) {
            assertThat(r.notices()).containsExactly(notice(B, RESERVATION_RELEASED), notice(C, RESERVATION_RELEASED));
        } else {
            assertThat(r.notices()).isEmpty();
        }
    }

    @Test
    void nonHolderUnregisteringLeavesTheReservation() {
        threeRegistrants();
        acquire(ns, A, 1, ReservationType.WRITE_EXCLUSIVE_REGISTRANTS_ONLY);
        ReservationResult r = unregister(ns, B, 2);
        assertThat(r.notices()).isEmpty();
        assertThat(ns.holds(A)).isTrue();
        assertThat(ns.view().isRegistrant(B.hi(), B.lo())).isFalse();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6})
    void releaseByTheHolder(int rtype) {
        threeRegistrants();
        acquire(ns, A, 1, ReservationType.of(rtype));
        int gen = ns.generation();
        assertThat(release(ns, A, 1, rtype == 1 ? 2 : 1).status()).as("another RTYPE").isEqualTo(INVALID_FIELD);
        ReservationResult r = release(ns, A, 1, rtype);
        assertThat(r.status()).isEqualTo(SUCCESS);
        assertThat(ns.type()).isNull();
        assertThat(ns.registered(A)).as("release keeps the registration").isTrue();
        assertThat(ns.generation()).as("Release does not count").isEqualTo(gen);
        if (rtype >= 3) {
            assertThat(r.notices()).containsExactly(notice(B, RESERVATION_RELEASED), notice(C, RESERVATION_RELEASED));
        } else {
            assertThat(r.notices()).isEmpty();
        }
    }

    @Test
    void releaseByANonHolderOrWithoutReservationChangesNothing() {
        threeRegistrants();
        assertThat(release(ns, B, 2, 1).status()).as("no reservation").isEqualTo(SUCCESS);
        acquire(ns, A, 1, ReservationType.EXCLUSIVE_ACCESS);
        assertThat(release(ns, B, 2, 2).status()).isEqualTo(SUCCESS);
        assertThat(release(ns, B, 2, 5).status()).as("a non-holder's RTYPE is not checked").isEqualTo(SUCCESS);
        assertThat(ns.holds(A)).isTrue();
        assertThat(release(ns, B, 9, 2).status()).as("wrong CRKEY").isEqualTo(RESERVATION_CONFLICT);
        assertThat(release(ns, new HostId(7, 7), 2, 2).status()).as("not a registrant")
                .isEqualTo(RESERVATION_CONFLICT);
    }

    @Test
    void anyRegistrantReleasesAnAllRegistrantsReservation() {
        threeRegistrants();
        acquire(ns, A, 1, ReservationType.WRITE_EXCLUSIVE_ALL_REGISTRANTS);
        ReservationResult r = release(ns, C, 3, 5);
        assertThat(r.status()).isEqualTo(SUCCESS);
        assertThat(ns.type()).isNull();
        assertThat(r.notices()).containsExactly(notice(A, RESERVATION_RELEASED), notice(B, RESERVATION_RELEASED));
    }

    @Test
    void clearUnregistersEveryoneAndNotifiesTheOthers() {
        threeRegistrants();
        acquire(ns, A, 1, ReservationType.EXCLUSIVE_ACCESS);
        int gen = ns.generation();
        assertThat(clear(ns, B, 9).status()).isEqualTo(RESERVATION_CONFLICT);
        ReservationResult r = clear(ns, B, 2);
        assertThat(r.status()).isEqualTo(SUCCESS);
        assertThat(r.notices()).containsExactly(notice(A, RESERVATION_PREEMPTED), notice(C, RESERVATION_PREEMPTED));
        assertThat(ns.snapshot().registrants()).isEmpty();
        assertThat(ns.type()).isNull();
        assertThat(ns.generation()).isEqualTo(gen + 1);
        assertThat(ns.view()).isNull();
    }

    @Test
    void preemptWithoutReservationUnregistersByKey() {
        threeRegistrants();
        register(ns, new HostId(0xd, 4), 2);
        int gen = ns.generation();
        ReservationResult r = preempt(ns, A, 1, 2, ReservationType.WRITE_EXCLUSIVE, false);
        assertThat(r.status()).isEqualTo(SUCCESS);
        assertThat(r.preempted()).containsExactly(B, new HostId(0xd, 4));
        assertThat(r.notices()).containsExactly(notice(B, REGISTRATION_PREEMPTED),
                notice(new HostId(0xd, 4), REGISTRATION_PREEMPTED));
        assertThat(r.abortPreempted()).isFalse();
        assertThat(ns.type()).as("no reservation is created").isNull();
        assertThat(ns.generation()).isEqualTo(gen + 1);
        assertThat(preempt(ns, A, 1, 77, ReservationType.WRITE_EXCLUSIVE, false).status()).as("no such key")
                .isEqualTo(RESERVATION_CONFLICT);
        assertThat(ns.generation()).isEqualTo(gen + 1);
    }

    @Test
    void preemptTheHolder() {
        threeRegistrants();
        register(ns, new HostId(0xd, 4), 1);
        acquire(ns, A, 1, ReservationType.WRITE_EXCLUSIVE_REGISTRANTS_ONLY);
        ReservationResult r = preempt(ns, B, 2, 1, ReservationType.EXCLUSIVE_ACCESS, true);
        assertThat(r.status()).isEqualTo(SUCCESS);
        assertThat(ns.holds(B)).isTrue();
        assertThat(ns.type()).isEqualTo(ReservationType.EXCLUSIVE_ACCESS);
        assertThat(r.preempted()).as("every registrant with the holder's key").containsExactly(A, new HostId(0xd, 4));
        assertThat(r.abortPreempted()).isTrue();
        assertThat(r.notices()).containsExactly(notice(A, REGISTRATION_PREEMPTED),
                notice(new HostId(0xd, 4), REGISTRATION_PREEMPTED), notice(C, RESERVATION_RELEASED));
        assertThat(ns.view().isHolder(B.hi(), B.lo())).isTrue();
    }

    @Test
    void preemptTheHolderWithTheSameTypeSendsNoReleased() {
        threeRegistrants();
        acquire(ns, A, 1, ReservationType.WRITE_EXCLUSIVE);
        ReservationResult r = preempt(ns, B, 2, 1, ReservationType.WRITE_EXCLUSIVE, false);
        assertThat(r.notices()).containsExactly(notice(A, REGISTRATION_PREEMPTED));
        assertThat(ns.holds(B)).isTrue();
    }

    @Test
    void holderPreemptsItselfToChangeType() {
        threeRegistrants();
        acquire(ns, A, 1, ReservationType.WRITE_EXCLUSIVE);
        int gen = ns.generation();
        ReservationResult r = preempt(ns, A, 1, 1, ReservationType.EXCLUSIVE_ACCESS_REGISTRANTS_ONLY, false);
        assertThat(r.status()).isEqualTo(SUCCESS);
        assertThat(r.preempted()).isEmpty();
        assertThat(ns.registered(A)).isTrue();
        assertThat(ns.holds(A)).isTrue();
        assertThat(ns.type()).isEqualTo(ReservationType.EXCLUSIVE_ACCESS_REGISTRANTS_ONLY);
        assertThat(r.notices()).containsExactly(notice(B, RESERVATION_RELEASED), notice(C, RESERVATION_RELEASED));
        assertThat(ns.generation()).isEqualTo(gen + 1);
    }

    @Test
    void preemptOtherRegistrantsKeepsTheReservation() {
        threeRegistrants();
        acquire(ns, A, 1, ReservationType.WRITE_EXCLUSIVE);
        ReservationResult r = preempt(ns, B, 2, 3, ReservationType.EXCLUSIVE_ACCESS, false);
        assertThat(r.status()).isEqualTo(SUCCESS);
        assertThat(r.preempted()).containsExactly(C);
        assertThat(ns.holds(A)).isTrue();
        assertThat(ns.type()).as("RTYPE applies only when the holder is preempted")
                .isEqualTo(ReservationType.WRITE_EXCLUSIVE);
        assertThat(preempt(ns, B, 2, 0, ReservationType.WRITE_EXCLUSIVE, false).status()).as("PRKEY 0")
                .isEqualTo(INVALID_FIELD);
        assertThat(preempt(ns, B, 2, 42, ReservationType.WRITE_EXCLUSIVE, false).status()).as("no such key")
                .isEqualTo(RESERVATION_CONFLICT);
    }

    @Test
    void preemptAllRegistrantsWithZeroKeyTakesOver() {
        threeRegistrants();
        acquire(ns, A, 1, ReservationType.WRITE_EXCLUSIVE_ALL_REGISTRANTS);
        ReservationResult r = preempt(ns, B, 2, 0, ReservationType.EXCLUSIVE_ACCESS, true);
        assertThat(r.status()).isEqualTo(SUCCESS);
        assertThat(r.preempted()).containsExactly(A, C);
        assertThat(r.notices()).containsExactly(notice(A, REGISTRATION_PREEMPTED), notice(C, REGISTRATION_PREEMPTED));
        assertThat(ns.snapshot().registrants()).extracting(ReservationSnapshot.Registrant::host).containsExactly(B);
        assertThat(ns.type()).isEqualTo(ReservationType.EXCLUSIVE_ACCESS);
        assertThat(ns.holds(B)).isTrue();
    }

    @Test
    void preemptAllRegistrantsWithAKeyOnlyUnregisters() {
        threeRegistrants();
        acquire(ns, A, 1, ReservationType.EXCLUSIVE_ACCESS_ALL_REGISTRANTS);
        ReservationResult r = preempt(ns, B, 2, 1, ReservationType.WRITE_EXCLUSIVE, false);
        assertThat(r.preempted()).containsExactly(A);
        assertThat(ns.type()).isEqualTo(ReservationType.EXCLUSIVE_ACCESS_ALL_REGISTRANTS);
        assertThat(preempt(ns, B, 2, 99, ReservationType.WRITE_EXCLUSIVE, false).status())
                .isEqualTo(RESERVATION_CONFLICT);
    }

    @Test
    void preemptNeedsTheRequestersOwnKey() {
        threeRegistrants();
        acquire(ns, A, 1, ReservationType.WRITE_EXCLUSIVE);
        ReservationSnapshot before = ns.snapshot();
        assertThat(preempt(ns, B, 3, 1, ReservationType.WRITE_EXCLUSIVE, false).status())
                .isEqualTo(RESERVATION_CONFLICT);
        assertThat(preempt(ns, new HostId(5, 5), 1, 1, ReservationType.WRITE_EXCLUSIVE, false).status())
                .isEqualTo(RESERVATION_CONFLICT);
        assertThat(ns.snapshot()).as("a failed command changes nothing").isEqualTo(before);
    }

    @Test
    void registrantLimit() {
        for (int i = 1; i <= NamespaceReservation.MAX_REGISTRANTS; i++) {
            assertThat(register(ns, new HostId(i, i), i).status()).isEqualTo(SUCCESS);
        }
        assertThat(register(ns, new HostId(99, 99), 1).status()).isEqualTo(INTERNAL_ERROR);
        assertThat(register(ns, new HostId(1, 1), 1).status()).as("re-registering still works").isEqualTo(SUCCESS);
    }

    @Test
    void resultsAreImmutable() {
        threeRegistrants();
        acquire(ns, A, 1, ReservationType.WRITE_EXCLUSIVE);
        ReservationResult r = preempt(ns, B, 2, 1, ReservationType.WRITE_EXCLUSIVE, false);
        assertThat(r.success()).isTrue();
        assertThat(r.notices()).isUnmodifiable();
        assertThat(r.preempted()).isUnmodifiable();
        assertThat(ReservationResult.of(INVALID_FIELD).success()).isFalse();
        assertThat(List.of(RegisterAction.values())).extracting(RegisterAction::code).containsExactly(0, 1, 2);
    }
}
