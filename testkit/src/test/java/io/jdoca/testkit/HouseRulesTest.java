package io.jdoca.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.puppycrawl.tools.checkstyle.Checker;
import com.puppycrawl.tools.checkstyle.ConfigurationLoader;
import com.puppycrawl.tools.checkstyle.PropertiesExpander;
import com.puppycrawl.tools.checkstyle.api.AuditEvent;
import com.puppycrawl.tools.checkstyle.api.AuditListener;
import com.puppycrawl.tools.checkstyle.api.CheckstyleException;
import com.puppycrawl.tools.checkstyle.api.Configuration;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The house rules the build checks (issue 28 item 5): a room (file) of 601 lines not in the exception
 * list fails it, so does a line of 121 columns, and so does a compiler warning; the exceptions are all
 * in one file, each naming a file that exists, with its reason. Runs the build's own Checkstyle
 * configuration (config/checkstyle.xml) and the compiler arguments of the root pom on generated sources.
 */
class HouseRulesTest {
    private static final Path ROOT = findRoot();

    private static Path findRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.exists(p.resolve("config/checkstyle.xml"))) {
            p = p.getParent();
        }
        return p;
    }

    @TempDir
    Path tmp;

    @Test
    void aRoomOf601LinesFailsAndOf600Passes() throws Exception {
        assertThat(violations(javaFile("Ok600", 600, 80))).isEmpty();
        assertThat(violations(javaFile("Long601", 601, 80))).anyMatch(v -> v.contains("FileLength"));
    }

    @Test
    void aLineOf121ColumnsFailsAndOf120Passes() throws Exception {
        assertThat(violations(javaFile("Wide120", 20, 120))).isEmpty();
        assertThat(violations(javaFile("Wide121", 20, 121))).anyMatch(v -> v.contains("LineLength"));
    }

    @Test
    void aListedRoomMayBeLongerAndOnlyThatOne() throws Exception {
        Path listed = tmp.resolve("ec/src/main/java/io/jdoca/ec/JavaRsEngine.java");
        Files.createDirectories(listed.getParent());
        Files.writeString(listed, source("JavaRsEngine", 700, 80));
        assertThat(violations(listed)).isEmpty();
        Path other = tmp.resolve("ec/src/main/java/io/jdoca/ec/Other.java");
        Files.writeString(other, source("Other", 700, 80));
        assertThat(violations(other)).anyMatch(v -> v.contains("FileLength"));
    }

    @Test
    void everyExceptionNamesAnExistingFileWithItsReason() throws IOException {
        String xml = Files.readString(ROOT.resolve("config/house-rules-exceptions.xml"));
        Matcher m = Pattern.compile("<!--(.*?)-->\\s*<suppress checks=\"([^\"]+)\" files=\"([^\"]+)\"/>",
                Pattern.DOTALL).matcher(xml);
        int entries = 0;
        List<Path> sources;
        try (Stream<Path> all = Files.walk(ROOT)) {
            sources = all.filter(p -> p.toString().endsWith(".java") && !p.toString().contains("/target/")).toList();
        }
        while (m.find()) {
            entries++;
            assertThat(m.group(1).strip()).as("reason of " + m.group(3)).hasSizeGreaterThan(40);
            Pattern file = Pattern.compile(m.group(3));
            assertThat(sources).as("a file matching " + m.group(3)).anyMatch(p -> file.matcher(p.toString()).find());
        }
        long suppressions = Pattern.compile("<suppress ").matcher(xml).results().count();
        assertThat(entries).as("every <suppress> has a comment with its reason right above it").isEqualTo(suppressions);
        assertThat(Files.readString(ROOT.resolve("config/checkstyle.xml"))).contains("house-rules-exceptions.xml");
    }

    @Test
    void aCompilerWarningFailsTheBuild() throws IOException {
        List<String> args = compilerArgs();
        assertThat(args).contains("-Werror");
        Path clean = tmp.resolve("Clean.java");
        Files.writeString(clean, "import java.util.List;\nclass Clean { List<String> l = List.of(); }\n");
        Path warned = tmp.resolve("Warned.java");
        Files.writeString(warned, "import java.util.List;\nclass Warned { List l = List.of(); }\n"); // rawtypes
        assertThat(compile(args, clean)).as("a clean source compiles").isZero();
        assertThat(compile(args, warned)).as("a raw type is a warning, and a warning an error").isNotZero();
    }

    /** The root pom's compiler arguments, with -Werror when it sets failOnWarning (as Maven passes them). */
    private static List<String> compilerArgs() throws IOException {
        String pom = Files.readString(ROOT.resolve("pom.xml"));
        List<String> args = new ArrayList<>();
        int at = pom.indexOf("maven-compiler-plugin");
        Matcher a = Pattern.compile("<arg>([^<]+)</arg>").matcher(pom.substring(at, pom.indexOf("</plugin>", at)));
        while (a.find()) {
            args.add(a.group(1).trim());
        }
        if (pom.contains("<failOnWarning>true</failOnWarning>")) {
            args.add("-Werror");
        }
        return args;
    }

    private int compile(List<String> args, Path src) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> all = new ArrayList<>(args);
        all.addAll(List.of("-d", tmp.resolve("classes").toString(), src.toString()));
        return javac.run(null, null, System.err, all.toArray(String[]::new));
    }

    private Path javaFile(String name, int lines, int width) throws IOException {
        Path p = tmp.resolve(name + ".java");
        Files.writeString(p, source(name, lines, width));
        return p;
    }

    /** A class of exactly {@code lines} lines whose longest line has {@code width} columns. */
    private static String source(String name, int lines, int width) {
        StringBuilder b = new StringBuilder("class " + name + " {\n");
        String wide = "    // " + "x".repeat(width - 7);
        b.append(wide).append('\n');
        for (int i = 2; i < lines - 1; i++) {
            b.append("    int f").append(i).append(";\n");
        }
        b.append("}\n");
        return b.toString();
    }

    private static List<String> violations(Path file) throws CheckstyleException {
        Properties props = new Properties();
        props.setProperty("config_loc", ROOT.resolve("config").toString());
        Configuration config = ConfigurationLoader.loadConfiguration(ROOT.resolve("config/checkstyle.xml").toString(),
                new PropertiesExpander(props));
        Checker checker = new Checker();
        checker.setModuleClassLoader(Checker.class.getClassLoader());
        checker.configure(config);
        List<String> out = new ArrayList<>();
        checker.addListener(new AuditListener() {
            @Override
            public void auditStarted(AuditEvent e) {
            }

            @Override
            public void auditFinished(AuditEvent e) {
            }

            @Override
            public void fileStarted(AuditEvent e) {
            }

            @Override
            public void fileFinished(AuditEvent e) {
            }

            @Override
            public void addError(AuditEvent e) {
                out.add(e.getSourceName() + ": " + e.getMessage());
            }

            @Override
            public void addException(AuditEvent e, Throwable t) {
                out.add("exception: " + t);
            }
        });
        try {
            checker.process(List.of(new File(file.toString())));
        } finally {
            checker.destroy();
        }
        return out.stream().collect(Collectors.toList());
    }
}
