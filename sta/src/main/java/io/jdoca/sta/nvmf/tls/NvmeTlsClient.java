package io.jdoca.sta.nvmf.tls;

import java.nio.charset.StandardCharsets;
import java.util.Vector;
import org.bouncycastle.tls.AbstractTlsClient;
import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.BasicTlsPSKExternal;
import org.bouncycastle.tls.CipherSuite;
import org.bouncycastle.tls.PRFAlgorithm;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.TlsAuthentication;
import org.bouncycastle.tls.TlsFatalAlert;
import org.bouncycastle.tls.crypto.TlsCrypto;

/**
 * The host's side of NVMe/TCP TLS (nvme-perf): TLS 1.3 with one external PSK, the TLS PSK and identity
 * derived from the configured key ({@link NvmeTlsKey#derive}), and the one cipher suite that goes with the
 * key's hash (as SPDK's host offers). A server certificate is refused.
 *
 * <p>Not thread-safe: one per connection.
 */
public final class NvmeTlsClient extends AbstractTlsClient {
    private final NvmeTlsKey.Derived psk;
    private String failure;

    /** A client offering {@code psk}. */
    public NvmeTlsClient(TlsCrypto crypto, NvmeTlsKey.Derived psk) {
        super(crypto);
        this.psk = psk;
    }

    @Override
    protected ProtocolVersion[] getSupportedVersions() {
        return ProtocolVersion.TLSv13.only();
    }

    @Override
    protected int[] getSupportedCipherSuites() {
        return new int[] {psk.identity().hash() == NvmeTlsKey.HASH_SHA384 ? CipherSuite.TLS_AES_256_GCM_SHA384
                : CipherSuite.TLS_AES_128_GCM_SHA256};
    }

    @Override
    public Vector<Object> getExternalPSKs() {
        int prf = psk.identity().hash() == NvmeTlsKey.HASH_SHA384 ? PRFAlgorithm.tls13_hkdf_sha384
                : PRFAlgorithm.tls13_hkdf_sha256;
        Vector<Object> v = new Vector<>();
        v.add(new BasicTlsPSKExternal(psk.identity().text().getBytes(StandardCharsets.US_ASCII),
                getCrypto().createSecret(psk.psk()), prf));
        return v;
    }

    @Override
    public TlsAuthentication getAuthentication() throws java.io.IOException {
        throw new TlsFatalAlert(AlertDescription.handshake_failure, "the target did not accept the PSK");
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
            failure = "the target sent " + AlertDescription.getText(description)
                    + (description == AlertDescription.decrypt_error ? " (wrong PSK)" : "")
                    // OpenSSL 3.0's server (SPDK's nvmf_tgt) answers a PSK binder that does not verify so
                    + (description == AlertDescription.illegal_parameter ? " (wrong PSK? an OpenSSL target such as"
                    + " SPDK's answers a wrong PSK so)" : "")
                    + (description == AlertDescription.handshake_failure ? " (no PSK for this host and subsystem)"
                    : "");
        }
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
