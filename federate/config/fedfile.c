/* Federation file reader (federate/config/fedfile.h): JSON (jansson) -> plain C structs, with every
 * check that needs no FMU, the generated FOM, and the checks against a FOM and an FMU's
 * modelDescription. Schema and examples in doc/federation.md.
 * Divisions: errors and paths, small JSON readers, sections (rti, algorithm, solver, one
 * federate), cross-federate checks, load/free, FOM text, FOM and FMU checks.
 * Read tests/unit/fedfile_test.c next.
 */
#include "federate/config/fedfile.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "federate/config/fedfile_algo.h"
#include "federate/config/fedfile_impl.h"
#include "federate/config/fedfile_master.h"
#include "federate/config/ssp.h"
#include "federate/fmu/fmu_zip.h"
#include "fom/fom.h"

enum {
    NAME_MAX_LEN = 127, /* bytes of a federation or federate name: the RTI takes 1..127 */
    JPATH_LEN = 320,    /* bytes of a JSON path in messages */
};

/* Largest |seconds / resolution| accepted, so that every sum of two tick values fits int64. */
#define FEDFILE_MAX_TICKS 4.0e18
/* A time in seconds must be this close to a whole number of ticks (in ticks): absorbs the
 * rounding of the division, refuses genuine fractions such as 0.5 tick. */
#define FEDFILE_TICK_SLACK 1e-6

/* ======================================================================================
 * Errors and JSON paths
 * ====================================================================================== */

/* Load context: the file name for messages and the caller's error buffer (fedfile_impl.h). */
typedef fedfile_reader ld;

/* "FILE: JPATH: message". Returns FEDFILE_ESCHEMA so callers can `return fail(...)`. */
static int fail(const ld *c, const char *jpath, const char *fmt, ...)
{
    if (!c->err || c->errlen == 0) return FEDFILE_ESCHEMA;
    int n = snprintf(c->err, c->errlen, "%s: %s: ", c->file, jpath);
    if (n < 0 || (size_t)n >= c->errlen) return FEDFILE_ESCHEMA;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return FEDFILE_ESCHEMA;
}

static int oom(const ld *c)
{
    if (c->err && c->errlen) snprintf(c->err, c->errlen, "%s: out of memory", c->file);
    return FEDFILE_ENOMEM;
}

/* Child paths: base.key, base["key"] (for map keys that are user data), base[i]. A path
 * longer than JPATH_LEN is cut (the message stays readable; the check it reports is done). */
static void jp_done(char *out, int n)
{
    if (n < 0 || n >= JPATH_LEN) out[JPATH_LEN - 1] = '\0';
}
static void jp_key(char *out, const char *base, const char *key)
{
    jp_done(out, snprintf(out, JPATH_LEN, "%s%s%s", base, *base ? "." : "", key));
}
static void jp_map(char *out, const char *base, const char *key)
{
    jp_done(out, snprintf(out, JPATH_LEN, "%s[\"%.100s\"]", base, key));
}
static void jp_idx(char *out, const char *base, size_t i)
{
    jp_done(out, snprintf(out, JPATH_LEN, "%s[%zu]", base, i));
}

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        return "null";
    }
    return "?";
}

int fedfile_fail(const ld *c, const char *jpath, const char *fmt, ...)
{
    char msg[FEDFILE_ERRLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fail(c, jpath, "%s", msg);
}

/* ======================================================================================
 * Small JSON readers. Each returns FEDFILE_OK or fails with the path and the expectation.
 * ====================================================================================== */

/* Refuse keys not in `allowed` (NULL-terminated), so that a typo never passes silently. */
static int only_keys(const ld *c, const json_t *obj, const char *jpath, const char *const *allowed)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v)
    {
        int ok = 0;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = strcmp(*a, key) == 0;
        if (!ok) {
            char list[256] = "";
            for (const char *const *a = allowed; *a; a++) {
                size_t u = strlen(list);
                snprintf(list + u, sizeof list - u, "%s%s", a == allowed ? "" : ", ", *a);
            }
            char p[JPATH_LEN];
            jp_key(p, jpath, key);
            return fail(c, p, "unknown key (expected one of: %s)", list);
        }
    }
    return FEDFILE_OK;
}

/* Optional string; *out is a malloc'd copy or stays NULL when absent. */
static int get_str(const ld *c, const json_t *obj, const char *base, const char *key, int required,
                   char **out)
{
    char p[JPATH_LEN];
    jp_key(p, base, key);
    json_t *v = json_object_get(obj, key);
    if (!v) return required ? fail(c, p, "missing (expected a string)") : FEDFILE_OK;
    if (!json_is_string(v)) return fail(c, p, "expected a string, got %s", json_kind(v));
    if (json_string_length(v) == 0) return fail(c, p, "expected a non-empty string");
    if (strlen(json_string_value(v)) != json_string_length(v))
        return fail(c, p, "the string contains a NUL character");
    *out = strdup(json_string_value(v));
    return *out ? FEDFILE_OK : oom(c);
}

/* Optional number (integer or real) > 0 (or >= 0 when zero_ok); *have says if present. */
static int get_num(const ld *c, const json_t *obj, const char *base, const char *key, int zero_ok,
                   double *out, int *have)
{
    char p[JPATH_LEN];
    jp_key(p, base, key);
    json_t *v = json_object_get(obj, key);
    *have = v != NULL;
    if (!v) return FEDFILE_OK;
    if (!json_is_number(v)) return fail(c, p, "expected a number, got %s", json_kind(v));
    double d = json_number_value(v);
    if (!isfinite(d) || (zero_ok ? d < 0 : d <= 0))
        return fail(c, p, "expected a number %s 0, got %g", zero_ok ? ">=" : ">", d);
    *out = d;
    return FEDFILE_OK;
}

/* Seconds -> ticks, refusing values that are not whole ticks or are too large. */
static int to_ticks(const ld *c, const char *base, const char *key, double s, double res,
                    int64_t *out)
{
    char p[JPATH_LEN];
    jp_key(p, base, key);
    double x = s / res;
    if (!isfinite(x) || fabs(x) > FEDFILE_MAX_TICKS)
        return fail(c, p, "%g s is out of range for a resolution of %g s per tick", s, res);
    double r = nearbyint(x);
    double slack = FEDFILE_TICK_SLACK > fabs(x) * 1e-12 ? FEDFILE_TICK_SLACK : fabs(x) * 1e-12;
    if (fabs(x - r) > slack)
        return fail(c, p, "%g s is not a whole number of ticks (resolution %g s per tick)", s, res);
    *out = (int64_t)r;
    return FEDFILE_OK;
}

int fedfile_oom(const ld *c)
{
    return oom(c);
}

const char *fedfile_json_kind(const json_t *v)
{
    return json_kind(v);
}

int fedfile_to_ticks(const ld *c, const char *jpath, double s, double res, int64_t *out)
{
    return to_ticks(c, "", jpath, s, res, out);
}

/* Names of federations and federates become file names (CSV) and FOM names: letters,
 * digits, '_' and '-', starting with a letter or '_'. */
static int check_name(const ld *c, const char *jpath, const char *s)
{
    size_t n = strlen(s);
    int ok = n > 0 && n <= NAME_MAX_LEN && (isalpha((unsigned char)s[0]) || s[0] == '_');
    for (size_t i = 1; ok && i < n; i++)
        ok = isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '-';
    if (!ok)
        return fail(c, jpath,
                    "\"%.64s\" is not a valid name (letters, digits, '_' or '-', starting with a "
                    "letter or '_', at most %d bytes)",
                    s, NAME_MAX_LEN);
    return FEDFILE_OK;
}

