package io.jdoca.nvmf.config;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * NVMe Qualified Name checks (NVMe Base 2.0 §4.5): at most 223 bytes of UTF-8, and either
 * {@code nqn.yyyy-mm.reverse.domain:user-string} (a year-month date, a reverse domain name of
 * letters, digits and hyphens, a colon, a non-empty user string) or the UUID form
 * {@code nqn.2014-08.org.nvmexpress:uuid:xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}. The well-known
 * discovery NQN ({@code nqn.2014-08.org.nvmexpress.discovery}) is valid too.
 *
 * <p>Stateless; safe from any thread.
 */
public final class Nqn {
    public static final int MAX_BYTES = 223;
    public static final String DISCOVERY = "nqn.2014-08.org.nvmexpress.discovery";
    private static final String UUID_PREFIX = "nqn.2014-08.org.nvmexpress:uuid:";
    private static final Pattern UUID = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final Pattern DATED = Pattern.compile(
            "nqn\\.(\\d{4})-(\\d{2})\\.([A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*):(.+)", Pattern.DOTALL);

    private Nqn() {
    }

    /** Returns null when {@code nqn} is a valid NQN, else why not (one short phrase). */
    public static String problem(String nqn) {
        if (nqn == null || nqn.isEmpty()) {
            return "is empty";
        }
        if (nqn.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
            return "is longer than " + MAX_BYTES + " bytes";
        }
        if (nqn.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            return "contains a control character";
        }
        if (nqn.equals(DISCOVERY)) {
            return null;
        }
        if (nqn.startsWith(UUID_PREFIX)) {
            return UUID.matcher(nqn.substring(UUID_PREFIX.length())).matches() ? null
                    : "UUID form must be " + UUID_PREFIX + "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
        }
        var m = DATED.matcher(nqn);
        if (!m.matches()) {
            return "must be nqn.yyyy-mm.reverse.domain:name or " + UUID_PREFIX + "<uuid> (NVMe Base §4.5)";
        }
        int month = Integer.parseInt(m.group(2));
        if (month < 1 || month > 12) {
            return "has month " + m.group(2) + " (01..12)";
        }
        for (String label : m.group(3).split("\\.")) {
            if (label.startsWith("-") || label.endsWith("-")) {
                return "has a domain label starting or ending with '-'";
            }
        }
        return null;
    }

    /** Throws {@link ConfigException} naming {@code field} when {@code nqn} is not valid. */
    public static void check(String field, String nqn) {
        String p = problem(nqn);
        if (p != null) {
            throw new ConfigException(field, "\"" + nqn + "\" is not an NQN: it " + p);
        }
    }
}
