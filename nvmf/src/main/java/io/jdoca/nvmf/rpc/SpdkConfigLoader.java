package io.jdoca.nvmf.rpc;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jdoca.core.DocaException;
import io.jdoca.nvmf.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replays SPDK's JSON configuration ({@code sta-target -c FILE}: what {@code save_config} wrote,
 * from jdoca or from SPDK): {@code {"subsystems":[{"subsystem":..., "config":[{"method":...,
 * "params":{...}}]}]}}, each entry executed as the RPC method of that name, in order. Option
 * setters of SPDK subsystems jdoca does not have (iobuf, sock, accel, scheduler, ..., and every
 * {@code *_set_options} / {@code *_set_config}) are skipped with a log line; any other unknown
 * method stops the load with one line naming the entry. As SPDK's loader, it accepts comments
 * and runs the methods allowed before the start ({@code nvmf_set_config}) first, the target's
 * start between the two phases ({@link #apply}).
 *
 * <p>Control path, called once at start.
 */
public final class SpdkConfigLoader {
    private static final Logger LOG = LoggerFactory.getLogger(SpdkConfigLoader.class);
    /** Tuning methods with nothing to tune in jdoca: skipped. */
    private static final Pattern SKIPPED = Pattern.compile(
            ".*_set_options|.*_set_config|nvmf_set_max_subsystems|nvmf_set_crdt|framework_set_scheduler"
                    + "|bdev_nvme_set_hotplug|sock_set_default_impl|.*_set_opts|vmd_enable|accel_assign_opc"
                    + "|keyring_.*_set_options|iobuf_.*|scheduler_.*");

    private SpdkConfigLoader() {
    }

    /** A mapper for SPDK's JSON config: SPDK's loader accepts comments ({@code //} and {@code /* *}{@code /}). */
    private static final ObjectMapper CONFIG_MAPPER = new ObjectMapper(JsonFactory.builder()
            .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS)
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build()).build());

    /**
     * Loads {@code file} through {@code rpc}, a server of a running target: every entry in order,
     * methods that only apply before the start (nvmf_set_config) skipped with a log line. Throws
     * ConfigException ("-c FILE: subsystems[i].config[j] (method): why"). Returns the methods applied.
     */
    public static int load(RpcServer rpc, Path file) throws IOException {
        return apply(rpc, file, read(file), RpcRegistry.RUNTIME, true);
    }

    /** Reads and parses {@code file} (comments allowed, as SPDK's loader); ConfigException names the line. */
    public static JsonNode read(Path file) throws IOException {
        String where = "-c " + file;
        JsonNode root;
        try {
            root = CONFIG_MAPPER.readTree(Files.readString(file));
        } catch (NoSuchFileException e) {
            throw new ConfigException(where, "no such file");
        } catch (JsonProcessingException e) {
            // Where, not the parser's own wording (token names, character codes).
            var loc = e.getLocation();
            throw new ConfigException(where, "not valid JSON" + (loc != null && loc.getLineNr() > 0
                    ? " at line " + loc.getLineNr() + ", column " + loc.getColumnNr() : ""));
        }
        if (root == null || !root.isObject() || !root.path("subsystems").isArray()) {
            throw new ConfigException(where, "not SPDK's config form: needs {\"subsystems\": [...]}");
        }
        return root;
    }

    /**
     * Applies one phase of {@code root}, as SPDK's JSON config loader walks it: {@link RpcRegistry#STARTUP}
     * runs the methods allowed before the start (and refuses unknown methods before anything starts);
     * {@link RpcRegistry#RUNTIME} runs the others, and with {@code alsoStartupMethods} those allowed in
     * both states too (the startup phase did not run). Returns the methods applied.
     */
    public static int apply(RpcServer rpc, Path file, JsonNode root, int phase, boolean alsoStartupMethods)
            throws IOException {
        String where = "-c " + file;
        int done = 0;
        JsonNode subs = root.get("subsystems");
        for (int i = 0; i < subs.size(); i++) {
            JsonNode config = subs.get(i).get("config");
            if (config == null || config.isNull()) {
                continue;
            }
            if (!config.isArray()) {
                throw new ConfigException(where, "subsystems[" + i + "].config must be an array");
            }
            for (int j = 0; j < config.size(); j++) {
                String at = "subsystems[" + i + "].config[" + j + "]";
                JsonNode e = config.get(j);
                String method = e.path("method").asText("");
                if (method.isEmpty()) {
                    throw new ConfigException(where, at + ": method missing");
                }
                RpcRegistry.Method<?> m = rpc.registry().method(method);
                if (m == null) {
                    if (!SKIPPED.matcher(method).matches()) {
                        throw new ConfigException(where, at + " (" + method + "): not supported by jdoca");
                    }
                    if (phase == RpcRegistry.RUNTIME) {
                        LOG.info("{}: {} skipped (nothing to set in jdoca)", at, method);
                    }
                    continue;
                }
                boolean startup = (m.states() & RpcRegistry.STARTUP) != 0;
                boolean runtime = (m.states() & RpcRegistry.RUNTIME) != 0;
                boolean run = phase == RpcRegistry.STARTUP ? startup
                        : !startup || (alsoStartupMethods && runtime);
                if (!run) {
                    if (phase == RpcRegistry.RUNTIME && !runtime && alsoStartupMethods) {
                        LOG.info("{}: {} skipped: it applies before the target starts (sta-target -c)", at, method);
                    }
                    continue;
                }
                try {
                    rpc.invoke(method, e.get("params"));
                    done++;
                } catch (NoSuchMethodException ex) {
                    throw new ConfigException(where, at + " (" + method + "): not supported by jdoca");
                } catch (RpcError | IllegalArgumentException | DocaException ex) {
                    throw new ConfigException(where, at + " (" + method + "): " + RpcError.plain(ex.getMessage()));
                } catch (IOException ex) {
                    throw ex;
                } catch (Exception ex) {
                    throw new ConfigException(where, at + " (" + method + "): " + RpcError.plain(ex.toString()));
                }
            }
        }
        LOG.info("{}: {} method(s) applied{}", file, done, phase == RpcRegistry.STARTUP ? " before the start" : "");
        return done;
    }
}
