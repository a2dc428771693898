/* Case "fds": what starting a child costs against the descriptors the parent holds open and against its
 * RLIMIT_NOFILE, by the way the child is kept from inheriting them. The parent sets its soft RLIMIT_NOFILE to
 * `nofile` (within the hard limit) and opens `fds` descriptors (F_DUPFD_CLOEXEC of one /dev/null descriptor: the
 * lowest free numbers, every one close-on-exec, as Node, Python, Bun and Java open theirs). Each way is timed from
 * its first call until waitpid returned, the child exec'ing the static `return 0` target:
 *   fork-exec             fork, the child execs at once: close-on-exec alone (the kernel closes them in exec)
 *   fork-close-loop       fork, the child close()s every number from 3 to RLIMIT_NOFILE − 1, then execs
 *   fork-fcntl-loop       fork, the child fcntl(F_GETFD)s every number from 3 to RLIMIT_NOFILE − 1 and sets
 *                         FD_CLOEXEC where it is missing (Bun's loop, issue #25839), then execs
 *   fork-proc-fd          fork, the child reads /proc/self/fd (getdents64) and closes each descriptor it lists
 *   fork-close-range      fork, the child calls close_range(3, ~0U, 0), then execs
 *   posix-spawn           posix_spawn with no file actions: close-on-exec alone
 *   posix-spawn-addclose  posix_spawn with one close action per number from 3 to RLIMIT_NOFILE − 1 (made once, in
 *                         setup): the loop, done by the C library's child
 *   posix-spawn-closefrom posix_spawn with posix_spawn_file_actions_addclosefrom_np(3) (glibc 2.34 and later)
 * A way this system cannot take (close_range refused by the kernel or a seccomp filter, no addclosefrom_np in the
 * C library the probe was built with) is left out of the rounds and named in info `unavailable` with why.
 * Setup checks, once per fork way that closes, that its child leaves none of the parent's descriptors to the exec'd
 * program even when they lack FD_CLOEXEC: a child clears the flag on each, runs the way, then checks each with fcntl
 * instead of exec'ing (info `closeVerified`; a way that fails it is an error, info `leftOpen`).
 * Ways are timed round by round: in every round each way once, in a fresh shuffled order (order-seed).
 * Arguments: fds=N  nofile=N  ways=W[,W...]  order-seed=N  target=PATH */
#include "probe.h"
#include "launch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef __NR_close_range
#define __NR_close_range 436 /* the same number on every architecture */
#endif
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
#define HAVE_CLOSEFROM_NP 1
#endif

static const char *const keys[] = {"fds", "nofile", "ways", "order-seed", "target", NULL};

enum way { FORK_EXEC, FORK_CLOSE_LOOP, FORK_FCNTL_LOOP, FORK_PROC_FD, FORK_CLOSE_RANGE, SPAWN, SPAWN_ADDCLOSE, SPAWN_CLOSEFROM, N_WAYS };
static const char *const way_names[] = {"fork-exec",        "fork-close-loop", "fork-fcntl-loop",      "fork-proc-fd",
                                        "fork-close-range", "posix-spawn",     "posix-spawn-addclose", "posix-spawn-closefrom", NULL};
static int is_fork(enum way w) { return w <= FORK_CLOSE_RANGE; }

static enum way ways[N_WAYS];
static int n_ways;
static uint64_t order;
static long open_fds, nofile;
static int null_fd = -1;
static int *opened; /* the descriptors setup opened: n_opened of them (open_fds once setup is done) */
static long n_opened;
static char *target_argv[2];
static char *empty_env[1];
static posix_spawn_file_actions_t addclose_actions, closefrom_actions;
static int have_addclose, have_closefrom;

/* ---- what the child runs before exec (async-signal-safe: system calls only) ---- */

static int close_range_call(unsigned first, unsigned last) { return (int)syscall(__NR_close_range, first, last, 0u); }

