/* The FMU federate: puts the pieces of one peer together and runs the file's algorithm over
 * them: the model (fmufed_model.c: the FMU as a port_slave), the recording (fmufed_rec.c: CSV,
 * progress, row hook), the transport (fmufed_tp.c: the peer exchange over libtempo) and the
 * algorithm from the registry (federate/config/fedfile.h; algorithms/jacobi.c, jacobi_de.c,
 * gauss_seidel.c). A file whose method tempo-master runs (wr, master-jacobi) is handed to the
 * slave role at once (fmufed_slave.c, doc/master.md). Serves doc/algorithms/port.md and the
 * Awais thesis §3.3 (the FMU-federate). Read fmufed_model.h next.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/config/fedfile_algo.h"
#include "federate/config/fedfile_master.h"
#include "federate/fmu/fmu_step.h"
#include "federate/fmufed/fmufed_model.h"
#include "federate/fmufed/fmufed_rec.h"
#include "federate/fmufed/fmufed_tp.h"
#include "federate/msproto/msproto_child.h"

/* A port status as this module's code: the model's failures are the FMU's, the exchange's
 * the federation's (algorithms/exchange.h: the message is already written). */
static int code_of(int st)
{
    switch (st) {
    case PORT_OK:
        return FMUFED_OK;
    case PORT_EUSAGE:
        return FMUFED_EUSAGE;
    case PORT_ENOMEM:
        return FMUFED_ENOMEM;
    case PORT_ELOST:
        return FMUFED_ERTI;
    default:
        return FMUFED_EFMU;
    }
}

static int set_err(char *err, size_t errlen, int code, const char *fmt, const char *a,
                   const char *b)
{
    if (err && errlen) snprintf(err, errlen, fmt, a, b);
    return code;
}

/* ---- checkpoints (doc/checkpoint.md, "tempo-fmu's part") ------------------------------- */

#define PART_MAGIC   0x554d4654u /* "TFMU" */
#define PART_VERSION 1u

/* What a save writes from, and a restore into: the pieces of the running peer. */
typedef struct fed_run {
    const fedfile *ff;
    const fedfile_fed *fd;
    fmufed_model *model;      /* the FMU; NULL for a model in Python */
    port_slave mps;           /* the model as the peer's port slave (the FMU's or the child's) */
    const double *u0;         /* the inputs' start values */
    struct msproto_child *py; /* a model in Python (doc/python.md "In one process"), or NULL */
    fmufed_tp *tp;
    fmufed_rec *rec;
    peer *p;     /* NULL until the algorithm runs */
    int profile; /* fmufed_opts.profile */
    char *err;
    size_t errlen;
} fed_run;

static void put_sub(pstate_buf *b, pstate_buf *sub)
{
    if (sub->bad) b->bad = 1;
    pstate_put_bytes(b, sub->p, sub->n);
    free(sub->p);
}

/* A model in Python: its slave's whole state, as its tempo-slave writes it (the model's own
 * save() or the pickled object, its time, inputs and rows; msproto_child_state_save). */
static int save_python(fed_run *r, pstate_buf *m)
{
    unsigned char *bytes;
    size_t n;
    int rc = msproto_child_state_save(r->py, &bytes, &n);
    if (rc != PORT_OK) {
        snprintf(r->err, r->errlen, "federate %s: %s", r->fd->name, msproto_child_errmsg(r->py));
        return rc;
    }
    pstate_put_bytes(m, bytes, n);
    free(bytes);
    return PORT_OK;
}

static int restore_python(fed_run *r, pstate_rd *m)
{
    size_t n = 0;
    const unsigned char *p = pstate_get_bytes(m, &n);
    if (!p || msproto_child_state_restore(r->py, p, n) != PORT_OK) {
        snprintf(r->err, r->errlen, "federate %s: %s", r->fd->name,
                 p ? msproto_child_errmsg(r->py) : "its model's state is truncated");
        return PORT_EUSAGE;
    }
    return PORT_OK;
}

