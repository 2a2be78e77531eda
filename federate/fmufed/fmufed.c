/* The FMU federate: puts the pieces of one peer together and runs the file's algorithm over
 * them: the model (fmufed_model.c: the FMU as a port_slave), the recording (fmufed_rec.c: CSV,
 * progress, row hook), the transport (fmufed_tp.c: the peer exchange over libtempo) and the
 * algorithm from the registry (federate/config/fedfile.h; algorithms/jacobi.c, jacobi_de.c,
 * gauss_seidel.c). A file whose method tempo-master runs (wr, master-jacobi) is handed to the
 * slave role at once (fmufed_slave.c, doc/master.md). Serves doc/algorithms/port.md and the
 * Awais thesis §3.3 (the FMU-federate). Read fmufed_model.h next.
 */
#include <stdio.h>
#include <string.h>

#include "federate/config/fedfile_algo.h"
#include "federate/config/fedfile_master.h"
#include "federate/fmufed/fmufed_model.h"
#include "federate/fmufed/fmufed_rec.h"
#include "federate/fmufed/fmufed_tp.h"

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

/* The peer over its pieces, and the registry's algorithm over the peer. */
static int run_peer(const fedfile *ff, const fedfile_fed *fd, const fedfile_algo_def *alg,
                    const void *settings, fmufed_model *model, fmufed_tp *tp, fmufed_stats *st,
                    char *err, size_t errlen)
{
    const char *in_names[fd->n_inputs + 1], *out_names[fd->n_outputs + 1];
    for (size_t i = 0; i < fd->n_inputs; i++)
        in_names[i] = fd->inputs[i].var;
    for (size_t k = 0; k < fd->n_outputs; k++)
        out_names[k] = fd->outputs[k].var;
    peer p = {.model = fmufed_model_slave(model),
              .x = fmufed_tp_exchange(tp),
              .name = fd->name,
              .tick = ff->resolution,
              .t_start = ff->algo.t_start,
              .t_end = ff->algo.t_end,
              .t_granted = fmufed_tp_time(tp),
              .extrapolation = ff->algo.extrapolation,
              .u0 = fmufed_model_u0(model),
              .in_names = in_names,
              .out_names = out_names,
              .err = err,
              .errlen = errlen};
    int rc = code_of(alg->run_peer(settings, &p));
    st->steps = p.steps;
    return rc;
}

int fmufed_run(const fedfile *ff, const char *name, const fmufed_opts *opts, fmufed_stats *stats,
               char *err, size_t errlen)
{
    /* The slave role of a master method: tempo-master runs the algorithm. */
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
    int rc = code_of(fmufed_model_open(ff, (size_t)idx, err, errlen, &model));
    if (rc) goto out;
    if (alg->create(ff, (size_t)idx, &settings, err, errlen) != FEDFILE_OK) {
        rc = FMUFED_EUSAGE;
        goto out;
    }
    if ((rc = fmufed_tp_start(ff, (size_t)idx, opts, lookahead, st, err, errlen, &tp))) goto out;
    size_t n_rec;
    const char *const *rec_names = fmufed_model_rec_names(model, &n_rec);
    const char *dir = opts && opts->output ? opts->output : ff->output;
    if (fmufed_rec_open(&rec, dir, fd->name, n_rec, rec_names, e, sizeof e) != PORT_OK) {
        rc = set_err(err, errlen, FMUFED_EIO, "federate %s: %s", fd->name, e);
        goto out;
    }
    if (rec.csv || rec.hook || rec.none) fmufed_model_set_rows(model, fmufed_rec_row, &rec);
    if ((rc = fmufed_tp_sync_start(tp))) goto out;
    rc = run_peer(ff, fd, alg, settings, model, tp, st, err, errlen);
    if (rc) goto out;
    rc = fmufed_tp_finish(tp);
out:
    if (fmufed_rec_close(&rec, e, sizeof e) != PORT_OK && rc == FMUFED_OK)
        rc = set_err(err, errlen, FMUFED_EIO, "federate %s: %s", fd->name, e);
    if (settings) alg->destroy(settings);
    fmufed_tp_free(tp);
    fmufed_model_close(model);
    return rc;
}
