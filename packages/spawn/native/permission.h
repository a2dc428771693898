/* Under Node's permission model, whether children may be started: process.permission.has('child') as it was when
 * an environment loaded the addon (its `has` is an ordinary property that any code can replace later: the function
 * and its object are kept, per environment, from then on); always yes outside the model (process.permission is
 * fixed at start-up). Used by every spawn, asynchronous (addon.c) and synchronous (sync_binding.c). */
#ifndef FORKLAB_PERMISSION_H
#define FORKLAB_PERMISSION_H

#include <node_api.h>

/* Keeps this environment's process.permission and its has() until the environment's cleanup; -1 when that could
 * not be done. Once per environment, at load. */
int fl_perm_capture(napi_env env);

/* 1 when children may be started, 0 when not or when that cannot be told; never throws (an exception from has()
 * stays pending). */
int fl_perm_allows(napi_env env);

/* 1 when children may be started; else 0, with ERR_ACCESS_DENIED thrown as Node throws it (unless has() threw). */
int fl_may_spawn(napi_env env);

#endif
