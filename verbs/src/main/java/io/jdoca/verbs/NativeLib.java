package io.jdoca.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Optional;

/**
 * One shared library opened fail-soft: a missing library or symbol never throws from a class
 * initializer. {@link #fn} returns {@code null} instead and the first failure is kept as
 * {@link #reason()}, so {@code Verbs.isAvailable()} can answer on a machine without rdma-core.
 * Thread rules: built once in a static initializer, read-only afterwards.
 */
// FFM: this class is a native binding; its downcall handles and reinterpreted segments are the point
@SuppressWarnings("restricted")
final class NativeLib {
    static final Linker LINKER = Linker.nativeLinker();
    /** Layout of the call state {@code captureCallState("errno")} writes. */
    static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    private static final MethodHandle STRERROR;

    static {
        MethodHandle h = null;
        try {
            Optional<MemorySegment> s = LINKER.defaultLookup().find("strerror");
            if (s.isPresent()) {
                h = LINKER.downcallHandle(s.get(), FunctionDescriptor.of(java.lang.foreign.ValueLayout.ADDRESS,
                        java.lang.foreign.ValueLayout.JAVA_INT));
            }
        } catch (Throwable t) {
            h = null; // messages then carry the errno number only
        }
        STRERROR = h;
    }

    private final String soname;
    private final SymbolLookup lookup;
    private String reason;

    private NativeLib(String soname, SymbolLookup lookup, String reason) {
        this.soname = soname;
        this.lookup = lookup;
        this.reason = reason;
    }

    /** Opens {@code soname} (e.g. {@code libibverbs.so.1}); never throws. */
    static NativeLib open(String soname, String debianPackage) {
        try {
            return new NativeLib(soname, SymbolLookup.libraryLookup(soname, Arena.global()), null);
        } catch (Throwable t) {
            return new NativeLib(soname, null, soname + " not found (Debian/Ubuntu: apt-get install " + debianPackage
                    + "; " + t.getClass().getSimpleName() + ": " + t.getMessage() + ")");
        }
    }

    /**
     * A downcall handle for {@code symbol}, or {@code null} (and {@link #reason()} set) when the library
     * or the symbol is missing. With {@code errno} true the handle captures errno: its first argument is
     * a segment of {@link #CAPTURE}.
     */
    MethodHandle fn(String symbol, boolean errno, MemoryLayout ret, MemoryLayout... args) {
        if (lookup == null) {
            return null;
        }
        try {
            Optional<MemorySegment> s = lookup.find(symbol);
            if (s.isEmpty()) {
                if (reason == null) {
                    reason = soname + " has no symbol " + symbol + " (rdma-core too old?)";
                }
                return null;
            }
            FunctionDescriptor fd = ret == null ? FunctionDescriptor.ofVoid(args) : FunctionDescriptor.of(ret, args);
            return errno ? LINKER.downcallHandle(s.get(), fd, CAPTURE_ERRNO) : LINKER.downcallHandle(s.get(), fd);
        } catch (Throwable t) {
            if (reason == null) {
                reason = "cannot bind " + symbol + " in " + soname + ": " + t;
            }
            return null;
        }
    }

    /** Why the library is unusable, or {@code null} when every requested symbol was bound. */
    String reason() {
        return reason;
    }

    /** errno from a capture segment filled by a handle made with {@code errno = true}. */
    static int errno(MemorySegment capture) {
        return (int) ERRNO.get(capture, 0L);
    }

    /** {@code strerror(errno)}, or {@code "errno N"} when libc's strerror cannot be called. */
    static String strerror(int errno) {
        if (STRERROR != null) {
            try {
                MemorySegment p = (MemorySegment) STRERROR.invokeExact(errno);
                if (!p.equals(MemorySegment.NULL)) {
                    return p.reinterpret(256).getString(0);
                }
            } catch (Throwable t) {
                // fall through to the number
            }
        }
        return "errno " + errno;
    }
}
