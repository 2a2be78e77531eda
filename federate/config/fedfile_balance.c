/* algorithm.coupling and algorithm.power_extrapolation of the methods "balance" and "energy"
 * (federate/config/fedfile_balance.h). Two passes: fedfile_balance_parse reads the entries as
 * written while the algorithm section loads (the federates are not known yet);
 * fedfile_balance_resolve, once the wiring is linked, gives every wired input its settings
 * ("*" first, then its own entry, field by field) and turns names into indices. */
#include "federate/config/fedfile_balance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "federate/config/fedfile_algo.h"
#include "federate/config/fedfile_impl.h"

static int nomem(const fedfile_reader *rd)
{
    fedfile_fail(rd, "algorithm.coupling", "out of memory");
    return FEDFILE_ENOMEM;
}

/* One entry of algorithm.coupling as written; -1 / NULL: not given. */
struct fedfile_bal_spec {
    char *key; /* "*" or "federate.input" */
    int extrap, smooth, bc, hat, span;
    char *slope, *amount, *power_input, *power, *energy;
    int used; /* matched a wired input (a named entry that matches none is refused) */
};

static void spec_free(fedfile_bal_spec *s)
{
    free(s->key), free(s->slope), free(s->amount), free(s->power_input), free(s->power);
    free(s->energy);
}

const fedfile_balance *fedfile_balance_of(const fedfile *ff)
{
    const void *s = fedfile_settings(ff, "balance");
    return s ? s : fedfile_settings(ff, "energy");
}

void fedfile_balance_free(fedfile_balance *b)
{
    if (!b) return;
    for (size_t i = 0; i < b->n_spec; i++)
        spec_free(&b->spec[i]);
    free(b->spec);
    free(b->conn);
    /* extra is sized by the federates; its end is marked by the sentinel slot. */
    for (fedfile_bal_extra *e = b->extra; e && e->n != (size_t)-1; e++) {
        for (size_t k = 0; k < e->n; k++)
            free(e->var[k]);
        free(e->var);
    }
    free(b->extra);
    free(b);
}

size_t fedfile_balance_extra_inputs(const fedfile *ff, size_t idx, const char *const **names)
{
    *names = NULL;
    const fedfile_balance *b = fedfile_balance_of(ff);
    if (!b || !b->extra || idx >= ff->n_feds || !b->extra[idx].n) return 0;
    *names = (const char *const *)b->extra[idx].var;
    return b->extra[idx].n;
}

/* ---- the first pass: the entries as written ------------------------------------------- */

static const char *const EXTRAPS[] = {"constant", "linear", NULL};
static const char *const CORRS[] = {"none", "classic", "quick", NULL};
static const char *const HATS[] = {"constant", "polynomial", "two-hats", NULL};

/* A string among names into *out (its index); absent leaves *out. */
static int choice(const fedfile_reader *rd, json_t *o, const char *base, const char *key,
                  const char *const *names, int *out)
{
    json_t *v = json_object_get(o, key);
    if (!v) return FEDFILE_OK;
    for (int i = 0; json_is_string(v) && names[i]; i++)
        if (!strcmp(json_string_value(v), names[i])) return *out = i, FEDFILE_OK;
    char list[128] = "";
    for (int i = 0; names[i]; i++) {
        size_t u = strlen(list);
        snprintf(list + u, sizeof list - u, "%s\"%s\"", i ? ", " : "", names[i]);
    }
    return fedfile_fail(rd, base, "%s: expected one of %s", key, list);
}

static int name_of(const fedfile_reader *rd, json_t *o, const char *base, const char *key,
                   char **out)
{
    json_t *v = json_object_get(o, key);
    if (!v) return FEDFILE_OK;
    if (!json_is_string(v) || !json_string_length(v))
        return fedfile_fail(rd, base, "%s: expected a variable name", key);
    if (!(*out = strdup(json_string_value(v)))) return nomem(rd);
    return FEDFILE_OK;
}

