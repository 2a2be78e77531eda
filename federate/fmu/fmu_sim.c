/* tempo-fmu --simulate: CSV input table, the communication-step loop over fmu_step, CSV output.
 * Serves doc/fmu.md §8. The rows and their order are those of the Modelica Association's
 * fmusim (co-simulation records a step's outputs before the inputs of its end, model exchange
 * a row before and after every event, input events are points of their own). Inputs between
 * CSV rows are linear (model exchange and FMUs that interpolate get value + slope, steps split
 * at CSV rows so the polynomial is exact) or held.
 * Read next: federate/fmufed/tempo_fmu_main.c. */
#include "federate/fmu/fmu_sim.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIM_MAX_COLS      10000
#define SIM_DEFAULT_STEPS 500 /* communication steps when neither option nor FMU gives one */

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t l = strlen(s);
    while (l && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\r' || s[l - 1] == '\n'))
        s[--l] = '\0';
    return s;
}

static int add_row(fmu_sim_table *t, size_t *cap, char *line, long lineno, const char *path,
                   char *err, size_t errlen)
{
    if (t->n_rows == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        double *v = realloc(t->v, nc * t->n_cols * sizeof *v);
        if (v) t->v = v;
        char **tx = realloc(t->text, nc * t->n_cols * sizeof *tx);
        if (tx) t->text = tx;
        if (!v || !tx) return snprintf(err, errlen, "%s: out of memory", path), -2;
        *cap = nc;
    }
    double *row = t->v + t->n_rows * t->n_cols;
    char **trow = t->text + t->n_rows * t->n_cols;
    for (size_t c = 0; c < t->n_cols; c++)
        trow[c] = NULL;
    t->n_rows++; /* counted now so that fmu_sim_table_fini frees its texts on failure */
    char *p = line;
    for (size_t c = 0; c < t->n_cols; c++) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        else if (c + 1 < t->n_cols)
            return snprintf(err, errlen, "%s:%ld: %zu values, the header has %zu columns", path,
                            lineno, c + 1, t->n_cols),
                   -1;
        char *f = trim(p), *end;
        if (!(trow[c] = strdup(f))) return snprintf(err, errlen, "%s: out of memory", path), -2;
        errno = 0;
        row[c] = strtod(f, &end);
        if (!strcmp(f, "true") || !strcmp(f, "false")) /* a Boolean input's column */
            row[c] = f[0] == 't', end = f + strlen(f);
        /* An array's column: its elements' values separated by spaces, as fmusim reads them
         * (set whole by fmu_step_set_text; the first stands for the row's number). */
        for (char *q = end, *r; c > 0 && end != f && (*q == ' ' || *q == '\t') && !errno; q = r) {
            double more = strtod(q, &r);
            if (r == q || !isfinite(more)) break;
            end = r;
        }
        if (end == f || *end || errno == ERANGE || !isfinite(row[c]))
            return snprintf(err, errlen, "%s:%ld: column %zu (%s): \"%.40s\" is not a number", path,
                            lineno, c + 1, t->names[c], f),
                   -1;
        p = comma ? comma + 1 : p + strlen(p);
        if (comma && c + 1 == t->n_cols)
            return snprintf(err, errlen, "%s:%ld: more values than the %zu header columns", path,
                            lineno, t->n_cols),
                   -1;
    }
    if (t->n_rows > 1 && row[0] < t->v[(t->n_rows - 2) * t->n_cols])
        return snprintf(err, errlen, "%s:%ld: time %g goes backwards", path, lineno, row[0]), -1;
    return 0;
}

