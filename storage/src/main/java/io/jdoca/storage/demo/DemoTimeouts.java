package io.jdoca.storage.demo;

import java.io.PrintStream;

/**
 * The demos' deadline scale: {@code JDOCA_DEMO_TIMEOUT_SCALE} or {@code -Djdoca.demo.timeoutScale}
 * multiplies every start-up and run deadline of {@code ./jdoca demo}, for slow machines (an emulated
 * guest took 107 s to reach the data path). Stateless; any thread.
 */
public final class DemoTimeouts {
    private DemoTimeouts() {
    }

    /** The scale (a number in 0.1..100, default 1); NaN with one line on {@code out} when it is not one. */
    public static double scale(PrintStream out) {
        String v = System.getProperty("jdoca.demo.timeoutScale", System.getenv("JDOCA_DEMO_TIMEOUT_SCALE"));
        if (v == null || v.isBlank()) {
            return 1;
        }
        try {
            double d = Double.parseDouble(v.trim());
            if (d >= 0.1 && d <= 100) {
                return d;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        out.println("demo: JDOCA_DEMO_TIMEOUT_SCALE must be a number in 0.1..100, got '" + v + "'");
        return Double.NaN;
    }
}
