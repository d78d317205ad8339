package io.jdoca.nvmf.auth;

import java.nio.ByteBuffer;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's side of one DH-HMAC-CHAP authentication transaction on one queue pair (NVMe Base 2.0 §8.13,
 * TP 8006; Base 2.1 §8.3.4): it consumes the host's messages (the data of Authentication Send) and produces
 * its own (the data of Authentication Receive), moving through {@link DhchapState} by the transitions listed
 * there. Sockets and commands are the integrator's: per Authentication Send (SECP E9h, SPSP0 = SPSP1 = 01h, TL
 * not 0, checked by the caller) call {@link #send}, per Authentication Receive call {@link #receive} and return
 * at most AL bytes of it; complete both commands successfully, the outcome travels in the messages. Once
 * {@link DhchapState#FAILED} and no message is due ({@link #messageDue()}), disconnect, as the spec requires
 * after AUTH_Failure1 or AUTH_Failure2. A host that re-authenticates later starts with a new AUTH_Negotiate:
 * give it a new controller (one instance is one transaction; a Negotiate to a finished one answers
 * "incorrect protocol message"). The transaction timeout (KATO, else two minutes) is the integrator's too:
 * {@link #abort}.
 *
 * <p>Rules where the spec leaves room, following SPDK's target unless said otherwise: message lengths must be
 * exact; a message of the wrong kind or out of order answers AUTH_Failure1 "incorrect protocol message" and a
 * wrong length, field value or T_ID "incorrect payload"; SC_C other than 00h (secure channel concatenation,
 * not supported) answers "secure channel concatenation mismatch"; a host DH value that is not a usable group
 * element answers "DH group not usable" (as Linux); the hash and DH group are the first of the {@link
 * DhchapPolicy} the host also offers; a Reply asking for bidirectional authentication without a configured
 * controller key, or whose C2 repeats C1, answers "authentication failed". Responses are compared in constant
 * time. The session key Ks = H(g^xy mod p) of a successful transaction with a DH group is kept for a later
 * secure channel ({@link #sessionKey()}) until {@link #close()}.
 *
 * <p>No secret reaches a log, an exception or {@link #toString()}: failures are logged (INFO) with the NQNs and
 * the reason only. Not thread-safe: confined to its queue pair, one call at a time (the host has at most one
 * authentication command outstanding); the caller's command dispatch provides the happens-before between calls.
 */
public final class DhchapController implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DhchapController.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String hostNqn;
    private final String subsystemNqn;
    private final DhchapKey hostKey;
    private final DhchapKey controllerKey;
    private final DhchapPolicy policy;
    private final DhchapSequence sequence;
    private final SecureRandom random;

    private final AuthNegotiate negotiate = new AuthNegotiate();
    private final DhchapReply reply = new DhchapReply();
    private final DhchapSuccess2 success2 = new DhchapSuccess2();
    private final AuthFailure failure2 = new AuthFailure();

    private DhchapState state = DhchapState.IDLE;
    private int transactionId;
    private int secureChannel;
    private DhchapHash hash;
    private DhchapDhGroup dhGroup;
    private boolean bidirectional;
    private KeyPair dhPair;
    private int s1;
    private byte[] c1;
    private byte[] r2;
    private byte[] sessionKey;
    /** The explanation of the AUTH_Failure1 the next receive returns; {@code null}: none due. */
    private AuthFailureReason pendingFailure;
    private DhchapResult.Failure failure;

    /**
     * A controller for the host {@code hostNqn} connecting to subsystem {@code subsystemNqn}, drawing sequence
     * numbers from {@link DhchapSequence#shared()}.
     *
     * @param hostKey       the host's DH-HMAC-CHAP key, which the host's response R1 must prove
     * @param controllerKey the controller's key for bidirectional authentication, {@code null} without one
     * @param policy        the accepted hashes and DH groups, in order of preference
     */
    public DhchapController(String hostNqn, String subsystemNqn, DhchapKey hostKey, DhchapKey controllerKey,
            DhchapPolicy policy) {
        this(hostNqn, subsystemNqn, hostKey, controllerKey, policy, DhchapSequence.shared(), RANDOM);
    }

    /** As the other constructor, with the sequence numbers and the random source (challenges, DH exponents). */
    public DhchapController(String hostNqn, String subsystemNqn, DhchapKey hostKey, DhchapKey controllerKey,
            DhchapPolicy policy, DhchapSequence sequence, SecureRandom random) {
        this.hostNqn = Objects.requireNonNull(hostNqn, "hostNqn");
        this.subsystemNqn = Objects.requireNonNull(subsystemNqn, "subsystemNqn");
        this.hostKey = Objects.requireNonNull(hostKey, "hostKey");
        this.controllerKey = controllerKey;
        this.policy = Objects.requireNonNull(policy, "policy");
        this.sequence = Objects.requireNonNull(sequence, "sequence");
        this.random = Objects.requireNonNull(random, "random");
    }

    /** {@link #send(ByteBuffer)} of all of {@code message}. */
    public DhchapState send(byte[] message) {
        return send(ByteBuffer.wrap(message));
    }

    /**
     * Consumes a host message, the data of an Authentication Send: {@code message}'s bytes from its position
     * to its limit (the buffer's position is not moved). Never throws for any bytes: a message the controller
     * refuses moves it to {@link DhchapState#FAILED} with an AUTH_Failure1 due.
     *
     * @return the state afterwards
     */
    public DhchapState send(ByteBuffer message) {
        negotiate.wrap(message);
        if (negotiate.length() < AuthMessage.HEADER_LENGTH) {
            return fail(AuthFailureReason.INCORRECT_PAYLOAD, "a message of " + negotiate.length()
                    + " bytes, shorter than the header");
        }
        int type = negotiate.authType();
        int id = negotiate.authId();
        switch (state) {
            case IDLE -> {
                if (type == AuthMessage.TYPE_COMMON && id == AuthMessage.ID_NEGOTIATE) {
                    return onNegotiate();
                }
            }
            case CHALLENGED -> {
                if (type == AuthMessage.TYPE_DHCHAP && id == AuthMessage.ID_REPLY) {
                    return onReply(message);
                }
            }
            case AWAIT_SUCCESS2 -> {
                if (type == AuthMessage.TYPE_DHCHAP && id == AuthMessage.ID_SUCCESS2) {
                    return onSuccess2(message);
                }
                if (type == AuthMessage.TYPE_COMMON && id == AuthMessage.ID_FAILURE2) {
                    return onFailure2(message);
                }
            }
            default -> {
                // NEGOTIATED and REPLIED owe the host a message first; DONE and FAILED are over.
            }
        }
        return fail(AuthFailureReason.INCORRECT_PROTOCOL_MESSAGE, String.format(Locale.ROOT,
                "AUTH_Type %02xh AUTH_Id %02xh is not the message expected in state %s", type, id, state));
    }

    /**
     * Produces the controller message due, the data of an Authentication Receive: the Challenge, Success1, or
     * AUTH_Failure1. Asked when none is due, it fails the transaction and answers AUTH_Failure1 "incorrect
     * protocol message". The whole message is returned; the caller transfers at most AL bytes of it.
     */
    public byte[] receive() {
        switch (state) {
            case NEGOTIATED -> {
                return challenge();
            }
            case REPLIED -> {
                return success1();
            }
            case FAILED -> {
            }
            default -> fail(AuthFailureReason.INCORRECT_PROTOCOL_MESSAGE,
                    "Authentication Receive with no message due in state " + state);
        }
        AuthFailureReason reason = pendingFailure != null ? pendingFailure
                : AuthFailureReason.INCORRECT_PROTOCOL_MESSAGE;
        pendingFailure = null;
        return AuthFailure.encodeFailure1(transactionId, reason);
    }

    /** Whether an Authentication Receive has a message to fetch (the Challenge, Success1 or AUTH_Failure1). */
    public boolean messageDue() {
        return state == DhchapState.NEGOTIATED || state == DhchapState.REPLIED
                || state == DhchapState.FAILED && pendingFailure != null;
    }

    /** The state. */
    public DhchapState state() {
        return state;
    }

    /** The outcome so far: authenticated or not, the hash and DH group negotiated, why it failed. */
    public DhchapResult result() {
        return new DhchapResult(state == DhchapState.DONE, hash, dhGroup, bidirectional, failure);
    }

    /** T_ID, from the host's AUTH_Negotiate (0 before one arrived). */
    public int transactionId() {
        return transactionId;
    }

    /**
     * The session key Ks = H(g^xy mod p) (hash length bytes; a copy, wipe it after use) once the transaction is
     * {@link DhchapState#DONE} with a DH group; empty with the NULL group, before, after a failure or
     * {@link #close()}.
     */
    public Optional<byte[]> sessionKey() {
        return state == DhchapState.DONE && sessionKey != null ? Optional.of(sessionKey.clone()) : Optional.empty();
    }

    /**
     * Ends an unfinished transaction without a message ({@link DhchapResult.Source#ABORTED}): the transaction
     * timed out or the connection went away. No effect once the transaction is over.
     *
     * @param why one line for the result and the log, e.g. "authentication transaction timeout"
     */
    public void abort(String why) {
        if (state.terminal()) {
            return;
        }
        state = DhchapState.FAILED;
        pendingFailure = null;
        failure = new DhchapResult.Failure(AuthFailureReason.FAILED.code(), DhchapResult.Source.ABORTED, why);
        LOG.info("DH-HMAC-CHAP host {} subsystem {}: {}", hostNqn, subsystemNqn, failure);
        wipeTransaction();
    }

    /** Wipes the session key and every transient secret; the state and result stay. */
    @Override
    public void close() {
        wipeTransaction();
        wipe(sessionKey);
        sessionKey = null;
    }

    @Override
    public String toString() {
        return "DhchapController[host=" + hostNqn + ", subsystem=" + subsystemNqn + ", state=" + state + ", T_ID="
                + transactionId + ", hash=" + hash + ", dhGroup=" + dhGroup + "]";
    }

    private DhchapState onNegotiate() {
        transactionId = negotiate.transactionId();
        AuthFailureReason malformed = negotiate.check();
        if (malformed != null) {
            return fail(malformed, "malformed AUTH_Negotiate of " + negotiate.length() + " bytes");
        }
        if (negotiate.secureChannel() != 0) {
            return fail(AuthFailureReason.SECURE_CHANNEL_MISMATCH, String.format(Locale.ROOT,
                    "SC_C %02xh: secure channel concatenation is not supported", negotiate.secureChannel()));
        }
        int d = negotiate.dhchapDescriptor();
        if (d < 0) {
            return fail(AuthFailureReason.PROTOCOL_UNUSABLE, "no DH-HMAC-CHAP protocol descriptor among "
                    + negotiate.descriptorCount());
        }
        DhchapHash h = policy.chooseHash(negotiate.hashIds(d));
        if (h == null) {
            return fail(AuthFailureReason.HASH_UNUSABLE, "the host offers none of " + policy.hashes());
        }
        DhchapDhGroup g = policy.chooseDhGroup(negotiate.dhGroupIds(d));
        if (g == null) {
            return fail(AuthFailureReason.DH_GROUP_UNUSABLE, "the host offers none of " + policy.dhGroups());
        }
        hash = h;
        dhGroup = g;
        secureChannel = negotiate.secureChannel();
        return moveTo(DhchapState.NEGOTIATED);
    }

    private byte[] challenge() {
        c1 = new byte[hash.length()];
        random.nextBytes(c1);
        s1 = sequence.next();
        byte[] dhValue = new byte[0];
        if (dhGroup != DhchapDhGroup.NULL) {
            dhPair = dhGroup.generateKeyPair(random);
            dhValue = dhGroup.publicValue(dhPair);
        }
        moveTo(DhchapState.CHALLENGED);
        return DhchapChallenge.encode(transactionId, hash, dhGroup, s1, c1, dhValue);
    }

    private DhchapState onReply(ByteBuffer message) {
        reply.wrap(message);
        AuthFailureReason malformed = reply.check();
        if (malformed != null) {
            return fail(malformed, "malformed DH-HMAC-CHAP_Reply of " + reply.length() + " bytes");
        }
        String payload = replyPayloadProblem();
        if (payload != null) {
            return fail(AuthFailureReason.INCORRECT_PAYLOAD, payload);
        }
        if (dhGroup != DhchapDhGroup.NULL) {
            byte[] shared = dhGroup.sharedSecret(dhPair.getPrivate(), reply.dhValue());
            if (shared == null) {
                return fail(AuthFailureReason.DH_GROUP_UNUSABLE, "the host's DH value is not a usable element of "
                        + dhGroup);
            }
            sessionKey = DhchapCrypto.sessionKey(hash, shared);
            wipe(shared);
        }
        byte[] received = reply.response();
        byte[] expected = response(hostKey, hostNqn, c1, s1, true);
        boolean match = DhchapCrypto.responsesMatch(expected, received);
        wipe(expected);
        if (!match) {
            return fail(AuthFailureReason.FAILED, "host response mismatch");
        }
        if (reply.challengeValid()) {
            if (controllerKey == null) {
                return fail(AuthFailureReason.FAILED, "bidirectional authentication asked, no controller key set");
            }
            byte[] c2 = reply.challenge();
            if (Arrays.equals(c2, c1)) {
                return fail(AuthFailureReason.FAILED, "challenge C2 repeats C1");
            }
            bidirectional = true;
            r2 = response(controllerKey, subsystemNqn, c2, reply.sequenceNumber(), false);
        }
        wipe(c1);
        c1 = null;
        dhPair = null;
        return moveTo(DhchapState.REPLIED);
    }

    /** The Reply's fields against the transaction, {@code null} when they fit. */
    private String replyPayloadProblem() {
        if (reply.transactionId() != transactionId) {
            return "T_ID " + reply.transactionId() + " in a transaction of T_ID " + transactionId;
        }
        if (reply.hashLength() != hash.length()) {
            return "HL " + reply.hashLength() + " for " + hash;
        }
        if (reply.challengeValid() && reply.sequenceNumber() == 0) {
            return "CVALID with SEQNUM 0 (a challenge for a PSK only, without secure channel concatenation)";
        }
        if (reply.dhValueLength() != dhGroup.valueLength()) {
            return "DHVLEN " + reply.dhValueLength() + " for DH group " + dhGroup;
        }
        return null;
    }

    /** R1 (the host's, {@code host}) or R2 over challenge {@code c} with sequence number {@code seq}. */
    private byte[] response(DhchapKey key, String nqn, byte[] c, int seq, boolean host) {
        byte[] k = key.transform(nqn);
        byte[] ca = DhchapCrypto.augmentedChallenge(hash, sessionKey, c);
        try {
            return host
                    ? DhchapCrypto.hostResponse(hash, k, ca, seq, transactionId, secureChannel, hostNqn, subsystemNqn)
                    : DhchapCrypto.controllerResponse(hash, k, ca, seq, transactionId, secureChannel, subsystemNqn,
                            hostNqn);
        } finally {
            wipe(k);
            wipe(ca);
        }
    }

    private byte[] success1() {
        byte[] message = DhchapSuccess1.encode(transactionId, hash.length(), r2);
        if (r2 != null) {
            wipe(r2);
            r2 = null;
            moveTo(DhchapState.AWAIT_SUCCESS2);
        } else {
            moveTo(DhchapState.DONE);
        }
        return message;
    }

    private DhchapState onSuccess2(ByteBuffer message) {
        success2.wrap(message);
        AuthFailureReason malformed = success2.check();
        if (malformed != null) {
            return fail(malformed, "malformed DH-HMAC-CHAP_Success2 of " + success2.length() + " bytes");
        }
        if (success2.transactionId() != transactionId) {
            return fail(AuthFailureReason.INCORRECT_PAYLOAD, "T_ID " + success2.transactionId()
                    + " in a transaction of T_ID " + transactionId);
        }
        return moveTo(DhchapState.DONE);
    }

    private DhchapState onFailure2(ByteBuffer message) {
        failure2.wrap(message);
        AuthFailureReason malformed = failure2.check();
        if (malformed != null) {
            return fail(malformed, "malformed AUTH_Failure2 of " + failure2.length() + " bytes");
        }
        if (failure2.transactionId() != transactionId) {
            return fail(AuthFailureReason.INCORRECT_PAYLOAD, "T_ID " + failure2.transactionId()
                    + " in a transaction of T_ID " + transactionId);
        }
        state = DhchapState.FAILED;
        failure = new DhchapResult.Failure(failure2.explanationCode(), DhchapResult.Source.HOST,
                "the host refused the controller's response");
        LOG.info("DH-HMAC-CHAP host {} subsystem {}: {}", hostNqn, subsystemNqn, failure);
        close();
        return state;
    }

    /**
     * Fails the transaction with an AUTH_Failure1 due: the first failure is the one recorded; a later refused
     * message only makes another AUTH_Failure1 due.
     */
    private DhchapState fail(AuthFailureReason reason, String detail) {
        if (state != DhchapState.FAILED) {
            failure = new DhchapResult.Failure(reason.code(), DhchapResult.Source.CONTROLLER, detail);
            LOG.info("DH-HMAC-CHAP host {} subsystem {} T_ID {}: {}", hostNqn, subsystemNqn, transactionId,
                    failure);
            state = DhchapState.FAILED;
            close();
        }
        if (pendingFailure == null) {
            pendingFailure = reason;
        }
        return state;
    }

    private DhchapState moveTo(DhchapState next) {
        if (!state.canMoveTo(next)) {
            // Unreachable: every caller checked the state; a bug here must not pass as a transition.
            throw new IllegalStateException("DH-HMAC-CHAP: no transition " + state + " -> " + next);
        }
        LOG.debug("DH-HMAC-CHAP host {} subsystem {} T_ID {}: {} -> {}", hostNqn, subsystemNqn, transactionId, state,
                next);
        state = next;
        if (next == DhchapState.DONE) {
            LOG.debug("DH-HMAC-CHAP host {} subsystem {}: authenticated ({}, {}{})", hostNqn, subsystemNqn, hash,
                    dhGroup, bidirectional ? ", bidirectional" : "");
        }
        return state;
    }

    private void wipeTransaction() {
        wipe(c1);
        wipe(r2);
        c1 = null;
        r2 = null;
        dhPair = null;
    }

    private static void wipe(byte[] b) {
        if (b != null) {
            Arrays.fill(b, (byte) 0);
        }
    }
}
