/* spawnSync's binding on posix_spawn: one child, its pipes served with poll() until the child has exited
 * and every pipe has reached EOF (a grandchild holding stdout keeps the call waiting, as with Node's),
 * input written to the child's end of a pipe then shut down, output gathered until the total passes
 * maxBuffer (then ENOBUFS), a timeout (then ETIMEDOUT), both killing with killSignal and closing the pipes
 * as Node's SyncProcessRunner does. The result object has Node's shape: { pid, status, signal, output,
 * error? }.
 * As with libuv's loop, the deadline is looked at on every turn (libuv runs its timers before each poll),
 * however busy the pipes are. A pipe the child reads (stdin) is shut down for writing once its input is
 * written, never closed before the end: the child may write to it (libuv's pipes are socketpairs), and what
 * it writes there is left unread and dropped at the end, as Node's spawnSync does. */
#include <node_api.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spawn_child.h"
#include "spawn_sync.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

typedef struct {
    int fd;            /* parent end, -1 once closed */
    int reads;         /* the parent gathers what the child writes */
    int done;          /* nothing more to do on it but close it at the end (a stdin shut down) */
    const unsigned char *in;
    size_t in_len, in_off;
    unsigned char *buf;
    size_t len, cap;
} fl_pipe;

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void close_pipe(fl_pipe *p) {
    if (p->fd >= 0) close(p->fd);
    p->fd = -1;
}

static int append(fl_pipe *p, const unsigned char *data, size_t n) {
    if (p->len + n > p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 65536;
        while (cap < p->len + n) cap *= 2;
        unsigned char *nb = realloc(p->buf, cap);
        if (!nb) return ENOMEM;
        p->buf = nb;
        p->cap = cap;
    }
    memcpy(p->buf + p->len, data, n);
    p->len += n;
    return 0;
}

