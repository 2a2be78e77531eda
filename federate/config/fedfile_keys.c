/* The key readers an algorithm's parser reads its settings with (federate/config/fedfile_algo.h):
 * each remembers the key it was asked for, so that the keys nobody asked for are refused with
 * their JSON path and the method's name, and a new setting is one call in the algorithm's own
 * file (doc/architecture.md, "Where a new coupling algorithm goes"). Read fedfile_algo.h first.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "federate/config/fedfile_algo.h"
#include "federate/config/fedfile_impl.h"

static void path_of(const fedfile_keys *k, const char *key, char *out)
{
    if (!key)
        snprintf(out, FEDFILE_JPATH_LEN, "%.200s", k->path);
    else /* cut to fit: the message stays readable */
        snprintf(out, FEDFILE_JPATH_LEN, "%.200s%s%.100s", k->path, k->path[0] ? "." : "", key);
}

int fedfile_key_fail(const fedfile_keys *k, const char *key, const char *fmt, ...)
{
    char msg[FEDFILE_ERRLEN / 2], p[FEDFILE_JPATH_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    path_of(k, key, p);
    return fedfile_fail(k->rd, p, "%s", msg);
}

const json_t *fedfile_key_get(fedfile_keys *k, const char *key)
{
    size_t i = 0;
    while (i < k->n_asked && strcmp(k->asked[i], key) != 0)
        i++;
    if (i == k->n_asked && k->n_asked < FEDFILE_KEYS_MAX) k->asked[k->n_asked++] = key;
    return k->obj ? json_object_get(k->obj, key) : NULL;
}

int fedfile_key_num(fedfile_keys *k, const char *key, int opts, double *out, int *have)
{
    const json_t *v = fedfile_key_get(k, key);
    int zero_ok = (opts & FEDFILE_KEY_ZERO_OK) != 0;
    if (have) *have = v != NULL;
    if (!v)
        return opts & FEDFILE_KEY_REQUIRED
                   ? fedfile_key_fail(k, key, "missing (expected a number %s 0)",
                                      zero_ok ? ">=" : ">")
                   : FEDFILE_OK;
    if (!json_is_number(v))
        return fedfile_key_fail(k, key, "expected a number, got %s", fedfile_json_kind(v));
    double d = json_number_value(v);
    if (!isfinite(d) || (zero_ok ? d < 0 : d <= 0))
        return fedfile_key_fail(k, key, "expected a number %s 0, got %g", zero_ok ? ">=" : ">", d);
    *out = d;
    return FEDFILE_OK;
}

int fedfile_key_ticks(fedfile_keys *k, const char *key, int opts, int64_t min_ticks, double *s,
                      int64_t *t, int *have)
{
    double d = 0;
    int got = 0, rc = fedfile_key_num(k, key, opts, &d, &got);
    if (have) *have = got;
    if (rc || !got) return rc;
    char p[FEDFILE_JPATH_LEN];
    path_of(k, key, p);
    int64_t ticks = 0;
    if ((rc = fedfile_to_ticks(k->rd, p, d, k->resolution, &ticks))) return rc;
    if (ticks < min_ticks)
        return fedfile_key_fail(k, key, "%g s is less than %lld tick%s", d, (long long)min_ticks,
                                min_ticks == 1 ? "" : "s");
    if (s) *s = d;
    if (t) *t = ticks;
    return FEDFILE_OK;
}

int fedfile_key_int(fedfile_keys *k, const char *key, long lo, long hi, const char *what, int *out)
{
    const json_t *v = fedfile_key_get(k, key);
    if (!v) return FEDFILE_OK;
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return fedfile_key_fail(k, key, "expected an integer %ld..%ld%s%s%s", lo, hi,
                                what ? " (" : "", what ? what : "", what ? ")" : "");
    *out = (int)json_integer_value(v);
    return FEDFILE_OK;
}

int fedfile_key_choice(fedfile_keys *k, const char *key, const char *const *names, int *out)
{
    const json_t *v = fedfile_key_get(k, key);
    if (!v) return FEDFILE_OK;
    for (int i = 0; json_is_string(v) && names[i]; i++)
        if (strcmp(names[i], json_string_value(v)) == 0) return *out = i, FEDFILE_OK;
    char list[256] = "";
    for (int i = 0; names[i]; i++) {
        size_t u = strlen(list);
        snprintf(list + u, sizeof list - u, "%s\"%s\"",
                 !i             ? ""
                 : names[i + 1] ? ", "
                                : " or ",
                 names[i]);
    }
    return fedfile_key_fail(k, key, "expected %s", list);
}

int fedfile_key_bool(fedfile_keys *k, const char *key, int *out)
{
    const json_t *v = fedfile_key_get(k, key);
    if (!v) return FEDFILE_OK;
    if (!json_is_boolean(v)) return fedfile_key_fail(k, key, "expected true or false");
    *out = json_is_true(v);
    return FEDFILE_OK;
}

int fedfile_key_object(fedfile_keys *k, const char *key, int opts, fedfile_keys *sub)
{
    const json_t *v = fedfile_key_get(k, key);
    *sub = (fedfile_keys){.rd = k->rd, .method = k->method, .resolution = k->resolution};
    path_of(k, key, sub->path);
    if (!v)
        return opts & FEDFILE_KEY_REQUIRED
                   ? fedfile_key_fail(k, key, "expected an object of settings (missing)")
                   : FEDFILE_OK;
    if (!json_is_object(v))
        return fedfile_key_fail(k, key, "expected an object, got %s", fedfile_json_kind(v));
    sub->obj = v;
    return FEDFILE_OK;
}

int fedfile_keys_done(const fedfile_keys *k)
{
    const char *key;
    json_t *v;
    if (!k->obj) return FEDFILE_OK;
    json_object_foreach((json_t *)k->obj, key, v)
    {
        size_t i = 0;
        while (i < k->n_asked && strcmp(k->asked[i], key) != 0)
            i++;
        if (i < k->n_asked) continue;
        char list[512] = "";
        for (size_t j = 0; j < k->n_asked; j++) {
            size_t u = strlen(list);
            snprintf(list + u, sizeof list - u, "%s%s", j ? ", " : "", k->asked[j]);
        }
        return fedfile_key_fail(k, key, "unknown key for method \"%s\" (it takes: %s)", k->method,
                                k->n_asked ? list : "no other key");
    }
    return FEDFILE_OK;
}

int fedfile_key_step(fedfile_keys *k, fedfile *ff)
{
    const json_t *sp = fedfile_key_get(k, "step");
    if (!sp)
        return fedfile_key_fail(k, "step", "missing (expected the macro step in seconds, > 0)");
    if (!json_is_number(sp))
        return fedfile_key_fail(k, "step", "expected a number of seconds > 0, got %s",
                                fedfile_json_kind(sp));
    double h = json_number_value(sp);
    if (!isfinite(h) || h <= 0)
        return fedfile_key_fail(k, "step", "expected a number of seconds > 0, got %g", h);
    return fedfile_key_ticks(k, "step", FEDFILE_KEY_REQUIRED, 1, &ff->algo.step, &ff->algo.t_step,
                             NULL);
}

int fedfile_key_extrapolation(fedfile_keys *k, fedfile *ff)
{
    const json_t *ex = fedfile_key_get(k, "extrapolation");
    if (ex && (!json_is_integer(ex) || json_integer_value(ex) < 0 || json_integer_value(ex) > 2))
        return fedfile_key_fail(k, "extrapolation",
                                "expected 0 (hold), 1 (linear) or 2 (quadratic)");
    ff->algo.extrapolation = ex ? (int)json_integer_value(ex) : 0;
    return FEDFILE_OK;
}
