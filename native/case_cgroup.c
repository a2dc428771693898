/* Case "cgroup": what it costs to start a child in another cgroup v2 group, by the way the child gets there.
 * The case makes one group of its own, PARENT/forklab-probe-PID (PARENT: a writable cgroup v2 directory the caller
 * names), and starts every child into it; each launch is timed from before the child is created until waitpid
 * has reaped the exec'd target:
 *   fork-exec     fork, execve: the child stays in the probe's own group (the reference)
 *   clone3-into   clone3(CLONE_INTO_CGROUP) with the group's directory fd, then execve: the child is born in the
 *                 group (kernel >= 5.7; no write lock on cgroup_threadgroup_rwsem)
 *   parent-write  fork; the child waits on a pipe while the parent writes its pid to the group's cgroup.procs,
 *                 then execs (a runtime that moves the child from outside, as container runtimes do)
 *   child-write   fork; the child writes "0" (itself) to cgroup.procs through a descriptor the parent opened,
 *                 then execs
 * A write to cgroup.procs takes cgroup_threadgroup_rwsem for writing (kernel/cgroup/cgroup.c); on kernels >= 6.0
 * without the favordynmods mount option that waits for an RCU grace period unless another write came shortly
 * before, so the first write after a pause costs more than the next one: gap-us sleeps (untimed) before every
 * launch.
 * Arguments: methods=M[,M...]  threads=K (threads the probe starts first, blocked until teardown)
 *            gap-us=N (untimed sleep before every launch)  parent=DIR  target=PATH  order-seed=N
 * Rounds: every method once per round, in a fresh shuffled order; samples[k] of every method belong to round k.
 * parent-write and child-write carry two columns: writeNs, the write(2) to cgroup.procs alone (the child's is timed
 * by the child and passed back through a shared page), and sinceWriteNs, from the end of the probe's previous write
 * to the start of this one (0 for its first): how "back to back" the writes really were.
 * The group is removed in teardown (after every child was reaped), also after a failure. */
#include "probe.h"
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435 /* the same number on every architecture */
#endif
#define FL_CLONE_INTO_CGROUP 0x200000000ULL

/* struct clone_args of linux/sched.h as of 5.7 (CLONE_ARGS_SIZE_VER2, 88 bytes): glibc has no wrapper for clone3. */
struct fl_clone_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};

static const char *const keys[] = {"methods", "threads", "gap-us", "parent", "target", "order-seed", NULL};
static const char *const method_names[] = {"fork-exec", "clone3-into", "parent-write", "child-write", NULL};
enum { FORK_EXEC, CLONE3_INTO, PARENT_WRITE, CHILD_WRITE, N_METHODS };
#define CHILD_WRITE_FAILED 125

static int methods[N_METHODS], n_methods;
static long gap_us;
static uint64_t order;
static char group[4096];
static int group_made, group_fd = -1, procs_fd = -1;
static char *target_argv[2];
static char *empty_env[1];

static long n_threads;
static pthread_t *threads;
static long threads_started;
static int hold_pipe[2] = {-1, -1};
static volatile uint64_t *child_write; /* a shared page: the child's write, [0] start and [1] end (CLOCK_MONOTONIC) */
static uint64_t last_write_end;

static void *held(void *arg) {
    char c;
    while (read(hold_pipe[0], &c, 1) < 0 && errno == EINTR) {
    }
    return arg;
}

