package io.jdoca.core.exec;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A process that does nothing but run an idle progress engine in notification mode, and reports its
 * own process CPU time over a measured window: {@code cpu_share=<fraction> loops=<n>}.
 */
public final class IdlePeProbe {
    private IdlePeProbe() {
    }

    public static void main(String[] args) throws Exception {
        long windowMs = Long.parseLong(args[0]); // args[1] = "spin": busy-spin instead, the control case
        ProgressEngine pe = ProgressEngine.create();
        EchoCtx ctx = new EchoCtx();
        ctx.pool.setConf((t, a, b) -> { }, (t, a, b) -> { }, 4);
        pe.connectCtx(ctx);
        ctx.start();
        AtomicBoolean run = new AtomicBoolean(true);
        AtomicLong loops = new AtomicLong();
        Thread worker = new Thread(() -> {
            IdleStrategy idle = args.length > 1 && args[1].equals("spin")
                    ? IdleStrategy.busySpin() : IdleStrategy.notifying(pe);
            while (run.get()) {
                idle.idle(pe.progress() ? 1 : 0);
                loops.incrementAndGet();
            }
        }, "pe-idle");
        worker.start();
        Thread.sleep(1000); // JVM start-up work (JIT, class loading) settles first
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        long loops0 = loops.get();
        Thread.sleep(windowMs);
        long cpu = os.getProcessCpuTime() - cpu0;
        long wall = System.nanoTime() - t0;
        System.out.printf("cpu_share=%.6f loops=%d%n", (double) cpu / wall, loops.get() - loops0);
        run.set(false);
        pe.notifyWork();
        worker.join(5000);
    }
}
