#include "region.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE 4096ul
#define HUGE (2ul << 20)

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older headers lack it */
#endif

const char *const fl_thp_names[] = {"default", "on", "off", NULL};
const char *const fl_fill_names[] = {"write-loop", "populate-write", NULL};

/* Whether every page of the region is in memory (mincore); 0 when that cannot be told. */
static int all_resident(const fl_region *r) {
    size_t n = r->bytes / PAGE;
    unsigned char *v = malloc(n);
    if (!v) return 0;
    int ok = mincore(r->base, r->bytes, v) == 0;
    for (size_t i = 0; ok && i < n; i++) ok = v[i] & 1;
    free(v);
    return ok;
}

int fl_region_map(fl_region *r, size_t bytes, enum fl_thp thp, enum fl_fill fill, enum fl_fill *filled, const char **failed_call) {
    memset(r, 0, sizeof *r);
    if (filled) *filled = fill;
    if (bytes == 0) return 0;
    size_t extra = thp == FL_THP_ON ? HUGE : 0;
    void *m = mmap(NULL, bytes + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) { *failed_call = "mmap"; return -1; }
    r->map = m;
    r->map_bytes = bytes + extra;
    uintptr_t b = (uintptr_t)m;
    if (extra) b = (b + HUGE - 1) & ~(HUGE - 1);
    r->base = (char *)b;
    r->bytes = bytes;
    int advice = thp == FL_THP_ON ? MADV_HUGEPAGE : thp == FL_THP_OFF ? MADV_NOHUGEPAGE : -1;
    if (advice >= 0 && madvise(r->base, r->bytes, advice) != 0) {
        int e = errno;
        fl_region_unmap(r);
        errno = e;
        *failed_call = thp == FL_THP_ON ? "madvise(MADV_HUGEPAGE)" : "madvise(MADV_NOHUGEPAGE)";
        return -1;
    }
    /* Older kernels (EINVAL) and some sandboxes refuse the advice, and qemu-user accepts it without doing it: then
     * the loop does the same work. */
    if (fill == FL_FILL_POPULATE && madvise(r->base, r->bytes, MADV_POPULATE_WRITE) == 0 && all_resident(r)) return 0;
    if (filled) *filled = FL_FILL_WRITE;
    fl_region_touch(r);
    return 0;
}

void fl_region_unmap(fl_region *r) {
    if (r->map) munmap(r->map, r->map_bytes);
    memset(r, 0, sizeof *r);
}

void fl_region_touch(const fl_region *r) {
    static unsigned char v;
    v++;
    for (size_t off = 0; off < r->bytes; off += PAGE) ((volatile unsigned char *)r->base)[off] = v;
}

int fl_region_smaps(const fl_region *r, long long *rss_kb, long long *huge_kb) {
    *rss_kb = 0;
    *huge_kb = 0;
    if (!r->bytes) return 0;
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    int inside = 0;
    uintptr_t lo = (uintptr_t)r->base, hi = lo + r->bytes;
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            inside = a < hi && b > lo;
            continue;
        }
        if (!inside) continue;
        long long v;
        if (sscanf(line, "Rss: %lld kB", &v) == 1) *rss_kb += v;
        else if (sscanf(line, "AnonHugePages: %lld kB", &v) == 1) *huge_kb += v;
    }
    fclose(f);
    return 0;
}