static int read_header(fmu_sim_table *t, char *line, const char *path, long lineno, char *err,
                       size_t errlen)
{
    size_t n = 1;
    for (char *p = line; *p; p++)
        n += *p == ',';
    if (n < 1 || n > SIM_MAX_COLS)
        return snprintf(err, errlen, "%s:%ld: bad number of columns", path, lineno), -1;
    t->names = calloc(n, sizeof *t->names);
    if (!t->names) return snprintf(err, errlen, "%s: out of memory", path), -2;
    t->n_cols = n;
    char *p = line;
    for (size_t c = 0; c < n; c++) {
        char *comma = strchr(p, ',');
        if (comma) *comma = '\0';
        char *name = trim(p);
        if (*name == '"' && strlen(name) >= 2 && name[strlen(name) - 1] == '"') {
            name[strlen(name) - 1] = '\0';
            name++;
        }
        if (!*name)
            return snprintf(err, errlen, "%s:%ld: column %zu has no name", path, lineno, c + 1), -1;
        if (!(t->names[c] = strdup(name))) return snprintf(err, errlen, "out of memory"), -2;
        p = comma ? comma + 1 : p;
    }
    return 0;
}

int fmu_sim_read_csv(const char *path, fmu_sim_table *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f) return snprintf(err, errlen, "%s: %s", path, strerror(errno)), -1;
    char *line = NULL;
    size_t linecap = 0, cap = 0;
    long lineno = 0;
    int rc = 0;
    while (!rc && getline(&line, &linecap, f) >= 0) {
        lineno++;
        char *s = trim(line);
        if (!*s || *s == '#') continue;
        rc = t->names ? add_row(t, &cap, s, lineno, path, err, errlen)
                      : read_header(t, s, path, lineno, err, errlen);
    }
    free(line);
    fclose(f);
    if (!rc && !t->names)
        rc = -1, snprintf(err, errlen, "%s: no header line", path);
    else if (!rc && !t->n_rows)
        rc = -1, snprintf(err, errlen, "%s: no data rows", path);
    if (rc) fmu_sim_table_fini(t);
    return rc;
}

void fmu_sim_table_fini(fmu_sim_table *t)
{
    for (size_t i = 0; t->text && i < t->n_rows * t->n_cols; i++)
        free(t->text[i]);
    free(t->text);
    for (size_t i = 0; t->names && i < t->n_cols; i++)
        free(t->names[i]);
    free(t->names);
    free(t->v);
    memset(t, 0, sizeof *t);
}

/* Value and slope of column c at time x; *next gets the first row time > x (or INFINITY). */
static void sample(const fmu_sim_table *t, size_t c, double x, fmu_sim_interp mode, double *val,
                   double *slope, double *next)
{
    size_t w = t->n_cols, k = 0;
    while (k + 1 < t->n_rows && t->v[(k + 1) * w] <= x)
        k++;
    *next = INFINITY;
    for (size_t j = k; j < t->n_rows; j++)
        if (t->v[j * w] > x) {
            *next = t->v[j * w];
            break;
        }
    *slope = 0;
    if (x < t->v[0] || k + 1 >= t->n_rows || mode == FMU_SIM_HOLD) {
        *val = t->v[k * w + c];
        return;
    }
    double t0 = t->v[k * w], t1 = t->v[(k + 1) * w];
    double v0 = t->v[k * w + c], v1 = t->v[(k + 1) * w + c];
    *slope = (v1 - v0) / (t1 - t0); /* t1 > t0: k is the last row with time <= x */
    /* In the order fmusim evaluates it, so that a co-simulation step gets the same bits. */
    *val = v0 + (x - t0) * (v1 - v0) / (t1 - t0);
}

typedef struct {
    fmu_step *s;
    fmu_sim_table tab;
    fmi2ValueReference *in_vr; /* per Real input: its value reference */
    size_t *in_col;            /* per Real input: its table column */
    size_t n_in;               /* Real inputs (FMI 2.0 Real, FMI 3.0 scalar Float64) */
    size_t *set_col;           /* FMI 3.0 inputs of other types and array elements: columns */
    size_t n_set;              /* their count; set by name from the text, held between rows */
    const char **set_last;     /* per such input: the text last set (NULL: none yet) */
    unsigned char *set_f32;    /* per such input: a continuous Float32, interpolated (linear) */
    char (*f32_text)[40];      /* per such input: the interpolated text last set ("": none) */
    double *u, *du;
    fmi2ValueReference *out_vr; /* columns written */
    size_t n_out;
    long *out_var; /* var index per written column */
    long points;   /* communication points written */
    long events;   /* rows written just before an event (ME, CS in event mode, input events) */
    int interp_cs; /* CS: the FMU takes input slopes (FMI 2.0 canInterpolateInputs, linear) */
    int fmusim;    /* numbers as fmusim writes them (fmu_sim_opts.fmusim_format) */
    FILE *out;     /* where rows go (for the event hook) */
    char *err;     /* the run's error buffer (for the event hook) */
    size_t errlen;
} sim_run;