static void sleep_us(long us) {
    struct timespec ts = {us / 1000000L, (us % 1000000L) * 1000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static int reap(pid_t pid, const char *method) {
    int status;
    pid_t w;
    do w = waitpid(pid, &status, 0); while (w < 0 && errno == EINTR);
    if (w < 0) return fl_fail("waitpid", errno);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    char msg[200];
    if (WIFEXITED(status) && WEXITSTATUS(status) == CHILD_WRITE_FAILED)
        snprintf(msg, sizeof msg, "%s: the child's write of itself to %s/cgroup.procs failed", method, group);
    else if (WIFEXITED(status))
        snprintf(msg, sizeof msg, "child of %s exited with status %d%s", method, WEXITSTATUS(status),
                 WEXITSTATUS(status) == 127 ? " (execve of the target failed)" : "");
    else
        snprintf(msg, sizeof msg, "child of %s was killed by signal %d", method, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return fl_fail_msg("waitpid", msg);
}

static void kill_reap(pid_t pid) {
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
}

/* One launch of method m, timed from before the child is created until waitpid returned; *write_ns: the write to
 * cgroup.procs alone, *since_ns: from the end of the previous write to its start (both 0 for the methods that do not
 * write). */
static int launch(int m, uint64_t *ns, uint64_t *write_ns, uint64_t *since_ns) {
    uint64_t w0 = 0, w1 = 0;
    pid_t pid;
    int go[2];
    *write_ns = *since_ns = 0;
    uint64_t t0 = fl_now_ns();
    switch (m) {
    case FORK_EXEC:
        pid = fork();
        if (pid == 0) { execve(target_argv[0], target_argv, empty_env); _exit(127); }
        if (pid < 0) return fl_fail("fork", errno);
        break;
    case CLONE3_INTO: {
        struct fl_clone_args a;
        memset(&a, 0, sizeof a);
        a.flags = FL_CLONE_INTO_CGROUP;
        a.exit_signal = SIGCHLD;
        a.cgroup = (uint64_t)group_fd;
        pid = (pid_t)syscall(SYS_clone3, &a, sizeof a);
        if (pid == 0) { execve(target_argv[0], target_argv, empty_env); _exit(127); }
        if (pid < 0) return fl_fail("clone3(CLONE_INTO_CGROUP)", errno);
        break;
    }
    case PARENT_WRITE: {
        if (pipe2(go, O_CLOEXEC) != 0) return fl_fail("pipe2", errno);
        pid = fork();
        if (pid == 0) {
            char c;
            ssize_t r;
            do r = read(go[0], &c, 1); while (r < 0 && errno == EINTR);
            if (r != 1) _exit(CHILD_WRITE_FAILED); /* the parent closed the pipe without a go: its write failed */
            execve(target_argv[0], target_argv, empty_env);
            _exit(127);
        }
        int err = pid < 0 ? errno : 0;
        close(go[0]);
        if (pid < 0) { close(go[1]); return fl_fail("fork", err); }
        char buf[24];
        int len = snprintf(buf, sizeof buf, "%d", (int)pid);
        w0 = fl_now_ns();
        ssize_t wrote = write(procs_fd, buf, (size_t)len);
        w1 = fl_now_ns();
        if (wrote != len) {
            err = errno;
            close(go[1]);
            kill_reap(pid);
            return fl_fail("write(cgroup.procs)", err);
        }
        ssize_t w;
        do w = write(go[1], "g", 1); while (w < 0 && errno == EINTR);
        err = errno;
        close(go[1]);
        if (w != 1) { kill_reap(pid); return fl_fail("write(pipe)", err); }
        break;
    }
    case CHILD_WRITE:
        pid = fork();
        if (pid == 0) {
            uint64_t c0 = fl_now_ns();
            if (write(procs_fd, "0", 1) != 1) _exit(CHILD_WRITE_FAILED);
            child_write[1] = fl_now_ns();
            child_write[0] = c0;
            execve(target_argv[0], target_argv, empty_env);
            _exit(127);
        }
        if (pid < 0) return fl_fail("fork", errno);
        break;
    default:
        return fl_fail_msg("launch", "unknown method");
    }
    if (reap(pid, method_names[m]) != 0) return -1;
    *ns = fl_now_ns() - t0;
    if (m == CHILD_WRITE) {
        w0 = child_write[0];
        w1 = child_write[1];
    }
    if (m == PARENT_WRITE || m == CHILD_WRITE) {
        *write_ns = w1 - w0;
        *since_ns = last_write_end ? w0 - last_write_end : 0;
        last_write_end = w1;
    }
    return 0;
}

static int parse_methods(void) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", fl_arg_str("methods", "fork-exec,clone3-into,parent-write,child-write"));
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int m = -1;
        for (int i = 0; method_names[i]; i++)
            if (strcmp(tok, method_names[i]) == 0) m = i;
        if (m < 0) return fl_fail_msg("usage", "unknown value: methods");
        for (int i = 0; i < n_methods; i++)
            if (methods[i] == m) return fl_fail_msg("usage", "a method given twice: methods");
        methods[n_methods++] = m;
    }
    return n_methods ? 0 : fl_fail_msg("usage", "no method: methods");
}

/* The first line of DIR/FILE, without its newline ("" when unreadable). */
static void read_line(const char *dir, const char *file, char *out, size_t n) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (fgets(out, (int)n, f)) out[strcspn(out, "\n")] = '\0';
    fclose(f);
}

