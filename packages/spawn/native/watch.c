#include "watch.h"

#include <uv.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat.h"
#include "reaper.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

/* A child record is freed when both its poll handle is closed (or was never opened) and its JS handle is
 * finalized. Each environment has its own instance: its list of children and an async cleanup hook. When the
 * environment ends, the hook stops watching its children, hands their pidfds to the process-wide reaper
 * (reaper.c: no zombie is left) and closes the poll handles; Node waits for the last close callback
 * (napi_remove_async_cleanup_hook) before it unloads anything. */
struct fl_child {
    napi_env env;
    napi_ref onexit;
    napi_async_context actx;
    napi_ref resource; /* actx's resource, held strongly: N-API (Node < 24) holds it weakly, and with it goes the
                        * AsyncLocalStorage store the child's callbacks run in */
    uv_poll_t poll;
    int pidfd;
    pid_t pid;
    int reaped;   /* no more signals: exited and reaped, or lost */
    int open;     /* the poll handle is initialised and not closed */
    int alive;    /* the poll handle's memory is in use (until its close callback) */
    int js_alive;
    int lost;     /* reaped by someone else: never reported */
    int refed;
    int due;      /* its pidfd was readable: queued for the check phase (fl_instance.due) */
    struct fl_child *prev, *next;
    struct fl_child *due_next;
};

typedef struct {
    fl_child *head;
    napi_async_cleanup_hook_handle cleanup;
    int closing;      /* the environment is being torn down */
    int pending;      /* handles whose close callback has not run yet (during teardown) */
    uv_timer_t hold;  /* active while a lost child is referenced: keeps the loop alive, as libuv's handle */
    int hold_init;
    int lost_refs;
    /* Exits are reaped and reported in the check phase of the loop turn whose poll saw the pidfd readable, after
     * every other descriptor of that poll: libuv reports its own children's exits from its SIGCHLD pipe, which
     * uv__io_poll handles after all the other events of a poll. So what a child's death makes readable in the
     * same turn (its IPC channel's end, its pipes' EOF) is handled first, as with Node's handle, and not in the
     * order epoll happens to list the descriptors (Node's 'disconnect' comes before 'exit' then). */
    uv_check_t due_check;
    int due_init;
    fl_child *due_head, *due_tail;
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
    c->alive = 0;
    if (!c->js_alive && !c->due) free(c);
}

static void close_poll(fl_child *c, uv_close_cb cb) {
    c->open = 0;
    uv_poll_stop(&c->poll);
    uv_close((uv_handle_t *)&c->poll, cb);
    /* uv_close has taken it out of the loop (a poll handle's close touches its descriptor no more): the pidfd
     * goes now, before the exit is reported, rather than a loop turn later (Node's process handle holds none) */
    if (c->pidfd >= 0) close(c->pidfd);
    c->pidfd = -1;
}

static void on_hold(uv_timer_t *t) { (void)t; }

static void update_hold(fl_instance *inst, uv_loop_t *loop, int delta) {
    inst->lost_refs += delta;
    if (inst->closing) return;
    if (!inst->hold_init) {
        if (uv_timer_init(loop, &inst->hold) != 0) return;
        inst->hold_init = 1;
    }
    if (inst->lost_refs > 0 && !uv_is_active((uv_handle_t *)&inst->hold)) uv_timer_start(&inst->hold, on_hold, 86400000, 86400000);
    else if (inst->lost_refs == 0) uv_timer_stop(&inst->hold);
}

/* Its exit will never be seen: stop watching, keep the record and its onexit (so that nothing it holds is
 * collected, as Node keeps an active process handle), hold the loop while referenced. */
static void lose(fl_child *c, uv_loop_t *loop) {
    c->lost = 1;
    c->reaped = 1;
    if (c->open) close_poll(c, on_poll_closed);
    if (c->refed) update_hold(instance(c->env), loop, 1);
}

