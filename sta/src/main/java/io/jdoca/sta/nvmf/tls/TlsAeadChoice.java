package io.jdoca.sta.nvmf.tls;

import io.jdoca.sta.config.StaProperties;
import java.lang.System.Logger.Level;
import java.util.Locale;

/**
 * Which {@link TlsAead} implementation this process uses, decided once when the class initializes (the first TLS
 * listener or connection) from {@code -Djdoca.sta.tls.aead} and whether libcrypto loaded, and logged then in one
 * line, not per connection.
 *
 * <p>Constants; any thread.
 */
final class TlsAeadChoice {
    /** The decision: OpenSSL's AES-GCM or jdoca's, the level and the line to log. */
    record Decision(boolean openssl, Level level, String line) {
    }

    static final boolean OPENSSL;
    static final String DESCRIPTION;

    static {
        Decision d = decide(StaProperties.TLS_AEAD.asString(), Libcrypto.available(), Libcrypto.unavailableReason(),
                Libcrypto.version());
        OPENSSL = d.openssl();
        DESCRIPTION = d.line();
        System.getLogger("io.jdoca.sta.nvmf.tls").log(d.level(), d.line());
    }

    private TlsAeadChoice() {
    }

    /** The decision for property value {@code engine} (auto, openssl, java) and the library's state. */
    static Decision decide(String engine, boolean available, String reason, String version) {
        String e = engine == null ? "auto" : engine.trim().toLowerCase(Locale.ROOT);
        String openssl = "TLS records: AES-GCM by " + version + " (libcrypto through FFM)";
        String java = "TLS records: AES-GCM by jdoca's pure-Java AesGcm";
        return switch (e) {
            case "java" -> new Decision(false, Level.INFO, java + " (-D" + StaProperties.TLS_AEAD.name() + "=java)");
            case "openssl" -> available ? new Decision(true, Level.INFO, openssl)
                    : new Decision(false, Level.WARNING, java + ": " + StaProperties.TLS_AEAD.name()
                            + "=openssl asked for, but " + reason);
            case "auto" -> available ? new Decision(true, Level.INFO, openssl)
                    : new Decision(false, Level.INFO, java + " (" + reason + ")");
            default -> {
                Decision auto = decide("auto", available, reason, version);
                yield new Decision(auto.openssl(), Level.WARNING, auto.line() + "; unknown "
                        + StaProperties.TLS_AEAD.name() + "=" + engine + " taken as auto");
            }
        };
    }
}
