package io.jdoca.nvmf.resv;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.sta.nvmf.NvmfReservationView;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.Size;

/**
 * Random sequences of reservation commands from a few hosts keep the engine's invariants: at most one
 * holder (types 1-4), the holder is a registrant, no type exactly when no holder, a failed command
 * changes nothing, the generation moves by one exactly on a successful Register, Preempt or Clear,
 * notifications only follow success and never go to the requester, preempted hosts are gone, and the
 * published view answers every host as the spec's conflict table does.
 */
class ReservationInvariantPropertyTest {
    /**
     * Hosts 1-4 send most commands, 5 a few, 0 (the all-zero identifier) fewer; 6 sends none, so the
     * view is always also asked about a host that never registered.
     */
    static final HostId[] HOSTS = {new HostId(0, 0), new HostId(1, 11), new HostId(2, 22), new HostId(3, 33),
        new HostId(4, 44), new HostId(5, 55), new HostId(6, 66)};

    /** The conflict table of Base 2.0 §8.19 as written: per type, "holder registrant other", read/write. */
    static final String[] TABLE = {"Y/Y Y/C Y/C", "Y/Y C/C C/C", "Y/Y Y/Y Y/C", "Y/Y Y/Y C/C", "Y/Y Y/Y Y/C",
        "Y/Y Y/Y C/C"};

    enum Kind { REGISTER, ACQUIRE, RELEASE }

    /**
     * One command: who sends it, which command, a roll that picks the action code (reserved ones
     * rarely), IEKEY, whether CRKEY (and a Register's NRKEY) is the host's own key, PRKEY / NRKEY from
     * a small set so keys collide, RTYPE 0..7, CPTPL.
     */
    record Cmd(int host, Kind kind, int roll, boolean iekey, boolean ownKey, long key2, int rtype, int cptpl) {
        int action() {
            return switch (kind) {
                case REGISTER -> roll < 50 ? 0 : roll < 70 ? 1 : roll < 98 ? 2 : 3;
                case ACQUIRE -> roll < 40 ? 0 : roll < 70 ? 1 : roll < 98 ? 2 : 3;
                case RELEASE -> roll < 75 ? 0 : roll < 97 ? 1 : 2;
            };
        }
    }

    @Provide
    Arbitrary<Cmd> commands() {
        return Combinators.combine(
                Arbitraries.frequency(Tuple.of(1, 0), Tuple.of(10, 1), Tuple.of(10, 2), Tuple.of(10, 3),
                        Tuple.of(10, 4), Tuple.of(2, 5)),
                Arbitraries.frequency(Tuple.of(4, Kind.REGISTER), Tuple.of(4, Kind.ACQUIRE), Tuple.of(2, Kind.RELEASE)),
                Arbitraries.integers().between(0, 99),
                Arbitraries.frequency(Tuple.of(9, false), Tuple.of(1, true)),
                Arbitraries.frequency(Tuple.of(9, true), Tuple.of(1, false)),
                Arbitraries.frequency(Tuple.of(2, 0L), Tuple.of(10, 1L), Tuple.of(10, 2L), Tuple.of(10, 3L),
                        Tuple.of(2, 4L)),
                Arbitraries.frequency(Tuple.of(1, 0), Tuple.of(10, 1), Tuple.of(10, 2), Tuple.of(10, 3),
                        Tuple.of(10, 4), Tuple.of(10, 5), Tuple.of(10, 6), Tuple.of(1, 7)),
                Arbitraries.frequency(Tuple.of(40, 0), Tuple.of(1, 1), Tuple.of(1, 2), Tuple.of(1, 3)))
                .as(Cmd::new);
    }

    @Property(tries = 500, edgeCases = EdgeCasesMode.NONE)
    void invariantsHold(@ForAll @Size(min = 1, max = 80) List<@From("commands") Cmd> cmds) {
        NamespaceReservation ns = new NamespaceReservation();
        check(ns);
        for (Cmd c : cmds) {
            HostId h = HOSTS[c.host()];
            ReservationSnapshot before = ns.snapshot();
            long own = before.keyOf(h);
            long crkey = c.ownKey() ? own : own + 1;
            long nrkey = c.action() == 0 && c.ownKey() && own != 0 ? own : c.key2();
            ReservationResult r = switch (c.kind()) {
                case REGISTER -> ns.register(h.hi(), h.lo(), c.action(), c.iekey(), crkey, nrkey, c.cptpl());
                case ACQUIRE -> ns.acquire(h.hi(), h.lo(), c.action(), c.iekey(), crkey, c.key2(), c.rtype());
                case RELEASE -> ns.release(h.hi(), h.lo(), c.action(), c.iekey(), crkey, c.rtype());
            };
            ReservationSnapshot after = ns.snapshot();
            if (!r.success()) {
                assertThat(after).as("failed %s changed the state", c).isEqualTo(before);
                assertThat(r.notices()).isEmpty();
                assertThat(r.preempted()).isEmpty();
            }
            if (!h.valid()) {
                assertThat(r.status()).isEqualTo(ReservationStatus.COMMAND_SEQUENCE_ERROR);
            }
            boolean counts = r.success() && switch (c.kind()) {
                case REGISTER -> true;
                case ACQUIRE -> c.action() != AcquireAction.ACQUIRE.code();
                case RELEASE -> c.action() == ReleaseAction.CLEAR.code();
            };
            assertThat(after.generation()).as("generation after %s -> %s", c, r.status())
                    .isEqualTo(before.generation() + (counts ? 1 : 0));
            for (ReservationNotice n : r.notices()) {
                assertThat(n.host()).as("no notice to the requester").isNotEqualTo(h);
            }
            for (HostId p : r.preempted()) {
                assertThat(after.keyOf(p)).as("preempted %s still registered", p).isZero();
                assertThat(r.notices())
                        .contains(new ReservationNotice(p, ReservationNotificationLog.REGISTRATION_PREEMPTED));
            }
            assertThat(r.abortPreempted()).isEqualTo(r.success() && c.kind() == Kind.ACQUIRE
                    && c.action() == AcquireAction.PREEMPT_AND_ABORT.code());
            check(ns);
        }
    }

    static void check(NamespaceReservation ns) {
        ReservationSnapshot s = ns.snapshot();
        List<HostId> holders = s.holders();
        if (s.type() == null) {
            assertThat(holders).isEmpty();
            assertThat(s.holder()).isNull();
            assertThat(ns.view()).isNull();
        } else {
            assertThat(holders).isNotEmpty();
            if (!s.type().allRegistrants()) {
                assertThat(holders).hasSize(1);
            }
            for (HostId h : holders) {
                assertThat(s.keyOf(h)).as("holder %s is a registrant", h).isNotZero();
            }
            assertThat(ns.view()).isNotNull();
            assertThat(ns.view().type()).isEqualTo(s.type().code());
        }
        for (HostId h : HOSTS) {
            for (boolean write : new boolean[] {false, true}) {
                assertThat(NvmfReservationView.conflicts(ns.view(), h.hi(), h.lo(), write))
                        .as("host %s write=%s in %s", h, write, s).isEqualTo(reference(s, h, write));
            }
        }
    }

    /** The conflict table read directly: the role of the host, then the cell. */
    static boolean reference(ReservationSnapshot s, HostId h, boolean write) {
        if (s.type() == null) {
            return false;
        }
        int role = s.holders().contains(h) ? 0 : s.keyOf(h) != 0 ? 1 : 2;
        String cell = TABLE[s.type().code() - 1].split(" ")[role];
        return cell.charAt(write ? 2 : 0) == 'C';
    }
}
