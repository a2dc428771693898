/* forklab-spawn addon: creates children with posix_spawn (glibc: clone(CLONE_VM|CLONE_VFORK), so the
 * cost does not grow with the parent's memory) and reaps each one through its own pidfd, watched with a
 * uv_poll on Node's event loop (watch.c). Never waitpid(-1): other children of the process are left to their
 * owners.
 *
 * JS interface (see src/native.ts):
 *   spawn(file, argv[], envp[] | null, cwd|null, stdio[], detached, onexit, pipes[]) -> [err, pid, handle]
 *     envp: the child's whole environment (Node's envPairs); null: the parent's environ, as libuv.
 *     stdio[i]: -1 ignore (/dev/null for 0-2), -2 pipe (a socketpair, like libuv), n >= 0 the parent's fd n.
 *     pipes[i]: for a pipe, the Pipe handle that takes the parent's end (its open(fd) is called here), as
 *     libuv's uv_spawn opens its stdio streams; also after an exec failure child_process reports with its
 *     stdio (EACCES, EAGAIN, ENOENT). A descriptor no handle took is closed: none is ever left to JS.
 *     err: 0 or -errno.
 *     onexit(exitStatus, signalName) runs once, when the child has exited and been reaped ('' when it was
 *     not killed by a signal, or by one Node has no name for).
 *   kill(handle, signal) -> 0 | -errno   (pidfd_send_signal: no pid-reuse race)
 *   ref(handle), unref(handle)
 *   closeProcessHandle(nodeHandle, ...args) -> 0 | 1 | 2: calls nodeHandle.close(...args) (Node's own Process
 *     handle) and, when libuv's uv_spawn had already taken that handle out of the loop's handle queue, puts it
 *     back first-in-line for removal, so that closing it is safe (see close_process below).
 *   features: { glibc, addchdir, pidfdSpawn, setsid, uv }
 *   forks() -> how many times this process has called fork() since the addon loaded (pthread_atfork)
 *   spawnSync(request) -> result   (sync_binding.c)
 * Every spawn refuses (ERR_ACCESS_DENIED) under Node's permission model without the right to start children
 * (permission.c).
 */
#include <node_api.h>
#include <uv.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat.h"
#include "permission.h"
#include "spawn_child.h"
#include "watch.h"

napi_value fl_js_spawn_sync(napi_env env, napi_callback_info info);

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

#define CHECK(call) do { if ((call) != napi_ok) return fl_throw_last(env); } while (0)

static napi_value fl_throw_last(napi_env env) {
    const napi_extended_error_info *info = NULL;
    napi_get_last_error_info(env, &info);
    /* the next N-API call overwrites *info: keep the message first */
    char msg[160];
    snprintf(msg, sizeof msg, "forklab-spawn: %s", info && info->error_message ? info->error_message : "N-API call failed");
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (!pending) napi_throw_error(env, NULL, msg);
    return NULL;
}

/* ---- spawn ---- */
static char *dup_string(napi_env env, napi_value v) {
    size_t len = 0;
    if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok) return NULL;
    char *s = malloc(len + 1);
    if (!s) return NULL;
    napi_get_value_string_utf8(env, v, s, len + 1, &len);
    return s;
}

static void free_strings(char **v) {
    if (!v) return;
    for (char **p = v; *p; p++) free(*p);
    free(v);
}

/* A JS array of strings as a NULL-terminated, malloc'd vector (NULL after throwing). */
static char **dup_string_array(napi_env env, napi_value arr) {
    uint32_t n = 0;
    if (napi_get_array_length(env, arr, &n) != napi_ok) { fl_throw_last(env); return NULL; }
    char **v = calloc((size_t)n + 1, sizeof *v);
    if (!v) { napi_throw_error(env, NULL, "out of memory"); return NULL; }
    for (uint32_t i = 0; i < n; i++) {
        napi_value e;
        if (napi_get_element(env, arr, i, &e) != napi_ok || !(v[i] = dup_string(env, e))) {
            free_strings(v);
            fl_throw_last(env);
            return NULL;
        }
    }
    return v;
}

