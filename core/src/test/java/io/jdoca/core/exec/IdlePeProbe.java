package io.jdoca.core.exec;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A process that does nothing but run an idle progress engine in notification mode, and reports the
 * engine thread's CPU time over a measured window as a share of a core: {@code cpu_share=<fraction>
 * loops=<n> process_share=<fraction>}. The engine thread's own time, not the process's: on a loaded
 * machine the JVM's compiler and GC threads still work after start-up and are not the engine's doing.
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
        var threads = ManagementFactory.getThreadMXBean();
        long proc0 = os.getProcessCpuTime();
        long cpu0 = threads.getThreadCpuTime(worker.threadId());
        long t0 = System.nanoTime();
        long loops0 = loops.get();
        Thread.sleep(windowMs);
        long cpu = threads.getThreadCpuTime(worker.threadId()) - cpu0;
        long proc = os.getProcessCpuTime() - proc0;
        long wall = System.nanoTime() - t0;
        System.out.printf("cpu_share=%.6f loops=%d process_share=%.6f%n", (double) cpu / wall, loops.get() - loops0,
                (double) proc / wall);
        run.set(false);
        pe.notifyWork();
        worker.join(5000);
    }
}
