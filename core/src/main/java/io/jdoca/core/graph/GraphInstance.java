package io.jdoca.core.graph;

import io.jdoca.core.DocaError;
import io.jdoca.core.exec.Task;

/**
 * One run of a {@link Graph} ({@code doca_graph_instance}): holds each node's data (the task of a
 * context node, the argument of a user node, the instance of a sub-graph node) and the run's
 * progress. Re-submittable after completion; submitting and running allocate nothing.
 *
 * <p>Not thread-safe: the progress engine's thread.
 */
public final class GraphInstance implements Task.CompletionInterceptor {
    private static final byte PENDING = 0;
    private static final byte STARTED = 1;
    private static final byte DONE = 2;

    private final Graph graph;
    private final Object[] nodeData;
    private final int[] remaining;
    private final byte[] nodeState;
    private final int[] ready;
    private int readyHead;
    private int readyCount;
    private int completed;
    private boolean running;
    private DocaError status = DocaError.SUCCESS;
    private long userData;
    private GraphInstance parent;
    private int parentNode;
    boolean scheduled;
    GraphInstance nextScheduled;

    GraphInstance(Graph graph) {
        this.graph = graph;
        int n = graph.size();
        this.nodeData = new Object[n];
        this.remaining = new int[n];
        this.nodeState = new byte[n];
        this.ready = new int[n];
    }

    /** {@code doca_graph_instance_set_ctx_node_data}: the task this context node runs (of that node's context). */
    public DocaError setCtxNodeData(GraphNode node, Task task) {
        if (running || node.graph != graph || node.kind != GraphNode.Kind.CTX || task == null
                || task.ctx() != node.ctx) {
            return running ? DocaError.BAD_STATE : DocaError.INVALID_VALUE;
        }
        nodeData[node.index] = task;
        return DocaError.SUCCESS;
    }

    /** {@code doca_graph_instance_set_user_node_data}. */
    public DocaError setUserNodeData(GraphNode node, Object data) {
        if (running || node.graph != graph || node.kind != GraphNode.Kind.USER) {
            return running ? DocaError.BAD_STATE : DocaError.INVALID_VALUE;
        }
        nodeData[node.index] = data;
        return DocaError.SUCCESS;
    }

    /** {@code doca_graph_instance_set_sub_graph_node_data}: an instance of the node's sub-graph. */
    public DocaError setSubGraphNodeData(GraphNode node, GraphInstance sub) {
        if (running || node.graph != graph || node.kind != GraphNode.Kind.SUB_GRAPH || sub == null
                || sub.graph != node.subGraph) {
            return running ? DocaError.BAD_STATE : DocaError.INVALID_VALUE;
        }
        nodeData[node.index] = sub;
        return DocaError.SUCCESS;
    }

    public void setUserData(long userData) {
        this.userData = userData;
    }

    public long userData() {
        return userData;
    }

    /** The outcome: SUCCESS, or the status of the first node that failed. */
    public DocaError status() {
        return status;
    }

    public boolean isRunning() {
        return running;
    }

    /** {@code doca_graph_submit}: starts the roots at the next progress. BAD_STATE if running or data missing. */
    public DocaError submit() {
        if (running) {
            return DocaError.BAD_STATE;
        }
        int n = remaining.length;
        for (int i = 0; i < n; i++) {
            GraphNode node = graph.node(i);
            if (node.kind != GraphNode.Kind.USER && nodeData[i] == null) {
                return DocaError.INVALID_VALUE;
            }
        }
        for (int i = 0; i < n; i++) {
            remaining[i] = graph.parentCount[i];
            nodeState[i] = PENDING;
        }
        readyHead = 0;
        readyCount = 0;
        completed = 0;
        status = DocaError.SUCCESS;
        running = true;
        for (int r : graph.roots) {
            pushReady(r);
        }
        graph.runner.schedule(this);
        return DocaError.SUCCESS;
    }

    private void pushReady(int i) {
        ready[(readyHead + readyCount) % ready.length] = i;
        readyCount++;
    }

    /** Starts ready nodes; called by the graph's runner inside progress. */
    int run() {
        int work = 0;
        while (readyCount > 0 && running) {
            int i = ready[readyHead];
            GraphNode node = graph.node(i);
            if (status != DocaError.SUCCESS) {
                // A node failed: skip the rest, but walk the graph so the instance still completes.
                popReady();
                nodeState[i] = STARTED;
                nodeDone(i, DocaError.SKIPPED);
                work++;
                continue;
            }
            switch (node.kind) {
                case CTX -> {
                    Task t = (Task) nodeData[i];
                    t.interceptCompletion(this, i);
                    DocaError e = t.submit();
                    if (e == DocaError.AGAIN) {
                        graph.runner.schedule(this); // queue full: retry on the next progress
                        return work;
                    }
                    popReady();
                    nodeState[i] = STARTED;
                    if (e != DocaError.SUCCESS) {
                        t.interceptCompletion(null, 0);
                        nodeDone(i, e);
                    }
                }
                case USER -> {
                    popReady();
                    nodeState[i] = STARTED;
                    nodeDone(i, node.callback.run(this, nodeData[i]));
                }
                case SUB_GRAPH -> {
                    GraphInstance sub = (GraphInstance) nodeData[i];
                    sub.parent = this;
                    sub.parentNode = i;
                    DocaError e = sub.submit();
                    popReady();
                    nodeState[i] = STARTED;
                    if (e != DocaError.SUCCESS) {
                        nodeDone(i, e);
                    }
                }
            }
            work++;
        }
        return work;
    }

    private void popReady() {
        readyHead = (readyHead + 1) % ready.length;
        readyCount--;
    }

    @Override
    public void onTaskCompleted(Task task, int node) {
        task.interceptCompletion(null, 0);
        nodeDone(node, task.status());
    }

    private void nodeDone(int i, DocaError e) {
        if (nodeState[i] != STARTED) {
            return;
        }
        nodeState[i] = DONE;
        completed++;
        if (e != DocaError.SUCCESS && e != DocaError.SKIPPED && status == DocaError.SUCCESS) {
            status = e;
        }
        for (int c : graph.children[i]) {
            if (--remaining[c] == 0) {
                pushReady(c);
            }
        }
        if (completed == remaining.length) {
            finish();
        } else if (readyCount > 0) {
            graph.runner.schedule(this);
        }
    }

    private void finish() {
        running = false;
        GraphInstance p = parent;
        if (p != null) {
            parent = null;
            p.nodeDone(parentNode, status);
        } else if (graph.callback() != null) {
            graph.callback().onCompletion(this, userData);
        }
    }
}
