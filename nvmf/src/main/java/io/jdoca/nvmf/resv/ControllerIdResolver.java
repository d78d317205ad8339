package io.jdoca.nvmf.resv;

/**
 * Which controller id a registrant host uses, for the CNTLID field of its Registered Controller
 * (Extended) data structure in a Reservation Report. The engine keeps registrations per Host
 * Identifier (controllers of one host share them), so it asks the caller, who knows the subsystem's
 * controllers: a host with exactly one controller answers its id; a host with several, or none now,
 * answers {@link #DYNAMIC}.
 *
 * <p>Called on the management thread during {@link NamespaceReservation#report}.
 */
@FunctionalInterface
public interface ControllerIdResolver {
    /**
     * FFFFh: the controller id of a host on the dynamic controller model, or of several controllers
     * (Base 2.0, Registered Controller data structure CNTLID; Linux nvmet always reports it).
     */
    int DYNAMIC = 0xffff;

    /** Reports {@link #DYNAMIC} for every host. */
    ControllerIdResolver ALWAYS_DYNAMIC = (hi, lo) -> DYNAMIC;

    /** The controller id (0..FFFFh) to report for the host. */
    int cntlid(long hostHi, long hostLo);
}
