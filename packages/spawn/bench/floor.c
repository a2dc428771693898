/* bench:spawn's C floor: what the cheapest C program pays to give a child what forklab's child gets.
 *   forklab-bench-floor rss-mb=N target=PATH [pipe-buffers=1]
 * Holds N MB of touched anonymous memory (as the Node parent holds its Buffers), then answers on stdin
 *   warmup N MODE | run N MODE | stop
 * with JSON lines on stdout: ready (with the environment's size), samples {series, ns[]}, end; error.
 * MODE:
 *   ignore   stdio 'ignore': /dev/null read-only dup2'd onto 0 and read-write onto 1 and 2, each its own open
 *            (file actions), an empty signal mask and signals 1-31 at their defaults (glibc's internal 32 and
 *            33 too unless this process ignores them; 34-64 keep this process's disposition), as libuv's child
 *            and forklab's get; the child's environment this process's own (the bench starts it with the
 *            envPairs Node builds), reaped through a pidfd: pidfd_open, poll, waitid(P_PIDFD)  -- spawn and
 *            spawnSync's floor
 *   pipe     the same with three socketpairs (AF_UNIX, SOCK_STREAM) dup2'd onto 0, 1, 2 (with 64 KiB send and
 *            receive buffers on both ends when pipe-buffers=1: what forklab does where Node's libuv, 1.51 and
 *            later, does), the parent reading its ends to EOF while it polls the pidfd  -- execFile's floor
 *   detached ignore plus POSIX_SPAWN_SETSID
 *   bare     posix_spawn with no file actions, no attributes, an empty environment, waitpid: what the
 *            probe's posix-spawn method did, the floor before it was made fair
 * Each sample runs from before the file actions are built to after the child is reaped. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

extern char **environ;
static const char *target;
static char *empty_env[1];
static int pipe_buffers;

static void fail(const char *call, int err) {
    printf("{\"type\":\"error\",\"call\":\"%s\",\"errno\":%d,\"message\":\"%s\"}\n", call, err, strerror(err));
    fflush(stdout);
    exit(2);
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void check_status(int code, int status) {
    if (code == CLD_EXITED && status == 0) return;
    printf("{\"type\":\"error\",\"call\":\"child\",\"errno\":0,\"message\":\"the target %s %d\"}\n",
           code == CLD_EXITED ? "exited with status" : "was killed by signal", status);
    fflush(stdout);
    exit(2);
}

/* This process ignores sig (the system call: glibc's sigaction refuses its internal signals). */
static int ignores(int sig) {
    unsigned long k[8];
    memset(k, 0, sizeof k);
    if (syscall(SYS_rt_sigaction, sig, NULL, k, 8) != 0) return 0;
    return (void *)k[0] == (void *)SIG_IGN;
}

static void set_attr(posix_spawnattr_t *attr, int detached) {
    sigset_t none, dfl;
    sigemptyset(&none);
    memset(&dfl, 0, sizeof dfl);
    /* sigaddset refuses glibc's internal signals: write the bits directly */
    for (int sig = 1; sig <= 33; sig++)
        if (sig != SIGKILL && sig != SIGSTOP && (sig < 32 || !ignores(sig)))
            ((unsigned long *)&dfl)[(sig - 1) / (8 * sizeof(unsigned long))] |= 1UL << ((sig - 1) % (8 * sizeof(unsigned long)));
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (detached ? POSIX_SPAWN_SETSID : 0);
    int err;
    if ((err = posix_spawnattr_init(attr)) || (err = posix_spawnattr_setsigmask(attr, &none)) ||
        (err = posix_spawnattr_setsigdefault(attr, &dfl)) || (err = posix_spawnattr_setflags(attr, flags)))
        fail("posix_spawnattr", err);
}

/* Reaps through the pidfd, reading the given descriptors (pipe mode) until EOF on each. */
static void reap(pid_t pid, int *fds, int nfds) {
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0) fail("pidfd_open", errno);
    int exited = 0, open_fds = nfds;
    siginfo_t si;
    char buf[4096];
    while (!exited || open_fds > 0) {
        struct pollfd pf[4];
        int m = 0;
        if (!exited) pf[m++] = (struct pollfd){.fd = pidfd, .events = POLLIN};
        for (int i = 0; i < nfds; i++)
            if (fds[i] >= 0) pf[m++] = (struct pollfd){.fd = fds[i], .events = POLLIN};
        if (poll(pf, (nfds_t)m, -1) < 0) {
            if (errno == EINTR) continue;
            fail("poll", errno);
        }
        for (int j = 0; j < m; j++) {
            if (!pf[j].revents) continue;
            if (pf[j].fd == pidfd) {
                memset(&si, 0, sizeof si);
                if (waitid((idtype_t)P_PIDFD, (id_t)pidfd, &si, WEXITED | WNOHANG) != 0) fail("waitid", errno);
                if (si.si_pid != 0) exited = 1;
                continue;
            }
            ssize_t got = read(pf[j].fd, buf, sizeof buf);
            if (got > 0 || (got < 0 && (errno == EAGAIN || errno == EINTR))) continue;
            for (int i = 0; i < nfds; i++)
                if (fds[i] == pf[j].fd) { close(fds[i]); fds[i] = -1; open_fds--; }
        }
    }
    close(pidfd);
    check_status(si.si_code, si.si_status);
}

