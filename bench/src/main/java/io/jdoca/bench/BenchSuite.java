package io.jdoca.bench;

import java.util.List;

/**
 * A benchmark suite run by {@code ./jdoca bench <name>}. Implementations live in
 * {@code io.jdoca.bench.<name>.<Name>Suite} (found by that name, so suites never share a file) and
 * have a public no-argument constructor.
 */
public interface BenchSuite {
    String description();

    /** Runs the suite; {@code quick} shortens every measurement (CI smoke runs). Progress goes to stderr. */
    List<BenchResult> run(boolean quick) throws Exception;

    /**
     * A suite that can also run on a named device: {@code ./jdoca bench <suite> -d <device>} (e.g. the
     * rdma suite on an rdma-core device, beside perftest). Its results go to their own file.
     */
    interface OnDevice extends BenchSuite {
        /** The results file's base name for a run on a device (e.g. {@code rdma-verbs}). */
        String resultName();

        /** Runs the suite on {@code device}; {@code quick} as in {@link #run(boolean)}. */
        List<BenchResult> run(boolean quick, String device) throws Exception;
    }
}