static int parse_spec(const fedfile_reader *rd, int energy, const char *key, json_t *o,
                      fedfile_bal_spec *s)
{
    char base[200];
    snprintf(base, sizeof base, "algorithm.coupling[\"%.120s\"]", key);
    *s = (fedfile_bal_spec){.extrap = -1, .smooth = -1, .bc = -1, .hat = -1, .span = -1};
    if (!(s->key = strdup(key))) return nomem(rd);
    if (!json_is_object(o)) return fedfile_fail(rd, base, "expected an object of settings");
    static const char *const bal_keys[] = {"extrapolation", "slope", "correction", "amount",
                                           "switch",        "hat",   "span",       NULL};
    static const char *const en_keys[] = {"extrapolation", "slope",  "power_input",
                                          "power",         "energy", NULL};
    const char *const *keys = energy ? en_keys : bal_keys;
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v)
    {
        int ok = 0;
        for (int i = 0; keys[i] && !ok; i++)
            ok = !strcmp(keys[i], k);
        if (!ok)
            return fedfile_fail(rd, base, "%s: not a setting of method \"%s\" (expected %s)", k,
                                energy ? "energy" : "balance",
                                energy ? "extrapolation, slope, power_input, power, energy"
                                       : "extrapolation, slope, correction, amount, switch, hat, "
                                         "span");
    }
    int rc;
    if ((rc = choice(rd, o, base, "extrapolation", EXTRAPS, &s->extrap)) ||
        (rc = choice(rd, o, base, "correction", CORRS, &s->bc)) ||
        (rc = choice(rd, o, base, "hat", HATS, &s->hat)) ||
        (rc = name_of(rd, o, base, "slope", &s->slope)) ||
        (rc = name_of(rd, o, base, "amount", &s->amount)) ||
        (rc = name_of(rd, o, base, "power_input", &s->power_input)) ||
        (rc = name_of(rd, o, base, "power", &s->power)) ||
        (rc = name_of(rd, o, base, "energy", &s->energy)))
        return rc;
    if ((v = json_object_get(o, "switch"))) {
        if (!json_is_boolean(v)) return fedfile_fail(rd, base, "switch: expected true or false");
        s->smooth = json_is_true(v);
    }
    if ((v = json_object_get(o, "span"))) {
        json_int_t n = json_is_integer(v) ? json_integer_value(v) : 0;
        if (n != 1 && n != 2 && n != 4)
            return fedfile_fail(rd, base, "span: expected 1, 2 or 4 (exchange intervals)");
        s->span = (int)n;
    }
    return FEDFILE_OK;
}

int fedfile_balance_parse(fedfile_keys *k, int energy, fedfile_balance **out)
{
    const fedfile_reader *rd = k->rd;
    fedfile_balance *b = calloc(1, sizeof *b);
    if (!b) return nomem(rd);
    *out = b;
    b->energy = energy;
    b->p_order = 1;
    const json_t *pe = energy ? fedfile_key_get(k, "power_extrapolation") : NULL;
    if (pe) {
        int o = -1;
        for (int i = 0; json_is_string(pe) && EXTRAPS[i]; i++)
            if (!strcmp(json_string_value(pe), EXTRAPS[i])) o = i;
        if (o < 0)
            return fedfile_fail(rd, "algorithm.power_extrapolation",
                                "expected \"constant\" or \"linear\"");
        b->p_order = o;
    }
    const json_t *cp = fedfile_key_get(k, "coupling");
    if (!cp) return FEDFILE_OK;
    if (!json_is_object(cp))
        return fedfile_fail(rd, "algorithm.coupling",
                            "expected an object {\"*\" or \"federate.input\": {settings}}");
    if (!(b->spec = calloc(json_object_size(cp) + 1, sizeof *b->spec))) return nomem(rd);
    const char *key;
    json_t *v;
    int rc;
    json_object_foreach((json_t *)cp, key, v)
    {
        if ((rc = parse_spec(rd, energy, key, v, &b->spec[b->n_spec++]))) return rc;
    }
    return FEDFILE_OK;
}

/* ---- the second pass: every wired input gets its settings ----------------------------- */

static void apply(const fedfile_bal_spec *s, bal_settings *l, const char **names)
{
    if (s->extrap >= 0) l->extrap = (bal_extrap)s->extrap;
    if (s->smooth >= 0) l->smooth = s->smooth;
    if (s->bc >= 0) l->bc = (bal_bc)s->bc;
    if (s->hat >= 0) l->hat = (bal_hat_kind)s->hat;
    if (s->span >= 0) l->span = s->span;
    if (s->slope) names[0] = s->slope;
    if (s->amount) names[1] = s->amount;
    if (s->power_input) names[2] = s->power_input;
    if (s->power) names[3] = s->power;
    if (s->energy) names[4] = s->energy;
}

