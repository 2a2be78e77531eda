/* A federation file's FMUs as port slaves in this process, for the tests and the bench that
 * run master algorithms over real FMUs (wr_fmu_test.c, semi_fmu_test.c, strong_fmu_test.c,
 * hybrid_fmu_test.c, tests/bench/wr_bench.c): every federate's FMU opened with its parameters
 * and solver settings, wrapped as an fmu_slave, its inputs linked to the outputs that feed them
 * (port_link). A master-slave algorithm then runs over the returned port_master exactly as it
 * runs over distributed slaves (doc/algorithms/port.md). The programs do not use it:
 * tempo-master --local runs tempo-fmu's slave role in its process (doc/master.md). Header only,
 * as tests/unit/wr_fake.h; it links the run, config, fmu and algo libraries.
 */
#ifndef TEMPO_TESTS_UNIT_MASTER_LOCAL_H
#define TEMPO_TESTS_UNIT_MASTER_LOCAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/port.h"
#include "algorithms/wr.h"
#include "federate/config/fedfile.h"
#include "federate/config/fedfile_algo.h"
#include "federate/config/fedfile_master.h"
#include "federate/fmu/fmu_slave.h"
#include "federate/run/results.h"
#include "federate/run/run_check.h"

#define MASTER_LOCAL_ERRLEN 1024 /* enough for every message of this module */

/* Called at every committed step of federate `fed` with its n recorded variables (the file's
 * "record", default its outputs) at t seconds; vals is valid during the call only. */
typedef void master_local_row_fn(void *ctx, size_t fed, double t, size_t n, const double *vals);

/** Options; all-zero means: the kind the FMU file offers (CS when present), no CSV, no hook. */
typedef struct master_local_opts {
    fmu_kind kind;            /* FMU_KIND_AUTO, FMU_KIND_CS or FMU_KIND_ME for every FMU */
    const char *csv_dir;      /* not NULL: "<csv_dir>/<federate>.csv" per federate (doc/run.md
                                 format), and "<csv_dir>/master.csv" of the algorithm's notes */
    master_local_row_fn *row; /* NULL: none */
    void *row_ctx;            /* handed to row */
} master_local_opts;

typedef struct master_local master_local;

typedef struct local_fed {
    master_local *ml;
    size_t idx;
    fmu_step *fmu;
    fmu_slave *slave;
    res_writer *csv; /* NULL when no CSV */
    size_t n_rec;
    fmi2ValueReference *rec_vr; /* n_rec */
    double *rec_val;            /* n_rec */
} local_fed;

typedef struct local_clock {
    port_local_clock clk; /* first: the in-process instant rule */
    FILE *notes;          /* master.csv, or NULL */
    double tick;
} local_clock;

struct master_local {
    const fedfile *ff;
    master_local_opts o;
    local_fed *feds;    /* ff->n_feds */
    port_slave *slaves; /* ff->n_feds */
    fmu_slave_bus *bus; /* hybrid: the slaves' discrete channel, else NULL */
    port_link *links;   /* n_links: every input, slave by slave */
    size_t n_links;
    local_clock clock;
    port_master_ops ops;
    port_master m;
};

static inline int ml_fail(char *err, size_t errlen, int st, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return st;
}

static inline int ml_clock_open(void *ctx, int64_t t)
{
    return port_local_master_ops.open(ctx, t);
}
static inline int ml_clock_close(void *ctx, int64_t t)
{
    return port_local_master_ops.close(ctx, t);
}
static inline void ml_clock_note(void *ctx, const char *what, double v)
{
    local_clock *c = ctx;
    if (c->notes)
        fprintf(c->notes, "%.17g,%s,%.17g\n", port_seconds(c->tick, c->clk.last), what, v);
}

