/* bench:env's prototype (a scratch N-API addon, never shipped): the child's environment taken from the C
 * environ, filtered as child_process on Node 20-24 filters what it copies from process.env, against the
 * environment converted from the JS envPairs array as forklab's addon converts it.
 *   emulatedPairs() -> string[] | null   the KEY=value strings child_process would pass, from environ; null
 *                                        when an entry is not valid UTF-8 (V8 would re-encode it: not emulated)
 *   spawnWait(file, envPairs | null) -> 0 | -errno
 *       starts file as forklab's child starts it (/dev/null on 0-2, empty mask, signals at their defaults),
 *       with envPairs converted string by string (as the addon does), or null: the filtered environ, pointers
 *       into it (nothing copied); then waits through a pidfd (poll, waitid P_PIDFD).
 * Node 20-24's rules, from process.env's interceptor (uv_os_environ, getenv) and V8's for..in/spread:
 * entries without '=' are skipped (libuv), an empty name is skipped (getenv("") is NULL), a name that is an
 * array index (0 .. 4294967294 in canonical form) is skipped (V8 looks it up as an element; the interceptor
 * is named only), a repeated name keeps its first entry (for..in keys are unique; getenv finds the first). */
#define _GNU_SOURCE
#include <node_api.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

extern char **environ;

/* Strict UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF), as V8 accepts without replacement. */
static int valid_utf8(const unsigned char *s) {
    while (*s) {
        unsigned c = *s;
        if (c < 0x80) { s++; continue; }
        int n;
        unsigned min, cp;
        if ((c & 0xE0) == 0xC0) n = 1, min = 0x80, cp = c & 0x1F;
        else if ((c & 0xF0) == 0xE0) n = 2, min = 0x800, cp = c & 0x0F;
        else if ((c & 0xF8) == 0xF0) n = 3, min = 0x10000, cp = c & 0x07;
        else return 0;
        for (int i = 1; i <= n; i++) {
            if ((s[i] & 0xC0) != 0x80) return 0;
            cp = (cp << 6) | (s[i] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
        s += n + 1;
    }
    return 1;
}

static int is_array_index(const char *k, size_t len) {
    if (len == 0 || len > 10) return 0;
    if (k[0] == '0') return len == 1;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (k[i] < '0' || k[i] > '9') return 0;
        v = v * 10 + (uint64_t)(k[i] - '0');
    }
    return v <= 4294967294u;
}

/* Pointers to the environ entries child_process would pass, in environ's order; *ok = 0 when an entry is
 * not valid UTF-8. The caller frees the array (not the strings). */
static char **filtered_environ(size_t *count, int *ok) {
    size_t n = 0;
    while (environ[n]) n++;
    char **out = calloc(n + 1, sizeof *out);
    size_t *keylen = calloc(n + 1, sizeof *keylen);
    *ok = 1;
    *count = 0;
    if (!out || !keylen) { free(out); free(keylen); *ok = 0; return NULL; }
    for (size_t i = 0; i < n; i++) {
        const char *e = environ[i];
        if (!valid_utf8((const unsigned char *)e)) { *ok = 0; break; }
        const char *eq = strchr(e, '=');
        if (!eq || eq == e) continue;
        size_t kl = (size_t)(eq - e);
        if (is_array_index(e, kl)) continue;
        int seen = 0;
        for (size_t j = 0; j < *count && !seen; j++) seen = keylen[j] == kl && memcmp(out[j], e, kl) == 0;
        if (seen) continue;
        keylen[*count] = kl;
        out[(*count)++] = (char *)e;
    }
    free(keylen);
    return out;
}

static napi_value emulated_pairs(napi_env env, napi_callback_info info) {
    (void)info;
    size_t n;
    int ok;
    char **v = filtered_environ(&n, &ok);
    napi_value result;
    if (!ok) {
        free(v);
        napi_get_null(env, &result);
        return result;
    }
    napi_create_array_with_length(env, n, &result);
    for (size_t i = 0; i < n; i++) {
        napi_value s;
        napi_create_string_utf8(env, v[i], NAPI_AUTO_LENGTH, &s);
        napi_set_element(env, result, (uint32_t)i, s);
    }
    free(v);
    return result;
}

static char *dup_value(napi_env env, napi_value v) {
    size_t len = 0;
    if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok) return NULL;
    char *s = malloc(len + 1);
    if (s) napi_get_value_string_utf8(env, v, s, len + 1, &len);
    return s;
}

static int run_child(const char *file, char *const *envp) {
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, all;
    sigemptyset(&none);
    memset(&all, 0, sizeof all);
    for (int sig = 1; sig <= 64 && sig <= (int)(8 * sizeof all); sig++)
        ((unsigned long *)&all)[(sig - 1) / (8 * sizeof(unsigned long))] |= 1UL << ((sig - 1) % (8 * sizeof(unsigned long)));
    int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (nul < 0) return -errno;
    posix_spawn_file_actions_init(&fa);
    for (int i = 0; i < 3; i++) posix_spawn_file_actions_adddup2(&fa, nul, i);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    char *argv[] = {(char *)file, NULL};
    pid_t pid;
    int err = posix_spawn(&pid, file, &fa, &attr, argv, envp);
    close(nul);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (err) return -err;
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
        return -ECHILD;
    }
    struct pollfd pf = {.fd = pidfd, .events = POLLIN};
    while (poll(&pf, 1, -1) < 0 && errno == EINTR) {}
    siginfo_t si;
    memset(&si, 0, sizeof si);
    waitid((idtype_t)P_PIDFD, (id_t)pidfd, &si, WEXITED);
    close(pidfd);
    return si.si_code == CLD_EXITED ? si.si_status : -EINTR;
}

static napi_value spawn_wait(napi_env env, napi_callback_info info) {
    size_t argc = 2;
    napi_value a[2], result;
    napi_get_cb_info(env, info, &argc, a, NULL, NULL);
    char *file = dup_value(env, a[0]);
    napi_valuetype t;
    napi_typeof(env, a[1], &t);
    char **envp = NULL;
    int rc, owned = t == napi_object;
    if (owned) {
        uint32_t n = 0;
        napi_get_array_length(env, a[1], &n);
        envp = calloc((size_t)n + 1, sizeof *envp);
        for (uint32_t i = 0; i < n; i++) {
            napi_value e;
            napi_get_element(env, a[1], i, &e);
            envp[i] = dup_value(env, e);
        }
    } else {
        size_t n;
        int ok;
        envp = filtered_environ(&n, &ok);
        if (!ok) { free(envp); envp = NULL; }
    }
    rc = file && envp ? run_child(file, envp) : -EINVAL;
    if (owned && envp)
        for (char **p = envp; *p; p++) free(*p);
    free(envp);
    free(file);
    napi_create_int32(env, rc, &result);
    return result;
}

NAPI_MODULE_INIT() {
    napi_property_descriptor props[] = {
        {"emulatedPairs", NULL, emulated_pairs, NULL, NULL, NULL, napi_default, NULL},
        {"spawnWait", NULL, spawn_wait, NULL, NULL, NULL, napi_default, NULL},
    };
    napi_define_properties(env, exports, 2, props);
    return exports;
}
