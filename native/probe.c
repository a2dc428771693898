/* Probe main: arguments, the protocol, the command loop.
 *
 * Usage: forklab-probe CASE [key=value ...]
 *        forklab-probe --version        prints the version (the package's) and exits 0
 *        forklab-probe                  prints a hello line listing every case in "cases" and exits 0
 * Exit status: 0 done, 2 error (after an "error" line), 3 orphaned at start (the runner is already gone).
 * stdout (JSON Lines, protocol 1):
 *   {"type":"hello","protocol":1,"probe":VERSION,"case":"spawn","pid":N}
 *   {"type":"info",...}            case facts (memory actually mapped, huge pages, ...)
 *   {"type":"ready"}               setup done; waiting for commands
 *   {"type":"samples","series":S,"warmup":B,"ns":[...],...}   one or more per batch
 *   {"type":"end","warmup":B}      the batch is done; the runner sends its next command
 *   {"type":"error","call":C,"errno":E,"message":M}   then exit status 2
 *   {"type":"usage","nivcsw":N,"nvcsw":N,"childNivcsw":N,"migrations":N|null}   since ready
 *   {"type":"done"}
 * stdin, one command a line: "warmup N", "run N", "stop" (end of input is "stop"). */
#include "probe.h"
#include "emit.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

extern const fl_case *const __start_fl_cases[];
extern const fl_case *const __stop_fl_cases[];
#define N_CASES ((int)(__stop_fl_cases - __start_fl_cases))
#define fl_cases __start_fl_cases

#define MAX_ARGS 32
static const char *arg_keys[MAX_ARGS];
static const char *arg_vals[MAX_ARGS];
static int n_args;
static char **rest_args;
static int n_rest;
static const fl_case *current;

/* What the scheduler did to the probe while it measured: taken at "ready", reported as differences
 * in a "usage" line just before "done" (the runner's noise witness). */
struct usage_mark {
    struct rusage self, children;
    long long migrations;
};
static struct usage_mark at_ready;

/* se.nr_migrations of /proc/self/sched (main thread), or -1 where the kernel does not expose it. */
static long long read_migrations(void) {
    FILE *f = fopen("/proc/self/sched", "r");
    if (!f) return -1;
    char line[256];
    long long v = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "se.nr_migrations", 16) == 0) {
            char *colon = strchr(line, ':');
            if (colon) v = strtoll(colon + 1, NULL, 10);
            break;
        }
    }
    fclose(f);
    return v;
}

static int take_usage_mark(struct usage_mark *m) {
    if (getrusage(RUSAGE_SELF, &m->self) != 0 || getrusage(RUSAGE_CHILDREN, &m->children) != 0) return -1;
    m->migrations = read_migrations();
    return 0;
}

static void emit_usage(void) {
    struct usage_mark now;
    if (take_usage_mark(&now) != 0) return;
    printf("{\"type\":\"usage\",\"nivcsw\":%ld,\"nvcsw\":%ld,\"childNivcsw\":%ld,\"migrations\":",
           now.self.ru_nivcsw - at_ready.self.ru_nivcsw, now.self.ru_nvcsw - at_ready.self.ru_nvcsw,
           now.children.ru_nivcsw - at_ready.children.ru_nivcsw);
    if (now.migrations >= 0 && at_ready.migrations >= 0) printf("%lld}", now.migrations - at_ready.migrations);
    else printf("null}");
    fl_end_line();
}

static void finish(int status) {
    if (current && current->teardown) current->teardown();
    fflush(stdout);
    _exit(status);
}

static void usage_error(const char *message, const char *key) {
    printf("{\"type\":\"error\",\"call\":\"usage\",\"errno\":0,\"message\":");
    char buf[256];
    snprintf(buf, sizeof buf, "%s%s%s", message, key ? ": " : "", key ? key : "");
    fl_json_string(buf);
    putchar('}');
    fl_end_line();
    finish(2);
}

static const char *find_arg(const char *key) {
    for (int i = 0; i < n_args; i++)
        if (strcmp(arg_keys[i], key) == 0) return arg_vals[i];
    return NULL;
}

long fl_arg_long(const char *key, long def, long min, long max) {
    const char *v = find_arg(key);
    if (!v) return def;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end) usage_error("not an integer", key);
    if (x < min || x > max) usage_error("out of range", key);
    return x;
}