static long output_index(const fedfile_fed *fd, const char *var)
{
    for (size_t k = 0; var && k < fd->n_outputs; k++)
        if (!strcmp(fd->outputs[k].var, var)) return (long)k;
    return -1;
}

/* The settings of input m of federate i; base names its entry for messages. */
static int resolve_one(const fedfile_reader *rd, fedfile *ff, size_t i, size_t m,
                       fedfile_bal_conn *c)
{
    fedfile_balance *b = (fedfile_balance *)fedfile_balance_of(ff);
    const fedfile_fed *fd = &ff->feds[i];
    const fedfile_wire *w = &fd->inputs[m];
    char key[300], base[400];
    snprintf(key, sizeof key, "%s.%s", fd->name, w->var);
    snprintf(base, sizeof base, "algorithm.coupling[\"%.280s\"]", key);
    const fedfile_fed *src = &ff->feds[w->source];
    long out = -1;
    for (size_t q = 0; q < src->n_outputs && out < 0; q++)
        if (!strcmp(src->outputs[q].cls, w->cls) && !strcmp(src->outputs[q].attr, w->attr))
            out = (long)q;
    *c = (fedfile_bal_conn){.to = i,
                            .input = m,
                            .from = (size_t)w->source,
                            .output = (size_t)(out < 0 ? 0 : out),
                            .layer = {BAL_EXTRAP_CONSTANT, 0, BAL_BC_OFF, BAL_HAT_CONST, 1},
                            .slope = -1,
                            .amount = -1,
                            .power_input = -1,
                            .power = -1,
                            .energy = -1};
    const char *names[5] = {NULL, NULL, NULL, NULL, NULL};
    int span_given = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t s = 0; s < b->n_spec; s++) {
            fedfile_bal_spec *sp = &b->spec[s];
            if (pass == 0 ? strcmp(sp->key, "*") : strcmp(sp->key, key)) continue;
            sp->used = 1;
            apply(sp, &c->layer, names);
            span_given |= sp->span >= 0;
        }
    if (c->layer.hat == BAL_HAT_I2H && !span_given) c->layer.span = 2;
    if (names[0] && (c->slope = output_index(src, names[0])) < 0)
        return fedfile_fail(rd, base,
                            "slope: \"%s\" is not an output of federate \"%s\" (the "
                            "sender)",
                            names[0], src->name);
    if (names[1] && (c->amount = output_index(src, names[1])) < 0)
        return fedfile_fail(rd, base, "amount: \"%s\" is not an output of federate \"%s\"",
                            names[1], src->name);
    if (!b->energy) {
        if (c->layer.bc != BAL_BC_OFF && c->amount < 0)
            return fedfile_fail(rd, base,
                                "correction needs \"amount\": the sender's output holding the "
                                "running integral of \"%s\"",
                                src->outputs[c->output].var);
        bal_conn probe;
        char why[200];
        if (bal_conn_init(&probe, &c->layer, why, sizeof why))
            return fedfile_fail(rd, base, "%s", why);
        return FEDFILE_OK;
    }
    /* energy: the receiver's power output and its power input. */
    if (!names[2] || !names[3])
        return fedfile_fail(rd, base,
                            "method \"energy\" needs \"power_input\" (the input of \"%s\" "
                            "taking the agreed power) and \"power\" (its output of its "
                            "interface power)",
                            fd->name);
    if ((c->power = output_index(fd, names[3])) < 0)
        return fedfile_fail(rd, base, "power: \"%s\" is not an output of federate \"%s\"", names[3],
                            fd->name);
    if (names[4] && (c->energy = output_index(fd, names[4])) < 0)
        return fedfile_fail(rd, base, "energy: \"%s\" is not an output of federate \"%s\"",
                            names[4], fd->name);
    for (size_t q = 0; q < fd->n_inputs; q++)
        if (!strcmp(fd->inputs[q].var, names[2]))
            return fedfile_fail(rd, base,
                                "power_input: \"%s\" is wired; the agreed power is set by the "
                                "master only",
                                names[2]);
    fedfile_bal_extra *e = &b->extra[i];
    for (size_t q = 0; q < e->n; q++)
        if (!strcmp(e->var[q], names[2]))
            return fedfile_fail(rd, base,
                                "power_input: \"%s\" already takes the power of another "
                                "boundary of \"%s\"",
                                names[2], fd->name);
    char **nv = realloc(e->var, (e->n + 1) * sizeof *nv);
    if (!nv) return nomem(rd);
    e->var = nv;
    if (!(e->var[e->n] = strdup(names[2]))) return nomem(rd);
    c->power_input = (long)(fd->n_inputs + e->n++);
    return FEDFILE_OK;
}

