/* forklab-spawn addon: creates children with posix_spawn (glibc: clone(CLONE_VM|CLONE_VFORK), so the
 * cost does not grow with the parent's memory) and reaps each one through its own pidfd, watched with a
 * uv_poll on Node's event loop. Never waitpid(-1): other children of the process are left to their owners.
 *
 * JS interface (see src/native.ts):
 *   spawn(file, argv[], envp[], cwd|null, stdio[], detached, onexit) -> [err, pid, handle, fd0, ...]
 *     envp: the child's whole environment (Node's envPairs), never the C environ.
 *     stdio[i]: -1 ignore (/dev/null for 0-2), -2 pipe (a socketpair, like libuv), n >= 0 the parent's fd n.
 *     err: 0 or -errno. fdI: the parent's end of pipe i, or -1; on an exec failure the pipes are still
 *     handed back (the caller opens them, as libuv does, or closes them).
 *     onexit(exitStatus, termSignal) runs once, when the child has exited and been reaped.
 *   kill(handle, signal) -> 0 | -errno   (pidfd_send_signal: no pid-reuse race)
 *   ref(handle), unref(handle)
 */
#include <node_api.h>
#include <uv.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reaper.h"
#include "spawn_child.h"

napi_value fl_js_spawn_sync(napi_env env, napi_callback_info info);

/* The name Node gives a signal number (signo_string): SIGTERM, ... */
const char *fl_signal_name(int sig) {
    static __thread char buf[16];
    const char *abbrev = sigabbrev_np(sig);
    if (!abbrev) return "";
    snprintf(buf, sizeof buf, "SIG%s", abbrev);
    return buf;
}

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

static int sys_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }
static int sys_pidfd_send_signal(int pidfd, int sig) { return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0); }

/* ---- children and their lifetime ----
 * A child record is freed when both its poll handle is closed and its JS handle is finalized.
 * Each environment (the main thread, every worker) has its own instance: its list of children and an
 * async cleanup hook. When the environment ends, the hook stops watching its children, hands their
 * pidfds to the process-wide reaper (reaper.c: no zombie is left) and closes the poll handles; Node
 * waits for the last close callback (napi_remove_async_cleanup_hook) before it unloads anything. */
typedef struct fl_child {
    napi_env env;
    napi_ref onexit;
    napi_async_context actx;
    uv_poll_t poll;
    int pidfd;
    pid_t pid;
    int reaped;
    int closed;
    int js_alive;
    struct fl_child *prev, *next;
} fl_child;

typedef struct {
    fl_child *head;
    napi_async_cleanup_hook_handle cleanup;
    int closing;      /* the environment is being torn down */
    int pending;      /* poll handles whose close callback has not run yet (during teardown) */
} fl_instance;

static fl_instance *instance(napi_env env) {
    fl_instance *inst = NULL;
    napi_get_instance_data(env, (void **)&inst);
    return inst;
}

static void unlink_child(fl_instance *inst, fl_child *c) {
    if (c->prev) c->prev->next = c->next;
    else if (inst && inst->head == c) inst->head = c->next;
    if (c->next) c->next->prev = c->prev;
    c->prev = c->next = NULL;
}

static void on_poll_closed(uv_handle_t *h) {
    fl_child *c = h->data;
    if (c->pidfd >= 0) close(c->pidfd);
    c->pidfd = -1;
    c->closed = 1;
    if (!c->js_alive) free(c);
}

static void finish_child(fl_child *c) {
    uv_poll_stop(&c->poll);
    unlink_child(instance(c->env), c);
    uv_close((uv_handle_t *)&c->poll, on_poll_closed);
}

static void call_onexit(fl_child *c, int status, int term_signal) {
    napi_env env = c->env;
    napi_handle_scope scope;
    if (napi_open_handle_scope(env, &scope) != napi_ok) return;
    napi_value fn, recv, argv[2], result;
    napi_get_reference_value(env, c->onexit, &fn);
    napi_get_global(env, &recv);
    napi_create_int32(env, status, &argv[0]);
    napi_create_int32(env, term_signal, &argv[1]);
    napi_status st = napi_make_callback(env, c->actx, recv, fn, 2, argv, &result);
    if (st == napi_pending_exception) {
        napi_value err;
        napi_get_and_clear_last_exception(env, &err);
        napi_fatal_exception(env, err);
    }
    napi_delete_reference(env, c->onexit);
    c->onexit = NULL;
    napi_async_destroy(env, c->actx);
    c->actx = NULL;
    napi_close_handle_scope(env, scope);
}