/* The part (fmufed_tp_saver), inside the grant `time`. Layout: u32 magic "TFMU", u32 version,
 * bytes federate name, bytes method, i64 grant, bytes exchange (fmufed_tp_state_save), bytes
 * model (fmufed_model_save), bytes algorithm (peer_save), u8 has CSV, i64 CSV position. */
static int save_part(void *ctx, const char *label, int64_t time, pstate_buf *b, char *why,
                     size_t why_size)
{
    fed_run *r = ctx;
    if (!r->p) {
        snprintf(why, why_size, "federate %s is not running its algorithm yet", r->fd->name);
        return -1;
    }
    const char *method = fedfile_method_name(r->ff);
    pstate_put_u32(b, PART_MAGIC);
    pstate_put_u32(b, PART_VERSION);
    pstate_put_bytes(b, r->fd->name, strlen(r->fd->name));
    pstate_put_bytes(b, method, strlen(method));
    pstate_put_i64(b, time);
    pstate_buf x = {0}, m = {0}, a = {0};
    fmufed_tp_state_save(r->tp, time, &x);
    put_sub(b, &x);
    int rc = r->py ? save_python(r, &m) : fmufed_model_save(r->model, &m);
    /* with the request pending there is no grant: the resumed run waits for it (PEER_NO_TIME) */
    if (rc == PORT_OK)
        rc = peer_save(r->p, fmufed_tp_save_pending(r->tp) ? PEER_NO_TIME : time, &a);
    if (rc != PORT_OK) {
        free(m.p), free(a.p);
        snprintf(why, why_size, "%s", r->err);
        return -1;
    }
    put_sub(b, &m);
    put_sub(b, &a);
    int has;
    unsigned long long pos;
    char e[FMUFED_ERRLEN];
    if (fmufed_rec_position(r->rec, &has, &pos, e, sizeof e) != PORT_OK) {
        snprintf(why, why_size, "federate %s: %s", r->fd->name, e);
        return -1;
    }
    pstate_put_u8(b, (uint8_t)has);
    pstate_put_i64(b, (int64_t)pos);
    return 0;
}

/* At each checkpoint instant: a model-exchange integrator restarts (fmufed_model_mark). */
static void mark_instant(void *ctx)
{
    fed_run *r = ctx;
    if (r->model) fmufed_model_mark(r->model); /* a failure shows at the next step of the FMU */
}

static const unsigned char *get_sub(pstate_rd *d, pstate_rd *sub)
{
    size_t n = 0;
    const unsigned char *p = pstate_get_bytes(d, &n);
    *sub = (pstate_rd){.p = p, .n = n, .bad = p == NULL};
    return p;
}

/* "FEDERATE.VARIABLE=VALUE" entries of this federate, set in its restored FMU. */
static int apply_sets(fed_run *r, const fmufed_opts *o)
{
    size_t nl = strlen(r->fd->name);
    for (size_t k = 0; o && k < o->n_set; k++) {
        const char *s = o->set[k], *eq = strchr(s, '=');
        if (strncmp(s, r->fd->name, nl) != 0 || s[nl] != '.' || !eq || eq < s + nl + 1) continue;
        if (!r->model) /* a model in Python: its variables are its own */
            return set_err(r->err, r->errlen, FMUFED_EUSAGE,
                           "federate %s: --set %s: a model in Python takes no --set", r->fd->name,
                           s);
        char var[512];
        snprintf(var, sizeof var, "%.*s", (int)(eq - s - (long)nl - 1), s + nl + 1);
        struct fmu_step *f = fmufed_model_fmu(r->model);
        if (fmu_step_set_text(f, var, eq + 1) != FMU_STEP_OK) {
            snprintf(r->err, r->errlen, "federate %s: --set %s: %s", r->fd->name, s,
                     fmu_step_errmsg(f));
            return FMUFED_EUSAGE;
        }
    }
    return FMUFED_OK;
}

/* The part the restoring join handed back: checked, then the exchange's and the model's
 * state restored, the branch's values set; the algorithm's state and the CSV position are
 * returned for the run. Nothing is half-loaded: a refusal ends the run. */
