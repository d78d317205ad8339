package io.jdoca.rdma;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;

/** Test helper: the IPv4 address rdma_cm listens on for an RDMA device (10.0.2.15 for rxe0 in the guest). */
public final class VerbsCmAddress {
    private VerbsCmAddress() {
    }

    /** The device's first IPv4 address. */
    public static InetAddress of(String device) {
        try {
            return VerbsCm.listenAddresses(null, device, 1).get(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