static void on_pidfd_readable(uv_poll_t *h, int status, int events) {
    fl_child *c = h->data;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    int r;
    do r = waitid((idtype_t)P_PIDFD, (id_t)c->pidfd, &si, WEXITED | WNOHANG); while (r < 0 && errno == EINTR);
    if (r == 0 && si.si_pid == 0) return; /* not exited yet: spurious wake-up */
    int exit_status = 0, term_signal = 0;
    if (r < 0) exit_status = -errno; /* ECHILD: someone else reaped it (a waitpid(-1) elsewhere) */
    else if (si.si_code == CLD_EXITED) exit_status = si.si_status;
    else term_signal = si.si_status;
    c->reaped = 1;
    finish_child(c);
    call_onexit(c, exit_status, term_signal);
}

static void on_handle_finalized(napi_env env, void *data, void *hint) {
    fl_child *c = data;
    c->js_alive = 0;
    if (c->closed) free(c);
}

static void teardown_closed(uv_handle_t *h) {
    fl_child *c = h->data;
    fl_instance *inst = (fl_instance *)c->prev; /* set by on_env_teardown: the list is gone by then */
    c->prev = NULL;
    on_poll_closed(h);
    if (--inst->pending == 0) napi_remove_async_cleanup_hook(inst->cleanup);
}

static void on_env_teardown(napi_async_cleanup_hook_handle handle, void *arg) {
    fl_instance *inst = arg;
    inst->closing = 1;
    fl_child *c = inst->head, *next;
    inst->head = NULL;
    for (; c; c = next) {
        next = c->next;
        c->next = NULL;
        c->prev = (fl_child *)inst;
        uv_poll_stop(&c->poll);
        if (c->onexit) napi_delete_reference(c->env, c->onexit);
        c->onexit = NULL;
        if (c->actx) napi_async_destroy(c->env, c->actx);
        c->actx = NULL;
        if (!c->reaped && c->pidfd >= 0) { fl_reaper_adopt(c->pidfd); c->pidfd = -1; }
        c->reaped = 1;
        inst->pending++;
        uv_close((uv_handle_t *)&c->poll, teardown_closed);
    }
    if (inst->pending == 0) napi_remove_async_cleanup_hook(handle);
}

static void on_instance_finalized(napi_env env, void *data, void *hint) { free(data); }

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