static napi_value set_int(napi_env env, napi_value arr, uint32_t i, int64_t x) {
    napi_value v;
    if (napi_create_int64(env, (int64_t)x, &v) != napi_ok) return NULL;
    if (napi_set_element(env, arr, i, v) != napi_ok) return NULL;
    return arr;
}

/* Gives the parent's end of pipe i to handles[i] (child_process's Pipe handle) by calling its open(fd) from
 * here, so that the descriptor always has one owner: the addon until open() has taken it, the handle after.
 * (Handed to JS as a number, it belonged to no one until the JS opened it, and a worker terminated in between
 * leaked it.) A native open() runs whole or not at all: an environment being torn down refuses the call. A
 * descriptor that open() did not take (not called, thrown, an error returned) is closed. */
static void hand_over(napi_env env, napi_value handles, uint32_t i, int fd) {
    napi_value h, open_fn, arg, ret;
    napi_valuetype t;
    int32_t rc = -1;
    if (napi_get_element(env, handles, i, &h) == napi_ok && napi_typeof(env, h, &t) == napi_ok && t == napi_object &&
        napi_get_named_property(env, h, "open", &open_fn) == napi_ok && napi_typeof(env, open_fn, &t) == napi_ok && t == napi_function &&
        napi_create_int32(env, fd, &arg) == napi_ok && napi_call_function(env, h, open_fn, 1, &arg, &ret) == napi_ok &&
        napi_get_value_int32(env, ret, &rc) == napi_ok && rc == 0)
        return;
    close(fd);
}

static napi_value js_spawn(napi_env env, napi_callback_info info) {
    size_t argc = 8;
    napi_value a[8];
    CHECK(napi_get_cb_info(env, info, &argc, a, NULL, NULL));
    if (argc < 7) { napi_throw_type_error(env, NULL, "spawn: 7 or 8 arguments expected"); return NULL; }
    bool have_handles = false;
    if (argc >= 8) CHECK(napi_is_array(env, a[7], &have_handles));
    if (!fl_may_spawn(env)) return NULL;
    napi_valuetype cwd_type;
    bool detached = false;
    uint32_t n_stdio = 0;
    CHECK(napi_typeof(env, a[3], &cwd_type));
    CHECK(napi_get_value_bool(env, a[5], &detached));
    CHECK(napi_get_array_length(env, a[4], &n_stdio));

    napi_value result = NULL;
    char *file = dup_string(env, a[0]), *cwd = NULL;
    char **argv = file ? dup_string_array(env, a[1]) : NULL;
    napi_valuetype env_type;
    CHECK(napi_typeof(env, a[2], &env_type));
    if (env_type != napi_object && env_type != napi_null) { free(file); free_strings(argv); napi_throw_type_error(env, NULL, "spawn: envp must be an array or null"); return NULL; }
    char **envp = !argv || env_type == napi_null ? NULL : dup_string_array(env, a[2]);
    int *stdio = calloc(n_stdio ? n_stdio : 1, sizeof *stdio);
    int *pfds = calloc(n_stdio ? n_stdio : 1, sizeof *pfds);
    if (!file || !argv || (env_type != napi_null && !envp) || !stdio || !pfds) goto out;
    if (cwd_type == napi_string && !(cwd = dup_string(env, a[3]))) goto out;
    for (uint32_t i = 0; i < n_stdio; i++) {
        napi_value e;
        if (napi_get_element(env, a[4], i, &e) != napi_ok || napi_get_value_int32(env, e, &stdio[i]) != napi_ok) {
            fl_throw_last(env);
            goto out;
        }
    }
    for (uint32_t i = 0; i < n_stdio; i++) pfds[i] = -1; /* (fl_spawn may fail before it sets them) */
    fl_spawn_req req = {file, argv, envp, cwd, stdio, (int)n_stdio, detached, 0};
    pid_t pid = 0;
    int pidfd = -1;
    int err = fl_spawn(&req, &pid, &pidfd, pfds);
    int started = err == 0;
    napi_value handle = NULL;
    if (err == 0 && fl_watch_closing(env)) {
        /* the environment is going away: nothing could ever see this child */
        if (pidfd >= 0) {
            syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
            siginfo_t si;
            while (waitid((idtype_t)P_PIDFD, (id_t)pidfd, &si, WEXITED) < 0 && errno == EINTR) {}
            close(pidfd);
        }
        err = ECANCELED;
    } else if (err == 0) err = fl_watch(env, pid, pidfd, a[6], &handle);
    if (err != 0) pid = 0;
    /* as libuv: the pipes are opened on a spawn, and on an exec failure child_process reports with its stdio */
    int give = have_handles && (err == 0 || (!started && (err == EACCES || err == EAGAIN || err == ENOENT)));
    for (uint32_t i = 0; i < n_stdio; i++) {
        if (pfds[i] < 0) continue;
        if (give) hand_over(env, a[7], i, pfds[i]);
        else close(pfds[i]);
        pfds[i] = -1;
    }
    if (napi_create_array_with_length(env, 3, &result) != napi_ok) goto out;
    set_int(env, result, 0, -err);
    set_int(env, result, 1, pid);
    if (err != 0 || !handle) napi_get_undefined(env, &handle);
    napi_set_element(env, result, 2, handle);
out:
    free(file);
    free(cwd);
    free_strings(argv);
    free_strings(envp);
    free(stdio);
    free(pfds);
    return result;
}

