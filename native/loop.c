/* The fidelity reference: the articles' own method, outside forklab's harness. It maps and touches a
 * region like the probe, then runs a tight loop of N launches and prints the mean per call in ns:
 *   forklab-loop METHOD RSS_MB THP N TARGET [WARMUP [BLOCK]]  ->  {"meanNs":...,"iterations":N,"blockMeansNs":[...]}
 * WARMUP launches (default 0) run first, untimed, as the probe's warm-up does. The clock is also read after every
 * BLOCK launches (default 10), and each block's mean per call is printed too: a preemption of the VM then spoils
 * one block, not the whole figure.
 * METHOD is a launch method of the spawn case, "thread" (pthread_create+join of an empty thread), "threaded-fork-exit"
 * (fork-exit in a process that has made one thread first, as create's probe has: such a process forks more slowly
 * for the rest of its life, docs/experiments/create.md), or "cow":
 * fork, the child times one write to every page of the region (the copy-on-write faults) and sends the time
 * through a pipe; meanNs is then per page, the parent writes every page again (untimed) before the next fork. 
 * METHOD "fds:WAY:OPEN:NOFILE" is the fds case's operation: the soft RLIMIT_NOFILE set to NOFILE, OPEN descriptors
 * of /dev/null opened O_CLOEXEC, then WAY: fork-exec or posix-spawn (close-on-exec alone), fork-close-loop,
 * fork-fcntl-loop (F_GETFD on every number below the limit, F_SETFD where FD_CLOEXEC is missing) or fork-close-range,
 * the child exec'ing TARGET (RSS_MB and THP are ignored).
 * "clone3-into:DIR" and "parent-write:DIR" start each child into a cgroup v2 group the loop makes, DIR/forklab-loop-PID,
 * and removes at exit: clone3(CLONE_INTO_CGROUP) with the group's fd, or fork, the child waiting on a pipe while the
 * parent writes its pid to the group's cgroup.procs, then exec (the cgroup case's methods, case_cgroup.c).
 * "contend2-METHOD" (METHOD fork-exec, vfork-exec or posix-spawn): two creator processes forked from this one, each
 * a loop of N launches after its WARMUP, started together by a flag in shared memory; each notes the clock after
 * every BLOCK of its launches, and block k's mean is (the later creator's end of block k - the end of block k-1) ÷
 * (2 × BLOCK): the wall time per creation of both together, as the probe's contend case reports it.
 * No per-iteration timing, no protocol, no pipes. */
#include "region.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *target_argv[2];
static char *stack_top;
static char *empty_env[1];

static int clone_child(void *arg) {
    (void)arg;
    execve(target_argv[0], target_argv, empty_env);
    _exit(127);
}

static void *empty_thread(void *arg) { return arg; }

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#ifndef SYS_clone3
#define SYS_clone3 435
#endif
/* clone3's struct clone_args up to its cgroup field (88 bytes, kernel 5.7). */
struct clone_args_v2 {
    unsigned long long flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};
static char group[4096];
static int group_fd = -1, procs_fd = -1;

static void remove_group(void) {
    if (procs_fd >= 0) close(procs_fd);
    if (group_fd >= 0) close(group_fd);
    procs_fd = group_fd = -1;
    for (int tries = 0; group[0] && tries < 200; tries++) {
        if (rmdir(group) == 0 || errno != EBUSY) break;
        usleep(5000); /* a child that has just exited may count for a moment */
    }
    group[0] = '\0';
}

static void die(const char *what) {
    fprintf(stderr, "forklab-loop: %s: %s\n", what, strerror(errno));
    exit(2);
}

static fl_region region;
static void launch_once(int m, const char *method);

