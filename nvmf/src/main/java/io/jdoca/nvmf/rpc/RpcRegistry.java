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
 * changes.
 *
 * <p>Threads: filled once at construction, then read-only (safe from every RPC client thread).
 * Handlers run on the calling RPC thread; those that touch the target submit commands to its
 * {@code sta-main} and wait for them ({@link NvmfTarget}).
 */
public final class RpcRegistry {
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

    /** One registered method. */
    public record Method<P>(String name, Parser<P> parser, Handler<P> handler) {
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
        RpcRegistry r = new RpcRegistry();
        List<Family> families = List.of(
                new FrameworkRpcs(target, r),
                new NvmfSubsystemRpcs(target),
                new NvmfNamespaceRpcs(target),
                new NvmfListenerRpcs(target),
                new NvmfTransportRpcs(target),
                new NvmfStatsRpcs(target),
                new BdevRpcs(target),
                new LogRpcs());
        for (Family f : families) {
            f.registerWith(r);
        }
        return r;
    }

    /** Registers a method; IllegalStateException if the name is taken (a programming error). */
    public <P> RpcRegistry register(String name, Parser<P> parser, Handler<P> handler) {
        if (methods.putIfAbsent(name, new Method<>(name, parser, handler)) != null) {
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
}