static void close_loop(void) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) _exit(126);
    for (long fd = 3; fd < (long)rl.rlim_cur; fd++) close((int)fd);
}

static void fcntl_loop(void) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) _exit(126);
    for (long fd = 3; fd < (long)rl.rlim_cur; fd++) {
        int flags = fcntl((int)fd, F_GETFD);
        if (flags >= 0 && !(flags & FD_CLOEXEC)) fcntl((int)fd, F_SETFD, flags | FD_CLOEXEC);
    }
}

struct linux_dirent64 {
    unsigned long long d_ino;
    long long d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

static void proc_fd(void) {
    int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) _exit(126);
    char buf[4096] __attribute__((aligned(8)));
    long got;
    while ((got = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
        for (long off = 0; off < got;) {
            struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
            off += d->d_reclen;
            if (d->d_name[0] < '0' || d->d_name[0] > '9') continue;
            int fd = 0;
            for (const char *c = d->d_name; *c; c++) fd = fd * 10 + (*c - '0');
            if (fd > 2 && fd != dir) close(fd);
        }
    }
    if (got < 0) _exit(126);
    close(dir);
}

static void child_closes(enum way w) {
    switch (w) {
    case FORK_CLOSE_LOOP: close_loop(); break;
    case FORK_FCNTL_LOOP: fcntl_loop(); break;
    case FORK_PROC_FD: proc_fd(); break;
    case FORK_CLOSE_RANGE:
        if (close_range_call(3, ~0U) != 0) _exit(126);
        break;
    default: break;
    }
}

/* ---- one start, timed until the reap ---- */

static int reap(pid_t pid, enum way w) {
    int status;
    pid_t r;
    do r = waitpid(pid, &status, 0); while (r < 0 && errno == EINTR);
    if (r < 0) return fl_fail("waitpid", errno);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    char msg[160];
    snprintf(msg, sizeof msg, "child of %s %s %d", way_names[w], WIFEXITED(status) ? "exited with status" : "was killed by signal",
             WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    return fl_fail_msg("waitpid", msg);
}

static int start_once(enum way w, uint64_t *ns) {
    pid_t pid;
    int err;
    uint64_t t0 = fl_now_ns();
    if (is_fork(w)) {
        pid = fork();
        if (pid == 0) {
            child_closes(w);
            execve(target_argv[0], target_argv, empty_env);
            _exit(127);
        }
        if (pid < 0) return fl_fail("fork", errno);
    } else {
        const posix_spawn_file_actions_t *fa = w == SPAWN_ADDCLOSE ? &addclose_actions : w == SPAWN_CLOSEFROM ? &closefrom_actions : NULL;
        err = posix_spawn(&pid, target_argv[0], fa, NULL, target_argv, empty_env);
        if (err != 0) return fl_fail("posix_spawn", err);
    }
    if (reap(pid, w) != 0) return -1;
    *ns = fl_now_ns() - t0;
    return 0;
}

/* Whether descriptor fd would survive an exec: open and without FD_CLOEXEC. */
static int survives_exec(int fd) {
    int flags = fcntl(fd, F_GETFD);
    return flags >= 0 && !(flags & FD_CLOEXEC);
}

/* A fork way's child first clears FD_CLOEXEC on every descriptor the parent opened (as if they had leaked without
 * it), runs the way, then checks each instead of exec'ing: exit 0 when none would survive an exec.
 * 1 none would, 0 some would, -1 error (emitted). */
static int verify_fork_way(enum way w) {
    pid_t pid = fork();
    if (pid < 0) return fl_fail("fork", errno);
    if (pid == 0) {
        if (fcntl(null_fd, F_SETFD, 0) != 0) _exit(2);
        for (long i = 0; i < open_fds; i++)
            if (fcntl(opened[i], F_SETFD, 0) != 0) _exit(2);
        child_closes(w);
        if (survives_exec(null_fd)) _exit(1);
        for (long i = 0; i < open_fds; i++)
            if (survives_exec(opened[i])) _exit(1);
        _exit(0);
    }
    int status;
    pid_t r;
    do r = waitpid(pid, &status, 0); while (r < 0 && errno == EINTR);
    if (r < 0) return fl_fail("waitpid", errno);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 2) return fl_fail_msg("verify", "fcntl(F_SETFD) failed in the checking child");
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* ---- setup: the limit, the descriptors, the ways this system can take ---- */

static int parse_ways(void) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", fl_arg_str("ways", "fork-exec"));
    n_ways = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int w = -1;
        for (int i = 0; way_names[i]; i++)
            if (strcmp(tok, way_names[i]) == 0) w = i;
        if (w < 0) return fl_fail_msg("usage", "unknown value: ways");
        for (int i = 0; i < n_ways; i++)
            if (ways[i] == (enum way)w) return fl_fail_msg("usage", "a way given twice: ways");
        ways[n_ways++] = (enum way)w;
    }
    return n_ways ? 0 : fl_fail_msg("usage", "no way: ways");
}