/* FOM identifier: [A-Za-z_][A-Za-z0-9_]* (fom/fom.c's rule). */
static int is_ident(const char *s, size_t n)
{
    if (n == 0 || n > 256 || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return 0;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return 0;
    return 1;
}

/* "Class.attribute", split at the last dot; the class may be qualified ("Root.Sub"). */
static int parse_cls_attr(const ld *c, const char *jpath, const json_t *v, fedfile_wire *w)
{
    if (!json_is_string(v))
        return fail(c, jpath, "expected a string \"Class.attribute\", got %s", json_kind(v));
    const char *s = json_string_value(v);
    const char *dot = strrchr(s, '.');
    int ok = dot != NULL && is_ident(dot + 1, strlen(dot + 1));
    /* every dot-separated segment of the class is an identifier (so no empty one) */
    for (const char *seg = s; ok;) {
        const char *e = memchr(seg, '.', (size_t)(dot - seg));
        if (!e) e = dot;
        ok = is_ident(seg, (size_t)(e - seg));
        if (e == dot) break;
        seg = e + 1;
    }
    if (!ok)
        return fail(c, jpath,
                    "\"%.64s\" is not \"Class.attribute\" (identifiers: letters, digits, '_')", s);
    w->cls = strndup(s, (size_t)(dot - s));
    w->attr = strdup(dot + 1);
    return w->cls && w->attr ? FEDFILE_OK : oom(c);
}

/* ======================================================================================
 * Sections
 * ====================================================================================== */

/* "rti": "HOST:PORT", "[V6ADDR]:PORT" or "unix:PATH". */
static int parse_rti(const ld *c, const json_t *root, fedfile *ff)
{
    json_t *v = json_object_get(root, "rti");
    if (!v) {
        ff->rti_host = strdup("127.0.0.1");
        return ff->rti_host ? FEDFILE_OK : oom(c);
    }
    if (!json_is_string(v))
        return fail(c, "rti", "expected a string \"HOST:PORT\" or \"unix:PATH\", got %s",
                    json_kind(v));
    const char *s = json_string_value(v);
    if (strncmp(s, "unix:", 5) == 0) {
        if (s[5] == '\0') return fail(c, "rti", "\"unix:\" needs a socket path");
        ff->rti_unix = strdup(s + 5);
        return ff->rti_unix ? FEDFILE_OK : oom(c);
    }
    const char *colon, *hs = s, *he;
    if (s[0] == '[') {
        he = strchr(s, ']');
        if (!he || he[1] != ':') return fail(c, "rti", "\"%.64s\": expected \"[ADDRESS]:PORT\"", s);
        hs = s + 1;
        colon = he + 1;
    } else {
        colon = strrchr(s, ':');
        he = colon;
    }
    if (!colon || he == hs)
        return fail(c, "rti", "\"%.64s\": expected \"HOST:PORT\" or \"unix:PATH\"", s);
    char *end = NULL;
    errno = 0;
    long port = strtol(colon + 1, &end, 10);
    if (colon[1] == '\0' || *end != '\0' || errno || port < 1 || port > 65535 ||
        !isdigit((unsigned char)colon[1]))
        return fail(c, "rti", "\"%.64s\": the port must be a number 1..65535", s);
    ff->rti_host = strndup(hs, (size_t)(he - hs));
    ff->rti_port = (int)port;
    return ff->rti_host ? FEDFILE_OK : oom(c);
}

/* "algorithm": "method", "start", "end" and, for a master method, "reply_timeout"; then the
 * method's own keys, read by its parser (federate/config/fedfile_algo.h), and every other key
 * refused naming the method. Times in seconds, converted to ticks of ff->resolution. */
static int parse_algorithm(const ld *c, const json_t *root, fedfile *ff)
{
    fedfile_algo *al = &ff->algo;
    json_t *a = json_object_get(root, "algorithm");
    if (!a) return fail(c, "algorithm", "missing (expected an object with method, end, ...)");
    if (!json_is_object(a)) return fail(c, "algorithm", "expected an object, got %s", json_kind(a));
    json_t *m = json_object_get(a, "method");
    const fedfile_algo_def *def =
        m && json_is_string(m) ? fedfile_algo_by_name(json_string_value(m)) : NULL;
    /* The names the table knows, in its order: "\"jacobi-naive\", \"jacobi\", ...". */
    char names[512] = "";
    size_t n_algs = 0;
    const fedfile_algo_def *const *algs = fedfile_algos(&n_algs);
    for (size_t i = 0; i < n_algs; i++) {
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s\"%s\"", i ? ", " : "", algs[i]->name);
    }
    if (!m || !json_is_string(m))
        return fail(c, "algorithm.method", "expected one of %s%s", names, m ? "" : " (missing)");
    if (!def)
        return fail(c, "algorithm.method", "\"%.64s\" is not one of %s", json_string_value(m),
                    names);
    al->def = def;
    al->needs = def->needs;
    fedfile_keys k = {
        .rd = c, .obj = a, .path = "algorithm", .method = def->name, .resolution = ff->resolution};
    fedfile_key_get(&k, "method");
    json_t *st = (json_t *)fedfile_key_get(&k, "start");
    /* Logical time starts at 0 at join (doc/time.md), so a run cannot start before it. */
    if (st &&
        (!json_is_number(st) || !isfinite(json_number_value(st)) || json_number_value(st) < 0))
        return fail(c, "algorithm.start", "expected a number of seconds >= 0");
    al->start = st ? json_number_value(st) : 0.0;
    json_t *en = (json_t *)fedfile_key_get(&k, "end");
    if (!en || !json_is_number(en) || !isfinite(json_number_value(en)))
        return fail(c, "algorithm.end", "expected a number of seconds > start%s",
                    en ? "" : " (missing)");
    al->end = json_number_value(en);
    if (!(al->end > al->start))
        return fail(c, "algorithm.end", "end %g must be > start %g", al->end, al->start);
    int rc;
    if ((rc = to_ticks(c, "algorithm", "start", al->start, ff->resolution, &al->t_start)) ||
        (rc = to_ticks(c, "algorithm", "end", al->end, ff->resolution, &al->t_end)))
        return rc;
    if (al->t_end <= al->t_start)
        return fail(c, "algorithm.end", "end %g s and start %g s are the same tick", al->end,
                    al->start);
    if (def->side == FEDFILE_SIDE_MASTER) { /* tempo-master's (doc/master.md) */
        json_t *rt = (json_t *)fedfile_key_get(&k, "reply_timeout");
        if (rt && (!json_is_number(rt) || !(json_number_value(rt) >= 0.001) ||
                   json_number_value(rt) > 86400))
            return fail(c, "algorithm.reply_timeout", "expected seconds, 0.001 to 86400");
        al->reply_timeout = rt ? json_number_value(rt) : 0.0;
    }
    if (def->parse && (rc = def->parse(&k, ff, &al->settings))) return rc;
    return fedfile_keys_done(&k);
}

/* "solver": {"method": "bdf"|"adams", "rtol", "atol", "max_step"}; fields given here
 * override those already in *s (the file-level defaults). */
static int parse_solver(const ld *c, const json_t *obj, const char *base, fedfile_solver *s)
{
    static const char *const keys[] = {"method", "rtol", "atol", "max_step", NULL};
    char p[JPATH_LEN], pm[JPATH_LEN];
    jp_key(p, base, "solver");
    json_t *v = json_object_get(obj, "solver");
    if (!v) return FEDFILE_OK;
    if (!json_is_object(v)) return fail(c, p, "expected an object, got %s", json_kind(v));
    int rc = only_keys(c, v, p, keys), have = 0;
    if (rc) return rc;
    json_t *m = json_object_get(v, "method");
    if (m) {
        jp_key(pm, p, "method");
        const char *ms = json_is_string(m) ? json_string_value(m) : "";
        if (strcmp(ms, "bdf") == 0)
            s->method = FEDFILE_METHOD_BDF;
        else if (strcmp(ms, "adams") == 0)
            s->method = FEDFILE_METHOD_ADAMS;
        else
            return fail(c, pm, "expected \"bdf\" or \"adams\"");
    }
    double d = 0;
    if ((rc = get_num(c, v, p, "rtol", 0, &d, &have))) return rc;
    if (have) s->rtol = d;
    if ((rc = get_num(c, v, p, "atol", 0, &d, &have))) return rc;
    if (have) s->atol = d;
    if ((rc = get_num(c, v, p, "max_step", 0, &d, &have))) return rc;
    if (have) s->max_step = d;
    return FEDFILE_OK;
}

/* Resolve a path from the file against its folder. */
static char *resolve(const char *dir, const char *p)
{
    if (p[0] == '/') return strdup(p);
    size_t n = strlen(dir) + strlen(p) + 2;
    char *r = malloc(n);
    if (r) snprintf(r, n, "%s/%s", dir, p);
    return r;
}

