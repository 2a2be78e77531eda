/* The slave role of tempo-fmu (federate/fmufed/fmufed.h, doc/master.md "The slave's state
 * machine"): a command-driven state machine over one fmu_slave. The FMU work is fmu_slave's
 * (federate/fmu/fmu_slave.h); this file only moves commands and replies between libtempo and
 * the port operations. Also fmufed_local, the same FMU as an in-process slave for
 * tempo-master's one-process mode, so that both modes run one code path per operation.
 *
 * States (numbered as in doc/master.md):
 *   1 WAIT   NERA(end) pending: waiting for the next instant's first command (or end)
 *   2 OPEN   granted at the instant T: every command stamped T is executed and answered at T
 *   3 CLOSE  the close command: NERA(end) at once, back to 1 (its promise closes T for the
 *            master's TAR); at the horizon TAR(T), then the end command without a request
 *   4 DONE   end command received: results written, resigned
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "federate/config/fedfile_algo.h"
#include "federate/config/fedfile_balance.h"
#include "federate/config/fedfile_master.h"
#include "federate/fmu/fmu_slave.h"
#include "federate/fmu/fmu_step.h"
#include "federate/fmufed/fmufed.h"
#include "federate/fmufed/fmufed_model.h"
#include "federate/fmufed/fmufed_rec.h"
#include "federate/libtempo/tempo.h"
#include "federate/msproto/msproto.h"
#include "federate/msproto/msproto_child.h"
#include "federate/msproto/msproto_peers.h"

/* ---- the in-process slave ---------------------------------------------------------------- */

/* The peer's pieces (fmufed_model.h: the FMU opened as the file says; fmufed_rec.h: the CSV),
 * with the FMU wrapped by fmu_slave for the master's full set of port operations. */
struct fmufed_local {
    const fedfile_fed *fd;
    fmufed_model *model;
    fmufed_rec rec;
    fmufed_stats st;
    fmu_slave *fs;
    msproto_child *child; /* a model in Python: its tempo-slave process (fs and model NULL) */
    fmi2ValueReference *in_vr, *out_vr;
    char err[FMUFED_ERRLEN]; /* the model's failures ("federate NAME: what") */
};

static int local_record(void *ctx, int64_t t)
{
    fmufed_local *l = ctx;
    return fmufed_model_record_at(l->model, t) == PORT_OK ? 0 : -1;
}

static int local_fail(fmufed_local *l, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int local_fail(fmufed_local *l, int code, const char *fmt, ...)
{
    int n = snprintf(l->err, sizeof l->err, "federate %s: ", l->fd->name);
    if (n < 0 || (size_t)n >= sizeof l->err) return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->err + n, sizeof l->err - (size_t)n, fmt, ap);
    va_end(ap);
    return code;
}

/* The value reference of a wired variable and how it is exchanged (fmu_slave_opts kind_in):
 * Real by reference; whole numbers and Float32 by name (typed 0: Real only, as the inputs only
 * the master sets). */
static int vr_of(fmufed_local *l, const char *var, fmi2ValueReference *vr, int typed,
                 unsigned char *kind)
{
    const fmu_md *md = fmu_step_md(fmufed_model_fmu(l->model));
    long k = fmu_md_find(md, var);
    if (k < 0) return local_fail(l, FMUFED_EFMU, "the FMU has no variable \"%s\"", var);
    fmu_vtype t = md->vars[k].type;
    *kind = !typed                     ? FMU_SLAVE_REAL
            : t == FMU_T_FLOAT32       ? FMU_SLAVE_FLOAT32
            : fedfile_type_discrete(t) ? FMU_SLAVE_WHOLE
                                       : FMU_SLAVE_REAL;
    if (t != FMU_T_REAL && *kind == FMU_SLAVE_REAL) /* 64-bit integers: fedfile_check_fmu */
        return local_fail(l, FMUFED_EFMU, "variable \"%s\" is not Real", var);
    if (fmu_md_wire_vr(md, k, vr))
        return local_fail(l, FMUFED_EFMU, "array element \"%s\": no element handle", var);
    return FMUFED_OK;
}

/* A "python" federate (doc/python.md "In one process"): its model in a tempo-slave process
 * (fmufed_python_child), its rows followed for progress (l->rec without a file). */
static int local_python(fmufed_local *l, const fedfile *ff, const char *output, port_slave *ps)
{
    const fedfile_fed *fd = l->fd;
    l->rec =
        (fmufed_rec){.st = &l->st, .t_start = ff->algo.t_start, .t_end = ff->algo.t_end, .none = 1};
    int rc = fmufed_python_child(ff, (size_t)(fd - ff->feds), output, &l->rec, &l->child, ps,
                                 l->err, sizeof l->err);
    return rc == PORT_OK ? FMUFED_OK : rc == PORT_ENOMEM ? FMUFED_ENOMEM : FMUFED_EFMU;
}

/* resume: the CSV is not opened here but continued from the checkpoint (slave_restore). */
static int local_new(const fedfile *ff, size_t idx, const char *output, int resume,
                     fmufed_local **out, port_slave *ps, char *err, size_t errlen)
{
    *out = NULL;
    if (!ff || idx >= ff->n_feds || !ps) {
        snprintf(err, errlen, "fmufed_local_new: bad arguments");
        return FMUFED_EUSAGE;
    }
    fmufed_local *l = calloc(1, sizeof *l);
    if (!l) return snprintf(err, errlen, "out of memory"), FMUFED_ENOMEM;
    const fedfile_fed *fd = &ff->feds[idx];
    l->fd = fd;
    if (fd->python) {
        int prc = local_python(l, ff, output, ps);
        if (prc) {
            snprintf(err, errlen, "%s", l->err);
            fmufed_local_free(l, NULL, 0);
            return prc;
        }
        *out = l;
        return FMUFED_OK;
    }
    l->rec = (fmufed_rec){.st = &l->st,
                          .t_start = ff->algo.t_start,
                          .t_end = ff->algo.t_end,
                          .none = fd->record_none};
    /* Inputs: the wired ones, then those only the master sets (energy's power inputs). */
    const char *const *extra;
    size_t n_extra = fedfile_balance_extra_inputs(ff, idx, &extra);
    l->in_vr = calloc(fd->n_inputs + n_extra + 1, sizeof *l->in_vr);
    l->out_vr = calloc(fd->n_outputs + 1, sizeof *l->out_vr);
    int rc = !l->in_vr || !l->out_vr ? local_fail(l, FMUFED_ENOMEM, "out of memory") : 0;
    if (!rc) {
        int mrc = fmufed_model_open(ff, idx, l->err, sizeof l->err, &l->model);
        if (mrc != PORT_OK) rc = mrc == PORT_ENOMEM ? FMUFED_ENOMEM : FMUFED_EFMU;
    }
    /* kinds of the inputs then the outputs; names and maps of the inputs then the outputs */
    size_t n_all = fd->n_inputs + n_extra + fd->n_outputs;
    unsigned char *kind = calloc(n_all + 1, 1);
    const char **pname = calloc(n_all + 1, sizeof *pname);
    const long long **map = calloc(n_all + 1, sizeof *map);
    size_t *n_map = calloc(n_all + 1, sizeof *n_map);
    if (!rc && (!kind || !pname || !map || !n_map))
        rc = local_fail(l, FMUFED_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < fd->n_inputs; i++) {
        rc = vr_of(l, fd->inputs[i].var, &l->in_vr[i], 1, &kind[i]);
        pname[i] = fd->inputs[i].var;
        map[i] = fd->inputs[i].map;
        n_map[i] = fd->inputs[i].n_map;
    }
    for (size_t i = 0; !rc && i < n_extra; i++)
        rc = vr_of(l, extra[i], &l->in_vr[fd->n_inputs + i], 0, &kind[fd->n_inputs + i]);
    size_t no0 = fd->n_inputs + n_extra; /* the outputs' first index in kind and pname */
    for (size_t k = 0; !rc && k < fd->n_outputs; k++) {
        rc = vr_of(l, fd->outputs[k].var, &l->out_vr[k], 1, &kind[no0 + k]);
        pname[no0 + k] = fd->outputs[k].var;
    }
    if (!rc && !resume) {
        size_t n_rec;
        const char *const *names = fmufed_model_rec_names(l->model, &n_rec);
        char e[FMUFED_ERRLEN];
        if (fmufed_rec_open(&l->rec, output ? output : ff->output, fd->name, n_rec, names, e,
                            sizeof e) != PORT_OK)
            rc = local_fail(l, FMUFED_EIO, "%s", e);
        else if (l->rec.csv || l->rec.none)
            fmufed_model_set_rows(l->model, fmufed_rec_row, &l->rec);
    }
    unsigned char *din = NULL, *dout = NULL;
    double *tf = NULL; /* factors then offsets of the inputs' transformations (1, 0 for extra) */
    size_t n_in = fd->n_inputs + n_extra;
    if (!rc && (!(din = calloc(n_in + 1, 1)) || !(dout = calloc(fd->n_outputs + 1, 1)) ||
                !(tf = calloc(2 * n_in + 1, sizeof *tf))))
        rc = local_fail(l, FMUFED_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n_in; i++) {
        tf[i] = i < fd->n_inputs ? fd->inputs[i].factor : 1;
        tf[n_in + i] = i < fd->n_inputs ? fd->inputs[i].offset : 0;
    }
    if (!rc) {
        fedfile_bus_flags(ff, idx, dout, din); /* the bus couplings (FEDFILE_NEEDS_BUS) */
        fmu_slave_opts so = {.name = fd->name,
                             .fmu = fmufed_model_fmu(l->model),
                             .n_in = fd->n_inputs + n_extra,
                             .in_vr = l->in_vr,
                             .n_out = fd->n_outputs,
                             .out_vr = l->out_vr,
                             .t_now = ff->algo.t_start,
                             .tick = ff->resolution,
                             .record = local_record,
                             .record_ctx = l,
                             .disc_out = dout,
                             .disc_in = din,
                             .in_factor = tf,
                             .in_offset = tf + n_in,
                             .kind_in = kind,
                             .kind_out = kind ? kind + no0 : NULL,
                             .in_name = pname,
                             .out_name = pname ? pname + no0 : NULL,
                             .in_map = map,
                             .in_n_map = n_map};
        int prc = fmu_slave_new(&so, &l->fs, ps);
        /* The hybrid master wants ME steps to stop at their events (doc/algorithms/hybrid.md). */
        if (prc == PORT_OK && (ff->algo.needs & FEDFILE_NEEDS_BUS))
            fmu_slave_set_event_stop(l->fs, 1);
        if (prc != PORT_OK)
            rc = local_fail(l, prc == PORT_ENOMEM ? FMUFED_ENOMEM : FMUFED_EUSAGE,
                            "wrapping the FMU as a slave: %s", port_strerror(prc));
    }
    free(din);
    free(dout);
    free(tf);
    free(kind), free(pname), free(map), free(n_map);
    if (rc) {
        snprintf(err, errlen, "%s", l->err);
        fmufed_local_free(l, NULL, 0);
        return rc;
    }
    *out = l;
    return FMUFED_OK;
}

