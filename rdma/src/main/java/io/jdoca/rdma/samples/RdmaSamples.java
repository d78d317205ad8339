package io.jdoca.rdma.samples;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.exec.Task;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.sync.SyncEvent;
import io.jdoca.rdma.RdmaOpcode;
import io.jdoca.rdma.RdmaTaskReceive;
import io.jdoca.rdma.SyncEventRemoteNet;
import io.jdoca.rdma.samples.RdmaSampleRuntime.SampleException;
import java.io.PrintStream;
import java.lang.foreign.ValueLayout;

/**
 * DOCA's RDMA samples (doca-rdma "Samples"), each pair an app of the same name: read, write and write-immediate
 * requester/responder, send/receive, send-immediate/receive-immediate, and the remote sync event requester and
 * responder. Each follows the seed's General Sample Steps on an {@link RdmaSampleRuntime}, prints what it
 * transferred, verifies it, and returns 0 only when it did. Descriptors are exchanged by files ({@code -ld},
 * {@code -re}, {@code -m}) or, with {@code -cm}, the connection through the CM (the responder/receiver listens).
 * What DOCA leaves to the user, jdoca does itself: a responder that only exposes memory (read, write) ends when the
 * requester closes the connection, instead of waiting for a key press. On verbs with descriptor files a read
 * responder's context grants only RDMA_READ, so its queue pair refuses the requester's goodbye write: it ends when
 * the requester's process exits (same host) or at {@code --timeout}; with {@code -cm} at the requester's disconnect.
 *
 * <p>Thread rules: one sample per thread; each call creates and frees everything it uses.
 */
public enum RdmaSamples {
    READ_REQUESTER("rdma-read-requester", "reads the responder's buffer with an RDMA read task"),
    READ_RESPONDER("rdma-read-responder", "exports a buffer holding -r STRING for the requester to read"),
    WRITE_REQUESTER("rdma-write-requester", "writes -w STRING into the responder's buffer with an RDMA write task"),
    WRITE_RESPONDER("rdma-write-responder", "exports a buffer for the requester to write, prints it when it is done"),
    WRITE_IMMEDIATE_REQUESTER("rdma-write-immediate-requester",
            "writes -w STRING into the responder's buffer with an immediate value"),
    WRITE_IMMEDIATE_RESPONDER("rdma-write-immediate-responder",
            "exports a buffer, receives the requester's write-with-immediate notice and prints both"),
    SEND("rdma-send", "sends -s STRING in a message"),
    RECEIVE("rdma-receive", "receives a message and prints it"),
    SEND_IMMEDIATE("rdma-send-immediate", "sends -s STRING with an immediate value"),
    RECEIVE_IMMEDIATE("rdma-receive-immediate", "receives a message with an immediate value and prints both"),
    SYNC_EVENT_REQUESTER("rdma-sync-event-requester",
            "signals the responder's exported sync event, waits for its answer, signals completion"),
    SYNC_EVENT_RESPONDER("rdma-sync-event-responder",
            "exports a sync event, waits for the requester's signal, answers, waits for completion");

    /** The immediate value the immediate samples carry. */
    public static final int IMMEDIATE = 0x00d0ca01;

    private final String app;
    private final String summary;

    RdmaSamples(String app, String summary) {
        this.app = app;
        this.summary = summary;
    }

    /** The app name ({@code ./jdoca <app>}), DOCA's sample name with dashes. */
    public String app() {
        return app;
    }

    public String summary() {
        return summary;
    }

    /** Whether this side waits for the peer in CM mode (responders and receivers listen). */
    public boolean listens() {
        return switch (this) {
            case READ_RESPONDER, WRITE_RESPONDER, WRITE_IMMEDIATE_RESPONDER, RECEIVE, RECEIVE_IMMEDIATE,
                    SYNC_EVENT_RESPONDER -> true;
            default -> false;
        };
    }