/* "contend2-METHOD": two free-running creator processes; prints the aggregate per creation (block means as above). */
static int contend2(int m, const char *method, long n, long warmup, long block) {
    long nblocks = n / block;
    size_t bytes = sizeof(long) * 2 + sizeof(double) * 2 * (size_t)(nblocks + 1);
    char *shared = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) die("mmap");
    volatile long *ready = (volatile long *)shared, *go = ready + 1;
    double *ends = (double *)(shared + 2 * sizeof(long)); /* creator c's end of block k: ends[c * (nblocks + 1) + k] */
    pid_t pids[2];
    for (int c = 0; c < 2; c++) {
        fflush(stdout);
        pids[c] = fork();
        if (pids[c] < 0) die("fork");
        if (pids[c] == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            for (long i = 0; i < warmup; i++) launch_once(m, method);
            __atomic_add_fetch(ready, 1, __ATOMIC_SEQ_CST);
            while (!__atomic_load_n(go, __ATOMIC_SEQ_CST)) sched_yield();
            for (long i = 0; i < nblocks * block; i++) {
                launch_once(m, method);
                if ((i + 1) % block == 0) ends[c * (nblocks + 1) + (i + 1) / block - 1] = now_ns();
            }
            _exit(0);
        }
    }
    while (__atomic_load_n(ready, __ATOMIC_SEQ_CST) < 2) sched_yield();
    double t0 = now_ns();
    __atomic_store_n(go, 1, __ATOMIC_SEQ_CST);
    for (int c = 0; c < 2; c++) {
        int status;
        if (waitpid(pids[c], &status, 0) != pids[c]) die("waitpid");
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) { fprintf(stderr, "forklab-loop: a creator failed\n"); exit(2); }
    }
    double prev = t0;
    printf("{\"blockMeansNs\":[");
    for (long k = 0; k < nblocks; k++) {
        double a = ends[k], b = ends[nblocks + 1 + k], last = a > b ? a : b;
        printf("%s%.1f", k ? "," : "", (last - prev) / (2.0 * (double)block));
        prev = last;
    }
    printf("],\"meanNs\":%.1f,\"iterations\":%ld}\n", (prev - t0) / (2.0 * (double)(nblocks * block)), nblocks * block);
    return 0;
}

/* The "cow" iteration: returns the child's first-write pass in ns. */
static double cow_once(void) {
    fl_region_touch(&region); /* the parent takes every page back as private and writable */
    int fds[2];
    if (pipe(fds) != 0) die("pipe");
    pid_t pid = fork();
    if (pid < 0) die("fork");
    if (pid == 0) {
        static unsigned char v;
        v++;
        double t0 = now_ns();
        for (size_t off = 0; off < region.bytes; off += 4096) ((volatile unsigned char *)region.base)[off] = v;
        double ns = now_ns() - t0;
        _exit(write(fds[1], &ns, sizeof ns) == (ssize_t)sizeof ns ? 0 : 1);
    }
    close(fds[1]);
    double ns = -1;
    ssize_t got = read(fds[0], &ns, sizeof ns);
    close(fds[0]);
    int status;
    if (waitpid(pid, &status, 0) != pid) die("waitpid");
    if (got != (ssize_t)sizeof ns || !WIFEXITED(status) || WEXITSTATUS(status) != 0) { fprintf(stderr, "forklab-loop: cow child failed\n"); exit(2); }
    return ns;
}

/* The fds operation: what the child does before exec (0 nothing, 1 close loop, 2 fcntl loop, 3 close_range). */
static int fds_closer = -1;

static void fds_child(void) {
    struct rlimit rl;
    if (fds_closer == 1 || fds_closer == 2) {
        if (getrlimit(RLIMIT_NOFILE, &rl) != 0) _exit(126);
        for (int fd = 3; fd < (int)rl.rlim_cur; fd++) {
            if (fds_closer == 1) {
                close(fd);
                continue;
            }
            int f = fcntl(fd, F_GETFD);
            if (f >= 0 && (f & FD_CLOEXEC) == 0) fcntl(fd, F_SETFD, f | FD_CLOEXEC);
        }
    } else if (fds_closer == 3 && syscall(436 /* close_range */, 3u, ~0u, 0u) != 0) {
        _exit(126);
    }
    execve(target_argv[0], target_argv, empty_env);
    _exit(127);
}