static uint64_t once(const char *mode) {
    char *argv[] = {(char *)target, NULL};
    pid_t pid;
    int err;
    uint64_t t0 = now_ns();
    if (strcmp(mode, "bare") == 0) {
        if ((err = posix_spawn(&pid, target, NULL, NULL, argv, empty_env)) != 0) fail("posix_spawn", err);
        int status;
        while (waitpid(pid, &status, 0) < 0)
            if (errno != EINTR) fail("waitpid", errno);
        check_status(WIFEXITED(status) ? CLD_EXITED : CLD_KILLED, WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        return now_ns() - t0;
    }
    int pipe_mode = strcmp(mode, "pipe") == 0;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    if ((err = posix_spawn_file_actions_init(&fa)) != 0) fail("posix_spawn_file_actions_init", err);
    set_attr(&attr, strcmp(mode, "detached") == 0);
    int child_end[3] = {-1, -1, -1}, parent_end[3] = {-1, -1, -1};
    if (pipe_mode) {
        for (int i = 0; i < 3; i++) {
            int sv[2];
            if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) fail("socketpair", errno);
            for (int k = 0; pipe_buffers && k < 2; k++) {
                int size = 64 * 1024;
                setsockopt(sv[k], SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
                setsockopt(sv[k], SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
            }
            parent_end[i] = sv[0];
            child_end[i] = sv[1];
            if ((err = posix_spawn_file_actions_adddup2(&fa, sv[1], i)) != 0) fail("adddup2", err);
        }
    } else {
        for (int i = 0; i < 3; i++) {
            int nul = open("/dev/null", (i == 0 ? O_RDONLY : O_RDWR) | O_CLOEXEC);
            if (nul < 0) fail("open(/dev/null)", errno);
            child_end[i] = nul;
            if ((err = posix_spawn_file_actions_adddup2(&fa, nul, i)) != 0) fail("adddup2", err);
        }
    }
    err = posix_spawn(&pid, target, &fa, &attr, argv, environ);
    for (int i = 0; i < 3; i++)
        if (child_end[i] >= 0) close(child_end[i]);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (err != 0) fail("posix_spawn", err);
    if (pipe_mode) {
        close(parent_end[0]); /* the child's stdin reads EOF; stdout and stderr are read to EOF */
        for (int i = 1; i < 3; i++) fcntl(parent_end[i], F_SETFL, O_NONBLOCK);
        reap(pid, parent_end + 1, 2);
    } else reap(pid, NULL, 0);
    return now_ns() - t0;
}

static void hold(long mb) {
    if (mb <= 0) return;
    size_t bytes = (size_t)mb << 20;
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) fail("mmap", errno);
    for (size_t off = 0; off < bytes; off += 4096) p[off] = 0x5a;
}

int main(int argc, char **argv) {
    long rss_mb = 0;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "rss-mb=", 7) == 0) rss_mb = atol(argv[i] + 7);
        else if (strncmp(argv[i], "target=", 7) == 0) target = argv[i] + 7;
        else if (strcmp(argv[i], "pipe-buffers=1") == 0) pipe_buffers = 1;
        else fail("usage", EINVAL);
    }
    if (!target || access(target, X_OK) != 0) fail("access(target)", errno ? errno : EINVAL);
    hold(rss_mb);
    long env_count = 0, env_bytes = 0;
    for (char **e = environ; *e; e++) env_count++, env_bytes += (long)strlen(*e) + 1;
    printf("{\"type\":\"ready\",\"rssMb\":%ld,\"envCount\":%ld,\"envBytes\":%ld}\n", rss_mb, env_count, env_bytes);
    fflush(stdout);
    char line[128], cmd[16], mode[16];
    long n;
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "stop", 4) == 0) break;
        if (sscanf(line, "%15s %ld %15s", cmd, &n, mode) != 3 || n < 1 || n > 100000) fail("command", EINVAL);
        if (strcmp(mode, "ignore") && strcmp(mode, "pipe") && strcmp(mode, "detached") && strcmp(mode, "bare")) fail("mode", EINVAL);
        uint64_t *ns = malloc((size_t)n * sizeof *ns);
        if (!ns) fail("malloc", ENOMEM);
        for (long i = 0; i < n; i++) ns[i] = once(mode);
        printf("{\"type\":\"samples\",\"series\":\"%s\",\"warmup\":%s,\"ns\":[", mode, strcmp(cmd, "warmup") == 0 ? "true" : "false");
        for (long i = 0; i < n; i++) printf("%s%llu", i ? "," : "", (unsigned long long)ns[i]);
        printf("]}\n{\"type\":\"end\"}\n");
        fflush(stdout);
        free(ns);
    }
    return 0;
}
