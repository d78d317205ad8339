package io.jdoca.sta.nvmf;

import io.jdoca.core.DocaError;
import io.jdoca.sta.nvme.NvmeCommand;
import java.lang.foreign.MemorySegment;

/**
 * What a queue pair reports upward to the application layer that owns it (the STA IO context):
 * commands the engine does not offload, and the end of the connection.
 *
 * <p>Called on the owning IO engine's thread, inside its progress.
 */
public interface NvmfQpairEvents {
    /**
     * A command for the application ({@code doca_sta_io_non_offload} callback): {@code payload}
     * holds {@code len} bytes of in-capsule data (null when none); {@code valid} is false when the
     * command has host data that was not in the capsule. False when nobody takes it (the command
     * layer answers Invalid Opcode).
     */
    boolean onApplicationCommand(NvmeCommand cmd, MemorySegment payload, int len, boolean valid);

    /**
     * The connection failed or ended ({@code operation}: "recv", "send", "protocol", "rdma", "rdma_cm";
     * {@code detail}: an errno, a work-completion status or the NVMe/TCP FES): the owner tears the
     * queue pair down.
     */
    void onTransportError(String operation, DocaError why, int detail);
}
