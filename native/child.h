/* A child a case forks for itself (cow's measuring child, deadlock's lock taker, pagetables' holder, vma's paused
 * child): fork with a pipe or a socket to the parent, read what it sends before a deadline, and reap it, or kill
 * and reap it, so that no child outlives the case's setup, batch or teardown. */
#ifndef FORKLAB_CHILD_H
#define FORKLAB_CHILD_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* How the parent and the child are connected: a pipe the child writes (FROM_CHILD) or reads (TO_CHILD), or a socket. */
enum fl_link { FL_FROM_CHILD, FL_TO_CHILD, FL_SOCKET };

typedef struct {
    pid_t pid;     /* > 0 while the child lives and is not reaped */
    int fd;        /* the parent's end (-1 once closed) */
    uint64_t forked_at_ns, fork_ns; /* when fork() returned in the parent, and how long the call took */
} fl_child;

/* Forks a child linked to the parent. The child (with PR_SET_PDEATHSIG SIGKILL) runs fn(its end, arg), which
 * must not return (it _exits); stdout is flushed first so no buffered line is written twice. 0, or -1 (error emitted). */
int fl_child_start(fl_child *c, enum fl_link link, void (*fn)(int fd, void *arg), void *arg);

/* Reads up to len bytes from the child before deadline_ns: the count read (> 0), 0 at end of input,
 * FL_CHILD_LATE when the deadline passed first, -1 on error (emitted). */
#define FL_CHILD_LATE (-2)
long fl_child_read_some(fl_child *c, void *buf, size_t len, uint64_t deadline_ns);
/* Reads exactly len bytes before deadline_ns: 1 = all of them, 0 = end of input first, FL_CHILD_LATE, -1 (emitted). */
int fl_child_read(fl_child *c, void *buf, size_t len, uint64_t deadline_ns);

/* Closes the parent's end (the child of a FL_TO_CHILD link sees end of input). */
void fl_child_close(fl_child *c);

/* Waits for the child until deadline_ns (0: as long as it takes); past it, kills and reaps it. *status: the
 * wait status. 0 = it ended by itself, 1 = it was killed, -1 = error (emitted). */
int fl_child_reap(fl_child *c, uint64_t deadline_ns, int *status);

/* Kills and reaps the child if it lives, closes the parent's end; emits nothing (teardown, error paths). */
void fl_child_kill(fl_child *c);

/* "exited with status 3", "was killed by signal 9": a wait status in words, for error lines. */
void fl_child_status_text(int status, char *buf, size_t n);

#endif
