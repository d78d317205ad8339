package io.jdoca.core.dev;

import java.util.List;

/**
 * Service-provider interface through which each library reports its capabilities for a device
 * (registered in {@code META-INF/services/io.jdoca.core.dev.CapabilityProvider}). The libraries'
 * own static {@code cap*} methods are the API; this only lists them.
 */
public interface CapabilityProvider {
    List<Capability> capabilities(DevInfo devInfo);
}
