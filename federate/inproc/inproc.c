/* The in-process runner (inproc.h): one thread per federate, each with its own FMU (the same
 * adapter as tempo-fmu, fmufed_model.h), its own rows (fmufed_rec.h) and its side of the
 * in-memory exchange (inproc_tm.c), running the algorithm from the registry
 * (federate/config/fedfile.h). doc/algorithms/port.md ("In one process"); read inproc_tm.c next.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/config/fedfile_algo.h"
#include "federate/fmufed/fmufed_model.h"
#include "federate/fmufed/fmufed_rec.h"
#include "federate/inproc/inproc_impl.h"

/* One federate's thread. */
typedef struct worker {
    const fedfile *ff;
    size_t idx;
    const fedfile_algo_def *alg;
    inproc_hub *hub;
    const inproc_opts *opts;
    inproc_stats st;
    fmufed_stats fst; /* what the recording fills (t_final, csv path) */
    int rc;           /* FMUFED_* */
    char err[INPROC_ERRLEN];
    fmufed_model *model;
    void *settings;
    peer_exchange x; /* its side of the hub, set before the threads start */
    fmufed_rec rec;
    pthread_t th;
    int started;
} worker;

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

/* The peer of federate w->idx over its FMU, rows and the hub; the registry's algorithm. */
static int run_worker(worker *w, fmufed_model *model, void *settings, fmufed_rec *rec)
{
    const fedfile *ff = w->ff;
    const fedfile_fed *fd = &ff->feds[w->idx];
    const char *in_names[fd->n_inputs + 1], *out_names[fd->n_outputs + 1];
    for (size_t i = 0; i < fd->n_inputs; i++)
        in_names[i] = fd->inputs[i].var;
    for (size_t k = 0; k < fd->n_outputs; k++)
        out_names[k] = fd->outputs[k].var;
    if (rec->csv || rec->hook || rec->none) fmufed_model_set_rows(model, fmufed_rec_row, rec);
    peer p = {.model = fmufed_model_slave(model),
              .x = w->x,
              .name = fd->name,
              .tick = ff->resolution,
              .t_start = ff->algo.t_start,
              .t_end = ff->algo.t_end,
              .t_granted = 0,
              .extrapolation = ff->algo.extrapolation,
              .u0 = fmufed_model_u0(model),
              .in_names = in_names,
              .out_names = out_names,
              .err = w->err,
              .errlen = sizeof w->err};
    int rc = code_of(w->alg->run_peer(settings, &p));
    w->st.steps = p.steps;
    return rc;
}

/* Open federate w->idx's FMU, settings and rows, in the calling (main) thread: the FMU host's
 * XML and zip readers then never run concurrently. */
static void worker_open(worker *w)
{
    const fedfile *ff = w->ff;
    const fedfile_fed *fd = &ff->feds[w->idx];
    w->rec = (fmufed_rec){.st = &w->fst,
                          .t_start = ff->algo.t_start,
                          .t_end = ff->algo.t_end,
                          .none = fd->record_none};
    if (w->opts && w->opts->row) {
        w->rec.hook = w->opts->row;
        w->rec.hook_ctx = w->opts->row_ctx ? w->opts->row_ctx[w->idx] : NULL;
    }
    char e[INPROC_ERRLEN / 2];
    w->x = inproc_hub_exchange(w->hub, w->idx, w->err, sizeof w->err, &w->st);
    w->rc = code_of(fmufed_model_open(ff, w->idx, w->err, sizeof w->err, &w->model));
    if (!w->rc && w->alg->create(ff, w->idx, &w->settings, w->err, sizeof w->err) != FEDFILE_OK)
        w->rc = FMUFED_EUSAGE;
    if (!w->rc) {
        size_t n_rec;
        const char *const *names = fmufed_model_rec_names(w->model, &n_rec);
        const char *dir = w->opts && w->opts->output ? w->opts->output : ff->output;
        if (w->opts && w->opts->no_csv) dir = NULL;
        if (fmufed_rec_open(&w->rec, dir, fd->name, n_rec, names, e, sizeof e) != PORT_OK) {
            snprintf(w->err, sizeof w->err, "federate %s: %s", fd->name, e);
            w->rc = FMUFED_EIO;
        }
    }
}

