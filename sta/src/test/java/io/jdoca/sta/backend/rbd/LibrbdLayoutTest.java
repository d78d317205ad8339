package io.jdoca.sta.backend.rbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdoca.testkit.CProgram;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The constants and {@code rbd_image_info_t} offsets {@link Librbd} uses, checked against the
 * installed {@code rbd/librbd.h}, {@code rbd/features.h} and {@code errno.h}: a C program prints
 * what the compiler computes; the signatures of the asynchronous calls and {@code rbd_resize} are
 * static assertions in it (a mismatch fails the compile). Skipped, with one line, without the
 * headers (Debian librbd-dev) or a C compiler.
 */
class LibrbdLayoutTest {
    private static final String C = """
            #include <rbd/librbd.h>
            #include <rbd/features.h>
            #include <errno.h>
            #include <stddef.h>
            #include <stdio.h>
            #define P(n, v) printf("%s %ld\\n", n, (long) (v))
            /* the signatures Librbd binds by hand: a mismatch fails the compile */
            #define SIG(f, t) _Static_assert(__builtin_types_compatible_p(__typeof__(&f), t), #f)
            SIG(rbd_aio_write_zeroes, int (*)(rbd_image_t, uint64_t, size_t, rbd_completion_t, int, int));
            SIG(rbd_aio_discard, int (*)(rbd_image_t, uint64_t, uint64_t, rbd_completion_t));
            SIG(rbd_aio_write, int (*)(rbd_image_t, uint64_t, size_t, const char *, rbd_completion_t));
            SIG(rbd_aio_read, int (*)(rbd_image_t, uint64_t, size_t, char *, rbd_completion_t));
            SIG(rbd_resize, int (*)(rbd_image_t, uint64_t));
            int main(void) {
                P("EVENT_TYPE_PIPE", EVENT_TYPE_PIPE);
                P("EVENT_TYPE_EVENTFD", EVENT_TYPE_EVENTFD);
                P("RBD_FEATURE_EXCLUSIVE_LOCK", RBD_FEATURE_EXCLUSIVE_LOCK);
                P("INFO_SIZE", sizeof(rbd_image_info_t));
                P("INFO_SIZE_OFF", offsetof(rbd_image_info_t, size));
                P("INFO_OBJ_SIZE", offsetof(rbd_image_info_t, obj_size));
                P("INFO_NUM_OBJS", offsetof(rbd_image_info_t, num_objs));
                P("INFO_ORDER", offsetof(rbd_image_info_t, order));
                P("EPERM", EPERM);
                P("ENOENT", ENOENT);
                P("EIO", EIO);
                P("EAGAIN", EAGAIN);
                P("EACCES", EACCES);
                P("EBUSY", EBUSY);
                P("EINVAL", EINVAL);
                P("EROFS", EROFS);
                P("ENOTCONN", ENOTCONN);
                P("ESHUTDOWN", ESHUTDOWN);
                P("ETIMEDOUT", ETIMEDOUT);
                return 0;
            }
            """;

    @Test
    void constantsAndOffsetsMatchTheInstalledHeaders(@TempDir Path dir) throws IOException, InterruptedException {
        assumeTrue(Files.exists(Path.of("/usr/include/rbd/librbd.h")),
                "skipped: no /usr/include/rbd/librbd.h (Debian librbd-dev)");
        String out = CProgram.run(dir, "rbd/librbd.h", C);
        Map<String, Long> c = new TreeMap<>();
        for (String line : out.split("\n")) {
            String[] kv = line.split(" ");
            c.put(kv[0], Long.parseLong(kv[1]));
        }
        Map<String, Long> java = new TreeMap<>();
        java.put("EVENT_TYPE_PIPE", (long) Librbd.EVENT_TYPE_PIPE);
        java.put("EVENT_TYPE_EVENTFD", (long) Librbd.EVENT_TYPE_EVENTFD);
        java.put("RBD_FEATURE_EXCLUSIVE_LOCK", Librbd.RBD_FEATURE_EXCLUSIVE_LOCK);
        java.put("INFO_SIZE", (long) Librbd.INFO_SIZE);
        java.put("INFO_SIZE_OFF", (long) Librbd.INFO_SIZE_OFF);
        java.put("INFO_OBJ_SIZE", (long) Librbd.INFO_OBJ_SIZE);
        java.put("INFO_NUM_OBJS", (long) Librbd.INFO_NUM_OBJS);
        java.put("INFO_ORDER", (long) Librbd.INFO_ORDER);
        java.put("EPERM", (long) Librbd.EPERM);
        java.put("ENOENT", (long) Librbd.ENOENT);
        java.put("EIO", (long) Librbd.EIO);
        java.put("EAGAIN", (long) Librbd.EAGAIN);
        java.put("EACCES", (long) Librbd.EACCES);
        java.put("EBUSY", (long) Librbd.EBUSY);
        java.put("EINVAL", (long) Librbd.EINVAL);
        java.put("EROFS", (long) Librbd.EROFS);
        java.put("ENOTCONN", (long) Librbd.ENOTCONN);
        java.put("ESHUTDOWN", (long) Librbd.ESHUTDOWN);
        java.put("ETIMEDOUT", (long) Librbd.ETIMEDOUT);
        assertThat(java).isEqualTo(c);
    }
}
