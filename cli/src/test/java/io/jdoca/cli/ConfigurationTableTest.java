package io.jdoca.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.bench.BenchProperties;
import io.jdoca.comch.ComchProperties;
import io.jdoca.compress.CompressProperties;
import io.jdoca.core.config.CoreProperties;
import io.jdoca.core.config.JdocaProperty;
import io.jdoca.ec.EcProperties;
import io.jdoca.rdma.RdmaProperties;
import io.jdoca.sta.config.StaProperties;
import io.jdoca.storage.common.StorageProperties;
import io.jdoca.testkit.JavaProcess;
import io.jdoca.testkit.TestkitProperties;
import io.jdoca.verbs.VerbsProperties;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * Issue 28 item 5: every {@code jdoca.*} JVM system property is declared in its module's configuration
 * class and documented in docs/CONFIGURATION.md's one table. (a) The table's rows are exactly the
 * classes' properties (name, module, default, and the description as the classes word it); (b) no
 * main source outside those classes names a {@code jdoca.*} property in a string literal (neither
 * {@code "jdoca.x"}, what {@code System.getProperty} or {@code Long.getLong} would be given, nor
 * {@code "-Djdoca.x"}, what a child JVM or a message is given), and every {@code jdoca.*} name that
 * main resources or the launcher read or set is declared: a new knob must be declared, so documented.
 *
 * <p>Here, in cli, because cli sees every module (bench as {@code provided}; system-tests does not see bench).
 * Reads the sources of the repository it runs in ({@link JavaProcess#repoRoot()}).
 */
class ConfigurationTableTest {
    /** One property as the table shows it. */
    record Row(String name, String module, String defaultValue, String description) {
    }

    /** Each module's configuration class (module in build order) and its properties as rows. */
    static Map<Class<?>, List<Row>> declared() {
        Map<Class<?>, List<Row>> m = new LinkedHashMap<>();
        m.put(VerbsProperties.class, VerbsProperties.ALL.stream()
                .map(p -> new Row(p.name(), "verbs", p.defaultValue(), p.description())).toList());
        m.put(CoreProperties.class, rows("core", CoreProperties.ALL));
        m.put(RdmaProperties.class, rows("rdma", RdmaProperties.ALL));
        m.put(ComchProperties.class, rows("comch", ComchProperties.ALL));
        m.put(EcProperties.class, rows("ec", EcProperties.ALL));
        m.put(CompressProperties.class, rows("compress", CompressProperties.ALL));
        m.put(StaProperties.class, rows("sta", StaProperties.ALL));
        m.put(StorageProperties.class, rows("storage", StorageProperties.ALL));
        m.put(BenchProperties.class, rows("bench", BenchProperties.ALL));
        m.put(CliProperties.class, rows("cli", CliProperties.ALL));
        m.put(TestkitProperties.class, TestkitProperties.ALL.stream()
                .map(p -> new Row(p.name(), "testkit", p.defaultValue(), p.description())).toList());
        return m;
    }

    static List<Row> rows(String module, List<JdocaProperty> all) {
        return all.stream().map(p -> new Row(p.name(), module, p.defaultValue(), p.description())).toList();
    }

    static List<Row> allRows() {
        return declared().values().stream().flatMap(List::stream).toList();
    }

    static Set<String> declaredNames() {
        Set<String> names = new HashSet<>();
        for (Row r : allRows()) {
            names.add(r.name());
        }
        return names;
    }

    /** The table as docs/CONFIGURATION.md must hold it (printed when it does not, to paste). */
    static String expectedTable() {
        StringBuilder b = new StringBuilder(HEADER);
        for (Row r : allRows()) {
            b.append("| `").append(r.name()).append("` | ").append(r.module()).append(" | ")
                    .append(r.defaultValue().isEmpty() ? EMPTY : "`" + r.defaultValue() + "`").append(" | ")
                    .append(markdown(r.description())).append(" |\n");
        }
        return b.toString();
    }

    static final String HEADER = "| property | module | default | what it changes |\n|---|---|---|---|\n";
    /** How the table shows an empty default (the property unset). */
    static final String EMPTY = "(empty)";

    /** Plain text as a table cell: no pipe ends the cell, no {@code <user>} becomes an HTML tag. */
    static String markdown(String s) {
        return s.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;");
    }

    @Test
    void theTableListsExactlyTheDeclaredProperties() throws IOException {
        List<Row> rows = allRows();
        assertThat(declaredNames()).as("a property is declared once").hasSize(rows.size());
        Path root = JavaProcess.repoRoot();
        for (Map.Entry<Class<?>, List<Row>> e : declared().entrySet()) {
            for (Row r : e.getValue()) {
                assertThat(r.description()).as(r.name()).isNotBlank().doesNotContain("\n");
                assertThat(root.relativize(sourceOf(root, e.getKey())).getName(0).toString())
                        .as(r.name() + "'s module").isEqualTo(r.module());
            }
        }
        assertThat(TestkitProperties.CORE_HOME_NAME).as("testkit's copy of core's name")
                .isEqualTo(CoreProperties.HOME.name());
        String doc = Files.readString(root.resolve("docs/CONFIGURATION.md"));
        int at = doc.indexOf(HEADER);
        assertThat(at).as("docs/CONFIGURATION.md has the table's header").isGreaterThanOrEqualTo(0);
        int end = doc.indexOf("\n\n", at);
        String table = doc.substring(at, end < 0 ? doc.length() : end + 1);
        assertThat(table).as("docs/CONFIGURATION.md's table (expected below, generated from the "
                + "*Properties classes)").isEqualTo(expectedTable());
        assertThat(doc.indexOf(HEADER, at + 1)).as("one table").isEqualTo(-1);
    }

    /** A string literal naming a jdoca.* property: the name itself, or -Dname. */
    static final Pattern NAMES_A_PROPERTY = Pattern.compile("^jdoca\\.[A-Za-z]|-Djdoca\\.[A-Za-z]",
            Pattern.MULTILINE);
    /** A jdoca.* name in a resource (logback's ${jdoca.x:-default}) or in the launcher script (-Djdoca.x=). */
    static final Pattern NAME_IN_TEXT = Pattern.compile("(?:\\$\\{|-D)(jdoca\\.[A-Za-z][\\w.]*?)(?=[:}=\"\\s])");
    /** A configuration class: a *Properties file declaring its list ALL. */
    static final Pattern DECLARES_ALL = Pattern.compile("public static final List<[\\w.]+> ALL\\b");

    @Test
    void noMainSourceNamesAPropertyOutsideTheConfigurationClasses() throws IOException {
        Path root = JavaProcess.repoRoot();
        Set<Path> classFiles = new HashSet<>();
        for (Class<?> c : declared().keySet()) {
            classFiles.add(sourceOf(root, c));
        }
        List<String> violations = new ArrayList<>();
        Set<Path> foundClasses = new HashSet<>();
        int files = 0;
        for (Path module : modules(root)) {
            for (Path f : walk(module.resolve("src/main/java"), ".java")) {
                files++;
                String src = Files.readString(f);
                if (f.getFileName().toString().endsWith("Properties.java") && DECLARES_ALL.matcher(src).find()) {
                    foundClasses.add(f);
                }
                if (classFiles.contains(f)) {
                    continue;
                }
                for (JavaLiterals.Literal l : JavaLiterals.of(src)) {
                    if (NAMES_A_PROPERTY.matcher(l.text()).find()) {
                        violations.add(root.relativize(f) + ":" + l.line() + " \"" + l.text() + "\"");
                    }
                }
            }
            for (Path f : walk(module.resolve("src/main/resources"), "")) {
                undeclared(root, f, violations);
            }
        }
        undeclared(root, root.resolve("jdoca"), violations);
        assertThat(files).as("main sources scanned").isGreaterThan(300);
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(foundClasses).as("the configuration classes in the sources are the ones this test lists")
                .containsExactlyInAnyOrderElementsOf(classFiles);
        soft.assertThat(violations).as("jdoca.* properties named outside their module's *Properties class, or not "
                + "declared in one (declare the property there and read it through it; docs/CONFIGURATION.md)")
                .isEmpty();
        soft.assertAll();
    }

    /** The scanner itself: what it must find and what it must leave alone. */
    @Test
    void theScannerSeesLiteralsNotComments() {
        String src = """
                /** {@code -Djdoca.a.b} in a comment */ class X { // "jdoca.c.d"
                    String a = System.getProperty("jdoca.e.f"); /* "jdoca.g" */ char q = '"';
                    String b = "-Djdoca.h=" + 1, c = "cli/target/jdoca.jar", d = "esc\\"jdoca.i";
                    String u = "\\u0041jdoca.k\\101\\n";
                    String e = \"""
                        jdoca.j\""";
                }
                """;
        List<String> hits = JavaLiterals.of(src).stream().filter(l -> NAMES_A_PROPERTY.matcher(l.text()).find())
                .map(l -> l.line() + ":" + l.text()).toList();
        assertThat(hits).containsExactly("2:jdoca.e.f", "3:-Djdoca.h=", "5:jdoca.j");
        assertThat(names("<root level=\"${jdoca.log.level:-INFO}\"> ${jdoca.pid} -Djdoca.home=$ROOT"))
                .containsExactly("jdoca.home", "jdoca.log.level", "jdoca.pid");
    }

    private static void undeclared(Path root, Path f, List<String> violations) throws IOException {
        if (!Files.isRegularFile(f)) {
            return;
        }
        String text;
        try {
            text = Files.readString(f);
        } catch (java.nio.charset.MalformedInputException e) {
            return; // binary resources name no property
        }
        for (String n : names(text)) {
            if (!declaredNames().contains(n)) {
                violations.add(root.relativize(f) + " names undeclared " + n);
            }
        }
    }

    static Set<String> names(String text) {
        Set<String> out = new TreeSet<>();
        Matcher m = NAME_IN_TEXT.matcher(text);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /** The Maven modules of the repository (directories with a pom and sources). */
    static List<Path> modules(Path root) throws IOException {
        try (Stream<Path> s = Files.list(root)) {
            return s.filter(d -> Files.isRegularFile(d.resolve("pom.xml")) && Files.isDirectory(d.resolve("src")))
                    .sorted().toList();
        }
    }

    static List<Path> walk(Path dir, String suffix) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).filter(p -> p.toString().endsWith(suffix)).sorted().toList();
        }
    }

    /** The source file of a configuration class, in whichever module holds it. */
    static Path sourceOf(Path root, Class<?> c) throws IOException {
        String rel = "src/main/java/" + c.getName().replace('.', '/') + ".java";
        for (Path module : modules(root)) {
            if (Files.isRegularFile(module.resolve(rel))) {
                return module.resolve(rel);
            }
        }
        throw new AssertionError("no source for " + c.getName());
    }
}