/* One CSV field: as it is, or in double quotes (quotes doubled) when quoted is set or the text
 * holds a comma, a quote or a line break (RFC 4180). */
static void put_field(FILE *out, const char *text, int quoted)
{
    if (!quoted && !strpbrk(text, ",\"\r\n")) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (const char *p = text; *p; p++) {
        if (*p == '"') fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

char *fmu_sim_format_double(double v, char *buf, size_t len)
{
    if (isnan(v)) {
        snprintf(buf, len, "nan");
        return buf;
    }
    if (isinf(v)) {
        snprintf(buf, len, v > 0 ? "inf" : "-inf");
        return buf;
    }
    /* For normal numbers, 15 significant digits always give the shortest form when one of 15
     * or fewer digits exists (15-digit decimals are spaced wider than doubles), so start there;
     * subnormals have fewer bits, so try every precision. Bits are compared, not doubles:
     * -0.0 must stay "-0". Cost: at most 17 snprintf/strtod pairs. */
    for (int p = fabs(v) < DBL_MIN ? 1 : 15; p <= 17; p++) {
        snprintf(buf, len, "%.*g", p, v);
        double back = strtod(buf, NULL);
        if (memcmp(&back, &v, sizeof v) == 0) break;
    }
    return buf;
}

/* A number as fmusim writes it: Float64 with %.16g, Float32 with %.7g (doc/fmu.md §8). */
static const char *fmusim_number(double v, int float32, char *buf, size_t len)
{
    snprintf(buf, len, float32 ? "%.7g" : "%.16g", v);
    return buf;
}

/* The text of one FMI 3.0 value in the run's format: fmu_step_get_text writes floats in the
 * shortest form that reads back, which strtod/strtof turn into the same bits again. */
static const char *v3_text(sim_run *r, const fmu_var *var, const char *text, char *buf, size_t len)
{
    if (!r->fmusim || (var->type != FMU_T_REAL && var->type != FMU_T_FLOAT32)) return text;
    if (var->type == FMU_T_FLOAT32) return fmusim_number((double)strtof(text, NULL), 1, buf, len);
    return fmusim_number(strtod(text, NULL), 0, buf, len);
}

/* The outputs at time t (the handle's time, or an event's inside a step): Real in the
 * shortest round-trip form or as fmusim writes it, Integer and Enumeration as integers,
 * Boolean as 0/1, String quoted. */
static int write_row_at(sim_run *r, double t, FILE *out, char *err, size_t errlen)
{
    char num[40];
    fputs(r->fmusim ? fmusim_number(t, 0, num, sizeof num)
                    : fmu_sim_format_double(t, num, sizeof num),
          out);
    for (size_t i = 0; i < r->n_out; i++) {
        const fmu_var *var = &fmu_step_md(r->s)->vars[r->out_var[i]];
        fputc(',', out);
        if (fmu_step_md(r->s)->fmi3) {
            /* Every FMI 3.0 type and array element (fmu_step_get_text's forms). */
            const char *text;
            if (fmu_step_get_text(r->s, var->name, &text))
                return snprintf(err, errlen, "%s", fmu_step_errmsg(r->s)), 1;
            put_field(out, v3_text(r, var, text, num, sizeof num), var->type == FMU_T_STRING);
            continue;
        }
        if (var->type == FMU_T_STRING) {
            const char *str;
            if (fmu_step_get_string(r->s, var->name, &str))
                return snprintf(err, errlen, "%s", fmu_step_errmsg(r->s)), 1;
            put_field(out, str, 1);
            continue;
        }
        double v;
        if (fmu_step_get_by_name(r->s, var->name, &v))
            return snprintf(err, errlen, "%s", fmu_step_errmsg(r->s)), 1;
        fputs(var->type != FMU_T_REAL ? (snprintf(num, sizeof num, "%.17g", v), num)
              : r->fmusim             ? fmusim_number(v, 0, num, sizeof num)
                                      : fmu_sim_format_double(v, num, sizeof num),
              out);
    }
    fputc('\n', out);
    r->points++;
    return 0;
}

static int write_row(sim_run *r, FILE *out, char *err, size_t errlen)
{
    return write_row_at(r, fmu_step_time(r->s), out, err, errlen);
}

static int pick_columns(sim_run *r, const fmu_sim_opts *o, FILE *out, char *err, size_t errlen)
{
    const fmu_md *md = fmu_step_md(r->s);
    r->out_var = calloc(md->n_vars + 1, sizeof *r->out_var);
    if (!r->out_var) return snprintf(err, errlen, "out of memory"), 1;
    /* Every output whatever its type, then (--states) the continuous states that are not
     * outputs. */
    for (size_t i = 0; i < md->n_vars; i++) {
        int state = 0;
        for (size_t k = 0; o->with_states && k < md->n_states; k++)
            state |= (size_t)md->state_index[k] == i;
        /* A clock has no value outside event mode: it is not recorded. */
        if ((md->vars[i].causality == FMU_C_OUTPUT || state) && md->vars[i].type != FMU_T_CLOCK)
            r->out_var[r->n_out++] = (long)i;
    }
    put_field(out, "time", r->fmusim); /* fmusim quotes every name of its header */
    for (size_t i = 0; i < r->n_out; i++) {
        fputc(',', out);
        put_field(out, md->vars[r->out_var[i]].name, r->fmusim);
    }
    fputc('\n', out);
    if (!r->tab.names) return 0;
    size_t n = r->tab.n_cols;
    r->in_vr = calloc(n, sizeof *r->in_vr);
    r->in_col = calloc(n, sizeof *r->in_col);
    r->set_col = calloc(n, sizeof *r->set_col);
    r->set_last = calloc(n, sizeof *r->set_last);
    r->set_f32 = calloc(n, sizeof *r->set_f32);
    r->f32_text = calloc(n, sizeof *r->f32_text);
    r->u = calloc(n, sizeof *r->u);
    r->du = calloc(n, sizeof *r->du);
    if (!r->in_vr || !r->in_col || !r->set_col || !r->set_last || !r->u || !r->du || !r->set_f32 ||
        !r->f32_text)
        return snprintf(err, errlen, "out of memory"), 1;
    for (size_t c = 1; c < n; c++) {
        long k = fmu_md_find(md, r->tab.names[c]);
        if (k < 0) k = fmu_md_find_array(md, r->tab.names[c]); /* "1 2 3": the whole array */
        const fmu_var *v = k >= 0 ? &md->vars[k] : NULL;
        int ok = v && v->causality == FMU_C_INPUT &&
                 (v->type == FMU_T_REAL || (md->fmi3 && v->type != FMU_T_CLOCK));
        if (!ok)
            return snprintf(err, errlen, "%s: column \"%s\" is not %s input of the FMU",
                            o->input_csv, r->tab.names[c], md->fmi3 ? "an" : "a Real"),
                   1;
        /* Continuous scalar Reals are interpolated; every other input is held from its row
         * on, and a change of it is an input event (fmusim's rule, doc/fmu.md §8). */
        if (v->type == FMU_T_REAL && !v->n_elems && v->variability == FMU_V_CONTINUOUS) {
            r->in_col[r->n_in] = c;
            r->in_vr[r->n_in++] = v->vr;
        } else {
            /* A continuous Float32 is interpolated too (fmusim does), set by its text. */
            r->set_f32[r->n_set] = v->type == FMU_T_FLOAT32 && !v->n_elems &&
                                   v->variability == FMU_V_CONTINUOUS &&
                                   o->interp == FMU_SIM_LINEAR;
            r->set_col[r->n_set++] = c;
        }
    }
    return 0;
}

/* The CSV inputs at t (value and slope of the segment starting at t); *next gets the next
 * CSV row time after t. NULL when there is no input file. Co-simulation gets the slopes only
 * when the FMU interpolates inputs (r->interp_cs); otherwise it holds the value of t over the
 * step, as fmusim sets it. */
static const fmu_inputs *inputs_at(sim_run *r, const fmu_sim_opts *o, double t, fmu_inputs *in,
                                   double *next)
{
    *next = INFINITY;
    if (!r->tab.names || r->tab.n_cols < 2) return NULL;
    for (size_t i = 0; i < r->n_in; i++)
        sample(&r->tab, r->in_col[i], t, o->interp, &r->u[i], &r->du[i], next);
    if (r->n_set) { /* the held inputs change at rows too */
        double v, sl;
        sample(&r->tab, 0, t, FMU_SIM_HOLD, &v, &sl, next);
    }
    int slopes =
        o->interp == FMU_SIM_LINEAR && (fmu_step_kind(r->s) == FMU_KIND_ME || r->interp_cs);
    *in = (fmu_inputs){r->n_in, r->in_vr, r->u, slopes, r->du};
    return in;
}

/* Two cells of a held column differ (by value; by text where a double cannot tell: strings,
 * bytes, integers beyond 2^53). */
static int cells_differ(const fmu_sim_table *t, size_t i, size_t j, size_t c)
{
    size_t w = t->n_cols;
    double a = t->v[i * w + c], b = t->v[j * w + c];
    if (fabs(a) < 9007199254740992.0 && fabs(b) < 9007199254740992.0 && a == b) return 0;
    return strcmp(t->text[i * w + c], t->text[j * w + c]) != 0;
}

/* The first input event after t, or INFINITY: a row time given twice (a jump of an
 * interpolated input) or a row where a held input changes (with --hold, every input is
 * held). fmusim cuts its steps there. */
static double next_input_event(const sim_run *r, const fmu_sim_opts *o, double t)
{
    const fmu_sim_table *tab = &r->tab;
    size_t w = tab->n_cols;
    for (size_t i = 0; tab->names && i + 1 < tab->n_rows; i++) {
        double t0 = tab->v[i * w], t1 = tab->v[(i + 1) * w];
        if (t1 <= t) continue;
        if (t0 == t1) return t0;
        for (size_t k = 0; k < r->n_set; k++)
            if (!r->set_f32[k] && cells_differ(tab, i, i + 1, r->set_col[k])) return t1;
        for (size_t k = 0; o->interp == FMU_SIM_HOLD && k < r->n_in; k++)
            if (cells_differ(tab, i, i + 1, r->in_col[k])) return t1;
    }
    return INFINITY;
}

/* FMI 3.0 inputs other than scalar Float64: the text of the last row at or before t, set by
 * name when it changed (sample-and-hold: integers, booleans, strings and bytes do not
 * interpolate). */
static int set_typed_inputs(sim_run *r, double t, char *err, size_t errlen)
{
    const fmu_sim_table *tab = &r->tab;
    size_t w = tab->n_cols, k = 0;
    while (k + 1 < tab->n_rows && tab->v[(k + 1) * w] <= t)
        k++;
    for (size_t i = 0; i < r->n_set; i++) {
        size_t c = r->set_col[i];
        const char *text = tab->text[k * w + c];
        if (r->set_f32[i] && k + 1 < tab->n_rows && t >= tab->v[k * w]) {
            /* fmusim's arithmetic: the rows as floats, the line in double, then a float. */
            double t0 = tab->v[k * w], t1 = tab->v[(k + 1) * w];
            double x0 = (float)tab->v[k * w + c], x1 = (float)tab->v[(k + 1) * w + c];
            char now[40];
            snprintf(now, sizeof now, "%.9g",
                     (double)(float)(x0 + (t - t0) * (x1 - x0) / (t1 - t0)));
            if (!strcmp(now, r->f32_text[i])) continue;
            if (fmu_step_set_text(r->s, tab->names[c], now))
                return snprintf(err, errlen, "%s", fmu_step_errmsg(r->s)), 1;
            memcpy(r->f32_text[i], now, sizeof now);
            r->set_last[i] = NULL;
            continue;
        }
        if (r->set_last[i] && strcmp(r->set_last[i], text) == 0) continue;
        if (fmu_step_set_text(r->s, tab->names[c], text))
            return snprintf(err, errlen, "%s", fmu_step_errmsg(r->s)), 1;
        r->set_last[i] = text;
    }
    return 0;
}

/* The inputs of t: interpolated ones (value, and slopes where the FMU takes them) and held
 * ones (the last row at or before t). */
static int set_inputs(sim_run *r, const fmu_sim_opts *o, double t, char *err, size_t errlen)
{
    fmu_inputs in;
    double next;
    const fmu_inputs *pin = inputs_at(r, o, t, &in, &next);
    if (pin && fmu_step_set_inputs(r->s, pin))
        return snprintf(err, errlen, "%s", fmu_step_errmsg(r->s)), 1;
    return r->n_set ? set_typed_inputs(r, t, err, errlen) : 0;
}

/* Co-simulation with --record-intermediate-values: a row at each intermediate update inside
 * a step (fmu_step_set_update_hook), as fmusim records them. */
static int at_update(void *ctx, fmu_step *s, double t)
{
    (void)s;
    sim_run *r = ctx;
    return write_row_at(r, t, r->out, r->err, r->errlen);
}

/* Model exchange: the row before an event, at the event's time (fmu_step_set_event_hook). */
static int before_event(void *ctx, fmu_step *s, double t)
{
    (void)s;
    sim_run *r = ctx;
    r->events++;
    return write_row_at(r, t, r->out, r->err, r->errlen);
}

/* Co-simulation from the current time to t_next: the inputs of the current time, held over
 * the step unless the FMU interpolates them (then the step is split at CSV rows, where the
 * slopes change). */
static int cs_step(sim_run *r, const fmu_sim_opts *o, double t_next, char *err, size_t errlen,
                   int *terminated)
{
    while (fmu_step_time(r->s) < t_next) {
        double t = fmu_step_time(r->s), next, reached;
        fmu_inputs in;
        const fmu_inputs *pin = inputs_at(r, o, t, &in, &next);
        if (r->n_set && set_typed_inputs(r, t, err, errlen)) return 1;
        /* Split where the slopes change, for an FMU that interpolates. */
        double seg_end = r->interp_cs && next < t_next ? next : t_next;
        int rc = fmu_step_to(r->s, seg_end, pin, &reached);
        if (rc == FMU_STEP_TERMINATED) {
            *terminated = 1;
            snprintf(err, errlen, "%s", fmu_step_errmsg(r->s));
            return 0;
        }
        /* Event mode (--event-mode): the step stopped at an event, handled; its row after. */
        if (rc == FMU_STEP_EVENT && reached < t_next) {
            if (write_row(r, r->out, err, errlen)) return 1;
            continue;
        }
        if (rc && rc != FMU_STEP_EVENT)
            return err[0] ? 1 : (snprintf(err, errlen, "%s", fmu_step_errmsg(r->s)), 1);
    }
    return 0;
}

/* Model exchange from the current time to t_next, split at CSV rows (the inputs' polynomials
 * are exact per segment); the step stops at each event, where a row is written after it (the
 * event hook wrote the one before). */
static int me_step(sim_run *r, const fmu_sim_opts *o, double t_next, FILE *out, char *err,
                   size_t errlen, int *terminated)
{
    while (fmu_step_time(r->s) < t_next) {
        double t = fmu_step_time(r->s), next, reached;
        fmu_inputs in;
        const fmu_inputs *pin = inputs_at(r, o, t, &in, &next);
        double seg_end = next < t_next ? next : t_next;
        int rc = fmu_step_to(r->s, seg_end, pin, &reached);
        if (rc == FMU_STEP_TERMINATED) {
            *terminated = 1;
            snprintf(err, errlen, "%s", fmu_step_errmsg(r->s));
            return 0;
        }
        if (rc == FMU_STEP_EVENT && reached < t_next) {
            if (write_row(r, out, err, errlen)) return 1;
            continue;
        }
        if (rc && rc != FMU_STEP_EVENT)
            return err[0] ? 1 : (snprintf(err, errlen, "%s", fmu_step_errmsg(r->s)), 1);
    }
    return 0;
}

/* The communication points, in fmusim's order (doc/fmu.md §8): points start + i*step (the
 * last one clamped to the stop time when the step does not divide the span), and every input
 * event; co-simulation writes the outputs a step produced before the inputs of its end are
 * set, model exchange sets the interpolated inputs first (its outputs are functions of them)
 * and writes one row before and one after every event. */
static int sim_loop(sim_run *r, const fmu_sim_opts *o, double t0, double t1, double h, FILE *out,
                    char *err, size_t errlen)
{
    int me = fmu_step_kind(r->s) == FMU_KIND_ME, terminated = 0;
    if (set_inputs(r, o, t0, err, errlen) || write_row(r, out, err, errlen)) return 1;
    for (double n = 0;;) {
        double t = fmu_step_time(r->s);
        /* Done at the stop time; a rest below a billionth of a step is rounding, not a step. */
        if (t >= t1 || t1 - t <= 1e-9 * h) break;
        double regular = t0 + (n + 1) * h, next = regular;
        if (next > t1 && next - t1 > 1e-9 * h) next = t1; /* the step does not divide */
        double event = next_input_event(r, o, t);
        int input_event = next >= event;
        if (input_event) next = event;
        if (me ? me_step(r, o, next, out, err, errlen, &terminated)
               : cs_step(r, o, next, err, errlen, &terminated))
            return 1;
        if (terminated) return write_row(r, out, err, errlen); /* as the model left it */
        /* The regular point is reached (an input event a rounding away from it counts: a
         * step of a few ulps would follow, a row of its own where fmusim writes one). */
        if (fabs(fmu_step_time(r->s) - regular) <= 1e-9 * h || next == t1) n++;
        if (me) {
            if (input_event) { /* the row before the input event, then its values */
                r->events++;
                if (write_row(r, out, err, errlen)) return 1;
            }
            /* Held inputs change at input events only; a continuous Float32 at every point. */
            if (r->n_set && set_typed_inputs(r, next, err, errlen)) return 1;
            fmu_inputs in;
            double nx;
            const fmu_inputs *pin = inputs_at(r, o, next, &in, &nx);
            if (pin && fmu_step_set_inputs(r->s, pin))
                return snprintf(err, errlen, "%s", fmu_step_errmsg(r->s)), 1;
        }
        if (write_row(r, out, err, errlen)) return 1;
    }
    return 0;
}

/* One line on o->summary: the run, what was recorded, the ME solver's restarts. */
static void summary(sim_run *r, const fmu_sim_opts *o, double t0)
{
    if (!o->summary) return;
    const fmu_md *md = fmu_step_md(r->s);
    size_t n_str = 0, n_disc = 0;
    for (size_t i = 0; i < r->n_out; i++) {
        fmu_vtype ty = md->vars[r->out_var[i]].type;
        n_str += ty == FMU_T_STRING;
        n_disc += ty != FMU_T_STRING && ty != FMU_T_REAL;
    }
    fprintf(o->summary,
            "tempo-fmu: %s (%s): t = %.9g .. %.9g s, %ld rows (%ld before an event), %zu "
            "columns recorded (%zu Integer/Boolean/Enumeration, %zu String), none left out",
            md->model_name, fmu_step_kind(r->s) == FMU_KIND_ME ? "ME" : "CS", t0,
            fmu_step_time(r->s), r->points, r->events, r->n_out, n_disc, n_str);
    if (fmu_step_kind(r->s) == FMU_KIND_ME)
        fprintf(
            o->summary,
            "; CVODE: %ld start, %ld restarts (%ld events, %ld input jumps, %ld set from "
            "outside, %ld save/restore)",
            fmu_step_restarts(r->s, FMU_RESTART_START),
            fmu_step_restarts(r->s, FMU_RESTART_EVENT) +
                fmu_step_restarts(r->s, FMU_RESTART_INPUT) +
                fmu_step_restarts(r->s, FMU_RESTART_SET) +
                fmu_step_restarts(r->s, FMU_RESTART_STATE),
            fmu_step_restarts(r->s, FMU_RESTART_EVENT), fmu_step_restarts(r->s, FMU_RESTART_INPUT),
            fmu_step_restarts(r->s, FMU_RESTART_SET), fmu_step_restarts(r->s, FMU_RESTART_STATE));
    fputc('\n', o->summary);
}

int fmu_sim_run(const fmu_sim_opts *o, FILE *out, char *err, size_t errlen)
{
    sim_run r = {0};
    int rc = 1;
    if (err && errlen) err[0] = '\0';
    if (o->input_csv && fmu_sim_read_csv(o->input_csv, &r.tab, err, errlen)) return 1;
    fmu_step_opts so = o->fopts;
    if (o->has_start) so.has_start = 1, so.start_time = o->start;
    if (o->has_stop) so.has_stop = 1, so.stop_time = o->stop;
    if (fmu_step_open(o->fmu_path, &so, &r.s, err, errlen)) goto done;
    const fmu_md *md = fmu_step_md(r.s);
    double t0 = fmu_step_time(r.s);
    double t1 = o->has_stop ? o->stop : md->has_stop ? md->stop_time : t0 + 1.0;
    double h = o->has_step ? o->step : md->has_step ? md->step_size : (t1 - t0) / SIM_DEFAULT_STEPS;
    if (!(t1 >= t0)) {
        snprintf(err, errlen, "stop time %g is before start time %g", t1, t0);
        goto done;
    }
    if (!(h > 0)) h = 1.0; /* t1 == t0: no steps anyway */
    r.fmusim = o->fmusim_format;
    r.out = out, r.err = err, r.errlen = errlen;
    r.interp_cs = fmu_step_kind(r.s) == FMU_KIND_CS && !md->fmi3 && md->cs.can_interpolate_inputs &&
                  o->interp == FMU_SIM_LINEAR;
    if (fmu_step_kind(r.s) == FMU_KIND_ME || (md->fmi3 && so.event_mode && md->cs.has_event_mode)) {
        fmu_step_set_event_stop(r.s, 1);
        fmu_step_set_event_hook(r.s, before_event, &r);
    } else if (md->fmi3 && so.early_return && md->cs.can_return_early) {
        /* fmusim --early-return-allowed: a step the FMU ends early (at an event it handled
         * inside) gets a row at that time, and the next one goes on to the regular point. */
        fmu_step_set_event_stop(r.s, 1);
    }
    if (so.intermediate_update) fmu_step_set_update_hook(r.s, at_update, &r);
    if (pick_columns(&r, o, out, err, errlen) || sim_loop(&r, o, t0, t1, h, out, err, errlen))
        goto done;
    summary(&r, o, t0);
    rc = 0;
done:
    fmu_step_close(r.s);
    fmu_sim_table_fini(&r.tab);
    free(r.in_vr);
    free(r.in_col);
    free(r.set_col);
    free(r.set_last);
    free(r.set_f32);
    free(r.f32_text);
    free(r.u);
    free(r.du);
    free(r.out_var);
    return rc;
}
