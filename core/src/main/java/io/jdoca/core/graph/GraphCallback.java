package io.jdoca.core.graph;

/** Graph-instance completion ({@code doca_graph_completion_cb_t}); check {@link GraphInstance#status()}. */
@FunctionalInterface
public interface GraphCallback {
    void onCompletion(GraphInstance instance, long instanceUserData);
}
