/* Case "exec" (article 004): what execve adds to fork, for a dynamic and a static `return 0` program.
 * Each iteration times three launches with launch.c, in an order that rotates every iteration so that
 * none always runs first: fork+_exit (FL_FORK_EXIT, the baseline), fork+execve+waitpid of the dynamic
 * target and of the static target (FL_FORK_EXEC, empty environment). Taking the three in the same
 * iteration makes drift hit them alike, which matters because execve alone is a difference of two series.
 * Three samples lines per batch, "fork-exit", "exec-dynamic" and "exec-static"; index i of each is the
 * same iteration (the runner pairs them for the interval of execve alone). A fourth line, "getppid", is
 * the time of one plain system call in the same iteration: SYSCALLS getppid calls timed together, divided
 * by SYSCALLS (rounded to whole ns), the yardstick of article 004's "hundreds of system calls".
 * Arguments: target-dynamic=PATH  target-static=PATH
 * With user-target=PATH (the user's program, with the arguments after "--"; see fl_launch_init_user) it takes the
 * dynamic target's place: the series are "fork-exit", "exec-target" and "exec-static", and target-dynamic is not used. */
#include "launch.h"
#include "probe.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char *const keys[] = {"target-dynamic", "target-static", "user-target", NULL};
static const char *target_dynamic;
static const char *target_static;
static const char *user_target;

enum { S_FORK_EXIT, S_DYNAMIC, S_STATIC, S_GETPPID, S_COUNT };
static const char *series_names[S_COUNT] = {"fork-exit", "exec-dynamic", "exec-static", "getppid"};
enum { LAUNCHES = 3, SYSCALLS = 256 };

/* One plain system call: SYSCALLS raw getppid calls (no libc wrapper that could cache), per call. */
static int time_syscall(uint64_t *ns) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < SYSCALLS; i++) (void)syscall(SYS_getppid);
    clock_gettime(CLOCK_MONOTONIC, &b);
    uint64_t total = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u + (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec;
    *ns = (total + SYSCALLS / 2) / SYSCALLS;
    return 0;
}

static int setup(void) {
    target_dynamic = fl_arg_str("target-dynamic", NULL);
    target_static = fl_arg_str("target-static", NULL);
    user_target = fl_arg_str("user-target", NULL);
    if ((!target_dynamic && !user_target) || !target_static)
        return fl_fail_msg("usage", "target-static=PATH and one of target-dynamic=PATH or user-target=PATH are required");
    if (user_target) {
        series_names[S_DYNAMIC] = "exec-target";
        if (fl_launch_init_user(user_target) != 0) return -1;
    } else {
        if (access(target_dynamic, X_OK) != 0) return fl_fail("access(target-dynamic)", errno);
        if (fl_launch_init(target_dynamic, NULL) != 0) return -1;
    }
    if (access(target_static, X_OK) != 0) return fl_fail("access(target-static)", errno);
    if (fl_launch_init(target_static, NULL) != 0) return -1;
    fl_info_begin();
    fl_info_str(user_target ? "userTarget" : "targetDynamic", user_target ? user_target : target_dynamic);
    fl_info_str("targetStatic", target_static);
    fl_info_long("vmRssKb", fl_proc_kb("/proc/self/status", "VmRSS"));
    fl_info_end();
    return 0;
}

static int launch(int series, uint64_t *ns) {
    switch (series) {
    case S_DYNAMIC:
        /* untimed: sets the path (and, for the user's program, argv, environment and streams) for the next launch */
        if ((user_target ? fl_launch_init_user(user_target) : fl_launch_init(target_dynamic, NULL)) != 0) return -1;
        return fl_launch_once(FL_FORK_EXEC, ns);
    case S_STATIC:
        if (fl_launch_init(target_static, NULL) != 0) return -1;
        return fl_launch_once(FL_FORK_EXEC, ns);
    default:
        return fl_launch_once(FL_FORK_EXIT, ns);
    }
}

static int batch(long n, int warmup) {
    uint64_t *ns[S_COUNT] = {0};
    int rc = 0;
    for (int s = 0; s < S_COUNT; s++) {
        ns[s] = malloc((size_t)n * sizeof *ns[s]);
        if (!ns[s]) {
            rc = fl_fail("malloc", errno);
            goto out;
        }
    }
    for (long i = 0; i < n && rc == 0; i++) {
        for (int k = 0; k < LAUNCHES && rc == 0; k++) {
            int s = (int)((i + k) % LAUNCHES);
            rc = launch(s, &ns[s][i]);
        }
        if (rc == 0) rc = time_syscall(&ns[S_GETPPID][i]);
    }
    for (int s = 0; s < S_COUNT && rc == 0; s++) fl_emit_samples(series_names[s], warmup, ns[s], n);
out:
    for (int s = 0; s < S_COUNT; s++) free(ns[s]);
    return rc;
}

const fl_case fl_case_exec = {"exec", keys, setup, batch, NULL};
FL_CASE(fl_case_exec);
