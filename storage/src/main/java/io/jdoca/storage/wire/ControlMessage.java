package io.jdoca.storage.wire;

import io.jdoca.core.DocaError;

/**
 * One control message (reference §1): type, message_id, correlation_id and the type's payload.
 * Responses copy the request's ids; requesters match on message_id.
 *
 * <p>Immutable; any thread. Control path only (allocates).
 */
public record ControlMessage(ControlMessageType type, int messageId, int correlationId, ControlPayload payload) {

    public ControlMessage {
        if (type == null || payload == null) {
            throw new IllegalArgumentException("type and payload are required");
        }
        if (!payloadFits(type, payload)) {
            throw new IllegalArgumentException(type.wireName() + " cannot carry " + payload.getClass().getSimpleName());
        }
    }

    /** The payload kind each type carries (reference §1 table). */
    public static boolean payloadFits(ControlMessageType type, ControlPayload p) {
        return switch (type) {
            case ERROR_RESPONSE -> p instanceof ControlPayload.ErrorResponse;
            case QUERY_STORAGE_RESPONSE -> p instanceof ControlPayload.StorageInfo;
            case INIT_STORAGE_REQUEST -> p instanceof ControlPayload.InitStorage;
            case CREATE_RDMA_CONNECTION_REQUEST, CREATE_RDMA_CONNECTION_RESPONSE ->
                    p instanceof ControlPayload.RdmaConnection;
            default -> p instanceof ControlPayload.Empty;
        };
    }

    public static ControlMessage of(ControlMessageType type, int messageId, int correlationId) {
        return new ControlMessage(type, messageId, correlationId, ControlPayload.Empty.INSTANCE);
    }

    public static ControlMessage error(int messageId, int correlationId, DocaError code, String message) {
        return new ControlMessage(ControlMessageType.ERROR_RESPONSE, messageId, correlationId,
                new ControlPayload.ErrorResponse(code.code(), message));
    }

    /** The response to this request with the same ids and no payload. */
    public ControlMessage emptyResponse() {
        return of(type.responseType(), messageId, correlationId);
    }

    /** An error_response to this message, echoing its ids. */
    public ControlMessage errorResponse(DocaError code, String message) {
        return error(messageId, correlationId, code, message);
    }

    public boolean isError() {
        return type == ControlMessageType.ERROR_RESPONSE;
    }

    public ControlPayload.ErrorResponse asError() {
        return (ControlPayload.ErrorResponse) payload;
    }

    public ControlPayload.StorageInfo asStorageInfo() {
        return (ControlPayload.StorageInfo) payload;
    }

    public ControlPayload.InitStorage asInitStorage() {
        return (ControlPayload.InitStorage) payload;
    }

    public ControlPayload.RdmaConnection asRdmaConnection() {
        return (ControlPayload.RdmaConnection) payload;
    }

    @Override
    public String toString() {
        return type.wireName() + "{id=" + Integer.toUnsignedString(messageId) + ", cid="
                + Integer.toUnsignedString(correlationId) + (payload instanceof ControlPayload.Empty ? "" : ", "
                        + payload) + "}";
    }
}
