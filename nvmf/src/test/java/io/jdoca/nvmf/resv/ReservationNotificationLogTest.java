package io.jdoca.nvmf.resv;

import static io.jdoca.nvmf.resv.ReservationNotificationLog.REGISTRATION_PREEMPTED;
import static io.jdoca.nvmf.resv.ReservationNotificationLog.RESERVATION_PREEMPTED;
import static io.jdoca.nvmf.resv.ReservationNotificationLog.RESERVATION_RELEASED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Log page 80h (NVMe Base 2.0, Get Log Page "Reservation Notification"): Log Page Count 07:00, type
 * 08, Number of Available Log Pages 09, NSID 15:12; the queue bound and the asynchronous event.
 */
class ReservationNotificationLogTest {
    static long count(byte[] p) {
        return ByteBuffer.wrap(p).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
    }

    static int nsid(byte[] p) {
        return ByteBuffer.wrap(p).order(ByteOrder.LITTLE_ENDIAN).getInt(12);
    }

    @Test
    void pageLayout() {
        ReservationNotificationLog log = new ReservationNotificationLog();
        log.post(RESERVATION_RELEASED, 0x01020304);
        log.post(REGISTRATION_PREEMPTED, 7);
        byte[] p = log.take(false);
        assertThat(p).hasSize(64);
        assertThat(count(p)).isEqualTo(1);
        assertThat(p[8]).as("type").isEqualTo((byte) RESERVATION_RELEASED);
        assertThat(p[9]).as("one more available").isEqualTo((byte) 1);
        assertThat(p[10]).isZero();
        assertThat(p[11]).isZero();
        assertThat(nsid(p)).isEqualTo(0x01020304);
        assertThat(Arrays.copyOfRange(p, 16, 64)).containsOnly(0);
        byte[] q = log.take(false);
        assertThat(count(q)).isEqualTo(2);
        assertThat(q[8]).isEqualTo((byte) REGISTRATION_PREEMPTED);
        assertThat(q[9]).isZero();
        assertThat(nsid(q)).isEqualTo(7);
    }

    @Test
    void emptyPageWhenNothingQueued() {
        ReservationNotificationLog log = new ReservationNotificationLog();
        assertThat(log.take(false)).hasSize(64).containsOnly(0);
        log.post(RESERVATION_PREEMPTED, 1);
        log.take(false);
        assertThat(log.take(false)).containsOnly(0);
        assertThat(log.available()).isZero();
    }

    @Test
    void overflowRaisesTheNewestCountAndDropsTheEntry() {
        ReservationNotificationLog log = new ReservationNotificationLog(3);
        for (int i = 1; i <= 5; i++) {
            log.post(RESERVATION_RELEASED, i);
        }
        assertThat(log.available()).isEqualTo(3);
        assertThat(log.lost()).isEqualTo(2);
        byte[] first = log.take(true);
        byte[] second = log.take(true);
        byte[] third = log.take(true);
        assertThat(count(first)).isEqualTo(1);
        assertThat(first[9]).isEqualTo((byte) 2);
        assertThat(count(second)).isEqualTo(2);
        assertThat(count(third)).as("the gap 2 -> 5 says three-minus-one were lost").isEqualTo(5);
        assertThat(nsid(third)).as("the entry keeps its own namespace").isEqualTo(3);
        log.post(RESERVATION_RELEASED, 9);
        assertThat(count(log.take(true))).isEqualTo(6);
    }

    @Test
    void availableCountSaturatesAt255() {
        ReservationNotificationLog log = new ReservationNotificationLog();
        for (int i = 0; i < 300; i++) {
            log.post(REGISTRATION_PREEMPTED, 1);
        }
        assertThat(log.available()).isEqualTo(255);
        assertThat(log.take(true)[9] & 0xff).isEqualTo(254);
    }

    @Test
    void countWrapsToOneNeverZero() {
        ReservationNotificationLog log = new ReservationNotificationLog(255, -2L);
        log.post(RESERVATION_RELEASED, 1);
        log.post(RESERVATION_RELEASED, 1);
        assertThat(count(log.take(true))).isEqualTo(-1L);
        assertThat(count(log.take(true))).isEqualTo(1);
    }

    @Test
    void asynchronousEventIsRaisedOnceUntilThePageIsRead() {
        ReservationNotificationLog log = new ReservationNotificationLog();
        assertThat(log.eventDue()).isFalse();
        assertThat(log.post(RESERVATION_RELEASED, 1)).as("first: raise").isTrue();
        assertThat(log.post(RESERVATION_RELEASED, 1)).as("masked until read").isFalse();
        log.take(true);
        assertThat(log.eventDue()).as("RAE set keeps it masked").isFalse();
        log.take(false);
        assertThat(log.eventDue()).as("nothing left").isFalse();
        assertThat(log.post(REGISTRATION_PREEMPTED, 1)).isTrue();
        log.post(REGISTRATION_PREEMPTED, 1);
        log.take(false);
        assertThat(log.eventDue()).as("read with RAE cleared, one still queued").isTrue();
        assertThat(log.eventDue()).isFalse();
        log.reset();
        assertThat(log.available()).isZero();
        assertThat(log.post(RESERVATION_RELEASED, 1)).isTrue();
        assertThat(count(log.take(false))).as("count restarts after reset").isEqualTo(1);
    }

    @Test
    void asyncEventCompletionDword() {
        assertThat(ReservationNotificationLog.ASYNC_EVENT_DW0).isEqualTo(0x00800006);
    }

    @Test
    void notificationMask() {
        int mask = 1 << 2;
        assertThat(ReservationNotificationLog.masked(mask, RESERVATION_RELEASED)).isTrue();
        assertThat(ReservationNotificationLog.masked(mask, REGISTRATION_PREEMPTED)).isFalse();
        assertThat(ReservationNotificationLog.masked(0b1110, RESERVATION_PREEMPTED)).isTrue();
        assertThat(ReservationNotificationLog.masked(-1, 0)).isFalse();
    }

    @Test
    void badArguments() {
        ReservationNotificationLog log = new ReservationNotificationLog();
        assertThatThrownBy(() -> log.post(0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> log.post(4, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ReservationNotificationLog(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ReservationNotificationLog(256)).isInstanceOf(IllegalArgumentException.class);
    }
}