static int load_part(fed_run *r, const fmufed_opts *o, pstate_rd *algo, int *has_csv,
                     unsigned long long *pos)
{
    const unsigned char *bytes;
    size_t n;
    fmufed_tp_restored(r->tp, &bytes, &n);
    pstate_rd d = {.p = bytes, .n = n};
    const char *method = fedfile_method_name(r->ff);
    size_t ln, lm;
    int magic_ok = pstate_get_u32(&d) == PART_MAGIC;
    uint32_t version = pstate_get_u32(&d);
    const unsigned char *name = pstate_get_bytes(&d, &ln), *meth = pstate_get_bytes(&d, &lm);
    pstate_get_i64(&d);
    if (!magic_ok || d.bad)
        return set_err(r->err, r->errlen, FMUFED_EUSAGE,
                       "federate %s: its part of the checkpoint is not tempo-fmu's%s", r->fd->name,
                       "");
    if (version != PART_VERSION)
        return set_err(r->err, r->errlen, FMUFED_EUSAGE,
                       "federate %s: its part has another format version%s", r->fd->name, "");
    if (ln != strlen(r->fd->name) || memcmp(name, r->fd->name, ln) != 0 || lm != strlen(method) ||
        memcmp(meth, method, lm) != 0)
        return set_err(r->err, r->errlen, FMUFED_EUSAGE,
                       "federate %s: its part was saved by another federate or method (this "
                       "file runs \"%s\")",
                       r->fd->name, method);
    pstate_rd x, m;
    get_sub(&d, &x);
    get_sub(&d, &m);
    get_sub(&d, algo);
    *has_csv = pstate_get_u8(&d);
    *pos = (unsigned long long)pstate_get_i64(&d);
    if (d.bad || x.bad || m.bad || algo->bad || d.at != d.n || *has_csv > 1)
        return set_err(r->err, r->errlen, FMUFED_EUSAGE,
                       "federate %s: its part of the checkpoint is truncated or damaged%s",
                       r->fd->name, "");
    int rc = fmufed_tp_state_restore(r->tp, &x);
    if (rc) return rc;
    if (x.at != x.n)
        return set_err(r->err, r->errlen, FMUFED_EUSAGE,
                       "federate %s: bytes after the exchange's state%s", r->fd->name, "");
    if ((r->py ? restore_python(r, &m) : fmufed_model_restore(r->model, &m)) != PORT_OK)
        return FMUFED_EUSAGE;
    if (m.at != m.n)
        return set_err(r->err, r->errlen, FMUFED_EUSAGE,
                       "federate %s: bytes after the model's state%s", r->fd->name, "");
    return apply_sets(r, o);
}

/* Checkpoints asked for: every FMU must serialize its state, said at the start. */
static int check_can_save(fed_run *r, const fmufed_opts *o)
{
    int asked = o && (o->ckpt_every > 0 || o->n_ckpt_at > 0 || o->restore);
    if (!r->model) return FMUFED_OK; /* a model in Python: its slave says at the save */
    if (!asked || fmufed_model_can_save(r->model)) return FMUFED_OK;
    return set_err(r->err, r->errlen, FMUFED_EUSAGE,
                   "federate %s: checkpoints are asked for, but its FMU %s cannot save its state "
                   "(it needs canGetAndSetFMUstate and canSerializeFMUstate)",
                   r->fd->name, r->fd->fmu);
}

/* The peer's model: the FMU (fmufed_model), or a model in Python in its tempo-slave --pipe
 * child (fmufed_python_child; doc/python.md "In one process"), which writes its own CSV and
 * whose inputs start at 0 (*u0_zero, the caller frees). */
