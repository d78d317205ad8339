package io.jdoca.gga;

import io.jdoca.argp.JdocaApps;
import io.jdoca.gga.sbc.SbcGeneratorApp;
import java.util.List;

/** The gga module's apps: gga-offload, sbc-generator ({@link JdocaApps} provider). */
public final class GgaApps implements JdocaApps {
    @Override
    public List<Object> commands() {
        return List.of(new GgaOffloadApp(), new SbcGeneratorApp());
    }
}
