package io.jdoca.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The silence accounting and the timeout setting, on a fake clock. */
class PeerLivenessTest {
    private static final long MS = 1_000_000L;

    @Test
    void steadyCheckerCountsWallTimeWithoutTraffic() {
        SilenceMeter m = new SilenceMeter(0, 0, 400 * MS);
        long silent = 0;
        for (long t = 100 * MS; t <= 5_000 * MS; t += 100 * MS) {
            silent = m.tick(t, 0);
        }
        assertEquals(5_000 * MS, silent);
    }

    @Test
    void ownStallIsNotBlamedOnThePeer() {
        // The checker (this process) was stopped 10 s at a time: the peer's heartbeats sat unread.
        SilenceMeter m = new SilenceMeter(0, 0, 400 * MS);
        for (long t = 10_000 * MS; t <= 50_000 * MS; t += 10_000 * MS) {
            assertTrue(m.tick(t, 0) <= 5 * 400 * MS, "at most one credit per tick");
        }
    }

    @Test
    void trafficResetsTheSilence() {
        SilenceMeter m = new SilenceMeter(0, 0, 400 * MS);
        m.tick(300 * MS, 0);
        m.tick(600 * MS, 0);
        assertEquals(100 * MS, m.tick(900 * MS, 800 * MS));
        assertEquals(400 * MS, m.tick(1_200 * MS, 800 * MS));
        m.reset(1_300 * MS, 800 * MS);
        assertEquals(0, m.silentNanos());
    }

    @Test
    void timeoutIsSettableWithinBoundsAndDefaultsToTensOfSeconds() {
        long saved = PeerLiveness.timeoutMillis();
        try {
            assertTrue(PeerLiveness.DEFAULT_TIMEOUT_MS >= 10_000, "generous default for a loaded host");
            assertEquals(DocaError.INVALID_VALUE, PeerLiveness.setTimeoutMillis(0));
            assertEquals(DocaError.INVALID_VALUE, PeerLiveness.setTimeoutMillis(PeerLiveness.MAX_TIMEOUT_MS + 1));
            assertEquals(DocaError.SUCCESS, PeerLiveness.setTimeoutMillis(1234));
            assertEquals(1234, PeerLiveness.timeoutMillis());
            assertNull(PeerLiveness.check("5000"));
            assertNotNull(PeerLiveness.check("-5"));
            assertNotNull(PeerLiveness.check("5s"));
            assertTrue(PeerLiveness.silentVerdict(5_000 * MS, 1_234 * MS).contains("5000 ms > timeout 1234 ms"));
        } finally {
            PeerLiveness.setTimeoutMillis(saved);
        }
    }
}
