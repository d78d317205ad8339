package io.jdoca.rdma;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.PrintWriter;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Runs {@link VerbsConformanceTest} and the DOCA sample pairs on verbs ({@code
 * io.jdoca.rdma.samples.RdmaSamplesVerbsTest}) with JUnit's launcher where Maven is not available (the Soft-RoCE guest
 * of {@code VerbsConformanceVmTest}): one line per test ({@code PASS} / {@code FAIL} / {@code SKIP} / {@code ABORT},
 * the name, the milliseconds), the failures' stack traces, a summary line, and exit status 0 only when tests ran and
 * none failed or aborted (a skipped class, e.g. no RDMA device, is exit 3). {@code -Djdoca.conformance.only=a,b} runs
 * just those methods.
 */
public final class VerbsConformanceMain {
    private VerbsConformanceMain() {
    }

    public static void main(String[] args) {
        LauncherDiscoveryRequestBuilder b = LauncherDiscoveryRequestBuilder.request()
                .configurationParameter("junit.jupiter.execution.timeout.default", "300 s");
        // -Djdoca.conformance.only=m1,m2: just those test methods (a re-run of what a slow guest did not reach)
        String only = System.getProperty("jdoca.conformance.only", "");
        if (only.isBlank()) {
            b.selectors(selectClass(VerbsConformanceTest.class),
                    selectClass("io.jdoca.rdma.samples.RdmaSamplesVerbsTest"));
        } else {
            for (String m : only.split(",")) {
                String name = m.trim();
                boolean withPath = name.equals("peerDeathMidStreamFailsInFlightTasksWithinOneSecond");
                b.selectors(org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod(
                        VerbsConformanceTest.class.getName()
                        + "#" + name + (withPath ? "(java.nio.file.Path)" : "")));
            }
        }
        LauncherDiscoveryRequest req = b.build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        TestExecutionListener lines = new TestExecutionListener() {
            private final java.util.Map<String, Long> started = new java.util.concurrent.ConcurrentHashMap<>();

            @Override
            public void executionStarted(TestIdentifier id) {
                if (id.isTest()) {
                    started.put(id.getUniqueId(), System.nanoTime());
                    System.out.println("START " + id.getDisplayName());
                }
            }

            @Override
            public void executionSkipped(TestIdentifier id, String reason) {
                System.out.println("SKIP  " + id.getDisplayName() + ": " + reason);
            }

            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult r) {
                if (!id.isTest()) {
                    if (r.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
                        System.out.println("ABORT " + id.getDisplayName() + ": " + r.getThrowable()
                                .map(Throwable::toString).orElse(""));
                    }
                    return;
                }
                long ms = (System.nanoTime() - started.getOrDefault(id.getUniqueId(), System.nanoTime())) / 1_000_000;
                String st = switch (r.getStatus()) {
                    case SUCCESSFUL -> "PASS ";
                    case ABORTED -> "ABORT";
                    case FAILED -> "FAIL ";
                };
                System.out.println(st + " " + id.getDisplayName() + " (" + ms + " ms)"
                        + r.getThrowable().map(t -> ": " + t).orElse(""));
                System.out.flush();
            }
        };
        launcher.execute(req, summary, lines);
        TestExecutionSummary s = summary.getSummary();
        s.printFailuresTo(new PrintWriter(System.out, true), 40);
        System.out.println("SUMMARY tests found " + s.getTestsFoundCount() + ", succeeded " + s.getTestsSucceededCount()
                + ", failed " + s.getTestsFailedCount() + ", aborted " + s.getTestsAbortedCount() + ", skipped "
                + s.getTestsSkippedCount() + ", containers failed " + s.getContainersFailedCount() + ", aborted "
                + s.getContainersAbortedCount() + ", " + (s.getTimeFinished() - s.getTimeStarted()) + " ms");
        int rc;
        if (s.getTotalFailureCount() > 0 || s.getContainersFailedCount() > 0) {
            rc = 1;
        } else if (s.getTestsSucceededCount() == 0 || s.getContainersAbortedCount() > 0
                || s.getTestsAbortedCount() > 0) {
            rc = 3; // nothing ran (no RDMA device: the class was skipped) or a test aborted
        } else {
            rc = 0;
        }
        System.exit(rc);
    }
}