static napi_value js_kill(napi_env env, napi_callback_info info) {
    size_t argc = 2;
    napi_value a[2], out;
    CHECK(napi_get_cb_info(env, info, &argc, a, NULL, NULL));
    fl_child *c = fl_child_of(env, a[0]);
    if (!c) return NULL;
    int sig = 0;
    CHECK(napi_get_value_int32(env, a[1], &sig));
    CHECK(napi_create_int32(env, fl_child_kill(c, sig), &out));
    return out;
}

static napi_value ref_or_unref(napi_env env, napi_callback_info info, int ref) {
    size_t argc = 1;
    napi_value a[1];
    CHECK(napi_get_cb_info(env, info, &argc, a, NULL, NULL));
    fl_child *c = fl_child_of(env, a[0]);
    if (c) fl_child_ref(c, ref);
    return NULL;
}
static napi_value js_ref(napi_env env, napi_callback_info info) { return ref_or_unref(env, info, 1); }
static napi_value js_unref(napi_env env, napi_callback_info info) { return ref_or_unref(env, info, 0); }

/* Closing Node's own Process handle after a uv_spawn that failed before it forked. uv_spawn puts the handle at
 * the tail of loop->handle_queue; from libuv 1.52.0 on (commit 3e9ae1bca, libuv PR #4980) its error path takes
 * it out again, leaving the handle's own links on its old neighbours, while libuv's documentation (commit
 * d357575b2) still asks the caller to uv_close it, and uv__finish_close takes it out a second time: through
 * those stale links, which corrupts the queue (and the heap) once a neighbour has gone or another handle has
 * come. So, right after Node's close() has queued it (loop->closing_handles is then this handle, its
 * next_closing the previous head), a handle that is in no queue (its prev's next is not itself) is put back at
 * the tail: the removal in uv__finish_close is then an ordinary one. A handle still in the queue (libuv before
 * 1.52, or a spawn that got as far as the fork) is left as it is. Both the neighbour read here and the handle
 * are alive: nothing is freed between the spawn and this call but in the loop's close phase.
 * Returns 0 (close() queued nothing), 1 (closed, in the queue), 2 (closed, put back). */
