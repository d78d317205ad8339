package io.jdoca.storage.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.core.DocaError;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Every control message against a frame built by hand from reference §1 (u32 BE wire_size, type,
 * message_id, correlation_id, payload; strings/blobs = u32 BE length + bytes).
 */
class ControlCodecVectorsTest {
    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replaceAll("[\\s|]", ""));
    }

    private static void roundTrip(ControlMessage m, String expectedHex) {
        byte[] expected = hex(expectedHex);
        assertThat(HexFormat.of().formatHex(ControlCodec.encode(m))).isEqualTo(HexFormat.of().formatHex(expected));
        ControlFrameDecoder d = new ControlFrameDecoder();
        d.feed(expected, 0, expected.length);
        assertThat(d.next()).isEqualTo(m);
        assertThat(d.buffered()).isZero();
    }

    @Test
    void errorResponse() {
        roundTrip(ControlMessage.error(7, 9, DocaError.UNEXPECTED, "no"),
                "00000016 | 00000000 00000007 00000009 | 00000016 | 00000002 6e6f");
    }

    @Test
    void emptyMessages() {
        int[] types = {1, 4, 7, 8, 9, 10, 11, 12};
        for (int t : types) {
            ControlMessage m = ControlMessage.of(ControlMessageType.fromCode(t), 0x01020304, 0xA0B0C0D0);
            roundTrip(m, "0000000c" + String.format("%08x", t) + "01020304 a0b0c0d0");
        }
    }

    @Test
    void queryStorageResponse() {
        roundTrip(new ControlMessage(ControlMessageType.QUERY_STORAGE_RESPONSE, 1, 2,
                new ControlPayload.StorageInfo(128L * 4096, 4096)),
                "00000018 | 00000002 00000001 00000002 | 0000000000080000 | 00001000");
    }

    @Test
    void initStorageRequest() {
        roundTrip(new ControlMessage(ControlMessageType.INIT_STORAGE_REQUEST, 3, 4,
                new ControlPayload.InitStorage(64, 2, new byte[] {(byte) 0xAB, (byte) 0xCD, (byte) 0xEF})),
                "0000001b | 00000003 00000003 00000004 | 00000040 00000002 | 00000003 abcdef");
    }

    @Test
    void createRdmaConnectionRequestAndResponse() {
        roundTrip(new ControlMessage(ControlMessageType.CREATE_RDMA_CONNECTION_REQUEST, 5, 6,
                new ControlPayload.RdmaConnection(1, ConnectionRole.IO_CONTROL, new byte[] {1, 2})),
                "0000001a | 00000005 00000005 00000006 | 00000001 00000001 | 00000002 0102");
        roundTrip(new ControlMessage(ControlMessageType.CREATE_RDMA_CONNECTION_RESPONSE, 5, 6,
                new ControlPayload.RdmaConnection(0, ConnectionRole.IO_DATA, new byte[0])),
                "00000018 | 00000006 00000005 00000006 | 00000000 00000000 | 00000000");
    }

    @Test
    void framesSplitAtEveryByteBoundaryReassemble() {
        byte[] a = ControlCodec.encode(new ControlMessage(ControlMessageType.INIT_STORAGE_REQUEST, 1, 1,
                new ControlPayload.InitStorage(8, 1, new byte[100])));
        byte[] b = ControlCodec.encode(ControlMessage.of(ControlMessageType.START_STORAGE_REQUEST, 2, 1));
        byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        for (int split = 0; split <= both.length; split++) {
            ControlFrameDecoder d = new ControlFrameDecoder();
            d.feed(both, 0, split);
            int got = 0;
            while (d.next() != null) {
                got++;
            }
            d.feed(both, split, both.length - split);
            while (d.next() != null) {
                got++;
            }
            assertThat(got).as("split at %d", split).isEqualTo(2);
        }
    }

    @Test
    void unknownTypeIsReportedWithItsIdsAndStreamStaysInSync() {
        byte[] bad = hex("0000000c 0000000d 00000063 00000064");
        byte[] good = ControlCodec.encode(ControlMessage.of(ControlMessageType.QUERY_STORAGE_REQUEST, 1, 1));
        ControlFrameDecoder d = new ControlFrameDecoder();
        d.feed(bad, 0, bad.length);
        d.feed(good, 0, good.length);
        assertThatThrownBy(d::next).isInstanceOfSatisfying(ControlProtocolException.class, e -> {
            assertThat(e.headerKnown()).isTrue();
            assertThat(e.messageId()).isEqualTo(99);
            assertThat(e.correlationId()).isEqualTo(100);
            assertThat(e.isFatal()).isFalse();
            assertThat(e.getMessage()).contains("unknown control message type 13");
        });
        assertThat(d.next().type()).isEqualTo(ControlMessageType.QUERY_STORAGE_REQUEST);
    }

    @Test
    void truncatedPayloadAndTrailingBytesAreRejected() {
        // init_storage_request whose blob length (0x10) runs past the body
        byte[] truncated = hex("00000018 00000003 00000001 00000001 00000040 00000001 00000010 abcd");
        assertThatThrownBy(() -> ControlCodec.decodeBody(truncated, 4, truncated.length - 4))
                .isInstanceOf(ControlProtocolException.class).hasMessageContaining("truncated");
        byte[] trailing = hex("0000000d 00000001 00000001 00000001 ff");
        assertThatThrownBy(() -> ControlCodec.decodeBody(trailing, 4, trailing.length - 4))
                .isInstanceOf(ControlProtocolException.class).hasMessageContaining("trailing");
        byte[] badRole = hex("00000018 00000005 00000001 00000001 00000000 00000007 00000000");
        assertThatThrownBy(() -> ControlCodec.decodeBody(badRole, 4, badRole.length - 4))
                .isInstanceOf(ControlProtocolException.class).hasMessageContaining("role 7");
    }

    @Test
    void oversizedLengthIsFatal() {
        byte[] huge = hex("7fffffff 00000001");
        ControlFrameDecoder d = new ControlFrameDecoder();
        d.feed(huge, 0, huge.length);
        assertThatThrownBy(d::next).isInstanceOfSatisfying(ControlProtocolException.class, e -> {
            assertThat(e.isFatal()).isTrue();
            assertThat(e.error()).isEqualTo(DocaError.TOO_BIG);
        });
        assertThat(d.isBroken()).isTrue();
        assertThat(d.next()).isNull();
    }
}
