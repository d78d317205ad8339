package io.jdoca.sta.nvmf.tls;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Vector;
import org.bouncycastle.tls.AbstractTlsServer;
import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.BasicTlsPSKExternal;
import org.bouncycastle.tls.CipherSuite;
import org.bouncycastle.tls.PRFAlgorithm;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.PskIdentity;
import org.bouncycastle.tls.TlsCredentials;
import org.bouncycastle.tls.TlsFatalAlert;
import org.bouncycastle.tls.TlsPSKExternal;
import org.bouncycastle.tls.crypto.TlsCrypto;

/**
 * The target's side of NVMe/TCP TLS (NVMe/TCP Transport Specification §3.6.1): TLS 1.3 only, an external PSK
 * only (no certificate), TLS_AES_128_GCM_SHA256 and TLS_AES_256_GCM_SHA384. The PSK is chosen by the identity
 * the host offers ({@link NvmeTlsIdentity}): its host and subsystem NQNs must name a host allowed on that
 * subsystem with a key ({@link TlsPskLookup}), and the TLS PSK is derived from that key for exactly that
 * identity; BouncyCastle then checks the host's binder (a wrong key fails the handshake with decrypt_error).
 *
 * <p>Not thread-safe: one per connection, on its handshake thread.
 */
public final class NvmeTlsServer extends AbstractTlsServer {
    private final TlsPskLookup lookup;
    private NvmeTlsIdentity selected;
    private String failure;

    /** A server for one connection, finding keys through {@code lookup}. */
    public NvmeTlsServer(TlsCrypto crypto, TlsPskLookup lookup) {
        super(crypto);
        this.lookup = lookup;
    }

    @Override
    protected ProtocolVersion[] getSupportedVersions() {
        return ProtocolVersion.TLSv13.only();
    }

    @Override
    protected int[] getSupportedCipherSuites() {
        return new int[] {CipherSuite.TLS_AES_128_GCM_SHA256, CipherSuite.TLS_AES_256_GCM_SHA384};
    }

    @Override
    @SuppressWarnings("rawtypes") // BouncyCastle's signature: a raw Vector of PskIdentity
    public TlsPSKExternal getExternalPSK(Vector identities) {
        for (Object o : identities) {
            byte[] raw = ((PskIdentity) o).getIdentity();
            NvmeTlsIdentity id = NvmeTlsIdentity.parse(new String(raw, StandardCharsets.US_ASCII));
            if (id == null) {
                continue;
            }
            NvmeTlsKey key = lookup.find(id.hostNqn(), id.subNqn());
            byte[] psk = key == null ? null : key.tlsPsk(id);
            if (psk == null) {
                continue;
            }
            selected = id;
            int prf = id.hash() == NvmeTlsKey.HASH_SHA384 ? PRFAlgorithm.tls13_hkdf_sha384
                    : PRFAlgorithm.tls13_hkdf_sha256;
            TlsPSKExternal ext = new BasicTlsPSKExternal(raw, getCrypto().createSecret(psk), prf);
            Arrays.fill(psk, (byte) 0);
            return ext;
        }
        failure = "no PSK for the identities offered (host not allowed, no --psk, or another hash)";
        return null;
    }

    @Override
    public TlsCredentials getCredentials() throws java.io.IOException {
        // Reached only when no PSK was selected: jdoca's NVMe/TCP TLS has no certificate mode.
        throw new TlsFatalAlert(AlertDescription.handshake_failure, "no PSK selected");
    }

    @Override
    public void notifyAlertRaised(short level, short description, String message, Throwable cause) {
        if (failure == null) {
            failure = AlertDescription.getText(description);
        }
    }

    @Override
    public void notifyAlertReceived(short level, short description) {
        if (failure == null && description != AlertDescription.close_notify) {
            failure = "host sent " + AlertDescription.getText(description);
        }
    }

    /** The identity whose PSK the handshake used (null before, or when none matched). */
    public NvmeTlsIdentity selected() {
        return selected;
    }

    /** The connection's security parameters (its traffic secrets, after the handshake). */
    org.bouncycastle.tls.SecurityParameters connection() {
        return context.getSecurityParametersConnection();
    }

    /** Why the handshake failed, without secrets (null if it did not). */
    public String failure() {
        return failure;
    }
}
