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
}
