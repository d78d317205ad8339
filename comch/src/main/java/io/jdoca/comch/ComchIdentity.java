package io.jdoca.comch;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Who is at the other end of a Comch channel (jdoca, issue 29 item 4): the process id, the app
 * ({@code gga-offload}, {@code initiator-comch}, ...) and a line about what it serves or runs (a
 * service: its targets, block size and count). A client sends its own in its HELLO, a server in its
 * ACCEPT (and to a probe, {@link Comch#probe}), so both ends can print whom they talk to and an
 * initiator can refuse a service it did not expect. Self-declared by a process of the same user (the
 * channel's socket admits no other), so it names a pipeline, it does not authenticate one.
 *
 * <p>Wire form: u64 pid, u32 length + UTF-8 app, u32 length + UTF-8 detail (big-endian, as
 * {@link ComchWire}). Immutable; any thread.
 *
 * @param pid    process id
 * @param app    the app's name, at most {@value #MAX_APP} characters
 * @param detail what it serves or runs, at most {@value #MAX_DETAIL} characters
 */
public record ComchIdentity(long pid, String app, String detail) {
    static final int MAX_APP = 64;
    static final int MAX_DETAIL = 512;

    public ComchIdentity {
        app = clean(app, MAX_APP);
        detail = clean(detail, MAX_DETAIL);
    }

    /** This process as {@code app}, with {@code detail}. */
    public static ComchIdentity of(String app, String detail) {
        return new ComchIdentity(ProcessHandle.current().pid(), app, detail);
    }

    /** Control characters become '?' and the text is cut to {@code max}: a peer's text goes into logs and terminals. */
    private static String clean(String s, int max) {
        if (s == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length() && sb.length() < max; i++) {
            char c = s.charAt(i);
            sb.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return sb.toString();
    }

    int encodedSize() {
        return 8 + 4 + app.getBytes(StandardCharsets.UTF_8).length + 4 + detail.getBytes(StandardCharsets.UTF_8).length;
    }

    void encode(ByteBuffer b) {
        byte[] a = app.getBytes(StandardCharsets.UTF_8);
        byte[] d = detail.getBytes(StandardCharsets.UTF_8);
        b.putLong(pid).putInt(a.length).put(a).putInt(d.length).put(d);
    }

    /**
     * Reads one (peer input: a truncated or oversized one gives BufferUnderflowException / IllegalArgumentException).
     */
    static ComchIdentity decode(ByteBuffer b) {
        long pid = b.getLong();
        String app = string(b, MAX_APP * 4);
        String detail = string(b, MAX_DETAIL * 4);
        return new ComchIdentity(pid, app, detail);
    }

    private static String string(ByteBuffer b, int maxBytes) {
        int n = b.getInt();
        if (n < 0 || n > maxBytes || n > b.remaining()) {
            throw new IllegalArgumentException("identity string of " + n + " bytes");
        }
        byte[] s = new byte[n];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }

    /** Whether {@code expected} (a pid, or an app name) names this identity. */
    public boolean matches(String expected) {
        if (expected == null || expected.isBlank()) {
            return true;
        }
        String e = expected.trim();
        if (e.chars().allMatch(Character::isDigit)) {
            try {
                return Long.parseLong(e) == pid;
            } catch (NumberFormatException tooLong) {
                return false;
            }
        }
        return e.equals(app);
    }

    @Override
    public String toString() {
        return app + " (pid " + pid + ")" + (detail.isEmpty() ? "" : ": " + detail);
    }
}
