package io.jdoca.rdma;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The CM-mode hand-shake: each side writes its connection blob as a u32 big-endian length then the
 * bytes (jdoca RDMA wire format §4). Control path; bounded (blobs ≤ 8 KiB).
 */
final class CmWire {
    static final int MAX_BLOB = 8192;

    private CmWire() {
    }

    static void writeBlob(SocketChannel ch, byte[] blob) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(4 + blob.length);
        b.putInt(blob.length).put(blob).flip();
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    static byte[] readBlob(SocketChannel ch) throws IOException {
        var in = ch.socket().getInputStream();
        byte[] len = in.readNBytes(4);
        if (len.length < 4) {
            throw new IOException("CM peer closed during the hand-shake");
        }
        int n = ByteBuffer.wrap(len).getInt();
        if (n <= 0 || n > MAX_BLOB) {
            throw new IOException("CM blob length " + n + " out of range");
        }
        byte[] blob = in.readNBytes(n);
        if (blob.length < n) {
            throw new IOException("CM peer closed during the hand-shake");
        }
        return blob;
    }
}
