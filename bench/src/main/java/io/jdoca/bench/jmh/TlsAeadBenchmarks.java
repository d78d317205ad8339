package io.jdoca.bench.jmh;

import io.jdoca.sta.nvmf.tls.TlsAead;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * AES-128-GCM of one TLS record ({@code size} bytes, a 5-byte header as additional data, a fresh nonce each time):
 * OpenSSL's through FFM on direct buffers (what {@code TlsChannel} uses) and on heap arrays (critical downcalls with
 * heap segments), jdoca's pure-Java {@code AesGcm}, and the JDK's {@code Cipher} with the {@code init} per record it
 * needs. Sealing and opening (a record sealed once in setup, opened each time). MB/s = size / time per record. Run
 * with {@code ./jdoca bench jmh TlsAeadBenchmarks [-prof gc]}.
 *
 * <p>JMH state: one thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC"})
public class TlsAeadBenchmarks {
    @Param({"16384", "512"})
    public int size;

    private final byte[] key = new byte[16];
    private final byte[] nonce = new byte[12];
    private final byte[] aad = {23, 3, 3, 0x40, 0x11};
    private TlsAead ossl;
    private TlsAead pure;
    private ByteBuffer directIn;
    private ByteBuffer directOut;
    private ByteBuffer directSealed;
    private ByteBuffer heapIn;
    private ByteBuffer heapOut;
    private Cipher jdk;
    private SecretKeySpec jdkKey;
    private long seq;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        new Random(1).nextBytes(key);
        ossl = TlsAead.openSsl(key);
        pure = TlsAead.java(key);
        directIn = ByteBuffer.allocateDirect(size + 16);
        directOut = ByteBuffer.allocateDirect(size + 16);
        directSealed = ByteBuffer.allocateDirect(size + 16);
        heapIn = ByteBuffer.allocate(size + 16);
        heapOut = ByteBuffer.allocate(size + 16);
        ossl.seal(nonce, aad, directIn, 0, size, directSealed, 0);
        jdk = Cipher.getInstance("AES/GCM/NoPadding");
        jdkKey = new SecretKeySpec(key, "AES");
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        ossl.close();
        pure.close();
    }

    private byte[] next() {
        long s = ++seq;
        for (int i = 0; i < 8; i++) {
            nonce[11 - i] = (byte) (s >>> (8 * i));
        }
        return nonce;
    }

    @Benchmark
    public ByteBuffer sealOpenSslDirect() throws IOException {
        ossl.seal(next(), aad, directIn, 0, size, directOut, 0);
        return directOut;
    }

    @Benchmark
    public ByteBuffer sealOpenSslHeap() throws IOException {
        ossl.seal(next(), aad, heapIn, 0, size, heapOut, 0);
        return heapOut;
    }

    @Benchmark
    public ByteBuffer sealJava() throws IOException {
        pure.seal(next(), aad, directIn, 0, size, directOut, 0);
        return directOut;
    }

    /** The JDK's GCM as jdoca's record layer used it before {@code AesGcm}: an init per record. */
    @Benchmark
    public ByteBuffer sealJdkCipher() throws Exception {
        jdk.init(Cipher.ENCRYPT_MODE, jdkKey, new GCMParameterSpec(128, next()));
        jdk.updateAAD(aad);
        directIn.clear().limit(size);
        directOut.clear();
        jdk.doFinal(directIn, directOut);
        return directOut;
    }

    @Benchmark
    public boolean openOpenSslDirect() throws IOException {
        Arrays.fill(nonce, (byte) 0); // the nonce it was sealed with
        return ossl.open(nonce, aad, directSealed, 0, size, directOut, 0);
    }

    @Benchmark
    public boolean openJava() throws IOException {
        Arrays.fill(nonce, (byte) 0);
        return pure.open(nonce, aad, directSealed, 0, size, directOut, 0);
    }
}
