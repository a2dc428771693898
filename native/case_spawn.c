/* Case "spawn" (article 000): the parent holds rss-mb of touched anonymous memory with THP on, off or left to the
 * system; each iteration starts one child by method and waits for it.
 * Arguments: methods=M[,M...] (fork-exec|vfork-exec|posix-spawn|clone-vfork|fork-exit; or method=M for one)
 *            rss-mb=N  thp=on|off|default  fill=populate-write|write-loop (how the region's pages are backed,
 *            region.h; default populate-write, reported as info regionFill)
 *            block=N (calls of each method per round, default 1)  order-seed=N (the rounds' shuffle, default 1)
 *            target=PATH (the exec target), or user-target=PATH: the user's program, with the arguments that
 *            follow "--", the probe's environment and /dev/null as its standard streams (launch.h)
 * With several methods the region is filled once and the methods are interleaved round by round: in every round
 * each method runs `block` calls, the methods in a fresh shuffled order, so that slow drift hits them alike and
 * their ratios are paired within a round. One samples line per method per batch; a batch of n is n rounds, and
 * samples [r * block, (r + 1) * block) of every method belong to round r. */
#include "launch.h"
#include "probe.h"
#include "region.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static const char *const keys[] = {"method", "methods", "rss-mb", "thp", "block", "order-seed", "target", "user-target", "fill", NULL};
static fl_region region;
static fl_rounds rounds;

/* Article 000's trap: madvise() needs a page-aligned address, and malloc() of 1 MB returns a pointer a few
 * bytes past a page start (glibc's chunk header), so madvise() on it fails with EINVAL. Recorded, not fatal. */
static void madvise_trap(long long *offset, int *einval) {
    size_t bytes = 1u << 20;
    char *buf = malloc(bytes);
    *offset = buf ? (long long)((uintptr_t)buf & 4095u) : -1;
    *einval = buf && madvise(buf, bytes, MADV_NOHUGEPAGE) != 0 && errno == EINVAL;
    free(buf);
}

static int setup(void) {
    if (fl_rounds_parse(&rounds, "fork-exec") != 0) return -1;
    long rss_mb = fl_arg_long("rss-mb", 0, 0, 1L << 22);
    enum fl_thp thp = (enum fl_thp)fl_arg_choice("thp", "default", fl_thp_names);
    const char *target = fl_arg_str("target", NULL);
    const char *user_target = fl_arg_str("user-target", NULL);
    if (fl_rounds_exec(&rounds) && !target && !user_target) return fl_fail_msg("usage", "target=PATH or user-target=PATH is required for exec methods");

    const char *call = NULL;
    enum fl_fill fill = (enum fl_fill)fl_arg_choice("fill", "populate-write", fl_fill_names), filled;
    if (fl_region_map(&region, (size_t)rss_mb << 20, thp, fill, &filled, &call) != 0) return fl_fail(call, errno);
    long long rss_kb, huge_kb;
    if (fl_region_smaps(&region, &rss_kb, &huge_kb) != 0) return fl_fail("open(/proc/self/smaps)", errno);
    if ((user_target ? fl_launch_init_user(user_target) : fl_launch_init(target, NULL)) != 0) return -1;
    long long malloc_offset;
    int malloc_einval;
    madvise_trap(&malloc_offset, &malloc_einval);

    fl_info_begin();
    if (rounds.n == 1) fl_info_str("method", fl_method_names[rounds.methods[0]]);
    fl_info_long("methods", rounds.n);
    fl_info_long("blockCalls", rounds.block);
    fl_info_long("rssMb", rss_mb);
    fl_info_str("thp", fl_thp_names[thp]);
    if (rss_mb > 0) fl_info_str("regionFill", fl_fill_names[filled]);
    fl_info_long("regionRssKb", rss_kb);
    fl_info_long("hugePagesKb", huge_kb);
    fl_info_long("vmRssKb", fl_proc_kb("/proc/self/status", "VmRSS"));
    fl_info_long("vmPteKb", fl_proc_kb("/proc/self/status", "VmPTE"));
    fl_info_long("mallocPageOffset", malloc_offset);
    fl_info_bool("madviseMallocEinval", malloc_einval);
    fl_info_bool("madviseMmapOk", thp != FL_THP_DEFAULT && rss_mb > 0); /* fl_region_map's madvise succeeded */
    fl_info_end();
    return 0;
}

static int batch(long n, int warmup) { return fl_rounds_batch(&rounds, n, warmup); }

static void teardown(void) { fl_region_unmap(&region); }

const fl_case fl_case_spawn = {"spawn", keys, setup, batch, teardown};
FL_CASE(fl_case_spawn);
