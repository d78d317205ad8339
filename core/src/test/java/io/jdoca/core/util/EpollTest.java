package io.jdoca.core.util;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.testkit.CProgram;
import java.lang.foreign.MemoryLayout;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Epoll}'s struct layouts and constants against the installed libc headers: a C program prints
 * {@code sizeof}/{@code offsetof} of {@code struct epoll_event}, {@code timespec}, {@code itimerspec} and the
 * values of the flags, compiled with the system C compiler (skipped with a message without one).
 */
class EpollTest {

    @Test
    void layoutsAndConstantsMatchTheInstalledHeaders(@TempDir Path dir) throws Exception {
        String out = CProgram.run(dir, "the libc headers", """
                #include <stdio.h>
                #include <stddef.h>
                #include <errno.h>
                #include <time.h>
                #include <sys/epoll.h>
                #include <sys/eventfd.h>
                #include <sys/timerfd.h>
                #include <sys/socket.h>
                #include <sys/un.h>
                int main(void) {
                  printf("%zu %zu %zu %zu %zu\\n", sizeof(struct epoll_event), offsetof(struct epoll_event, data),
                         sizeof(struct timespec), sizeof(struct itimerspec), offsetof(struct itimerspec, it_value));
                  printf("%d %d %d %d %d %d %d %d\\n", EPOLLIN, EPOLL_CTL_ADD, EPOLL_CTL_DEL, EPOLL_CLOEXEC,
                          EFD_NONBLOCK,
                         EFD_CLOEXEC, EAGAIN, EINTR);
                  printf("%d %d %d %d %d\\n", TFD_NONBLOCK, TFD_CLOEXEC, CLOCK_MONOTONIC, AF_UNIX, SOCK_STREAM);
                  printf("%d %d %zu %zu\\n", SOCK_NONBLOCK, SOCK_CLOEXEC, sizeof(struct sockaddr_un),
                         offsetof(struct sockaddr_un, sun_path));
                  return 0;
                }
                """, "-Wall");
        String[] l = out.strip().split("\n");
        long data = Epoll.EPOLL_EVENT.byteOffset(MemoryLayout.PathElement.groupElement("data"));
        long itValue = Epoll.ITIMERSPEC.byteOffset(MemoryLayout.PathElement.groupElement("it_value"));
        assertThat(l[0]).isEqualTo(Epoll.EPOLL_EVENT.byteSize() + " " + data + " " + Epoll.TIMESPEC.byteSize() + " "
                + Epoll.ITIMERSPEC.byteSize() + " " + itValue);
        assertThat(l[1]).isEqualTo(Epoll.EPOLLIN + " " + Epoll.EPOLL_CTL_ADD + " " + Epoll.EPOLL_CTL_DEL + " "
                + Epoll.EPOLL_CLOEXEC + " " + Epoll.EFD_NONBLOCK + " " + Epoll.EFD_CLOEXEC + " " + Epoll.EAGAIN + " "
                + Epoll.EINTR);
        assertThat(l[2]).isEqualTo(Epoll.TFD_NONBLOCK + " " + Epoll.TFD_CLOEXEC + " " + Epoll.CLOCK_MONOTONIC + " "
                + Epoll.AF_UNIX + " " + Epoll.SOCK_STREAM);
        assertThat(l[3]).isEqualTo(Epoll.SOCK_NONBLOCK + " " + Epoll.SOCK_CLOEXEC + " " + Epoll.SOCKADDR_UN_SIZE + " "
                + Epoll.SUN_PATH_OFFSET);
    }
}