    /** Runs the sample; {@code text} is its -r/-w/-s string (ignored by the others). Returns the exit status. */
    public int run(RdmaSampleRuntime.Options o, String text, PrintStream out) {
        String s = text == null ? RdmaSampleRuntime.Options.DEFAULT_STRING : text;
        if (s.length() >= RdmaSampleRuntime.BUF_SIZE) {
            out.println(app + ": the string is longer than the sample's buffer (" + RdmaSampleRuntime.BUF_SIZE + ")");
            return 2;
        }
        try {
            return switch (this) {
                case READ_REQUESTER -> readRequester(o, out);
                case READ_RESPONDER -> exposer(o, out, s, AccessFlags.RDMA_READ);
                case WRITE_REQUESTER -> writeRequester(o, out, s, false);
                case WRITE_RESPONDER -> exposer(o, out, null, AccessFlags.RDMA_WRITE);
                case WRITE_IMMEDIATE_REQUESTER -> writeRequester(o, out, s, true);
                case WRITE_IMMEDIATE_RESPONDER -> receiver(o, out, true, true);
                case SEND -> sender(o, out, s, false);
                case RECEIVE -> receiver(o, out, false, false);
                case SEND_IMMEDIATE -> sender(o, out, s, true);
                case RECEIVE_IMMEDIATE -> receiver(o, out, true, false);
                case SYNC_EVENT_REQUESTER -> syncEventRequester(o, out);
                case SYNC_EVENT_RESPONDER -> syncEventResponder(o, out);
            };
        } catch (SampleException | io.jdoca.core.DocaException e) {
            out.println(app + ": " + e.getMessage());
            return 1;
        }
    }

    /** One task's outcome: its status, recorded by the completion callbacks. */
    private static final class Outcome {
        DocaError status;
        long len;
        RdmaOpcode opcode;
        int immediate;

        void done(Task t) {
            status = t.status();
        }
    }

    private static final int FULL = AccessFlags.LOCAL_READ_WRITE | AccessFlags.ANY_RDMA;

    /** Read requester: reads the responder's exported buffer (-m) and verifies it is a string. */
    private int readRequester(RdmaSampleRuntime.Options o, PrintStream out) {
        Outcome r = new Outcome();
        try (RdmaSampleRuntime rt = new RdmaSampleRuntime(o, out, RdmaSampleRuntime.LOCAL, RdmaSampleRuntime.LOCAL)) {
            RdmaSampleRuntime.check("doca_rdma_task_read_set_conf", rt.rdma.taskReadSetConf((t, ud, cud) -> {
                r.done(t);
                t.free();
            }, (t, ud, cud) -> {
                r.done(t);
                t.free();
            }, 1));
            rt.start(listens());
            MemoryMap remote = MemoryMap.createFromExport(rt.readMmapDescriptor(), rt.dev);
            long len = Math.min(remote.length(), RdmaSampleRuntime.BUF_SIZE);
            Buf src = rt.inv.getByData(remote, remote.baseAddress(), len);
            Buf dst = rt.buf(0, RdmaSampleRuntime.BUF_SIZE, 0);
            RdmaSampleRuntime.check("doca_task_submit", rt.rdma.taskReadAllocInit(rt.conn, src, dst, 0).submit());
            rt.progressUntil(() -> r.status != null, "the read task");
            if (r.status != DocaError.SUCCESS) {
                out.println(app + ": the read task failed: " + r.status.description());
                return 1;
            }
            String got = rt.getString(0, RdmaSampleRuntime.BUF_SIZE);
            if (got.isEmpty() || got.length() == RdmaSampleRuntime.BUF_SIZE) {
                out.println(app + ": the remote buffer holds no string");
                return 1;
            }
            out.println("Remote buffer content: " + got);
            return 0;
        }
    }

