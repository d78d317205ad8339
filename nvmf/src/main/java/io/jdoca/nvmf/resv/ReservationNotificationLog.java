package io.jdoca.nvmf.resv;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;

/**
 * One controller's queue of Reservation Notification log page entries (NVMe Base 2.0 §5.16, Get Log
 * Page, log identifier 80h "Reservation Notification"): each Get Log Page 80h returns and consumes the oldest
 * entry ({@link #take}), an empty page when there is none.
 *
 * <p>The 64-byte page (little-endian):
 * <pre>
 * bytes 07:00  Log Page Count: 64-bit count of notifications; 0 only in an empty page. It starts at 0
 *              after a controller reset, is incremented for each notification and rolls over to 1,
 *              never 0, after FFFFFFFF_FFFFFFFFh.
 * byte  08     Reservation Notification Log Page Type: 0 empty, 1 Registration Preempted,
 *              2 Reservation Released, 3 Reservation Preempted
 * byte  09     Number of Available Log Pages: entries still queued after this one (at most 255)
 * bytes 11:10  reserved
 * bytes 15:12  Namespace ID
 * bytes 63:16  reserved
 * </pre>
 *
 * <p>Overflow: the queue holds {@code capacity} entries (255 by default, the most Number of Available
 * Log Pages can say). A notification that finds it full is lost; as the spec asks, the Log Page Count
 * of the newest queued entry is raised to the count the lost one would have had, so the host sees
 * the gap (SPDK does the same in {@code _nvmf_ctrlr_add_reservation_log}).
 *
 * <p>Asynchronous event: a queued entry is announced by an asynchronous event of type 6h (I/O Command
 * specific status), information 0h (Reservation Log Page Available), log page 80h ({@link
 * #ASYNC_EVENT_DW0}). The caller raises it whenever {@link #post} or {@link #eventDue()} answers
 * true; from then on the event is masked until the host reads the page with Retain Asynchronous Event
 * cleared (Base 2.0 §5.2, Asynchronous Event Request), so a burst of notifications raises one event.
 *
 * <p>Not thread-safe: owned by the controller's management thread ({@code sta-main}).
 */
public final class ReservationNotificationLog {
    /** The log identifier of the page. */
    public static final int LOG_PAGE_ID = 0x80;
    /** Bytes of one page. */
    public static final int PAGE_BYTES = 64;
    /** Log page type of an empty page. */
    public static final int EMPTY = 0;
    /** Log page type: the host's registration was removed by another host's preempt. */
    public static final int REGISTRATION_PREEMPTED = 1;
    /** Log page type: the reservation was released (or its type changed by a preempt). */
    public static final int RESERVATION_RELEASED = 2;
    /** Log page type: the reservation and registrations were cleared by another host. */
    public static final int RESERVATION_PREEMPTED = 3;
    /** Asynchronous Event Type 6h: I/O Command specific status. */
    public static final int ASYNC_EVENT_TYPE = 6;
    /** Asynchronous Event Information 0h of type 6h: Reservation Log Page Available. */
    public static final int ASYNC_EVENT_INFO = 0;
    /** Completion dword 0 of the Asynchronous Event Request: type (2:0), information (15:8), log page (23:16). */
    public static final int ASYNC_EVENT_DW0 = ASYNC_EVENT_TYPE | ASYNC_EVENT_INFO << 8 | LOG_PAGE_ID << 16;
    /** The default queue length. */
    public static final int DEFAULT_CAPACITY = 255;

    /** One queued entry; {@code count} is raised in place when a later notification is lost. */
    private static final class Entry {
        long count;
        final int type;
        final int nsid;

        Entry(long count, int type, int nsid) {
            this.count = count;
            this.type = type;
            this.nsid = nsid;
        }
    }

    private final int capacity;
    private final ArrayDeque<Entry> queue = new ArrayDeque<>();
    /** The count of the last notification, lost or queued; 0 before the first. */
    private long counter;
    private long lost;
    /** True from raising the event until the host reads the page with RAE cleared. */
    private boolean eventMasked;

    public ReservationNotificationLog() {
        this(DEFAULT_CAPACITY);
    }

    /** A queue of at most {@code capacity} (1..255) entries. */
    public ReservationNotificationLog(int capacity) {
        this(capacity, 0);
    }

    /** As {@link #ReservationNotificationLog(int)}, the count of the last notification being {@code lastCount}. */
    ReservationNotificationLog(int capacity, long lastCount) {
        if (capacity < 1 || capacity > 255) {
            throw new IllegalArgumentException("capacity " + capacity + " is not 1..255");
        }
        this.capacity = capacity;
        this.counter = lastCount;
    }

    /**
     * True when the Reservation Notification Mask (Set Features 82h, Command Dword 11: bit 1
     * Registration Preempted, bit 2 Reservation Released, bit 3 Reservation Preempted) suppresses
     * notifications of {@code type}: the caller then does not {@link #post} it.
     */
    public static boolean masked(int notificationMask, int type) {
        return type >= REGISTRATION_PREEMPTED && type <= RESERVATION_PREEMPTED && (notificationMask >>> type & 1) != 0;
    }

    /**
     * Queues a notification of {@code type} for namespace {@code nsid}, or counts it lost when the
     * queue is full. Returns {@link #eventDue()}: true when the caller must now raise the asynchronous
     * event ({@link #ASYNC_EVENT_DW0}).
     *
     * @throws IllegalArgumentException for a type other than 1..3 (a caller bug, not host input)
     */
    public boolean post(int type, int nsid) {
        if (type < REGISTRATION_PREEMPTED || type > RESERVATION_PREEMPTED) {
            throw new IllegalArgumentException("reservation notification type " + type + " is not 1..3");
        }
        counter = counter == -1L ? 1 : counter + 1;
        if (queue.size() == capacity) {
            queue.peekLast().count = counter;
            lost++;
        } else {
            queue.addLast(new Entry(counter, type, nsid));
        }
        return eventDue();
    }

    /**
     * Get Log Page 80h: the oldest entry as its 64-byte page, removed from the queue; an all-zero
     * page (type Empty) when none is queued. With {@code retainAsyncEvent} (RAE, Get Log Page Command
     * Dword 10 bit 15) cleared the asynchronous event is unmasked: the caller then asks {@link
     * #eventDue()} whether to raise the next one.
     */
    public byte[] take(boolean retainAsyncEvent) {
        ByteBuffer page = ByteBuffer.allocate(PAGE_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        Entry e = queue.pollFirst();
        if (e != null) {
            page.putLong(0, e.count);
            page.put(8, (byte) e.type);
            page.put(9, (byte) Math.min(255, queue.size()));
            page.putInt(12, e.nsid);
        }
        if (!retainAsyncEvent) {
            eventMasked = false;
        }
        return page.array();
    }

    /**
     * True when entries are queued and the event is not masked; the caller must then raise the
     * asynchronous event, and this call masks it (so it answers true once until the next read).
     */
    public boolean eventDue() {
        if (queue.isEmpty() || eventMasked) {
            return false;
        }
        eventMasked = true;
        return true;
    }

    /** Entries queued now. */
    public int available() {
        return queue.size();
    }

    /** Notifications lost to a full queue since this log was made. */
    public long lost() {
        return lost;
    }

    /** Controller Level Reset: the queue empties, the count restarts at 0, the event is unmasked. */
    public void reset() {
        queue.clear();
        counter = 0;
        eventMasked = false;
    }
}
