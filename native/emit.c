/* What a case writes and reads beside its measuring: the protocol's lines (samples, info, error; probe.c writes
 * hello, ready, end, usage and done with the same two helpers), the clock, and the /proc readers. probe.h declares
 * what cases call; emit.h the two helpers probe.c shares. */
#include "probe.h"
#include "emit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int info_fields;

void fl_json_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { putchar('\\'); putchar(c); }
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

void fl_end_line(void) {
    putchar('\n');
    fflush(stdout);
}

uint64_t fl_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void emit_ulongs(const char *name, const uint64_t *v, long n) {
    printf(",\"%s\":[", name);
    for (long i = 0; i < n; i++) printf(i ? ",%llu" : "%llu", (unsigned long long)v[i]);
    putchar(']');
}

void fl_emit_samples(const char *series, int warmup, const uint64_t *ns, long n) {
    fl_emit_samples_x(series, warmup, ns, n, NULL);
}

void fl_emit_samples_x(const char *series, int warmup, const uint64_t *ns, long n, ...) {
    printf("{\"type\":\"samples\",\"series\":");
    fl_json_string(series);
    printf(",\"warmup\":%s", warmup ? "true" : "false");
    emit_ulongs("ns", ns, n);
    va_list ap;
    va_start(ap, n);
    const char *name;
    while ((name = va_arg(ap, const char *)) != NULL) {
        const uint64_t *col = va_arg(ap, const uint64_t *);
        emit_ulongs(name, col, n);
    }
    va_end(ap);
    putchar('}');
    fl_end_line();
}

static void info_key(const char *key) {
    if (info_fields++) putchar(',');
    fl_json_string(key);
    putchar(':');
}

void fl_info_begin(void) { info_fields = 1; printf("{\"type\":\"info\""); }
void fl_info_long(const char *key, long long value) { info_key(key); printf("%lld", value); }
void fl_info_double(const char *key, double value) { info_key(key); printf("%.17g", value); }
void fl_info_str(const char *key, const char *value) { info_key(key); fl_json_string(value); }
void fl_info_bool(const char *key, int value) { info_key(key); printf(value ? "true" : "false"); }
void fl_info_end(void) { putchar('}'); fl_end_line(); }

int fl_fail_msg(const char *call, const char *message) {
    printf("{\"type\":\"error\",\"call\":");
    fl_json_string(call);
    printf(",\"errno\":0,\"message\":");
    fl_json_string(message);
    putchar('}');
    fl_end_line();
    return -1;
}

int fl_fail(const char *call, int err) {
    printf("{\"type\":\"error\",\"call\":");
    fl_json_string(call);
    printf(",\"errno\":%d,\"message\":", err);
    fl_json_string(strerror(err));
    putchar('}');
    fl_end_line();
    return -1;
}

long long fl_proc_kb(const char *path, const char *key) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[512];
    size_t klen = strlen(key);
    long long v = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
            v = strtoll(line + klen + 1, NULL, 10);
            break;
        }
    }
    fclose(f);
    return v;
}

int fl_count_maps(const void *base, size_t bytes, long *total, long *inside) {
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return -1;
    char line[512];
    unsigned long lo = (unsigned long)base, hi = lo + bytes;
    *total = *inside = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx", &a, &b) != 2) continue;
        (*total)++;
        if (a < hi && b > lo) (*inside)++;
        while (!strchr(line, '\n') && fgets(line, sizeof line, f)) {} /* a long path name */
    }
    fclose(f);
    return 0;
}
