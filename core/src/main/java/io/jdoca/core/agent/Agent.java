package io.jdoca.core.agent;

/**
 * A unit of work with one owner thread (after Agrona's {@code Agent}): an {@link AgentRunner} calls
 * {@link #onStart()} once, then {@link #doWork()} in a loop, backing off with an
 * {@link io.jdoca.core.exec.IdleStrategy} when it returns 0, and finally {@link #onClose()}. All three
 * run on the runner's thread, so an agent needs no locks for its own state; other threads talk to it
 * through a {@link CommandQueue}.
 *
 * <p>{@code doWork()} is the data path: it must not allocate, lock or throw in steady state. An agent
 * that has finished returns {@link #DONE}; the runner then closes it.
 */
public interface Agent {
    /** A {@link #doWork()} result that ends the agent: the runner leaves its loop and calls {@link #onClose()}. */
    int DONE = -1;

    /** Called once on the runner's thread before the first {@link #doWork()}; may throw (control path). */
    default void onStart() {
    }

    /** One duty cycle: returns how much work it did (0 = idle, the runner backs off), or {@link #DONE}. */
    int doWork();

    /** Called once on the runner's thread after the last {@link #doWork()}, also after a failed start. */
    default void onClose() {
    }

    /** The role, used as the runner thread's name (e.g. {@code gga-worker-0}). */
    String roleName();
}
