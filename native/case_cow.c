/* Case "cow" (article 001): what copy-on-write costs a forked child, per page.
 * Setup maps size-mb of anonymous memory (THP on, off or left to the system) and touches every page.
 * Each iteration:
 *   parent: an untimed write pass (takes every page back as private and writable after the previous
 *           child), then a timed write pass: "no-fork-write", the baseline of a write that needs no fault, and
 *           a timed read of one byte of every page: "no-fork-read", an ordinary read in a process whose pages
 *           are its own, the baseline of the child's read;
 *   fork;
 *   child:  a timed read of one byte of every page ("read"), its AnonHugePages, the first write to every
 *           page ("first-write": the CoW fault and copy), its AnonHugePages again, a second write to every
 *           page ("second-write"); sends the results through a pipe and _exits;
 *   parent: reads them (poll with a timeout; a child that hangs is killed) and reaps the child.
 * Each batch emits ONE samples line, series "fork": "ns" is each iteration's fork-to-reap time; the columns
 * carry the passes, each timed as a whole: readNs, firstWriteNs, secondWriteNs, noForkWriteNs, noForkReadNs
 * (total ns of the pass; divide by the "pages" info field for ns per page), their minor faults (getrusage ru_minflt
 * deltas: *Minflt), the child's AnonHugePages of the region before/after the first write (hugeBeforeKb,
 * hugeAfterKb) and the parent's at the baseline (parentHugeKb).
 * Arguments: size-mb=N  thp=on|off|default  fill=populate-write|write-loop (region.h; info regionFill) */
#include "probe.h"
#include "child.h"
#include "region.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096ul

static const char *const keys[] = {"size-mb", "thp", "fill", NULL};
static fl_region region;
static size_t pages;

/* What the child sends back: one struct, written whole. call[0] != 0 means the child failed. */
struct child_result {
    uint64_t read_ns, first_ns, second_ns;
    uint64_t read_flt, first_flt, second_flt;
    uint64_t huge_before_kb, huge_after_kb;
    int err;
    char call[48];
};

static volatile unsigned char sink;

static uint64_t read_pass(void) {
    const volatile unsigned char *p = (const volatile unsigned char *)region.base;
    unsigned char acc = 0;
    uint64_t t0 = fl_now_ns();
    for (size_t off = 0; off < region.bytes; off += PAGE) acc ^= p[off];
    uint64_t t1 = fl_now_ns();
    sink = acc;
    return t1 - t0;
}

static uint64_t write_pass(void) {
    static unsigned char v;
    volatile unsigned char *p = (volatile unsigned char *)region.base;
    unsigned char x = ++v;
    uint64_t t0 = fl_now_ns();
    for (size_t off = 0; off < region.bytes; off += PAGE) p[off] = x;
    return fl_now_ns() - t0;
}

static int minflt(uint64_t *out) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
    *out = (uint64_t)ru.ru_minflt;
    return 0;
}

static int huge_kb(uint64_t *out) {
    long long rss_kb, hkb;
    if (fl_region_smaps(&region, &rss_kb, &hkb) != 0) return -1;
    *out = hkb < 0 ? 0 : (uint64_t)hkb;
    return 0;
}

/* A timed pass with its minor-fault delta. */
static int measured(uint64_t (*pass)(void), uint64_t *ns, uint64_t *flt) {
    uint64_t f0, f1;
    if (minflt(&f0) != 0) return -1;
    *ns = pass();
    if (minflt(&f1) != 0) return -1;
    *flt = f1 - f0;
    return 0;
}

static void child_fail(struct child_result *r, const char *call) {
    r->err = errno;
    strncpy(r->call, call, sizeof r->call - 1);
}

static void child_main(int fd, void *unused) {
    struct child_result r;
    memset(&r, 0, sizeof r);
    if (measured(read_pass, &r.read_ns, &r.read_flt) != 0) child_fail(&r, "getrusage");
    else if (huge_kb(&r.huge_before_kb) != 0) child_fail(&r, "open(/proc/self/smaps)");
    else if (measured(write_pass, &r.first_ns, &r.first_flt) != 0) child_fail(&r, "getrusage");
    else if (huge_kb(&r.huge_after_kb) != 0) child_fail(&r, "open(/proc/self/smaps)");
    else if (measured(write_pass, &r.second_ns, &r.second_flt) != 0) child_fail(&r, "getrusage");
    const char *p = (const char *)&r;
    size_t left = sizeof r;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) _exit(3);
        p += w;
        left -= (size_t)w;
    }
    _exit(0);
}

