/* bench:spawn's check of its C floor: a child that writes what it was given to $FLOOR_STATE_OUT, so that the
 * bench can compare the floor's child with forklab's before it measures either: per descriptor 0-2 its kind,
 * access mode, O_NONBLOCK and (sockets) receive and send buffer sizes, whether 1 and 2 share one open file
 * description (kcmp), and the signal mask and dispositions (/proc/self/status). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef KCMP_FILE
#define KCMP_FILE 0
#endif

int main(void) {
    const char *path = getenv("FLOOR_STATE_OUT");
    FILE *out = path ? fopen(path, "w") : NULL;
    if (!out) return 2;
    for (int fd = 0; fd < 3; fd++) {
        struct stat st;
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || fstat(fd, &st) != 0) {
            fprintf(out, "fd %d closed\n", fd);
            continue;
        }
        const char *kind = S_ISCHR(st.st_mode) ? "character device" : S_ISSOCK(st.st_mode) ? "socket" : S_ISFIFO(st.st_mode) ? "fifo" : "other";
        fprintf(out, "fd %d: %s, access mode %d, nonblocking %d", fd, kind, fl & O_ACCMODE, (fl & O_NONBLOCK) != 0);
        if (S_ISSOCK(st.st_mode)) {
            int rcv = 0, snd = 0;
            socklen_t n = sizeof rcv;
            getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, &n);
            n = sizeof snd;
            getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &snd, &n);
            fprintf(out, ", buffers %d/%d", rcv, snd);
        }
        fputc('\n', out);
    }
    long same = syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE, 1, 2);
    fprintf(out, "fd 1 and 2: %s\n", same == 0 ? "one description" : "two descriptions");
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    while (status && fgets(line, sizeof line, status))
        if (strncmp(line, "SigBlk:", 7) == 0 || strncmp(line, "SigIgn:", 7) == 0) fputs(line, out);
    if (status) fclose(status);
    return fclose(out) == 0 ? 0 : 2;
}
