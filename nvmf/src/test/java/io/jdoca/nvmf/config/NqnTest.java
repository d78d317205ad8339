package io.jdoca.nvmf.config;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** NQN rules of NVMe Base §4.5 (fails on main: any string was accepted as a subsystem NQN). */
class NqnTest {
    @ParameterizedTest
    @ValueSource(strings = {"nqn.2016-06.io.spdk:cnode1", "nqn.2024-01.io.jdoca:demo",
            "nqn.2014-08.org.nvmexpress.discovery",
        "nqn.2014-08.org.nvmexpress:uuid:1b4e28ba-2fa1-11d2-883f-0016d3ccabcd", "nqn.1999-12.com.example-corp:a:b/c d"})
    void valid(String nqn) {
        assertNull(Nqn.problem(nqn), nqn);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "bad", "not-an-nqn", "nqn.open", "nqn.2024-1.io.x:a", "nqn.24-01.io.x:a",
            "nqn.2024-13.io.x:a",
        "nqn.2024-00.io.x:a", "nqn.2024-01.io.x", "nqn.2024-01.io.x:", "nqn.2024-01.-io.x:a", "nqn.2024-01.io..x:a",
        "nqn.2014-08.org.nvmexpress:uuid:1b4e28ba", "nqn.2024-01.io.x:a\nb", "NQN.2024-01.io.x:a"})
    void invalid(String nqn) {
        assertNotNull(Nqn.problem(nqn), nqn);
    }

    @org.junit.jupiter.api.Test
    void atMost223Bytes() {
        String base = "nqn.2024-01.io.jdoca:";
        assertNull(Nqn.problem(base + "a".repeat(223 - base.length())));
        assertNotNull(Nqn.problem(base + "a".repeat(224 - base.length())));
        assertNotNull(Nqn.problem(base + "é".repeat(102)), "bytes of UTF-8, not characters");
    }
}
