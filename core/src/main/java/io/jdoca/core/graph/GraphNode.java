package io.jdoca.core.graph;

import io.jdoca.core.exec.Ctx;

/**
 * A node of a {@link Graph}: a context node (runs one task of {@link #ctx()}), a user node (runs a
 * callback) or a sub-graph node (runs an instance of another graph). Immutable once the graph starts.
 */
public final class GraphNode {
    /** What a node runs. */
    public enum Kind {
        CTX,
        USER,
        SUB_GRAPH
    }

    final Graph graph;
    final int index;
    final Kind kind;
    final Ctx ctx;
    final GraphUserCallback callback;
    final Graph subGraph;

    GraphNode(Graph graph, int index, Kind kind, Ctx ctx, GraphUserCallback callback, Graph subGraph) {
        this.graph = graph;
        this.index = index;
        this.kind = kind;
        this.ctx = ctx;
        this.callback = callback;
        this.subGraph = subGraph;
    }

    public Kind kind() {
        return kind;
    }

    public Ctx ctx() {
        return ctx;
    }

    public int index() {
        return index;
    }
}
