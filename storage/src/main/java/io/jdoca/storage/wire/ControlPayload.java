package io.jdoca.storage.wire;

import io.jdoca.core.DocaError;
import java.util.Arrays;

/**
 * The payload of a control message (reference §1 table). Each message type has exactly one payload
 * kind; {@link ControlMessage} checks the pairing.
 *
 * <p>Immutable values (blobs are defensively copied); any thread.
 */
public sealed interface ControlPayload {

    /** No payload: query/init responses, start, stop, shutdown. */
    record Empty() implements ControlPayload {
        public static final Empty INSTANCE = new Empty();
    }

    /** {@code error_response}: u32 {@code doca_error_t} code, then a string. */
    record ErrorResponse(int errorCode, String message) implements ControlPayload {
        public ErrorResponse {
            message = message == null ? "" : message;
        }

        public DocaError error() {
            return DocaError.fromCode(errorCode);
        }
    }

    /** {@code query_storage_response}: u64 total_size, u32 block_size. */
    record StorageInfo(long totalSize, int blockSize) implements ControlPayload {
    }

    /** {@code init_storage_request}: u32 transaction_count, u32 core_count, blob mmap_export. */
    record InitStorage(int transactionCount, int coreCount, byte[] mmapExport) implements ControlPayload {
        public InitStorage {
            mmapExport = mmapExport == null ? new byte[0] : mmapExport.clone();
        }

        @Override
        public byte[] mmapExport() {
            return mmapExport.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof InitStorage i && i.transactionCount == transactionCount && i.coreCount == coreCount
                    && Arrays.equals(i.mmapExport, mmapExport);
        }

        @Override
        public int hashCode() {
            return 31 * (31 * transactionCount + coreCount) + Arrays.hashCode(mmapExport);
        }

        @Override
        public String toString() {
            return "InitStorage[transactionCount=" + transactionCount + ", coreCount=" + coreCount + ", mmapExport="
                    + mmapExport.length + " bytes]";
        }
    }

    /** {@code create_rdma_connection_request/response}: u32 context_idx, u32 role, blob connection_details. */
    record RdmaConnection(int contextIdx, ConnectionRole role, byte[] connectionDetails) implements ControlPayload {
        public RdmaConnection {
            if (role == null) {
                throw new IllegalArgumentException("role");
            }
            connectionDetails = connectionDetails == null ? new byte[0] : connectionDetails.clone();
        }

        @Override
        public byte[] connectionDetails() {
            return connectionDetails.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof RdmaConnection r && r.contextIdx == contextIdx && r.role == role
                    && Arrays.equals(r.connectionDetails, connectionDetails);
        }

        @Override
        public int hashCode() {
            return 31 * (31 * contextIdx + role.hashCode()) + Arrays.hashCode(connectionDetails);
        }

        @Override
        public String toString() {
            return "RdmaConnection[contextIdx=" + contextIdx + ", role=" + role.wireName() + ", connectionDetails="
                    + connectionDetails.length + " bytes]";
        }
    }
}
