package io.jdoca.core.graph;

import io.jdoca.core.DocaError;
import io.jdoca.core.exec.Ctx;
import io.jdoca.core.exec.Pollable;
import io.jdoca.core.exec.ProgressEngine;
import java.util.ArrayList;
import java.util.List;

/**
 * A graph of actions run in dependency order ({@code doca_graph}): context nodes (tasks), user nodes
 * (callbacks) and sub-graph nodes, joined by dependencies. {@link #start()} checks it: at least one
 * context node (directly or in a sub-graph) and no cycle (INVALID_VALUE otherwise). Instances
 * ({@link #instanceCreate()}) get their per-node data and are submitted; roots start at once, a node
 * starts when all its parents completed, the instance completes when every node has.
 *
 * <p>A task in a graph instance reports to the instance: its own callbacks are not called. The first
 * failing node's status becomes the instance's; nodes not started yet are then skipped.
 *
 * <p>Not thread-safe: the progress engine's thread.
 */
public final class Graph {
    private final ProgressEngine pe;
    private final List<GraphNode> nodes = new ArrayList<>();
    private final List<int[]> edges = new ArrayList<>();
    private GraphState state = GraphState.CREATED;
    private GraphCallback callback;
    int[][] children;
    int[] parentCount;
    int[] roots;
    final Runner runner = new Runner();

    private Graph(ProgressEngine pe) {
        this.pe = pe;
    }

    /** {@code doca_graph_create}. */
    public static Graph create(ProgressEngine pe) {
        return new Graph(pe);
    }

    /** {@code doca_graph_ctx_node_create}. */
    public GraphNode addCtxNode(Ctx ctx) {
        return add(GraphNode.Kind.CTX, ctx, null, null);
    }

    /** {@code doca_graph_user_node_create}. */
    public GraphNode addUserNode(GraphUserCallback cb) {
        return add(GraphNode.Kind.USER, null, cb, null);
    }

    /** {@code doca_graph_sub_graph_node_create}: the sub-graph must be started before this graph starts. */
    public GraphNode addSubGraphNode(Graph sub) {
        return add(GraphNode.Kind.SUB_GRAPH, null, null, sub);
    }

    private GraphNode add(GraphNode.Kind kind, Ctx ctx, GraphUserCallback cb, Graph sub) {
        if (state != GraphState.CREATED) {
            throw new io.jdoca.core.DocaException(DocaError.BAD_STATE, "graph already started");
        }
        GraphNode n = new GraphNode(this, nodes.size(), kind, ctx, cb, sub);
        nodes.add(n);
        return n;
    }

    /** {@code doca_graph_add_dependency}: {@code to} runs after {@code from}. */
    public DocaError addDependency(GraphNode from, GraphNode to) {
        if (state != GraphState.CREATED) {
            return DocaError.BAD_STATE;
        }
        if (from == null || to == null || from.graph != this || to.graph != this || from == to) {
            return DocaError.INVALID_VALUE;
        }
        edges.add(new int[] {from.index, to.index});
        return DocaError.SUCCESS;
    }

    /** {@code doca_graph_set_conf}: completion callback (called for success and failure). */
    public DocaError setConf(GraphCallback cb) {
        if (state != GraphState.CREATED) {
            return DocaError.BAD_STATE;
        }
        this.callback = cb;
        return DocaError.SUCCESS;
    }

    /** {@code doca_graph_start}: validates and freezes the graph. */
    public DocaError start() {
        if (state != GraphState.CREATED) {
            return DocaError.BAD_STATE;
        }
        int n = nodes.size();
        if (n == 0 || !hasCtxNode()) {
            return DocaError.INVALID_VALUE;
        }
        for (GraphNode node : nodes) {
            if (node.kind == GraphNode.Kind.SUB_GRAPH && node.subGraph.state != GraphState.STARTED) {
                return DocaError.BAD_STATE;
            }
        }
        int[] childCount = new int[n];
        int[] pc = new int[n];
        for (int[] e : edges) {
            childCount[e[0]]++;
            pc[e[1]]++;
        }
        int[][] ch = new int[n][];
        for (int i = 0; i < n; i++) {
            ch[i] = new int[childCount[i]];
        }
        int[] fill = new int[n];
        for (int[] e : edges) {
            ch[e[0]][fill[e[0]]++] = e[1];
        }
        // Kahn's algorithm: if not every node can be ordered, there is a cycle.
        int[] indeg = pc.clone();
        int[] queue = new int[n];
        int head = 0;
        int tail = 0;
        List<Integer> rootList = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (indeg[i] == 0) {
                queue[tail++] = i;
                rootList.add(i);
            }
        }
        while (head < tail) {
            int x = queue[head++];
            for (int c : ch[x]) {
                if (--indeg[c] == 0) {
                    queue[tail++] = c;
                }
            }
        }
        if (tail != n) {
            return DocaError.INVALID_VALUE;
        }
        this.children = ch;
        this.parentCount = pc;
        this.roots = rootList.stream().mapToInt(Integer::intValue).toArray();
        pe.addPollable(runner);
        state = GraphState.STARTED;
        return DocaError.SUCCESS;
    }

    boolean hasCtxNode() {
        for (GraphNode node : nodes) {
            if (node.kind == GraphNode.Kind.CTX || (node.kind == GraphNode.Kind.SUB_GRAPH
                    && node.subGraph.hasCtxNode())) {
                return true;
            }
        }
        return false;
    }

    /** {@code doca_graph_stop}. */
    public DocaError stop() {
        if (state != GraphState.STARTED) {
            return DocaError.BAD_STATE;
        }
        state = GraphState.STOPPED;
        return DocaError.SUCCESS;
    }

    /** {@code doca_graph_instance_create} (control path: allocates the instance's bookkeeping). */
    public GraphInstance instanceCreate() {
        if (state != GraphState.STARTED) {
            throw new io.jdoca.core.DocaException(DocaError.BAD_STATE,
                    "graph must be started before creating instances");
        }
        return new GraphInstance(this);
    }

    public GraphState state() {
        return state;
    }

    int size() {
        return nodes.size();
    }

    GraphNode node(int i) {
        return nodes.get(i);
    }

    GraphCallback callback() {
        return callback;
    }

    ProgressEngine pe() {
        return pe;
    }

    /** Runs ready user nodes, retries submissions that got AGAIN, and delivers instance completions. */
    final class Runner implements Pollable {
        private GraphInstance head;
        private GraphInstance tail;

        void schedule(GraphInstance gi) {
            if (gi.scheduled) {
                return;
            }
            gi.scheduled = true;
            gi.nextScheduled = null;
            if (tail == null) {
                head = gi;
            } else {
                tail.nextScheduled = gi;
            }
            tail = gi;
        }

        @Override
        public int doWork() {
            int n = 0;
            GraphInstance gi = head;
            head = null;
            tail = null;
            while (gi != null) {
                GraphInstance next = gi.nextScheduled;
                gi.scheduled = false;
                gi.nextScheduled = null;
                n += gi.run();
                gi = next;
            }
            return n;
        }

        @Override
        public boolean hasPendingWork() {
            return head != null;
        }
    }
}
