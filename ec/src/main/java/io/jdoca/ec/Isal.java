package io.jdoca.ec;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Bindings to ISA-L's erasure-code API ({@code libisal.so.2}, Debian {@code libisal2}) through
 * java.lang.foreign. The data-path call {@code ec_encode_data} is linked as a critical downcall:
 * it never blocks or calls back, and skipping the thread-state transition is what keeps the FFM
 * cost below the coding cost at 4 KiB. Thread-safe (static handles).
 */
// FFM: this class is a native binding; its downcall handles and reinterpreted segments are the point
@SuppressWarnings("restricted")
final class Isal {
    static final boolean AVAILABLE;
    static final String LOAD_ERROR;
    private static final MethodHandle EC_ENCODE_DATA;
    private static final MethodHandle EC_INIT_TABLES;
    private static final MethodHandle GF_GEN_RS_MATRIX;
    private static final MethodHandle GF_GEN_CAUCHY1_MATRIX;
    private static final MethodHandle GF_INVERT_MATRIX;

    static {
        MethodHandle enc = null;
        MethodHandle init = null;
        MethodHandle rs = null;
        MethodHandle cauchy = null;
        MethodHandle invert = null;
        String err = null;
        String lib = EcProperties.ISAL_LIB.asString();
        try {
            SymbolLookup l = SymbolLookup.libraryLookup(lib, Arena.global());
            Linker linker = Linker.nativeLinker();
            ValueLayout.OfInt i = ValueLayout.JAVA_INT;
            ValueLayout a = ValueLayout.ADDRESS;
            enc = linker.downcallHandle(l.findOrThrow("ec_encode_data"),
                    FunctionDescriptor.ofVoid(i, i, i, a, a, a), Linker.Option.critical(false));
            init = linker.downcallHandle(l.findOrThrow("ec_init_tables"), FunctionDescriptor.ofVoid(i, i, a, a));
            rs = linker.downcallHandle(l.findOrThrow("gf_gen_rs_matrix"), FunctionDescriptor.ofVoid(a, i, i));
            cauchy = linker.downcallHandle(l.findOrThrow("gf_gen_cauchy1_matrix"), FunctionDescriptor.ofVoid(a, i, i));
            invert = linker.downcallHandle(l.findOrThrow("gf_invert_matrix"), FunctionDescriptor.of(i, a, a, i));
        } catch (Throwable t) {
            err = t.toString();
            enc = null;
        }
        if (EcProperties.ISAL_DISABLE.asBoolean()) {
            err = "disabled by -D" + EcProperties.ISAL_DISABLE.name() + "=true";
            enc = null;
        }
        AVAILABLE = enc != null;
        LOAD_ERROR = err;
        EC_ENCODE_DATA = enc;
        EC_INIT_TABLES = init;
        GF_GEN_RS_MATRIX = rs;
        GF_GEN_CAUCHY1_MATRIX = cauchy;
        GF_INVERT_MATRIX = invert;
    }

    private Isal() {
    }

    /** {@code ec_encode_data(len, k, rows, gftbls, data**, coding**)}; data-path, critical. */
    static void ecEncodeData(int len, int k, int rows, MemorySegment gftbls, MemorySegment data, MemorySegment coding) {
        try {
            EC_ENCODE_DATA.invokeExact(len, k, rows, gftbls, data, coding);
        } catch (Throwable t) {
            throw new AssertionError("ec_encode_data", t);
        }
    }

    // ---- control-path helpers, used to cross-check the Java matrices against ISA-L itself

    static byte[] genRsMatrix(int rows, int k) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(rows * k);
            GF_GEN_RS_MATRIX.invokeExact(a, rows, k);
            return a.toArray(ValueLayout.JAVA_BYTE);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static byte[] genCauchy1Matrix(int rows, int k) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(rows * k);
            GF_GEN_CAUCHY1_MATRIX.invokeExact(a, rows, k);
            return a.toArray(ValueLayout.JAVA_BYTE);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static byte[] initTables(int k, int rows, byte[] coeffs) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocateFrom(ValueLayout.JAVA_BYTE, coeffs);
            MemorySegment g = arena.allocate(32L * k * rows);
            EC_INIT_TABLES.invokeExact(k, rows, a, g);
            return g.toArray(ValueLayout.JAVA_BYTE);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Returns the inverse, or null if singular. */
    static byte[] invertMatrix(byte[] in, int n) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocateFrom(ValueLayout.JAVA_BYTE, in);
            MemorySegment o = arena.allocate((long) n * n);
            int r = (int) GF_INVERT_MATRIX.invokeExact(a, o, n);
            return r == 0 ? o.toArray(ValueLayout.JAVA_BYTE) : null;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
