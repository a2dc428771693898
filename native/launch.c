#include "launch.h"
#include "probe.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

const char *const fl_method_names[] = {"fork-exec", "vfork-exec", "posix-spawn", "clone-vfork", "fork-exit", NULL};

#define CLONE_STACK (64 * 1024)
static char *clone_stack;
static const char *target_path;
static char *target_argv[2];
static char *empty_env[1];
static char *const *target_envp = empty_env;

int fl_launch_init(const char *target, char *const *envp) {
    target_path = target;
    target_argv[0] = (char *)target;
    target_argv[1] = NULL;
    if (envp) target_envp = envp;
    if (!clone_stack) {
        void *s = mmap(NULL, CLONE_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
        if (s == MAP_FAILED) return fl_fail("mmap", errno);
        clone_stack = s;
    }
    if (target && access(target, X_OK) != 0) return fl_fail("access(target)", errno);
    return 0;
}

static int clone_child(void *arg) {
    (void)arg;
    execve(target_path, target_argv, target_envp);
    _exit(127);
}

static int reap(pid_t pid, const char *what) {
    int status;
    pid_t w;
    do w = waitpid(pid, &status, 0); while (w < 0 && errno == EINTR);
    if (w < 0) return fl_fail("waitpid", errno);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    char msg[160];
    if (WIFEXITED(status))
        snprintf(msg, sizeof msg, "child of %s exited with status %d%s", what, WEXITSTATUS(status),
                 WEXITSTATUS(status) == 127 ? " (execve of the target failed)" : "");
    else
        snprintf(msg, sizeof msg, "child of %s was killed by signal %d", what, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return fl_fail_msg("waitpid", msg);
}

int fl_launch_once(enum fl_method m, uint64_t *ns) {
    pid_t pid;
    int err;
    uint64_t t0 = fl_now_ns();
    switch (m) {
    case FL_FORK_EXEC:
        pid = fork();
        if (pid == 0) { execve(target_path, target_argv, target_envp); _exit(127); }
        if (pid < 0) return fl_fail("fork", errno);
        break;
    case FL_VFORK_EXEC:
        pid = vfork();
        if (pid == 0) { execve(target_path, target_argv, target_envp); _exit(127); }
        if (pid < 0) return fl_fail("vfork", errno);
        break;
    case FL_POSIX_SPAWN:
        err = posix_spawn(&pid, target_path, NULL, NULL, target_argv, target_envp);
        if (err != 0) return fl_fail("posix_spawn", err);
        break;
    case FL_CLONE_VFORK:
        pid = clone(clone_child, clone_stack + CLONE_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
        if (pid < 0) return fl_fail("clone", errno);
        break;
    case FL_FORK_EXIT:
        pid = fork();
        if (pid == 0) _exit(0);
        if (pid < 0) return fl_fail("fork", errno);
        break;
    default:
        return fl_fail_msg("launch", "unknown method");
    }
    if (reap(pid, fl_method_names[m]) != 0) return -1;
    *ns = fl_now_ns() - t0;
    return 0;
}

int fl_launch_batch(enum fl_method m, long n, int warmup) {
    uint64_t *ns = malloc((size_t)n * sizeof *ns);
    if (!ns) return fl_fail("malloc", errno);
    for (long i = 0; i < n; i++) {
        if (fl_launch_once(m, &ns[i]) != 0) { free(ns); return -1; }
    }
    fl_emit_samples(fl_method_names[m], warmup, ns, n);
    free(ns);
    return 0;
}