/* The fmu_slave's record hook: read the recorded variables, write the CSV row, call the hook. */
static inline int ml_record_row(void *ctx, int64_t t)
{
    local_fed *f = ctx;
    master_local *ml = f->ml;
    double ts = port_seconds(ml->ff->resolution, t);
    if (f->n_rec && fmu_step_get_real(f->fmu, f->n_rec, f->rec_vr, f->rec_val) != FMU_STEP_OK)
        return -1;
    char e[RES_ERRLEN];
    if (f->csv && res_write_row(f->csv, ts, f->rec_val, e, sizeof e) != RES_OK) return -1;
    if (ml->o.row) ml->o.row(ml->o.row_ctx, f->idx, ts, f->n_rec, f->rec_val);
    return 0;
}

/* Value reference of a Real variable, or -1 with err set. */
static inline int ml_real_vr(const fmu_md *md, const char *fed, const char *var,
                             fmi2ValueReference *vr, double *start, char *err, size_t errlen)
{
    long k = fmu_md_find(md, var);
    if (k < 0 || md->vars[k].type != FMU_T_REAL)
        return ml_fail(err, errlen, -1, "federate %s: no Real variable \"%s\" in its FMU", fed,
                       var);
    if (fmu_md_wire_vr(md, k, vr))
        return ml_fail(err, errlen, -1, "federate %s: array element \"%s\": no element handle", fed,
                       var);
    if (start) *start = md->vars[k].has_start ? md->vars[k].start_real : 0;
    return 0;
}

