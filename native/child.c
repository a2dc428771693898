/* A child a case forks for itself: start it linked by a pipe or a socket, read before a deadline, reap or kill. */
#include "child.h"
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int fl_child_start(fl_child *c, enum fl_link link, void (*fn)(int fd, void *arg), void *arg) {
    c->pid = -1;
    c->fd = -1;
    int fds[2]; /* [0] the parent's end, [1] the child's */
    if (link == FL_SOCKET) {
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return fl_fail("socketpair", errno);
    } else {
        int p[2];
        if (pipe2(p, O_CLOEXEC) != 0) return fl_fail("pipe2", errno);
        fds[0] = link == FL_FROM_CHILD ? p[0] : p[1];
        fds[1] = link == FL_FROM_CHILD ? p[1] : p[0];
    }
    fflush(stdout);
    uint64_t t0 = fl_now_ns();
    pid_t pid = fork();
    uint64_t t1 = fl_now_ns();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        return fl_fail("fork", e);
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(fds[0]);
        fn(fds[1], arg);
        _exit(127); /* fn must not return */
    }
    close(fds[1]);
    c->pid = pid;
    c->fd = fds[0];
    c->forked_at_ns = t1;
    c->fork_ns = t1 - t0;
    return 0;
}

long fl_child_read_some(fl_child *c, void *buf, size_t len, uint64_t deadline_ns) {
    for (;;) {
        uint64_t now = fl_now_ns();
        if (now >= deadline_ns) return FL_CHILD_LATE;
        struct pollfd p = {c->fd, POLLIN, 0};
        int n = poll(&p, 1, (int)((deadline_ns - now + 999999) / 1000000));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return fl_fail("poll", errno);
        if (n == 0) continue; /* the deadline is checked above */
        ssize_t k = read(c->fd, buf, len);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return fl_fail("read(child)", errno);
        return (long)k;
    }
}

int fl_child_read(fl_child *c, void *buf, size_t len, uint64_t deadline_ns) {
    size_t got = 0;
    while (got < len) {
        long k = fl_child_read_some(c, (char *)buf + got, len - got, deadline_ns);
        if (k <= 0) return (int)k; /* 0 end of input, FL_CHILD_LATE, -1 */
        got += (size_t)k;
    }
    return 1;
}

void fl_child_close(fl_child *c) {
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
}

static int wait_blocking(fl_child *c, int *status) {
    for (;;) {
        pid_t w = waitpid(c->pid, status, 0);
        if (w == c->pid) {
            c->pid = -1;
            return 0;
        }
        if (w < 0 && errno != EINTR) return fl_fail("waitpid", errno);
    }
}

int fl_child_reap(fl_child *c, uint64_t deadline_ns, int *status) {
    if (deadline_ns == 0) return wait_blocking(c, status);
    for (;;) {
        pid_t w = waitpid(c->pid, status, WNOHANG);
        if (w == c->pid) {
            c->pid = -1;
            return 0;
        }
        if (w < 0 && errno != EINTR) return fl_fail("waitpid", errno);
        if (fl_now_ns() >= deadline_ns) break;
        struct timespec ts = {0, 1000000}; /* 1 ms */
        nanosleep(&ts, NULL);
    }
    if (kill(c->pid, SIGKILL) != 0 && errno != ESRCH) return fl_fail("kill", errno);
    return wait_blocking(c, status) == 0 ? 1 : -1;
}

void fl_child_kill(fl_child *c) {
    if (c->pid > 0) {
        kill(c->pid, SIGKILL);
        while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR) {
        }
        c->pid = -1;
    }
    fl_child_close(c);
}

void fl_child_status_text(int status, char *buf, size_t n) {
    if (WIFSIGNALED(status))
        snprintf(buf, n, "was killed by signal %d", WTERMSIG(status));
    else
        snprintf(buf, n, "exited with status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}