    /**
     * Read and write responders: export a buffer (holding {@code text} for a read, empty for a write) with
     * {@code access}, wait until the requester closes the connection, and (write) print what it wrote.
     */
    private int exposer(RdmaSampleRuntime.Options o, PrintStream out, String text, int access) {
        try (RdmaSampleRuntime rt = new RdmaSampleRuntime(o, out, AccessFlags.LOCAL_READ_WRITE | access,
                AccessFlags.LOCAL_READ_WRITE | access)) {
            if (text != null) {
                rt.putString(0, text);
            }
            rt.writeMmapDescriptor(rt.map.exportRdma(rt.dev));
            rt.start(listens());
            out.println(text != null ? "Exported buffer holding: " + text : "Waiting for the requester to write");
            rt.awaitPeerDone("the requester to finish and disconnect");
            if (text == null) {
                String got = rt.getString(0, RdmaSampleRuntime.BUF_SIZE);
                if (got.isEmpty()) {
                    out.println(app + ": the requester wrote nothing");
                    return 1;
                }
                out.println("Requester has written: " + got);
            } else {
                out.println("The requester has finished");
            }
            return 0;
        }
    }

    /** Write (and write-immediate) requester: writes {@code text} into the responder's exported buffer (-m). */
    private int writeRequester(RdmaSampleRuntime.Options o, PrintStream out, String text, boolean imm) {
        Outcome r = new Outcome();
        try (RdmaSampleRuntime rt = new RdmaSampleRuntime(o, out, RdmaSampleRuntime.LOCAL, RdmaSampleRuntime.LOCAL)) {
            rt.tolerateSlowReceiver();
            if (imm) {
                RdmaSampleRuntime.check("doca_rdma_task_write_imm_set_conf", rt.rdma.taskWriteImmSetConf(
                        (t, ud, cud) -> {
                            r.done(t);
                            t.free();
                        }, (t, ud, cud) -> {
                            r.done(t);
                            t.free();
                        }, 1));
            } else {
                RdmaSampleRuntime.check("doca_rdma_task_write_set_conf", rt.rdma.taskWriteSetConf((t, ud, cud) -> {
                    r.done(t);
                    t.free();
                }, (t, ud, cud) -> {
                    r.done(t);
                    t.free();
                }, 1));
            }
            rt.start(listens());
            MemoryMap remote = MemoryMap.createFromExport(rt.readMmapDescriptor(), rt.dev);
            int n = rt.putString(0, text);
            Buf src = rt.buf(0, RdmaSampleRuntime.BUF_SIZE, n);
            Buf dst = rt.inv.getByAddr(remote, remote.baseAddress(), Math.min(remote.length(),
                    RdmaSampleRuntime.BUF_SIZE));
            DocaError e = imm ? rt.rdma.taskWriteImmAllocInit(rt.conn, src, dst, IMMEDIATE, 0).submit()
                    : rt.rdma.taskWriteAllocInit(rt.conn, src, dst, 0).submit();
            RdmaSampleRuntime.check("doca_task_submit", e);
            rt.progressUntil(() -> r.status != null, "the write task");
            if (r.status != DocaError.SUCCESS) {
                out.println(app + ": the write task failed: " + r.status.description());
                return 1;
            }
            out.println("Written to responder: " + text + (imm ? " (immediate 0x" + Integer.toHexString(IMMEDIATE)
                    + ")" : ""));
            return 0;
        }
    }

    /** Send (and send-immediate): sends {@code text} in one message. */
    private int sender(RdmaSampleRuntime.Options o, PrintStream out, String text, boolean imm) {
        Outcome r = new Outcome();
        try (RdmaSampleRuntime rt = new RdmaSampleRuntime(o, out, RdmaSampleRuntime.LOCAL, RdmaSampleRuntime.LOCAL)) {
            rt.tolerateSlowReceiver();
            if (imm) {
                RdmaSampleRuntime.check("doca_rdma_task_send_imm_set_conf", rt.rdma.taskSendImmSetConf(
                        (t, ud, cud) -> {
                            r.done(t);
                            t.free();
                        }, (t, ud, cud) -> {
                            r.done(t);
                            t.free();
                        }, 1));
            } else {
                RdmaSampleRuntime.check("doca_rdma_task_send_set_conf", rt.rdma.taskSendSetConf((t, ud, cud) -> {
                    r.done(t);
                    t.free();
                }, (t, ud, cud) -> {
                    r.done(t);
                    t.free();
                }, 1));
            }
            rt.start(listens());
            int n = rt.putString(0, text);
            out.println("Sending: " + text + (imm ? " (immediate 0x" + Integer.toHexString(IMMEDIATE) + ")" : ""));
            Buf src = rt.buf(0, RdmaSampleRuntime.BUF_SIZE, n);
            DocaError e = imm ? rt.rdma.taskSendImmAllocInit(rt.conn, src, IMMEDIATE, 0).submit()
                    : rt.rdma.taskSendAllocInit(rt.conn, src, 0).submit();
            RdmaSampleRuntime.check("doca_task_submit", e);
            rt.progressUntil(() -> r.status != null, "the send task");
            if (r.status != DocaError.SUCCESS) {
                out.println(app + ": the send task failed: " + r.status.description());
                return 1;
            }
            out.println("Sent");
            return 0;
        }
    }

