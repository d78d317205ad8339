package io.jdoca.core.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.DocaError;
import io.jdoca.core.exec.EchoCtx;
import io.jdoca.core.exec.ProgressEngine;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class GraphTest {
    private ProgressEngine pe;
    private EchoCtx ctx;
    private final List<String> order = new ArrayList<>();
    private final List<DocaError> outcomes = new ArrayList<>();
    private int taskCallbacks;

    @BeforeEach
    void setUp() {
        pe = ProgressEngine.create();
        ctx = new EchoCtx();
        ctx.pool.setConf((t, a, b) -> taskCallbacks++, (t, a, b) -> taskCallbacks++, 8);
        pe.connectCtx(ctx);
        ctx.start();
    }

    private GraphUserCallback record(String name) {
        return (gi, data) -> {
            order.add(name);
            return DocaError.SUCCESS;
        };
    }

    private void progressUntilDone(GraphInstance gi) {
        for (int i = 0; i < 1000 && gi.isRunning(); i++) {
            pe.progress();
        }
        assertThat(gi.isRunning()).isFalse();
    }

    @Test
    void diamondRunsInDependencyOrder() {
        Graph g = Graph.create(pe);
        GraphNode a = g.addUserNode(record("a"));
        GraphNode task = g.addCtxNode(ctx);
        GraphNode b = g.addUserNode(record("b"));
        GraphNode c = g.addUserNode(record("c"));
        GraphNode d = g.addUserNode(record("d"));
        g.addDependency(a, task);
        g.addDependency(a, b);
        g.addDependency(task, c);
        g.addDependency(b, c);
        g.addDependency(c, d);
        g.setConf((gi, ud) -> outcomes.add(gi.status()));
        assertThat(g.start()).isEqualTo(DocaError.SUCCESS);
        GraphInstance gi = g.instanceCreate();
        EchoCtx.EchoTask t = ctx.allocInit(1);
        assertThat(gi.setCtxNodeData(task, t)).isEqualTo(DocaError.SUCCESS);
        assertThat(gi.submit()).isEqualTo(DocaError.SUCCESS);
        assertThat(gi.submit()).as("already running").isEqualTo(DocaError.BAD_STATE);
        progressUntilDone(gi);
        assertThat(order).containsExactly("a", "b", "c", "d");
        assertThat(outcomes).containsExactly(DocaError.SUCCESS);
        assertThat(taskCallbacks).as("tasks in a graph report to the graph").isZero();
        // Re-submittable.
        order.clear();
        assertThat(gi.submit()).isEqualTo(DocaError.SUCCESS);
        progressUntilDone(gi);
        assertThat(order).containsExactly("a", "b", "c", "d");
        assertThat(outcomes).hasSize(2);
    }

    @Test
    void cycleIsRejectedAtStart() {
        Graph g = Graph.create(pe);
        GraphNode x = g.addCtxNode(ctx);
        GraphNode y = g.addUserNode(record("y"));
        GraphNode z = g.addUserNode(record("z"));
        g.addDependency(x, y);
        g.addDependency(y, z);
        g.addDependency(z, x);
        assertThat(g.start()).isEqualTo(DocaError.INVALID_VALUE);
        assertThat(g.state()).isEqualTo(GraphState.CREATED);
    }

    @Test
    void selfDependencyAndForeignNodesAreInvalid() {
        Graph g = Graph.create(pe);
        GraphNode x = g.addCtxNode(ctx);
        assertThat(g.addDependency(x, x)).isEqualTo(DocaError.INVALID_VALUE);
        GraphNode other = Graph.create(pe).addUserNode(record("o"));
        assertThat(g.addDependency(x, other)).isEqualTo(DocaError.INVALID_VALUE);
    }

    @Test
    void aGraphNeedsAContextNode() {
        Graph g = Graph.create(pe);
        g.addUserNode(record("only"));
        assertThat(g.start()).isEqualTo(DocaError.INVALID_VALUE);
    }

    @Test
    void failureStopsDependentsAndIsReported() {
        Graph g = Graph.create(pe);
        GraphNode t = g.addCtxNode(ctx);
        GraphNode after = g.addUserNode(record("after"));
        GraphNode parallel = g.addUserNode(record("parallel"));
        g.addDependency(t, after);
        g.setConf((gi, ud) -> outcomes.add(gi.status()));
        g.start();
        GraphInstance gi = g.instanceCreate();
        EchoCtx.EchoTask task = ctx.allocInit(1);
        task.result = DocaError.IO_FAILED;
        gi.setCtxNodeData(t, task);
        gi.submit();
        progressUntilDone(gi);
        assertThat(outcomes).containsExactly(DocaError.IO_FAILED);
        assertThat(order).containsExactly("parallel");
    }

    @Test
    void subGraphRunsAsOneNode() {
        Graph sub = Graph.create(pe);
        GraphNode st = sub.addCtxNode(ctx);
        GraphNode su = sub.addUserNode(record("sub-user"));
        sub.addDependency(st, su);
        assertThat(sub.start()).isEqualTo(DocaError.SUCCESS);

        Graph g = Graph.create(pe);
        GraphNode first = g.addUserNode(record("first"));
        GraphNode sn = g.addSubGraphNode(sub);
        GraphNode last = g.addUserNode(record("last"));
        g.addDependency(first, sn);
        g.addDependency(sn, last);
        g.setConf((gi, ud) -> outcomes.add(gi.status()));
        assertThat(g.start()).isEqualTo(DocaError.SUCCESS);

        GraphInstance subInst = sub.instanceCreate();
        subInst.setCtxNodeData(st, ctx.allocInit(2));
        GraphInstance gi = g.instanceCreate();
        assertThat(gi.submit()).as("sub-graph data missing").isEqualTo(DocaError.INVALID_VALUE);
        assertThat(gi.setSubGraphNodeData(sn, subInst)).isEqualTo(DocaError.SUCCESS);
        gi.submit();
        progressUntilDone(gi);
        assertThat(order).containsExactly("first", "sub-user", "last");
        assertThat(outcomes).containsExactly(DocaError.SUCCESS);
    }

    @Test
    void ctxNodeDataMustBeATaskOfThatContext() {
        Graph g = Graph.create(pe);
        GraphNode t = g.addCtxNode(ctx);
        g.start();
        EchoCtx other = new EchoCtx();
        other.pool.setConf((a, b, c) -> { }, (a, b, c) -> { }, 1);
        ProgressEngine pe2 = ProgressEngine.create();
        pe2.connectCtx(other);
        other.start();
        assertThat(g.instanceCreate().setCtxNodeData(t, other.allocInit(1))).isEqualTo(DocaError.INVALID_VALUE);
    }
}
