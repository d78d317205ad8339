package io.jdoca.sta.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdoca.testkit.CProgram;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The io_uring structure offsets and constants {@link IoUring} uses, checked against the installed
 * {@code linux/io_uring.h}: a C program prints what the compiler computes. Skipped, with a
 * message, when no C compiler or header is installed.
 */
class IoUringLayoutTest {
    private static final String C = """
            #include <linux/io_uring.h>
            #include <sys/syscall.h>
            #include <stddef.h>
            #include <stdio.h>
            #define P(n, v) printf("%s %ld\\n", n, (long) (v))
            int main(void) {
                P("SYS_IO_URING_SETUP", __NR_io_uring_setup);
                P("SYS_IO_URING_ENTER", __NR_io_uring_enter);
                P("PARAMS_SIZE", sizeof(struct io_uring_params));
                P("P_SQ_ENTRIES", offsetof(struct io_uring_params, sq_entries));
                P("P_CQ_ENTRIES", offsetof(struct io_uring_params, cq_entries));
                P("P_FEATURES", offsetof(struct io_uring_params, features));
                P("P_SQ_OFF", offsetof(struct io_uring_params, sq_off));
                P("P_CQ_OFF", offsetof(struct io_uring_params, cq_off));
                P("SQO_HEAD", offsetof(struct io_sqring_offsets, head));
                P("SQO_TAIL", offsetof(struct io_sqring_offsets, tail));
                P("SQO_RING_MASK", offsetof(struct io_sqring_offsets, ring_mask));
                P("SQO_ARRAY", offsetof(struct io_sqring_offsets, array));
                P("CQO_HEAD", offsetof(struct io_cqring_offsets, head));
                P("CQO_TAIL", offsetof(struct io_cqring_offsets, tail));
                P("CQO_RING_MASK", offsetof(struct io_cqring_offsets, ring_mask));
                P("CQO_CQES", offsetof(struct io_cqring_offsets, cqes));
                P("SQE_SIZE", sizeof(struct io_uring_sqe));
                P("SQE_OPCODE", offsetof(struct io_uring_sqe, opcode));
                P("SQE_FD", offsetof(struct io_uring_sqe, fd));
                P("SQE_OFF", offsetof(struct io_uring_sqe, off));
                P("SQE_ADDR", offsetof(struct io_uring_sqe, addr));
                P("SQE_LEN", offsetof(struct io_uring_sqe, len));
                P("SQE_RW_FLAGS", offsetof(struct io_uring_sqe, rw_flags));
                P("SQE_USER_DATA", offsetof(struct io_uring_sqe, user_data));
                P("CQE_SIZE", sizeof(struct io_uring_cqe));
                P("CQE_USER_DATA", offsetof(struct io_uring_cqe, user_data));
                P("CQE_RES", offsetof(struct io_uring_cqe, res));
                P("IORING_OP_FSYNC", IORING_OP_FSYNC);
                P("IORING_OP_READ", IORING_OP_READ);
                P("IORING_OP_WRITE", IORING_OP_WRITE);
                P("IORING_FSYNC_DATASYNC", IORING_FSYNC_DATASYNC);
                P("IORING_FEAT_SINGLE_MMAP", IORING_FEAT_SINGLE_MMAP);
                P("IORING_ENTER_GETEVENTS", IORING_ENTER_GETEVENTS);
                P("IORING_ENTER_EXT_ARG", IORING_ENTER_EXT_ARG);
                P("IORING_FEAT_EXT_ARG", IORING_FEAT_EXT_ARG);
                P("GEA_SIZE", sizeof(struct io_uring_getevents_arg));
                P("GEA_SIGMASK", offsetof(struct io_uring_getevents_arg, sigmask));
                P("GEA_SIGMASK_SZ", offsetof(struct io_uring_getevents_arg, sigmask_sz));
                P("GEA_TS", offsetof(struct io_uring_getevents_arg, ts));
                P("TS_SIZE", sizeof(struct __kernel_timespec));
                P("IORING_OFF_SQ_RING", IORING_OFF_SQ_RING);
                P("IORING_OFF_CQ_RING", IORING_OFF_CQ_RING);
                P("IORING_OFF_SQES", IORING_OFF_SQES);
                return 0;
            }
            """;

