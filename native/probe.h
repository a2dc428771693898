/* forklab probe: the measuring core. Single-threaded (except where an experiment is about threads).
 * It sets up memory, runs warm-up and timed iterations when told to, and writes raw samples in
 * nanoseconds as JSON Lines on stdout (protocol version FL_PROTOCOL). No statistics, no formatting.
 *
 * Each experiment is one case file (case_NAME.c) defining one fl_case and registering it with FL_CASE;
 * the build compiles every native/case_*.c (scripts/list-cases.mjs), so no list of cases exists anywhere. */
#ifndef FORKLAB_PROBE_H
#define FORKLAB_PROBE_H

#include <stddef.h>
#include <stdint.h>

#define FL_PROTOCOL 1
/* The package's version (package.json), given by the build (binding.gyp, scripts/probe-version.mjs). */
#ifndef FL_PROBE_VERSION_TOKENS
#error "FL_PROBE_VERSION_TOKENS is defined by the build from package.json; build with node scripts/build-native.mjs"
#endif
#define FL_STRINGIFY_(x) #x
#define FL_STRINGIFY(x) FL_STRINGIFY_(x)
#define FL_PROBE_VERSION FL_STRINGIFY(FL_PROBE_VERSION_TOKENS)

typedef struct fl_case {
    const char *name;
    /* Argument keys the case accepts (NULL-terminated); anything else is a usage error. */
    const char *const *keys;
    /* Once, after the arguments are parsed: allocate, touch, report with fl_info_*. 0 or -1. */
    int (*setup)(void);
    /* Run n iterations and report them with fl_emit_samples (warmup: 1 for warm-up). 0 or -1. */
    int (*batch)(long n, int warmup);
    /* Once before exit, also after a failure. May be NULL. */
    void (*teardown)(void);
} fl_case;

/* Registers a case: `FL_CASE(fl_case_spawn);` at the end of its file. The build compiles every
 * native/case_*.c, so adding an experiment touches no other C file. */
#define FL_CASE(c) \
    static const fl_case *const fl_case_ptr_##c __attribute__((used, section("fl_cases"), aligned(sizeof(void *)))) = &c

/* ---- arguments (key=value on the command line) ---- */
/* Returns the value of key, or def when absent; out of [min, max] or not a number is a usage error
 * (reported and the probe exits 2). */
long fl_arg_long(const char *key, long def, long min, long max);
const char *fl_arg_str(const char *key, const char *def);
/* Index of the value in choices (NULL-terminated); usage error when not one of them. */
int fl_arg_choice(const char *key, const char *def, const char *const *choices);
/* The arguments after "--" on the command line (the user's program's arguments), NULL-terminated; *n their count. */
char **fl_rest_args(int *n);

/* ---- time ---- */
uint64_t fl_now_ns(void);

/* ---- output ---- */
/* One "samples" line: series name, warm-up flag, n values in ns. Extra per-iteration integer columns
 * may follow as (name, values) pairs: fl_emit_samples_x(series, warmup, ns, n, "minflt", minflt, NULL). */
void fl_emit_samples(const char *series, int warmup, const uint64_t *ns, long n);
void fl_emit_samples_x(const char *series, int warmup, const uint64_t *ns, long n, ...);
/* An "info" line built field by field: fl_info_begin(); fl_info_long("rssMb", 5); ...; fl_info_end(); */
void fl_info_begin(void);
void fl_info_long(const char *key, long long value);
void fl_info_double(const char *key, double value);
void fl_info_str(const char *key, const char *value);
void fl_info_bool(const char *key, int value);
void fl_info_end(void);
/* An "error" line naming the failed call and errno. Returns -1 for `return fl_fail(...)`. */
int fl_fail(const char *call, int err);
/* An "error" line with a message only (errno 0). Returns -1. */
int fl_fail_msg(const char *call, const char *message);

/* ---- /proc readers ---- */
/* Value in kB of a "Key:   N kB" line of a /proc file (status, meminfo); -1 if absent. */
long long fl_proc_kb(const char *path, const char *key);
/* Lines of /proc/self/maps in all, and those overlapping [base, base+bytes). 0 or -1 with errno. */
int fl_count_maps(const void *base, size_t bytes, long *total, long *inside);

#endif