static int close_process(uv_loop_t *loop, uv_handle_t *before) {
    uv_handle_t *h = loop->closing_handles;
    if (h == NULL || h == before || h->next_closing != before) return 0;
    if (uv_handle_get_type(h) != UV_PROCESS || !uv_is_closing(h)) return 0;
    struct uv__queue *q = &h->handle_queue, *head = &loop->handle_queue;
    if (q->prev->next == q) return 1;
    q->next = head;
    q->prev = head->prev;
    head->prev->next = q;
    head->prev = q;
    return 2;
}

static napi_value js_close_process_handle(napi_env env, napi_callback_info info) {
    size_t argc = 3;
    napi_value a[3], close_fn, ignored, out;
    CHECK(napi_get_cb_info(env, info, &argc, a, NULL, NULL));
    if (argc < 1) { napi_throw_type_error(env, NULL, "closeProcessHandle: a handle expected"); return NULL; }
    uv_loop_t *loop = NULL;
    CHECK(napi_get_uv_event_loop(env, &loop));
    CHECK(napi_get_named_property(env, a[0], "close", &close_fn));
    uv_handle_t *before = loop->closing_handles;
    if (napi_call_function(env, a[0], close_fn, argc - 1, a + 1, &ignored) != napi_ok) return NULL;
    CHECK(napi_create_int32(env, close_process(loop, before), &out));
    return out;
}

/* How many times this process has called fork() (glibc and musl run pthread_atfork's handlers in fork(), never in
 * posix_spawn, vfork or clone): a spawn through Node that moves it was a fork. Counted from the addon's first load
 * on; the handler goes with the addon if it is ever unloaded (glibc registers it against the addon's DSO). */
static unsigned long fork_count;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
FL_INLINE_ATOMICS static void on_fork_parent(void) { __atomic_add_fetch(&fork_count, 1, __ATOMIC_RELAXED); }
static void register_atfork(void) { pthread_atfork(NULL, on_fork_parent, NULL); }

static napi_value js_forks(napi_env env, napi_callback_info info) {
    (void)info;
    napi_value out;
    CHECK(napi_create_double(env, (double)__atomic_load_n(&fork_count, __ATOMIC_RELAXED), &out));
    return out;
}

static napi_value features(napi_env env) {
    napi_value o, v;
    char buf[32];
    if (napi_create_object(env, &o) != napi_ok) return NULL;
    if (fl_compat.glibc_major) snprintf(buf, sizeof buf, "%d.%d", fl_compat.glibc_major, fl_compat.glibc_minor);
    else buf[0] = '\0';
    napi_create_string_utf8(env, buf, NAPI_AUTO_LENGTH, &v);
    napi_set_named_property(env, o, "glibc", v);
    napi_get_boolean(env, fl_compat.addchdir != NULL, &v);
    napi_set_named_property(env, o, "addchdir", v);
    napi_get_boolean(env, fl_compat.pidfd_spawn != NULL, &v);
    napi_set_named_property(env, o, "pidfdSpawn", v);
    napi_get_boolean(env, fl_compat.setsid, &v);
    napi_set_named_property(env, o, "setsid", v);
    unsigned u = fl_compat.uv_version;
    snprintf(buf, sizeof buf, "%u.%u.%u", (u >> 16) & 0xff, (u >> 8) & 0xff, u & 0xff);
    napi_create_string_utf8(env, buf, NAPI_AUTO_LENGTH, &v);
    napi_set_named_property(env, o, "uv", v);
    return o;
}

/* Refuses to load where children could not be reaped or their failures not reported: a kernel without
 * pidfd_open (Linux < 5.3) or without waitid(P_PIDFD) (5.3), a glibc whose posix_spawn forks and cannot report
 * an exec failure (< 2.24), or a posix_spawn that runs as a plain fork for another reason (CPU emulation such as
 * qemu-user), found by a probe: there an exec failure would be exit 127 where child_process emits
 * ENOENT, EACCES, ... FORKLAB_SPAWN_SILENT_EXEC_FAILURES=serve serves there all the same (for testing the rest
 * of the addon under emulation). Reaping without pidfds would need SIGCHLD and waitpid, which race with libuv. */
