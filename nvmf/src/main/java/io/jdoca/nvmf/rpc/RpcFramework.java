package io.jdoca.nvmf.rpc;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The part of SPDK's application framework an RPC server answers for: its RPC state
 * ({@link RpcRegistry#STARTUP} while {@code sta-target --wait-for-rpc} waits for
 * {@code framework_start_init}, then {@link RpcRegistry#RUNTIME}) and what the application does
 * for {@code framework_start_init} and {@code spdk_kill_instance} ({@link App}).
 *
 * <p>Threads: any; the state and the application are volatile, the state moves once from STARTUP
 * to RUNTIME.
 */
public final class RpcFramework {
    /** What the application running the server does (sta-target). */
    public interface App {
        /** {@code framework_start_init}: starts the target; returns once it is up (or throws why not). */
        void startInit() throws Exception;

        /** {@code spdk_kill_instance}: {@code signal} ("SIGINT", "SIGTERM", "SIGKILL", ...) as the process takes it. */
        void kill(String signal);
    }

    /** A result whose follow-up runs once the answer is written (a kill answered before it takes effect). */
    public record AfterAnswer(Object result, Runnable then) {
    }

    private volatile int state = RpcRegistry.RUNTIME;
    private volatile App app;
    private final CountDownLatch initDone = new CountDownLatch(1);

    public RpcFramework() {
        initDone.countDown();
    }

    private RpcFramework(boolean startup) {
        if (startup) {
            state = RpcRegistry.STARTUP;
        } else {
            initDone.countDown();
        }
    }

    /** A framework that starts in {@link RpcRegistry#STARTUP} ({@code --wait-for-rpc}). */
    public static RpcFramework waitingForRpc() {
        return new RpcFramework(true);
    }

    public int state() {
        return state;
    }

    /** STARTUP → RUNTIME: the target is up (framework_wait_init callers are released). */
    public void initialized() {
        state = RpcRegistry.RUNTIME;
        initDone.countDown();
    }

    /** Waits (framework_wait_init in STARTUP) until {@link #initialized}; false after {@code seconds}. */
    boolean awaitInit(long seconds) throws InterruptedException {
        return initDone.await(seconds, TimeUnit.SECONDS);
    }

    public App app() {
        return app;
    }

    public void setApp(App a) {
        app = a;
    }
}