    /**
     * Receive, receive-immediate and write-immediate responder: posts a receive before connecting (a message
     * without one fails the peer), and checks the completion's opcode and immediate; the write-immediate
     * responder exports its buffer and prints what the write left there.
     */
    private int receiver(RdmaSampleRuntime.Options o, PrintStream out, boolean imm, boolean write) {
        Outcome r = new Outcome();
        int perms = AccessFlags.LOCAL_READ_WRITE | (write ? AccessFlags.RDMA_WRITE : 0);
        try (RdmaSampleRuntime rt = new RdmaSampleRuntime(o, out, perms, perms)) {
            RdmaSampleRuntime.check("doca_rdma_task_receive_set_conf", rt.rdma.taskReceiveSetConf((t, ud, cud) -> {
                r.done(t);
                r.len = t.resultLen();
                r.opcode = t.resultOpcode();
                r.immediate = t.resultImmediate();
                t.free();
            }, (t, ud, cud) -> {
                r.done(t);
                t.free();
            }, 1));
            if (write) {
                rt.writeMmapDescriptor(rt.map.exportRdma(rt.dev));
            }
            // the receive goes to the second half of the memory; a write lands in the first
            Buf dst = rt.buf(write ? RdmaSampleRuntime.BUF_SIZE : 0, RdmaSampleRuntime.BUF_SIZE, 0);
            // posted as soon as the context runs: a message that finds no receive fails the peer (DOCA's rule)
            rt.start(listens(), () -> {
                RdmaTaskReceive task = rt.rdma.taskReceiveAllocInit(dst, 0);
                if (task == null) {
                    throw new SampleException("no receive task to allocate");
                }
                RdmaSampleRuntime.check("doca_task_submit", task.submit());
            });
            rt.progressUntil(() -> r.status != null, "the peer's message");
            if (r.status != DocaError.SUCCESS) {
                out.println(app + ": the receive task failed: " + r.status.description());
                return 1;
            }
            RdmaOpcode want = write ? RdmaOpcode.WRITE_WITH_IMM : imm ? RdmaOpcode.SEND_WITH_IMM : RdmaOpcode.SEND;
            if (r.opcode != want) {
                out.println(app + ": expected " + want + ", received " + r.opcode);
                return 1;
            }
            String got = rt.getString(0, RdmaSampleRuntime.BUF_SIZE);
            if (got.isEmpty()) {
                out.println(app + ": the message holds no string");
                return 1;
            }
            out.println((write ? "Requester has written: " : "Received message: ") + got
                    + (imm ? " (immediate 0x" + Integer.toHexString(r.immediate) + ")" : ""));
            if (imm && r.immediate != IMMEDIATE) {
                out.println(app + ": unexpected immediate 0x" + Integer.toHexString(r.immediate));
                return 1;
            }
            return 0;
        }
    }

    /** The values the sync-event pair steps through (requester sets 1, responder 2, requester 3 to finish). */
    static final long SE_SIGNAL = 1;
    static final long SE_ANSWER = 2;
    static final long SE_DONE = 3;

