package io.jdoca.nvmf.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import io.jdoca.nvmf.tgt.NvmfTarget;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The JSON-RPC methods by name (SPDK's {@code SPDK_RPC_REGISTER} table): each method is a name, a
 * parser of its {@code params} (checks every field, touches nothing) and a handler of what the
 * parser returned. Methods come in families, one class per family as SPDK registers them
 * ({@link NvmfSubsystemRpcs}, {@link BdevRpcs}, ...); {@link #standard} lists the families, and
 * {@link RpcServer} only parses JSON-RPC and dispatches here. A new method is a new
 * {@link #register} call in a family (or a new family added to {@link #standard}); nothing else
 * changes. Each method also says in which of SPDK's RPC states it may run ({@link #STARTUP}:
 * {@code sta-target --wait-for-rpc} before {@code framework_start_init}; {@link #RUNTIME}: the
 * target is up), as {@code SPDK_RPC_REGISTER}'s state mask does; {@link RpcServer} refuses the
 * others with SPDK's -1.
 *
 * <p>Threads: filled once at construction, then read-only (safe from every RPC client thread).
 * Handlers run on the calling RPC thread; those that touch the target submit commands to its
 * {@code sta-main} and wait for them ({@link NvmfTarget}).
 */
public final class RpcRegistry {
    /** SPDK's {@code SPDK_RPC_STARTUP}: before {@code framework_start_init} ({@code --wait-for-rpc}). */
    public static final int STARTUP = 1;
    /** SPDK's {@code SPDK_RPC_RUNTIME}: the target is started. */
    public static final int RUNTIME = 2;

    /** Reads and checks a method's params (throws ConfigException naming the field). */
    @FunctionalInterface
    public interface Parser<P> {
        P parse(JsonNode params);
    }

    /** Executes a method with its parsed params; the result is serialised as the JSON-RPC result. */
    @FunctionalInterface
    public interface Handler<P> {
        Object handle(P params) throws Exception;
    }

    /** A family of methods (one class per SPDK RPC source file). */
    @FunctionalInterface
    public interface Family {
        void registerWith(RpcRegistry registry);
    }

    /** One registered method; {@code states}: the RPC states it may run in ({@link #STARTUP} | {@link #RUNTIME}). */
    public record Method<P>(String name, int states, Parser<P> parser, Handler<P> handler) {
        /** Parses {@code params}, then handles them. */
        public Object invoke(JsonNode params) throws Exception {
            return handler.handle(parser.parse(params));
        }
    }

    private final Map<String, Method<?>> methods = new LinkedHashMap<>();

    /**
     * The registry of jdoca's target: every family, each given {@code target} (read when a method
     * runs: a server may be made before its target).
     */
    public static RpcRegistry standard(Supplier<NvmfTarget> target) {
        return standard(target, new RpcFramework());
    }

    /** {@link #standard(Supplier)} for a server whose RPC state and application hooks are {@code framework}'s. */
    public static RpcRegistry standard(Supplier<NvmfTarget> target, RpcFramework framework) {
        RpcRegistry r = new RpcRegistry();
        List<Family> families = List.of(
                new FrameworkRpcs(target, r, framework),
                new AppRpcs(target, framework),
                new KeyringRpcs(target),
                new NvmfConfigRpcs(target),
                new NvmfDiscoveryRpcs(target),
                new NvmfSubsystemRpcs(target),
                new NvmfNamespaceRpcs(target),
                new NvmfListenerRpcs(target),
                new NvmfTransportRpcs(target),
                new NvmfStatsRpcs(target),
                new BdevRpcs(target),
                new RbdRpcs(target),
                new LogRpcs());
        for (Family f : families) {
            f.registerWith(r);
        }
        return r;
    }

    /** Registers a method of the {@link #RUNTIME} state; IllegalStateException if the name is taken. */
    public <P> RpcRegistry register(String name, Parser<P> parser, Handler<P> handler) {
        return register(name, RUNTIME, parser, handler);
    }

    /** Registers a method allowed in {@code states}; IllegalStateException if the name is taken (a bug). */
    public <P> RpcRegistry register(String name, int states, Parser<P> parser, Handler<P> handler) {
        if (methods.putIfAbsent(name, new Method<>(name, states, parser, handler)) != null) {
            throw new IllegalStateException("RPC method " + name + " registered twice");
        }
        return this;
    }

    /** The method named {@code name}, or null. */
    public Method<?> method(String name) {
        return methods.get(name);
    }

    /** Every method name, in registration order ({@code rpc_get_methods}). */
    public List<String> names() {
        return new ArrayList<>(methods.keySet());
    }

    /** The methods callable in {@code state} ({@code rpc_get_methods} with {@code current}). */
    public List<String> names(int state) {
        return methods.values().stream().filter(m -> (m.states() & state) != 0).map(Method::name).toList();
    }
}