int fmufed_local_new(const fedfile *ff, size_t idx, const char *output, fmufed_local **out,
                     port_slave *ps, char *err, size_t errlen)
{
    return local_new(ff, idx, output, 0, out, ps, err, errlen);
}

/* The discrete inputs' sources of federate idx, in input order (n_din entries each). */
static size_t discrete_sources(const fedfile *ff, size_t idx, size_t **src, size_t **k)
{
    const fedfile_fed *fd = &ff->feds[idx];
    *src = calloc(fd->n_inputs + 1, sizeof **src);
    *k = calloc(fd->n_inputs + 1, sizeof **k);
    size_t n = 0;
    for (size_t i = 0; *src && *k && i < fd->n_inputs; i++)
        if (fedfile_bus_source(ff, idx, i, &(*src)[n], &(*k)[n]) == 0) n++;
    return n;
}

int fmufed_local_join_bus(fmufed_local *l, fmu_slave_bus *b, const fedfile *ff, size_t idx,
                          char *err, size_t errlen)
{
    size_t *src, *k;
    size_t n_src = discrete_sources(ff, idx, &src, &k);
    if (l->child && src && k) { /* a model in Python: no discrete outputs (msproto_child.c) */
        free(src);
        free(k);
        if (!n_src) return FMUFED_OK;
        snprintf(err, errlen,
                 "federate %s: discrete inputs wired, which a model in Python cannot take (the "
                 "hybrid method's share)",
                 l->fd->name);
        return FMUFED_EUSAGE;
    }
    int rc = !src || !k ? PORT_ENOMEM : fmu_slave_join_bus(l->fs, b, idx, src, k);
    free(src);
    free(k);
    if (rc == PORT_OK) return FMUFED_OK;
    snprintf(err, errlen, "federate %s: joining the slaves' discrete channel: %s", l->fd->name,
             port_strerror(rc));
    return rc == PORT_ENOMEM ? FMUFED_ENOMEM : FMUFED_EUSAGE;
}

const char *fmufed_local_errmsg(const fmufed_local *l)
{
    return l->child ? msproto_child_errmsg(l->child) : l->fs ? fmu_slave_errmsg(l->fs) : "";
}

int64_t fmufed_local_time(const fmufed_local *l)
{
    return l->child ? msproto_child_time(l->child) : fmu_slave_time(l->fs);
}

int fmufed_local_free(fmufed_local *l, char *err, size_t errlen)
{
    if (!l) return FMUFED_OK;
    int rc = FMUFED_OK;
    char e[FMUFED_ERRLEN];
    if (l->child && msproto_child_free(l->child, e, sizeof e) != PORT_OK) {
        if (err && errlen) snprintf(err, errlen, "%s", e);
        rc = FMUFED_EIO;
    }
    if (fmufed_rec_close(&l->rec, e, sizeof e) != PORT_OK) {
        if (err && errlen) snprintf(err, errlen, "federate %s: %s", l->fd->name, e);
        rc = FMUFED_EIO;
    }
    fmu_slave_free(l->fs);
    fmufed_model_close(l->model); /* closes the FMU after its wrapper */
    free(l->in_vr);
    free(l->out_vr);
    free(l);
    return rc;
}

/* ---- the distributed slave --------------------------------------------------------------- */

typedef struct cmd_buf {
    unsigned char *p;
    size_t n;
} cmd_buf;

/* The newest discrete values one source slave shared (hybrid, doc/master.md "Slave to
 * slave"): its round, and n values with their event times. */
typedef struct shared_in {
    tp_handle cls, attr; /* Share<j>.discrete, subscribed; 0: not a source of this slave */
    tp_fed fed;          /* federate j's handle, bound at the start; 0 before */
    int64_t t;           /* round, INT64_MIN before the first */
    size_t n, cap;
    double *v;
    int64_t *tv;
} shared_in;

