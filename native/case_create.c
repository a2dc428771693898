/* Case "create" (article 002): what one execution unit costs to create and finish.
 * Each iteration times, in alternating order, one pthread_create+pthread_join of a thread that does
 * nothing, and one fork+waitpid of a child that _exit(0)s (launch.c, FL_FORK_EXIT). The two are taken
 * in the same iteration so that drift (other load, frequency) hits both alike.
 * Two samples lines per batch, "thread" and "fork"; index i of both is the same iteration.
 * Arguments: none (besides cpu=). */
#include "launch.h"
#include "probe.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

static const char *const keys[] = {NULL};

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
    for (long i = 0; i < n && rc == 0; i++) {
        if (i % 2 == 0) {
            rc = time_thread(&thread_ns[i]);
            if (rc == 0) rc = fl_launch_once(FL_FORK_EXIT, &fork_ns[i]);
        } else {
            rc = fl_launch_once(FL_FORK_EXIT, &fork_ns[i]);
            if (rc == 0) rc = time_thread(&thread_ns[i]);
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