/* Open federate j's FMU with the file's parameters and solver settings. */
static inline int ml_open_fmu(master_local *ml, size_t j, char *err, size_t errlen)
{
    const fedfile *ff = ml->ff;
    const fedfile_fed *fd = &ff->feds[j];
    const char **names = calloc(fd->n_params + 1, sizeof *names);
    char(*vals)[64] = calloc(fd->n_params + 1, sizeof *vals);
    if (!names || !vals) {
        free(names), free(vals);
        return ml_fail(err, errlen, PORT_ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < fd->n_params; k++) {
        const fedfile_param *p = &fd->params[k];
        names[k] = p->name;
        if (p->kind == FEDFILE_REAL)
            snprintf(vals[k], sizeof vals[k], "%.17g", p->real);
        else if (p->kind == FEDFILE_INTEGER)
            snprintf(vals[k], sizeof vals[k], "%lld", p->integer);
        else if (p->kind == FEDFILE_BOOLEAN)
            snprintf(vals[k], sizeof vals[k], "%s", p->integer ? "true" : "false");
        else
            snprintf(vals[k], sizeof vals[k], "%s", p->string ? p->string : "");
    }
    const char **pv = calloc(fd->n_params + 1, sizeof *pv);
    if (!pv) {
        free(names), free(vals);
        return ml_fail(err, errlen, PORT_ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < fd->n_params; k++)
        pv[k] = vals[k];
    fmu_step_opts so = {.kind = ml->o.kind,
                        .rtol = fd->solver.rtol,
                        .atol = fd->solver.atol,
                        .solver = fd->solver.method == FEDFILE_METHOD_ADAMS ? FMU_SOLVER_ADAMS
                                                                            : FMU_SOLVER_BDF,
                        .max_step = fd->solver.max_step,
                        .has_start = 1,
                        .start_time = port_seconds(ff->resolution, ff->algo.t_start),
                        .n_params = fd->n_params,
                        .param_names = names,
                        .param_values = pv,
                        .instance_name = fd->name,
                        .early_return = (ff->algo.needs & FEDFILE_NEEDS_EVENT_STOPS) != 0,
                        .event_mode = (ff->algo.needs & FEDFILE_NEEDS_EVENT_STOPS) != 0,
                        .intermediate_update = (ff->algo.needs & FEDFILE_NEEDS_SUB_OUTPUTS) != 0};
    char e[FMU_ERR_LEN] = "";
    int rc = fmu_step_open(fd->fmu, &so, &ml->feds[j].fmu, e, sizeof e);
    free(names), free(vals), free(pv);
    if (rc != FMU_STEP_OK)
        return ml_fail(err, errlen, PORT_EFAIL, "federate %s: %s: %s", fd->name, fd->fmu, e);
    if (fedfile_check_fmu(ff, j, fmu_step_md(ml->feds[j].fmu), e, sizeof e) != FEDFILE_OK ||
        run_check_params(ff, j, fmu_step_md(ml->feds[j].fmu), e, sizeof e) != 0)
        return ml_fail(err, errlen, PORT_EFAIL, "%s", e);
    return PORT_OK;
}

/* Index of the output of federate src that publishes cls.attr. */
static inline size_t ml_output_of(const fedfile_fed *src, const fedfile_wire *in)
{
    for (size_t k = 0; k < src->n_outputs; k++)
        if (!strcmp(src->outputs[k].cls, in->cls) && !strcmp(src->outputs[k].attr, in->attr))
            return k;
    return 0; /* fedfile_load guarantees a publisher */
}

/* Wrap federate j: value references of its wiring, the record columns, the slave, its links. */
static inline int ml_wrap(master_local *ml, size_t j, size_t *link_at, char *err, size_t errlen)
{
    const fedfile_fed *fd = &ml->ff->feds[j];
    local_fed *f = &ml->feds[j];
    const fmu_md *md = fmu_step_md(f->fmu);
    fmi2ValueReference *in = calloc(fd->n_inputs + 1, sizeof *in),
                       *out = calloc(fd->n_outputs + 1, sizeof *out);
    unsigned char *din = calloc(fd->n_inputs + 1, 1), *dout = calloc(fd->n_outputs + 1, 1);
    double *tf = calloc(2 * fd->n_inputs + 1, sizeof *tf); /* factors, then offsets */
    f->n_rec = fd->n_record;
    f->rec_vr = calloc(f->n_rec + 1, sizeof *f->rec_vr);
    f->rec_val = calloc(f->n_rec + 1, sizeof *f->rec_val);
    int rc = PORT_OK;
    if (!in || !out || !f->rec_vr || !f->rec_val || !din || !dout || !tf) {
        rc = ml_fail(err, errlen, PORT_ENOMEM, "out of memory");
        goto out;
    }
    fedfile_bus_flags(ml->ff, j, dout, din); /* the bus couplings (FEDFILE_NEEDS_BUS) */
    for (size_t i = 0; i < fd->n_inputs; i++) {
        port_link *l = &ml->links[(*link_at)++];
        double start = 0; /* the start value: unused, every input is wired */
        if (ml_real_vr(md, fd->name, fd->inputs[i].var, &in[i], &start, err, errlen)) goto bad;
        long src = fd->inputs[i].source;
        tf[i] = fd->inputs[i].factor;
        tf[fd->n_inputs + i] = fd->inputs[i].offset;
        *l = (port_link){.to = j,
                         .in = i,
                         .from = src >= 0 ? (size_t)src : j,
                         .out = src >= 0 ? ml_output_of(&ml->ff->feds[src], &fd->inputs[i]) : 0};
    }
    for (size_t k = 0; k < fd->n_outputs; k++)
        if (ml_real_vr(md, fd->name, fd->outputs[k].var, &out[k], NULL, err, errlen)) goto bad;
    for (size_t k = 0; k < f->n_rec; k++)
        if (ml_real_vr(md, fd->name, fd->record[k], &f->rec_vr[k], NULL, err, errlen)) goto bad;
    fmu_slave_opts so = {.name = fd->name,
                         .fmu = f->fmu,
                         .n_in = fd->n_inputs,
                         .in_vr = in,
                         .n_out = fd->n_outputs,
                         .out_vr = out,
                         .t_now = ml->ff->algo.t_start,
                         .tick = ml->ff->resolution,
                         .record = ml_record_row,
                         .record_ctx = f,
                         .disc_out = dout,
                         .disc_in = din,
                         .in_factor = tf,
                         .in_offset = tf + fd->n_inputs};
    rc = fmu_slave_new(&so, &f->slave, &ml->slaves[j]);
    if (rc) rc = ml_fail(err, errlen, rc, "federate %s: cannot wrap its FMU as a slave", fd->name);
    goto out;
bad:
    rc = PORT_EFAIL;
out:
    free(in);
    free(out);
    free(din);
    free(dout);
    free(tf);
    return rc;
}

static inline int ml_open_csv(master_local *ml, size_t j, char *err, size_t errlen)
{
    const fedfile_fed *fd = &ml->ff->feds[j];
    char e[RES_ERRLEN];
    if (res_open(&ml->feds[j].csv, ml->o.csv_dir, fd->name, fd->n_record,
                 (const char *const *)fd->record, e, sizeof e) != RES_OK)
        return ml_fail(err, errlen, PORT_EUSAGE, "%s", e);
    return PORT_OK;
}

/* Hybrid: the slaves share their discrete values with each other on one bus. */
static inline int ml_join_bus(master_local *ml, char *err, size_t errlen)
{
    const fedfile *ff = ml->ff;
    if (!(ml->bus = fmu_slave_bus_new(ff->n_feds)))
        return ml_fail(err, errlen, PORT_ENOMEM, "out of memory");
    for (size_t j = 0; j < ff->n_feds; j++) {
        size_t n_in = ff->feds[j].n_inputs, n = 0;
        size_t *src = calloc(n_in + 1, sizeof *src), *k = calloc(n_in + 1, sizeof *k);
        int rc = !src || !k ? PORT_ENOMEM : PORT_OK;
        for (size_t i = 0; !rc && i < n_in; i++)
            if (fedfile_bus_source(ff, j, i, &src[n], &k[n]) == 0) n++;
        if (!rc) rc = fmu_slave_join_bus(ml->feds[j].slave, ml->bus, j, src, k);
        free(src);
        free(k);
        if (rc)
            return ml_fail(err, errlen, rc, "federate %s: joining the discrete channel: %s",
                           ff->feds[j].name, port_strerror(rc));
    }
    return PORT_OK;
}

static inline void master_local_free(master_local *ml);

/**
 * Open every federate of ff as a slave in this process, at ff->algo.start.
 * @param ff     a loaded federation file, not NULL; must outlive the result
 * @param o      options, NULL for the defaults
 * @param out    out: the set, freed with master_local_free; NULL on failure
 * @param err    caller-owned buffer naming the federate and FMU at fault; errlen its size
 * @return PORT_OK; PORT_EFAIL (an FMU failed to open or does not fit the file: err says
 *         which); PORT_EUSAGE (a CSV could not be created); PORT_ENOMEM.
 */
static inline int master_local_open(const fedfile *ff, const master_local_opts *o,
                                    master_local **out, char *err, size_t errlen)
{
    *out = NULL;
    master_local *ml = calloc(1, sizeof *ml);
    if (!ml) return ml_fail(err, errlen, PORT_ENOMEM, "out of memory");
    ml->ff = ff;
    if (o) ml->o = *o;
    size_t n = ff->n_feds, n_links = 0;
    for (size_t j = 0; j < n; j++)
        n_links += ff->feds[j].n_inputs;
    ml->feds = calloc(n, sizeof *ml->feds);
    ml->slaves = calloc(n, sizeof *ml->slaves);
    ml->links = calloc(n_links + 1, sizeof *ml->links);
    ml->n_links = n_links;
    int rc = PORT_OK;
    if (!ml->feds || !ml->slaves || !ml->links) {
        rc = ml_fail(err, errlen, PORT_ENOMEM, "out of memory");
        goto fail;
    }
    size_t at = 0;
    for (size_t j = 0; j < n && rc == PORT_OK; j++) {
        ml->feds[j].ml = ml;
        ml->feds[j].idx = j;
        if ((rc = ml_open_fmu(ml, j, err, errlen)) == PORT_OK)
            rc = ml_wrap(ml, j, &at, err, errlen);
        if (rc == PORT_OK && ml->o.csv_dir) rc = ml_open_csv(ml, j, err, errlen);
    }
    if (rc == PORT_OK && (ff->algo.needs & FEDFILE_NEEDS_BUS)) rc = ml_join_bus(ml, err, errlen);
    if (rc) goto fail;
    ml->clock = (local_clock){.clk = {INT64_MIN}, .tick = ff->resolution};
    if (ml->o.csv_dir) {
        char e[1200];
        if (!(ml->clock.notes = res_create(ml->o.csv_dir, "master.csv", e, sizeof e))) {
            rc = ml_fail(err, errlen, PORT_EUSAGE, "%s", e);
            goto fail;
        }
        fputs("time,what,value\n", ml->clock.notes);
    }
    ml->ops =
        (port_master_ops){.open = ml_clock_open, .close = ml_clock_close, .note = ml_clock_note};
    ml->m = (port_master){.ops = &ml->ops,
                          .ctx = &ml->clock,
                          .slaves = ml->slaves,
                          .n_slaves = n,
                          .tick = ff->resolution,
                          .t_start = ff->algo.t_start,
                          .t_end = ff->algo.t_end};
    *out = ml;
    return PORT_OK;
fail:
    master_local_free(ml);
    return rc;
}

/** The master over the slaves (in-process instant clock; note writes master.csv when asked):
 * tick = ff->resolution, t_start/t_end of ff->algo. Owned by ml. */
static inline const port_master *master_local_port(const master_local *ml)
{
    return &ml->m;
}
/** The links of every input, slave by slave (port_link), from the wiring (every input of a
 * loaded file has a publisher). Owned by ml; NULL when no inputs; *n receives their number. */
static inline const port_link *master_local_links(const master_local *ml, size_t *n)
{
    if (n) *n = ml->n_links;
    return ml->links;
}

/** Federate j's slave (j < number of federates); owned by ml. */
static inline fmu_slave *master_local_slave(const master_local *ml, size_t j)
{
    return ml->feds[j].slave;
}

/**
 * Run the file's algorithm ("wr" only, so far) over the local slaves.
 * @param res  out: the WR result (wr_result_fini), not NULL
 * @param err  on failure the algorithm's report, followed by the failing slave's own message
 * @return the status of wr_run, or PORT_EUSAGE for another method.
 */
static inline int master_local_run(master_local *ml, wr_result *res, char *err, size_t errlen)
{
    const wr_opts *o = fedfile_settings(ml->ff, "wr");
    if (!o) {
        memset(res, 0, sizeof *res);
        return ml_fail(err, errlen, PORT_EUSAGE, "%s: method \"%s\" is not \"wr\"", ml->ff->path,
                       fedfile_method_name(ml->ff));
    }
    int st = wr_run(&ml->m, ml->links, ml->n_links, o, res, err, errlen);
    if (st != PORT_OK && res->failed_slave >= 0 && err) {
        port_add_cause(err, errlen, st, ml->ff->feds[res->failed_slave].name,
                       fmu_slave_errmsg(ml->feds[res->failed_slave].slave));
    }
    return st;
}

/** Close the CSV files, free the slaves and close the FMUs. Accepts NULL. */
static inline void master_local_free(master_local *ml)
{
    if (!ml) return;
    for (size_t j = 0; ml->feds && j < ml->ff->n_feds; j++) {
        local_fed *f = &ml->feds[j];
        char e[RES_ERRLEN];
        if (f->csv) res_close(f->csv, e, sizeof e);
        fmu_slave_free(f->slave);
        fmu_step_close(f->fmu);
        free(f->rec_vr);
        free(f->rec_val);
    }
    if (ml->clock.notes) fclose(ml->clock.notes);
    fmu_slave_bus_free(ml->bus);
    free(ml->feds);
    free(ml->slaves);
    free(ml->links);
    free(ml);
}

#endif /* TEMPO_TESTS_UNIT_MASTER_LOCAL_H */
