package io.jdoca.sta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module's packages form layers that show the seed (issue 28 item 2), and no import runs from a
 * lower layer up to a higher one: the NVMe spec flyweights and the configuration at the bottom, the back-ends on
 * them and TLS beside those (it reads its engine's configuration), Ceph RBD's on the back-end API, the
 * NVMe-oF command layer on those, the transports (peers, which never import each other) on the
 * command layer, and DOCA's STA API on top. Read from the sources, so a new import that breaks the
 * layering fails here, naming the file.
 */
class PackageLayersTest {
    private static final Map<String, Integer> LAYER = Map.of(
            "io.jdoca.sta.config", 0,
            "io.jdoca.sta.nvme", 0,
            "io.jdoca.sta.nvmf.tls", 1,
            "io.jdoca.sta.backend", 1,
            "io.jdoca.sta.backend.rbd", 2,
            "io.jdoca.sta.nvmf", 3,
            "io.jdoca.sta.nvmf.tcp", 4,
            "io.jdoca.sta.nvmf.rdma", 4,
            "io.jdoca.sta", 5);
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?(io\\.jdoca\\.sta[\\w.]*)\\.[\\w*]+;",
            Pattern.MULTILINE);

    @Test
    void noImportRunsUpTheLayers() throws IOException {
        Path root = Path.of("src/main/java/io/jdoca/sta");
        assertTrue(Files.isDirectory(root), "run from the sta module");
        List<String> violations = new ArrayList<>();
        int files = 0;
        try (Stream<Path> all = Files.walk(root)) {
            for (Path f : all.filter(p -> p.toString().endsWith(".java")).toList()) {
                files++;
                String src = Files.readString(f);
                Matcher pm = PACKAGE.matcher(src);
                assertTrue(pm.find(), f + " has no package");
                String pkg = pm.group(1);
                Integer own = LAYER.get(pkg);
                assertTrue(own != null, "package " + pkg + " (" + f + ") has no layer: add it to LAYER");
                Matcher im = IMPORT.matcher(src);
                while (im.find()) {
                    String target = owner(im.group(1));
                    Integer to = LAYER.get(target);
                    if (target.equals(pkg)) {
                        continue;
                    }
                    if (to == null || to >= own) {
                        violations.add(f.getFileName() + " (" + pkg + ") imports " + im.group(1));
                    }
                }
            }
        }
        assertTrue(files > 40, "scanned " + files + " files");
        assertEquals(List.of(), violations);
    }

    /** The package of an imported name: nested types (Outer.Inner) belong to Outer's package. */
    private static String owner(String qualifier) {
        String p = qualifier;
        while (!LAYER.containsKey(p) && p.contains(".")) {
            p = p.substring(0, p.lastIndexOf('.'));
        }
        return p;
    }
}
