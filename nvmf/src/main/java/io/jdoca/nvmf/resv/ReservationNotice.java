package io.jdoca.nvmf.resv;

/**
 * A Reservation Notification due to a host (NVMe Base 2.0 §8.19, "Reservation Notifications"):
 * every controller of {@code host} that has not masked {@code logPageType} for the namespace (Set
 * Features 82h) gets a Reservation Notification log page entry of that type and, when due, the
 * asynchronous event ({@link ReservationNotificationLog#post}).
 *
 * <p>Immutable; safe from any thread.
 *
 * @param host        the host whose controllers are notified
 * @param logPageType {@link ReservationNotificationLog#REGISTRATION_PREEMPTED}, {@link
 *                    ReservationNotificationLog#RESERVATION_RELEASED} or {@link
 *                    ReservationNotificationLog#RESERVATION_PREEMPTED}
 */
public record ReservationNotice(HostId host, int logPageType) {
}