const char *fl_arg_str(const char *key, const char *def) {
    const char *v = find_arg(key);
    return v ? v : def;
}

char **fl_rest_args(int *n) {
    *n = n_rest;
    return rest_args;
}

int fl_arg_choice(const char *key, const char *def, const char *const *choices) {
    const char *v = fl_arg_str(key, def);
    for (int i = 0; choices[i]; i++)
        if (strcmp(v, choices[i]) == 0) return i;
    usage_error("unknown value", key);
    return -1;
}

static int key_allowed(const fl_case *c, const char *key) {
    if (strcmp(key, "cpu") == 0) return 1;
    for (int i = 0; c->keys && c->keys[i]; i++)
        if (strcmp(c->keys[i], key) == 0) return 1;
    return 0;
}

static void pin_cpu(void) {
    long cpu = fl_arg_long("cpu", -1, -1, CPU_SETSIZE - 1);
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        fl_fail("sched_setaffinity", errno);
        finish(2);
    }
}

/* The probe run as `forklab-probe --hold` (what a case's child execs to live on in a fresh image, child.h): writes
 * one byte to stdout (its exec is done), then waits for the end of stdin and returns 0 (the exit status). */
static int hold_main(void) {
    char c = 'h';
    ssize_t k;
    do k = write(1, &c, 1); while (k < 0 && errno == EINTR);
    if (k != 1) return 4;
    do k = read(0, &c, 1); while (k > 0 || (k < 0 && errno == EINTR));
    return 0;
}

int main(int argc, char **argv) {
    /* Die with the runner: a probe must never outlive the process that reads it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) return 3;
    signal(SIGPIPE, SIG_DFL);

    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("%s\n", FL_PROBE_VERSION);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--hold") == 0) return hold_main(); /* vma's exec'd child */
    if (argc < 2) {
        printf("{\"type\":\"hello\",\"protocol\":%d,\"probe\":\"%s\",\"case\":null,\"pid\":%d,\"cases\":[",
               FL_PROTOCOL, FL_PROBE_VERSION, (int)getpid());
        for (int i = 0; i < N_CASES; i++) {
            if (i) putchar(',');
            fl_json_string(fl_cases[i]->name);
        }
        printf("]}");
        fl_end_line();
        return 0;
    }
    for (int i = 0; i < N_CASES; i++)
        if (strcmp(fl_cases[i]->name, argv[1]) == 0) current = fl_cases[i];
    printf("{\"type\":\"hello\",\"protocol\":%d,\"probe\":\"%s\",\"case\":", FL_PROTOCOL, FL_PROBE_VERSION);
    fl_json_string(argv[1]);
    printf(",\"pid\":%d}", (int)getpid());
    fl_end_line();
    if (!current) usage_error("unknown case", argv[1]);

    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) { /* the rest is the user's program's arguments, passed as they are */
            rest_args = &argv[i + 1];
            n_rest = argc - i - 1;
            break;
        }
        char *eq = strchr(argv[i], '=');
        if (!eq || eq == argv[i]) usage_error("expected key=value", argv[i]);
        *eq = '\0';
        if (!key_allowed(current, argv[i])) usage_error("unknown argument", argv[i]);
        if (find_arg(argv[i])) usage_error("repeated argument", argv[i]);
        if (n_args == MAX_ARGS) usage_error("too many arguments", argv[i]);
        arg_keys[n_args] = argv[i];
        arg_vals[n_args] = eq + 1;
        n_args++;
    }
    pin_cpu();
    if (current->setup() != 0) finish(2);
    take_usage_mark(&at_ready);
    printf("{\"type\":\"ready\"}");
    fl_end_line();

    char line[128];
    while (fgets(line, sizeof line, stdin)) {
        long n = 0;
        int warmup;
        if (strncmp(line, "stop", 4) == 0) break;
        if (sscanf(line, "run %ld", &n) == 1) warmup = 0;
        else if (sscanf(line, "warmup %ld", &n) == 1) warmup = 1;
        else usage_error("unknown command", line);
        if (n < 1 || n > 10000000) usage_error("iteration count out of range", line);
        if (current->batch(n, warmup) != 0) finish(2);
        printf("{\"type\":\"end\",\"warmup\":%s}", warmup ? "true" : "false");
        fl_end_line();
    }
    emit_usage();
    printf("{\"type\":\"done\"}");
    fl_end_line();
    finish(0);
    return 0;
}
