/* Case "deadlock" (article 003, "fork 带来的死锁问题"): a worker thread takes a pthread mutex over and over
 * (lock; hold hold-ms; unlock; 1 ms pause); the main thread forks while the worker holds it, and the child
 * tries to take the mutex. The child is a copy of the forking thread only: the lock word says "locked" and
 * no thread in the child will ever unlock it.
 *
 * Arguments: variant=without-atfork|with-atfork|plain-lock  hold-ms=N  child-timeout-ms=N
 *   without-atfork  the child tries pthread_mutex_timedlock with a CLOCK_REALTIME deadline of child-timeout-ms
 *   with-atfork     the same, with pthread_atfork(prepare: lock, parent: unlock, child: unlock) registered;
 *                   pthread_atfork cannot be undone, so each variant runs in its own probe process
 *   plain-lock      the child calls pthread_mutex_lock and really hangs; the parent gives up after
 *                   child-timeout-ms, kills it with SIGKILL and reaps it
 *
 * "Fork while the worker holds the lock" is certain, not likely: the worker publishes HELD after locking and
 * may unlock only by moving HELD -> FREE; the main thread pins it (HELD -> PINNED) before fork, so the lock
 * stays held until the main thread unpins it (after fork returns, or in the prepare handler, which then waits
 * for the worker's release like any caller of pthread_mutex_lock would).
 *
 * Per iteration (series = the variant): ns = the child's wait for the lock (measured by the child when it
 * reports; for a child that never reports, the time the parent watched it blocked before killing it),
 * columns forkWaitNs (the fork() call in the parent, atfork handlers included), acquired, reported (the
 * child wrote its result), hung (still alive at its deadline), killed, childErrno (timedlock's result when
 * reported), childPid. Every child is reaped before batch returns. */
#include "probe.h"
#include "child.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const keys[] = {"variant", "hold-ms", "child-timeout-ms", NULL};
static const char *const variant_names[] = {"without-atfork", "with-atfork", "plain-lock", NULL};
enum { WITHOUT_ATFORK, WITH_ATFORK, PLAIN_LOCK };

enum { FREE, HELD, PINNED };
#define MARGIN_MS 250 /* extra time a timedlock child gets to report after its own deadline */
#define PIN_LIMIT_NS 10000000000ull

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static atomic_int state = FREE;
static atomic_int stop_worker;
static pthread_t worker;
static int worker_started;
static int variant;
static long hold_ms, child_timeout_ms;

struct child_report {
    int rc;
    uint64_t wait_ns;
};

static void sleep_ns(long ns) {
    struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static void *worker_main(void *arg) {
    while (!atomic_load(&stop_worker)) {
        if (pthread_mutex_lock(&mutex) != 0) break; /* cannot fail for a normal mutex */
        atomic_store(&state, HELD);
        sleep_ns(hold_ms * 1000000L);
        for (;;) { /* release only when nobody has pinned the lock */
            int expect = HELD;
            if (atomic_compare_exchange_strong(&state, &expect, FREE)) break;
            sleep_ns(20000);
        }
        pthread_mutex_unlock(&mutex);
        sleep_ns(1000000);
    }
    return NULL;
}

/* Waits until the worker holds the lock and pins it there. 0, or -1 (error emitted). */
static int pin_held_lock(void) {
    uint64_t start = fl_now_ns();
    for (;;) {
        int expect = HELD;
        if (atomic_compare_exchange_strong(&state, &expect, PINNED)) return 0;
        if (fl_now_ns() - start > PIN_LIMIT_NS) return fl_fail_msg("pin", "the worker thread did not take the lock within 10 s");
        sleep_ns(20000);
    }
}

/* PINNED -> HELD; any other state is the worker's own and is left alone. */
static void unpin(void) {
    int expect = PINNED;
    atomic_compare_exchange_strong(&state, &expect, HELD);
}

static void prepare(void) {
    unpin(); /* the worker may now finish its hold and release; this lock waits for that */
    pthread_mutex_lock(&mutex);
}
static void after_fork(void) { pthread_mutex_unlock(&mutex); }

static int setup(void) {
    variant = fl_arg_choice("variant", "without-atfork", variant_names);
    hold_ms = fl_arg_long("hold-ms", 50, 1, 60000);
    child_timeout_ms = fl_arg_long("child-timeout-ms", 500, 1, 600000);
    int rc;
    if (variant == WITH_ATFORK && (rc = pthread_atfork(prepare, after_fork, after_fork)) != 0) return fl_fail("pthread_atfork", rc);
    if ((rc = pthread_create(&worker, NULL, worker_main, NULL)) != 0) return fl_fail("pthread_create", rc);
    worker_started = 1;
    fl_info_begin();
    fl_info_str("variant", variant_names[variant]);
    fl_info_long("holdMs", hold_ms);
    fl_info_long("childTimeoutMs", child_timeout_ms);
    fl_info_long("marginMs", variant == PLAIN_LOCK ? 0 : MARGIN_MS);
    fl_info_long("probePid", (long long)getpid());
    fl_info_end();
    return 0;
}

/* In the child: only async-signal-safe calls besides the lock attempt itself; the result goes through the pipe. */
static void child_main(int wfd, void *arg) {
    if (getppid() != *(const pid_t *)arg) _exit(3);
    struct child_report r = {0, 0};
    uint64_t t0 = fl_now_ns();
    if (variant == PLAIN_LOCK) {
        r.rc = pthread_mutex_lock(&mutex);
    } else {
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += child_timeout_ms / 1000;
        deadline.tv_nsec += (child_timeout_ms % 1000) * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) deadline.tv_sec++, deadline.tv_nsec -= 1000000000L;
        r.rc = pthread_mutex_timedlock(&mutex, &deadline);
    }
    r.wait_ns = fl_now_ns() - t0;
    if (r.rc == 0) pthread_mutex_unlock(&mutex);
    ssize_t w = write(wfd, &r, sizeof r);
    _exit(w == (ssize_t)sizeof r ? 0 : 4);
}

