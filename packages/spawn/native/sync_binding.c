/* spawnSync(request) for JS (see src/sync.ts): converts the request, runs fl_spawn_sync, builds the result
 * object child_process's spawnSync expects from its binding: { status, signal, output, pid, error? }. */
#include <node_api.h>

#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "permission.h"
#include "spawn_sync.h"

/* obj[key] is absent, undefined or null */
static int is_nothing(napi_env env, napi_value obj, const char *key) {
    napi_value v;
    napi_valuetype t;
    if (napi_get_named_property(env, obj, key, &v) != napi_ok || napi_typeof(env, v, &t) != napi_ok) return 0;
    return t == napi_undefined || t == napi_null;
}

static char *get_str(napi_env env, napi_value obj, const char *key) {
    napi_value v;
    napi_valuetype t;
    if (napi_get_named_property(env, obj, key, &v) != napi_ok || napi_typeof(env, v, &t) != napi_ok || t != napi_string) return NULL;
    size_t len = 0;
    napi_get_value_string_utf8(env, v, NULL, 0, &len);
    char *s = malloc(len + 1);
    if (s) napi_get_value_string_utf8(env, v, s, len + 1, &len);
    return s;
}

static char **get_strs(napi_env env, napi_value obj, const char *key) {
    napi_value arr;
    uint32_t n = 0;
    if (napi_get_named_property(env, obj, key, &arr) != napi_ok || napi_get_array_length(env, arr, &n) != napi_ok) return NULL;
    char **v = calloc((size_t)n + 1, sizeof *v);
    if (!v) return NULL;
    for (uint32_t i = 0; i < n; i++) {
        napi_value e;
        size_t len = 0;
        napi_get_element(env, arr, i, &e);
        if (napi_get_value_string_utf8(env, e, NULL, 0, &len) != napi_ok || !(v[i] = malloc(len + 1))) {
            for (uint32_t j = 0; j < i; j++) free(v[j]);
            free(v);
            return NULL;
        }
        napi_get_value_string_utf8(env, e, v[i], len + 1, &len);
    }
    return v;
}

static void free_strs(char **v) {
    if (!v) return;
    for (char **p = v; *p; p++) free(*p);
    free(v);
}

static double get_num(napi_env env, napi_value obj, const char *key, double dflt) {
    napi_value v;
    double d;
    if (napi_get_named_property(env, obj, key, &v) != napi_ok || napi_get_value_double(env, v, &d) != napi_ok) return dflt;
    return d;
}

static int get_bool(napi_env env, napi_value obj, const char *key) {
    napi_value v;
    bool b = false;
    if (napi_get_named_property(env, obj, key, &v) == napi_ok) napi_get_value_bool(env, v, &b);
    return b;
}

static void set(napi_env env, napi_value obj, const char *key, napi_value v) { napi_set_named_property(env, obj, key, v); }

