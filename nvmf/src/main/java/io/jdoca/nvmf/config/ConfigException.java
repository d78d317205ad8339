package io.jdoca.nvmf.config;

/**
 * A bad configuration value or management parameter: names the field (a JSON path such as
 * {@code subsystems[0].namespaces[1].size_mb}, or a flag such as {@code --listen}) and says what is
 * wrong in one line. The RPC server answers it with JSON-RPC -32602; {@code sta-target} prints it
 * and exits non-zero.
 *
 * <p>Immutable.
 */
public final class ConfigException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final String field;

    public ConfigException(String field, String message) {
        super(field + ": " + message);
        this.field = field;
    }

    /** The field or flag at fault. */
    public String field() {
        return field;
    }
}