    /**
     * Sync event requester: creates the remote handle from the responder's exported event (-m), notifies it
     * (set 1), reads it with get tasks until the responder answered (2), then notifies completion (set 3).
     */
    private int syncEventRequester(RdmaSampleRuntime.Options o, PrintStream out) {
        Outcome r = new Outcome();
        try (RdmaSampleRuntime rt = new RdmaSampleRuntime(o, out, RdmaSampleRuntime.LOCAL, RdmaSampleRuntime.LOCAL)) {
            RdmaSampleRuntime.check("doca_rdma_task_remote_net_sync_event_notify_set_set_conf",
                    rt.rdma.taskRemoteNetSyncEventNotifySetSetConf((t, ud, cud) -> {
                        r.done(t);
                        t.free();
                    }, (t, ud, cud) -> {
                        r.done(t);
                        t.free();
                    }, 1));
            RdmaSampleRuntime.check("doca_rdma_task_remote_net_sync_event_get_set_conf",
                    rt.rdma.taskRemoteNetSyncEventGetSetConf((t, ud, cud) -> {
                        r.done(t);
                        t.free();
                    }, (t, ud, cud) -> {
                        r.done(t);
                        t.free();
                    }, 1));
            rt.start(listens());
            try (SyncEventRemoteNet ev = SyncEventRemoteNet.createFromExport(rt.readMmapDescriptor(), rt.dev)) {
                if (!notifySet(rt, ev, r, SE_SIGNAL)) {
                    return 1;
                }
                out.println("Notified the remote sync event: " + SE_SIGNAL);
                long seen;
                Buf dst = rt.buf(64, 8, 0);
                do {
                    r.status = null;
                    dst.resetDataLen(); // each get appends the value
                    RdmaSampleRuntime.check("doca_task_submit",
                            rt.rdma.taskRemoteNetSyncEventGetAllocInit(rt.conn, ev, dst, 0).submit());
                    rt.progressUntil(() -> r.status != null, "the sync event get task");
                    if (r.status != DocaError.SUCCESS) {
                        out.println(app + ": the get task failed: " + r.status.description());
                        return 1;
                    }
                    seen = rt.region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 64);
                } while (seen < SE_ANSWER);
                out.println("The responder answered: " + seen);
                if (!notifySet(rt, ev, r, SE_DONE)) {
                    return 1;
                }
                out.println("Notified completion: " + SE_DONE);
                return 0;
            }
        }
    }

    private boolean notifySet(RdmaSampleRuntime rt, SyncEventRemoteNet ev, Outcome r, long value) {
        r.status = null;
        rt.region.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        Buf src = rt.buf(0, 8, 8);
        RdmaSampleRuntime.check("doca_task_submit",
                rt.rdma.taskRemoteNetSyncEventNotifySetAllocInit(rt.conn, ev, src, 0).submit());
        rt.progressUntil(() -> r.status != null, "the sync event notify-set task");
        if (r.status != DocaError.SUCCESS) {
            rt.out.println(app + ": the notify-set task failed: " + r.status.description());
            return false;
        }
        return true;
    }

    /**
     * Sync event responder: a local sync event (published by the remote net, subscribed by the CPU) exported to
     * the -m file; waits for the requester's signal (1), answers locally (2), waits for completion (3).
     */
    private int syncEventResponder(RdmaSampleRuntime.Options o, PrintStream out) {
        try (RdmaSampleRuntime rt = new RdmaSampleRuntime(o, out, RdmaSampleRuntime.LOCAL, FULL);
                SyncEvent ev = SyncEvent.create()) {
            RdmaSampleRuntime.check("doca_sync_event_add_publisher_location_cpu", ev.addPublisherLocationCpu(rt.dev));
            RdmaSampleRuntime.check("doca_sync_event_add_subscriber_location_remote_net",
                    ev.addSubscriberLocationRemoteNet());
            RdmaSampleRuntime.check("doca_sync_event_start", ev.start());
            rt.writeMmapDescriptor(ev.exportToRemoteNet());
            rt.start(listens());
            rt.progressUntil(() -> ev.get() >= SE_SIGNAL, "the requester's signal");
            out.println("The requester signalled: " + ev.get());
            ev.updateSet(SE_ANSWER);
            rt.progressUntil(() -> ev.get() >= SE_DONE, "the requester's completion");
            out.println("The requester completed: " + ev.get());
            return 0;
        }
    }
}
