package io.jdoca.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * The string literals of a Java source, with the line each starts on: comments skipped, character
 * literals skipped (so {@code '"'} opens no string), escapes translated, text blocks' incidental
 * indentation stripped. Enough of the Java lexer for source scans ({@link ConfigurationTableTest}):
 * Unicode escapes are translated inside literals only. Stateless.
 */
final class JavaLiterals {
    /** One literal: the line it starts on (1-based) and its value. */
    record Literal(int line, String text) {
    }

    private JavaLiterals() {
    }

    static List<Literal> of(String src) {
        List<Literal> out = new ArrayList<>();
        int n = src.length();
        int line = 1;
        int i = 0;
        while (i < n) {
            char c = src.charAt(i);
            int next;
            if (src.startsWith("//", i)) {
                next = src.indexOf('\n', i);
                next = next < 0 ? n : next;
            } else if (src.startsWith("/*", i)) {
                next = src.indexOf("*/", i + 2);
                next = next < 0 ? n : next + 2;
            } else if (src.startsWith("\"\"\"", i)) {
                int open = src.indexOf('\n', i + 3) + 1;
                int close = closing(src, open, "\"\"\"");
                out.add(new Literal(line, unescape(src.substring(open, close).stripIndent())));
                next = Math.min(n, close + 3);
            } else if (c == '"') {
                int close = closing(src, i + 1, "\"");
                out.add(new Literal(line, unescape(src.substring(i + 1, close))));
                next = Math.min(n, close + 1);
            } else if (c == '\'') {
                int close = src.indexOf('\'', i + (i + 1 < n && src.charAt(i + 1) == '\\' ? 3 : 2));
                next = close < 0 ? n : close + 1;
            } else {
                next = i + 1;
            }
            for (int k = i; k < next; k++) {
                if (src.charAt(k) == '\n') {
                    line++;
                }
            }
            i = next;
        }
        return out;
    }

    /** A literal's body with its escapes translated ({@code \\uXXXX} too, which translateEscapes refuses). */
    static String unescape(String body) {
        StringBuilder b = new StringBuilder(body.length());
        int k = 0;
        while (k < body.length()) {
            int slash = body.indexOf('\\', k);
            if (slash < 0 || slash + 1 == body.length()) {
                b.append(body, k, body.length());
                break;
            }
            b.append(body, k, slash);
            if (body.charAt(slash + 1) == 'u') {
                int h = slash + 1;
                while (body.charAt(h) == 'u') {
                    h++;
                }
                b.append((char) Integer.parseInt(body.substring(h, h + 4), 16));
                k = h + 4;
            } else {
                int end = slash + 2;
                while (end < body.length() && end < slash + 4 && Character.isDigit(body.charAt(slash + 1))
                        && body.charAt(end) >= '0' && body.charAt(end) <= '7') {
                    end++;
                }
                b.append(body.substring(slash, end).translateEscapes());
                k = end;
            }
        }
        return b.toString();
    }

    /** Where the unescaped {@code delimiter} closing a literal whose body starts at {@code from} is. */
    private static int closing(String src, int from, String delimiter) {
        int k = from;
        while (k < src.length() && !src.startsWith(delimiter, k)) {
            k += src.charAt(k) == '\\' ? 2 : 1;
        }
        return Math.min(k, src.length());
    }
}
