package io.jdoca.nvmf.resv;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The whole reservation state of one namespace at one moment: what {@link ReservationStore} persists
 * and {@link NamespaceReservation} restores, and what tests compare.
 *
 * <p>The compact constructor checks the invariants the engine keeps, so a snapshot read from a file
 * is either consistent or refused: registrants have distinct, non-zero Host Identifiers and non-zero
 * keys, at most {@link NamespaceReservation#MAX_REGISTRANTS}; no type means no holder; a held
 * reservation has registrants; a Write Exclusive, Exclusive Access or Registrants Only reservation
 * has a holder that is a registrant; an All Registrants reservation has none (every registrant
 * holds), so {@code holder} is dropped for types 5 and 6.
 *
 * <p>Immutable; safe from any thread.
 *
 * @param ptpl        the Persist Through Power Loss state
 * @param type        the reservation type, {@code null} when no reservation is held
 * @param holder      the holder for types 1-4, {@code null} otherwise
 * @param registrants the registrants in registration order
 * @param generation  the Reservation Generation counter (PRGEN), as an unsigned 32-bit value
 */
public record ReservationSnapshot(boolean ptpl, ReservationType type, HostId holder, List<Registrant> registrants,
                                  int generation) {
    /**
     * One registration: the host and its reservation key.
     *
     * <p>Immutable; safe from any thread.
     */
    public record Registrant(HostId host, long key) {
    }

    /**
     * Checks the invariants (see the class comment).
     *
     * @throws IllegalArgumentException naming the first one broken
     */
    public ReservationSnapshot {
        registrants = List.copyOf(registrants);
        if (registrants.size() > NamespaceReservation.MAX_REGISTRANTS) {
            throw new IllegalArgumentException(registrants.size() + " registrants; at most "
                    + NamespaceReservation.MAX_REGISTRANTS);
        }
        Set<HostId> seen = new HashSet<>();
        for (Registrant r : registrants) {
            if (!r.host().valid()) {
                throw new IllegalArgumentException("a registrant has the all-zero Host Identifier");
            }
            if (r.key() == 0) {
                throw new IllegalArgumentException("registrant " + r.host() + " has reservation key 0");
            }
            if (!seen.add(r.host())) {
                throw new IllegalArgumentException("registrant " + r.host() + " appears twice");
            }
        }
        if (type == null) {
            if (holder != null) {
                throw new IllegalArgumentException("holder " + holder + " without a reservation type");
            }
        } else if (registrants.isEmpty()) {
            throw new IllegalArgumentException("reservation type " + type.code() + " without registrants");
        } else if (type.allRegistrants()) {
            holder = null;
        } else if (holder == null || !seen.contains(holder)) {
            throw new IllegalArgumentException("the holder of a type " + type.code() + " reservation, " + holder
                    + ", is not a registrant");
        }
    }

    /** No registrants, no reservation, generation 0. */
    public static ReservationSnapshot empty(boolean ptpl) {
        return new ReservationSnapshot(ptpl, null, null, List.of(), 0);
    }

    /** The key of {@code host}, or 0 when it is not a registrant. */
    public long keyOf(HostId host) {
        for (Registrant r : registrants) {
            if (r.host().equals(host)) {
                return r.key();
            }
        }
        return 0;
    }

    /**
     * The hosts that hold the reservation: none without one, the holder for types 1-4, every
     * registrant for types 5 and 6.
     */
    public List<HostId> holders() {
        if (type == null) {
            return List.of();
        }
        if (!type.allRegistrants()) {
            return List.of(holder);
        }
        List<HostId> out = new ArrayList<>(registrants.size());
        for (Registrant r : registrants) {
            out.add(r.host());
        }
        return out;
    }

    /**
     * The reservation key SPDK's PTPL file calls {@code crkey}: the holder's key for types 1-4, the
     * first registrant's for types 5 and 6 (any registrant holds; SPDK restores the first as its
     * holder and refuses a {@code crkey} no registrant has), 0 without a reservation.
     */
    public long holderKey() {
        if (type == null) {
            return 0;
        }
        return type.allRegistrants() ? registrants.get(0).key() : keyOf(holder);
    }
}