typedef struct slave_run {
    const fedfile *ff;
    size_t idx;
    const char *name;
    fmufed_local *l;
    port_slave ps;
    tp_federate *tp;
    tp_handle cls, attr, ic, param;
    tp_object obj;
    cmd_buf *q; /* commands received, not yet executed (FIFO) */
    size_t q_head, q_n, q_cap;
    int granted; /* state 2: granted at T */
    tp_time T;
    int stepped;       /* a step succeeded: t_stepped holds the time it reached */
    int64_t t_stepped; /* ticks: the end of the last successful step, what "done at" reports
                          (an instant may lie before its steps' end: the hybrid's is at its
                          first step's start plus one tick, doc/algorithms/hybrid.md) */
    int end_seen;      /* the end command is queued: the master may now leave */
    int failed;        /* the master left early, or the RTI refused something */
    /* Commands only from the master (doc/master.md "Commands only from the master"). */
    msproto_peers *peers; /* names by handle, for the refusals */
    tp_fed master;        /* the master's handle, bound at the start sync; 0 before */
    long refused;         /* messages refused: not from the federate their class belongs to */
    int nera;             /* a NERA(end) is pending (state 1 WAIT) */
    int refused_wait;     /* a command was refused while that NERA was pending */
    int rearm;            /* granted for refused commands only: ask NERA(end) again */
    int rearm_quiet;      /* ... or for a late share of the instant closed: say nothing */
    tp_time closed;       /* the last instant closed (TP_NO_TIME: none yet) */
    char why[600];
    double *v, *out; /* MSPROTO_MAX_VALUES each: a command's values, a reply's */
    int64_t *tv, *out_t;
    port_discrete *disc;
    unsigned char *rbuf; /* one encoded reply */
    size_t rcap;
    unsigned char *rb; /* replies not sent yet, back to back (rb_n bytes): one update */
    size_t rb_n, rb_cap;
    fmufed_stats *st;
    char *err;
    size_t errlen;
    int timeout_ms;
    /* hybrid: this slave's Share<idx> object (n_dout > 0), the sources of its discrete inputs
     * (src[k], src_k[k], n_din), and the newest share of every federate (rx, n_feds) */
    tp_handle sh_cls, sh_attr;
    tp_object sh_obj;
    size_t n_din, *src, *src_k;
    shared_in *rx;
    /* Checkpoints (doc/checkpoint.md "The slave role's part"): the part is made once an
     * instant is closed (its NERA(horizon) asked, or the horizon's TAR granted), every
     * command of the instant executed and answered; restore: the part the join handed back. */
    const fmufed_opts *opts;
    tp_time mark_next; /* the next checkpoint instant to restart ME at, TP_NO_TIME: none */
    unsigned char *restored;
    size_t n_restored;
} slave_run;