/* Why way w cannot be taken here, or NULL. */
static const char *why_unavailable(enum way w) {
    if (w == FORK_CLOSE_RANGE && close_range_call(~0U - 1, ~0U) != 0) /* an empty range: only asks whether it exists */
        return errno == ENOSYS ? "close_range: ENOSYS (kernel before 5.9)" : errno == EPERM ? "close_range: EPERM (a seccomp filter)" : "close_range failed";
    if (w == SPAWN_ADDCLOSE && !have_addclose) return "posix_spawn_file_actions_addclose failed";
#ifndef HAVE_CLOSEFROM_NP
    if (w == SPAWN_CLOSEFROM) return "posix_spawn_file_actions_addclosefrom_np: not in this C library (glibc 2.34 and later)";
#endif
    if (w == SPAWN_CLOSEFROM && !have_closefrom) return "posix_spawn_file_actions_addclosefrom_np failed";
    return NULL;
}

static int count_open_fds(void) {
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n - 1; /* the directory's own descriptor */
}

static int setup(void) {
    if (parse_ways() != 0) return -1;
    open_fds = fl_arg_long("fds", 0, 0, 1L << 24);
    nofile = fl_arg_long("nofile", 1024, 16, 1L << 30);
    order = fl_order_seed();
    const char *target = fl_arg_str("target", NULL);
    if (!target) return fl_fail_msg("usage", "target=PATH is required");
    if (access(target, X_OK) != 0) return fl_fail("access(target)", errno);
    target_argv[0] = (char *)target;

    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return fl_fail("getrlimit", errno);
    long hard = rl.rlim_max == RLIM_INFINITY ? -1 : (long)rl.rlim_max;
    if (hard >= 0 && nofile > hard) return fl_fail_msg("setrlimit", "nofile is above the hard RLIMIT_NOFILE");
    rl.rlim_cur = (rlim_t)nofile;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) return fl_fail("setrlimit", errno);
    int before = count_open_fds();
    if (before < 0) return fl_fail("opendir(/proc/self/fd)", errno);

    null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_fd < 0) return fl_fail("open(/dev/null)", errno);
    opened = calloc((size_t)open_fds + 1, sizeof *opened);
    if (!opened) return fl_fail("calloc", errno);
    long highest = null_fd;
    for (long i = 0; i < open_fds; i++) {
        int fd = fcntl(null_fd, F_DUPFD_CLOEXEC, 0);
        if (fd < 0) return fl_fail("fcntl(F_DUPFD_CLOEXEC)", errno);
        opened[n_opened++] = fd;
        if (fd > highest) highest = fd;
    }
    int cloexec = (fcntl(null_fd, F_GETFD) & FD_CLOEXEC) != 0;
    for (long i = 0; i < open_fds && cloexec; i++) cloexec = (fcntl(opened[i], F_GETFD) & FD_CLOEXEC) != 0;

    int wants_addclose = 0;
    for (int i = 0; i < n_ways; i++) wants_addclose |= ways[i] == SPAWN_ADDCLOSE;
    have_addclose = posix_spawn_file_actions_init(&addclose_actions) == 0;
    for (long fd = 3; wants_addclose && fd < nofile && have_addclose; fd++) have_addclose = posix_spawn_file_actions_addclose(&addclose_actions, (int)fd) == 0;
    have_closefrom = posix_spawn_file_actions_init(&closefrom_actions) == 0;
