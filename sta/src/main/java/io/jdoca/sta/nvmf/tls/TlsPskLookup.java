package io.jdoca.sta.nvmf.tls;

/**
 * Where a TLS server finds the configured PSK a host may use to reach a subsystem (the target's keyring and
 * its subsystems' allowed hosts: {@code nvmf_subsystem_add_host --psk}).
 *
 * <p>Threads: called on a handshake thread; implementations must be thread-safe.
 */
@FunctionalInterface
public interface TlsPskLookup {
    /** The key host {@code hostNqn} was given for subsystem {@code subNqn}, or null (not allowed, or no PSK). */
    NvmeTlsKey find(String hostNqn, String subNqn);
}