/* "parameters": {"name": number | integer | true/false | "string"}. */
static int parse_params(const ld *c, const json_t *fo, const char *base, fedfile_fed *fd)
{
    char p[JPATH_LEN], pk[JPATH_LEN];
    jp_key(p, base, "parameters");
    json_t *v = json_object_get(fo, "parameters");
    if (!v) return FEDFILE_OK;
    if (!json_is_object(v))
        return fail(c, p, "expected an object {\"name\": value}, got %s", json_kind(v));
    fd->params = calloc(json_object_size(v) + 1, sizeof *fd->params);
    if (!fd->params) return oom(c);
    const char *key;
    json_t *x;
    json_object_foreach(v, key, x)
    {
        fedfile_param *pa = &fd->params[fd->n_params];
        jp_map(pk, p, key);
        if (key[0] == '\0') return fail(c, pk, "empty parameter name");
        if (!(pa->name = strdup(key))) return oom(c);
        fd->n_params++; /* counted now so that fedfile_free releases it on any later error */
        if (json_is_integer(x)) {
            pa->kind = FEDFILE_INTEGER;
            pa->integer = json_integer_value(x);
            pa->real = (double)pa->integer;
        } else if (json_is_real(x)) {
            pa->kind = FEDFILE_REAL;
            pa->real = json_real_value(x);
        } else if (json_is_boolean(x)) {
            pa->kind = FEDFILE_BOOLEAN;
            pa->integer = json_is_true(x);
        } else if (json_is_string(x)) {
            pa->kind = FEDFILE_STRING;
            if (!(pa->string = strdup(json_string_value(x)))) return oom(c);
        } else {
            return fail(c, pk, "expected a number, boolean or string, got %s", json_kind(x));
        }
    }
    return FEDFILE_OK;
}

/* "outputs" / "inputs": {"variable": "Class.attribute"}. Duplicate keys were refused by the
 * JSON reader (JSON_REJECT_DUPLICATES), so an input cannot be wired twice. */
static int parse_wires(const ld *c, const json_t *fo, const char *base, const char *key,
                       fedfile_wire **out, size_t *n)
{
    char p[JPATH_LEN], pk[JPATH_LEN];
    jp_key(p, base, key);
    json_t *v = json_object_get(fo, key);
    if (!v) return FEDFILE_OK;
    if (!json_is_object(v))
        return fail(c, p, "expected an object {\"variable\": \"Class.attribute\"}, got %s",
                    json_kind(v));
    *out = calloc(json_object_size(v) + 1, sizeof **out);
    if (!*out) return oom(c);
    const char *var;
    json_t *x;
    json_object_foreach(v, var, x)
    {
        fedfile_wire *w = &(*out)[*n];
        w->source = -1;
        w->factor = 1;
        jp_map(pk, p, var);
        if (var[0] == '\0') return fail(c, pk, "empty variable name");
        int rc = parse_cls_attr(c, pk, x, w);
        (*n)++; /* count it now so that fedfile_free releases what was allocated */
        if (rc) return rc;
        if (!(w->var = strdup(var))) return oom(c);
    }
    return FEDFILE_OK;
}

/* "quantum": {"output": q} (the methods with FEDFILE_NEEDS_QUANTA); each variable must be one
 * of the outputs. */
static int parse_quanta(const ld *c, const json_t *fo, const char *base, const fedfile *ff,
                        fedfile_fed *fd)
{
    char p[JPATH_LEN], pk[JPATH_LEN];
    jp_key(p, base, "quantum");
    json_t *v = json_object_get(fo, "quantum");
    if (!v) return FEDFILE_OK;
    if (!(ff->algo.needs & FEDFILE_NEEDS_QUANTA))
        return fail(c, p, "method \"%s\" takes no quanta", fedfile_method_name(ff));
    if (!json_is_object(v))
        return fail(c, p, "expected an object {\"output\": quantum}, got %s", json_kind(v));
    fd->quanta = calloc(json_object_size(v) + 1, sizeof *fd->quanta);
    if (!fd->quanta) return oom(c);
    const char *var;
    json_t *x;
    json_object_foreach(v, var, x)
    {
        jp_map(pk, p, var);
        int is_out = 0;
        for (size_t i = 0; i < fd->n_outputs && !is_out; i++)
            is_out = strcmp(fd->outputs[i].var, var) == 0;
        if (!is_out) return fail(c, pk, "\"%.64s\" is not one of this federate's outputs", var);
        if (!json_is_number(x) || !(json_number_value(x) > 0) || !isfinite(json_number_value(x)))
            return fail(c, pk, "expected a number > 0");
        fedfile_quantum *q = &fd->quanta[fd->n_quanta];
        if (!(q->var = strdup(var))) return oom(c);
        q->q = json_number_value(x);
        fd->n_quanta++;
    }
    return FEDFILE_OK;
}

/* "transform": {"input": {"factor": f, "offset": o}}: the FMU input is set to f * value + o,
 * a linear transformation or unit conversion of the connection (doc/federation.md, "Input
 * transformations"; an SSP's ssc:LinearTransformation, doc/ssp.md). The input must be wired. */
static int parse_transform(const ld *c, const json_t *fo, const char *base, fedfile_fed *fd)
{
    static const char *const keys[] = {"factor", "offset", "map", NULL};
    char p[JPATH_LEN], pk[JPATH_LEN], px[JPATH_LEN], pi[JPATH_LEN];
    jp_key(p, base, "transform");
    json_t *v = json_object_get(fo, "transform");
    if (!v) return FEDFILE_OK;
    if (!json_is_object(v))
        return fail(c, p, "expected an object {\"input\": {\"factor\": f, \"offset\": o}}, got %s",
                    json_kind(v));
    const char *var;
    json_t *x;
    json_object_foreach(v, var, x)
    {
        jp_map(pk, p, var);
        fedfile_wire *w = NULL;
        for (size_t i = 0; i < fd->n_inputs && !w; i++)
            if (strcmp(fd->inputs[i].var, var) == 0) w = &fd->inputs[i];
        if (!w) return fail(c, pk, "\"%.64s\" is not one of this federate's inputs", var);
        if (!json_is_object(x))
            return fail(c, pk, "expected an object {\"factor\": f, \"offset\": o}, got %s",
                        json_kind(x));
        int rc = only_keys(c, x, pk, keys);
        if (rc) return rc;
        w->transformed = 1;
        for (int k = 0; k < 2; k++) {
            json_t *n = json_object_get(x, keys[k]);
            if (!n) continue;
            jp_key(px, pk, keys[k]);
            double d = json_number_value(n);
            if (!json_is_number(n) || !isfinite(d) || (k == 0 && d == 0))
                return fail(c, px,
                            k == 0 ? "expected a finite number other than 0"
                                   : "expected a finite number");
            *(k == 0 ? &w->factor : &w->offset) = d;
        }
        /* "map": [[from, to], ...]: whole numbers (fedfile_check_fmu: a whole-number input) */
        json_t *m = json_object_get(x, "map");
        if (!m) continue;
        jp_key(px, pk, "map");
        if (!json_is_array(m) || !json_array_size(m))
            return fail(c, px, "expected a non-empty array of [from, to] integer pairs");
        if (!(w->map = calloc(2 * json_array_size(m), sizeof *w->map))) return oom(c);
        for (size_t i = 0; i < json_array_size(m); i++) {
            json_t *e = json_array_get(m, i);
            jp_idx(pi, px, i);
            if (!json_is_array(e) || json_array_size(e) != 2 ||
                !json_is_integer(json_array_get(e, 0)) || !json_is_integer(json_array_get(e, 1)))
                return fail(c, pi, "expected a pair [from, to] of integers");
            w->map[2 * i] = json_integer_value(json_array_get(e, 0));
            w->map[2 * i + 1] = json_integer_value(json_array_get(e, 1));
            for (size_t j = 0; j < i; j++)
                if (w->map[2 * j] == w->map[2 * i])
                    return fail(c, pi, "%lld is mapped twice", w->map[2 * i]);
            w->n_map++;
        }
    }
    return FEDFILE_OK;
}

/* "record": ["variable", ...]; default: the outputs. */
static int parse_record(const ld *c, const json_t *fo, const char *base, fedfile_fed *fd)
{
    char p[JPATH_LEN], pi[JPATH_LEN];
    jp_key(p, base, "record");
    json_t *v = json_object_get(fo, "record");
    if (v && !json_is_array(v))
        return fail(c, p, "expected an array of variable names, got %s", json_kind(v));
    size_t n = v ? json_array_size(v) : fd->n_outputs;
    fd->record_none = v && n == 0; /* doc/federation.md "Recording less" */
    fd->record = calloc(n + 1, sizeof *fd->record);
    if (!fd->record) return oom(c);
    for (size_t i = 0; i < n; i++) {
        const char *name;
        if (v) {
            json_t *x = json_array_get(v, i);
            jp_idx(pi, p, i);
            if (!json_is_string(x) || json_string_length(x) == 0)
                return fail(c, pi, "expected a variable name (a non-empty string)");
            name = json_string_value(x);
            for (size_t j = 0; j < fd->n_record; j++)
                if (strcmp(fd->record[j], name) == 0)
                    return fail(c, pi, "\"%.64s\" is listed twice", name);
        } else {
            name = fd->outputs[i].var;
        }
        if (!(fd->record[fd->n_record] = strdup(name))) return oom(c);
        fd->n_record++;
    }
    return FEDFILE_OK;
}

