/* spawnSync's child: posix_spawn, then its pipes served with poll() until it has exited and they are closed. */
#ifndef FORKLAB_SPAWN_SYNC_H
#define FORKLAB_SPAWN_SYNC_H

#include <stddef.h>
#include <sys/types.h>

#include "spawn_child.h"

typedef struct {
    fl_spawn_req base;
    const int *reads;                   /* per descriptor: the parent gathers the child's output there */
    const unsigned char *const *input;  /* per descriptor: written to the child, or NULL */
    const size_t *input_len;
    long long timeout_ms;               /* 0: none */
    double max_buffer;                  /* total bytes of output; < 0: no limit */
    int kill_signal;
} fl_sync_req;

typedef struct {
    pid_t pid;
    int exited, status, term_signal;
    void *pipes;                        /* fl_pipe[n_stdio], owned by the caller after the call (fl_sync_free) */
} fl_sync_out;

int fl_spawn_sync(const fl_sync_req *req, fl_sync_out *out);
/* Output gathered on descriptor i (NULL and 0 when it gathered nothing). */
const unsigned char *fl_sync_output(const fl_sync_out *out, int i, size_t *len);
int fl_sync_reads(const fl_sync_out *out, int i);
void fl_sync_free(fl_sync_out *out, int n);

#endif
