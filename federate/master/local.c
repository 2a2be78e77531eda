/* A federation file's FMUs as in-process port slaves (federate/master/local.h): open, wire,
 * record, run. The distributed side (tempo-master with tempo-fmu slaves) builds the same
 * port_master from the same file, so an algorithm cannot tell the two apart
 * (doc/algorithms/port.md). */
#include "federate/master/local.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "federate/config/fedfile_algo.h"
#include "federate/config/fedfile_master.h"
#include "federate/run/results.h"
#include "federate/run/run_check.h"

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

static int fail(char *err, size_t errlen, int st, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return st;
}

static int clock_open(void *ctx, int64_t t)
{
    return port_local_master_ops.open(ctx, t);
}
static int clock_close(void *ctx, int64_t t)
{
    return port_local_master_ops.close(ctx, t);
}
static void clock_note(void *ctx, const char *what, double v)
{
    local_clock *c = ctx;
    if (c->notes)
        fprintf(c->notes, "%.17g,%s,%.17g\n", port_seconds(c->tick, c->clk.last), what, v);
}

/* The fmu_slave's record hook: read the recorded variables, write the CSV row, call the hook. */
static int record_row(void *ctx, int64_t t)
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
static int real_vr(const fmu_md *md, const char *fed, const char *var, fmi2ValueReference *vr,
                   double *start, char *err, size_t errlen)
{
    long k = fmu_md_find(md, var);
    if (k < 0 || md->vars[k].type != FMU_T_REAL)
        return fail(err, errlen, -1, "federate %s: no Real variable \"%s\" in its FMU", fed, var);
    if (fmu_md_wire_vr(md, k, vr))
        return fail(err, errlen, -1, "federate %s: array element \"%s\": no element handle", fed,
                    var);
    if (start) *start = md->vars[k].has_start ? md->vars[k].start_real : 0;
    return 0;
}

/* Open federate j's FMU with the file's parameters and solver settings. */
static int open_fmu(master_local *ml, size_t j, char *err, size_t errlen)
{
    const fedfile *ff = ml->ff;
    const fedfile_fed *fd = &ff->feds[j];
    const char **names = calloc(fd->n_params + 1, sizeof *names);
    char(*vals)[64] = calloc(fd->n_params + 1, sizeof *vals);
    if (!names || !vals) {
        free(names), free(vals);
        return fail(err, errlen, PORT_ENOMEM, "out of memory");
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
        return fail(err, errlen, PORT_ENOMEM, "out of memory");
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
                        .event_mode = (ff->algo.needs & FEDFILE_NEEDS_EVENT_STOPS) != 0};
    char e[FMU_ERR_LEN] = "";
    int rc = fmu_step_open(fd->fmu, &so, &ml->feds[j].fmu, e, sizeof e);
    free(names), free(vals), free(pv);
    if (rc != FMU_STEP_OK)
        return fail(err, errlen, PORT_EFAIL, "federate %s: %s: %s", fd->name, fd->fmu, e);
    if (fedfile_check_fmu(ff, j, fmu_step_md(ml->feds[j].fmu), e, sizeof e) != FEDFILE_OK ||
        run_check_params(ff, j, fmu_step_md(ml->feds[j].fmu), e, sizeof e) != 0)
        return fail(err, errlen, PORT_EFAIL, "%s", e);
    return PORT_OK;
}

/* Index of the output of federate src that publishes cls.attr. */
static size_t output_of(const fedfile_fed *src, const fedfile_wire *in)
{
    for (size_t k = 0; k < src->n_outputs; k++)
        if (!strcmp(src->outputs[k].cls, in->cls) && !strcmp(src->outputs[k].attr, in->attr))
            return k;
    return 0; /* fedfile_load guarantees a publisher */
}

/* Wrap federate j: value references of its wiring, the record columns, the slave, its links. */
static int wrap(master_local *ml, size_t j, size_t *link_at, char *err, size_t errlen)
{
    const fedfile_fed *fd = &ml->ff->feds[j];
    local_fed *f = &ml->feds[j];
    const fmu_md *md = fmu_step_md(f->fmu);
    fmi2ValueReference *in = calloc(fd->n_inputs + 1, sizeof *in),
                       *out = calloc(fd->n_outputs + 1, sizeof *out);
    unsigned char *din = calloc(fd->n_inputs + 1, 1), *dout = calloc(fd->n_outputs + 1, 1);
    f->n_rec = fd->n_record;
    f->rec_vr = calloc(f->n_rec + 1, sizeof *f->rec_vr);
    f->rec_val = calloc(f->n_rec + 1, sizeof *f->rec_val);
    int rc = PORT_OK;
    if (!in || !out || !f->rec_vr || !f->rec_val || !din || !dout) {
        rc = fail(err, errlen, PORT_ENOMEM, "out of memory");
        goto out;
    }
    fedfile_hybrid_flags(ml->ff, j, dout, din); /* hybrid: the discrete couplings */
    for (size_t i = 0; i < fd->n_inputs; i++) {
        port_link *l = &ml->links[(*link_at)++];
        double start = 0; /* the start value: unused, every input is wired */
        if (real_vr(md, fd->name, fd->inputs[i].var, &in[i], &start, err, errlen)) goto bad;
        long src = fd->inputs[i].source;
        *l = (port_link){.to = j,
                         .in = i,
                         .from = src >= 0 ? (size_t)src : j,
                         .out = src >= 0 ? output_of(&ml->ff->feds[src], &fd->inputs[i]) : 0};
    }
    for (size_t k = 0; k < fd->n_outputs; k++)
        if (real_vr(md, fd->name, fd->outputs[k].var, &out[k], NULL, err, errlen)) goto bad;
    for (size_t k = 0; k < f->n_rec; k++)
        if (real_vr(md, fd->name, fd->record[k], &f->rec_vr[k], NULL, err, errlen)) goto bad;
    fmu_slave_opts so = {.name = fd->name,
                         .fmu = f->fmu,
                         .n_in = fd->n_inputs,
                         .in_vr = in,
                         .n_out = fd->n_outputs,
                         .out_vr = out,
                         .t_now = ml->ff->algo.t_start,
                         .tick = ml->ff->resolution,
                         .record = record_row,
                         .record_ctx = f,
                         .disc_out = dout,
                         .disc_in = din};
    rc = fmu_slave_new(&so, &f->slave, &ml->slaves[j]);
    if (rc) rc = fail(err, errlen, rc, "federate %s: cannot wrap its FMU as a slave", fd->name);
    goto out;
bad:
    rc = PORT_EFAIL;
out:
    free(in);
    free(out);
    free(din);
    free(dout);
    return rc;
}