/* The roles a federate may be given, named by topo_role_name. */
static const topo_role ROLES[] = {TOPO_ROLE_SOURCE, TOPO_ROLE_COMMON, TOPO_ROLE_SINK};

/* The methods a program federate may join (FEDFILE_NEEDS_PROGRAMS, or a master method): it
 * follows the method's time advance itself, which is documented for the peer methods whose every
 * federate acts alone (doc/federation.md, "Program federates"), or it is a slave of a master
 * method, answering the commands of doc/master.md (a model in Python: doc/python.md);
 * Gauss-Seidel's token is not documented. */
static int program_allowed(const fedfile *ff)
{
    return (ff->algo.needs & FEDFILE_NEEDS_PROGRAMS) || fedfile_is_master(ff);
}

/* The names of the methods whose value needs `need`, in table order, for messages:
 * "\"jacobi-naive\", \"jacobi\", \"jacobi-de\"" (FEDFILE_NEEDS_PROGRAMS). */
static void methods_needing(unsigned need, char *out, size_t len)
{
    size_t n = 0, k = 0;
    const fedfile_algo_def *const *all = fedfile_algos(&n);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (!(all[i]->needs & need)) continue;
        size_t u = strlen(out);
        snprintf(out + u, len - u, "%s\"%s\"", k++ ? ", " : "", all[i]->name);
    }
}

/* A custom federate: "program" (an executable, resolved like "fmu"), optional "args" (strings)
 * and its wiring; the FMU keys do not apply to it. */
static int parse_program(const ld *c, const json_t *fo, const char *base, fedfile *ff,
                         fedfile_fed *fd)
{
    static const char *const fmu_only[] = {"role",   "parameters", "solver", "quantum",
                                           "record", "transform",  NULL};
    char p[JPATH_LEN], pi[JPATH_LEN];
    for (size_t i = 0; fmu_only[i]; i++)
        if (json_object_get(fo, fmu_only[i])) {
            jp_key(p, base, fmu_only[i]);
            return fail(c, p, "applies to an \"fmu\" federate only (a program takes \"args\")");
        }
    jp_key(p, base, "program");
    if (!program_allowed(ff)) {
        char methods[256];
        methods_needing(FEDFILE_NEEDS_PROGRAMS, methods, sizeof methods);
        return fail(c, p, "a program federate needs method %s or a master method (not \"%s\")",
                    methods, fedfile_method_name(ff));
    }
    char *prog = NULL;
    int rc = get_str(c, fo, base, "program", 1, &prog);
    if (rc) return rc;
    fd->program = resolve(ff->dir, prog);
    free(prog);
    if (!fd->program) return oom(c);
    struct stat sb;
    if (stat(fd->program, &sb) != 0) return fail(c, p, "\"%s\": %s", fd->program, strerror(errno));
    if (!S_ISREG(sb.st_mode) || access(fd->program, X_OK) != 0)
        return fail(c, p, "\"%s\" is not an executable file", fd->program);
    json_t *a = json_object_get(fo, "args");
    jp_key(p, base, "args");
    if (a && !json_is_array(a))
        return fail(c, p, "expected an array of strings, got %s", json_kind(a));
    size_t n = a ? json_array_size(a) : 0;
    if (!(fd->args = calloc(n + 1, sizeof *fd->args))) return oom(c);
    for (size_t i = 0; i < n; i++) {
        json_t *x = json_array_get(a, i);
        jp_idx(pi, p, i);
        if (!json_is_string(x)) return fail(c, pi, "expected a string, got %s", json_kind(x));
        if (!(fd->args[i] = strdup(json_string_value(x)))) return oom(c);
        fd->n_args++;
    }
    if ((rc = parse_wires(c, fo, base, "outputs", &fd->outputs, &fd->n_outputs)) ||
        (rc = parse_wires(c, fo, base, "inputs", &fd->inputs, &fd->n_inputs)))
        return rc;
    return parse_record(c, fo, base, fd);
}

/* "role": gauss-seidel's source, common or sink (doc/algorithms/gauss-seidel.md). */
static int parse_role(const ld *c, const json_t *fo, const char *base, const fedfile *ff,
                      fedfile_fed *fd)
{
    char p[JPATH_LEN], *role = NULL;
    int rc = get_str(c, fo, base, "role", 0, &role);
    if (rc || !role) return rc;
    jp_key(p, base, "role");
    for (size_t i = 0; i < sizeof ROLES / sizeof ROLES[0]; i++)
        if (strcmp(topo_role_name(ROLES[i]), role) == 0) fd->role = ROLES[i];
    int known = fd->role != TOPO_ROLE_AUTO;
    free(role);
    if (!known) return fail(c, p, "expected \"source\", \"common\" or \"sink\"");
    if (!(ff->algo.needs & FEDFILE_NEEDS_GS_PLAN)) {
        char methods[256];
        methods_needing(FEDFILE_NEEDS_GS_PLAN, methods, sizeof methods);
        return fail(c, p, "method \"%s\" takes no roles (only %s)", fedfile_method_name(ff),
                    methods);
    }
    return FEDFILE_OK;
}

/* A model in Python: "python": "module:Class" (or "FILE.py:Class"), its "parameters" and
 * wiring. It is a program federate run by FEDFILE_PYTHON_RUNNER, so it goes where a program
 * federate goes (program_allowed), and under gauss-seidel too: tempo-slave follows that
 * method's token (python/tempo/slave.py run_peer) with the role tempo-run gives it. */
static int parse_python(const ld *c, const json_t *fo, const char *base, fedfile *ff,
                        fedfile_fed *fd)
{
    static const char *const other[] = {"fmu", "program", "args", "solver", NULL};
    char p[JPATH_LEN];
    for (size_t i = 0; other[i]; i++)
        if (json_object_get(fo, other[i])) {
            jp_key(p, base, other[i]);
            return fail(c, p, "does not apply to a \"python\" federate");
        }
    jp_key(p, base, "python");
    if (!program_allowed(ff) && !(ff->algo.needs & FEDFILE_NEEDS_GS_PLAN)) {
        char methods[256];
        methods_needing(FEDFILE_NEEDS_PROGRAMS, methods, sizeof methods);
        return fail(c, p,
                    "a Python model needs method %s, \"gauss-seidel\" or a master method (not "
                    "\"%s\")",
                    methods, fedfile_method_name(ff));
    }
    int rc = get_str(c, fo, base, "python", 1, &fd->python);
    if (rc) return rc;
    const char *colon = strrchr(fd->python, ':');
    if (!colon || colon == fd->python || !colon[1])
        return fail(c, p, "\"%s\": expected \"module:Class\" or \"FILE.py:Class\"", fd->python);
    if (!(fd->program = strdup(FEDFILE_PYTHON_RUNNER)) || !(fd->args = calloc(1, sizeof *fd->args)))
        return oom(c);
    if ((rc = parse_role(c, fo, base, ff, fd)) || (rc = parse_params(c, fo, base, fd)) ||
        (rc = parse_wires(c, fo, base, "outputs", &fd->outputs, &fd->n_outputs)) ||
        (rc = parse_wires(c, fo, base, "inputs", &fd->inputs, &fd->n_inputs)) ||
        (rc = parse_quanta(c, fo, base, ff, fd)))
        return rc;
    return parse_record(c, fo, base, fd);
}

