package io.jdoca.systemtests.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30, "What it must show" 2: {@code ./jdoca package} writes a tarball and a Debian package;
 * the package installed (dpkg, into a scratch root: the machine is left as it was) puts {@code jdoca}
 * on PATH ({@code --version}, {@code sta-target --help}), {@code man jdoca-sta-target} shows the page,
 * bash completes {@code jdoca sta<TAB>}, {@code systemd-analyze verify} accepts the unit, the package
 * removes cleanly; the tarball, unpacked outside the source tree, runs {@code sta-target} on the
 * shipped {@code -c} configuration and answers {@code sta-rpc}. Needs dpkg-deb (Debian);
 * systemd-analyze and man are installed through scripts/ensure-packages.sh where missing, or that
 * step is skipped with a message.
 */
class PackageSystemTest {
    static final Duration T = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    record Run(int rc, String out) {
    }

    @Test
    void packageInstallsAndRunsWithoutTheSourceTree() throws Exception {
        assumeTrue(onPath("dpkg-deb") && onPath("dpkg"),
                "dpkg-deb not found: not a Debian machine, package test skipped");
        Path repo = JavaProcess.repoRoot();
        Path dist = dir.resolve("dist");
        // The jars of this build (the reactor packaged cli before this module): no nested Maven build.
        Run pkg = run(List.of(repo.resolve("jdoca").toString(), "package", "--out", dist.toString()), dir,
                Map.of("JDOCA_NO_BUILD", "1"), Duration.ofMinutes(8));
        assertThat(pkg.rc()).as(pkg.out()).isZero();
        Path deb = only(dist, ".deb");
        Path tarball = only(dist, ".tar.gz");

        // dpkg -i into a scratch root: its own dpkg database; maintainer scripts see DPKG_ROOT and stay out.
        Path root = dir.resolve("root");
        Files.createDirectories(root.resolve("var/lib/dpkg/info"));
        Files.createDirectories(root.resolve("var/lib/dpkg/updates"));
        Files.createFile(root.resolve("var/lib/dpkg/status"));
        Run install = run(List.of("dpkg", "--root=" + root, "--force-depends", "--force-script-chrootless", "-i",
                deb.toString()), dir, Map.of(), T);
        assertThat(install.rc()).as(install.out()).isZero();
        Path bin = root.resolve("usr/bin");
        assertThat(Files.isSymbolicLink(bin.resolve("jdoca"))).isTrue();
        Map<String, String> onPath = Map.of("PATH", bin + ":/usr/bin:/bin");

        // sh resolves "jdoca" on the PATH given (ProcessBuilder would look on this JVM's own PATH).
        Run version = run(List.of("sh", "-c", "exec jdoca --version"), Path.of("/"), onPath, T);
        assertThat(version.rc()).as(version.out()).isZero();
        assertThat(version.out().strip().lines().toList()).as(version.out()).hasSize(1);
        assertThat(version.out()).startsWith("jdoca ");
        Run help = run(List.of("sh", "-c", "exec jdoca sta-target --help"), Path.of("/"), onPath, T);
        assertThat(help.rc()).as(help.out()).isZero();
        assertThat(help.out()).startsWith("Usage: jdoca sta-target").contains("-c, --config=FILE");

        manPage(root);
        completion(root);
        unitVerifies(root);

        Run purge = run(List.of("dpkg", "--root=" + root, "--force-script-chrootless", "--purge", "jdoca"), dir,
                Map.of(), T);
        assertThat(purge.rc()).as(purge.out()).isZero();
        assertThat(root.resolve("usr/bin/jdoca")).doesNotExist();
        assertThat(root.resolve("usr/lib/jdoca")).doesNotExist();

        tarballRunsUnpacked(tarball);
    }

    private void manPage(Path root) throws Exception {
        if (!tool("man", "man-db")) {
            return;
        }
        Map<String, String> env = Map.of("MANPATH", root.resolve("usr/share/man").toString(), "MANPAGER", "cat",
                "MANWIDTH", "100", "LANG", "C");
        Run man = run(List.of("man", "jdoca-sta-target"), dir, env, T);
        assertThat(man.rc()).as(man.out()).isZero();
        assertThat(man.out().replaceAll("[ \t]+", " ")).contains("JDOCA-STA-TARGET(1)", "NAME",
                "jdoca-sta-target - NVMe-oF/TCP target",
                "SYNOPSIS", "OPTIONS", "-c, --config=FILE", "jdoca(1)");
    }

    /** {@code jdoca sta<TAB>}: bash runs the completion function the package registers for jdoca. */
    private void completion(Path root) throws Exception {
        Path script = root.resolve("usr/share/bash-completion/completions/jdoca");
        assertThat(script).exists();
        String probe = "source '" + script + "'\n"
                + "fn=$(complete -p jdoca | sed -n 's/.*-F \\([^ ]*\\).*/\\1/p')\n"
                + "COMP_WORDS=(jdoca sta); COMP_CWORD=1; COMP_LINE='jdoca sta'; COMP_POINT=${#COMP_LINE}\n"
                + "$fn jdoca sta jdoca\n"
                + "printf '%s\\n' \"${COMPREPLY[@]}\" | sort\n";
        Run r = run(List.of("bash", "-c", probe), dir, Map.of(), T);
        assertThat(r.rc()).as(r.out()).isZero();
        assertThat(r.out().strip().lines().toList()).as(r.out())
                .containsExactly("sta-offload-sample", "sta-rpc", "sta-target");
    }

