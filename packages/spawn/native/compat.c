#include "compat.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <uv.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

fl_compat_t fl_compat;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int at_least(int major, int minor) {
    return fl_compat.glibc_major > major || (fl_compat.glibc_major == major && fl_compat.glibc_minor >= minor);
}

static void init_once(void) {
#ifdef __GLIBC__
    sscanf(gnu_get_libc_version(), "%d.%d", &fl_compat.glibc_major, &fl_compat.glibc_minor);
    fl_compat.spawn_reports_errors = at_least(2, 24);
    fl_compat.setsid = at_least(2, 26);
    fl_compat.dup2_self_unsets_cloexec = at_least(2, 29);
#else
    /* musl: posix_spawn has been clone(CLONE_VM|CLONE_VFORK) reporting exec errors, with POSIX_SPAWN_SETSID
     * and addchdir_np, since 1.1.24 */
    fl_compat.spawn_reports_errors = 1;
    fl_compat.setsid = 1;
#endif
    fl_compat.addchdir = (fl_addchdir_fn)dlsym(RTLD_DEFAULT, "posix_spawn_file_actions_addchdir_np");
    fl_pidfd_spawn_fn ps = (fl_pidfd_spawn_fn)dlsym(RTLD_DEFAULT, "pidfd_spawn");
    fl_pidfd_getpid_fn gp = (fl_pidfd_getpid_fn)dlsym(RTLD_DEFAULT, "pidfd_getpid");
    if (ps && gp) {
        fl_compat.pidfd_spawn = ps;
        fl_compat.pidfd_getpid = gp;
    }
    fl_compat.uv_version = uv_version();
    fl_compat.uv_pipe_buffers = fl_compat.uv_version >= 0x013300; /* 1.51.0 */
}

void fl_compat_init(void) { pthread_once(&once, init_once); }

/* execve of a path through a file fails with ENOTDIR in every kernel, before anything of the program is read.
 * Where glibc's child shares the parent's memory (CLONE_VM|CLONE_VFORK) posix_spawn returns that error and has
 * reaped the child; where the clone ran as a fork it returns 0 for a child that then exits 127: reaped here
 * (by its pid: never another owner's child). */
int fl_compat_exec_errors_reported(void) {
    static int known; /* 0 not yet, 1 reported, 2 not */
    int k = __atomic_load_n(&known, __ATOMIC_ACQUIRE);
    if (k) return k == 1;
    char path[] = "/dev/null/forklab-spawn-probe";
    char *argv[] = {path, NULL}, *envp[] = {NULL};
    pid_t pid;
    int err = posix_spawn(&pid, path, NULL, NULL, argv, envp);
    if (err == 0) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
        k = 2;
    } else if (err == ENOTDIR) {
        k = 1;
    } else {
        return -err;
    }
    __atomic_store_n(&known, k, __ATOMIC_RELEASE);
    return k == 1;
}

void fl_compat_no_pidfd_spawn(void) { __atomic_store_n(&fl_compat.pidfd_spawn, NULL, __ATOMIC_RELAXED); }

/* Node names the signals it knows on this platform and no other: SIGIO (never SIGPOLL, the same number),
 * SIGABRT (never SIGIOT), SIGPWR, SIGSYS; the real-time signals have no name. */
#define NAMED(s) [s] = #s
static const char *const names[] = {
    NAMED(SIGHUP),  NAMED(SIGINT),    NAMED(SIGQUIT),   NAMED(SIGILL),  NAMED(SIGTRAP),   NAMED(SIGABRT),
    NAMED(SIGBUS),  NAMED(SIGFPE),    NAMED(SIGKILL),   NAMED(SIGUSR1), NAMED(SIGSEGV),   NAMED(SIGUSR2),
    NAMED(SIGPIPE), NAMED(SIGALRM),   NAMED(SIGTERM),   NAMED(SIGCHLD), NAMED(SIGCONT),   NAMED(SIGSTOP),
    NAMED(SIGTSTP), NAMED(SIGTTIN),   NAMED(SIGTTOU),   NAMED(SIGURG),  NAMED(SIGXCPU),   NAMED(SIGXFSZ),
    NAMED(SIGVTALRM), NAMED(SIGPROF), NAMED(SIGWINCH),  NAMED(SIGIO),   NAMED(SIGSYS),
#ifdef SIGSTKFLT
    NAMED(SIGSTKFLT),
#endif
#ifdef SIGPWR
    NAMED(SIGPWR),
#endif
};

const char *fl_signal_name(int sig) {
    if (sig <= 0 || (size_t)sig >= sizeof names / sizeof names[0] || !names[sig]) return "";
    return names[sig];
}