/* Starts watching the child's pidfd; on failure the child is killed and reaped here (it is ours). */
static int watch_child(napi_env env, pid_t pid, napi_value onexit, fl_child **out) {
    int pidfd = sys_pidfd_open(pid);
    int err = pidfd < 0 ? errno : 0;
    fl_child *c = NULL;
    uv_loop_t *loop = NULL;
    if (!err && !(c = calloc(1, sizeof *c))) err = ENOMEM;
    if (!err && napi_get_uv_event_loop(env, &loop) != napi_ok) err = EINVAL;
    if (!err && (err = -uv_poll_init(loop, &c->poll, pidfd)) != 0) { /* err is a positive errno */ }
    if (err) {
        if (pidfd >= 0) close(pidfd);
        free(c);
        kill(pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
        return err;
    }
    c->env = env;
    c->pid = pid;
    c->pidfd = pidfd;
    c->js_alive = 1;
    c->poll.data = c;
    napi_value name;
    napi_create_string_utf8(env, "forklab:spawn", NAPI_AUTO_LENGTH, &name);
    napi_value resource;
    napi_create_object(env, &resource);
    napi_async_init(env, resource, name, &c->actx);
    napi_create_reference(env, onexit, 1, &c->onexit);
    uv_poll_start(&c->poll, UV_READABLE, on_pidfd_readable);
    fl_instance *inst = instance(env);
    c->next = inst->head;
    if (inst->head) inst->head->prev = c;
    inst->head = c;
    *out = c;
    return 0;
}

static napi_value js_spawn(napi_env env, napi_callback_info info) {
    size_t argc = 7;
    napi_value a[7];
    CHECK(napi_get_cb_info(env, info, &argc, a, NULL, NULL));
    if (argc < 7) { napi_throw_type_error(env, NULL, "spawn: 7 arguments expected"); return NULL; }
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
    int own_env = 1;
    if (env_type != napi_object) { free(file); free_strings(argv); napi_throw_type_error(env, NULL, "spawn: envp must be an array"); return NULL; }
    char **envp = !argv ? NULL : dup_string_array(env, a[2]);
    int *stdio = calloc(n_stdio ? n_stdio : 1, sizeof *stdio);
    int *pfds = calloc(n_stdio ? n_stdio : 1, sizeof *pfds);
    if (!file || !argv || !envp || !stdio || !pfds) goto out;
    if (cwd_type == napi_string && !(cwd = dup_string(env, a[3]))) goto out;
    for (uint32_t i = 0; i < n_stdio; i++) {
        napi_value e;
        if (napi_get_element(env, a[4], i, &e) != napi_ok || napi_get_value_int32(env, e, &stdio[i]) != napi_ok) {
            fl_throw_last(env);
            goto out;
        }
    }
    fl_spawn_req req = {file, argv, envp, cwd, stdio, (int)n_stdio, detached};
    pid_t pid = 0;
    int err = fl_spawn(&req, &pid, pfds);
    fl_child *c = NULL;
    int started = err == 0;
    if (err == 0 && instance(env)->closing) {
        kill(pid, SIGKILL); /* the environment is going away: nothing could ever see this child */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
        err = ECANCELED;
    } else if (err == 0) err = watch_child(env, pid, a[6], &c);
    if (err != 0) pid = 0;
    if (err != 0 && started) {
        for (uint32_t i = 0; i < n_stdio; i++)
            if (pfds[i] >= 0) { close(pfds[i]); pfds[i] = -1; }
    }
    if (napi_create_array_with_length(env, 3 + n_stdio, &result) != napi_ok) goto out;
    set_int(env, result, 0, -err);
    set_int(env, result, 1, pid);
    napi_value handle;
    if (c) napi_create_external(env, c, on_handle_finalized, NULL, &handle);
    else napi_get_undefined(env, &handle);
    napi_set_element(env, result, 2, handle);
    for (uint32_t i = 0; i < n_stdio; i++) set_int(env, result, 3 + i, pfds[i]);
out:
    free(file);
    free(cwd);
    free_strings(argv);
    if (own_env) free_strings(envp);
    free(stdio);
    free(pfds);
    return result;
}

static fl_child *get_child(napi_env env, napi_value v) {
    void *p = NULL;
    if (napi_get_value_external(env, v, &p) != napi_ok) { napi_throw_type_error(env, NULL, "not a child handle"); return NULL; }
    return p;
}

static napi_value js_kill(napi_env env, napi_callback_info info) {
    size_t argc = 2;
    napi_value a[2], out;
    CHECK(napi_get_cb_info(env, info, &argc, a, NULL, NULL));
    fl_child *c = get_child(env, a[0]);
    if (!c) return NULL;
    int sig = 0;
    CHECK(napi_get_value_int32(env, a[1], &sig));
    int r = 0;
    if (c->reaped || c->pidfd < 0) r = -ESRCH;
    else if (sys_pidfd_send_signal(c->pidfd, sig) != 0) r = -errno;
    CHECK(napi_create_int32(env, r, &out));
    return out;
}

static napi_value ref_or_unref(napi_env env, napi_callback_info info, int ref) {
    size_t argc = 1;
    napi_value a[1];
    CHECK(napi_get_cb_info(env, info, &argc, a, NULL, NULL));
    fl_child *c = get_child(env, a[0]);
    if (!c) return NULL;
    if (!c->reaped && !c->closed) {
        if (ref) uv_ref((uv_handle_t *)&c->poll);
        else uv_unref((uv_handle_t *)&c->poll);
    }
    return NULL;
}
static napi_value js_ref(napi_env env, napi_callback_info info) { return ref_or_unref(env, info, 1); }
static napi_value js_unref(napi_env env, napi_callback_info info) { return ref_or_unref(env, info, 0); }

/* Refuses to load where the kernel has no pidfd (Linux < 5.3): reaping would need SIGCHLD and
 * waitpid, which races with libuv's and other owners' children. */
static int check_pidfd(napi_env env) {
    int fd = sys_pidfd_open(getpid());
    if (fd >= 0) { close(fd); return 0; }
    struct utsname u;
    char msg[320];
    if (uname(&u) != 0) strcpy(u.release, "unknown");
    snprintf(msg, sizeof msg,
             "forklab-spawn needs pidfd_open (Linux 5.3 or later) to reap its children without racing other "
             "owners; this kernel is %s (pidfd_open: %s). Use node:child_process here.",
             u.release, strerror(errno));
    napi_throw_error(env, "ERR_FORKLAB_SPAWN_NO_PIDFD", msg);
    return -1;
}

NAPI_MODULE_INIT() {
    if (check_pidfd(env) != 0) return NULL;
    fl_instance *inst = calloc(1, sizeof *inst);
    if (!inst) { napi_throw_error(env, NULL, "out of memory"); return NULL; }
    CHECK(napi_set_instance_data(env, inst, on_instance_finalized, NULL));
    CHECK(napi_add_async_cleanup_hook(env, on_env_teardown, inst, &inst->cleanup));
    napi_property_descriptor props[] = {
        {"spawn", NULL, js_spawn, NULL, NULL, NULL, napi_default, NULL},
        {"kill", NULL, js_kill, NULL, NULL, NULL, napi_default, NULL},
        {"ref", NULL, js_ref, NULL, NULL, NULL, napi_default, NULL},
        {"unref", NULL, js_unref, NULL, NULL, NULL, napi_default, NULL},
        {"spawnSync", NULL, fl_js_spawn_sync, NULL, NULL, NULL, napi_default, NULL},
    };
    CHECK(napi_define_properties(env, exports, sizeof props / sizeof props[0], props));
    return exports;
}
