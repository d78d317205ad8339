package io.jdoca.nvmf.rpc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
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
 * method stops the load with one line naming the entry.
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

    /** Loads {@code file} through {@code rpc}; throws ConfigException ("-c FILE: subsystems[i].config[j] (method): why"). */
    public static int load(RpcServer rpc, Path file) throws IOException {
        String where = "-c " + file;
        JsonNode root;
        try {
            root = RpcServer.MAPPER.readTree(Files.readString(file));
        } catch (NoSuchFileException e) {
            throw new ConfigException(where, "no such file");
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            throw new ConfigException(where, "not valid JSON" + (loc != null ? " at line " + loc.getLineNr() : "")
                    + ": " + e.getOriginalMessage().lines().findFirst().orElse(""));
        }
        if (root == null || !root.isObject() || !root.path("subsystems").isArray()) {
            throw new ConfigException(where, "not SPDK's config form: needs {\"subsystems\": [...]}");
        }
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
                if (!RpcServer.METHODS.contains(method) && SKIPPED.matcher(method).matches()) {
                    LOG.info("{}: {} skipped (nothing to set in jdoca)", at, method);
                    continue;
                }
                try {
                    rpc.invoke(method, e.get("params"));
                    done++;
                } catch (NoSuchMethodException ex) {
                    throw new ConfigException(where, at + " (" + method + "): not supported by jdoca");
                } catch (RpcError | IllegalArgumentException | DocaException ex) {
                    throw new ConfigException(where, at + " (" + method + "): " + ex.getMessage());
                } catch (IOException ex) {
                    throw ex;
                } catch (Exception ex) {
                    throw new ConfigException(where, at + " (" + method + "): " + ex);
                }
            }
        }
        LOG.info("{}: {} method(s) applied", file, done);
        return done;
    }
}
