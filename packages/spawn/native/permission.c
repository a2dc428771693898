/* Node's permission model, as the addon sees it (permission.h). */
#include <node_api.h>

#include <pthread.h>
#include <stdlib.h>

#include "permission.h"

/* Per environment (the main thread's and each worker's): its process.permission (NULL outside the model) and the
 * has() it had at load, in a list under a lock, each removed by its environment's cleanup hook. */
typedef struct fl_perm {
    napi_env env;
    napi_ref model; /* NULL: no permission model in this environment */
    napi_ref has;
    struct fl_perm *next;
} fl_perm;
static fl_perm *perms;
static pthread_mutex_t perms_lock = PTHREAD_MUTEX_INITIALIZER;

static void perm_forget(void *arg) {
    fl_perm *p = arg, **at;
    pthread_mutex_lock(&perms_lock);
    for (at = &perms; *at; at = &(*at)->next)
        if (*at == p) { *at = p->next; break; }
    pthread_mutex_unlock(&perms_lock);
    if (p->model) napi_delete_reference(p->env, p->model);
    if (p->has) napi_delete_reference(p->env, p->has);
    free(p);
}

int fl_perm_capture(napi_env env) {
    napi_value global, proc, model, has;
    napi_valuetype t = napi_undefined, ht = napi_undefined;
    fl_perm *p = calloc(1, sizeof *p);
    if (!p) return -1;
    p->env = env;
    if (napi_get_global(env, &global) != napi_ok || napi_get_named_property(env, global, "process", &proc) != napi_ok ||
        napi_get_named_property(env, proc, "permission", &model) != napi_ok || napi_typeof(env, model, &t) != napi_ok) {
        free(p);
        return -1;
    }
    if (t == napi_object) {
        if (napi_create_reference(env, model, 1, &p->model) != napi_ok) { free(p); return -1; }
        if (napi_get_named_property(env, model, "has", &has) == napi_ok && napi_typeof(env, has, &ht) == napi_ok && ht == napi_function)
            napi_create_reference(env, has, 1, &p->has);
    }
    if (napi_add_env_cleanup_hook(env, perm_forget, p) != napi_ok) {
        perm_forget(p);
        return -1;
    }
    pthread_mutex_lock(&perms_lock);
    p->next = perms;
    perms = p;
    pthread_mutex_unlock(&perms_lock);
    return 0;
}

int fl_perm_allows(napi_env env) {
    fl_perm *p;
    pthread_mutex_lock(&perms_lock);
    for (p = perms; p && p->env != env; p = p->next) {}
    pthread_mutex_unlock(&perms_lock);
    if (p && !p->model) return 1;
    if (!p || !p->has) return 0;
    napi_value model, has, arg, out;
    bool ok = false;
    if (napi_get_reference_value(env, p->model, &model) != napi_ok || napi_get_reference_value(env, p->has, &has) != napi_ok || !model || !has ||
        napi_create_string_utf8(env, "child", 5, &arg) != napi_ok || napi_call_function(env, model, has, 1, &arg, &out) != napi_ok ||
        napi_get_value_bool(env, out, &ok) != napi_ok)
        return 0;
    return ok;
}

int fl_may_spawn(napi_env env) {
    if (fl_perm_allows(env)) return 1;
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (!pending) napi_throw_error(env, "ERR_ACCESS_DENIED", "Access to this API has been restricted. Use --allow-child-process to manage permissions.");
    return 0;
}