static void call_onexit(fl_child *c, int status, int term_signal) {
    napi_env env = c->env;
    napi_handle_scope scope;
    if (napi_open_handle_scope(env, &scope) != napi_ok) return;
    napi_value fn, recv, argv[2], result;
    napi_get_reference_value(env, c->onexit, &fn);
    napi_get_global(env, &recv);
    napi_create_int32(env, status, &argv[0]);
    napi_create_string_utf8(env, term_signal ? fl_signal_name(term_signal) : "", NAPI_AUTO_LENGTH, &argv[1]);
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
    if (c->resource) napi_delete_reference(env, c->resource);
    c->resource = NULL;
    napi_close_handle_scope(env, scope);
}

static void reap_and_report(fl_child *c) {
    uv_poll_t *h = &c->poll;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    int r;
    do r = waitid((idtype_t)P_PIDFD, (id_t)c->pidfd, &si, WEXITED | WNOHANG); while (r < 0 && errno == EINTR);
    if (r == 0 && si.si_pid == 0) return; /* not exited yet: spurious wake-up */
    if (r < 0 && errno == ECHILD) {
        lose(c, h->loop);
        return;
    }
    int exit_status = 0, term_signal = 0;
    if (r < 0) exit_status = -errno;
    else if (si.si_code == CLD_EXITED) exit_status = si.si_status;
    else term_signal = si.si_status;
    c->reaped = 1;
    unlink_child(instance(c->env), c);
    close_poll(c, on_poll_closed);
    call_onexit(c, exit_status, term_signal);
}

static void on_due_check(uv_check_t *h) {
    fl_instance *inst = h->data;
    uv_check_stop(h);
    fl_child *c = inst->due_head;
    inst->due_head = inst->due_tail = NULL;
    while (c) {
        fl_child *next = c->due_next;
        c->due_next = NULL;
        c->due = 0;
        if (!inst->closing && c->open && !c->reaped) reap_and_report(c);
        else if (!c->alive && !c->js_alive) free(c);
        c = next;
    }
}

static void on_pidfd_readable(uv_poll_t *h, int status, int events) {
    (void)status;
    (void)events;
    fl_child *c = h->data;
    fl_instance *inst = instance(c->env);
    if (c->due || !inst || inst->closing) return;
    if (!inst->due_init) {
        if (uv_check_init(h->loop, &inst->due_check) != 0) {
            reap_and_report(c); /* no check handle: at once, as before */
            return;
        }
        inst->due_check.data = inst;
        uv_unref((uv_handle_t *)&inst->due_check); /* it runs in this turn: it keeps nothing alive */
        inst->due_init = 1;
    }
    c->due = 1;
    if (inst->due_tail) inst->due_tail->due_next = c;
    else inst->due_head = c;
    inst->due_tail = c;
    if (!uv_is_active((uv_handle_t *)&inst->due_check)) uv_check_start(&inst->due_check, on_due_check);
}

static void on_handle_finalized(napi_env env, void *data, void *hint) {
    fl_child *c = data;
    c->js_alive = 0;
    if (!c->alive && !c->due) free(c);
}

static void teardown_done(fl_instance *inst) {
    if (--inst->pending == 0) napi_remove_async_cleanup_hook(inst->cleanup);
}

static void teardown_closed(uv_handle_t *h) {
    fl_child *c = h->data;
    fl_instance *inst = (fl_instance *)c->prev; /* set by on_env_teardown: the list is gone by then */
    c->prev = NULL;
    on_poll_closed(h);
    teardown_done(inst);
}

static void hold_closed(uv_handle_t *h) { teardown_done(h->data); }

static void on_env_teardown(napi_async_cleanup_hook_handle handle, void *arg) {
    fl_instance *inst = arg;
    inst->closing = 1;
    inst->pending = 1; /* this function's own share, released at its end */
    for (fl_child *d = inst->due_head, *dn; d; d = dn) { /* each is still in the list below, open */
        dn = d->due_next;
        d->due_next = NULL;
        d->due = 0;
    }
    inst->due_head = inst->due_tail = NULL;
    fl_child *c = inst->head, *next;
    inst->head = NULL;
    for (; c; c = next) {
        next = c->next;
        c->next = NULL;
        c->prev = (fl_child *)inst;
        if (c->onexit) napi_delete_reference(c->env, c->onexit);
        c->onexit = NULL;
        if (c->actx) napi_async_destroy(c->env, c->actx);
        c->actx = NULL;
        if (c->resource) napi_delete_reference(c->env, c->resource);
        c->resource = NULL;
        if (!c->open) continue;
        if (!c->reaped && c->pidfd >= 0) { fl_reaper_adopt(c->pidfd); c->pidfd = -1; }
        c->reaped = 1;
        inst->pending++;
        close_poll(c, teardown_closed);
    }
    if (inst->hold_init) {
        inst->pending++;
        inst->hold.data = inst;
        uv_close((uv_handle_t *)&inst->hold, hold_closed);
    }
    if (inst->due_init) {
        inst->pending++;
        inst->due_check.data = inst;
        uv_close((uv_handle_t *)&inst->due_check, hold_closed);
    }
    teardown_done(inst);
}

