/* Case "pagetables" (article 003): what a sparse address space costs in page tables, and how fork doubles it.
 * The parent maps `pages` one-page read-write mappings, one every `spacing-kb`, inside a range it first reserves
 * with PROT_NONE (no fixed magic addresses), or (layout=dense) one mapping of the same number of pages, and writes
 * every page. Setup then walks the phases and reports, for each, the parent's VmPTE, the child's VmPTE (while a
 * child lives) and the system's PageTables (/proc/meminfo), as info fields "PHASE.parentVmPteKb",
 * "PHASE.childVmPteKb", "PHASE.pageTablesKb":
 *   before                   nothing mapped yet
 *   after-build              the pages mapped and written
 *   after-fork               fork(): the child lives and waits on a socket
 *   after-fork-parent-write  the parent wrote every page again (copy-on-write while the child lives)
 *   after-child-exec         the child exec'd this probe binary (/proc/self/exe) as "pagetables role=hold", which
 *                            only waits for end of input on stdin; its "ready" line on the socket says the exec is done
 *   after-reap               end of input sent, the child exited and was reaped
 * batch(n): n timed fork+_exit+waitpid with the memory in place, series "fork-exit-LAYOUT".
 * Arguments: layout=sparse|dense pages=N spacing-kb=K role=measure|hold */
#include "launch.h"
#include "probe.h"
#include "child.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const keys[] = {"layout", "pages", "spacing-kb", "role", NULL};
static const char *const layouts[] = {"sparse", "dense", NULL};
static const char *const roles[] = {"measure", "hold", NULL};
static const char *series_names[] = {"fork-exit-sparse", "fork-exit-dense"};

#define READY_TIMEOUT_MS 20000

static int layout;
static long pages, spacing, page_size;
static char *range;       /* the reservation (sparse) or the mapping (dense) */
static size_t range_bytes;
static fl_child child = {-1, -1, 0, 0}; /* child.fd: the parent's end of the socket to the child */

/* The kernel frees page tables after an RCU grace period, so PageTables lags an exit or exec by tens of ms:
 * reads it every 10 ms until three reads in a row agree within 512 kB (other processes move it too), at
 * most 3 s. Returns the value; *waited_ms says how long it took. */
static long long settled_page_tables(long *waited_ms) {
    long long last = fl_proc_kb("/proc/meminfo", "PageTables");
    int stable = 0;
    long ms = 0;
    while (stable < 3 && ms < 3000) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
        ms += 10;
        long long now = fl_proc_kb("/proc/meminfo", "PageTables");
        stable = llabs(now - last) <= 512 ? stable + 1 : 0;
        last = now;
    }
    *waited_ms = ms;
    return last;
}

static void put_phase(const char *phase) {
    char key[96];
    long waited_ms;
    long long page_tables_kb = settled_page_tables(&waited_ms);
    fl_info_begin();
    snprintf(key, sizeof key, "%s.parentVmPteKb", phase);
    fl_info_long(key, fl_proc_kb("/proc/self/status", "VmPTE"));
    if (child.pid > 0) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/status", (int)child.pid);
        snprintf(key, sizeof key, "%s.childVmPteKb", phase);
        fl_info_long(key, fl_proc_kb(path, "VmPTE"));
    }
    snprintf(key, sizeof key, "%s.pageTablesKb", phase);
    fl_info_long(key, page_tables_kb);
    snprintf(key, sizeof key, "%s.settleMs", phase);
    fl_info_long(key, waited_ms);
    fl_info_end();
}

/* Writes one byte in every mapped page; the value changes each call so the writes are never elided. */
static void write_pages(void) {
    static unsigned char v;
    v++;
    long step = layout == 0 ? spacing : page_size;
    for (long i = 0; i < pages; i++) ((volatile unsigned char *)range)[i * step] = v;
}

