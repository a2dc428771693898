/* Case "contend" (issue 44): N creators start children at the same time, from one parent's memory.
 * The parent holds rss-mb of touched anonymous memory (region.h); each batch of n starts `creators` creators, which
 * wait on one start pipe, then each run n launches by method (launch.h: timed from the call until waitpid) as fast as
 * they can, without waiting for one another (free-running, as will-it-scale's workers and lmbench's parallel copies
 * run). mode=process: each creator is a process forked from the parent for the batch (so it holds the parent's RSS
 * as the parent's own copy-on-write mappings); mode=thread: each creator is a thread of the probe, sharing its mm.
 * The creators and the launches they make are the point of this case, so it starts threads and processes of its own:
 * creator processes are reaped before batch returns, killed past a deadline; creator threads are joined.
 * Two samples lines per batch:
 *   "latency"   n × creators values: each launch's ns, creator by creator;
 *   "aggregate" n values: sample k is (T_k - T_{k-1}) / creators, T_k the time the last creator finished its k-th
 *               launch (T_-1 the start): their sum ÷ n is the wall time per creation of all creators together, so
 *               creators × n ÷ (sum of the samples) is the throughput, and a creator that falls behind shows.
 * Arguments: method=fork-exec|vfork-exec|posix-spawn  mode=process|thread  creators=N (1-512)  rss-mb=N
 *            thp=on|off|default  fill=populate-write|write-loop  target=PATH (the exec target)
 *
 * Case "contend-stall": what one launch costs the parent's other threads. `siblings` threads, started in setup and
 * stopped in teardown, each write one byte to each of 16 pages of the region in turn (one unit of work) and note the
 * clock after every unit in a ring of their own. Each iteration the main thread waits 2 ms, then launches one child
 * by method (the fork window [a, b]), waits until every sibling has passed b, then spins for as long as the launch
 * took (the baseline window: the same CPU taken from the siblings, no launch). A window's figure is the longest gap
 * between two consecutive notes of any sibling that overlaps the window. A window whose notes a sibling's ring no
 * longer holds when it is read (the main thread held off the CPU for longer than the ring lasts: a busy machine) is
 * measured again, never given as 0.
 * Series "stall" (the fork windows, column windowNs: b - a) and "baseline" (the spin windows), n each, paired.
 * Arguments: method  siblings=K (1-64)  rss-mb=N (at least 1)  thp  fill  target */
#include "child.h"
#include "launch.h"
#include "probe.h"
#include "region.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const keys[] = {"method", "mode", "creators", "rss-mb", "thp", "fill", "target", NULL};
static const char *const methods[] = {"fork-exec", "vfork-exec", "posix-spawn", NULL};
static const char *const modes[] = {"process", "thread", NULL};
enum { MODE_PROCESS, MODE_THREAD };

static fl_region region;
static enum fl_method method;
static int mode;
static long creators;

/* One creator's part of the shared record (a MAP_SHARED mapping, so creator processes write it too). */
typedef struct {
    long n;
    int start_fd;
    uint64_t *ns;  /* n launch times */
    uint64_t *end; /* n times at which each launch returned */
    volatile int ok;
} creator;

static int wait_start(int fd) {
    char c;
    ssize_t r;
    do r = read(fd, &c, 1); while (r < 0 && errno == EINTR);
    return r == 0 ? 0 : -1; /* end of input: the parent closed the write end */
}

static void run_creator(creator *c) {
    if (wait_start(c->start_fd) != 0) return;
    for (long i = 0; i < c->n; i++) {
        if (fl_launch_once(method, &c->ns[i]) != 0) return;
        c->end[i] = fl_now_ns();
    }
    c->ok = 1;
}

static void *creator_thread(void *arg) {
    run_creator(arg);
    return NULL;
}

/* The parent both cases fork from: rss-mb=N (from least_mb; default default_mb) mapped with thp= and fill=, its
 * smaps read, the launch target from target=. 0, or what fl_fail returned. */
