#include "spawn_child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* libuv's default search path when the environment has no PATH (as _PATH_DEFPATH on glibc). */
#define FL_DEFAULT_PATH "/usr/bin:/bin"

static const char *env_path(char *const *envp) {
    for (; envp && *envp; envp++)
        if (strncmp(*envp, "PATH=", 5) == 0) return *envp + 5;
    return FL_DEFAULT_PATH;
}

/* 0 when candidate is an executable regular file (relative names resolve against dirfd: the child's
 * cwd), EACCES when it exists but cannot be executed, ENOENT/ENOTDIR when absent. */
static int check_candidate(int dirfd, const char *candidate) {
    struct stat st;
    if (fstatat(dirfd, candidate, &st, 0) != 0) return errno;
    if (!S_ISREG(st.st_mode)) return EACCES;
    if (faccessat(dirfd, candidate, X_OK, AT_EACCESS) != 0) return errno;
    return 0;
}

/* Finds file in the PATH of the child's environment, as execvp does: empty entries mean the current
 * directory, ENOENT/ENOTDIR/EACCES move on, EACCES is reported if nothing executable was found.
 * *out is malloc'd. */
static int search_path(const char *file, char *const *envp, int dirfd, char **out) {
    const char *path = env_path(envp);
    size_t flen = strlen(file);
    int seen_eacces = 0;
    for (const char *p = path;; ) {
        const char *end = strchr(p, ':');
        size_t dlen = end ? (size_t)(end - p) : strlen(p);
        char *cand = malloc(dlen + flen + 2);
        if (!cand) return ENOMEM;
        if (dlen == 0) memcpy(cand, file, flen + 1);
        else {
            memcpy(cand, p, dlen);
            cand[dlen] = '/';
            memcpy(cand + dlen + 1, file, flen + 1);
        }
        int err = check_candidate(dirfd, cand);
        if (err == 0) { *out = cand; return 0; }
        free(cand);
        if (err == EACCES) seen_eacces = 1;
        else if (err != ENOENT && err != ENOTDIR && err != ELOOP && err != ENAMETOOLONG) return err;
        if (!end) break;
        p = end + 1;
    }
    return seen_eacces ? EACCES : ENOENT;
}

static void close_all(int *fds, int n) {
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0) { close(fds[i]); fds[i] = -1; }
}

/* Sets up, for each child descriptor i, a parent-side source src[i] that is >= n (so that no dup2 of
 * the file actions overwrites a source still to be used) and close-on-exec (so the parent's copies
 * never leak into other children). As libuv: 'ignore' is /dev/null for 0-2 and nothing above; an
 * inherited descriptor that becomes the child's 0-2 is made blocking (libuv's child does that after
 * its dup2, which changes the description the parent shares). */
static int prepare_stdio(const fl_spawn_req *req, int *src, int *parent_fds) {
    int n = req->n_stdio;
    for (int i = 0; i < n; i++) {
        int s = req->stdio[i], fd;
        if (s == FL_STDIO_PIPE) {
            int sv[2];
            if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return errno;
            parent_fds[i] = sv[0];
            fd = fcntl(sv[1], F_DUPFD_CLOEXEC, n);
            int e = errno;
            close(sv[1]);
            if (fd < 0) return e;
        } else if (s == FL_STDIO_IGNORE) {
            if (i > 2) { src[i] = -1; continue; }
            int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
            if (nul < 0) return errno;
            fd = fcntl(nul, F_DUPFD_CLOEXEC, n);
            int e = errno;
            close(nul);
            if (fd < 0) return e;
        } else {
            fd = fcntl(s, F_DUPFD_CLOEXEC, n);
            if (fd < 0) {
                if (errno == EBADF && s == i) fd = -1; /* inheriting a descriptor the parent has closed */
                else return errno;
            }
            int fl = i <= 2 && fd >= 0 ? fcntl(fd, F_GETFL) : -1;
            if (fl >= 0 && (fl & O_NONBLOCK)) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
        }
        src[i] = fd;
    }
    return 0;
}