struct outcome {
    uint64_t wait_ns, fork_ns, acquired, reported, hung, killed, child_errno, pid;
};

static int once(struct outcome *o) {
    memset(o, 0, sizeof *o);
    if (pin_held_lock() != 0) return -1;
    pid_t parent = getpid();
    fl_child c;
    int started = fl_child_start(&c, FL_FROM_CHILD, child_main, &parent);
    unpin(); /* already done by prepare in the with-atfork variant */
    if (started != 0) return -1;
    uint64_t t1 = c.forked_at_ns;
    o->fork_ns = c.fork_ns;
    o->pid = (uint64_t)c.pid;
    uint64_t deadline = t1 + (uint64_t)(child_timeout_ms + (variant == PLAIN_LOCK ? 0 : MARGIN_MS)) * 1000000ull;
    struct child_report r;
    int got = fl_child_read(&c, &r, sizeof r, deadline); /* 1: a report; 0 or late: nothing */
    uint64_t watched = fl_now_ns() - t1;
    fl_child_close(&c);
    if (got == -1) {
        fl_child_kill(&c);
        return -1;
    }
    if (got != 1) got = 0;
    uint64_t reap_by = got == 1 ? t1 + watched + (uint64_t)MARGIN_MS * 1000000ull : deadline; /* a reporting child is exiting */
    int status;
    int reaped = fl_child_reap(&c, reap_by > deadline ? reap_by : deadline, &status);
    if (reaped < 0) return -1;
    if (reaped == 1) o->hung = o->killed = 1;
    if (got == 1) {
        o->reported = 1;
        o->wait_ns = r.wait_ns;
        o->child_errno = (uint64_t)r.rc;
        o->acquired = r.rc == 0;
    } else {
        o->wait_ns = watched;
    }
    return 0;
}

static int batch(long n, int warmup) {
    uint64_t *col[8];
    for (int i = 0; i < 8; i++)
        if (!(col[i] = calloc((size_t)n, sizeof(uint64_t)))) {
            for (int j = 0; j < i; j++) free(col[j]);
            return fl_fail("calloc", errno);
        }
    int rc = 0;
    for (long i = 0; i < n && rc == 0; i++) {
        struct outcome o;
        if ((rc = once(&o)) != 0) break;
        col[0][i] = o.wait_ns, col[1][i] = o.fork_ns, col[2][i] = o.acquired, col[3][i] = o.reported;
        col[4][i] = o.hung, col[5][i] = o.killed, col[6][i] = o.child_errno, col[7][i] = o.pid;
    }
    if (rc == 0)
        fl_emit_samples_x(variant_names[variant], warmup, col[0], n, "forkWaitNs", col[1], "acquired", col[2], "reported", col[3],
                          "hung", col[4], "killed", col[5], "childErrno", col[6], "childPid", col[7], NULL);
    for (int i = 0; i < 8; i++) free(col[i]);
    return rc;
}

static void teardown(void) {
    if (!worker_started) return;
    atomic_store(&stop_worker, 1);
    unpin(); /* never leave the worker pinned */
    pthread_join(worker, NULL);
    worker_started = 0;
}

const fl_case fl_case_deadlock = {"deadlock", keys, setup, batch, teardown};
FL_CASE(fl_case_deadlock);