/* Runs the child to its end. Returns 0 or a negative errno for the result's error field. */
int fl_spawn_sync(const fl_sync_req *req, fl_sync_out *out) {
    int n = req->base.n_stdio;
    int *pfds = calloc(n ? (size_t)n : 1, sizeof *pfds);
    fl_pipe *pipes = calloc(n ? (size_t)n : 1, sizeof *pipes);
    struct pollfd *pf = calloc((size_t)n + 1, sizeof *pf);
    out->pid = 0;
    out->exited = 0;
    out->pipes = pipes;
    if (!pfds || !pipes || !pf) { free(pfds); free(pf); return -ENOMEM; }
    pid_t pid = 0;
    int pidfd = -1;
    int err = fl_spawn(&req->base, &pid, &pidfd, pfds);
    for (int i = 0; i < n; i++) {
        pipes[i].fd = pfds[i];
        pipes[i].reads = req->reads[i];
        pipes[i].in = req->input[i];
        pipes[i].in_len = req->input_len[i];
    }
    free(pfds);
    if (err != 0) {
        for (int i = 0; i < n; i++) close_pipe(&pipes[i]);
        free(pf);
        return -err;
    }
    out->pid = pid;
    int result = 0, killed = 0, pipe_error = 0;
    for (int i = 0; i < n; i++) {
        fl_pipe *p = &pipes[i];
        if (p->fd < 0) continue;
        fcntl(p->fd, F_SETFL, fcntl(p->fd, F_GETFL) | O_NONBLOCK);
        if (!p->in || p->in_len == 0) shutdown(p->fd, SHUT_WR); /* the child reads EOF */
        if (!p->reads && (!p->in || p->in_len == 0)) p->done = 1;
    }
    long long deadline = req->timeout_ms > 0 ? now_ms() + req->timeout_ms : -1;
    size_t total = 0;
    unsigned char chunk[65536];
    for (;;) {
        int open_pipes = 0, m = 0;
        if (!out->exited && pidfd >= 0) pf[m++] = (struct pollfd){.fd = pidfd, .events = POLLIN};
        for (int i = 0; i < n; i++) {
            fl_pipe *p = &pipes[i];
            if (p->fd < 0 || p->done) continue;
            open_pipes++;
            short ev = 0;
            if (p->reads) ev |= POLLIN;
            if (p->in && p->in_off < p->in_len) ev |= POLLOUT;
            pf[m++] = (struct pollfd){.fd = p->fd, .events = ev};
        }
        if (out->exited && open_pipes == 0) break;
        if (pidfd < 0 && open_pipes == 0) {
            /* reaped by someone else (a waitpid(-1) elsewhere): its exit can never be seen. Node's spawnSync
             * (libuv, which ignores the ECHILD) waits for it for ever, timeout or not; so does this, asleep. */
            for (;;) poll(NULL, 0, -1);
        }
        int wait_ms = -1;
        if (deadline >= 0 && !killed) {
            long long left = deadline - now_ms();
            if (left <= 0) { /* whatever the pipes still hold: libuv's timer runs before its next poll */
                result = -ETIMEDOUT;
                goto kill_child;
            }
            wait_ms = left > INT_MAX ? INT_MAX : (int)left;
        }
        int r = poll(pf, (nfds_t)m, wait_ms);
        if (r <= 0) continue; /* EINTR, or the deadline: looked at above */
        for (int j = 0; j < m; j++) {
            if (!pf[j].revents) continue;
            if (pf[j].fd == pidfd && !out->exited) {
                siginfo_t si;
                memset(&si, 0, sizeof si);
                int w;
                do w = waitid((idtype_t)P_PIDFD, (id_t)pidfd, &si, WEXITED | WNOHANG); while (w < 0 && errno == EINTR);
                if (w == 0 && si.si_pid != 0) {
                    out->exited = 1;
                    out->status = si.si_code == CLD_EXITED ? si.si_status : 0;
                    out->term_signal = si.si_code == CLD_EXITED ? 0 : si.si_status;
                } else if (w < 0) {
                    close(pidfd); /* ECHILD: reaped by someone else; stop watching (it stays readable) */
                    pidfd = -1;
                }
                continue;
            }
            fl_pipe *p = NULL;
            for (int i = 0; i < n; i++)
                if (pipes[i].fd == pf[j].fd) p = &pipes[i];
            if (!p) continue;
            if ((pf[j].revents & POLLOUT) && p->in_off < p->in_len) {
                ssize_t w = write(p->fd, p->in + p->in_off, p->in_len - p->in_off);
                if (w > 0) p->in_off += (size_t)w;
                if (w < 0 && errno != EAGAIN && errno != EINTR) {
                    /* EPIPE: the child stopped reading; reported unless another error came first, as Node's */
                    if (pipe_error == 0) pipe_error = -errno;
                    p->in_off = p->in_len;
                }
                if (p->in_off >= p->in_len) {
                    shutdown(p->fd, SHUT_WR);
                    if (!p->reads) { p->done = 1; continue; }
                }
            }
            if (pf[j].revents & (POLLIN | POLLHUP | POLLERR)) {
                if (!p->reads) {
                    if (pf[j].revents & (POLLHUP | POLLERR)) p->done = 1; /* the child closed it */
                    continue;
                }
                ssize_t got = read(p->fd, chunk, sizeof chunk);
                if (got > 0) {
                    if (append(p, chunk, (size_t)got) != 0) { result = -ENOMEM; goto kill_child; }
                    total += (size_t)got;
                    if (req->max_buffer >= 0 && (double)total > req->max_buffer) { result = -ENOBUFS; goto kill_child; }
                } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
                    close_pipe(p);
                }
            }
        }
        continue;
    kill_child:
        if (!killed) {
            killed = 1;
            if (!out->exited && pidfd >= 0) syscall(SYS_pidfd_send_signal, pidfd, req->kill_signal, NULL, 0);
            for (int i = 0; i < n; i++) close_pipe(&pipes[i]);
        }
    }
    if (pidfd >= 0) close(pidfd);
    for (int i = 0; i < n; i++) close_pipe(&pipes[i]);
    free(pf);
    return result != 0 ? result : pipe_error;
}

const unsigned char *fl_sync_output(const fl_sync_out *out, int i, size_t *len) {
    fl_pipe *p = &((fl_pipe *)out->pipes)[i];
    *len = p->len;
    return p->buf;
}

int fl_sync_reads(const fl_sync_out *out, int i) { return ((fl_pipe *)out->pipes)[i].reads; }

void fl_sync_free(fl_sync_out *out, int n) {
    fl_pipe *pipes = out->pipes;
    if (!pipes) return;
    for (int i = 0; i < n; i++) free(pipes[i].buf);
    free(pipes);
    out->pipes = NULL;
}
