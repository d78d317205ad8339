package io.jdoca.gga.sbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.testkit.JavaProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 12 item 11: bad input to sbc-generator gets one line naming the flag, a non-zero exit and
 * no output file. Fails on main: {@code --block-size 2147483520} allocated ~5 GB and died with an
 * out-of-bounds offset; an empty input and three identical output paths were accepted.
 */
class SbcGeneratorBadInputTest {
    @TempDir
    Path dir;

    private record Run(int rc, String err) {
    }

    private Run run(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream old = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int rc = new CommandLine(new SbcGeneratorApp()).execute(args);
            return new Run(rc, err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(old);
        }
    }

    private Path input() throws IOException {
        Path in = dir.resolve("in.txt");
        Files.write(in, Files.readAllBytes(JavaProcess.repoRoot()
                .resolve("core/src/main/java/io/jdoca/core/exec/Ctx.java")));
        return in;
    }

    private List<String> outputs() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.equals("in.txt")
                    && !n.equals("empty.bin")).toList();
        }
    }

    private static void oneLine(Run r, String... parts) {
        assertThat(r.rc()).isNotZero();
        assertThat(r.err().strip()).doesNotContain("\n").doesNotContain("Exception").startsWith("sbc-generator: ")
                .contains(parts);
    }

    @Test
    void aHugeBlockSizeIsRefusedBeforeAnyAllocation() throws IOException {
        Run r = run("--original-input-data", input().toString(), "--data-1", dir.resolve("a").toString(), "--data-2",
                dir.resolve("b").toString(), "--data-p", dir.resolve("c").toString(), "--block-size", "2147483520");
        oneLine(r, "--block-size", "2147483520");
        assertThat(outputs()).isEmpty();
    }

    @Test
    void anEmptyInputIsRefused() throws IOException {
        Path empty = Files.createFile(dir.resolve("empty.bin"));
        Run r = run("--original-input-data", empty.toString(), "--data-1", dir.resolve("a").toString(), "--data-2",
                dir.resolve("b").toString(), "--data-p", dir.resolve("c").toString());
        oneLine(r, "--original-input-data", "is empty");
        assertThat(outputs()).isEmpty();
    }

    @Test
    void identicalOutputPathsAreRefused() throws IOException {
        String same = dir.resolve("x.sbc").toString();
        Run r = run("--original-input-data", input().toString(), "--data-1", same, "--data-2", same, "--data-p", same);
        oneLine(r, "--data-1 and --data-2 name the same file");
        assertThat(outputs()).isEmpty();
        Run r2 = run("--original-input-data", input().toString(), "--data-1", dir.resolve("a").toString(), "--data-2",
                dir.resolve("./a").toString(), "--data-p", dir.resolve("c").toString());
        oneLine(r2, "--data-1 and --data-2 name the same file");
        assertThat(outputs()).isEmpty();
    }

    @Test
    void anOutputThatIsTheInputIsRefused() throws IOException {
        Path in = input();
        Run r = run("--original-input-data", in.toString(), "--data-1", dir.resolve("a").toString(), "--data-2",
                dir.resolve("b").toString(), "--data-p", in.toString());
        oneLine(r, "--data-p", "is the input file");
        assertThat(outputs()).isEmpty();
        assertThat(in).hasSize(Files.size(JavaProcess.repoRoot()
                .resolve("core/src/main/java/io/jdoca/core/exec/Ctx.java")));
    }

    @Test
    void aMissingOutputDirectoryLeavesNoPartialFile() throws IOException {
        Run r = run("--original-input-data", input().toString(), "--data-1", dir.resolve("a").toString(), "--data-2",
                dir.resolve("b").toString(), "--data-p", dir.resolve("missing/c").toString());
        assertThat(r.rc()).isNotZero();
        assertThat(r.err().strip()).doesNotContain("\n").contains("missing");
        assertThat(outputs()).isEmpty();
    }

    @Test
    void goodInputStillWritesTheThreeFiles() throws IOException {
        Run r = run("--original-input-data", input().toString(), "--data-1", dir.resolve("a").toString(), "--data-2",
                dir.resolve("b").toString(), "--data-p", dir.resolve("c").toString());
        assertThat(r.rc()).as(r.err()).isZero();
        assertThat(outputs()).containsExactlyInAnyOrder("a", "b", "c");
    }
}