static int open_model(fed_run *r, size_t idx, const fmufed_opts *opts, fmufed_rec *rec,
                      double **u0_zero)
{
    const fedfile_fed *fd = r->fd;
    if (!fd->python) {
        int rc = code_of(fmufed_model_open(r->ff, idx, r->err, r->errlen, &r->model));
        if (!rc) r->mps = fmufed_model_slave(r->model), r->u0 = fmufed_model_u0(r->model);
        return rc;
    }
    rec->none = 1;
    int rc = code_of(fmufed_python_child(r->ff, idx, opts ? opts->output : NULL, rec, &r->py,
                                         &r->mps, r->err, r->errlen));
    if (!rc && !(*u0_zero = calloc(fd->n_inputs + 1, sizeof **u0_zero)))
        rc = set_err(r->err, r->errlen, FMUFED_ENOMEM, "out of memory%s%s", "", "");
    r->u0 = *u0_zero;
    return rc;
}

/* The peer over its pieces, and the registry's algorithm over the peer. */
static int run_peer(fed_run *r, const fedfile_algo_def *alg, const void *settings,
                    const pstate_rd *resume, fmufed_stats *st)
{
    const fedfile *ff = r->ff;
    const fedfile_fed *fd = r->fd;
    const char *in_names[fd->n_inputs + 1], *out_names[fd->n_outputs + 1];
    for (size_t i = 0; i < fd->n_inputs; i++)
        in_names[i] = fd->inputs[i].var;
    for (size_t k = 0; k < fd->n_outputs; k++)
        out_names[k] = fd->outputs[k].var;
    peer p = {.model = r->mps,
              .x = fmufed_tp_exchange(r->tp),
              .name = fd->name,
              .tick = ff->resolution,
              .t_start = ff->algo.t_start,
              .t_end = ff->algo.t_end,
              .t_granted = fmufed_tp_time(r->tp),
              .extrapolation = ff->algo.extrapolation,
              .u0 = r->u0,
              .in_names = in_names,
              .out_names = out_names,
              .err = r->err,
              .errlen = r->errlen,
              .resume = resume ? resume->p : NULL,
              .resume_len = resume ? resume->n : 0};
    fmufed_prof *prof = r->profile ? fmufed_prof_new(p.model, p.x) : NULL;
    if (r->profile && !prof)
        return set_err(r->err, r->errlen, FMUFED_ENOMEM, "federate %s: out of memory%s", fd->name,
                       " (profile)");
    if (prof) p.model = fmufed_prof_slave(prof), p.x = fmufed_prof_exchange(prof);
    r->p = &p;
    int rc = code_of(alg->run_peer(settings, &p));
    r->p = NULL;
    /* a model in Python writes its failures into its child's buffer, not into err */
    if (rc && r->py && r->err && r->errlen && !r->err[0])
        snprintf(r->err, r->errlen, "federate %s: %s", fd->name, msproto_child_errmsg(r->py));
    st->steps = p.steps;
    if (prof) fmufed_prof_result(prof, &st->prof);
    fmufed_prof_free(prof);
    return rc;
}

