package io.jdoca.core.graph;

import io.jdoca.core.DocaError;

/**
 * The work of a user node ({@code doca_graph_user_node_cb_t}), run on the progress engine's thread;
 * a non-SUCCESS return fails the graph instance.
 */
@FunctionalInterface
public interface GraphUserCallback {
    DocaError run(GraphInstance instance, Object nodeData);
}
