/* Case "vma" (article 003): what the number of mappings (vm_area_struct objects) costs fork, clone(CLONE_VM)
 * and posix_spawn, and how much kernel memory (Slab) a forked child's copy of them takes.
 * Setup maps `vmas` pages in one mapping and makes every second page read-only, so that the kernel keeps one
 * VMA per page (neighbours differ in protection and cannot merge); the pages are never written, as in the
 * article, so fork copies the VMAs but no page tables. The count is verified in /proc/self/maps and reported.
 * Then Slab and SUnreclaim (/proc/meminfo) are read before and after building, with a forked child paused on a
 * pipe, and after that child is released and reaped; then with a forked child that has exec'd (the probe itself
 * in --hold, probe.c: its copy of the VMAs went with its old image) and still lives ("AfterExec"; left out, with
 * info afterExecSkipped saying why, where the probe cannot exec itself).
 * batch(n): n launches by method, each timed until waitpid returned (launch.h), series named after the method;
 * with several methods, n rounds of every method in a shuffled order (fl_rounds_batch), the mappings built once.
 * Arguments: vmas=N  method=M or methods=M,M... (fork-exit|clone-vfork|posix-spawn|fork-exec|vfork-exec)
 *            block=N  order-seed=N  target=PATH */
#include "launch.h"
#include "probe.h"
#include "child.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const keys[] = {"vmas", "method", "methods", "block", "order-seed", "target", NULL};
static fl_rounds rounds;
static char *region;
static size_t region_bytes;
static fl_child child = {-1, -1, 0, 0};

typedef struct {
    long long slab_kb, sunreclaim_kb;
} slab_reading;

static slab_reading read_slab(void) {
    slab_reading r = {fl_proc_kb("/proc/meminfo", "Slab"), fl_proc_kb("/proc/meminfo", "SUnreclaim")};
    return r;
}

static void put_slab(const char *phase, slab_reading r) {
    char key[64];
    snprintf(key, sizeof key, "slab%sKb", phase);
    fl_info_long(key, r.slab_kb);
    snprintf(key, sizeof key, "sUnreclaim%sKb", phase);
    fl_info_long(key, r.sunreclaim_kb);
}

static int build(long vmas, long page) {
    if (vmas == 0) return 0;
    region_bytes = (size_t)vmas * (size_t)page;
    void *m = mmap(NULL, region_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return fl_fail("mmap", errno);
    region = m;
    for (long i = 1; i < vmas; i += 2)
        if (mprotect(region + i * page, (size_t)page, PROT_READ) != 0) return fl_fail("mprotect", errno);
    return 0;
}

/* The paused child: waits until the parent closes the pipe (end of input: released), then exits. */
static void paused_main(int fd, void *unused) {
    char c;
    ssize_t r;
    do r = read(fd, &c, 1); while (r < 0 && errno == EINTR);
    _exit(0);
}

/* Forks a child that waits on a pipe, reads Slab while it lives, releases and reaps it. 0 or -1. */
static int paused_child(slab_reading *with_child) {
    if (fl_child_start(&child, FL_TO_CHILD, paused_main, NULL) != 0) return -1;
    *with_child = read_slab();
    fl_child_close(&child);
    int status;
    if (fl_child_reap(&child, 0, &status) != 0) return -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return fl_fail_msg("waitpid", "the paused child did not exit 0");
    return 0;
}

/* The exec'd child: the socket to the parent as its stdin and stdout, it becomes the probe in --hold. */
static char self_path[4096];
static void exec_main(int fd, void *unused) {
    if (dup2(fd, 0) < 0 || dup2(fd, 1) < 0) _exit(126);
    char *argv[] = {self_path, "--hold", NULL};
    char *envp[] = {NULL};
    execve(self_path, argv, envp);
    _exit(127);
}

/* Forks a child that execs the probe in --hold and, once the exec is done (it says so) and freed slab objects
 * have returned, reads Slab while it lives; then releases and reaps it. 1 = read, 0 = the probe cannot exec
 * itself here (*why says so), -1 = error (emitted). */
static int exec_child(slab_reading *after_exec, const char **why) {
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    if (n <= 0) {
        *why = "readlink(/proc/self/exe) failed";
        return 0;
    }
    self_path[n] = '\0';
    if (fl_child_start(&child, FL_SOCKET, exec_main, NULL) != 0) return -1;
    char c;
    int got = fl_child_read(&child, &c, 1, fl_now_ns() + 10000000000ull); /* 10 s */
    if (got < 0 && got != FL_CHILD_LATE) {
        fl_child_kill(&child);
        return -1;
    }
    if (got != 1) {
        fl_child_kill(&child);
        *why = got == 0 ? "the child could not exec the probe" : "the exec'd child did not start within 10 s";
        return 0;
    }
    struct timespec ts = {0, 50 * 1000 * 1000}; /* freed slab objects return after an RCU grace period */
    nanosleep(&ts, NULL);
    *after_exec = read_slab();
    fl_child_close(&child);
    int status;
    int r = fl_child_reap(&child, fl_now_ns() + 10000000000ull, &status);
    if (r < 0) return -1;
    if (r == 1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return fl_fail_msg("waitpid", "the exec'd child did not exit 0 when released");
    return 1;
}

static int setup(void) {
    if (fl_rounds_parse(&rounds, "fork-exit") != 0) return -1;
    long vmas = fl_arg_long("vmas", 0, 0, 1L << 26);
    const char *target = fl_arg_str("target", NULL);
    if (fl_rounds_exec(&rounds) && !target) return fl_fail_msg("usage", "target=PATH is required for exec methods");
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) return fl_fail("sysconf(_SC_PAGESIZE)", errno);
    if (fl_launch_init(target, NULL) != 0) return -1;

    slab_reading before = read_slab();
    if (build(vmas, page) != 0) return -1;
    long total = 0, inside = 0;
    if (fl_count_maps(region, region_bytes, &total, &inside) != 0) return fl_fail("open(/proc/self/maps)", errno);
    slab_reading built = read_slab();
    slab_reading with_child = {0, 0};
    if (paused_child(&with_child) != 0) return -1;
    struct timespec ts = {0, 50 * 1000 * 1000}; /* freed slab objects return after an RCU grace period */
    nanosleep(&ts, NULL);
    slab_reading after = read_slab();
    slab_reading after_exec = {0, 0};
    const char *skipped = NULL;
    int execd = exec_child(&after_exec, &skipped);
    if (execd < 0) return -1;

    fl_info_begin();
    if (rounds.n == 1) fl_info_str("method", fl_method_names[rounds.methods[0]]);
    fl_info_long("methods", rounds.n);
    fl_info_long("vmas", vmas);
    fl_info_long("vmasInRegion", inside);
    fl_info_long("mapCount", total);
    fl_info_long("probePid", getpid());
    put_slab("Before", before);
    put_slab("Built", built);
    put_slab("Child", with_child);
    put_slab("After", after);
    if (execd == 1) put_slab("AfterExec", after_exec);
    else fl_info_str("afterExecSkipped", skipped);
    fl_info_end();
    return 0;
}

static int batch(long n, int warmup) { return fl_rounds_batch(&rounds, n, warmup); }

static void teardown(void) {
    fl_child_kill(&child);
    if (region) munmap(region, region_bytes);
    region = NULL;
}

const fl_case fl_case_vma = {"vma", keys, setup, batch, teardown};
FL_CASE(fl_case_vma);