static int setup(void) {
    if (parse_methods() != 0) return -1;
    n_threads = fl_arg_long("threads", 0, 0, 4096);
    gap_us = fl_arg_long("gap-us", 0, 0, 10000000);
    order = fl_order_seed();
    const char *parent = fl_arg_str("parent", NULL);
    const char *target = fl_arg_str("target", NULL);
    if (!parent || !target) return fl_fail_msg("usage", "parent=DIR and target=PATH are required");
    target_argv[0] = (char *)target;
    if (access(target, X_OK) != 0) return fl_fail("access(target)", errno);

    /* The group: a directory of the v2 hierarchy (mkdir makes a group there, with its cgroup.* files). */
    if (snprintf(group, sizeof group, "%s/forklab-probe-%d", parent, (int)getpid()) >= (int)sizeof group)
        return fl_fail_msg("usage", "parent path too long: parent");
    if (mkdir(group, 0755) != 0) return fl_fail("mkdir(group)", errno);
    group_made = 1;
    char type[64];
    read_line(group, "cgroup.type", type, sizeof type);
    if (type[0] == '\0') return fl_fail_msg("cgroup.type", "the parent directory is not a cgroup v2 group (no cgroup.type in the new directory)");
    if (strcmp(type, "domain") != 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "the new group is of type '%s', not 'domain': no process can be moved into it", type);
        return fl_fail_msg("cgroup.type", msg);
    }
    group_fd = open(group, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (group_fd < 0) return fl_fail("open(group)", errno);
    char procs[4200];
    snprintf(procs, sizeof procs, "%s/cgroup.procs", group);
    procs_fd = open(procs, O_WRONLY | O_CLOEXEC);
    if (procs_fd < 0) return fl_fail("open(cgroup.procs)", errno);

    void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) return fl_fail("mmap", errno);
    child_write = page;
    /* The other threads: started, then blocked on a pipe until teardown. */
    if (pipe2(hold_pipe, O_CLOEXEC) != 0) return fl_fail("pipe2", errno);
    if (n_threads > 0) {
        threads = calloc((size_t)n_threads, sizeof *threads);
        if (!threads) return fl_fail("calloc", errno);
        for (; threads_started < n_threads; threads_started++) {
            int rc = pthread_create(&threads[threads_started], NULL, held, NULL);
            if (rc != 0) return fl_fail("pthread_create", rc);
        }
    }
    /* One untimed launch of each method: a refused write or clone3 shows here, with its errno, before any batch. */
    for (int i = 0; i < n_methods; i++) {
        uint64_t ns, write_ns, since_ns;
        if (launch(methods[i], &ns, &write_ns, &since_ns) != 0) return -1;
    }
    fl_info_begin();
    fl_info_str("group", group);
    fl_info_str("groupType", type);
    fl_info_long("threads", n_threads);
    fl_info_long("threadsInProcess", fl_proc_kb("/proc/self/status", "Threads"));
    fl_info_long("gapUs", gap_us);
    fl_info_long("methods", n_methods);
    fl_info_end();
    return 0;
}

static int batch(long n, int warmup) {
    uint64_t *ns[N_METHODS] = {0}, *write_ns[N_METHODS] = {0}, *since_ns[N_METHODS] = {0};
    int rc = 0;
    for (int i = 0; i < n_methods && rc == 0; i++)
        if (!(ns[i] = malloc((size_t)n * sizeof **ns)) || !(write_ns[i] = malloc((size_t)n * sizeof **write_ns)) ||
            !(since_ns[i] = malloc((size_t)n * sizeof **since_ns)))
            rc = fl_fail("malloc", errno);
    int seq[N_METHODS];
    for (long k = 0; k < n && rc == 0; k++) {
        fl_shuffle(&order, seq, n_methods);
        for (int q = 0; q < n_methods && rc == 0; q++) {
            if (gap_us > 0) sleep_us(gap_us);
            int i = seq[q];
            rc = launch(methods[i], &ns[i][k], &write_ns[i][k], &since_ns[i][k]);
        }
    }
    for (int i = 0; i < n_methods && rc == 0; i++) {
        if (methods[i] == PARENT_WRITE || methods[i] == CHILD_WRITE) fl_emit_samples_x(method_names[methods[i]], warmup, ns[i], n, "writeNs", write_ns[i], "sinceWriteNs", since_ns[i], NULL);
        else fl_emit_samples(method_names[methods[i]], warmup, ns[i], n);
    }
    for (int i = 0; i < n_methods; i++) {
        free(ns[i]);
        free(write_ns[i]);
        free(since_ns[i]);
    }
    return rc;
}

static void teardown(void) {
    if (hold_pipe[1] >= 0) close(hold_pipe[1]); /* every held thread reads end of input and returns */
    for (long i = 0; i < threads_started; i++) pthread_join(threads[i], NULL);
    if (hold_pipe[0] >= 0) close(hold_pipe[0]);
    free(threads);
    if (procs_fd >= 0) close(procs_fd);
    if (group_fd >= 0) close(group_fd);
    if (child_write) munmap((void *)child_write, 4096);
    /* Every child was reaped; a group whose last task has just exited may still count as populated for a moment. */
    for (int tries = 0; group_made && tries < 200; tries++) {
        if (rmdir(group) == 0 || errno == ENOENT) break;
        if (errno != EBUSY) break;
        sleep_us(5000);
    }
}

const fl_case fl_case_cgroup = {"cgroup", keys, setup, batch, teardown};
FL_CASE(fl_case_cgroup);
