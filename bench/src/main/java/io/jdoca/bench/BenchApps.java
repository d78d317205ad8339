package io.jdoca.bench;

import io.jdoca.argp.JdocaApps;
import java.util.List;

/** The bench module's app: {@code ./jdoca bench <suite>} ({@link JdocaApps} provider). */
public final class BenchApps implements JdocaApps {
    @Override
    public List<Object> commands() {
        return List.of(new BenchCommand());
    }
}