int fmufed_run(const fedfile *ff, const char *name, const fmufed_opts *opts, fmufed_stats *stats,
               char *err, size_t errlen)
{
    /* The slave role of a master method: tempo-master runs the algorithm. A method whose
     * state between steps is not saved (doc/checkpoint.md, "Status") is refused at the start,
     * not at the save. */
    if (ff && fedfile_is_master(ff) && opts && !ff->algo.def->saves &&
        (opts->ckpt_every > 0 || opts->n_ckpt_at > 0 || opts->restore))
        return set_err(err, errlen, FMUFED_EUSAGE,
                       "federate %s: method \"%s\" cannot save its state between steps yet: "
                       "no checkpoints of it (doc/checkpoint.md)",
                       name, fedfile_method_name(ff));
    if (ff && fedfile_is_master(ff)) return fmufed_slave_run(ff, name, opts, stats, err, errlen);
    fmufed_stats dummy;
    fmufed_stats *st = stats ? stats : &dummy;
    memset(st, 0, sizeof *st);
    if (err && errlen) err[0] = '\0';
    if (!ff || !name)
        return set_err(err, errlen, FMUFED_EUSAGE, "fmufed_run: NULL file or name%s%s", "", "");
    long idx = fedfile_find(ff, name);
    if (idx < 0)
        return set_err(err, errlen, FMUFED_EUSAGE, "%s: no federate named \"%s\" in the file",
                       ff->path, name);
    const fedfile_fed *fd = &ff->feds[idx];
    const fedfile_algo_def *alg = ff->algo.def;
    if (!alg->run_peer)
        return set_err(err, errlen, FMUFED_EUSAGE,
                       "federate %s: method \"%s\" is run by a master, not by tempo-fmu", name,
                       alg->name);
    fmufed_model *model = NULL;
    fmufed_tp *tp = NULL;
    void *settings = NULL;
    fmufed_rec rec = {
        .st = st, .t_start = ff->algo.t_start, .t_end = ff->algo.t_end, .none = fd->record_none};
    if (opts) {
        rec.progress = opts->progress;
        rec.progress_ctx = opts->progress_ctx;
        rec.hook = opts->row;
        rec.hook_ctx = opts->row_ctx;
    }
    int64_t lookahead = ff->algo.t_lookahead;
    char e[FMUFED_ERRLEN];
    fed_run r = {.ff = ff,
                 .fd = fd,
                 .rec = &rec,
                 .profile = opts && opts->profile,
                 .err = err,
                 .errlen = errlen};
    int restore = opts && opts->restore;
    pstate_rd resume = {0};
    double *u0_zero = NULL; /* a model in Python: its inputs hold 0 until set (doc/python.md) */
    int rc = open_model(&r, (size_t)idx, opts, &rec, &u0_zero);
    model = r.model;
    if (rc) goto out;
    if ((rc = check_can_save(&r, opts))) goto out;
    if (alg->create(ff, (size_t)idx, &settings, err, errlen) != FEDFILE_OK) {
        rc = FMUFED_EUSAGE;
        goto out;
    }
    if ((rc = fmufed_tp_start(ff, (size_t)idx, opts, lookahead, st, err, errlen, &tp))) goto out;
    r.tp = tp;
    int has_csv = 0;
    unsigned long long pos = 0;
    if (restore && (rc = load_part(&r, opts, &resume, &has_csv, &pos))) goto out;
    size_t n_rec = 0;
    const char *const *rec_names = model ? fmufed_model_rec_names(model, &n_rec) : NULL;
    const char *dir = opts && opts->output ? opts->output : ff->output;
    int orc = !model ? PORT_OK
              : restore && has_csv
                  ? fmufed_rec_resume(&rec, dir, fd->name, n_rec, rec_names, pos, e, sizeof e)
                  : fmufed_rec_open(&rec, dir, fd->name, n_rec, rec_names, e, sizeof e);
    if (orc != PORT_OK) {
        rc = set_err(err, errlen, FMUFED_EIO, "federate %s: %s", fd->name, e);
        goto out;
    }
    if (model && (rec.csv || rec.hook || rec.none))
        fmufed_model_set_rows(model, fmufed_rec_row, &rec);
    fmufed_tp_set_saver(tp, save_part, mark_instant, &r);
    if ((rc = fmufed_tp_sync_start(tp))) goto out;
    rc = run_peer(&r, alg, settings, restore ? &resume : NULL, st);
    if (rc) goto out;
    rc = fmufed_tp_finish(tp);
out:
    if (tp) fmufed_tp_set_saver(tp, NULL, NULL, NULL);
    if (fmufed_rec_close(&rec, e, sizeof e) != PORT_OK && rc == FMUFED_OK)
        rc = set_err(err, errlen, FMUFED_EIO, "federate %s: %s", fd->name, e);
    if (settings) alg->destroy(settings);
    fmufed_tp_free(tp);
    /* a model in Python: end, and the child writes its CSV (after the end synchronisation) */
    if (r.py && msproto_child_free(r.py, e, sizeof e) != PORT_OK && rc == FMUFED_OK)
        rc = set_err(err, errlen, FMUFED_EIO, "%s%s", e, "");
    free(u0_zero);
    fmufed_model_close(model);
    return rc;
}
