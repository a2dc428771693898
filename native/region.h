/* A region of anonymous memory the probe maps, advises and touches so that the process really holds it. */
#ifndef FORKLAB_REGION_H
#define FORKLAB_REGION_H
#include <stddef.h>

enum fl_thp { FL_THP_DEFAULT = 0, FL_THP_ON = 1, FL_THP_OFF = 2 };
extern const char *const fl_thp_names[]; /* "default", "on", "off", NULL */

typedef struct {
    char *base;       /* page-aligned (2 MiB aligned when THP is on) */
    size_t bytes;
    void *map;        /* what mmap returned, for munmap */
    size_t map_bytes;
} fl_region;

/* mmap (never malloc: madvise needs a page-aligned address), madvise by thp, then write every page.
 * Returns 0, or -1 with errno set and *failed_call naming the call. */
int fl_region_map(fl_region *r, size_t bytes, enum fl_thp thp, const char **failed_call);
void fl_region_unmap(fl_region *r);
/* Writes one byte in every 4 KiB page (value changes each call so the writes are never elided). */
void fl_region_touch(const fl_region *r);
/* Sums "Rss" and "AnonHugePages" (kB) of the mappings that overlap the region, from /proc/self/smaps. 0 or -1. */
int fl_region_smaps(const fl_region *r, long long *rss_kb, long long *huge_kb);

#endif