    @Test
    void offsetsMatchTheInstalledHeader(@TempDir Path dir) throws IOException, InterruptedException {
        assumeTrue(Files.exists(Path.of("/usr/include/linux/io_uring.h")), "skipped: no /usr/include/linux/io_uring.h");
        String out = CProgram.run(dir, "linux/io_uring.h", C);
        Map<String, Long> c = new HashMap<>();
        for (String line : out.split("\n")) {
            String[] kv = line.split(" ");
            c.put(kv[0], Long.parseLong(kv[1]));
        }
        Map<String, Long> java = new HashMap<>();
        java.put("SYS_IO_URING_SETUP", IoUring.SYS_IO_URING_SETUP);
        java.put("SYS_IO_URING_ENTER", IoUring.SYS_IO_URING_ENTER);
        java.put("PARAMS_SIZE", (long) IoUring.PARAMS_SIZE);
        java.put("P_SQ_ENTRIES", (long) IoUring.P_SQ_ENTRIES);
        java.put("P_CQ_ENTRIES", (long) IoUring.P_CQ_ENTRIES);
        java.put("P_FEATURES", (long) IoUring.P_FEATURES);
        java.put("P_SQ_OFF", (long) IoUring.P_SQ_OFF);
        java.put("P_CQ_OFF", (long) IoUring.P_CQ_OFF);
        java.put("SQO_HEAD", (long) IoUring.SQO_HEAD);
        java.put("SQO_TAIL", (long) IoUring.SQO_TAIL);
        java.put("SQO_RING_MASK", (long) IoUring.SQO_RING_MASK);
        java.put("SQO_ARRAY", (long) IoUring.SQO_ARRAY);
        java.put("CQO_HEAD", (long) IoUring.CQO_HEAD);
        java.put("CQO_TAIL", (long) IoUring.CQO_TAIL);
        java.put("CQO_RING_MASK", (long) IoUring.CQO_RING_MASK);
        java.put("CQO_CQES", (long) IoUring.CQO_CQES);
        java.put("SQE_SIZE", (long) IoUring.SQE_SIZE);
        java.put("SQE_OPCODE", (long) IoUring.SQE_OPCODE);
        java.put("SQE_FD", (long) IoUring.SQE_FD);
        java.put("SQE_OFF", (long) IoUring.SQE_OFF);
        java.put("SQE_ADDR", (long) IoUring.SQE_ADDR);
        java.put("SQE_LEN", (long) IoUring.SQE_LEN);
        java.put("SQE_RW_FLAGS", (long) IoUring.SQE_RW_FLAGS);
        java.put("SQE_USER_DATA", (long) IoUring.SQE_USER_DATA);
        java.put("CQE_SIZE", (long) IoUring.CQE_SIZE);
        java.put("CQE_USER_DATA", (long) IoUring.CQE_USER_DATA);
        java.put("CQE_RES", (long) IoUring.CQE_RES);
        java.put("IORING_OP_FSYNC", (long) IoUring.IORING_OP_FSYNC);
        java.put("IORING_OP_READ", (long) IoUring.IORING_OP_READ);
        java.put("IORING_OP_WRITE", (long) IoUring.IORING_OP_WRITE);
        java.put("IORING_FSYNC_DATASYNC", (long) IoUring.IORING_FSYNC_DATASYNC);
        java.put("IORING_FEAT_SINGLE_MMAP", (long) IoUring.IORING_FEAT_SINGLE_MMAP);
        java.put("IORING_ENTER_GETEVENTS", (long) IoUring.IORING_ENTER_GETEVENTS);
        java.put("IORING_ENTER_EXT_ARG", (long) IoUring.IORING_ENTER_EXT_ARG);
        java.put("IORING_FEAT_EXT_ARG", (long) IoUring.IORING_FEAT_EXT_ARG);
        java.put("GEA_SIZE", (long) IoUring.GEA_SIZE);
        java.put("GEA_SIGMASK", (long) IoUring.GEA_SIGMASK);
        java.put("GEA_SIGMASK_SZ", (long) IoUring.GEA_SIGMASK_SZ);
        java.put("GEA_TS", (long) IoUring.GEA_TS);
        java.put("TS_SIZE", (long) IoUring.TS_SIZE);
        java.put("IORING_OFF_SQ_RING", IoUring.IORING_OFF_SQ_RING);
        java.put("IORING_OFF_CQ_RING", IoUring.IORING_OFF_CQ_RING);
        java.put("IORING_OFF_SQES", IoUring.IORING_OFF_SQES);
        assertEquals(c, java);
    }
}