/* "fds:WAY:OPEN:NOFILE": sets the limit and opens the descriptors; returns the launch method (10: fork and the way's closing, 2 posix_spawn). */
static int fds_prepare(const char *spec) {
    char way[64];
    long open_fds, nofile;
    if (sscanf(spec, "fds:%63[^:]:%ld:%ld", way, &open_fds, &nofile) != 3) { fprintf(stderr, "forklab-loop: bad fds spec %s\n", spec); exit(2); }
    const char *const names[] = {"fork-exec", "fork-close-loop", "fork-fcntl-loop", "fork-close-range"};
    for (int i = 0; i < 4; i++)
        if (strcmp(way, names[i]) == 0) fds_closer = i;
    if (fds_closer < 0 && strcmp(way, "posix-spawn") != 0) { fprintf(stderr, "forklab-loop: unknown fds way %s\n", way); exit(2); }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) die("getrlimit");
    rl.rlim_cur = (rlim_t)nofile;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) die("setrlimit");
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_fd < 0) die("open");
    for (long i = 0; i < open_fds; i++)
        if (fcntl(null_fd, F_DUPFD_CLOEXEC, 0) < 0) die("fcntl");
    return fds_closer < 0 ? 2 : 10;
}

/* One launch of method m (or one thread create+join), reaped and checked; exits on any failure. */
static void launch_once(int m, const char *method) {
    if (m == 5) {
        pthread_t t;
        if ((errno = pthread_create(&t, NULL, empty_thread, NULL)) != 0) die("pthread_create");
        if ((errno = pthread_join(t, NULL)) != 0) die("pthread_join");
        return;
    }
    pid_t pid = -1;
    int status, go[2];
    struct clone_args_v2 ca;
    char buf[24];
    switch (m) {
    case 0: pid = fork(); if (pid == 0) { execve(target_argv[0], target_argv, empty_env); _exit(127); } break;
    case 1: pid = vfork(); if (pid == 0) { execve(target_argv[0], target_argv, empty_env); _exit(127); } break;
    case 2: if ((errno = posix_spawn(&pid, target_argv[0], NULL, NULL, target_argv, empty_env)) != 0) die("posix_spawn"); break;
    case 3: pid = clone(clone_child, stack_top, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL); break;
    case 4: pid = fork(); if (pid == 0) _exit(0); break;
    case 8:
        memset(&ca, 0, sizeof ca);
        ca.flags = 0x200000000ULL; /* CLONE_INTO_CGROUP */
        ca.exit_signal = SIGCHLD;
        ca.cgroup = (unsigned long long)group_fd;
        pid = (pid_t)syscall(SYS_clone3, &ca, sizeof ca);
        if (pid == 0) { execve(target_argv[0], target_argv, empty_env); _exit(127); }
        break;
    case 9:
        if (pipe2(go, O_CLOEXEC) != 0) die("pipe2");
        pid = fork();
        if (pid == 0) {
            char c;
            if (read(go[0], &c, 1) != 1) _exit(125);
            execve(target_argv[0], target_argv, empty_env);
            _exit(127);
        }
        close(go[0]);
        if (pid > 0) {
            int len = snprintf(buf, sizeof buf, "%d", (int)pid);
            if (write(procs_fd, buf, (size_t)len) != len) die("write(cgroup.procs)");
            if (write(go[1], "g", 1) != 1) die("write(pipe)");
        }
        close(go[1]);
        break;
    case 10: pid = fork(); if (pid == 0) fds_child(); break;
    }
    if (pid < 0) die(method);
    if (waitpid(pid, &status, 0) != pid) die("waitpid");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) { fprintf(stderr, "forklab-loop: child failed\n"); exit(2); }
}