/* One element of "federates". */
static int parse_fed(const ld *c, const json_t *fo, size_t idx, fedfile *ff, fedfile_fed *fd,
                     const fedfile_solver *defaults)
{
    static const char *const keys[] = {
        "name",   "fmu",    "program", "args",   "description", "role",   "parameters", "outputs",
        "inputs", "solver", "quantum", "record", "transform",   "python", NULL};
    char base[JPATH_LEN], p[JPATH_LEN];
    jp_idx(base, "federates", idx);
    if (!json_is_object(fo)) return fail(c, base, "expected an object, got %s", json_kind(fo));
    int rc = only_keys(c, fo, base, keys);
    if (rc) return rc;
    char *desc = NULL, *fmu = NULL;
    if ((rc = get_str(c, fo, base, "name", 1, &fd->name))) return rc;
    jp_key(p, base, "name");
    if ((rc = check_name(c, p, fd->name))) return rc;
    if ((rc = get_str(c, fo, base, "description", 0, &desc))) return rc;
    free(desc);
    if (json_object_get(fo, "python")) return parse_python(c, fo, base, ff, fd);
    if ((rc = get_str(c, fo, base, "fmu", 0, &fmu))) return rc;
    if (!fmu) {
        if (json_object_get(fo, "program")) return parse_program(c, fo, base, ff, fd);
        return fail(c, base,
                    "missing \"fmu\" (or \"program\" for a custom federate, \"python\" for a "
                    "model in Python)");
    }
    if (json_object_get(fo, "program") || json_object_get(fo, "args")) {
        free(fmu);
        int prog = json_object_get(fo, "program") != NULL;
        jp_key(p, base, prog ? "program" : "args");
        return fail(c, p,
                    prog ? "a federate is an \"fmu\" or a \"program\", not both"
                         : "applies to a \"program\" federate only");
    }
    fd->fmu = resolve(ff->dir, fmu);
    free(fmu);
    if (!fd->fmu) return oom(c);
    struct stat sb;
    jp_key(p, base, "fmu");
    if (stat(fd->fmu, &sb) != 0) return fail(c, p, "\"%s\": %s", fd->fmu, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return fail(c, p, "\"%s\" is not a regular file (expected an .fmu zip file)", fd->fmu);
    if ((rc = parse_role(c, fo, base, ff, fd))) return rc;
    fd->solver = *defaults;
    if ((rc = parse_params(c, fo, base, fd)) ||
        (rc = parse_wires(c, fo, base, "outputs", &fd->outputs, &fd->n_outputs)) ||
        (rc = parse_wires(c, fo, base, "inputs", &fd->inputs, &fd->n_inputs)) ||
        (rc = parse_solver(c, fo, base, &fd->solver)) || (rc = parse_quanta(c, fo, base, ff, fd)) ||
        (rc = parse_transform(c, fo, base, fd)) || (rc = parse_record(c, fo, base, fd)))
        return rc;
    /* the same output variable may feed one attribute only (JSON keys are unique); the same
     * attribute fed by two outputs of this federate is caught by check_publishers. */
    return FEDFILE_OK;
}

/* ======================================================================================
 * Cross-federate checks. O(W^2) over all wires W: federation files are small.
 * ====================================================================================== */

static int same_attr(const fedfile_wire *a, const fedfile_wire *b)
{
    return strcmp(a->cls, b->cls) == 0 && strcmp(a->attr, b->attr) == 0;
}

/* Unique federate names; each attribute published once; each class by one federate. */
static int check_publishers(const ld *c, fedfile *ff)
{
    char p[JPATH_LEN], q[JPATH_LEN], b[JPATH_LEN];
    for (size_t i = 0; i < ff->n_feds; i++) {
        for (size_t j = 0; j < i; j++) {
            if (strcmp(ff->feds[i].name, ff->feds[j].name) == 0) {
                jp_idx(b, "federates", i);
                jp_key(p, b, "name");
                return fail(c, p, "federate name \"%s\" is already used by federates[%zu]",
                            ff->feds[i].name, j);
            }
        }
    }
    for (size_t i = 0; i < ff->n_feds; i++) {
        for (size_t k = 0; k < ff->feds[i].n_outputs; k++) {
            const fedfile_wire *w = &ff->feds[i].outputs[k];
            jp_idx(b, "federates", i);
            jp_key(q, b, "outputs");
            jp_map(p, q, w->var);
            for (size_t j = 0; j <= i; j++) {
                size_t kmax = j == i ? k : ff->feds[j].n_outputs;
                for (size_t m = 0; m < kmax; m++) {
                    const fedfile_wire *o = &ff->feds[j].outputs[m];
                    if (same_attr(w, o))
                        return fail(c, p,
                                    "attribute \"%s.%s\" is published twice (also by federate "
                                    "\"%s\", output \"%s\")",
                                    w->cls, w->attr, ff->feds[j].name, o->var);
                    if (j != i && strcmp(w->cls, o->cls) == 0)
                        return fail(c, p,
                                    "class \"%s\" is already published by federate \"%s\"; each "
                                    "federate publishes its own class",
                                    w->cls, ff->feds[j].name);
                }
            }
        }
    }
    return FEDFILE_OK;
}

/* Every input names an attribute some federate publishes; remember which. */
static int link_inputs(const ld *c, fedfile *ff)
{
    char p[JPATH_LEN], q[JPATH_LEN], b[JPATH_LEN];
    for (size_t i = 0; i < ff->n_feds; i++) {
        for (size_t k = 0; k < ff->feds[i].n_inputs; k++) {
            fedfile_wire *w = &ff->feds[i].inputs[k];
            for (size_t j = 0; j < ff->n_feds && w->source < 0; j++)
                for (size_t m = 0; m < ff->feds[j].n_outputs && w->source < 0; m++)
                    if (same_attr(w, &ff->feds[j].outputs[m])) w->source = (int)j;
            if (w->source >= 0) continue;
            jp_idx(b, "federates", i);
            jp_key(q, b, "inputs");
            jp_map(p, q, w->var);
            const char *owner = NULL;
            for (size_t j = 0; j < ff->n_feds && !owner; j++)
                for (size_t m = 0; m < ff->feds[j].n_outputs && !owner; m++)
                    if (strcmp(ff->feds[j].outputs[m].cls, w->cls) == 0) owner = ff->feds[j].name;
            if (owner)
                return fail(c, p,
                            "no federate publishes \"%s.%s\" (class \"%s\" is published by "
                            "federate \"%s\", without that attribute)",
                            w->cls, w->attr, w->cls, owner);
            return fail(c, p,
                        "no federate publishes \"%s.%s\" (no federate publishes class "
                        "\"%s\")",
                        w->cls, w->attr, w->cls);
        }
    }
    return FEDFILE_OK;
}

/* Gauss-Seidel: run the topology check of algorithms/topology.c on the wiring graph. */
static int plan_gauss_seidel(const ld *c, fedfile *ff)
{
    size_t ne = 0;
    for (size_t i = 0; i < ff->n_feds; i++)
        ne += ff->feds[i].n_inputs;
    if (ff->n_feds > INT_MAX / 2 || ne > INT_MAX / 2)
        return fail(c, "federates", "too many federates or connections");
    const char **names = calloc(ff->n_feds, sizeof *names);
    topo_role *roles = calloc(ff->n_feds, sizeof *roles);
    topo_edge *edges = calloc(ne + 1, sizeof *edges);
    if (!names || !roles || !edges) {
        free(names), free(roles), free(edges);
        return oom(c);
    }
    size_t e = 0;
    for (size_t i = 0; i < ff->n_feds; i++) {
        names[i] = ff->feds[i].name;
        roles[i] = ff->feds[i].role;
        for (size_t k = 0; k < ff->feds[i].n_inputs; k++)
            edges[e++] = (topo_edge){ff->feds[i].inputs[k].source, (int)i};
    }
    topo_graph g = {(int)ff->n_feds, names, (int)ne, edges, roles};
    char why[FEDFILE_ERRLEN / 2];
    int rc = topo_gs_plan(&g, &ff->gs_plan, why, sizeof why);
    free(names), free(roles), free(edges);
    if (rc == TOPO_ENOMEM) return oom(c);
    if (rc != TOPO_OK)
        return fail(
            c, "algorithm.method",
            "\"%s\" cannot run this wiring (a Gauss-Seidel plan, the Awais thesis §4.3): %s",
            fedfile_method_name(ff), why);
    for (size_t i = 0; i < ff->n_feds; i++)
        ff->feds[i].role = ff->gs_plan->role[i];
    return FEDFILE_OK;
}

/* ======================================================================================
 * Load and free
 * ====================================================================================== */

static void free_wires(fedfile_wire *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(w[i].var);
        free(w[i].cls);
        free(w[i].attr);
        free(w[i].map);
    }
    free(w);
}

static void free_fed(fedfile_fed *fd)
{
    free(fd->name);
    free(fd->fmu);
    free(fd->program);
    free(fd->python);
    for (size_t k = 0; k < fd->n_args; k++)
        free(fd->args[k]);
    free(fd->args);
    for (size_t i = 0; i < fd->n_params; i++) {
        free(fd->params[i].name);
        free(fd->params[i].string);
    }
    free(fd->params);
    free_wires(fd->outputs, fd->n_outputs);
    free_wires(fd->inputs, fd->n_inputs);
    for (size_t i = 0; i < fd->n_quanta; i++)
        free(fd->quanta[i].var);
    free(fd->quanta);
    for (size_t i = 0; i < fd->n_record; i++)
        free(fd->record[i]);
    free(fd->record);
}

