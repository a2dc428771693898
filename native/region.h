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

/* How the pages get backed: FL_FILL_WRITE writes one byte in every page from user space (the articles' own loop;
 * one page fault each); FL_FILL_POPULATE asks the kernel for the same with madvise(MADV_POPULATE_WRITE) (Linux
 * 5.14: every page present, private and writable, as if written, huge pages where the advice allows them; on this
 * project's nested VM 20-50x faster than the loop), and falls back to the loop where the kernel refuses it. */
enum fl_fill { FL_FILL_WRITE = 0, FL_FILL_POPULATE = 1 };
extern const char *const fl_fill_names[]; /* "write-loop", "populate-write" */

/* mmap (never malloc: madvise needs a page-aligned address), madvise by thp, then back every page as `fill`
 * asks; *filled (when not NULL) says how it was done. Returns 0, or -1 with errno set and *failed_call naming
 * the call. */
int fl_region_map(fl_region *r, size_t bytes, enum fl_thp thp, enum fl_fill fill, enum fl_fill *filled, const char **failed_call);
void fl_region_unmap(fl_region *r);
/* Writes one byte in every 4 KiB page (value changes each call so the writes are never elided). */
void fl_region_touch(const fl_region *r);
/* Sums "Rss" and "AnonHugePages" (kB) of the mappings that overlap the region, from /proc/self/smaps. 0 or -1. */
int fl_region_smaps(const fl_region *r, long long *rss_kb, long long *huge_kb);

#endif