static long parent_rss_mb;
static enum fl_thp parent_thp;
static long long parent_rss_kb, parent_huge_kb;
static int map_parent(long default_mb, long least_mb) {
    parent_rss_mb = fl_arg_long("rss-mb", default_mb, least_mb, 1L << 22);
    parent_thp = (enum fl_thp)fl_arg_choice("thp", "default", fl_thp_names);
    const char *target = fl_arg_str("target", NULL);
    if (!target) return fl_fail_msg("usage", "target=PATH is required");
    const char *call = NULL;
    enum fl_fill fill = (enum fl_fill)fl_arg_choice("fill", "populate-write", fl_fill_names), filled;
    if (fl_region_map(&region, (size_t)parent_rss_mb << 20, parent_thp, fill, &filled, &call) != 0) return fl_fail(call, errno);
    if (fl_region_smaps(&region, &parent_rss_kb, &parent_huge_kb) != 0) return fl_fail("open(/proc/self/smaps)", errno);
    return fl_launch_init(target, NULL) != 0 ? -1 : 0;
}

static int setup(void) {
    method = (enum fl_method)fl_arg_choice("method", "fork-exec", methods); /* the same order as launch.h's first three */
    mode = fl_arg_choice("mode", "process", modes);
    creators = fl_arg_long("creators", 1, 1, 512);
    int rc = map_parent(0, 0);
    if (rc != 0) return rc;
    long rss_mb = parent_rss_mb;
    enum fl_thp thp = parent_thp;
    long long rss_kb = parent_rss_kb, huge_kb = parent_huge_kb;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return fl_fail("sched_getaffinity", errno);
    fl_info_begin();
    fl_info_str("method", fl_method_names[method]);
    fl_info_str("mode", modes[mode]);
    fl_info_long("creators", creators);
    fl_info_long("rssMb", rss_mb);
    fl_info_str("thp", fl_thp_names[thp]);
    fl_info_long("regionRssKb", rss_kb);
    fl_info_long("hugePagesKb", huge_kb);
    fl_info_long("vmRssKb", fl_proc_kb("/proc/self/status", "VmRSS"));
    fl_info_long("cpusAllowed", CPU_COUNT(&set));
    fl_info_long("cpusOnline", sysconf(_SC_NPROCESSORS_ONLN));
    fl_info_end();
    return 0;
}

/* Starts the creators (forked or as threads), releases them together, waits for them: 0 or -1 (emitted). */
static int run_creators(creator *cs, int start_w, uint64_t *t0, uint64_t deadline_ns) {
    pid_t *pids = calloc((size_t)creators, sizeof *pids);
    pthread_t *threads = calloc((size_t)creators, sizeof *threads);
    long started = 0;
    int rc = 0;
    if (!pids || !threads) rc = fl_fail("calloc", errno);
    for (; started < creators && rc == 0; started++) {
        if (mode == MODE_THREAD) {
            int e = pthread_create(&threads[started], NULL, creator_thread, &cs[started]);
            if (e != 0) rc = fl_fail("pthread_create", e);
            if (e != 0) break;
            continue;
        }
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) { rc = fl_fail("fork", errno); break; }
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            close(start_w);
            dup2(2, 1); /* a failed launch's error line goes to stderr, never into the protocol */
            run_creator(&cs[started]);
            _exit(cs[started].ok ? 0 : 1);
        }
        pids[started] = pid;
    }
    *t0 = fl_now_ns();
    close(start_w); /* every creator sees end of input at once: the start */
    for (long i = 0; i < started; i++) {
        if (mode == MODE_THREAD) {
            pthread_join(threads[i], NULL);
            continue;
        }
        fl_child ch = {pids[i], -1, 0, 0};
        int status = 0;
        int r = fl_child_reap(&ch, deadline_ns, &status);
        if (r < 0 && rc == 0) rc = -1;
        if (r == 1 && rc == 0) rc = fl_fail_msg("creator", "a creator process passed its deadline and was killed");
        if (r == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0) && rc == 0) {
            char why[96], msg[200];
            fl_child_status_text(status, why, sizeof why);
            snprintf(msg, sizeof msg, "a creator process %s (its error is on the probe's stderr)", why);
            rc = fl_fail_msg("creator", msg);
        }
    }
    for (long i = 0; i < started && rc == 0; i++)
        if (!cs[i].ok) rc = fl_fail_msg("creator", "a creator thread's launch failed");
    free(pids);
    free(threads);
    return rc;
}