static void remove_ssp_dir(char *d);

void fedfile_free(fedfile *ff)
{
    if (!ff) return;
    for (size_t i = 0; i < ff->n_feds; i++)
        free_fed(&ff->feds[i]);
    free(ff->feds);
    free(ff->path);
    free(ff->dir);
    remove_ssp_dir(ff->ssp_dir);
    free(ff->federation);
    free(ff->rti_host);
    free(ff->rti_unix);
    free(ff->secret_file);
    free(ff->fom);
    free(ff->output);
    free(ff->log);
    topo_plan_free(ff->gs_plan);
    if (ff->algo.def && ff->algo.def->free) ff->algo.def->free(ff->algo.settings);
    free(ff->ckpt_at);
    free(ff);
}

/* "record_every": {"steps": K} (every K-th row of each federate) or {"seconds": DT} (the first
 * row at or after each multiple of DT from the start); the row at the end always
 * (doc/federation.md "Recording less"). */
static int parse_record_every(const ld *c, const json_t *root, fedfile *ff)
{
    static const char *const keys[] = {"steps", "seconds", NULL};
    const json_t *v = json_object_get(root, "record_every");
    if (!v) return FEDFILE_OK;
    if (!json_is_object(v))
        return fail(c, "record_every", "expected {\"steps\": K} or {\"seconds\": DT}, got %s",
                    json_kind(v));
    int rc = only_keys(c, v, "record_every", keys), have = 0;
    if (rc) return rc;
    const json_t *k = json_object_get(v, "steps");
    if (!k == !json_object_get(v, "seconds"))
        return fail(c, "record_every", "expected exactly one of \"steps\" and \"seconds\"");
    if (k) {
        if (!json_is_integer(k) || json_integer_value(k) < 1 ||
            json_integer_value(k) > FEDFILE_MAX_RECORD_STEPS)
            return fail(c, "record_every.steps", "expected a whole number 1..%d, got %s",
                        FEDFILE_MAX_RECORD_STEPS, json_kind(k));
        ff->record_steps = json_integer_value(k);
        return FEDFILE_OK;
    }
    double dt = 0;
    if ((rc = get_num(c, v, "record_every", "seconds", 0, &dt, &have))) return rc;
    if ((rc = to_ticks(c, "record_every", "seconds", dt, ff->resolution, &ff->record_dt)))
        return rc;
    if (ff->record_dt < 1)
        return fail(c, "record_every.seconds", "expected at least one tick (%g s), got %g s",
                    ff->resolution, dt);
    return FEDFILE_OK;
}

/* Everything after the JSON is read: the sections in dependency order. */
static int parse_root(const ld *c, const json_t *root, fedfile *ff)
{
    static const char *const keys[] = {"federation", "description",  "rti",    "fom",
                                       "resolution", "algorithm",    "solver", "federates",
                                       "output",     "secret_file",  "log",    "placement",
                                       "checkpoint", "record_every", NULL};
    if (!json_is_object(root))
        return fail(c, "(top level)", "expected an object, got %s", json_kind(root));
    int rc = only_keys(c, root, "", keys), have = 0;
    char *s = NULL;
    if (rc) return rc;
    if ((rc = get_str(c, root, "", "federation", 1, &ff->federation)) ||
        (rc = check_name(c, "federation", ff->federation)) ||
        (rc = get_str(c, root, "", "description", 0, &s)))
        return rc;
    free(s);
    s = NULL;
    if ((rc = parse_rti(c, root, ff))) return rc;
    if ((rc = get_str(c, root, "", "fom", 0, &s))) return rc;
    if (s) {
        ff->fom = resolve(ff->dir, s);
        free(s);
        s = NULL;
        if (!ff->fom) return oom(c);
    }
    ff->resolution = FEDFILE_DEFAULT_RESOLUTION;
    if ((rc = get_num(c, root, "", "resolution", 0, &ff->resolution, &have))) return rc;
    if ((rc = parse_algorithm(c, root, ff)) || (rc = fedfile_ckpt_parse(c, root, ff))) return rc;
    if ((rc = parse_record_every(c, root, ff))) return rc;
    fedfile_solver defaults = {0};
    if ((rc = parse_solver(c, root, "", &defaults))) return rc;
    if ((rc = get_str(c, root, "", "output", 0, &s))) return rc;
    ff->output = resolve(ff->dir, s ? s : "results");
    free(s);
    s = NULL;
    if (!ff->output) return oom(c);
    s = NULL;
    if ((rc = get_str(c, root, "", "secret_file", 0, &s))) return rc;
    if (s) { /* read by the programs that join (doc/federation.md "secret_file") */
        ff->secret_file = resolve(ff->dir, s);
        free(s);
        if (!ff->secret_file) return oom(c);
    }
    /* "log": a folder for the federation log of tempo-run's RTI (doc/run.md, doc/log.md) */
    s = NULL;
    if ((rc = get_str(c, root, "", "log", 0, &s))) return rc;
    if (s && !(ff->log = resolve(ff->dir, s))) rc = oom(c);
    free(s);
    s = NULL; /* get_str leaves it alone when the next key is absent */
    if (rc) return rc;
    s = NULL;
    if ((rc = get_str(c, root, "", "placement", 0, &s))) return rc;
    ff->in_process = s && !strcmp(s, "in-process");
    if (s && !ff->in_process && strcmp(s, "processes")) {
        free(s);
        return fail(c, "placement", "expected \"processes\" or \"in-process\"");
    }
    free(s);
    json_t *fa = json_object_get(root, "federates");
    if (!fa || !json_is_array(fa) || json_array_size(fa) == 0)
        return fail(c, "federates", "expected a non-empty array of federates%s",
                    fa ? "" : " (missing)");
    ff->feds = calloc(json_array_size(fa), sizeof *ff->feds);
    if (!ff->feds) return oom(c);
    for (size_t i = 0; i < json_array_size(fa); i++) {
        ff->n_feds++; /* counted first, so that fedfile_free releases a half-parsed one */
        if ((rc = parse_fed(c, json_array_get(fa, i), i, ff, &ff->feds[i], &defaults))) return rc;
    }
    if ((rc = check_publishers(c, ff)) || (rc = link_inputs(c, ff))) return rc;
    if ((ff->algo.needs & FEDFILE_NEEDS_GS_PLAN) && (rc = plan_gauss_seidel(c, ff))) return rc;
    if (ff->algo.def->resolve && (rc = ff->algo.def->resolve(c, ff))) return rc;
    return FEDFILE_OK;
}

static void remove_ssp_dir(char *d)
{
    char e[256];
    if (d) fmu_zip_remove_tree(d, e, sizeof e);
    free(d);
}

/* The document: the JSON file; an SSP translated (doc/ssp.md); or a JSON file naming a
 * "system" merged with that SSP's document. *ssp_dir: an unpacked archive, or NULL. */
static int load_doc(const ld *c, const char *path, const char *dir, json_t **root, char **ssp_dir)
{
    void *doc = NULL;
    if (ssp_is_ssp_path(path)) {
        int rc = ssp_load(path, 1, &doc, ssp_dir, c->err, c->errlen);
        *root = doc;
        return rc == 0 ? FEDFILE_OK : rc == -2 ? FEDFILE_ENOMEM : FEDFILE_ESCHEMA;
    }
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        if (c->err && c->errlen)
            snprintf(c->err, c->errlen, "%s: cannot open: %s", path, strerror(errno));
        return FEDFILE_EIO;
    }
    json_error_t je;
    *root = json_loadf(fp, JSON_REJECT_DUPLICATES, &je);
    fclose(fp);
    if (!*root) {
        if (c->err && c->errlen)
            snprintf(c->err, c->errlen, "%s:%d:%d: %s", path, je.line, je.column, je.text);
        return FEDFILE_ESYNTAX;
    }
    if (!json_is_object(*root) || !json_object_get(*root, "system")) return FEDFILE_OK;
    char msg[FEDFILE_ERRLEN];
    int rc = ssp_merge_system(*root, dir, &doc, ssp_dir, msg, sizeof msg);
    json_decref(*root);
    *root = doc;
    if (rc == 0) return FEDFILE_OK;
    if (c->err && c->errlen) snprintf(c->err, c->errlen, "%s: %s", path, msg);
    return rc == -2 ? FEDFILE_ENOMEM : FEDFILE_ESCHEMA;
}

/* A model in Python has no discrete values (doc/python.md): under a method with a discrete
 * channel (FEDFILE_NEEDS_BUS: hybrid) none of its outputs or wired inputs may be on it. */