static int sfail(slave_run *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int sfail(slave_run *r, int code, const char *fmt, ...)
{
    if (!r->err || !r->errlen) return code;
    int n = snprintf(r->err, r->errlen, "federate %s (slave): ", r->name);
    if (n < 0 || (size_t)n >= r->errlen) return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return code;
}

/* A message that does not come from the federate its class belongs to: not acted on, logged
 * naming the sender (the first MSPROTO_REFUSALS_LOGGED of them), counted for the report. */
static void refuse(slave_run *r, tp_fed sender, const char *what, const char *owner, tp_fed own)
{
    char who[200];
    msproto_peers_describe(r->peers, sender, who, sizeof who);
    if (!r->refused) snprintf(r->st->refused_first, sizeof r->st->refused_first, "%s", who);
    r->refused++;
    r->st->refused = r->refused;
    if (r->refused <= MSPROTO_REFUSALS_LOGGED)
        fprintf(stderr, "tempo-fmu: %s: refused %s from %s: only %s (federate %u) may send it\n",
                r->name, what, who, owner, (unsigned)own);
    if (r->refused == MSPROTO_REFUSALS_LOGGED)
        fprintf(stderr, "tempo-fmu: %s: further refusals are counted, not logged\n", r->name);
}

/* What a command body claims to be, for a refusal: its kind when it reads as one. */
static void command_what(const tp_value *v, char *out, size_t cap)
{
    const unsigned char *b = v->data;
    if (v->size >= 2 && b[0] == MSPROTO_VERSION && b[1] >= 1 && b[1] <= MSP_KIND_MAX)
        snprintf(out, cap, "a command (%s)", msproto_kind_name(b[1]));
    else
        snprintf(out, cap, "a malformed command (%zu bytes)", v->size);
}

/* Queue one command's bytes (copied) behind the others; -1 when out of memory. */
static int queue_cmd(slave_run *r, const unsigned char *p, size_t len)
{
    if (r->q_n == r->q_cap) {
        size_t cap = r->q_cap ? 2 * r->q_cap : 16;
        cmd_buf *nq = malloc(cap * sizeof *nq);
        if (!nq) return -1;
        for (size_t m = 0; m < r->q_n; m++)
            nq[m] = r->q[(r->q_head + m) % r->q_cap];
        free(r->q);
        r->q = nq, r->q_cap = cap, r->q_head = 0;
    }
    cmd_buf b = {.p = malloc(len + 1), .n = len};
    if (!b.p) return -1;
    if (b.n) memcpy(b.p, p, b.n);
    if (b.n > 1 && b.p[1] == MSP_END) r->end_seen = 1;
    r->q[(r->q_head + r->q_n++) % r->q_cap] = b;
    return 0;
}

static void on_receive(void *ctx, const tp_interaction *i)
{
    slave_run *r = ctx;
    if (i->interaction_class != r->ic) return;
    if (!r->master || i->sender != r->master) {
        for (size_t k = 0; k < i->n_params; k++) {
            if (i->params[k].handle != r->param) continue;
            char what[80];
            command_what(&i->params[k], what, sizeof what);
            refuse(r, i->sender, what, MSPROTO_MASTER_NAME, r->master);
        }
        if (r->nera) r->refused_wait = 1;
        return;
    }
    for (size_t k = 0; k < i->n_params; k++) {
        if (i->params[k].handle != r->param) continue;
        /* a batch: the commands back to back, each queued alone (msproto.h "Batches"); what
         * does not split is queued whole, and its decoding stops the slave with the reason */
        const unsigned char *p = i->params[k].data;
        size_t left = i->params[k].size;
        do {
            size_t n = left;
            if (msproto_cmd_span(p, left, &n, NULL, 0) != MSPROTO_OK) n = left;
            if (queue_cmd(r, p, n)) goto oom;
            p += n, left -= n;
        } while (left);
    }
    return;
oom:
    if (!r->failed) snprintf(r->why, sizeof r->why, "out of memory queueing a command");
    r->failed = 1;
}

/* A share of discrete values from another slave: kept as the source's newest. */
static void on_reflect(void *ctx, const tp_reflection *rf)
{
    slave_run *r = ctx;
    for (size_t j = 0; r->rx && j < r->ff->n_feds; j++) {
        shared_in *x = &r->rx[j];
        if (!x->cls || x->cls != rf->object_class) continue;
        for (size_t k = 0; k < rf->n_values; k++) {
            if (rf->values[k].handle != x->attr) continue;
            if (!x->fed || rf->sender != x->fed) {
                refuse(r, rf->sender, "a share of discrete values", r->ff->feds[j].name, x->fed);
                continue;
            }
            msproto_reply rep;
            char e[MSPROTO_ERRLEN], msg[MSPROTO_MAX_MSG + 1];
            if (msproto_reply_decode(rf->values[k].data, rf->values[k].size, &rep, x->v, x->cap,
                                     x->tv, x->cap, msg, sizeof msg, e, sizeof e) != MSPROTO_OK ||
                rep.kind != MSP_SHARE) {
                if (!r->failed)
                    snprintf(r->why, sizeof r->why, "a malformed share from federate %s: %s",
                             r->ff->feds[j].name, e);
                r->failed = 1;
                continue;
            }
            x->t = rep.t, x->n = rep.n_v;
            r->st->reflections++;
        }
    }
}

static void on_grant(void *ctx, tp_time t)
{
    slave_run *r = ctx;
    r->T = t;
    r->granted = 1;
    /* A NERA granted for refused commands only (a rogue's time-stamped command): this is no
     * instant of the master's; wait for the next one as before. Deliveries come before their
     * grant (doc/time.md §4), so the master's commands of this instant would be queued. */
    if (r->nera && r->refused_wait && !r->q_n) r->rearm = 1;
    /* Closed with NERA(end) at once, a message stamped with the instant just closed (another
     * slave's share sent after this one's close) grants it there: no instant of the master's
     * either. */
    if (r->nera && !r->refused_wait && !r->q_n && t == r->closed) r->rearm = r->rearm_quiet = 1;
    r->nera = r->refused_wait = 0;
}

static void on_joined(void *ctx, tp_fed fed, const char *name)
{
    slave_run *r = ctx;
    if (msproto_peers_joined(r->peers, fed, name) != 0 && !r->failed) {
        r->failed = 1;
        snprintf(r->why, sizeof r->why, "out of memory recording federate %.200s", name);
    }
}

/* The start: every federate of the file has joined (the master registers the point once all
 * have). Bind the roles to the handles now joined under their names, for the whole run. */
static void on_synchronized(void *ctx, const char *label)
{
    slave_run *r = ctx;
    if (strcmp(label, "tempo-start") != 0 || r->master) return;
    r->master = msproto_peers_handle(r->peers, MSPROTO_MASTER_NAME);
    for (size_t j = 0; r->rx && j < r->ff->n_feds; j++)
        r->rx[j].fed = msproto_peers_handle(r->peers, r->ff->feds[j].name);
}

static void on_resigned(void *ctx, tp_fed fed, const char *name, const char *reason)
{
    slave_run *r = ctx;
    msproto_peers_resigned(r->peers, fed);
    if (r->master ? fed != r->master : strcmp(name, MSPROTO_MASTER_NAME) != 0) return;
    if (r->end_seen || r->failed) return;
    r->failed = 1;
    snprintf(r->why, sizeof r->why, "the master left before the end: %s",
             reason ? reason : "no reason given");
}

static void on_error(void *ctx, int code, const char *message)
{
    slave_run *r = ctx;
    if (r->failed) return;
    r->failed = 1;
    snprintf(r->why, sizeof r->why, "the RTI refused a request: %s (%s)", message ? message : "",
             tp_strerror(code));
}

static void on_log(void *ctx, tp_log_level level, const char *line)
{
    slave_run *r = ctx;
    if (level <= TP_LOG_WARN) fprintf(stderr, "tempo-fmu: %s: %s\n", r->name, line);
}

/* ---- checkpoints (doc/checkpoint.md "The slave role's part") ----------------------------- */

#define SLAVE_PART_MAGIC   0x564c5354u /* "TSLV" */
#define SLAVE_PART_VERSION 1u

/* The first checkpoint instant after t (ticks) before the end, as tempo-fmu's peers count
 * them (fmufed_tp.c): the next multiple of ckpt_every past the start, or the next ckpt_at. */
static tp_time next_instant(const slave_run *r, tp_time t)
{
    const fmufed_opts *o = r->opts;
    tp_time best = TP_NO_TIME, t0 = r->ff->algo.t_start, end = r->ff->algo.t_end;
    if (!o) return best;
    if (o->ckpt_every > 0) {
        tp_time k = t < t0 ? 1 : (t - t0) / o->ckpt_every + 1;
        if (k <= (end - t0) / o->ckpt_every) best = t0 + k * o->ckpt_every;
    }
    for (size_t i = 0; i < o->n_ckpt_at; i++) {
        tp_time a = o->ckpt_at[i];
        if (a > t && a > t0 && a < end && (best == TP_NO_TIME || a < best)) best = a;
    }
    return best < end ? best : TP_NO_TIME;
}

static void put_sub(pstate_buf *b, pstate_buf *sub)
{
    if (sub->bad) b->bad = 1;
    pstate_put_bytes(b, sub->p, sub->n);
    free(sub->p);
}

/* The part, inside the grant of a close's TAR(time). Layout: u32 "TSLV", u32 version, bytes
 * federate name, bytes method, i64 the instant, i64 the master's handle, i64 the reply
 * object's handle, u8 a step succeeded + i64 the time it reached, i64 x 4 counters (instants,
 * updates, reflections, requests), i64 the next checkpoint instant to mark, bytes the slave's
 * state (fmu_slave_ckpt_save), bytes the output interval's place, u8 has a CSV + i64 its
 * position. */
static int slave_save(void *ctx, const char *label, tp_time time, void **bytes, size_t *n,
                      char *why, size_t why_size)
{
    slave_run *r = ctx;
    (void)label;
    if (time != r->closed || r->q_n || r->rb_n) {
        snprintf(why, why_size,
                 "federate %s (slave) saves only once an instant is closed (asked at %.9g s)",
                 r->name, port_seconds(r->ff->resolution, time));
        return TP_ESTATE;
    }
    const char *method = fedfile_method_name(r->ff);
    pstate_buf b = {0}, fs = {0}, rows = {0};
    pstate_put_u32(&b, SLAVE_PART_MAGIC);
    pstate_put_u32(&b, SLAVE_PART_VERSION);
    pstate_put_bytes(&b, r->name, strlen(r->name));
    pstate_put_bytes(&b, method, strlen(method));
    pstate_put_i64(&b, time);
    pstate_put_i64(&b, (int64_t)r->master);
    pstate_put_i64(&b, (int64_t)r->obj);
    pstate_put_u8(&b, (uint8_t)(r->stepped ? 1 : 0));
    pstate_put_i64(&b, r->t_stepped);
    pstate_put_i64(&b, r->st->steps);
    pstate_put_i64(&b, r->st->updates);
    pstate_put_i64(&b, r->st->reflections);
    pstate_put_i64(&b, r->st->requests);
    pstate_put_i64(&b, r->mark_next);
    /* hybrid: its share object and the handles of the slaves that share with it */
    pstate_put_i64(&b, (int64_t)r->sh_obj);
    pstate_put_u32(&b, r->rx ? (uint32_t)r->ff->n_feds : 0);
    for (size_t j = 0; r->rx && j < r->ff->n_feds; j++)
        pstate_put_i64(&b, (int64_t)r->rx[j].fed);
    int rc = fmu_slave_ckpt_save(r->l->fs, &fs);
    if (rc != PORT_OK) {
        free(b.p), free(fs.p);
        snprintf(why, why_size, "federate %s (slave): %s", r->name, fmu_slave_errmsg(r->l->fs));
        return TP_ESTATE;
    }
    put_sub(&b, &fs);
    fmufed_model_rows_save(r->l->model, &rows);
    put_sub(&b, &rows);
    int has = 0;
    unsigned long long pos = 0;
    char e[FMUFED_ERRLEN];
    if (fmufed_rec_position(&r->l->rec, &has, &pos, e, sizeof e) != PORT_OK) {
        free(b.p);
        snprintf(why, why_size, "federate %s (slave): %s", r->name, e);
        return TP_ESTATE;
    }
    pstate_put_u8(&b, (uint8_t)has);
    pstate_put_i64(&b, (int64_t)pos);
    if (b.bad) {
        free(b.p);
        snprintf(why, why_size, "federate %s (slave): out of memory", r->name);
        return TP_ENOMEM;
    }
    *bytes = b.p;
    *n = b.n;
    return TP_OK;
}

static int slave_restore_cb(void *ctx, const char *label, tp_time time, const void *bytes, size_t n,
                            char *why, size_t why_size)
{
    slave_run *r = ctx;
    (void)label, (void)time;
    free(r->restored);
    if (!(r->restored = malloc(n ? n : 1))) {
        snprintf(why, why_size, "federate %s (slave): out of memory", r->name);
        return TP_ENOMEM;
    }
    if (n) memcpy(r->restored, bytes, n);
    r->n_restored = n;
    return TP_OK;
}

/* "FEDERATE.VARIABLE=VALUE" entries of this federate, set in its restored FMU (a branch). */
static int apply_sets(slave_run *r)
{
    size_t nl = strlen(r->name);
    for (size_t k = 0; r->opts && k < r->opts->n_set; k++) {
        const char *a = r->opts->set[k], *eq = strchr(a, '=');
        if (strncmp(a, r->name, nl) != 0 || a[nl] != '.' || !eq || eq < a + nl + 1) continue;
        char var[512];
        snprintf(var, sizeof var, "%.*s", (int)(eq - a - (long)nl - 1), a + nl + 1);
        struct fmu_step *f = fmufed_model_fmu(r->l->model);
        if (fmu_step_set_text(f, var, eq + 1) != FMU_STEP_OK)
            return sfail(r, FMUFED_EUSAGE, "--set %s: %s", a, fmu_step_errmsg(f));
    }
    return FMUFED_OK;
}

/* The part the restoring join handed back, checked and loaded: the slave's FMU, inputs and
 * slots, the output interval's place, the CSV continued at its position, the branch's
 * values. Nothing is half-loaded: a refusal ends the run. *T receives the instant. */
static int slave_restore(slave_run *r, tp_time *T)
{
    pstate_rd d = {.p = r->restored, .n = r->n_restored};
    const char *method = fedfile_method_name(r->ff);
    size_t ln = 0, lm = 0;
    uint32_t magic = pstate_get_u32(&d), version = pstate_get_u32(&d);
    const unsigned char *name = pstate_get_bytes(&d, &ln), *meth = pstate_get_bytes(&d, &lm);
    if (d.bad || magic != SLAVE_PART_MAGIC)
        return sfail(r, FMUFED_EUSAGE, "its part of the checkpoint is not a slave's");
    if (version != SLAVE_PART_VERSION)
        return sfail(r, FMUFED_EUSAGE, "its part has format version %u, this build reads %u",
                     version, SLAVE_PART_VERSION);
    if (ln != strlen(r->name) || memcmp(name, r->name, ln) != 0 || lm != strlen(method) ||
        memcmp(meth, method, lm) != 0)
        return sfail(r, FMUFED_EUSAGE,
                     "its part was saved by another federate or method (this file runs \"%s\")",
                     method);
    int64_t t = pstate_get_i64(&d), master = pstate_get_i64(&d), obj = pstate_get_i64(&d);
    int stepped = pstate_get_u8(&d);
    int64_t t_stepped = pstate_get_i64(&d), steps = pstate_get_i64(&d);
    int64_t updates = pstate_get_i64(&d), refl = pstate_get_i64(&d), reqs = pstate_get_i64(&d);
    int64_t mark = pstate_get_i64(&d), sh_obj = pstate_get_i64(&d);
    uint32_t n_rx = pstate_get_u32(&d);
    if (d.bad || n_rx != (r->rx ? r->ff->n_feds : 0) || sh_obj < 0 || (r->sh_cls && !sh_obj))
        return sfail(r, FMUFED_EUSAGE, "its part's share channel does not match the file's");
    for (uint32_t j = 0; j < n_rx; j++) {
        int64_t fed = pstate_get_i64(&d);
        if (fed < 0) d.bad = 1;
        r->rx[j].fed = (tp_fed)fed;
    }
    pstate_rd fs = {0}, rows = {0};
    fs.p = pstate_get_bytes(&d, &fs.n);
    rows.p = pstate_get_bytes(&d, &rows.n);
    int has = pstate_get_u8(&d);
    int64_t pos = pstate_get_i64(&d);
    tp_time now = 0;
    if (d.bad || d.at != d.n || stepped > 1 || has > 1 || pos < 0 || master <= 0 || obj <= 0 ||
        steps < 0 || updates < 0 || refl < 0 || reqs < 0)
        return sfail(r, FMUFED_EUSAGE, "its part of the checkpoint is truncated or damaged");
    if (tp_query_logical_time(r->tp, &now) != TP_OK || now != t)
        return sfail(r, FMUFED_EUSAGE,
                     "its part was saved at %.9g s, the RTI restored it at %.9g s",
                     port_seconds(r->ff->resolution, t), port_seconds(r->ff->resolution, now));
    if (fmu_slave_ckpt_restore(r->l->fs, &fs) != PORT_OK)
        return sfail(r, FMUFED_EUSAGE, "%s", fmu_slave_errmsg(r->l->fs));
    if (fs.at != fs.n) return sfail(r, FMUFED_EUSAGE, "bytes after the slave's state");
    if (fmufed_model_rows_restore(r->l->model, &rows) != PORT_OK || rows.at != rows.n)
        return sfail(r, FMUFED_EUSAGE, "its output interval's place is damaged");
    if (has) {
        size_t n_rec;
        const char *const *names = fmufed_model_rec_names(r->l->model, &n_rec);
        const char *dir = r->opts && r->opts->output ? r->opts->output : r->ff->output;
        char e[FMUFED_ERRLEN];
        if (fmufed_rec_resume(&r->l->rec, dir, r->name, n_rec, names, (unsigned long long)pos, e,
                              sizeof e) != PORT_OK)
            return sfail(r, FMUFED_EIO, "%s", e);
    }
    if (r->l->rec.csv || r->l->rec.none)
        fmufed_model_set_rows(r->l->model, fmufed_rec_row, &r->l->rec);
    snprintf(r->st->csv, sizeof r->st->csv, "%s", r->l->st.csv);
    r->master = (tp_fed)master;
    r->obj = (tp_object)obj;
    r->sh_obj = (tp_object)sh_obj;
    r->stepped = stepped;
    r->t_stepped = t_stepped;
    r->st->steps = steps;
    r->st->updates = updates;
    r->st->reflections = refl;
    r->st->requests = reqs;
    r->mark_next = mark;
    r->T = t;
    *T = t;
    if (msproto_peers_joined(r->peers, r->master, MSPROTO_MASTER_NAME) != 0)
        return sfail(r, FMUFED_ENOMEM, "out of memory");
    return apply_sets(r);
}

/* Hybrid: publish Share<idx> when this slave has discrete outputs; subscribe Share<j> of every
 * slave j feeding one of its discrete inputs. */
static int declare_shares(slave_run *r)
{
    char name[32];
    int rc = TP_OK;
    if (r->ps.info.n_discrete) {
        msproto_share_class(r->idx, name, sizeof name);
        char obj[300];
        snprintf(obj, sizeof obj, "%s.share", r->name);
        if ((rc = tp_object_class(r->tp, name, &r->sh_cls)) == TP_OK &&
            (rc = tp_attribute(r->tp, r->sh_cls, MSPROTO_SHARE_ATTR, &r->sh_attr)) == TP_OK &&
            (rc = tp_publish_object_class(r->tp, r->sh_cls, &r->sh_attr, 1)) == TP_OK)
            rc = tp_register_object(r->tp, r->sh_cls, obj, &r->sh_obj);
    }
    for (size_t k = 0; rc == TP_OK && k < r->n_din; k++) {
        shared_in *x = &r->rx[r->src[k]];
        if (x->cls) continue;
        msproto_share_class(r->src[k], name, sizeof name);
        if ((rc = tp_object_class(r->tp, name, &x->cls)) == TP_OK &&
            (rc = tp_attribute(r->tp, x->cls, MSPROTO_SHARE_ATTR, &x->attr)) == TP_OK)
            rc = tp_subscribe_object_class(r->tp, x->cls, &x->attr, 1);
    }
    return rc;
}

/* A restored slave: the share classes' handles as declare_shares found them (publication,
 * subscription and the share object came back from the RTI's part and this slave's). */
static int lookup_shares(slave_run *r)
{
    char name[32];
    int rc = TP_OK;
    if (r->ps.info.n_discrete) {
        msproto_share_class(r->idx, name, sizeof name);
        if ((rc = tp_object_class(r->tp, name, &r->sh_cls)) == TP_OK)
            rc = tp_attribute(r->tp, r->sh_cls, MSPROTO_SHARE_ATTR, &r->sh_attr);
    }
    for (size_t k = 0; rc == TP_OK && k < r->n_din; k++) {
        shared_in *x = &r->rx[r->src[k]];
        if (x->cls) continue;
        msproto_share_class(r->src[k], name, sizeof name);
        if ((rc = tp_object_class(r->tp, name, &x->cls)) == TP_OK)
            rc = tp_attribute(r->tp, x->cls, MSPROTO_SHARE_ATTR, &x->attr);
    }
    return rc;
}

/* Share Data Only Discrete, round t (MSP_SHARE): send this slave's discrete outputs and event
 * times to the slaves they feed (an update of Share<idx>, stamped at the instant), wait until
 * every source of its discrete inputs has shared the same round, and set those inputs. The
 * values never pass through the master. */
static int share(slave_run *r, int64_t t, char *why, size_t whylen)
{
    const port_slave *s = &r->ps;
    size_t nd = s->info.n_discrete;
    if (nd) {
        int st = port_get_discrete(s, r->disc);
        int cst = port_collect(s);
        if (st == PORT_OK) st = cst;
        if (st < 0) {
            snprintf(why, whylen, "reading its discrete outputs: %s", fmufed_local_errmsg(r->l));
            return st;
        }
        for (size_t k = 0; k < nd; k++)
            r->out[k] = r->disc[k].v, r->out_t[k] = r->disc[k].t;
        msproto_reply b = {
            .kind = MSP_SHARE, .t = t, .n_v = nd, .v = r->out, .n_tv = nd, .tv = r->out_t};
        size_t len = 0;
        char e[MSPROTO_ERRLEN];
        if (msproto_reply_encode(&b, r->rbuf, r->rcap, &len, e, sizeof e) != MSPROTO_OK) {
            snprintf(why, whylen, "encoding its share: %s", e);
            return PORT_EUSAGE;
        }
        tp_value val = {.handle = r->sh_attr, .data = r->rbuf, .size = len};
        if (tp_update(r->tp, r->sh_obj, &val, 1, r->T) != TP_OK) {
            snprintf(why, whylen, "sending its share: %s", tp_last_error(r->tp));
            return PORT_ELOST;
        }
        r->st->updates++;
    }
    if (!r->n_din) return PORT_OK;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        size_t k = 0;
        while (k < r->n_din && r->rx[r->src[k]].t == t && r->src_k[k] < r->rx[r->src[k]].n)
            k++;
        if (k == r->n_din) break;
        if (r->failed) {
            snprintf(why, whylen, "%.500s", r->why);
            return PORT_ELOST;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (r->timeout_ms >= 0 && /* --timeout -1: no limit */
            (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 >
                r->timeout_ms) {
            snprintf(why, whylen, "no share of this round from federate %s within %d ms",
                     r->ff->feds[r->src[k]].name, r->timeout_ms);
            return PORT_ELOST;
        }
        if (tp_evoke(r->tp, 500) < 0) {
            snprintf(why, whylen, "waiting for federate %s's share: %s",
                     r->ff->feds[r->src[k]].name, tp_last_error(r->tp));
            return PORT_ELOST;
        }
    }
    for (size_t k = 0; k < r->n_din; k++) {
        const shared_in *x = &r->rx[r->src[k]];
        r->disc[k] = (port_discrete){x->v[r->src_k[k]], x->tv[r->src_k[k]]};
    }
    int st = port_set_discrete(s, r->n_din, r->disc);
    if (st < 0) snprintf(why, whylen, "setting its discrete inputs: %s", fmufed_local_errmsg(r->l));
    return st;
}

static int join_slave(slave_run *r, const fmufed_opts *o, int timeout_ms)
{
    const fedfile *ff = r->ff;
    char addr[600], e[FMUFED_ERRLEN], name[32];
    if (o && o->rti)
        snprintf(addr, sizeof addr, "%s", o->rti);
    else if (ff->rti_unix)
        snprintf(addr, sizeof addr, "unix:%s", ff->rti_unix);
    else if (ff->rti_port > 0)
        snprintf(addr, sizeof addr, "%s:%d", ff->rti_host ? ff->rti_host : "127.0.0.1",
                 ff->rti_port);
    else
        return sfail(r, FMUFED_EUSAGE, "%s gives no RTI port: pass --rti HOST:PORT", ff->path);
    char *fom = NULL;
    if (msproto_fom_xml(ff, &fom, e, sizeof e) != MSPROTO_OK)
        return sfail(r, FMUFED_ENOMEM, "generating the FOM: %s", e);
    int restore = r->opts && r->opts->restore;
    tp_callbacks cb = {.receive = on_receive,
                       .reflect = on_reflect,
                       .grant = on_grant,
                       .federate_joined = on_joined,
                       .synchronized = on_synchronized,
                       .federate_resigned = on_resigned,
                       .error = on_error,
                       .log = on_log,
                       .save = slave_save,
                       .restore = slave_restore_cb};
    tp_join_options jo = {.rti = addr,
                          .federation = ff->federation,
                          .federate = r->name,
                          .fom_text = fom,
                          .create = 1,
                          .timeout_ms = timeout_ms,
                          .restore = restore};
    int rc = tp_join(&jo, &cb, r, &r->tp, e, sizeof e);
    free(fom);
    if (rc != TP_OK)
        return sfail(r, FMUFED_ERTI, "%s %s at %s: %s: %s",
                     restore ? "rejoining the restored federation" : "joining", ff->federation,
                     addr, tp_strerror(rc), e);
    if (restore) { /* declarations, objects and time management came back from the RTI */
        if (!r->restored)
            return sfail(r, FMUFED_ERTI, "rejoining %s: the RTI handed back no part",
                         ff->federation);
        msproto_slave_class(r->idx, name, sizeof name);
        if ((rc = tp_object_class(r->tp, name, &r->cls)) == TP_OK)
            rc = tp_attribute(r->tp, r->cls, MSPROTO_REPLY_ATTR, &r->attr);
        msproto_command_class(r->idx, name, sizeof name);
        if (rc == TP_OK && (rc = tp_interaction_class(r->tp, name, &r->ic)) == TP_OK)
            rc = tp_parameter(r->tp, r->ic, MSPROTO_BODY_PARAM, &r->param);
        if (rc == TP_OK) rc = lookup_shares(r);
        if (rc != TP_OK)
            return sfail(r, FMUFED_ERTI, "the protocol's classes: %s: %s", tp_strerror(rc),
                         tp_last_error(r->tp));
        return FMUFED_OK;
    }
    msproto_slave_class(r->idx, name, sizeof name);
    if ((rc = tp_object_class(r->tp, name, &r->cls)) == TP_OK &&
        (rc = tp_attribute(r->tp, r->cls, MSPROTO_REPLY_ATTR, &r->attr)) == TP_OK &&
        (rc = tp_publish_object_class(r->tp, r->cls, &r->attr, 1)) == TP_OK)
        rc = tp_register_object(r->tp, r->cls, r->name, &r->obj);
    msproto_command_class(r->idx, name, sizeof name);
    if (rc == TP_OK && (rc = tp_interaction_class(r->tp, name, &r->ic)) == TP_OK &&
        (rc = tp_parameter(r->tp, r->ic, MSPROTO_BODY_PARAM, &r->param)) == TP_OK)
        rc = tp_subscribe_interaction_class(r->tp, r->ic);
    if (rc == TP_OK) rc = declare_shares(r);
    if (rc == TP_OK) rc = tp_enable_regulation(r->tp, 0);
    if (rc == TP_OK) rc = tp_wait_regulation_enabled(r->tp, timeout_ms);
    if (rc == TP_OK) rc = tp_enable_constrained(r->tp);
    if (rc == TP_OK) rc = tp_wait_constrained_enabled(r->tp, timeout_ms);
    int abandoned = 0;
    if (rc == TP_OK) rc = fmufed_sync(r->tp, "tempo-start", timeout_ms, &abandoned);
    char who[128];
    if (abandoned && fmufed_abandoned(who, sizeof who))
        return sfail(r, FMUFED_ERTI, FMUFED_FOLLOWED " %s failed at its start", who[0] ? who : "?");
    if (rc != TP_OK)
        return sfail(r, FMUFED_ERTI, "setting up (declarations, time management, start): %s: %s",
                     tp_strerror(rc), tp_last_error(r->tp));
    return FMUFED_OK;
}

/* Execute one decoded command on the port slave and fill the reply (state 2's action). */
static void execute(slave_run *r, const msproto_cmd *c, msproto_reply *rep)
{
    const port_slave *s = &r->ps;
    const port_slave_info *in = &s->info;
    port_step_result res = {0};
    size_t nv = 0, nt = 0;
    char share_err[700];
    const char *msg = NULL;
    int st = PORT_OK;
    *rep = (msproto_reply){.kind = c->kind, .seq = c->seq, .v = r->out, .tv = r->out_t};
    switch (c->kind) {
    case MSP_HELLO:
        msproto_info_encode(in, r->out);
        nv = MSPROTO_INFO_N + msproto_info_map_encode(in, r->out + MSPROTO_INFO_N);
        break;
    case MSP_SET_INPUTS: {
        port_poly p = {.t0 = c->t, .order = c->arg, .n = c->n_v / (size_t)(c->arg + 1), .c = c->v};
        st = port_set_inputs(s, &p);
        break;
    }
    case MSP_STEP: {
        int ns = c->arg > 1 ? c->arg : 1;
        if ((size_t)ns * in->n_out > MSPROTO_MAX_VALUES) {
            st = PORT_EUSAGE;
            break;
        }
        st = port_step(s, c->t, c->arg, r->out, &res);
        if (st >= 0) r->stepped = 1, r->t_stepped = res.t_reached;
        nv = (size_t)res.n_sub_done * in->n_out;
        if (c->arg <= 1 && nv > in->n_out) nv = in->n_out;
        rep->event = res.event ? 1 : 0;
        rep->n_sub_done = res.n_sub_done;
        break;
    }
    case MSP_GET_OUTPUTS:
        st = port_get_outputs(s, r->out), nv = in->n_out;
        break;
    case MSP_GET_OUTPUT_DERIVS:
        st = port_get_output_derivs(s, c->arg, r->out), nv = in->n_out;
        break;
    case MSP_GET_DISCRETE:
        st = port_get_discrete(s, r->disc);
        for (size_t k = 0; k < in->n_discrete; k++)
            r->out[k] = r->disc[k].v, r->out_t[k] = r->disc[k].t;
        nv = nt = in->n_discrete;
        break;
    case MSP_SET_DISCRETE:
        for (size_t k = 0; k < c->n_v; k++)
            r->disc[k] = (port_discrete){c->v[k], c->tv[k]};
        st = port_set_discrete(s, c->n_v, r->disc);
        break;
    case MSP_GET_STATES:
        st = port_get_states(s, r->out), nv = in->n_state;
        break;
    case MSP_SET_STATES:
        st = c->n_v == in->n_state ? port_set_states(s, c->t, c->v) : PORT_EUSAGE;
        break;
    case MSP_GET_DERIVATIVES:
        st = port_get_derivatives(s, r->out), nv = in->n_state;
        break;
    case MSP_GET_DIRECTIONAL:
        st = c->n_v == in->n_in ? port_get_directional(s, c->v, r->out) : PORT_EUSAGE;
        nv = in->n_out;
        break;
    case MSP_SAVE:
        st = port_save(s, c->arg);
        break;
    case MSP_RESTORE:
        st = port_restore(s, c->arg);
        break;
    case MSP_RECORD:
        st = port_record(s);
        break;
    case MSP_SHARE: {
        char why[512] = "";
        if ((st = share(r, c->t, why, sizeof why)) < 0) {
            snprintf(share_err, sizeof share_err,
                     "federate %s: sharing discrete values (round %lld): %s", r->name,
                     (long long)c->t, why[0] ? why : port_strerror(st));
            msg = share_err;
        }
        break;
    }
    default:
        st = PORT_EUSAGE;
        break;
    }
    /* The operation's own status, then what collect accumulated (the first failure). */
    int cst = port_collect(s);
    if (st == PORT_OK || (cst < 0 && st > 0)) st = cst;
    if (st < 0) nv = nt = 0;
    rep->status = st;
    rep->n_v = nv;
    rep->n_tv = nt;
    rep->t = fmufed_local_time(r->l);
    rep->msg = st < 0 ? (msg ? msg : fmufed_local_errmsg(r->l)) : "";
    if (st < 0 && !rep->msg[0]) rep->msg = port_strerror(st);
}

/* Send the replies held back as one update stamped T (nothing when there are none): before
 * the slave waits for anything (its next commands, the grant of its close, the end), so the
 * replies to one batch of commands travel as one message (msproto.h "Batches"). */
static int send_replies(slave_run *r)
{
    if (!r->rb_n) return FMUFED_OK;
    tp_value val = {.handle = r->attr, .data = r->rb, .size = r->rb_n};
    int rc = tp_update(r->tp, r->obj, &val, 1, r->T);
    r->rb_n = 0;
    if (rc != TP_OK)
        return sfail(r, FMUFED_ERTI, "replies at %.9g s: %s: %s",
                     port_seconds(r->ff->resolution, r->T), tp_strerror(rc), tp_last_error(r->tp));
    r->st->updates++;
    return FMUFED_OK;
}

/* Encode a reply behind the ones held back (sent first when the batch would pass
 * MSPROTO_BATCH_BYTES). */
static int reply(slave_run *r, const msproto_reply *rep)
{
    size_t len = 0;
    char e[MSPROTO_ERRLEN];
    if (msproto_reply_encode(rep, r->rbuf, r->rcap, &len, e, sizeof e) != MSPROTO_OK)
        return sfail(r, FMUFED_EUSAGE, "encoding the reply to %s: %s",
                     msproto_kind_name((int)rep->kind), e);
    int rc = FMUFED_OK;
    if (r->rb_n && r->rb_n + len > MSPROTO_BATCH_BYTES && (rc = send_replies(r))) return rc;
    if (r->rb_n + len > r->rb_cap) {
        size_t cap = r->rb_cap ? r->rb_cap : 256;
        while (cap < r->rb_n + len)
            cap *= 2;
        unsigned char *nb = realloc(r->rb, cap);
        if (!nb) return sfail(r, FMUFED_ENOMEM, "out of memory holding the replies");
        r->rb = nb, r->rb_cap = cap;
    }
    memcpy(r->rb + r->rb_n, r->rbuf, len);
    r->rb_n += len;
    return FMUFED_OK;
}

/* A slave restored at the close of instant T (its part, slave_save): as the saving run was
 * after that close, which counted the instant and marked a checkpoint instant before the part
 * (the counters and the mark came with it): NERA(horizon) pending at the restored RTI (not
 * asked again), or, at the horizon, no request, waiting for the master's `end`. */
static void resume_closed(slave_run *r, tp_time T, tp_time t_end)
{
    r->granted = 0;
    r->closed = T;
    r->st->t_final =
        port_seconds(r->ff->resolution, r->stepped && r->t_stepped > T ? r->t_stepped : T);
    r->nera = T < t_end;
}

/* The state machine (states in the file's opening comment). resumed: restored at the close
 * of instant T_resumed (its part), so it goes on from there. */
static int serve(slave_run *r, int resumed, tp_time T_resumed)
{
    tp_time t_end = fedfile_master_horizon(r->ff), now = 0; /* the last instant */
    int rc = resumed ? TP_OK : tp_query_logical_time(r->tp, &now);
    if (resumed) {
        resume_closed(r, T_resumed, t_end);
    } else if (rc == TP_OK && now == r->ff->algo.t_start) {
        /* The start instant is the logical time already: 2 OPEN without a request (a NERA
         * now could not be granted at the time it starts from). */
        r->granted = 1;
        r->T = now;
    } else if (rc == TP_OK) {
        r->granted = 0;
        rc = tp_next_event_request_available(r->tp, t_end); /* 1 WAIT */
        r->nera = 1;
        r->st->requests++;
    }
    while (rc == TP_OK) {
        if (r->failed) return sfail(r, FMUFED_ERTI, "%s", r->why);
        if (r->rearm) { /* granted by refused commands only: back to 1 WAIT */
            if (!r->rearm_quiet && r->refused <= MSPROTO_REFUSALS_LOGGED)
                fprintf(stderr,
                        "tempo-fmu: %s: granted at %.9g s for refused commands only; waiting "
                        "for the master's next instant\n",
                        r->name, (double)r->T * r->ff->resolution);
            r->rearm = r->rearm_quiet = r->granted = 0;
            rc = tp_next_event_request_available(r->tp, t_end);
            r->nera = 1;
            r->st->requests++;
            continue;
        }
        int head_end = r->q_n && r->q[r->q_head].n > 1 && r->q[r->q_head].p[1] == MSP_END;
        if (!r->q_n || (!r->granted && !head_end)) {
            if ((rc = send_replies(r))) return rc;
            int n = tp_evoke(r->tp, 500);
            if (n < 0)
                return sfail(r, FMUFED_ERTI, "waiting for the master: %s: %s", tp_strerror(n),
                             tp_last_error(r->tp));
            continue;
        }
        cmd_buf b = r->q[r->q_head];
        r->q_head = (r->q_head + 1) % r->q_cap;
        r->q_n--;
        msproto_cmd c;
        char e[MSPROTO_ERRLEN];
        int drc = msproto_cmd_decode(b.p, b.n, &c, r->v, MSPROTO_MAX_VALUES, r->tv,
                                     MSPROTO_MAX_VALUES, e, sizeof e);
        free(b.p);
        if (drc != MSPROTO_OK)
            return sfail(r, FMUFED_ERTI, "malformed command from the master: %s", e);
        if (c.kind == MSP_END) return send_replies(r); /* 4 DONE */
        if (c.kind == MSP_CLOSE) {                     /* 3 CLOSE: NERA(end) at once, 1 WAIT */
            if ((rc = send_replies(r))) return rc;
            tp_time T = r->T;
            r->granted = 0;
            r->closed = T;
            /* the end reached: the last step's (the steps before a close are committed) */
            r->st->t_final =
                port_seconds(r->ff->resolution, r->stepped && r->t_stepped > T ? r->t_stepped : T);
            if (T > r->ff->algo.t_start) r->st->steps++; /* instants committed */
            r->st->requests++;
            /* a checkpoint instant reached: a model-exchange integrator restarts (doc/
             * checkpoint.md "Model exchange: the checkpoint instants"); a failure shows at the
             * FMU's next step */
            if (r->mark_next != TP_NO_TIME && T >= r->mark_next) {
                fmufed_model_mark(r->l->model);
                r->mark_next = next_instant(r, T);
            }
            /* The horizon closed: no instant follows. TAR(T), then no request; the master's
             * `end` comes in receive order. */
            if (T >= t_end) {
                if ((rc = tp_time_advance_request(r->tp, T)) == TP_OK)
                    rc = tp_wait_grant(r->tp, NULL, -1);
                r->granted = 0;
                continue;
            }
            /* Before it, NERA(horizon) straight away, without a TAR(T) first (doc/master.md
             * "One instant per macro step"): pending, its bound is the least of the horizon,
             * its queue and the others' bounds, (T, strict) once the master asks TAR(T), what
             * a TAR(T) would promise; so the master's TAR(T) is granted once every slave has
             * asked, and the next instant's commands grant this NERA with no other request
             * (the master's `end` stamped at the horizon the last one, doc/master.md "The
             * end"). */
            rc = tp_next_event_request_available(r->tp, t_end);
            r->nera = 1;
            continue;
        }
        msproto_reply rep;
        execute(r, &c, &rep); /* 2 OPEN */
        int prc = reply(r, &rep);
        if (prc) return prc;
    }
    return sfail(r, FMUFED_ERTI, "time request: %s: %s", tp_strerror(rc), tp_last_error(r->tp));
}

int fmufed_slave_run(const fedfile *ff, const char *name, const fmufed_opts *opts,
                     fmufed_stats *stats, char *err, size_t errlen)
{
    fmufed_stats dummy;
    slave_run r = {.ff = ff,
                   .name = name,
                   .st = stats ? stats : &dummy,
                   .err = err,
                   .errlen = errlen,
                   .closed = TP_NO_TIME};
    memset(r.st, 0, sizeof *r.st);
    if (err && errlen) err[0] = '\0';
    long idx = ff && name ? fedfile_find(ff, name) : -1;
    if (idx < 0) {
        if (err && errlen)
            snprintf(err, errlen, "%s: no federate named \"%s\" in the file", ff ? ff->path : "?",
                     name ? name : "(null)");
        return FMUFED_EUSAGE;
    }
    r.idx = (size_t)idx;
    int timeout_ms = opts && opts->timeout_ms ? opts->timeout_ms : 60000;
    r.rcap = msproto_reply_size(MSPROTO_MAX_VALUES, MSPROTO_MAX_VALUES, MSPROTO_MAX_MSG);
    r.v = malloc(MSPROTO_MAX_VALUES * sizeof *r.v);
    r.out = malloc(MSPROTO_MAX_VALUES * sizeof *r.out);
    r.tv = malloc(MSPROTO_MAX_VALUES * sizeof *r.tv);
    r.out_t = malloc(MSPROTO_MAX_VALUES * sizeof *r.out_t);
    r.disc = malloc(MSPROTO_MAX_VALUES * sizeof *r.disc);
    r.rbuf = malloc(r.rcap);
    r.peers = msproto_peers_new();
    int rc;
    if (!r.v || !r.out || !r.tv || !r.out_t || !r.disc || !r.rbuf || !r.peers) {
        rc = sfail(&r, FMUFED_ENOMEM, "out of memory");
        goto out;
    }
    r.opts = opts;
    r.mark_next = next_instant(&r, ff->algo.t_start);
    int restore = opts && opts->restore;
    rc = local_new(ff, r.idx, opts ? opts->output : NULL, restore, &r.l, &r.ps, err, errlen);
    if (rc) goto out;
    if ((opts && (opts->ckpt_every > 0 || opts->n_ckpt_at > 0 || restore)) &&
        !fmufed_model_can_save(r.l->model)) {
        rc = sfail(&r, FMUFED_EUSAGE,
                   "checkpoints are asked for, but its FMU %s cannot save its state (it needs "
                   "canGetAndSetFMUstate and canSerializeFMUstate)",
                   ff->feds[r.idx].fmu);
        goto out;
    }
    if (opts && opts->progress) { /* a slave reports its progress as a peer does (doc/run.md) */
        r.l->rec.progress = opts->progress;
        r.l->rec.progress_ctx = opts->progress_ctx;
    }
    r.timeout_ms = timeout_ms;
    if (ff->algo.needs & FEDFILE_NEEDS_BUS) { /* the slave-to-slave channel's bookkeeping */
        r.n_din = discrete_sources(ff, r.idx, &r.src, &r.src_k);
        r.rx = calloc(ff->n_feds, sizeof *r.rx);
        int bad = !r.src || !r.src_k || !r.rx;
        for (size_t j = 0; !bad && j < ff->n_feds; j++) {
            unsigned char *f = calloc(ff->feds[j].n_outputs + 1, 1);
            r.rx[j].t = INT64_MIN;
            r.rx[j].cap = f ? fedfile_bus_flags(ff, j, f, NULL) : 0;
            r.rx[j].v = malloc((r.rx[j].cap + 1) * sizeof(double));
            r.rx[j].tv = malloc((r.rx[j].cap + 1) * sizeof(int64_t));
            bad = !f || !r.rx[j].v || !r.rx[j].tv;
            free(f);
        }
        if (bad) {
            rc = sfail(&r, FMUFED_ENOMEM, "out of memory");
            goto out;
        }
    }
    snprintf(r.st->csv, sizeof r.st->csv, "%s", r.l->st.csv);
    tp_time T_resumed = 0;
    if ((rc = join_slave(&r, opts, timeout_ms))) goto out;
    if (restore && (rc = slave_restore(&r, &T_resumed))) goto out;
    if ((rc = serve(&r, restore, T_resumed))) goto out;
    rc = fmufed_local_free(r.l, err, errlen);
    r.l = NULL;
    if (rc) goto out;
    if ((rc = tp_resign(r.tp, TP_DELETE_OBJECTS)) != TP_OK)
        rc = sfail(&r, FMUFED_ERTI, "resign: %s: %s", tp_strerror(rc), tp_last_error(r.tp));
out:
    if (r.refused) /* reported whatever the outcome: someone tried to drive this slave */
        fprintf(stderr,
                "tempo-fmu: %s: %ld message(s) refused in this run, not from the federate "
                "their class belongs to; the first from %s\n",
                name, r.refused, r.st->refused_first);
    msproto_peers_free(r.peers);
    fmufed_local_free(r.l, NULL, 0);
    tp_federate_free(r.tp);
    for (size_t k = 0; k < r.q_n; k++)
        free(r.q[(r.q_head + k) % r.q_cap].p);
    free(r.q);
    free(r.v);
    free(r.out);
    free(r.tv);
    free(r.out_t);
    free(r.disc);
    free(r.rbuf);
    free(r.rb);
    for (size_t j = 0; r.rx && j < ff->n_feds; j++)
        free(r.rx[j].v), free(r.rx[j].tv);
    free(r.rx);
    free(r.src);
    free(r.src_k);
    free(r.restored);
    return rc;
}
