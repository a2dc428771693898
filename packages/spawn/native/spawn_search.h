/* execvp's search of PATH as libuv's child makes it, done from the parent: each candidate that can exist is
 * really executed (posix_spawn, or pidfd_spawn where glibc has it), a script without #! by /bin/sh, the next
 * entry after the errors execvp moves on from. spawn_child.c prepares the file actions and attributes; this
 * file starts the child with them. */
#ifndef FORKLAB_SPAWN_SEARCH_H
#define FORKLAB_SPAWN_SEARCH_H

#include <spawn.h>
#include <sys/types.h>

#include "spawn_child.h"

/* One call's child: what it is started with, and what started it. */
typedef struct {
    const posix_spawn_file_actions_t *fa;
    const posix_spawnattr_t *attr;
    char *const *envp;
    pid_t pid;
    int pidfd; /* from pidfd_spawn; -2 when the child came from posix_spawn */
} fl_attempt;

/* The child started for req with a's actions and attributes: 0 with a->pid (and a->pidfd, or -2 when it came
 * from posix_spawn), or the errno value the search ends with, as execvp's would (EACCES if an entry gave it). */
int fl_spawn_search(const fl_spawn_req *req, fl_attempt *a);

#endif
