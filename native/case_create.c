/* Case "create" (article 002): what one execution unit costs to create and finish.
 * Times pthread_create+pthread_join of a thread that does nothing, and fork+waitpid of a child that
 * _exit(0)s (launch.c, FL_FORK_EXIT), in alternating blocks of `block` calls of one kind: a thread block,
 * then a fork block, then forks first in the next pair, and so on. Each kind thus runs as in a plain loop
 * of its own (the article's method: its caches, its allocator state), while slow drift still hits both
 * alike. (Timing a thread right after a fork in the same iteration made it about 1.6x slower than a loop
 * of threads alone.)
 * Two samples lines per batch, "thread" and "fork"; index i of both belongs to the same pair of blocks.
 * Arguments: block=N (calls per block, default 50). */
#include "launch.h"
#include "probe.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

static const char *const keys[] = {"block", NULL};
static long block_calls;

static void *empty_thread(void *arg) { return arg; }

static int time_thread(uint64_t *ns) {
    pthread_t t;
    uint64_t t0 = fl_now_ns();
    int rc = pthread_create(&t, NULL, empty_thread, NULL);
    if (rc != 0) return fl_fail("pthread_create", rc);
    rc = pthread_join(t, NULL);
    if (rc != 0) return fl_fail("pthread_join", rc);
    *ns = fl_now_ns() - t0;
    return 0;
}

static int setup(void) {
    block_calls = fl_arg_long("block", 50, 1, 1000000);
    if (fl_launch_init(NULL, NULL) != 0) return -1;
    pthread_attr_t attr;
    size_t stack = 0;
    int rc = pthread_attr_init(&attr);
    if (rc != 0) return fl_fail("pthread_attr_init", rc);
    rc = pthread_attr_getstacksize(&attr, &stack);
    pthread_attr_destroy(&attr);
    if (rc != 0) return fl_fail("pthread_attr_getstacksize", rc);
    fl_info_begin();
    fl_info_long("threadStackKb", (long long)(stack / 1024));
    fl_info_long("blockCalls", block_calls);
    fl_info_long("vmRssKb", fl_proc_kb("/proc/self/status", "VmRSS"));
    fl_info_long("vmPteKb", fl_proc_kb("/proc/self/status", "VmPTE"));
    fl_info_end();
    return 0;
}

static int batch(long n, int warmup) {
    uint64_t *thread_ns = malloc((size_t)n * sizeof *thread_ns);
    uint64_t *fork_ns = malloc((size_t)n * sizeof *fork_ns);
    int rc = 0;
    if (!thread_ns || !fork_ns) {
        rc = fl_fail("malloc", errno);
        goto out;
    }
    /* Pairs of blocks: [i, end) timed as threads, then as forks (or forks first, every other pair). */
    for (long i = 0, pair = 0; i < n && rc == 0; i += block_calls, pair++) {
        long end = i + block_calls < n ? i + block_calls : n;
        for (int half = 0; half < 2 && rc == 0; half++) {
            int threads = (half == 0) == (pair % 2 == 0);
            for (long j = i; j < end && rc == 0; j++)
                rc = threads ? time_thread(&thread_ns[j]) : fl_launch_once(FL_FORK_EXIT, &fork_ns[j]);
        }
    }
    if (rc == 0) {
        fl_emit_samples("thread", warmup, thread_ns, n);
        fl_emit_samples("fork", warmup, fork_ns, n);
    }
out:
    free(thread_ns);
    free(fork_ns);
    return rc;
}

const fl_case fl_case_create = {"create", keys, setup, batch, NULL};
FL_CASE(fl_case_create);