int main(int argc, char **argv) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (argc < 6 || argc > 8) {
        fprintf(stderr, "usage: forklab-loop METHOD RSS_MB THP N TARGET [WARMUP [BLOCK]]\n");
        return 2;
    }
    const char *method = argv[1];
    const char *colon = strncmp(method, "fds:", 4) == 0 ? NULL : strchr(method, ':');
    if (colon) { /* a cgroup method: make the group under the directory after the colon */
        if (snprintf(group, sizeof group, "%s/forklab-loop-%d", colon + 1, (int)getpid()) >= (int)sizeof group) { fprintf(stderr, "forklab-loop: path too long\n"); return 2; }
        if (mkdir(group, 0755) != 0) { group[0] = '\0'; die("mkdir(group)"); }
        atexit(remove_group);
        char procs[4200];
        snprintf(procs, sizeof procs, "%s/cgroup.procs", group);
        if ((group_fd = open(group, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) die("open(group)");
        if ((procs_fd = open(procs, O_WRONLY | O_CLOEXEC)) < 0) die("open(cgroup.procs)");
    }
    size_t name_len = colon ? (size_t)(colon - method) : strlen(method);
#define IS(name) (name_len == strlen(name) && strncmp(method, name, name_len) == 0)
    long rss_mb = atol(argv[2]);
    enum fl_thp thp = strcmp(argv[3], "on") == 0 ? FL_THP_ON : strcmp(argv[3], "off") == 0 ? FL_THP_OFF : FL_THP_DEFAULT;
    long n = atol(argv[4]);
    target_argv[0] = argv[5];
    const char *call;
    /* The articles' own fill: one write per page from user space (the probe asks the kernel; selfcheck compares). */
    if (fl_region_map(&region, (size_t)rss_mb << 20, thp, FL_FILL_WRITE, NULL, &call) != 0) die(call);
    char *stack = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) die("mmap");
    stack_top = stack + 65536;
    if (strncmp(method, "contend2-", 9) == 0) {
        int base = strcmp(method + 9, "fork-exec") == 0 ? 0 : strcmp(method + 9, "vfork-exec") == 0 ? 1 : strcmp(method + 9, "posix-spawn") == 0 ? 2 : -1;
        long block = argc >= 8 ? atol(argv[7]) : 10;
        if (base < 0 || block < 1 || n < block) { fprintf(stderr, "forklab-loop: %s needs fork-exec, vfork-exec or posix-spawn and N >= BLOCK\n", method); return 2; }
        return contend2(base, method + 9, n, argc >= 7 ? atol(argv[6]) : 0, block);
    }
    int m = strncmp(method, "fds:", 4) == 0 ? fds_prepare(method)
          : IS("fork-exec") ? 0 : IS("vfork-exec") ? 1 : IS("posix-spawn") ? 2 : IS("clone-vfork") ? 3
          : IS("fork-exit") ? 4 : IS("thread") ? 5 : IS("cow") ? 6 : IS("threaded-fork-exit") ? 7
          : IS("clone3-into") && colon ? 8 : IS("parent-write") && colon ? 9 : -1;
    if (m < 0) { fprintf(stderr, "forklab-loop: unknown method %s\n", method); return 2; }
    if (m == 7) {
        launch_once(5, "thread");
        m = 4;
    }
    long warmup = argc == 7 ? atol(argv[6]) : 0;
    if (m == 6) {
        if (region.bytes == 0) { fprintf(stderr, "forklab-loop: cow needs RSS_MB > 0\n"); return 2; }
        for (long i = 0; i < warmup; i++) cow_once();
        double pages = (double)(region.bytes / 4096), total = 0;
        printf("{\"perPage\":true,\"blockMeansNs\":[");
        for (long i = 0; i < n; i++) {
            double ns = cow_once();
            total += ns;
            printf("%s%.3f", i ? "," : "", ns / pages); /* one block per pass over the region */
        }
        printf("],\"meanNs\":%.3f,\"iterations\":%ld}\n", total / ((double)n * pages), n);
        return 0;
    }
    long block = argc >= 8 ? atol(argv[7]) : 10;
    if (block < 1) block = 1;
    double *blocks = malloc(sizeof(double) * (size_t)(n / block + 1));
    if (!blocks) die("malloc");
    long nblocks = 0;
    for (long i = 0; i < warmup; i++) launch_once(m, method);
    double t0 = now_ns(), tb = t0;
    for (long i = 0; i < n; i++) {
        launch_once(m, method);
        if ((i + 1) % block == 0) {
            double t = now_ns();
            blocks[nblocks++] = (t - tb) / (double)block;
            tb = t;
        }
    }
    double t1 = now_ns();
    printf("{\"meanNs\":%.1f,\"iterations\":%ld,\"blockMeansNs\":[", (t1 - t0) / n, n);
    for (long k = 0; k < nblocks; k++) printf("%s%.1f", k ? "," : "", blocks[k]);
    printf("]}\n");
    free(blocks);
    return 0;
}