napi_value fl_js_spawn_sync(napi_env env, napi_callback_info info) {
    size_t argc = 1;
    napi_value req_v, result = NULL;
    if (napi_get_cb_info(env, info, &argc, &req_v, NULL, NULL) != napi_ok || argc < 1) {
        napi_throw_type_error(env, NULL, "spawnSync: a request object expected");
        return NULL;
    }
    if (!fl_may_spawn(env)) return NULL;
    napi_value stdio_v, input_v, reads_v;
    uint32_t n = 0;
    napi_get_named_property(env, req_v, "stdio", &stdio_v);
    napi_get_named_property(env, req_v, "input", &input_v);
    napi_get_named_property(env, req_v, "readable", &reads_v);
    if (napi_get_array_length(env, stdio_v, &n) != napi_ok) {
        napi_throw_type_error(env, NULL, "spawnSync: stdio must be an array");
        return NULL;
    }
    char *file = get_str(env, req_v, "file"), *cwd = get_str(env, req_v, "cwd");
    /* without envPairs the child inherits the parent's environ, as with Node's binding */
    int inherit_env = is_nothing(env, req_v, "envPairs");
    char **argv = get_strs(env, req_v, "args"), **envp = inherit_env ? NULL : get_strs(env, req_v, "envPairs");
    int *stdio = calloc(n ? n : 1, sizeof *stdio), *reads = calloc(n ? n : 1, sizeof *reads);
    const unsigned char **input = calloc(n ? n : 1, sizeof *input);
    size_t *input_len = calloc(n ? n : 1, sizeof *input_len);
    fl_sync_out out;
    memset(&out, 0, sizeof out);
    if (!file || !argv || (!envp && !inherit_env) || !stdio || !reads || !input || !input_len) {
        napi_throw_error(env, NULL, "spawnSync: bad request (file, args, envPairs) or out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) {
        napi_value e;
        bool is_ta = false, b = false;
        napi_get_element(env, stdio_v, i, &e);
        napi_get_value_int32(env, e, &stdio[i]);
        napi_get_element(env, reads_v, i, &e);
        napi_get_value_bool(env, e, &b);
        reads[i] = b;
        napi_get_element(env, input_v, i, &e);
        napi_is_typedarray(env, e, &is_ta);
        if (is_ta) {
            napi_typedarray_type type;
            size_t len;
            void *data;
            napi_get_typedarray_info(env, e, &type, &len, &data, NULL, NULL);
            input[i] = data; /* the JS value stays alive for the whole (synchronous) call */
            input_len[i] = len;
        }
    }
    /* Node's spawnSync makes a loop of its own (epoll, its signal pipe, its async eventfd: 4 descriptors) and,
     * with a pipe, that loop's EMFILE reserve (/dev/null) */
    int loop_fds = 4;
    for (uint32_t i = 0; i < n; i++)
        if (stdio[i] == FL_STDIO_PIPE) { loop_fds = 5; break; }
    /* and the io_uring rings its libuv sets up with every loop, where it can (src/loop-rings.ts counts them) */
    double rings = get_num(env, req_v, "loopRings", 0);
    if (rings >= 1 && rings <= 2) loop_fds += (int)rings;
    fl_sync_req req = {
        .base = {file, argv, envp, cwd, stdio, (int)n, get_bool(env, req_v, "detached"), loop_fds},
        .reads = reads,
        .input = input,
        .input_len = input_len,
        .timeout_ms = (long long)get_num(env, req_v, "timeoutMs", 0),
        .max_buffer = get_num(env, req_v, "maxBuffer", -1),
        .kill_signal = (int)get_num(env, req_v, "killSignal", 15),
    };
    int err = fl_spawn_sync(&req, &out);
    napi_value v, nul;
    napi_get_null(env, &nul);
    napi_create_object(env, &result);
    if (err != 0) {
        napi_create_int32(env, err, &v);
        set(env, result, "error", v);
    }
    int spawned = out.pid > 0;
    if (spawned && out.term_signal == 0) napi_create_int32(env, out.status, &v);
    else v = nul;
    set(env, result, "status", v);
    if (spawned && out.term_signal) napi_create_string_utf8(env, fl_signal_name(out.term_signal), NAPI_AUTO_LENGTH, &v);
    else v = nul;
    set(env, result, "signal", v);
    if (spawned) {
        napi_create_array_with_length(env, n, &v);
        for (uint32_t i = 0; i < n; i++) {
            napi_value b = nul;
            if (stdio[i] == FL_STDIO_PIPE && fl_sync_reads(&out, (int)i)) {
                size_t len;
                const unsigned char *data = fl_sync_output(&out, (int)i, &len);
                napi_create_buffer_copy(env, len, len ? data : (const void *)"", NULL, &b);
            }
            napi_set_element(env, v, i, b);
        }
    } else v = nul;
    set(env, result, "output", v);
    napi_create_int32(env, out.pid, &v);
    set(env, result, "pid", v);
done:
    fl_sync_free(&out, (int)n);
    free(file);
    free(cwd);
    free_strs(argv);
    free_strs(envp);
    free(stdio);
    free(reads);
    free(input);
    free(input_len);
    return result;
}
