package io.jdoca.storage.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Round-trip properties and fuzzing of the control-frame parser (no exception but ControlProtocolException, no hang).
 */
class ControlCodecPropertiesTest {

    @Provide
    Arbitrary<ControlMessage> messages() {
        Arbitrary<Integer> ids = Arbitraries.integers();
        Arbitrary<byte[]> blobs = Arbitraries.bytes().array(byte[].class).ofMaxSize(300);
        Arbitrary<ControlPayload> payloads = Arbitraries.oneOf(
                Arbitraries.just(ControlPayload.Empty.INSTANCE),
                Combinators.combine(Arbitraries.integers(), Arbitraries.strings().ofMaxLength(50))
                        .as(ControlPayload.ErrorResponse::new),
                Combinators.combine(Arbitraries.longs(), Arbitraries.integers()).as(ControlPayload.StorageInfo::new),
                Combinators.combine(Arbitraries.integers(), Arbitraries.integers(),
                        blobs).as(ControlPayload.InitStorage::new),
                Combinators.combine(Arbitraries.integers(), Arbitraries.of(ConnectionRole.class), blobs)
                        .as(ControlPayload.RdmaConnection::new));
        return Combinators.combine(Arbitraries.of(ControlMessageType.class), ids, ids, payloads)
                .filter((t, a, b, p) -> ControlMessage.payloadFits(t, p))
                .as(ControlMessage::new);
    }

    @Property(tries = 500)
    void encodeDecodeRoundTrips(@ForAll("messages") ControlMessage m, @ForAll @IntRange(min = 1, max = 64) int chunk) {
        byte[] f = ControlCodec.encode(m);
        ControlFrameDecoder d = new ControlFrameDecoder();
        ControlMessage got = null;
        for (int off = 0; off < f.length; off += chunk) {
            d.feed(f, off, Math.min(chunk, f.length - off));
            ControlMessage x = d.next();
            if (x != null) {
                got = x;
            }
        }
        assertThat(got).isEqualTo(m);
    }

    @Property(tries = 2000)
    void randomBytesNeverEscapeAsOtherExceptions(@ForAll @Size(max = 200) byte[] junk) {
        feedAll(junk);
    }

    @Property(tries = 1000)
    void corruptedValidFramesAreHandled(@ForAll("messages") ControlMessage m, @ForAll @IntRange(min = 0,
            max = 10_000) int pos,
            @ForAll byte value) {
        byte[] f = ControlCodec.encode(m);
        f[pos % f.length] = value;
        feedAll(f);
    }

    private static void feedAll(byte[] bytes) {
        ExecutorService ex = Executors.newSingleThreadExecutor();
        try {
            var fut = ex.submit(() -> {
                ControlFrameDecoder d = new ControlFrameDecoder();
                d.feed(bytes, 0, bytes.length);
                int guard = 0;
                while (guard++ < bytes.length + 2) {
                    try {
                        if (d.next() == null) {
                            return;
                        }
                    } catch (ControlProtocolException expected) {
                        if (expected.isFatal()) {
                            return;
                        }
                    }
                }
                throw new AssertionError("decoder did not make progress");
            });
            fut.get(5, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new AssertionError("parser threw " + e.getCause(), e.getCause());
        } catch (Exception e) {
            throw new AssertionError(e);
        } finally {
            ex.shutdownNow();
        }
    }
}