/* One fork: the child's three passes into *r. 0, or -1 with an error line emitted; the child is reaped. */
static int one_fork(struct child_result *r) {
    fl_child c;
    if (fl_child_start(&c, FL_FROM_CHILD, child_main, NULL) != 0) return -1;
    /* 30 s plus 50 µs a page: far beyond any CoW pass, short enough not to hang the run. */
    uint64_t timeout_ns = (30000ull + (uint64_t)(pages / 20)) * 1000000ull;
    int got = fl_child_read(&c, r, sizeof *r, fl_now_ns() + timeout_ns);
    fl_child_close(&c);
    if (got < 0) {
        fl_child_kill(&c);
        return got == FL_CHILD_LATE ? fl_fail_msg("poll", "the child sent no result in time; killed it") : -1;
    }
    int status;
    if (fl_child_reap(&c, 0, &status) != 0) return -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || got == 0) {
        char how[64], msg[128];
        fl_child_status_text(status, how, sizeof how);
        snprintf(msg, sizeof msg, "the measuring child %s%s", how, WIFSIGNALED(status) ? "" : " before sending its result");
        return fl_fail_msg("waitpid", msg);
    }
    if (r->call[0]) {
        r->call[sizeof r->call - 1] = '\0';
        return fl_fail(r->call, r->err);
    }
    return 0;
}

static int setup(void) {
    long size_mb = fl_arg_long("size-mb", 80, 1, 1L << 22);
    enum fl_thp thp = (enum fl_thp)fl_arg_choice("thp", "default", fl_thp_names);
    const char *call = NULL;
    enum fl_fill fill = (enum fl_fill)fl_arg_choice("fill", "populate-write", fl_fill_names), filled;
    if (fl_region_map(&region, (size_t)size_mb << 20, thp, fill, &filled, &call) != 0) return fl_fail(call, errno);
    pages = region.bytes / PAGE;
    long long rss_kb, hkb;
    if (fl_region_smaps(&region, &rss_kb, &hkb) != 0) return fl_fail("open(/proc/self/smaps)", errno);
    fl_info_begin();
    fl_info_long("sizeMb", size_mb);
    fl_info_str("regionFill", fl_fill_names[filled]);
    fl_info_str("thp", fl_thp_names[thp]);
    fl_info_long("pages", (long long)pages);
    fl_info_long("pageBytes", (long long)PAGE);
    fl_info_long("regionRssKb", rss_kb);
    fl_info_long("hugePagesKb", hkb);
    fl_info_end();
    return 0;
}

static int batch(long n, int warmup) {
    enum { FORK_NS, RD_NS, RD_FLT, W1_NS, W1_FLT, W1_HB, W1_HA, W2_NS, W2_FLT, BASE_NS, BASE_FLT, BASE_RD_NS, BASE_RD_FLT, BASE_HUGE, NCOL };
    uint64_t *mem = calloc((size_t)n * NCOL, sizeof *mem);
    if (!mem) return fl_fail("calloc", errno);
    uint64_t *col[NCOL];
    for (int c = 0; c < NCOL; c++) col[c] = mem + (size_t)c * (size_t)n;
    int rc = -1;
    for (long i = 0; i < n; i++) {
        /* untimed, written from here as the article's loop does (the kernel's populate-write made the next timed
         * write pass slower and less steady): pages private and writable again after the previous child */
        write_pass();
        if (measured(write_pass, &col[BASE_NS][i], &col[BASE_FLT][i]) != 0) { fl_fail("getrusage", errno); goto out; }
        if (measured(read_pass, &col[BASE_RD_NS][i], &col[BASE_RD_FLT][i]) != 0) { fl_fail("getrusage", errno); goto out; }
        if (huge_kb(&col[BASE_HUGE][i]) != 0) { fl_fail("open(/proc/self/smaps)", errno); goto out; }
        struct child_result r;
        uint64_t t0 = fl_now_ns();
        if (one_fork(&r) != 0) goto out;
        col[FORK_NS][i] = fl_now_ns() - t0;
        col[RD_NS][i] = r.read_ns;
        col[RD_FLT][i] = r.read_flt;
        col[W1_NS][i] = r.first_ns;
        col[W1_FLT][i] = r.first_flt;
        col[W1_HB][i] = r.huge_before_kb;
        col[W1_HA][i] = r.huge_after_kb;
        col[W2_NS][i] = r.second_ns;
        col[W2_FLT][i] = r.second_flt;
    }
    /* One line per batch (the runner asks for the next batch after each samples line). */
    fl_emit_samples_x("fork", warmup, col[FORK_NS], n,
                      "readNs", col[RD_NS], "readMinflt", col[RD_FLT],
                      "firstWriteNs", col[W1_NS], "firstWriteMinflt", col[W1_FLT],
                      "hugeBeforeKb", col[W1_HB], "hugeAfterKb", col[W1_HA],
                      "secondWriteNs", col[W2_NS], "secondWriteMinflt", col[W2_FLT],
                      "noForkWriteNs", col[BASE_NS], "noForkWriteMinflt", col[BASE_FLT], "parentHugeKb", col[BASE_HUGE],
                      "noForkReadNs", col[BASE_RD_NS], "noForkReadMinflt", col[BASE_RD_FLT],
                      NULL);
    rc = 0;
out:
    free(mem);
    return rc;
}

static void teardown(void) { fl_region_unmap(&region); }

const fl_case fl_case_cow = {"cow", keys, setup, batch, teardown};
FL_CASE(fl_case_cow);
