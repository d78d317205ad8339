package io.jdoca.nvmf.tgt;

import io.jdoca.core.DocaError;
import io.jdoca.sta.StaIo;
import io.jdoca.sta.StaIoTaskNonOffloadRead;
import io.jdoca.sta.StaNonOffloadCallback;
import io.jdoca.sta.StaQp;
import io.jdoca.sta.StaTransportErrorCallback;
import io.jdoca.sta.nvme.FabricsConnectCommand;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The IO engines' side of the control plane: the STA non-offload callback and transport error
 * event of every IO context. It only copies: a command the engine did not execute becomes an
 * {@link NvmfAdminCommand} (SQE, and the data of a Connect, Authentication Send or reservation
 * command, fetched from the host first when it was not in the capsule) handed to {@code sta-main};
 * a QP's end is reported the same way. It reads and changes no target state, takes no lock and
 * never waits for {@code sta-main}: when the admin queue is full the command is answered Command
 * Interrupted at once (a retryable status).
 *
 * <p>Threads: {@link #onCommand} and {@link #onTransportError} run on the calling IO context's
 * thread (several engines share this stateless object).
 */
final class NvmfCommandForwarder implements StaNonOffloadCallback, StaTransportErrorCallback {
    private static final Logger LOG = LoggerFactory.getLogger(NvmfCommandForwarder.class);

    private final NvmfMain main;

    NvmfCommandForwarder(NvmfMain main) {
        this.main = main;
    }

    @Override
    public void onCommand(StaQp qp, NvmeCommand cmd, MemorySegment payload, int payloadLen, boolean payloadValid,
                          long ud) {
        NvmfAdminCommand c = NvmfAdminCommand.of(qp, cmd, !payloadValid);
        if (cmd.opcode() == NvmeOpcode.FABRICS && cmd.fctype() == NvmeOpcode.FCTYPE_CONNECT) {
            if (payload != null && payloadLen >= FabricsConnectCommand.DATA_LEN) {
                c.data = NvmfAdminCommand.offHeap(FabricsConnectCommand.DATA_LEN);
                MemorySegment.copy(payload, 0, c.data, 0, FabricsConnectCommand.DATA_LEN);
            } else if (!payloadValid && cmd.sglLength() >= FabricsConnectCommand.DATA_LEN) {
                fetchConnectData(qp, c);
                return;
            }
        }
        if (cmd.opcode() == NvmeOpcode.FABRICS && cmd.fctype() == NvmeOpcode.FCTYPE_AUTH_SEND) {
            // Authentication Send: TL bytes of the host's message (sta-main refuses a TL out of range).
            long tl = cmd.cdw11() & 0xffffffffL;
            int len = (int) Math.min(Math.min(cmd.sglLength(), tl), NvmfAuthentication.MAX_SEND);
            if (payload != null && payloadLen >= len && len > 0) {
                c.data = NvmfReservations.copyData(payload, len);
            } else if (!payloadValid && len > 0) {
                fetchData(qp, c, len);
                return;
            }
        }
        if (NvmfReservations.isReservationCommand(cmd.opcode()) && NvmeOpcode.hostToController(cmd.opcode())) {
            int len = (int) Math.min(cmd.sglLength(), RESERVATION_DATA_MAX);
            if (payload != null && payloadLen >= len) {
                c.data = NvmfReservations.copyData(payload, len);
            } else if (!payloadValid && len > 0) {
                fetchData(qp, c, len);
                return;
            }
        }
        forward(c);
    }

    /** The longest reservation command data (Register and Acquire: two 8-byte keys). */
    private static final int RESERVATION_DATA_MAX = 16;

    /** Connect data not in the capsule: fetched from the host (non-offload read), then forwarded. IO thread. */
    private void fetchConnectData(StaQp qp, NvmfAdminCommand c) {
        fetchData(qp, c, FabricsConnectCommand.DATA_LEN);
    }

    /** Command data not in the capsule ({@code len} bytes): fetched from the host, then forwarded. IO thread. */
    private void fetchData(StaQp qp, NvmfAdminCommand c, int len) {
        StaIo io = qp.io();
        MemorySegment buf = Arena.ofAuto().allocate(len);
        StaIoTaskNonOffloadRead t = io.taskNonOffloadReadAllocInit(qp, c.cid(), buf, 0, len, 0);
        if (t == null) {
            NvmfAdminCommand.send(io, qp, c.cid(), NvmeStatus.INTERNAL_ERROR, 0, 0);
            return;
        }
        LOG.debug("{}: fetching {} bytes of command {} from the host", qp, len, c.cid());
        // Run by the read task's completion on this IO thread (see NvmfTarget's read task conf).
        t.setUserObject((Runnable) () -> {
            LOG.debug("{}: fetched the data of command {}", qp, c.cid());
            c.data = buf;
            forward(c);
        });
        if (t.submit() != DocaError.SUCCESS) {
            t.free();
            NvmfAdminCommand.send(io, qp, c.cid(), NvmeStatus.INTERNAL_ERROR, 0, 0);
        }
    }

    private void forward(NvmfAdminCommand c) {
        if (!main.offerAdmin(c)) {
            LOG.warn("{}: sta-main's admin queue is full: command {} answered Command Interrupted", c.qp, c.cid());
            NvmfAdminCommand.send(c.qp.io(), c.qp, c.cid(), NvmeStatus.COMMAND_INTERRUPTED, 0, 0);
        }
    }

    @Override
    public void onTransportError(StaQp qp, String operation, DocaError why, int detail) {
        String reason = operation + ": " + why + (detail != 0 ? " FES " + detail : "");
        if (!main.offerAdmin(NvmfAdminCommand.gone(qp, reason))) {
            LOG.error("{} closed ({}) but sta-main's admin queue is full: its controller waits for keep-alive",
                    qp, reason);
        }
    }
}