static int batch(long n, int warmup) {
    size_t per = (size_t)n * sizeof(uint64_t);
    size_t bytes = (size_t)creators * (sizeof(creator) + 2 * per);
    char *shared = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) return fl_fail("mmap", errno);
    uint64_t *latency = malloc((size_t)creators * per), *aggregate = malloc(per);
    int fds[2], rc = 0;
    if (!latency || !aggregate) rc = fl_fail("malloc", errno);
    else if (pipe2(fds, O_CLOEXEC) != 0) rc = fl_fail("pipe2", errno);
    if (rc == 0) {
        creator *cs = (creator *)shared;
        uint64_t *data = (uint64_t *)(shared + (size_t)creators * sizeof(creator));
        for (long c = 0; c < creators; c++)
            cs[c] = (creator){n, fds[0], data + (size_t)c * 2 * (size_t)n, data + ((size_t)c * 2 + 1) * (size_t)n, 0};
        uint64_t t0 = 0;
        /* The deadline: a minute, and 100 ms more per launch of the slowest creator (far beyond any seen). */
        rc = run_creators(cs, fds[1], &t0, fl_now_ns() + 60000000000ull + (uint64_t)n * 100000000ull);
        close(fds[0]);
        if (rc == 0) {
            uint64_t prev = t0;
            for (long k = 0; k < n; k++) {
                uint64_t last = 0;
                for (long c = 0; c < creators; c++) last = cs[c].end[k] > last ? cs[c].end[k] : last;
                aggregate[k] = (last - prev + (uint64_t)creators / 2) / (uint64_t)creators;
                prev = last;
            }
            for (long c = 0; c < creators; c++) memcpy(latency + (size_t)c * (size_t)n, cs[c].ns, per);
            fl_emit_samples("aggregate", warmup, aggregate, n);
            fl_emit_samples("latency", warmup, latency, n * creators);
        }
    }
    free(latency);
    free(aggregate);
    munmap(shared, bytes);
    return rc;
}

static void teardown(void) { fl_region_unmap(&region); }

const fl_case fl_case_contend = {"contend", keys, setup, batch, teardown};
FL_CASE(fl_case_contend);

/* ---- contend-stall ---- */
#define RING 65536u
static const char *const stall_keys[] = {"method", "siblings", "rss-mb", "thp", "fill", "target", NULL};
typedef struct {
    pthread_t t;
    long index;
    uint64_t notes[RING];
    volatile uint64_t count; /* notes written so far; notes[(count - 1) % RING] is the latest */
} sibling;
static sibling *sibs;
static long n_sibs, sibs_started;
static volatile int sibs_stop;

