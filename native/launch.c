#include "launch.h"
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

const char *const fl_method_names[] = {"fork-exec", "vfork-exec", "posix-spawn", "clone-vfork", "fork-exit", NULL};

#define CLONE_STACK (64 * 1024)
static char *clone_stack;
static const char *target_path;
static char *builtin_argv[2];
static char **target_argv = builtin_argv;
static char *empty_env[1];
static char *const *target_envp = empty_env;
extern char **environ;

/* The user's program: its argv, /dev/null for its standard streams, and the same for posix_spawn. */
static char **user_argv;
static int null_fd = -1;
static int user_mode;
static posix_spawn_file_actions_t null_actions;

static int prepare_clone_stack(void) {
    if (clone_stack) return 0;
    void *s = mmap(NULL, CLONE_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (s == MAP_FAILED) return fl_fail("mmap", errno);
    clone_stack = s;
    return 0;
}

int fl_launch_init(const char *target, char *const *envp) {
    user_mode = 0;
    target_path = target;
    builtin_argv[0] = (char *)target;
    builtin_argv[1] = NULL;
    target_argv = builtin_argv;
    target_envp = envp ? envp : empty_env;
    if (prepare_clone_stack() != 0) return -1;
    if (target && access(target, X_OK) != 0) return fl_fail("access(target)", errno);
    return 0;
}

int fl_launch_init_user(const char *target) {
    if (!user_argv) { /* once: the arguments and /dev/null do not change between launches */
        int n;
        char **rest = fl_rest_args(&n);
        user_argv = calloc((size_t)n + 2, sizeof *user_argv);
        if (!user_argv) return fl_fail("calloc", errno);
        for (int i = 0; i < n; i++) user_argv[i + 1] = rest[i];
        null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null_fd < 0) return fl_fail("open(/dev/null)", errno);
        int err = posix_spawn_file_actions_init(&null_actions);
        for (int fd = 0; fd <= 2 && err == 0; fd++) err = posix_spawn_file_actions_adddup2(&null_actions, null_fd, fd);
        if (err != 0) return fl_fail("posix_spawn_file_actions", err);
    }
    user_argv[0] = (char *)target;
    user_mode = 1;
    target_path = target;
    target_argv = user_argv;
    target_envp = environ;
    if (prepare_clone_stack() != 0) return -1;
    if (access(target, X_OK) != 0) return fl_fail("access(target)", errno);
    return 0;
}

/* In the child, before execve: the user's program gets /dev/null as stdin, stdout and stderr. */
static void child_streams(void) {
    if (!user_mode) return;
    dup2(null_fd, 0);
    dup2(null_fd, 1);
    dup2(null_fd, 2);
}

static int clone_child(void *arg) {
    (void)arg;
    child_streams();
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
        if (pid == 0) { child_streams(); execve(target_path, target_argv, target_envp); _exit(127); }
        if (pid < 0) return fl_fail("fork", errno);
        break;
    case FL_VFORK_EXEC:
        pid = vfork();
        if (pid == 0) { child_streams(); execve(target_path, target_argv, target_envp); _exit(127); }
        if (pid < 0) return fl_fail("vfork", errno);
        break;
    case FL_POSIX_SPAWN:
        err = posix_spawn(&pid, target_path, user_mode ? &null_actions : NULL, NULL, target_argv, target_envp);
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

int fl_rounds_parse(fl_rounds *r, const char *default_method) {
    const char *one = fl_arg_str("method", NULL);
    const char *list = fl_arg_str("methods", NULL);
    if (one && list) return fl_fail_msg("usage", "give method=M or methods=M,M..., not both");
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list ? list : one ? one : default_method);
    r->n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int m = -1;
        for (int i = 0; fl_method_names[i]; i++)
            if (strcmp(tok, fl_method_names[i]) == 0) m = i;
        if (m < 0) return fl_fail_msg("usage", list ? "unknown value: methods" : "unknown value: method");
        for (int i = 0; i < r->n; i++)
            if (r->methods[i] == (enum fl_method)m) return fl_fail_msg("usage", "a method given twice: methods");
        if (r->n == FL_MAX_METHODS) return fl_fail_msg("usage", "too many methods: methods");
        r->methods[r->n++] = (enum fl_method)m;
    }
    if (r->n == 0) return fl_fail_msg("usage", "no method: methods");
    r->block = fl_arg_long("block", 1, 1, 100000);
    r->order = fl_order_seed();
    return 0;
}

int fl_rounds_exec(const fl_rounds *r) {
    for (int i = 0; i < r->n; i++)
        if (r->methods[i] != FL_FORK_EXIT) return 1;
    return 0;
}

uint64_t fl_order_seed(void) {
    return (uint64_t)fl_arg_long("order-seed", 1, 0, 0x7fffffffL) * 2654435761u + 0x9e3779b97f4a7c15ull;
}

void fl_shuffle(uint64_t *state, int *seq, int n) {
    for (int i = 0; i < n; i++) seq[i] = i;
    for (int i = n - 1; i > 0; i--) { /* Fisher-Yates, drawing from xorshift64* */
        *state ^= *state >> 12;
        *state ^= *state << 25;
        *state ^= *state >> 27;
        int j = (int)((*state * 2685821657736338717ull) % (uint64_t)(i + 1)), t = seq[i];
        seq[i] = seq[j];
        seq[j] = t;
    }
}

int fl_rounds_batch(fl_rounds *r, long n, int warmup) {
    if (r->n == 1) return fl_launch_batch(r->methods[0], n * r->block, warmup);
    long per = n * r->block;
    uint64_t *ns[FL_MAX_METHODS] = {0};
    int rc = 0;
    for (int i = 0; i < r->n && rc == 0; i++)
        if (!(ns[i] = malloc((size_t)per * sizeof **ns))) rc = fl_fail("malloc", errno);
    int order[FL_MAX_METHODS];
    for (long k = 0; k < n && rc == 0; k++) {
        fl_shuffle(&r->order, order, r->n);
        for (int q = 0; q < r->n && rc == 0; q++) {
            int m = order[q];
            for (long c = 0; c < r->block && rc == 0; c++) rc = fl_launch_once(r->methods[m], &ns[m][k * r->block + c]);
        }
    }
    if (rc == 0)
        for (int i = 0; i < r->n; i++) fl_emit_samples(fl_method_names[r->methods[i]], warmup, ns[i], per);
    for (int i = 0; i < r->n; i++) free(ns[i]);
    return rc;
}