#ifdef HAVE_CLOSEFROM_NP
    have_closefrom = have_closefrom && posix_spawn_file_actions_addclosefrom_np(&closefrom_actions, 3) == 0;
#endif

    char unavailable[512] = "", verified[256] = "", left_open[256] = "";
    int kept = 0;
    for (int i = 0; i < n_ways; i++) {
        const char *why = why_unavailable(ways[i]);
        if (why) {
            size_t u = strlen(unavailable);
            snprintf(unavailable + u, sizeof unavailable - u, "%s%s: %s", u ? "; " : "", way_names[ways[i]], why);
            continue;
        }
        if (is_fork(ways[i]) && ways[i] != FORK_EXEC) {
            int ok = verify_fork_way(ways[i]);
            if (ok < 0) return -1;
            char *list = ok ? verified : left_open;
            size_t u = strlen(list);
            snprintf(list + u, 256 - u, "%s%s", u ? "," : "", way_names[ways[i]]);
            if (!ok) continue;
        }
        ways[kept++] = ways[i];
    }
    n_ways = kept;

    fl_info_begin();
    fl_info_long("fds", open_fds);
    fl_info_long("nofile", nofile);
    fl_info_long("nofileHard", hard);
    fl_info_long("openBefore", before);
    fl_info_long("openAfter", count_open_fds());
    fl_info_long("highestFd", highest);
    fl_info_bool("cloexec", cloexec);
    fl_info_str("closeVerified", verified);
    if (left_open[0]) fl_info_str("leftOpen", left_open);
    if (unavailable[0]) fl_info_str("unavailable", unavailable);
    fl_info_long("ways", n_ways);
    fl_info_end();
    if (left_open[0]) return fl_fail_msg("verify", "a way left descriptors open in its child (info leftOpen)");
    return 0;
}

/* ---- batches: n rounds, every way once per round in a shuffled order ---- */

static int batch(long n, int warmup) {
    if (n_ways == 0) return fl_fail_msg("batch", "no way left to time (info unavailable)");
    uint64_t *ns[N_WAYS] = {0};
    int rc = 0;
    for (int i = 0; i < n_ways && rc == 0; i++)
        if (!(ns[i] = malloc((size_t)n * sizeof **ns))) rc = fl_fail("malloc", errno);
    int seq[N_WAYS];
    for (long k = 0; k < n && rc == 0; k++) {
        fl_shuffle(&order, seq, n_ways);
        for (int q = 0; q < n_ways && rc == 0; q++) rc = start_once(ways[seq[q]], &ns[seq[q]][k]);
    }
    if (rc == 0)
        for (int i = 0; i < n_ways; i++) fl_emit_samples(way_names[ways[i]], warmup, ns[i], n);
    for (int i = 0; i < n_ways; i++) free(ns[i]);
    return rc;
}

static void teardown(void) {
    for (long i = 0; i < n_opened; i++) close(opened[i]);
    free(opened);
    opened = NULL;
    n_opened = 0;
    if (null_fd >= 0) close(null_fd);
    null_fd = -1;
    posix_spawn_file_actions_destroy(&addclose_actions);
    posix_spawn_file_actions_destroy(&closefrom_actions);
}

const fl_case fl_case_fds = {"fds", keys, setup, batch, teardown};
FL_CASE(fl_case_fds);