static int build(void) {
    if (layout == 1) {
        range_bytes = (size_t)pages * (size_t)page_size;
        void *m = mmap(NULL, range_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return fl_fail("mmap(dense)", errno);
        range = m;
        /* 4 KiB pages whatever the THP setting: the same number of page-table entries as the sparse layout. */
        if (madvise(range, range_bytes, MADV_NOHUGEPAGE) != 0) return fl_fail("madvise(MADV_NOHUGEPAGE)", errno);
    } else {
        range_bytes = (size_t)pages * (size_t)spacing;
        void *m = mmap(NULL, range_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED) return fl_fail("mmap(PROT_NONE reservation)", errno);
        range = m;
        for (long i = 0; i < pages; i++) {
            void *p = mmap(range + i * spacing, (size_t)page_size, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
            if (p == MAP_FAILED) return fl_fail("mmap(MAP_FIXED page)", errno);
        }
    }
    write_pages();
    return 0;
}

/* The child between fork and exec: waits for one byte ('x': exec the holder) or end of input (_exit). */
static void child_main(int s, void *exe) {
    char c;
    ssize_t r;
    do r = read(s, &c, 1); while (r < 0 && errno == EINTR);
    if (r != 1 || c != 'x') _exit(0);
    if (dup2(s, 0) < 0 || dup2(s, 1) < 0) _exit(126);
    char *const argv[] = {(char *)exe, "pagetables", "role=hold", NULL};
    char *const envp[] = {NULL};
    execve((const char *)exe, argv, envp);
    _exit(127);
}

/* Reads the exec'd holder's protocol lines until its "ready" line (or end of input: the exec failed). */
static int await_ready(void) {
    char buf[4096];
    size_t have = 0;
    uint64_t deadline = fl_now_ns() + (uint64_t)READY_TIMEOUT_MS * 1000000ull;
    for (;;) {
        long n = fl_child_read_some(&child, buf + have, sizeof buf - 1 - have, deadline);
        if (n == FL_CHILD_LATE) return fl_fail_msg("poll", "the exec'd child did not report ready within 20 s");
        if (n < 0) return -1;
        if (n == 0) {
            int status = 0;
            if (fl_child_reap(&child, 0, &status) != 0) return -1;
            char msg[128];
            snprintf(msg, sizeof msg, "the child ended before its exec'd holder was ready (exit status %d, signal %d)",
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
            return fl_fail_msg("execve(/proc/self/exe)", msg);
        }
        have += (size_t)n;
        buf[have] = '\0';
        if (strstr(buf, "{\"type\":\"ready\"}")) return 0;
        if (have >= sizeof buf - 1) return fl_fail_msg("read(child socket)", "no ready line from the exec'd child");
    }
}

/* End of input to the holder, which exits; reaps it. */
static int reap_child(void) {
    if (shutdown(child.fd, SHUT_WR) != 0) return fl_fail("shutdown(child socket)", errno);
    int status;
    if (fl_child_reap(&child, 0, &status) != 0) return -1;
    fl_child_close(&child);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char msg[96];
        snprintf(msg, sizeof msg, "the holder child ended with status %d, signal %d",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        return fl_fail_msg("waitpid", msg);
    }
    return 0;
}

static int phases(pid_t *forked) {
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len < 0) return fl_fail("readlink(/proc/self/exe)", errno);
    exe[len] = '\0';

    put_phase("before");
    if (build() != 0) return -1;
    put_phase("after-build");

    if (fl_child_start(&child, FL_SOCKET, child_main, exe) != 0) return -1;
    *forked = child.pid;
    put_phase("after-fork");

    write_pages();
    put_phase("after-fork-parent-write");

    if (send(child.fd, "x", 1, MSG_NOSIGNAL) != 1) return fl_fail("send(child socket)", errno);
    if (await_ready() != 0) return -1;
    put_phase("after-child-exec");

    if (reap_child() != 0) return -1;
    put_phase("after-reap");
    return 0;
}

static int setup(void) {
    if (fl_arg_choice("role", "measure", roles) == 1) return 0; /* the holder: main waits for end of input */
    layout = fl_arg_choice("layout", "sparse", layouts);
    pages = fl_arg_long("pages", 8000, 1, 1L << 24);
    long spacing_kb = fl_arg_long("spacing-kb", 2048, 1, 1L << 30);
    page_size = sysconf(_SC_PAGESIZE);
    if (page_size <= 0) return fl_fail("sysconf(_SC_PAGESIZE)", errno);
    spacing = spacing_kb * 1024;
    if (layout == 0 && (spacing % page_size != 0 || spacing < 2 * page_size))
        return fl_fail_msg("usage", "spacing-kb must be a multiple of the page size and at least two pages");
    if (layout == 0 && (unsigned long long)pages * (unsigned long long)spacing > (1ull << 46))
        return fl_fail_msg("usage", "pages x spacing-kb exceeds 64 TiB of address space");
    if (fl_launch_init(NULL, NULL) != 0) return -1;
    pid_t forked = 0;
    if (phases(&forked) != 0) return -1;

    long total = 0, inside = 0;
    if (fl_count_maps(range, range_bytes, &total, &inside) != 0) return fl_fail("open(/proc/self/maps)", errno);
    fl_info_begin();
    fl_info_str("layout", layouts[layout]);
    fl_info_long("pages", pages);
    fl_info_long("spacingKb", layout == 0 ? spacing_kb : page_size / 1024);
    fl_info_long("pageSizeKb", page_size / 1024);
    fl_info_long("rangeKb", (long long)(range_bytes / 1024));
    fl_info_long("mappingsInRange", inside);
    fl_info_long("mapCount", total);
    fl_info_long("probePid", getpid());
    fl_info_long("childPid", forked);
    fl_info_end();
    return 0;
}

static int batch(long n, int warmup) {
    uint64_t *ns = malloc((size_t)n * sizeof *ns);
    if (!ns) return fl_fail("malloc", errno);
    for (long i = 0; i < n; i++) {
        if (fl_launch_once(FL_FORK_EXIT, &ns[i]) != 0) {
            free(ns);
            return -1;
        }
    }
    fl_emit_samples(series_names[layout], warmup, ns, n);
    free(ns);
    return 0;
}

static void teardown(void) {
    fl_child_kill(&child);
    if (range) munmap(range, range_bytes);
    range = NULL;
}

const fl_case fl_case_pagetables = {"pagetables", keys, setup, batch, teardown};
FL_CASE(fl_case_pagetables);
