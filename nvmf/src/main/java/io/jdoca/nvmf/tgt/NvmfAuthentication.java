package io.jdoca.nvmf.tgt;

import io.jdoca.nvmf.auth.AuthMessage;
import io.jdoca.nvmf.auth.DhchapController;
import io.jdoca.nvmf.auth.DhchapPolicy;
import io.jdoca.nvmf.auth.DhchapState;
import io.jdoca.sta.StaQp;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeStatus;
import java.lang.foreign.ValueLayout;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * In-band authentication of queues (NVMe Base 2.0 §8.13, DH-HMAC-CHAP; SPDK's {@code lib/nvmf/auth.c},
 * Linux's {@code fabrics-cmd-auth.c}): a host given a DH-HMAC-CHAP key on a subsystem
 * ({@code nvmf_subsystem_add_host --dhchap-key}) must authenticate every queue it connects: the
 * Connect answer sets AUTHREQ.ATR, the queue runs one {@link DhchapController} transaction through
 * Authentication Send / Receive, and until it succeeds the admin queue answers every other command
 * Authentication Required and an I/O queue is not bound to the subsystem (its engine executes
 * nothing). A failed transaction leaves the queue unusable; the host tears it down.
 *
 * <p>Re-authentication (NVMe Base 2.0 §8.13, as Linux's host does when its secret changes in sysfs, and after
 * {@code nvmf_subsystem_set_keys}): an authenticated queue of a host that still has a key may start a new
 * transaction with AUTH_Negotiate at any time; the queue keeps working meanwhile. If that transaction fails the
 * host has not proved it holds the current key, and the whole controller is torn down (its queues disconnected):
 * the host's recovery then connects anew and must authenticate before anything runs. An AUTH_Negotiate on a queue
 * whose transaction is unfinished (a host that gave up on a step and starts over) begins a fresh transaction, as
 * Linux's nvmet does.
 *
 * <p>Threads: {@code sta-main} only (part of {@link AdminHandler}).
 */
final class NvmfAuthentication {
    private static final Logger LOG = LoggerFactory.getLogger(NvmfAuthentication.class);
    /** Authentication Required (NVMe-oF 1.1 figure 18, command specific 91h). */
    static final int AUTH_REQUIRED = NvmeStatus.of(NvmeStatus.SCT_COMMAND_SPECIFIC, 0x91, true);
    /** AUTHREQ.ATR in the Connect answer's DW0 (bit 17): an authentication transaction is required. */
    static final int CONNECT_ATR = 1 << 17;
    /** The longest message a host sends (Reply with an ffdhe8192 value: 1024 bytes, plus header and response). */
    static final int MAX_SEND = 4096;

    private final AdminHandler admin;
    /** Tears a controller down with a reason (its queues disconnected): a failed re-authentication. */
    private final java.util.function.BiConsumer<NvmfController, String> teardown;
    private final java.util.function.Supplier<NvmfKeyring> keyring;
    private final java.util.function.Supplier<DhchapPolicy> policy;
    /** Queues that must authenticate and have not yet: their transaction (null until AUTH_Negotiate). */
    private final Map<StaQp, DhchapController> pending = new IdentityHashMap<>();
    private final Set<StaQp> waiting = Collections.newSetFromMap(new IdentityHashMap<>());
    /** What to do once an I/O queue authenticated (bind it to the subsystem). */
    private final Map<StaQp, Runnable> onSuccess = new IdentityHashMap<>();

    NvmfAuthentication(AdminHandler admin, java.util.function.BiConsumer<NvmfController, String> teardown,
                       java.util.function.Supplier<NvmfKeyring> keyring,
                       java.util.function.Supplier<DhchapPolicy> policy) {
        this.admin = admin;
        this.teardown = teardown;
        this.keyring = keyring;
        this.policy = policy;
    }

    /** Whether {@code host} must authenticate on {@code s} (it was given a DH-HMAC-CHAP key). */
    boolean required(NvmfSubsystem s, String host) {
        return !s.isDiscovery() && s.hostKeys(host) != null;
    }

    /** {@code qp} connected and must authenticate; {@code then} runs once it did (null: nothing more). */
    void expect(StaQp qp, Runnable then) {
        waiting.add(qp);
        if (then != null) {
            onSuccess.put(qp, then);
        }
    }

    /** Whether {@code qp} still has to authenticate before anything else. */
    boolean blocks(StaQp qp) {
        return waiting.contains(qp);
    }

    void qpGone(StaQp qp) {
        waiting.remove(qp);
        onSuccess.remove(qp);
        DhchapController t = pending.remove(qp);
        if (t != null) {
            t.close();
        }
    }

    /** Authentication Send: the host's next message of the transaction on {@code c}'s queue. */
    void send(NvmfAdminCommand c, NvmfController ctrl) {
        NvmeCommand cmd = c.sqe;
        int tl = cmd.cdw11();
        if (!protocolOk(cmd.cdw10()) || tl <= 0 || tl > MAX_SEND) {
            admin.reply(c, NvmeStatus.INVALID_FIELD, 0, 0);
            return;
        }
        if (!waiting.contains(c.qp) && !pending.containsKey(c.qp) && !required(ctrl.subsystem(), ctrl.hostNqn())) {
            // Nothing to authenticate: a host without a key (or whose key was removed) has no transaction to run.
            admin.reply(c, NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0);
            return;
        }
        if (c.data == null || c.data.byteSize() < tl) {
            admin.reply(c, NvmeStatus.DATA_SGL_LENGTH_INVALID, 0, 0);
            return;
        }
        DhchapController t = pending.get(c.qp);
        if (t != null && t.state() != DhchapState.IDLE && isNegotiate(c.data)) {
            pending.remove(c.qp); // the host starts over: a fresh transaction (see the class comment)
            t.close();
            t = null;
        }
        if (t == null) {
            NvmfSubsystem.HostKeys hk = ctrl.subsystem().hostKeys(ctrl.hostNqn());
            NvmfKeyring.Key hostKey = hk == null ? null : keyring.get().get(hk.dhchapKey());
            if (hostKey == null) {
                LOG.warn("{}: host {} must authenticate but its key {} is gone from the keyring", ctrl,
                        ctrl.hostNqn(), hk == null ? "-" : hk.dhchapKey());
                admin.reply(c, NvmeStatus.INTERNAL_ERROR, 0, 0);
                return;
            }
            NvmfKeyring.Key ctrlKey = keyring.get().get(hk.ctrlrKey());
            t = new DhchapController(ctrl.hostNqn(), ctrl.subsystem().nqn(), hostKey.dhchap(),
                    ctrlKey == null ? null : ctrlKey.dhchap(), policy.get());
            pending.put(c.qp, t);
        }
        DhchapState st = t.send(c.data.asSlice(0, tl).toArray(ValueLayout.JAVA_BYTE));
        LOG.debug("{}: queue {} Authentication Send, {} bytes: {}", ctrl, c.qid, tl, st);
        boolean failed = st == DhchapState.FAILED && !t.messageDue();
        if (st == DhchapState.DONE) {
            succeeded(c.qp, ctrl, t);
        } else if (failed) {
            LOG.warn("{}: host {} refused the controller's authentication on queue {}: {}", ctrl, ctrl.hostNqn(),
                    c.qid, t.result().failure());
            pending.remove(c.qp);
            t.close();
        }
        admin.reply(c, NvmeStatus.SUCCESS, 0, 0);
        if (failed) {
            failedAgain(c.qp, ctrl);
        }
    }

    /** Authentication Receive: the controller's next message (Challenge, Success1 or Failure1). */
    void receive(NvmfAdminCommand c, NvmfController ctrl) {
        NvmeCommand cmd = c.sqe;
        int al = cmd.cdw11();
        DhchapController t = pending.get(c.qp);
        if (!protocolOk(cmd.cdw10()) || al <= 0) {
            admin.reply(c, NvmeStatus.INVALID_FIELD, 0, 0);
            return;
        }
        if (t == null || !t.messageDue()) {
            admin.reply(c, NvmeStatus.COMMAND_SEQUENCE_ERROR, 0, 0);
            return;
        }
        byte[] m = t.receive();
        LOG.debug("{}: queue {} Authentication Receive, {} of {} bytes: {}", ctrl, c.qid, m.length, al, t.state());
        if (t.state() == DhchapState.DONE) {
            succeeded(c.qp, ctrl, t);
        } else if (t.state() == DhchapState.FAILED) {
            LOG.warn("{}: host {} failed authentication on queue {}: {}", ctrl, ctrl.hostNqn(), c.qid,
                    t.result().failure());
            pending.remove(c.qp);
            t.close();
        }
        admin.replyData(c, m, (int) Math.min(Math.min(al, m.length), cmd.sglLength()));
        if (t.state() == DhchapState.FAILED) {
            failedAgain(c.qp, ctrl); // after the AUTH_Failure1 is on its way
        }
    }

    private void succeeded(StaQp qp, NvmfController ctrl, DhchapController t) {
        boolean first = waiting.remove(qp);
        LOG.info("{}: queue {} {} ({}, {}{})", ctrl, qp.qid(), first ? "authenticated" : "re-authenticated",
                t.result().hash(), t.result().dhGroup(), t.result().bidirectional() ? ", bidirectional" : "");
        pending.remove(qp);
        t.close();
        Runnable then = first ? onSuccess.remove(qp) : null;
        if (then != null) {
            then.run();
        }
    }

    /** A failed transaction on a queue that had authenticated before: the controller goes (class comment). */
    private void failedAgain(StaQp qp, NvmfController ctrl) {
        if (!waiting.contains(qp)) {
            teardown.accept(ctrl, "re-authentication failed on queue " + qp.qid());
        }
    }

    /** Whether the host's message (Authentication Send data) is an AUTH_Negotiate. */
    private static boolean isNegotiate(java.lang.foreign.MemorySegment data) {
        return data.byteSize() >= AuthMessage.HEADER_LENGTH
                && data.get(ValueLayout.JAVA_BYTE, 0) == AuthMessage.TYPE_COMMON
                && data.get(ValueLayout.JAVA_BYTE, 1) == AuthMessage.ID_NEGOTIATE;
    }

    /** SECP E9h (NVMe), SPSP0 01h, SPSP1 01h (DH-HMAC-CHAP), as the Auth Send/Receive CDW10 carries them. */
    private static boolean protocolOk(int cdw10) {
        int spsp0 = (cdw10 >>> 8) & 0xff;
        int spsp1 = (cdw10 >>> 16) & 0xff;
        int secp = cdw10 >>> 24;
        return secp == AuthMessage.SECP_NVME && spsp0 == 1 && spsp1 == 1;
    }
}
