/* execvp's search of PATH from the parent (spawn_search.h). */
#include "spawn_search.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

extern char **environ;

/* What glibc's execvp searches when the environment has no PATH (confstr(_CS_PATH)): libuv's child calls
 * execvp, so this is libuv's default. */
#define FL_DEFAULT_PATH "/bin:/usr/bin"

static const char *env_path(char *const *envp) {
    for (; envp && *envp; envp++)
        if (strncmp(*envp, "PATH=", 5) == 0) return *envp + 5;
    return FL_DEFAULT_PATH;
}

/* The errors after which execvp tries the next PATH entry (glibc's list). */
static int moves_on(int err) {
    return err == EACCES || err == ENOENT || err == ESTALE || err == ENOTDIR || err == ENODEV || err == ETIMEDOUT;
}

/* An error execve would certainly give for this candidate (so no child is started for it), or 0: try it. */
static int precheck(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) return errno;
    if (!S_ISREG(st.st_mode)) return EACCES;
    if (faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) != 0) return errno;
    return 0;
}

/* What chdir(cwd) in libuv's child would fail with, or 0. */
static int check_cwd(const char *cwd) {
    struct stat st;
    if (stat(cwd, &st) != 0) return errno;
    if (!S_ISDIR(st.st_mode)) return ENOTDIR;
    if (faccessat(AT_FDCWD, cwd, X_OK, AT_EACCESS) != 0) return errno;
    return 0;
}

static char *join(const char *a, size_t alen, const char *b) {
    size_t blen = strlen(b);
    char *s = malloc(alen + blen + 2);
    if (!s) return NULL;
    memcpy(s, a, alen);
    s[alen] = '/';
    memcpy(s + alen + 1, b, blen + 1);
    return s;
}


static int exec_one(fl_attempt *a, const char *path, char *const *argv) {
    fl_pidfd_spawn_fn ps = __atomic_load_n(&fl_compat.pidfd_spawn, __ATOMIC_RELAXED);
    if (ps) {
        int fd = -1;
        int err = ps(&fd, path, a->fa, a->attr, argv, a->envp);
        if (err != ENOSYS) {
            if (err == 0) {
                a->pidfd = fd;
                a->pid = fl_compat.pidfd_getpid(fd);
                if (a->pid <= 0) { /* cannot happen for a child not yet waited for; never leave one behind */
                    err = errno ? errno : ESRCH;
                    syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
                    siginfo_t si;
                    while (waitid((idtype_t)P_PIDFD, (id_t)fd, &si, WEXITED) < 0 && errno == EINTR) {}
                    close(fd);
                }
            }
            return err;
        }
        fl_compat_no_pidfd_spawn(); /* no clone3 in this kernel */
    }
    a->pidfd = -2;
    /* Older glibc (2.31, Debian 11's, measured; 2.36 does not) returns EPERM whenever its clone fails (-(-1)),
     * the cause left in errno: EAGAIN at RLIMIT_NPROC, ENOMEM, ..., what fork reports and child_process says.
     * A clone that fails sets errno; a child that fails (its exec, a file action) reports through posix_spawn's
     * result with errno untouched. */
    int saved = errno;
    errno = 0;
    int err = posix_spawn(&a->pid, path, a->fa, a->attr, argv, a->envp);
    if (err == EPERM && errno != 0 && errno != EPERM) err = errno;
    errno = saved;
    return err;
}

/* One execve of execvp's loop: a file the kernel refuses with ENOEXEC (a script without #!) runs by /bin/sh. */
static int attempt(fl_attempt *a, const char *path, char *const *argv) {
    int err = exec_one(a, path, argv);
    if (err != ENOEXEC) return err;
    size_t argc = 0;
    while (argv[argc]) argc++;
    char **shargv = calloc(argc + 2, sizeof *shargv);
    if (!shargv) return ENOMEM;
    shargv[0] = (char *)"/bin/sh";
    shargv[1] = (char *)path;
    for (size_t i = 1; i < argc; i++) shargv[i + 1] = argv[i];
    err = exec_one(a, "/bin/sh", shargv);
    free(shargv);
    return err;
}

/* execvp's search: each PATH entry in turn (an empty one is the current directory, the child's cwd), the
 * next one after the errors moves_on() lists, EACCES if one of them was EACCES, else the last error. A
 * candidate that cannot exist is passed over without starting a child; the others are really executed. */
int fl_spawn_search(const fl_spawn_req *req, fl_attempt *a) {
    const char *file = req->file;
    /* libuv's child changes directory before its execvp: a cwd it cannot enter is the error, whatever PATH holds
     * (an attempt's own chdir failure, ENOTDIR or ENOENT, would otherwise pass for a candidate's and move on) */
    if (req->cwd) {
        int c = check_cwd(req->cwd);
        if (c) return c;
    }
    if (file[0] == '\0') return ENOENT;
    if (strchr(file, '/')) return attempt(a, file, req->argv);
    int got_eacces = 0, last = ENOENT;
    for (const char *p = env_path(req->envp ? req->envp : environ);;) {
        const char *end = strchr(p, ':');
        size_t dlen = end ? (size_t)(end - p) : strlen(p);
        char *cand = dlen ? join(p, dlen, file) : strdup(file);
        /* relative to the child's cwd, which the parent sees through the cwd */
        char *probe = cand && req->cwd && cand[0] != '/' ? join(req->cwd, strlen(req->cwd), cand) : cand;
        if (!cand || !probe) {
            free(cand);
            return ENOMEM;
        }
        int err = precheck(probe);
        if (err == 0) {
            err = attempt(a, cand, req->argv);
        }
        if (probe != cand) free(probe);
        free(cand);
        if (err == 0 || !moves_on(err)) return err;
        if (err == EACCES) got_eacces = 1;
        last = err;
        if (!end) break;
        p = end + 1;
    }
    return got_eacces ? EACCES : last;
}
