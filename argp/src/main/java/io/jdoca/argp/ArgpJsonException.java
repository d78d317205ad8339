package io.jdoca.argp;

import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;

/**
 * A problem with a {@code -j/--json} flag file. A picocli {@link ParameterException}, so parsing
 * fails as for a bad flag; its message is one line naming the file and the key.
 *
 * <p>Immutable; thread-safe.
 */
public final class ArgpJsonException extends ParameterException {
    private static final long serialVersionUID = 1L;

    public ArgpJsonException(CommandLine commandLine, String message) {
        super(commandLine, message);
    }

    /**
     * A parameter-exception handler that prints a flag-file error as that one line
     * ({@code <prefix><command>: <message>}) and returns the command's invalid-input exit code; every
     * other parse error goes to {@code fallback} (picocli's usual message plus usage).
     */
    public static IParameterExceptionHandler oneLine(String prefix, IParameterExceptionHandler fallback) {
        return (ex, args) -> {
            CommandLine cmd = ex.getCommandLine();
            if (ex instanceof ArgpJsonException && cmd != null) {
                cmd.getErr().println(prefix + cmd.getCommandName() + ": " + ex.getMessage());
                cmd.getErr().flush();
                return cmd.getCommandSpec().exitCodeOnInvalidInput();
            }
            return fallback.handleParseException(ex, args);
        };
    }
}
