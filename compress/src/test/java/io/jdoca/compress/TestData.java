package io.jdoca.compress;

import java.nio.charset.StandardCharsets;
import java.util.Random;

/** Deterministic test inputs: random, text-like, zeros, JSON log lines. */
final class TestData {
    private static final String[] WORDS = ("the quick brown fox jumps over lazy dog storage block target initiator "
            + "offload erasure coding parity recover compress decompress stream frame header checksum data path "
            + "engine progress context task buffer memory map inventory").split(" ");

    private TestData() {
    }

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    static byte[] text(int n, long seed) {
        Random r = new Random(seed);
        StringBuilder sb = new StringBuilder(n + 32);
        while (sb.length() < n) {
            sb.append(WORDS[r.nextInt(WORDS.length)]);
            sb.append(r.nextInt(10) == 0 ? ".\n" : " ");
            if (r.nextInt(20) == 0) {
                sb.append(r.nextInt(100000));
            }
        }
        byte[] all = sb.toString().getBytes(StandardCharsets.US_ASCII);
        return java.util.Arrays.copyOf(all, n);
    }

    static byte[] json(int n, long seed) {
        Random r = new Random(seed);
        StringBuilder sb = new StringBuilder(n + 200);
        while (sb.length() < n) {
            sb.append("{\"ts\":").append(1700000000000L + r.nextInt(1_000_000)).append(",\"level\":\"")
                    .append(r.nextBoolean() ? "INFO" : "WARN").append("\",\"lba\":").append(r.nextInt(1 << 20))
                    .append(",\"op\":\"").append(r.nextBoolean() ? "read" : "write").append("\",\"lat_us\":")
                    .append(r.nextInt(500)).append("}\n");
        }
        return java.util.Arrays.copyOf(sb.toString().getBytes(StandardCharsets.US_ASCII), n);
    }

    static byte[] of(String kind, int n, long seed) {
        return switch (kind) {
            case "random" -> random(n, seed);
            case "text" -> text(n, seed);
            case "json" -> json(n, seed);
            case "zero" -> new byte[n];
            default -> throw new IllegalArgumentException(kind);
        };
    }
}