/* Close what worker_open opened (after the thread, if any, has returned). */
static void worker_close(worker *w)
{
    char e[INPROC_ERRLEN / 2];
    if (fmufed_rec_close(&w->rec, e, sizeof e) != PORT_OK && !w->rc) {
        snprintf(w->err, sizeof w->err, "federate %s: %s", w->ff->feds[w->idx].name, e);
        w->rc = FMUFED_EIO;
    }
    if (w->settings) w->alg->destroy(w->settings);
    fmufed_model_close(w->model);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    w->rc = run_worker(w, w->model, w->settings, &w->rec);
    if (w->rc) inproc_hub_fail(w->hub, w->idx);
    return NULL;
}

int inproc_run(const fedfile *ff, const inproc_opts *opts, inproc_stats *stats, char *err,
               size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    if (!ff) {
        if (err && errlen) snprintf(err, errlen, "inproc_run: NULL file");
        return FMUFED_EUSAGE;
    }
    const fedfile_algo_def *alg = ff->algo.def;
    if (!alg->run_peer) {
        if (err && errlen)
            snprintf(err, errlen, "%s: algorithm %s does not run on the peer side", ff->path,
                     alg->name);
        return FMUFED_EUSAGE;
    }
    for (size_t i = 0; i < ff->n_feds; i++)
        if (ff->feds[i].program) {
            if (err && errlen)
                snprintf(err, errlen,
                         "%s: federate %s is a program (%s): run the file with tempo-run", ff->path,
                         ff->feds[i].name, ff->feds[i].program);
            return FMUFED_EUSAGE;
        }
    int64_t lookahead = ff->algo.t_lookahead;
    inproc_hub *hub = NULL;
    worker *w = calloc(ff->n_feds + 1, sizeof *w);
    int rc = w ? inproc_hub_new(ff, lookahead, &hub, err, errlen) : FMUFED_ENOMEM;
    for (size_t i = 0; rc == FMUFED_OK && i < ff->n_feds; i++) {
        w[i] = (worker){.ff = ff, .idx = i, .alg = alg, .hub = hub, .opts = opts};
        worker_open(&w[i]);
    }
    /* Threads only once every federate is ready: a federate that cannot start fails the run
     * before anyone advances (tempo-fmu federates never pass the start sync point then). */
    int ready = rc == FMUFED_OK;
    for (size_t i = 0; ready && i < ff->n_feds; i++)
        ready = !w[i].rc;
    for (size_t i = 0; ready && i < ff->n_feds; i++) {
        if (pthread_create(&w[i].th, NULL, worker_main, &w[i]) != 0) {
            snprintf(w[i].err, sizeof w[i].err, "federate %s: cannot start a thread",
                     ff->feds[i].name);
            w[i].rc = FMUFED_ENOMEM;
            inproc_hub_fail(hub, i);
            break;
        }
        w[i].started = 1;
    }
    for (size_t i = 0; w && i < ff->n_feds; i++)
        if (w[i].started) pthread_join(w[i].th, NULL);
    for (size_t i = 0; w && hub && i < ff->n_feds; i++)
        if (w[i].ff) worker_close(&w[i]);
    /* The first failure is the cause; the others' "left the federation" follow from it. */
    for (size_t pass = 0; rc == FMUFED_OK && w && pass < 2; pass++)
        for (size_t i = 0; i < ff->n_feds && rc == FMUFED_OK; i++)
            if (w[i].rc &&
                (pass == 1 || w[i].rc != FMUFED_ERTI || !strstr(w[i].err, "left the federation"))) {
                rc = w[i].rc;
                if (err && errlen) snprintf(err, errlen, "%s", w[i].err);
            }
    if (rc == FMUFED_ENOMEM && err && errlen && !err[0]) snprintf(err, errlen, "out of memory");
    for (size_t i = 0; stats && w && i < ff->n_feds; i++)
        stats[i] = w[i].st;
    inproc_hub_free(hub);
    free(w);
    return rc;
}
