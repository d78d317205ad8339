package io.jdoca.nvmf.resv;

import io.jdoca.sta.nvmf.NvmfReservationView;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reservation state of one namespace and the rules of the Reservation Register, Acquire, Release
 * and Report commands (NVMe Base 2.0 §8.19 "Reservations", §7 for the commands): registrants (Host
 * Identifier → reservation key; registration is per host, so the controllers of one host share it),
 * the holder and type, the Reservation Generation counter and the Persist Through Power Loss state.
 *
 * <p>Methods take the decoded command fields ({@link ReservationFields}) and the requester's Host
 * Identifier, and answer a status: an illegal request or transition returns Invalid Field, Reservation
 * Conflict or Command Sequence Error, never an exception. A failed command changes nothing. A
 * successful one returns the notifications due ({@link ReservationResult#notices()}); the caller
 * posts them to each controller of the host ({@link ReservationNotificationLog}), publishes {@link
 * #view()} to the data path, and for Preempt and Abort aborts the preempted hosts' commands.
 *
 * <p>Rules chosen where the spec text was not at hand (see each method): a reservation key of 0 is
 * refused (Invalid Field, as SPDK: PRKEY 0 has a meaning of its own); Replace by a host that is not
 * a registrant is a Reservation Conflict even with IEKEY (Linux nvmet; SPDK registers it); IEKEY on
 * Acquire or Release is Invalid Field (both); a preempt that does not change the reservation type
 * sends no Reservation Released (Linux nvmet; SPDK sends it); the generation counts every successful
 * Register (including one that re-registers the same key), every successful Preempt and every Clear.
 *
 * <p>With a {@link ReservationStore} and PTPL on, every change is saved before the command completes;
 * when the save fails, the change is undone and the command answers Internal Error.
 *
 * <p>Not thread-safe: single writer, the management thread {@code sta-main}, no locks. The data path
 * reads only the immutable {@link NvmfReservationView} the caller publishes.
 */
public final class NamespaceReservation {
    /**
     * Registrants one namespace keeps at most (SPDK's {@code SPDK_NVMF_MAX_NUM_REGISTRANTS}, so a PTPL
     * file always loads in SPDK too; the data path scans them linearly). One more Register answers
     * Internal Error, as SPDK does.
     */
    public static final int MAX_REGISTRANTS = 16;

    private static final Logger LOG = LoggerFactory.getLogger(NamespaceReservation.class);

    private final ReservationStore store;
    /** Host → reservation key, in registration order (the report lists them so). */
    private final LinkedHashMap<HostId, Long> keys = new LinkedHashMap<>();
    /** The reservation type; {@code null}: no reservation. */
    private ReservationType type;
    /** The holder for types 1-4; {@code null} without a reservation and for types 5, 6 (all registrants hold). */
    private HostId holder;
    private int generation;
    private boolean ptpl;
    private NvmfReservationView view;

    /** A namespace without Persist Through Power Loss support (CPTPL 11b answers Invalid Field). */
    public NamespaceReservation() {
        this(null, ReservationSnapshot.empty(false));
    }

    /**
     * A namespace starting from {@code state} (e.g. {@link ReservationStore#load()}), saving through
     * {@code store} ({@code null}: PTPL not supported). The registrations and reservation of a state
     * whose PTPL is off are not restored: they did not survive the power cycle.
     */
    public NamespaceReservation(ReservationStore store, ReservationSnapshot state) {
        this.store = store;
        restore(state.ptpl() ? state : ReservationSnapshot.empty(false));
    }

    /**
     * A namespace restored from {@code store}'s file, or empty when it has none. Control path
     * (namespace add).
     *
     * @throws IOException              when the file cannot be read
     * @throws IllegalArgumentException when it is malformed (one line naming the file and the problem)
     */
    public static NamespaceReservation load(ReservationStore store) throws IOException {
        return new NamespaceReservation(store, store.load().orElse(ReservationSnapshot.empty(false)));
    }

    /** Where the reservation persists through power loss, or null (kept in memory only). */
    public ReservationStore store() {
        return store;
    }

    /** False when the host has not set its Host Identifier (all zeros): it may not use reservations. */
    public static boolean hostIdValid(long hostHi, long hostLo) {
        return (hostHi | hostLo) != 0;
    }

    /**
     * Reservation Register.
     *
     * <ul>
     * <li>Register (0): a new registrant gets {@code nrkey}; a registrant registering its own key
     *     again succeeds; one registering another key is a Reservation Conflict. NRKEY 0 is Invalid Field.
     * <li>Unregister (1): the registrant's CRKEY must match (unless IEKEY). A holder's unregistration
     *     releases a type 1-4 reservation; for types 3 and 4 the remaining registrants get Reservation
     *     Released. A type 5 or 6 reservation lasts while any registrant remains.
     * <li>Replace (2): as Unregister's key check, then the key becomes NRKEY (0 is Invalid Field).
     * </ul>
     * CPTPL ({@link PtplChange}) changes the PTPL state when the command succeeds; 11b without a
     * store, or 01b, is Invalid Field. Every success increments the generation.
     */
    public ReservationResult register(long hostHi, long hostLo, int rrega, boolean iekey, long crkey, long nrkey,
                                      int cptpl) {
        HostId host = new HostId(hostHi, hostLo);
        RegisterAction action = RegisterAction.of(rrega);
        PtplChange change = PtplChange.of(cptpl);
        if (!host.valid()) {
            return ReservationResult.of(ReservationStatus.COMMAND_SEQUENCE_ERROR);
        }
        if (action == null || change == null || change == PtplChange.SET && store == null) {
            return ReservationResult.of(ReservationStatus.INVALID_FIELD);
        }
        ReservationSnapshot before = snapshot();
        Long current = keys.get(host);
        List<ReservationNotice> notices = new ArrayList<>();
        switch (action) {
            case REGISTER -> {
                if (nrkey == 0) {
                    return ReservationResult.of(ReservationStatus.INVALID_FIELD);
                }
                if (current != null && current != nrkey) {
                    return ReservationResult.of(ReservationStatus.RESERVATION_CONFLICT);
                }
                if (current == null && keys.size() == MAX_REGISTRANTS) {
                    return ReservationResult.of(ReservationStatus.INTERNAL_ERROR);
                }
                keys.put(host, nrkey);
            }
            case UNREGISTER -> {
                if (current == null || !iekey && current != crkey) {
                    return ReservationResult.of(ReservationStatus.RESERVATION_CONFLICT);
                }
                ReservationType was = type;
                if (unregister(host) && was.registrantsOnly()) {
                    notifyRegistrants(host, ReservationNotificationLog.RESERVATION_RELEASED, notices);
                }
            }
            case REPLACE -> {
                if (nrkey == 0) {
                    return ReservationResult.of(ReservationStatus.INVALID_FIELD);
                }
                if (current == null || !iekey && current != crkey) {
                    return ReservationResult.of(ReservationStatus.RESERVATION_CONFLICT);
                }
                keys.put(host, nrkey);
            }
        }
        ptpl = change.apply(ptpl);
        generation++;
        return commit(before, new ReservationResult(ReservationStatus.SUCCESS, notices, List.of(), false));
    }

    /**
     * Reservation Acquire. The requester must be a registrant whose key is CRKEY (else Reservation
     * Conflict); IEKEY and a reserved RTYPE are Invalid Field.
     *
     * <ul>
     * <li>Acquire (0): without a reservation the requester becomes the holder of type RTYPE; a holder
     *     acquiring its own type again succeeds and changes nothing; anything else is a Reservation
     *     Conflict. The generation does not change.
     * <li>Preempt (1) and Preempt and Abort (2), Base 2.0 §8.19 "Preempting a Reservation or
     *     Registration":
     *     <ul>
     *     <li>no reservation: the registrants whose key is PRKEY are unregistered (none: Conflict);
     *     <li>type 1-4, PRKEY is the holder's key: the other registrants with that key are
     *         unregistered, the reservation released and a new one of type RTYPE created for the
     *         requester (a holder may so change its own type);
     *     <li>type 1-4, another non-zero PRKEY: the registrants with that key are unregistered (none:
     *         Conflict); PRKEY 0 is Invalid Field;
     *     <li>type 5 or 6, PRKEY 0: every other registrant is unregistered and the requester holds a
     *         new reservation of type RTYPE; another PRKEY: as "no reservation".
     *     </ul>
     *     Unregistered hosts other than the requester get Registration Preempted and are listed in
     *     {@link ReservationResult#preempted()}; when the type changed, the remaining registrants get
     *     Reservation Released. Every success increments the generation.
     * </ul>
     */
    public ReservationResult acquire(long hostHi, long hostLo, int racqa, boolean iekey, long crkey, long prkey,
                                     int rtype) {
        HostId host = new HostId(hostHi, hostLo);
        AcquireAction action = AcquireAction.of(racqa);
        ReservationType wanted = ReservationType.of(rtype);
        if (!host.valid()) {
            return ReservationResult.of(ReservationStatus.COMMAND_SEQUENCE_ERROR);
        }
        if (action == null || iekey || wanted == null) {
            return ReservationResult.of(ReservationStatus.INVALID_FIELD);
        }
        Long current = keys.get(host);
        if (current == null || current != crkey) {
            return ReservationResult.of(ReservationStatus.RESERVATION_CONFLICT);
        }
        ReservationSnapshot before = snapshot();
        if (action == AcquireAction.ACQUIRE) {
            if (type == null) {
                hold(host, wanted);
            } else if (!holds(host) || type != wanted) {
                return ReservationResult.of(ReservationStatus.RESERVATION_CONFLICT);
            }
            return commit(before, ReservationResult.of(ReservationStatus.SUCCESS));
        }
        List<HostId> victims;
        ReservationType was = type;
        if (type == null || type.allRegistrants() && prkey != 0) {
            victims = hostsWithKey(prkey, null);
            if (victims.isEmpty()) {
                return ReservationResult.of(ReservationStatus.RESERVATION_CONFLICT);
            }
            victims.forEach(this::unregister);
        } else if (type.allRegistrants()) {
            victims = new ArrayList<>(keys.keySet());
            victims.remove(host);
            victims.forEach(this::unregister);
            hold(host, wanted);
        } else if (prkey == keys.get(holder)) {
            victims = hostsWithKey(prkey, host);
            victims.forEach(this::unregister);
            type = null;
            holder = null;
            hold(host, wanted);
        } else if (prkey != 0) {
            victims = hostsWithKey(prkey, null);
            if (victims.isEmpty()) {
                return ReservationResult.of(ReservationStatus.RESERVATION_CONFLICT);
            }
            victims.forEach(this::unregister);
        } else {
            return ReservationResult.of(ReservationStatus.INVALID_FIELD);
        }
        List<ReservationNotice> notices = new ArrayList<>();
        List<HostId> preempted = new ArrayList<>();
        for (HostId v : victims) {
            if (!v.equals(host)) {
                preempted.add(v);
                notices.add(new ReservationNotice(v, ReservationNotificationLog.REGISTRATION_PREEMPTED));
            }
        }
        if (was != null && type != null && was != type) {
            notifyRegistrants(host, ReservationNotificationLog.RESERVATION_RELEASED, notices);
        }
        generation++;
        return commit(before, new ReservationResult(ReservationStatus.SUCCESS, notices, preempted,
                action == AcquireAction.PREEMPT_AND_ABORT));
    }

    /**
     * Reservation Release. The requester must be a registrant whose key is CRKEY (else Reservation
     * Conflict); IEKEY is Invalid Field.
     *
     * <ul>
     * <li>Release (0): without a reservation, or from a registrant that does not hold it, succeeds
     *     and changes nothing; the holder (any registrant for types 5, 6) must name the current type
     *     (else Invalid Field) and the reservation is released; for types 3-6 the other registrants
     *     get Reservation Released. The generation does not change.
     * <li>Clear (1): every registrant is unregistered and the reservation released; the other
     *     registrants get Reservation Preempted. The generation increments.
     * </ul>
     */
    public ReservationResult release(long hostHi, long hostLo, int rrela, boolean iekey, long crkey, int rtype) {
        HostId host = new HostId(hostHi, hostLo);
        ReleaseAction action = ReleaseAction.of(rrela);
        if (!host.valid()) {
            return ReservationResult.of(ReservationStatus.COMMAND_SEQUENCE_ERROR);
        }
        if (action == null || iekey) {
            return ReservationResult.of(ReservationStatus.INVALID_FIELD);
        }
        Long current = keys.get(host);
        if (current == null || current != crkey) {
            return ReservationResult.of(ReservationStatus.RESERVATION_CONFLICT);
        }
        ReservationSnapshot before = snapshot();
        List<ReservationNotice> notices = new ArrayList<>();
        if (action == ReleaseAction.RELEASE) {
            if (type == null || !holds(host)) {
                return ReservationResult.of(ReservationStatus.SUCCESS);
            }
            if (type.code() != rtype) {
                return ReservationResult.of(ReservationStatus.INVALID_FIELD);
            }
            ReservationType was = type;
            type = null;
            holder = null;
            if (was.releaseNotifiesRegistrants()) {
                notifyRegistrants(host, ReservationNotificationLog.RESERVATION_RELEASED, notices);
            }
        } else {
            notifyRegistrants(host, ReservationNotificationLog.RESERVATION_PREEMPTED, notices);
            keys.clear();
            type = null;
            holder = null;
            generation++;
        }
        return commit(before, new ReservationResult(ReservationStatus.SUCCESS, notices, List.of(), false));
    }

    /**
     * Reservation Report with every CNTLID reported as {@link ControllerIdResolver#DYNAMIC}, for a
     * requester the caller has already checked with {@link #hostIdValid}.
     */
    public ReservationReport report(int lengthBytes, boolean eds) {
        return reportOf(lengthBytes, eds, ControllerIdResolver.ALWAYS_DYNAMIC);
    }

    /**
     * Reservation Report: the Reservation Status Extended Data Structure ({@link ReservationReport}
     * has the layout), cut to {@code lengthBytes} ((NUMD + 1) * 4). EDS cleared is Host Identifier
     * Inconsistent Format (hosts have 128-bit identifiers); {@code lengthBytes} below 1 is Invalid
     * Field; an all-zero requester is Command Sequence Error. {@code cntlids} names each registrant's
     * controller id. Changes nothing.
     */
    public ReservationReport report(long hostHi, long hostLo, int lengthBytes, boolean eds,
                                    ControllerIdResolver cntlids) {
        if (!hostIdValid(hostHi, hostLo)) {
            return ReservationReport.failure(ReservationStatus.COMMAND_SEQUENCE_ERROR);
        }
        return reportOf(lengthBytes, eds, cntlids);
    }

    private ReservationReport reportOf(int lengthBytes, boolean eds, ControllerIdResolver cntlids) {
        if (!eds) {
            return ReservationReport.failure(ReservationStatus.HOST_ID_INCONSISTENT_FORMAT);
        }
        if (lengthBytes < 1) {
            return ReservationReport.failure(ReservationStatus.INVALID_FIELD);
        }
        return new ReservationReport(ReservationStatus.SUCCESS, ReservationReport.extended(snapshot(), lengthBytes,
                cntlids));
    }

    /**
     * Set Features Reservation Persistence (FID 83h, PTPL bit): Invalid Field without a store, else
     * the state changes (and is saved; Internal Error, nothing changed, when the save fails).
     */
    public int setPersistThroughPowerLoss(boolean on) {
        if (store == null) {
            return ReservationStatus.INVALID_FIELD;
        }
        ReservationSnapshot before = snapshot();
        ptpl = on;
        return commit(before, ReservationResult.of(ReservationStatus.SUCCESS)).status();
    }

    /** The PTPL state (Get Features 83h, Reservation Status PTPLS). */
    public boolean persistThroughPowerLoss() {
        return ptpl;
    }

    /** True when the namespace can persist through power loss (it has a store): Identify RESCAP bit 0. */
    public boolean ptplCapable() {
        return store != null;
    }

    /**
     * The data path's view: {@code null} while no reservation is held (see {@link NvmfReservationView}),
     * a new object after each change. Publish it to the namespace's volatile field after every command.
     */
    public NvmfReservationView view() {
        return view;
    }

    /** The whole state now. */
    public ReservationSnapshot snapshot() {
        List<ReservationSnapshot.Registrant> regs = new ArrayList<>(keys.size());
        for (Map.Entry<HostId, Long> e : keys.entrySet()) {
            regs.add(new ReservationSnapshot.Registrant(e.getKey(), e.getValue()));
        }
        return new ReservationSnapshot(ptpl, type, holder, regs, generation);
    }

    /** The Reservation Generation counter (PRGEN). */
    public int generation() {
        return generation;
    }

    /** The reservation type, {@code null} when none is held. */
    public ReservationType type() {
        return type;
    }

    /** True when {@code host} holds the reservation (types 5, 6: is a registrant). */
    public boolean holds(HostId host) {
        return type != null && (type.allRegistrants() ? keys.containsKey(host) : host.equals(holder));
    }

    /** True when {@code host} is a registrant. */
    public boolean registered(HostId host) {
        return keys.containsKey(host);
    }

    private void hold(HostId host, ReservationType t) {
        type = t;
        holder = t.allRegistrants() ? null : host;
    }

    /**
     * Removes the registration of {@code host}; a type 1-4 reservation it held is released, a type 5
     * or 6 one when no registrant remains. True when the reservation was released so.
     */
    private boolean unregister(HostId host) {
        keys.remove(host);
        if (type != null && (type.allRegistrants() ? keys.isEmpty() : host.equals(holder))) {
            type = null;
            holder = null;
            return true;
        }
        return false;
    }

    /** The registrants whose key is {@code key}, {@code except} left out. */
    private List<HostId> hostsWithKey(long key, HostId except) {
        List<HostId> out = new ArrayList<>();
        for (Map.Entry<HostId, Long> e : keys.entrySet()) {
            if (e.getValue() == key && !e.getKey().equals(except)) {
                out.add(e.getKey());
            }
        }
        return out;
    }

    /** A notice of {@code logPageType} to every registrant but {@code requester}. */
    private void notifyRegistrants(HostId requester, int logPageType, List<ReservationNotice> out) {
        for (HostId h : keys.keySet()) {
            if (!h.equals(requester)) {
                out.add(new ReservationNotice(h, logPageType));
            }
        }
    }

    /**
     * Ends a successful command: rebuilds the view and saves when PTPL is (or was) on; a failed save
     * puts {@code before} back and answers Internal Error.
     */
    private ReservationResult commit(ReservationSnapshot before, ReservationResult r) {
        ReservationSnapshot after = snapshot();
        if (after.equals(before)) {
            return r;
        }
        if (store != null && (after.ptpl() || before.ptpl())) {
            try {
                store.save(after);
            } catch (IOException e) {
                LOG.warn("reservation state not saved to {}, command undone: {}", store.file(), e.toString());
                restore(before);
                return ReservationResult.of(ReservationStatus.INTERNAL_ERROR);
            }
        }
        view = buildView();
        return r;
    }

    private void restore(ReservationSnapshot s) {
        keys.clear();
        for (ReservationSnapshot.Registrant r : s.registrants()) {
            keys.put(r.host(), r.key());
        }
        type = s.type();
        holder = s.holder();
        generation = s.generation();
        ptpl = s.ptpl();
        view = buildView();
    }

    private NvmfReservationView buildView() {
        if (type == null) {
            return NvmfReservationView.NONE;
        }
        long[] regs = new long[keys.size() * 2];
        int i = 0;
        for (HostId h : keys.keySet()) {
            regs[i++] = h.hi();
            regs[i++] = h.lo();
        }
        return new NvmfReservationView(type.code(), holder == null ? 0 : holder.hi(), holder == null ? 0 : holder.lo(),
                regs);
    }
}