static int check_machine(napi_env env) {
    char msg[480], what[160];
    const char *code = "ERR_FORKLAB_SPAWN_NO_PIDFD";
    int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    if (fd < 0) {
        snprintf(what, sizeof what, "pidfd_open (Linux 5.3): %s", strerror(errno));
    } else {
        siginfo_t si;
        int r = waitid((idtype_t)P_PIDFD, (id_t)fd, &si, WEXITED | WNOHANG);
        int e = errno;
        close(fd);
        if (r != 0 && e != ECHILD) {
            snprintf(what, sizeof what, "waitid(P_PIDFD) (Linux 5.4): %s", strerror(e));
        } else if (!fl_compat.spawn_reports_errors) {
            code = "ERR_FORKLAB_SPAWN_OLD_LIBC";
            snprintf(what, sizeof what, "glibc %d.%d's posix_spawn forks and reports no exec error (2.24)", fl_compat.glibc_major, fl_compat.glibc_minor);
        } else if (!fl_perm_allows(env)) {
            return 0; /* no child may be started here (every spawn is refused): none is started to probe */
        } else {
            int reported = fl_compat_exec_errors_reported();
            const char *serve = getenv("FORKLAB_SPAWN_SILENT_EXEC_FAILURES");
            if (reported == 1 || (reported == 0 && serve && strcmp(serve, "serve") == 0)) return 0;
            if (reported < 0) { /* no child could be started to tell (EAGAIN, ENOMEM): the loader tries again later */
                snprintf(msg, sizeof msg, "forklab-spawn could not start a child to check its posix_spawn: %s", strerror(-reported));
                napi_throw_error(env, NULL, msg);
                return -1;
            }
            code = "ERR_FORKLAB_SPAWN_SILENT_EXEC";
            snprintf(what, sizeof what, "the latter: its posix_spawn ran as a plain fork and reported no exec failure (CPU emulation such as qemu-user)");
        }
    }
    struct utsname u;
    if (uname(&u) != 0) strcpy(u.release, "unknown");
    snprintf(msg, sizeof msg,
             "forklab-spawn needs pidfds (Linux 5.4 or later) and a posix_spawn that reports exec failures (glibc 2.24 "
             "or later) to start and reap its children without racing other owners; this machine (Linux %s) lacks %s. "
             "Use node:child_process here.",
             u.release, what);
    napi_throw_error(env, code, msg);
    return -1;
}

NAPI_MODULE_INIT() {
    fl_compat_init();
    pthread_once(&atfork_once, register_atfork);
    if (fl_perm_capture(env) != 0) return fl_throw_last(env);
    if (check_machine(env) != 0) return NULL;
    CHECK(fl_watch_init(env));
    napi_property_descriptor props[] = {
        {"spawn", NULL, js_spawn, NULL, NULL, NULL, napi_default, NULL},
        {"kill", NULL, js_kill, NULL, NULL, NULL, napi_default, NULL},
        {"ref", NULL, js_ref, NULL, NULL, NULL, napi_default, NULL},
        {"unref", NULL, js_unref, NULL, NULL, NULL, napi_default, NULL},
        {"closeProcessHandle", NULL, js_close_process_handle, NULL, NULL, NULL, napi_default, NULL},
        {"spawnSync", NULL, fl_js_spawn_sync, NULL, NULL, NULL, napi_default, NULL},
        {"forks", NULL, js_forks, NULL, NULL, NULL, napi_default, NULL},
        {"features", NULL, NULL, NULL, NULL, features(env), napi_enumerable, NULL},
    };
    CHECK(napi_define_properties(env, exports, sizeof props / sizeof props[0], props));
    return exports;
}