static int open_csv(master_local *ml, size_t j, char *err, size_t errlen)
{
    const fedfile_fed *fd = &ml->ff->feds[j];
    char e[RES_ERRLEN];
    if (res_open(&ml->feds[j].csv, ml->o.csv_dir, fd->name, fd->n_record,
                 (const char *const *)fd->record, e, sizeof e) != RES_OK)
        return fail(err, errlen, PORT_EUSAGE, "%s", e);
    return PORT_OK;
}

/* Hybrid: the slaves share their discrete values with each other on one bus. */
static int join_bus(master_local *ml, char *err, size_t errlen)
{
    const fedfile *ff = ml->ff;
    if (!(ml->bus = fmu_slave_bus_new(ff->n_feds)))
        return fail(err, errlen, PORT_ENOMEM, "out of memory");
    for (size_t j = 0; j < ff->n_feds; j++) {
        size_t n_in = ff->feds[j].n_inputs, n = 0;
        size_t *src = calloc(n_in + 1, sizeof *src), *k = calloc(n_in + 1, sizeof *k);
        int rc = !src || !k ? PORT_ENOMEM : PORT_OK;
        for (size_t i = 0; !rc && i < n_in; i++)
            if (fedfile_hybrid_source(ff, j, i, &src[n], &k[n]) == 0) n++;
        if (!rc) rc = fmu_slave_join_bus(ml->feds[j].slave, ml->bus, j, src, k);
        free(src);
        free(k);
        if (rc)
            return fail(err, errlen, rc, "federate %s: joining the discrete channel: %s",
                        ff->feds[j].name, port_strerror(rc));
    }
    return PORT_OK;
}

int master_local_open(const fedfile *ff, const master_local_opts *o, master_local **out, char *err,
                      size_t errlen)
{
    *out = NULL;
    master_local *ml = calloc(1, sizeof *ml);
    if (!ml) return fail(err, errlen, PORT_ENOMEM, "out of memory");
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
        rc = fail(err, errlen, PORT_ENOMEM, "out of memory");
        goto fail;
    }
    size_t at = 0;
    for (size_t j = 0; j < n && rc == PORT_OK; j++) {
        ml->feds[j].ml = ml;
        ml->feds[j].idx = j;
        if ((rc = open_fmu(ml, j, err, errlen)) == PORT_OK) rc = wrap(ml, j, &at, err, errlen);
        if (rc == PORT_OK && ml->o.csv_dir) rc = open_csv(ml, j, err, errlen);
    }
    if (rc == PORT_OK && (ff->algo.needs & FEDFILE_NEEDS_BUS)) rc = join_bus(ml, err, errlen);
    if (rc) goto fail;
    ml->clock = (local_clock){.clk = {INT64_MIN}, .tick = ff->resolution};
    if (ml->o.csv_dir) {
        char e[1200];
        if (!(ml->clock.notes = res_create(ml->o.csv_dir, "master.csv", e, sizeof e))) {
            rc = fail(err, errlen, PORT_EUSAGE, "%s", e);
            goto fail;
        }
        fputs("time,what,value\n", ml->clock.notes);
    }
    ml->ops = (port_master_ops){.open = clock_open, .close = clock_close, .note = clock_note};
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

const port_master *master_local_port(const master_local *ml)
{
    return &ml->m;
}
const port_link *master_local_links(const master_local *ml, size_t *n)
{
    if (n) *n = ml->n_links;
    return ml->links;
}
fmu_step *master_local_fmu(const master_local *ml, size_t j)
{
    return ml->feds[j].fmu;
}
fmu_slave *master_local_slave(const master_local *ml, size_t j)
{
    return ml->feds[j].slave;
}

int master_local_run(master_local *ml, wr_result *res, char *err, size_t errlen)
{
    const wr_opts *o = fedfile_settings(ml->ff, "wr");
    if (!o) {
        memset(res, 0, sizeof *res);
        return fail(err, errlen, PORT_EUSAGE, "%s: method \"%s\" is not \"wr\"", ml->ff->path,
                    fedfile_method_name(ml->ff));
    }
    int st = wr_run(&ml->m, ml->links, ml->n_links, o, res, err, errlen);
    if (st != PORT_OK && res->failed_slave >= 0 && err) {
        const char *why = fmu_slave_errmsg(ml->feds[res->failed_slave].slave);
        size_t n = strlen(err);
        if (why[0] && n < errlen) snprintf(err + n, errlen - n, " (%s)", why);
    }
    return st;
}

void master_local_free(master_local *ml)
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
