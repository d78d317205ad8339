package io.jdoca.storage.common;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.storage.wire.ControlMessageType;
import org.junit.jupiter.api.Test;

/** The service's transition table, written out: the target's without WAIT_RDMA_CONNECTIONS. */
class ServiceControlStateTest {

    @Test
    void everyTransitionIsTheListedOne() {
        for (ServiceControlState a : ServiceControlState.values()) {
            for (ServiceControlState b : ServiceControlState.values()) {
                boolean expected = b == ServiceControlState.WAIT_QUERY
                        ? a != ServiceControlState.WAIT_QUERY : switch (a) {
                    case WAIT_QUERY -> b == ServiceControlState.WAIT_INIT;
                    case WAIT_INIT -> b == ServiceControlState.WAIT_START;
                    case WAIT_START -> b == ServiceControlState.RUNNING;
                    case RUNNING -> b == ServiceControlState.STOPPED;
                    case STOPPED -> b == ServiceControlState.SHUT_DOWN;
                    case SHUT_DOWN -> false;
                };
                assertThat(a.canTransitionTo(b)).as("%s -> %s", a, b).isEqualTo(expected);
            }
        }
    }

    @Test
    void eachStateAcceptsOnlyItsRequest() {
        assertThat(ServiceControlState.WAIT_INIT.expected()).isEqualTo(ControlMessageType.INIT_STORAGE_REQUEST);
        assertThat(ServiceControlState.WAIT_START.accepts(ControlMessageType.START_STORAGE_REQUEST)).isTrue();
        assertThat(ServiceControlState.WAIT_START.accepts(ControlMessageType.CREATE_RDMA_CONNECTION_REQUEST)).isFalse();
        assertThat(ServiceControlState.SHUT_DOWN.expected()).isNull();
        assertThat(ServiceControlState.SHUT_DOWN.accepts(null)).isFalse();
    }
}