/* energy: every connection a -> b has exactly one b -> a, its boundary's other half. */
static int pair_up(const fedfile_reader *rd, fedfile *ff)
{
    fedfile_balance *b = (fedfile_balance *)fedfile_balance_of(ff);
    for (size_t k = 0; k < b->n_conn; k++) {
        fedfile_bal_conn *c = &b->conn[k];
        size_t n = 0;
        for (size_t q = 0; q < b->n_conn; q++)
            if (b->conn[q].from == c->to && b->conn[q].to == c->from) c->partner = q, n++;
        if (n != 1)
            return fedfile_fail(rd, "algorithm.method",
                                "\"energy\" needs one connection each way between two "
                                "federates; \"%s\" -> \"%s\" has %zu back",
                                ff->feds[c->from].name, ff->feds[c->to].name, n);
        if ((c->energy < 0) != (b->conn[c->partner].energy < 0))
            return fedfile_fail(rd, "algorithm.coupling",
                                "\"energy\" is given for %s but not for %s: both sides of a "
                                "boundary name their stored energy, or neither",
                                ff->feds[c->energy < 0 ? c->from : c->to].name,
                                ff->feds[c->energy < 0 ? c->to : c->from].name);
    }
    return FEDFILE_OK;
}

int fedfile_balance_resolve(const fedfile_reader *rd, fedfile *ff)
{
    fedfile_balance *b = (fedfile_balance *)fedfile_balance_of(ff);
    if (!b) return FEDFILE_OK;
    size_t n = 0;
    for (size_t i = 0; i < ff->n_feds; i++)
        n += ff->feds[i].n_inputs;
    b->conn = calloc(n + 1, sizeof *b->conn);
    b->extra = calloc(ff->n_feds + 1, sizeof *b->extra);
    if (!b->conn || !b->extra) return nomem(rd);
    b->extra[ff->n_feds].n = (size_t)-1; /* the sentinel fedfile_balance_free stops at */
    int rc;
    for (size_t i = 0; i < ff->n_feds; i++)
        for (size_t m = 0; m < ff->feds[i].n_inputs; m++)
            if ((rc = resolve_one(rd, ff, i, m, &b->conn[b->n_conn++]))) return rc;
    for (size_t s = 0; s < b->n_spec; s++)
        if (!b->spec[s].used && strcmp(b->spec[s].key, "*"))
            return fedfile_fail(rd, "algorithm.coupling",
                                "\"%s\" is not a wired input (expected \"*\" or "
                                "\"federate.input\")",
                                b->spec[s].key);
    return b->energy ? pair_up(rd, ff) : FEDFILE_OK;
}

size_t fedfile_energy_links(const fedfile_balance *b, energy_link *out, size_t cap)
{
    size_t n = 0;
    for (size_t k = 0; k < b->n_conn && n < cap; k++) {
        const fedfile_bal_conn *ab = &b->conn[k], *ba = &b->conn[ab->partner];
        if (ab->from > ab->to) continue;
        out[n++] = (energy_link){.a = ab->from,
                                 .b = ab->to,
                                 .a_out = ab->output,
                                 .b_out = ba->output,
                                 .a_slope = ab->slope,
                                 .b_slope = ba->slope,
                                 .a_in = ba->input,
                                 .b_in = ab->input,
                                 .a_pin = (size_t)ba->power_input,
                                 .b_pin = (size_t)ab->power_input,
                                 .a_P = (size_t)ba->power,
                                 .b_P = (size_t)ab->power,
                                 .a_W = ba->energy,
                                 .b_W = ab->energy};
    }
    return n;
}
