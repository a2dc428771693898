#include "spawn_child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat.h"
#include "spawn_search.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

extern char **environ;

static void close_all(int *fds, int n) {
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0) { close(fds[i]); fds[i] = -1; }
}

/* Closes the sources the parent made (pipe child ends, copies), never a descriptor the caller passed. */
static void close_owned(int *src, int *own, int n) {
    for (int i = 0; i < n; i++)
        if (own[i] && src[i] >= 0) { close(src[i]); src[i] = -1; own[i] = 0; }
}

/* Sets up, for each child descriptor i, what the file actions make of it, opening in the parent only what
 * libuv's parent opens too, so that a process near its descriptor limit fails where child_process fails and
 * nowhere else: a pipe is a socketpair (with libuv's 64 KiB buffers where its version sets them), whose child end
 * is src[i]; 'ignore' is /dev/null for 0-2 (read-only for 0), opened by the child itself (addopen, as libuv's
 * child opens it), and nothing above; an inherited descriptor is used as it is. As libuv: every inherited
 * descriptor must be open (EBADF, before anything is made), and one that becomes the child's 0-2 is made
 * blocking (libuv's child does that after its dup2, which changes the description the parent shares).
 * A source is copied in the parent (close-on-exec, >= n; own[i] set) only where the child could not use it as
 * it is: a descriptor below i that an earlier action replaces (libuv's child copies those too), and, before
 * glibc 2.29, one that is its own target while close-on-exec (adddup2 of a descriptor onto itself clears that
 * flag from 2.29 on, as libuv's child clears it). src[i] is -1 for 'ignore'. */
static int prepare_stdio(const fl_spawn_req *req, int n, int *src, int *own, int *parent_fds) {
    for (int i = 0; i < req->n_stdio; i++)
        if (req->stdio[i] >= 0 && fcntl(req->stdio[i], F_GETFD) < 0) return errno;
    for (int i = 0; i < n; i++) {
        int s = i < req->n_stdio ? req->stdio[i] : FL_STDIO_IGNORE, fd;
        own[i] = 0;
        src[i] = -1;
        if (s == FL_STDIO_PIPE) {
            int sv[2];
            if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return errno;
            if (fl_compat.uv_pipe_buffers) {
                int size = 64 * 1024;
                for (int k = 0; k < 2; k++) {
                    setsockopt(sv[k], SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
                    setsockopt(sv[k], SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
                }
            }
            parent_fds[i] = sv[0];
            fd = sv[1];
            if (fd < n) { /* a low slot another action may replace first: moved up */
                fd = fcntl(sv[1], F_DUPFD_CLOEXEC, n);
                int e = errno;
                close(sv[1]);
                if (fd < 0) return e;
            }
            own[i] = 1;
        } else if (s == FL_STDIO_IGNORE) {
            continue;
        } else {
            int fl = i <= 2 ? fcntl(s, F_GETFL) : -1;
            if (fl >= 0 && (fl & O_NONBLOCK)) fcntl(s, F_SETFL, fl & ~O_NONBLOCK);
            int replaced = s < i && (s <= 2 || (s < req->n_stdio && req->stdio[s] != FL_STDIO_IGNORE));
            int cloexec_self = s == i && !fl_compat.dup2_self_unsets_cloexec && (fcntl(s, F_GETFD) & FD_CLOEXEC);
            fd = s;
            if (replaced || cloexec_self) {
                fd = fcntl(s, F_DUPFD_CLOEXEC, n);
                if (fd < 0) return errno;
                own[i] = 1;
            }
        }
        src[i] = fd;
    }
    return 0;
}

static int build_actions(const fl_spawn_req *req, int n, const int *src, posix_spawn_file_actions_t *fa) {
    int err;
    for (int i = 0; i < n; i++) {
        if (src[i] >= 0)
            err = posix_spawn_file_actions_adddup2(fa, src[i], i);
        else if (i <= 2) /* glibc closes i first, so the open takes its slot even at the limit */
            err = posix_spawn_file_actions_addopen(fa, i, "/dev/null", i == 0 ? O_RDONLY : O_RDWR, 0);
        else
            continue;
        if (err != 0) return err;
    }
    if (req->cwd) {
        if (!fl_compat.addchdir) return ENOSYS; /* the caller hands calls with a cwd to Node's handle */
        if ((err = fl_compat.addchdir(fa, req->cwd)) != 0) return err;
    }
    /* Every other descriptor: close-on-exec decides, as with libuv (a make jobserver or systemd's
     * LISTEN_FDS reach the child; descriptors opened with O_CLOEXEC, as Node opens its own, do not). */
    return 0;
}

/* The parent ignores sig (read with the system call: glibc's sigaction refuses its internal signals). */
static int parent_ignores(int sig) {
    unsigned long k[8];
    memset(k, 0, sizeof k);
    if (syscall(SYS_rt_sigaction, sig, NULL, k, 8) != 0) return 0;
    return (void *)k[0] == (void *)SIG_IGN;
}

static void set_bit(sigset_t *set, int sig) {
    unsigned long *w = (unsigned long *)set;
    w[(sig - 1) / (8 * sizeof *w)] |= 1UL << ((sig - 1) % (8 * sizeof *w));
}

/* As libuv's child: an empty mask, and signals 1-31 at their defaults; the others keep the parent's
 * disposition, which exec turns from a handler into the default and leaves ignored if ignored. glibc's spawn
 * helper would set its internal signals (32, 33) to SIG_IGN unless asked otherwise: they are asked for their
 * default unless the parent ignores them. */
static int build_attr(const fl_spawn_req *req, posix_spawnattr_t *attr) {
    sigset_t none, dfl;
    sigemptyset(&none);
    sigemptyset(&dfl);
    for (int sig = 1; sig < 32; sig++)
        if (sig != SIGKILL && sig != SIGSTOP) set_bit(&dfl, sig);
    for (int sig = 32; sig <= 33; sig++)
        if (!parent_ignores(sig)) set_bit(&dfl, sig);
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    if (req->detached) {
        if (!fl_compat.setsid) return ENOSYS; /* the caller hands detached calls to Node's handle */
        flags |= POSIX_SPAWN_SETSID;
    }
    int err;
    if ((err = posix_spawnattr_setsigmask(attr, &none)) != 0) return err;
    if ((err = posix_spawnattr_setsigdefault(attr, &dfl)) != 0) return err;
    return posix_spawnattr_setflags(attr, flags);
}

/* A pidfd for a child posix_spawn made; -1 when someone else (a waitpid(-1) elsewhere) has reaped it already:
 * then its pid names no process (ESRCH) or another one (not our child). An errno value when no descriptor
 * could be had (EMFILE, ENFILE, ENOMEM). */
static int open_pidfd(pid_t pid, int *out) {
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd < 0 && errno == ESRCH) {
        *out = -1;
        return 0;
    }
    if (fd < 0) return errno;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid((idtype_t)P_PIDFD, (id_t)fd, &si, WEXITED | WNOHANG | WNOWAIT) != 0 && errno == ECHILD) {
        close(fd);
        fd = -1;
    }
    *out = fd;
    return 0;
}