static int python_off_bus(const ld *c, const fedfile *ff)
{
    for (size_t i = 0; (ff->algo.needs & FEDFILE_NEEDS_BUS) && i < ff->n_feds; i++) {
        const fedfile_fed *fd = &ff->feds[i];
        if (!fd->python) continue;
        unsigned char *o = calloc(fd->n_outputs + 1, 1), *in = calloc(fd->n_inputs + 1, 1);
        if (!o || !in) return free(o), free(in), oom(c);
        fedfile_bus_flags(ff, i, o, in);
        const fedfile_wire *w = NULL;
        for (size_t k = 0; !w && k < fd->n_outputs; k++)
            if (o[k]) w = &fd->outputs[k];
        for (size_t k = 0; !w && k < fd->n_inputs; k++)
            if (in[k]) w = &fd->inputs[k];
        free(o), free(in);
        if (w) {
            char jp[64];
            snprintf(jp, sizeof jp, "federates[%zu].python", i);
            return fail(c, jp,
                        "federate %s: \"%s\" (%s.%s) is a discrete value of method %s, which a "
                        "model in Python cannot give or take (it has no discrete values)",
                        fd->name, w->var, w->cls, w->attr, ff->algo.def->name);
        }
    }
    return FEDFILE_OK;
}

int fedfile_load(const char *path, fedfile **out, char *err, size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    if (!out) return FEDFILE_EUSAGE;
    *out = NULL;
    if (!path) {
        if (err && errlen) snprintf(err, errlen, "fedfile_load: no path");
        return FEDFILE_EUSAGE;
    }
    ld c = {path, err, errlen};
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    json_t *root = NULL;
    char *ssp_dir = NULL;
    int rc = dir ? load_doc(&c, path, dir, &root, &ssp_dir) : oom(&c);
    if (rc != FEDFILE_OK) {
        free(dir);
        return rc;
    }
    fedfile *ff = calloc(1, sizeof *ff);
    if (!ff || !(ff->path = strdup(path))) {
        free(ff);
        free(dir);
        remove_ssp_dir(ssp_dir);
        json_decref(root);
        return oom(&c);
    }
    ff->dir = dir;
    ff->ssp_dir = ssp_dir;
    rc = parse_root(&c, root, ff);
    if (rc == FEDFILE_OK) rc = python_off_bus(&c, ff);
    json_decref(root);
    if (rc != FEDFILE_OK) {
        fedfile_free(ff);
        return rc;
    }
    *out = ff;
    return FEDFILE_OK;
}

long fedfile_find(const fedfile *ff, const char *name)
{
    for (size_t i = 0; name && i < ff->n_feds; i++)
        if (strcmp(ff->feds[i].name, name) == 0) return (long)i;
    return -1;
}

/* ======================================================================================
 * Generated FOM (doc/fom.md schema)
 * ====================================================================================== */

/* Growing text buffer; on allocation failure it sets failed and keeps what it had. */
typedef struct sbuf {
    char *p;
    size_t len, cap;
    int failed;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = 1;
            return;
        }
        if (b->p && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap ? b->cap * 2 : 1024) + (size_t)n;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->failed = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
}

int fedfile_fom_xml(const fedfile *ff, char **out, char *err, size_t errlen)
{
    if (!ff || !out) return FEDFILE_EUSAGE;
    *out = NULL;
    sbuf b = {0};
    /* FOM names are identifiers: the federation name with '-' turned into '_'. */
    char fname[NAME_MAX_LEN + 1];
    snprintf(fname, sizeof fname, "%s", ff->federation);
    for (char *q = fname; *q; q++)
        if (*q == '-') *q = '_';
    sb_printf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    /* Only the file's base name: federates on other hosts may reach it by other paths, and the
     * text should not depend on that (the fingerprint ignores comments anyway). */
    const char *base = strrchr(ff->path, '/');
    sb_printf(&b,
              "<!-- generated by tempo from %s: one class per publishing federate, one "
              "float64 attribute per published output -->\n",
              base ? base + 1 : ff->path);
    /* Shortest of %.15g / %.17g that reads back as the same double, so "1e-09" stays short. */
    char res[40];
    snprintf(res, sizeof res, "%.15g", ff->resolution);
    double back = strtod(res, NULL);
    if (memcmp(&back, &ff->resolution, sizeof back) != 0)
        snprintf(res, sizeof res, "%.17g", ff->resolution);
    sb_printf(&b, "<fom name=\"%s\">\n  <time resolution=\"%s\"/>\n", fname, res);
    sb_printf(&b, "  <objects>\n");
    for (size_t i = 0; i < ff->n_feds; i++) {
        const fedfile_fed *fd = &ff->feds[i];
        /* check_publishers guarantees a class has one publisher; a federate may publish
         * several classes: emit each class once, at its first output. */
        for (size_t k = 0; k < fd->n_outputs; k++) {
            int first = 1;
            for (size_t m = 0; m < k && first; m++)
                first = strcmp(fd->outputs[m].cls, fd->outputs[k].cls) != 0;
            if (!first) continue;
            if (strchr(fd->outputs[k].cls, '.')) {
                if (err && errlen)
                    snprintf(err, errlen,
                             "%s: federates[%zu].outputs[\"%s\"]: class \"%s\" is qualified; a "
                             "generated FOM has flat classes (give a \"fom\" file instead)",
                             ff->path, i, fd->outputs[k].var, fd->outputs[k].cls);
                free(b.p);
                return FEDFILE_ESCHEMA;
            }
            sb_printf(&b, "    <class name=\"%s\">\n", fd->outputs[k].cls);
            for (size_t m = k; m < fd->n_outputs; m++)
                if (strcmp(fd->outputs[m].cls, fd->outputs[k].cls) == 0)
                    sb_printf(&b, "      <attribute name=\"%s\" type=\"float64\"/>\n",
                              fd->outputs[m].attr);
            sb_printf(&b, "    </class>\n");
        }
    }
    sb_printf(&b, "  </objects>\n  <interactions>\n");
    sb_printf(&b, "    <interaction name=\"StepForward\"/>\n");
    sb_printf(&b, "  </interactions>\n</fom>\n");
    if (b.failed) {
        free(b.p);
        if (err && errlen) snprintf(err, errlen, "%s: out of memory generating the FOM", ff->path);
        return FEDFILE_ENOMEM;
    }
    *out = b.p;
    return FEDFILE_OK;
}

/* ======================================================================================
 * Checks against a FOM and an FMU
 * ====================================================================================== */

int fedfile_check_fom(const fedfile *ff, const struct fom *f, char *err, size_t errlen)
{
    if (!ff || !f) return FEDFILE_EUSAGE;
    ld c = {ff->fom ? ff->fom : ff->path, err, errlen};
    char b[JPATH_LEN], p[JPATH_LEN], q[JPATH_LEN];
    double r = fom_resolution(f);
    if (fabs(r - ff->resolution) > 1e-12 * ff->resolution)
        return fail(&c, "time",
                    "resolution %g s per tick differs from the federation file's "
                    "%g (key \"resolution\" of %s)",
                    r, ff->resolution, ff->path);
    if ((ff->algo.needs & FEDFILE_NEEDS_GS_PLAN) && fom_inter_find(f, "StepForward") == FOM_NONE)
        return fail(&c, "interactions",
                    "no interaction class \"StepForward\" (a Gauss-Seidel plan passes its token "
                    "with it; method \"%s\" in %s)",
                    fedfile_method_name(ff), ff->path);
    for (size_t i = 0; i < ff->n_feds; i++) {
        for (int dir = 0; dir < 2; dir++) {
            size_t n = dir ? ff->feds[i].n_inputs : ff->feds[i].n_outputs;
            const fedfile_wire *ws = dir ? ff->feds[i].inputs : ff->feds[i].outputs;
            for (size_t k = 0; k < n; k++) {
                const fedfile_wire *w = &ws[k];
                jp_idx(b, "federates", i);
                jp_key(q, b, dir ? "inputs" : "outputs");
                jp_map(p, q, w->var);
                ld cc = {ff->path, err, errlen};
                fom_handle cls = fom_class_find(f, w->cls);
                if (cls == FOM_NONE)
                    return fail(&cc, p, "the FOM %s has no object class \"%s\"",
                                ff->fom ? ff->fom : "(generated)", w->cls);
                fom_handle at = fom_attr_find(f, cls, w->attr);
                if (at == FOM_NONE)
                    return fail(&cc, p, "class \"%s\" of the FOM has no attribute \"%s\"", w->cls,
                                w->attr);
                if (fom_attr_type(f, at) != FOM_T_FLOAT64)
                    return fail(&cc, p,
                                "attribute \"%s.%s\" has type %s in the FOM; FMU "
                                "Real variables need float64",
                                w->cls, w->attr, fom_type_name(fom_attr_type(f, at)));
            }
        }
    }
    return FEDFILE_OK;
}