static void on_instance_finalized(napi_env env, void *data, void *hint) { free(data); }

napi_status fl_watch_init(napi_env env) {
    fl_instance *inst = calloc(1, sizeof *inst);
    if (!inst) return napi_generic_failure;
    napi_status st = napi_set_instance_data(env, inst, on_instance_finalized, NULL);
    if (st != napi_ok) return st;
    return napi_add_async_cleanup_hook(env, on_env_teardown, inst, &inst->cleanup);
}

int fl_watch_closing(napi_env env) { return instance(env)->closing; }

static void kill_and_reap(pid_t pid, int pidfd) {
    if (pidfd >= 0) {
        syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
        siginfo_t si;
        while (waitid((idtype_t)P_PIDFD, (id_t)pidfd, &si, WEXITED) < 0 && errno == EINTR) {}
        close(pidfd);
    }
}

int fl_watch(napi_env env, pid_t pid, int pidfd, napi_value onexit, napi_value *handle) {
    fl_child *c = calloc(1, sizeof *c);
    uv_loop_t *loop = NULL;
    if (!c || napi_get_uv_event_loop(env, &loop) != napi_ok || napi_create_external(env, c, on_handle_finalized, NULL, handle) != napi_ok) {
        free(c);
        kill_and_reap(pid, pidfd);
        return ENOMEM;
    }
    c->env = env;
    c->pid = pid;
    c->pidfd = -1;
    c->js_alive = 1; /* from here on the finalizer frees it */
    c->refed = 1;
    c->poll.data = c;
    int err = pidfd >= 0 ? -uv_poll_init(loop, &c->poll, pidfd) : 0;
    if (err) {
        c->reaped = 1;
        kill_and_reap(pid, pidfd);
        return err;
    }
    c->pidfd = pidfd;
    napi_value name, resource;
    napi_create_string_utf8(env, "forklab:spawn", NAPI_AUTO_LENGTH, &name);
    napi_create_object(env, &resource);
    napi_async_init(env, resource, name, &c->actx);
    napi_create_reference(env, resource, 1, &c->resource);
    napi_create_reference(env, onexit, 1, &c->onexit);
    fl_instance *inst = instance(env);
    c->next = inst->head;
    if (inst->head) inst->head->prev = c;
    inst->head = c;
    if (pidfd >= 0) {
        c->open = c->alive = 1;
        uv_poll_start(&c->poll, UV_READABLE, on_pidfd_readable);
    } else {
        lose(c, loop); /* its pid named another process already: ours was reaped by someone else */
    }
    return 0;
}

fl_child *fl_child_of(napi_env env, napi_value v) {
    void *p = NULL;
    if (napi_get_value_external(env, v, &p) != napi_ok) {
        napi_throw_type_error(env, NULL, "not a child handle");
        return NULL;
    }
    return p;
}

int fl_child_kill(fl_child *c, int sig) {
    if (c->reaped || c->pidfd < 0) return -ESRCH;
    return syscall(SYS_pidfd_send_signal, c->pidfd, sig, NULL, 0) != 0 ? -errno : 0;
}

void fl_child_ref(fl_child *c, int ref) {
    if (c->refed == ref) return;
    c->refed = ref;
    if (c->lost) {
        uv_loop_t *loop = NULL;
        if (napi_get_uv_event_loop(c->env, &loop) == napi_ok) update_hold(instance(c->env), loop, ref ? 1 : -1);
    } else if (c->open) {
        if (ref) uv_ref((uv_handle_t *)&c->poll);
        else uv_unref((uv_handle_t *)&c->poll);
    }
}