    /**
     * systemd-analyze verify on the installed unit; it checks ExecStart's program exists, so the copy it
     * reads names the scratch root's paths (the installed unit's own lines are checked as text).
     */
    private void unitVerifies(Path root) throws Exception {
        Path unit = root.resolve("lib/systemd/system/jdoca-sta-target.service");
        String text = Files.readString(unit);
        assertThat(text).contains("ExecStart=/usr/bin/jdoca sta-target -c /etc/jdoca/sta-target.json");
        assertThat(root.resolve("etc/jdoca/sta-target.json")).exists();
        assertThat(Files.readString(root.resolve("var/lib/dpkg/info/jdoca.conffiles")))
                .contains("/etc/jdoca/sta-target.json");
        if (!tool("systemd-analyze", "systemd")) {
            return;
        }
        Path copy = Files.createDirectories(dir.resolve("unit")).resolve(unit.getFileName());
        Files.writeString(copy, text.replace("/usr/bin/jdoca", root + "/usr/bin/jdoca")
                .replace("/etc/jdoca/", root + "/etc/jdoca/"));
        Run v = run(List.of("systemd-analyze", "verify", copy.toString()), dir,
                Map.of("MANPATH", root.resolve("usr/share/man").toString()), T);
        assertThat(v.rc()).as(v.out()).isZero();
        assertThat(v.out().strip()).as("systemd-analyze verify says nothing about a good unit").isEmpty();
    }

    /** The tarball unpacked outside the source tree, with no JDK on PATH or JAVA_HOME: its own runtime image. */
    private void tarballRunsUnpacked(Path tarball) throws Exception {
        Path unpacked = Files.createDirectories(dir.resolve("unpacked"));
        Run tar = run(List.of("tar", "-C", unpacked.toString(), "-xzf", tarball.toString()), dir, Map.of(), T);
        assertThat(tar.rc()).as(tar.out()).isZero();
        Path home;
        try (Stream<Path> s = Files.list(unpacked)) {
            home = s.filter(Files::isDirectory).findFirst().orElseThrow();
        }
        assertThat(home.resolve("runtime/bin/java")).exists();
        Path jdoca = home.resolve("bin/jdoca");
        Map<String, String> bare = Map.of("PATH", "/usr/bin:/bin");
        Run v = run(List.of(jdoca.toString(), "--version"), Path.of("/"), bare, T);
        assertThat(v.rc()).as(v.out()).isZero();
        assertThat(v.out()).startsWith("jdoca ");

        int port = JavaProcess.freePort();
        Path cfg = dir.resolve("sta-target.json");
        String shipped = Files.readString(home.resolve("share/jdoca/sta-target.json"));
        Files.writeString(cfg, shipped.replace("\"4420\"", "\"" + port + "\""));
        Path sock = dir.resolve("sta.sock");
        List<String> cmd = List.of(jdoca.toString(), "sta-target", "-c", cfg.toString(), "-r", sock.toString());
        try (JavaProcess tgt = JavaProcess.startCommand("dist-sta-target", cmd)) {
            tgt.awaitOutput("STA TARGET READY", T);
            Run rpc = run(List.of(jdoca.toString(), "sta-rpc", "-s", sock.toString(), "nvmf_get_subsystems"),
                    Path.of("/"), bare, T);
            assertThat(rpc.rc()).as(rpc.out()).isZero();
            assertThat(rpc.out()).contains("nqn.2016-06.io.spdk:cnode1", "\"trsvcid\" : \"" + port + "\"", "Malloc0");
            tgt.terminate();
            tgt.awaitExit(T);
        }
    }

    /** True when {@code cmd} is on PATH, after asking scripts/ensure-packages.sh for {@code pkg}; else says so. */
    private boolean tool(String cmd, String pkg) throws Exception {
        if (!onPath(cmd)) {
            run(List.of(JavaProcess.repoRoot().resolve("scripts/ensure-packages.sh").toString(), pkg), dir, Map.of(),
                    Duration.ofMinutes(5));
        }
        if (!onPath(cmd)) {
            System.err.println("PackageSystemTest: " + cmd + " not available (Debian package " + pkg
                    + " could not be installed): that check is skipped");
            return false;
        }
        return true;
    }

    private static boolean onPath(String cmd) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (Files.isExecutable(Path.of(d, cmd))) {
                return true;
            }
        }
        return false;
    }

    private static Path only(Path dist, String suffix) throws IOException {
        try (Stream<Path> s = Files.list(dist)) {
            List<Path> l = s.filter(p -> p.getFileName().toString().endsWith(suffix)).toList();
            assertThat(l).as("one *" + suffix + " in " + dist).hasSize(1);
            return l.getFirst();
        }
    }

    /** Runs {@code cmd} in {@code cwd} with {@code env} added (PATH replaced if given); stdout+stderr together. */
    private Run run(List<String> cmd, Path cwd, Map<String, String> env, Duration timeout) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(cmd)).directory(cwd.toFile()).redirectErrorStream(true);
        Map<String, String> e = new HashMap<>(pb.environment());
        e.remove("JAVA_HOME"); // the installed jdoca must not lean on the build's JDK
        e.putAll(env);
        pb.environment().clear();
        pb.environment().putAll(e);
        Path log = Files.createTempFile(dir, "run", ".log");
        Process p = pb.redirectOutput(log.toFile()).start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError(cmd + " did not finish within " + timeout + ":\n" + Files.readString(log));
        }
        return new Run(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }
}