static const fmu_var *md_find(const fmu_md *md, const char *name)
{
    for (size_t i = 0; i < md->n_vars; i++)
        if (md->vars[i].name && strcmp(md->vars[i].name, name) == 0) return &md->vars[i];
    return NULL;
}

static const char *causality_word(fmu_causality k)
{
    switch (k) {
    case FMU_C_PARAMETER:
        return "parameter";
    case FMU_C_CALCULATED_PARAMETER:
        return "calculatedParameter";
    case FMU_C_INPUT:
        return "input";
    case FMU_C_OUTPUT:
        return "output";
    case FMU_C_LOCAL:
        return "local";
    case FMU_C_INDEPENDENT:
        return "independent";
    }
    return "?";
}

int fedfile_type_discrete(fmu_vtype t)
{
    switch (t) {
    case FMU_T_INTEGER:
    case FMU_T_BOOLEAN:
    case FMU_T_ENUM:
    case FMU_T_INT8:
    case FMU_T_UINT8:
    case FMU_T_INT16:
    case FMU_T_UINT16:
    case FMU_T_UINT32:
    case FMU_T_INT64:
    case FMU_T_UINT64:
        return 1;
    default:
        return 0;
    }
}

/* Wired variables: exist, Real, Float32 or whole numbers (Integer, Boolean, Enumeration,
 * FMI 3.0's integers up to 32 bits; the peer methods and the master methods' slaves exchange
 * them alike), with the expected causality. */
static int check_wire_vars(const ld *c, const char *base, const char *key, const fedfile_wire *ws,
                           size_t n, const fmu_md *md, fmu_causality want)
{
    char p[JPATH_LEN], q[JPATH_LEN];
    for (size_t k = 0; k < n; k++) {
        jp_key(q, base, key);
        jp_map(p, q, ws[k].var);
        const fmu_var *v = md_find(md, ws[k].var);
        if (!v) return fail(c, p, "the FMU has no variable \"%s\"", ws[k].var);
        if (v->type == FMU_T_INT64 || v->type == FMU_T_UINT64)
            return fail(c, p,
                        "variable \"%s\" is %s: the coupling carries doubles, exact to 2^53 "
                        "only, so a 64-bit integer could lose precision; only Real (Float64) "
                        "variables are wired",
                        ws[k].var, v->type == FMU_T_INT64 ? "Int64" : "UInt64");
        if (v->type != FMU_T_REAL && !fedfile_type_discrete(v->type) && v->type != FMU_T_FLOAT32)
            return fail(c, p,
                        "variable \"%s\" is not a number (Real, Float32, Integer, Boolean and "
                        "Enumeration variables are wired; the coupling carries numbers)",
                        ws[k].var);
        if (v->n_elems && !md->elem_vr_base) /* element handles: doc/fmu.md §10 */
            return fail(c, p,
                        "variable \"%s\" is an array element, and the FMU's value references "
                        "leave no room to wire it",
                        ws[k].var);
        /* a calculated parameter may be published too: a value fixed at initialization
         * (an SSP connects one to inputs, doc/ssp.md) */
        if (ws[k].n_map && !fedfile_type_discrete(v->type))
            return fail(c, p,
                        "variable \"%s\" is not an Integer, Boolean or Enumeration: its "
                        "transform has a \"map\"",
                        ws[k].var);
        if (v->causality != want &&
            !(want == FMU_C_OUTPUT && v->causality == FMU_C_CALCULATED_PARAMETER))
            return fail(c, p, "variable \"%s\" has causality %s, expected %s", ws[k].var,
                        causality_word(v->causality), causality_word(want));
    }
    return FEDFILE_OK;
}

int fedfile_check_fmu(const fedfile *ff, size_t i, const fmu_md *md, char *err, size_t errlen)
{
    if (!ff || !md || i >= ff->n_feds) return FEDFILE_EUSAGE;
    const fedfile_fed *fd = &ff->feds[i];
    ld c = {ff->path, err, errlen};
    char base[JPATH_LEN], p[JPATH_LEN], q[JPATH_LEN];
    jp_idx(base, "federates", i);
    int rc;
    if ((rc = check_wire_vars(&c, base, "outputs", fd->outputs, fd->n_outputs, md, FMU_C_OUTPUT)) ||
        (rc = check_wire_vars(&c, base, "inputs", fd->inputs, fd->n_inputs, md, FMU_C_INPUT)))
        return rc;
    for (size_t k = 0; k < fd->n_params; k++) {
        const fedfile_param *pa = &fd->params[k];
        jp_key(q, base, "parameters");
        jp_map(p, q, pa->name);
        const fmu_var *v = md_find(md, pa->name);
        /* FMI 3.0: a whole array from a list, "A": "0 1 -1 0" (or one number for all; the
         * count is checked when it is set, doc/fmu.md §10 "Whole arrays") */
        long arr = !v && md->vars ? fmu_md_find_array(md, pa->name) : -1;
        if (arr >= 0) v = &md->vars[arr];
        if (!v) return fail(&c, p, "the FMU has no variable \"%s\"", pa->name);
        /* besides parameters, the start values an FMU lets be set before initialization:
         * inputs, and variables with initial exact or approx (an SSP's parameter binding sets
         * them: SSP 1.0 §5.3.5, doc/ssp.md); a wired input takes its first received value
         * over its start */
        int startable = v->variability != FMU_V_CONSTANT && v->causality != FMU_C_INDEPENDENT &&
                        (v->initial == FMU_I_EXACT || v->initial == FMU_I_APPROX ||
                         (v->initial == FMU_I_NONE && v->has_start));
        if (v->causality != FMU_C_PARAMETER && v->causality != FMU_C_INPUT && !startable)
            return fail(&c, p,
                        "variable \"%s\" has causality %s; only parameters and start values "
                        "(inputs, initial exact or approx) are set from the federation file",
                        pa->name, causality_word(v->causality));
        int fits = 0;
        switch (arr >= 0 ? FMU_T_NTYPES : v->type) {
        case FMU_T_NTYPES: /* a whole array: a list, or one value for all */
            fits = pa->kind == FEDFILE_STRING ||
                   (v->type != FMU_T_STRING && v->type != FMU_T_BINARY && v->type != FMU_T_CLOCK &&
                    pa->kind != FEDFILE_STRING);
            break;
        case FMU_T_REAL:
            fits = pa->kind == FEDFILE_REAL || pa->kind == FEDFILE_INTEGER;
            break;
        case FMU_T_INTEGER:
        case FMU_T_ENUM:
            fits = pa->kind == FEDFILE_INTEGER && pa->integer >= INT_MIN && pa->integer <= INT_MAX;
            break;
        case FMU_T_BOOLEAN:
            fits = pa->kind == FEDFILE_BOOLEAN;
            break;
        case FMU_T_STRING:
            fits = pa->kind == FEDFILE_STRING;
            break;
        case FMU_T_FLOAT32:
            fits = pa->kind == FEDFILE_REAL || pa->kind == FEDFILE_INTEGER;
            break;
        case FMU_T_BINARY: /* FMI 3.0: bytes in hexadecimal */
            fits = pa->kind == FEDFILE_STRING;
            break;
        default: /* the other FMI 3.0 integers; their ranges are checked when set */
            fits = v->type != FMU_T_CLOCK && pa->kind == FEDFILE_INTEGER;
            break;
        }
        if (!fits) {
            static const char *const want[] = {"a number", "an integer (32-bit)", "true or false",
                                               "a string", "an integer (32-bit)"};
            return fail(&c, p, "parameter \"%s\" needs %s", pa->name,
                        v->type <= FMU_T_ENUM      ? want[v->type]
                        : v->type == FMU_T_FLOAT32 ? "a number"
                        : v->type == FMU_T_BINARY  ? "a string of hexadecimal bytes"
                        : v->type == FMU_T_CLOCK   ? "nothing (a Clock is not set)"
                                                   : "an integer");
        }
    }
    for (size_t k = 0; k < fd->n_record; k++) {
        jp_key(q, base, "record");
        jp_idx(p, q, k);
        if (!md_find(md, fd->record[k]))
            return fail(&c, p, "the FMU has no variable \"%s\"", fd->record[k]);
    }
    return FEDFILE_OK;
}
