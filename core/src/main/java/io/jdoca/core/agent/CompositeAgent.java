package io.jdoca.core.agent;

import java.util.Objects;

/**
 * Several agents on one runner thread: each duty cycle calls every agent's {@link Agent#doWork()}
 * and returns the sum. Starts them in order and closes them in reverse; a failed {@code onStart}
 * closes the ones already started before it rethrows. Thread rules are the runner's: one thread.
 */
public final class CompositeAgent implements Agent {
    private final Agent[] agents;
    private final String roleName;
    private final boolean[] done;
    private int started;
    private int doneCount;

    public CompositeAgent(String roleName, Agent... agents) {
        if (agents.length == 0) {
            throw new IllegalArgumentException("agents: give at least one");
        }
        this.agents = agents.clone();
        for (Agent a : this.agents) {
            Objects.requireNonNull(a, "agents");
        }
        this.roleName = Objects.requireNonNull(roleName, "roleName");
        this.done = new boolean[this.agents.length];
    }

    @Override
    public void onStart() {
        for (Agent a : agents) {
            try {
                a.onStart();
            } catch (RuntimeException e) {
                onClose();
                throw e;
            }
            started++;
        }
    }

    /**
     * Sums the agents' work. An agent that returned {@link Agent#DONE} is not called again (it is
     * closed with the others); the composite is {@code DONE} once every agent is.
     */
    @Override
    public int doWork() {
        int work = 0;
        for (int i = 0; i < agents.length; i++) {
            if (done[i]) {
                continue;
            }
            int w = agents[i].doWork();
            if (w < 0) {
                done[i] = true;
                doneCount++;
            } else {
                work += w;
            }
        }
        return doneCount == agents.length ? DONE : work;
    }

    @Override
    public void onClose() {
        RuntimeException first = null;
        for (int i = started - 1; i >= 0; i--) {
            try {
                agents[i].onClose();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        started = 0;
        if (first != null) {
            throw first;
        }
    }

    @Override
    public String roleName() {
        return roleName;
    }
}