static void *sibling_work(void *arg) {
    sibling *s = arg;
    size_t pages = region.bytes / 4096, page = (size_t)s->index * 7919u % pages;
    unsigned char v = 1;
    while (!__atomic_load_n(&sibs_stop, __ATOMIC_RELAXED)) {
        for (int i = 0; i < 16; i++, page = (page + 1) % pages) ((volatile unsigned char *)region.base)[page * 4096] = v;
        v++;
        uint64_t c = s->count;
        s->notes[c % RING] = fl_now_ns();
        __atomic_store_n(&s->count, c + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

/* The latest note of sibling s. */
static uint64_t latest(sibling *s) {
    uint64_t c = __atomic_load_n(&s->count, __ATOMIC_ACQUIRE);
    return c ? s->notes[(c - 1) % RING] : 0;
}

/* Waits until every sibling has noted a time after t (1 s at most: then the open gap counts up to now). */
static void wait_past(uint64_t t) {
    uint64_t deadline = fl_now_ns() + 1000000000ull;
    for (long i = 0; i < n_sibs; i++)
        while (latest(&sibs[i]) <= t && fl_now_ns() < deadline) sched_yield();
}

/* Where the ring no longer reaches back to a window: the main thread was held off for longer than it holds. */
#define GAP_LOST UINT64_MAX

/* The longest gap between consecutive notes of any sibling that overlaps [a, b]; GAP_LOST where a sibling's notes
 * since the window filled its ring (the main thread held off the CPU meanwhile), so its gaps there are gone. */
static uint64_t longest_gap(uint64_t a, uint64_t b) {
    uint64_t worst = 0, now = fl_now_ns();
    for (long i = 0; i < n_sibs; i++) {
        sibling *s = &sibs[i];
        uint64_t c = __atomic_load_n(&s->count, __ATOMIC_ACQUIRE), next = now, k;
        if (c == 0) { /* no progress noted at all yet: the whole window, up to now, is its gap */
            if (now - a > worst) worst = now - a;
            continue;
        }
        if (latest(s) > b) next = s->notes[(c - 1) % RING]; /* a closed gap ends at the first note after b */
        for (k = c; k > 0 && c - k < RING - 1024; k--) {
            uint64_t t = s->notes[(k - 1) % RING];
            if (t > b) { next = t; continue; }
            if (next > a && next - t > worst) worst = next - t;
            if (t < a) break;
            next = t;
        }
        if (k > 0 && c - k >= RING - 1024) return GAP_LOST; /* stopped by the ring, not by a note before a */
    }
    return worst;
}

static int stall_setup(void) {
    method = (enum fl_method)fl_arg_choice("method", "fork-exec", methods);
    n_sibs = fl_arg_long("siblings", 2, 1, 64);
    int rc = map_parent(64, 1);
    if (rc != 0) return rc;
    long rss_mb = parent_rss_mb;
    enum fl_thp thp = parent_thp;
    long long rss_kb = parent_rss_kb, huge_kb = parent_huge_kb;
    sibs = calloc((size_t)n_sibs, sizeof *sibs);
    if (!sibs) return fl_fail("calloc", errno);
    for (; sibs_started < n_sibs; sibs_started++) {
        sibs[sibs_started].index = sibs_started;
        int e = pthread_create(&sibs[sibs_started].t, NULL, sibling_work, &sibs[sibs_started]);
        if (e != 0) return fl_fail("pthread_create", e);
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return fl_fail("sched_getaffinity", errno);
    fl_info_begin();
    fl_info_str("method", fl_method_names[method]);
    fl_info_long("siblings", n_sibs);
    fl_info_long("rssMb", rss_mb);
    fl_info_str("thp", fl_thp_names[thp]);
    fl_info_long("regionRssKb", rss_kb);
    fl_info_long("hugePagesKb", huge_kb);
    fl_info_long("cpusAllowed", CPU_COUNT(&set));
    fl_info_end();
    return 0;
}

static int stall_batch(long n, int warmup) {
    uint64_t *stall = malloc((size_t)n * sizeof *stall), *base = malloc((size_t)n * sizeof *base), *win = malloc((size_t)n * sizeof *win);
    int rc = 0;
    if (!stall || !base || !win) rc = fl_fail("malloc", errno);
    long lost = 0;
    for (long i = 0; i < n && rc == 0; i++) {
        struct timespec pause = {0, 2000000};
        nanosleep(&pause, NULL);
        uint64_t ns, a = fl_now_ns();
        if ((rc = fl_launch_once(method, &ns)) != 0) break;
        uint64_t b = fl_now_ns();
        wait_past(b);
        stall[i] = longest_gap(a, b);
        win[i] = b - a;
        uint64_t a2 = fl_now_ns(), b2;
        while ((b2 = fl_now_ns()) - a2 < win[i]) {} /* the CPU the launch took, without a launch */
        wait_past(b2);
        base[i] = longest_gap(a2, b2);
        if (stall[i] == GAP_LOST || base[i] == GAP_LOST) { /* a window the ring no longer holds: measured again */
            if (++lost > 3 * n + 10) rc = fl_fail_msg("contend-stall", "the probe was held off the CPU for longer than its siblings' rings hold, window after window: the machine is too busy to time a stall");
            i--;
        }
    }
    if (rc == 0) {
        fl_emit_samples_x("stall", warmup, stall, n, "windowNs", win, NULL);
        fl_emit_samples("baseline", warmup, base, n);
    }
    free(stall);
    free(base);
    free(win);
    return rc;
}

static void stall_teardown(void) {
    __atomic_store_n(&sibs_stop, 1, __ATOMIC_RELAXED);
    for (long i = 0; i < sibs_started; i++) pthread_join(sibs[i].t, NULL);
    free(sibs);
    fl_region_unmap(&region);
}

const fl_case fl_case_contend_stall = {"contend-stall", stall_keys, stall_setup, stall_batch, stall_teardown};
FL_CASE(fl_case_contend_stall);
