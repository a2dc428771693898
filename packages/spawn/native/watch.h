/* The children of one environment (the main thread, or a worker), each watched through its pidfd with a
 * uv_poll on that environment's loop, reaped with waitid(P_PIDFD) (never waitpid(-1)), reported once to its
 * onexit(exitStatus, signalName). A child reaped by someone else (a waitpid(-1) elsewhere) is never reported
 * and keeps the loop alive while referenced, as libuv keeps a process handle whose waitpid says ECHILD. */
#ifndef FORKLAB_WATCH_H
#define FORKLAB_WATCH_H

#include <node_api.h>
#include <sys/types.h>

typedef struct fl_child fl_child;

/* Once per environment, at load. */
napi_status fl_watch_init(napi_env env);

/* Watches a child fl_spawn started (pidfd -1: already lost). On failure (an errno value) the child has been
 * killed and reaped here. The record belongs to the JS value *handle. */
int fl_watch(napi_env env, pid_t pid, int pidfd, napi_value onexit, napi_value *handle);

/* The environment is being torn down: a child started now could never be seen. */
int fl_watch_closing(napi_env env);

/* The record behind a JS handle (NULL after throwing). */
fl_child *fl_child_of(napi_env env, napi_value v);
int fl_child_kill(fl_child *c, int sig);
void fl_child_ref(fl_child *c, int ref);

#endif
