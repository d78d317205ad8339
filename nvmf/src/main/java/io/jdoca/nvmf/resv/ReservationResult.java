package io.jdoca.nvmf.resv;

import java.util.List;

/**
 * What a Reservation Register, Acquire or Release did: the completion status, the notifications the
 * caller delivers, and the hosts whose registrations a preempt removed.
 *
 * <p>Immutable; safe from any thread.
 *
 * @param status         the NVMe status to complete the command with ({@link ReservationStatus})
 * @param notices        the Reservation Notifications due, in order; empty unless {@code status} is success
 * @param preempted      the hosts (other than the requester) whose registrations a Preempt or Preempt
 *                       and Abort removed
 * @param abortPreempted true after a successful Preempt and Abort: the caller aborts the outstanding
 *                       commands of {@code preempted}'s controllers on this namespace ({@link
 *                       ReservationStatus#ABORTED_PREEMPT}) before it completes the Acquire
 */
public record ReservationResult(int status, List<ReservationNotice> notices, List<HostId> preempted,
                                boolean abortPreempted) {
    public ReservationResult {
        notices = List.copyOf(notices);
        preempted = List.copyOf(preempted);
    }

    /** A result with only a status: a failure, or a success that changed nothing to tell. */
    public static ReservationResult of(int status) {
        return new ReservationResult(status, List.of(), List.of(), false);
    }

    public boolean success() {
        return status == ReservationStatus.SUCCESS;
    }
}
