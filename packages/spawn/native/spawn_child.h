/* Creating one child with posix_spawn (pidfd_spawn where glibc has it), as libuv's fork + execvp child would be
 * made: the PATH of the child's environment searched as execvp searches it, stdio through file actions, cwd,
 * other descriptors left to close-on-exec, the signals libuv resets, a new session when detached.
 * No N-API here: addon.c converts values and owns the reaping. */
#ifndef FORKLAB_SPAWN_CHILD_H
#define FORKLAB_SPAWN_CHILD_H

#include <sys/types.h>

#define FL_STDIO_IGNORE (-1)
#define FL_STDIO_PIPE (-2)

typedef struct {
    const char *file;    /* as given: searched in the child's PATH unless it contains a slash */
    char *const *argv;   /* argv[0] is what the child sees as its name */
    char *const *envp;   /* NULL: the parent's environ (Node without envPairs) */
    const char *cwd;     /* NULL: the parent's */
    const int *stdio;    /* n_stdio entries: FL_STDIO_IGNORE, FL_STDIO_PIPE or a parent descriptor */
    int n_stdio;
    int detached;        /* setsid() in the child */
    int loop_fds;        /* descriptors Node's call holds beside its exec-error pipe while it spawns (spawnSync's
                          * private loop), held here too: the same limit fails the same calls */
} fl_spawn_req;

/* 0 on success, with *pid and *pidfd (a pidfd of the child, close-on-exec; -1 when the child was reaped by
 * someone else before it could be opened: its pid then names no process or one that is not ours, and is never
 * signalled); else an errno
 * value. parent_fds[i] receives the parent's end of pipe i (-1 for other entries); the pipes exist also when
 * the exec fails (as with libuv: the caller opens or closes them), and are all -1 when the failure came
 * before they were made. */
int fl_spawn(const fl_spawn_req *req, pid_t *pid, int *pidfd, int *parent_fds);

#endif