/* Kills and reaps a child of ours that has no pidfd yet, never signalling its pid: only through a pidfd that
 * open_pidfd found to be our child's. A child already reaped by someone else is left alone; one that still
 * has no pidfd (out of descriptors or memory again) is left to run, unreaped: a zombie after its end, as a
 * child libuv lost. */
static void stop_child(pid_t pid) {
    int fd = -1;
    if (open_pidfd(pid, &fd) != 0 || fd < 0) return;
    syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
    siginfo_t si;
    while (waitid((idtype_t)P_PIDFD, (id_t)fd, &si, WEXITED) < 0 && errno == EINTR) {}
    close(fd);
}

int fl_spawn(const fl_spawn_req *req, pid_t *pid, int *pidfd, int *parent_fds) {
    int n = req->n_stdio < 3 ? 3 : req->n_stdio, err;
    int *src = malloc((size_t)n * 3 * sizeof *src);
    if (!src) return ENOMEM;
    int *own = src + n, *pfds = src + 2 * n;
    for (int i = 0; i < n; i++) {
        src[i] = pfds[i] = -1;
        own[i] = 0;
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    int have_fa = 0, have_attr = 0, reserve[2] = {-1, -1}, held[8];
    for (int k = 0; k < 8; k++) held[k] = -1;
    fl_attempt a = {&fa, &attr, req->envp ? req->envp : environ, 0, -2};

    if ((err = prepare_stdio(req, n, src, own, pfds)) != 0) goto fail_setup;
    if ((err = posix_spawn_file_actions_init(&fa)) != 0) goto fail_setup;
    have_fa = 1;
    if ((err = posix_spawnattr_init(&attr)) != 0) goto fail_setup;
    have_attr = 1;
    if ((err = build_actions(req, n, src, &fa)) != 0) goto fail_setup;
    if ((err = build_attr(req, &attr)) != 0) goto fail_setup;
    /* libuv's parent holds a pipe for the child's exec error while it forks: two descriptors, so a process at
     * its limit fails with EMFILE before any child exists. The same two are held here; they also keep a slot
     * for the child's pidfd (made by pidfd_spawn in one of them, or opened after posix_spawn in a freed one). */
    if (pipe2(reserve, O_CLOEXEC) != 0) {
        err = errno;
        goto fail_setup;
    }
    if (__atomic_load_n(&fl_compat.pidfd_spawn, __ATOMIC_RELAXED)) {
        close(reserve[1]);
        reserve[1] = -1;
    }
    for (int k = 0; k < req->loop_fds && k < (int)(sizeof held / sizeof held[0]); k++) {
        if ((held[k] = fcntl(reserve[0], F_DUPFD_CLOEXEC, 0)) < 0) {
            err = errno;
            close_all(reserve, 2);
            close_all(held, k);
            goto fail_setup;
        }
    }
    err = fl_spawn_search(req, &a);
    close_all(held, sizeof held / sizeof held[0]);
    close_owned(src, own, n); /* the child has its copies: their slots, and the reserve's, are free for the pidfd */
    close_all(reserve, 2);
    if (err == 0 && a.pidfd == -2 && (err = open_pidfd(a.pid, &a.pidfd)) != 0) {
        /* No descriptor for it (another thread took the reserved slot): the call fails (as libuv's would
         * have, with its pipes, before any child), so the child must go, killed through a pidfd. The pipe
         * ends are of no use any more: their slots are freed for it. Without a pidfd no signal is sent: the
         * pid may already name another process. */
        close_all(pfds, n);
        stop_child(a.pid);
    }
    if (err == 0) {
        *pid = a.pid;
        *pidfd = a.pidfd;
    }
    goto done;
fail_setup:
    /* failed before the exec was attempted: no pipe is handed back */
    close_all(pfds, n);
done:
    close_owned(src, own, n);
    for (int i = 0; i < req->n_stdio; i++) parent_fds[i] = pfds[i];
    for (int i = req->n_stdio; i < n; i++)
        if (pfds[i] >= 0) close(pfds[i]);
    if (have_fa) posix_spawn_file_actions_destroy(&fa);
    if (have_attr) posix_spawnattr_destroy(&attr);
    free(src);
    return err;
}
