package io.jdoca.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdoca.testkit.CProgram;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.UnionLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks every struct size, member offset and member size in {@link VerbsLayouts}, and every value in
 * {@link VerbsConstants}, against the installed rdma-core headers: it writes a C program from the Java
 * layouts ({@code offsetof} / {@code sizeof} of each named member), compiles it with the system C
 * compiler, runs it and compares. Skipped with a message when there is no compiler or no
 * {@code libibverbs-dev} / {@code librdmacm-dev} headers ({@code scripts/ensure-packages.sh} installs them).
 */
class VerbsLayoutTest {

    @Test
    void layoutsAndConstantsMatchTheInstalledHeaders(@TempDir Path dir) throws Exception {
        assumeTrue(Files.exists(Path.of("/usr/include/infiniband/verbs.h"))
                        && Files.exists(Path.of("/usr/include/rdma/rdma_cma.h")),
                "no rdma-core headers (apt-get install libibverbs-dev librdmacm-dev): layout check skipped");

        Map<String, Long> expected = new LinkedHashMap<>();
        StringBuilder c = new StringBuilder("""
                #include <stdio.h>
                #include <stddef.h>
                #include <netinet/in.h>
                #include <poll.h>
                #include <fcntl.h>
                #include <errno.h>
                #include <infiniband/verbs.h>
                #include <rdma/rdma_cma.h>
                #define M(T, f) printf("%s.%s %zu %zu\\n", #T, #f, offsetof(T, f), sizeof(((T *)0)->f))
                int main(void) {
                """);
        for (GroupLayout g : VerbsLayouts.ALL) {
            String name = g.name().orElseThrow();
            String type = (g instanceof UnionLayout ? "union " : "struct ") + name;
            c.append("  printf(\"sizeof ").append(name).append(" %zu\\n\", sizeof(").append(type).append("));\n");
            expected.put("sizeof " + name, g.byteSize());
            // a typedef-free macro argument: wrap the type in a local typedef
            String td = "t_" + name;
            c.append("  { typedef ").append(type).append(' ').append(td).append(";\n");
            for (VerbsLayouts.Field f : VerbsLayouts.fields(g)) {
                c.append("    M(").append(td).append(", ").append(f.path()).append(");\n");
                expected.put(td + "." + f.path() + " offset", f.offset());
                expected.put(td + "." + f.path() + " size", f.size());
            }
            c.append("  }\n");
        }
        for (Field f : VerbsConstants.class.getFields()) {
            if (f.getType() == int.class && Modifier.isStatic(f.getModifiers())) {
                c.append("  printf(\"const ").append(f.getName()).append(" %d\\n\", (int) ").append(f.getName())
                        .append(");\n");
                expected.put("const " + f.getName(), (long) f.getInt(null));
            }
        }
        c.append("  return 0;\n}\n");
        String out = CProgram.run(dir, "the rdma-core headers", c.toString(), "-Wall");

        Map<String, Long> actual = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            String[] p = line.trim().split(" ");
            if (p.length == 3 && (p[0].equals("sizeof") || p[0].equals("const"))) {
                actual.put(p[0] + " " + p[1], Long.parseLong(p[2]));
            } else if (p.length == 3) {
                actual.put(p[0] + " offset", Long.parseLong(p[1]));
                actual.put(p[0] + " size", Long.parseLong(p[2]));
            }
        }
        List<String> wrong = new ArrayList<>();
        expected.forEach((k, v) -> {
            if (!v.equals(actual.get(k))) {
                wrong.add(k + ": Java " + v + ", C " + actual.get(k));
            }
        });
        assertThat(wrong).as("Java layouts vs rdma-core headers").isEmpty();
        // the program checked what the bindings use: at least every layout and the data-path members
        assertThat(actual).containsKeys("t_ibv_send_wr.wr.rdma.rkey offset", "t_ibv_wc.byte_len offset",
                "t_ibv_context.ops.post_send offset", "t_rdma_cm_event.param.conn.private_data_len offset",
                "t_rdma_cm_event.param.conn.qp_num offset", "t_rdma_conn_param.srq offset",
                        "t_rdma_conn_param.qp_num offset");
        System.out.println("VerbsLayoutTest: " + expected.size() + " sizes, offsets and constants match "
                + headerVersion());
    }

    private static String headerVersion() {
        try {
            CProgram.Result r = CProgram.exec(List.of("dpkg-query", "-W", "-f=${Version}", "libibverbs-dev"));
            return r.rc() == 0 ? "the headers of libibverbs-dev " + r.out().trim() : "the installed headers";
        } catch (Exception e) {
            return "the installed headers";
        }
    }
}