static int build_actions(const fl_spawn_req *req, const int *src, posix_spawn_file_actions_t *fa) {
    int err, n = req->n_stdio;
    for (int i = 0; i < n; i++) {
        if (src[i] < 0) continue;
        if ((err = posix_spawn_file_actions_adddup2(fa, src[i], i)) != 0) return err;
    }
    if (req->cwd && (err = posix_spawn_file_actions_addchdir_np(fa, req->cwd)) != 0) return err;
    /* Every other descriptor: close-on-exec decides, as with libuv (a make jobserver or systemd's
     * LISTEN_FDS reach the child; descriptors opened with O_CLOEXEC, as Node opens its own, do not). */
    return 0;
}

static int build_attr(const fl_spawn_req *req, posix_spawnattr_t *attr) {
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    /* sigfillset leaves out glibc's internal signals (SIGCANCEL, SIGSETXID: 32 and 33), and glibc's
     * spawn helper sets those to SIG_IGN in the child unless asked otherwise, so they would stay ignored
     * across the exec. Node's children (libuv fork + exec) have them at SIG_DFL: ask for that, writing
     * the bits directly since sigaddset refuses these numbers. */
    for (int sig = 1; sig <= 64 && sig <= (int)(8 * sizeof all); sig++)
        ((unsigned long *)&all)[(sig - 1) / (8 * sizeof(unsigned long))] |= 1UL << ((sig - 1) % (8 * sizeof(unsigned long)));
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    if (req->detached) flags |= POSIX_SPAWN_SETSID;
    int err;
    if ((err = posix_spawnattr_setsigmask(attr, &none)) != 0) return err;
    if ((err = posix_spawnattr_setsigdefault(attr, &all)) != 0) return err;
    return posix_spawnattr_setflags(attr, flags);
}

/* A file that execve refuses with ENOEXEC (a script without #!) runs through /bin/sh, as execvp does. */
static int spawn_or_sh(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                       const posix_spawnattr_t *attr, char *const *argv, char *const *envp) {
    int err = posix_spawn(pid, path, fa, attr, argv, envp);
    if (err != ENOEXEC) return err;
    size_t argc = 0;
    while (argv[argc]) argc++;
    char **shargv = calloc(argc + 2, sizeof *shargv);
    if (!shargv) return ENOMEM;
    shargv[0] = (char *)"/bin/sh";
    shargv[1] = (char *)path;
    for (size_t i = 1; i < argc; i++) shargv[i + 1] = argv[i];
    err = posix_spawn(pid, "/bin/sh", fa, attr, shargv, envp);
    free(shargv);
    return err;
}

int fl_spawn(const fl_spawn_req *req, pid_t *pid, int *parent_fds) {
    int n = req->n_stdio, err;
    int *src = malloc((size_t)n * sizeof *src);
    if (!src) return ENOMEM;
    for (int i = 0; i < n; i++) src[i] = parent_fds[i] = -1;
    char *resolved = NULL;
    const char *path = req->file;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    int have_fa = 0, have_attr = 0;

    if ((err = prepare_stdio(req, src, parent_fds)) != 0) goto fail_setup;
    if (req->file[0] == '\0') { err = ENOENT; goto done; }
    if (!strchr(req->file, '/')) {
        int dirfd = AT_FDCWD;
        if (req->cwd && (dirfd = open(req->cwd, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) { err = errno; goto done; }
        err = search_path(req->file, req->envp, dirfd, &resolved);
        if (dirfd != AT_FDCWD) close(dirfd);
        if (err != 0) goto done;
        path = resolved;
    }
    if ((err = posix_spawn_file_actions_init(&fa)) != 0) goto fail_setup;
    have_fa = 1;
    if ((err = posix_spawnattr_init(&attr)) != 0) goto fail_setup;
    have_attr = 1;
    if ((err = build_actions(req, src, &fa)) != 0) goto fail_setup;
    if ((err = build_attr(req, &attr)) != 0) goto fail_setup;
    err = spawn_or_sh(pid, path, &fa, &attr, req->argv, req->envp);
    goto done;
fail_setup:
    /* failed before the exec was attempted: no pipe is handed back */
    close_all(parent_fds, n);
done:
    close_all(src, n);
    if (have_fa) posix_spawn_file_actions_destroy(&fa);
    if (have_attr) posix_spawnattr_destroy(&attr);
    free(resolved);
    free(src);
    return err;
}
