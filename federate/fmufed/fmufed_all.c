/* Every federate of a federation file in one process: an RTI embedded in the process
 * (tp_inproc_start, doc/inproc.md) and each federate a thread running fmufed_run over
 * "inproc:NAME", the same code as the distributed run with another connection string.
 * tempo-fmu --federation FILE --all calls it; tempo-run starts that for "placement":
 * "in-process" or --in-process. Serves doc/inproc.md and doc/run.md. Read
 * federate/fmufed/fmufed.c (one federate) next. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "federate/config/fedfile_master.h"
#include "federate/fmu/fmu_load.h"
#include "federate/fmufed/fmufed.h"
#include "federate/libtempo/tempo.h"
#include "federate/run/results.h"

typedef struct all_worker {
    const fedfile *ff;
    size_t idx;
    fmufed_opts o;   /* the caller's, with rti set to the embedded RTI */
    fmufed_stats st; /* its figures */
    int rc;          /* fmufed_run's status */
    char err[FMUFED_ERRLEN];
    pthread_t th;
    int started;
} all_worker;

static void *all_main(void *arg)
{
    all_worker *w = arg;
    w->rc = fmufed_run(w->ff, w->ff->feds[w->idx].name, &w->o, &w->st, w->err, sizeof w->err);
    return NULL;
}

static void all_task(void *arg)
{
    all_main(arg);
}

/* The master of a master method as one more task (ao->tasks). */
typedef struct main_task {
    const fmufed_all_opts *ao;
    const char *addr;
    int rc;
    char err[FMUFED_ERRLEN];
} main_task;

static void main_task_fn(void *arg)
{
    main_task *m = arg;
    m->rc = m->ao->main_fn(m->ao->main_ctx, m->addr, m->err, sizeof m->err);
}

/* FMUs that must not share a process with another instance of themselves are refused: this
 * host cannot give them one, and two federates of one file may name the same FMU. */
static int check_once_per_process(const fedfile *ff, char *err, size_t errlen)
{
    for (size_t i = 0; i < ff->n_feds; i++) {
        fmu_md *md = NULL;
        char e[FMUFED_ERRLEN / 2];
        if (fmu_load_md(ff->feds[i].fmu, NULL, &md, e, sizeof e) != 0) {
            snprintf(err, errlen, "federate %s: %s", ff->feds[i].name, e);
            return FMUFED_EFMU;
        }
        int once = md->cs.can_be_instantiated_only_once_per_process ||
                   md->me.can_be_instantiated_only_once_per_process;
        fmu_md_free(md);
        if (once) {
            snprintf(err, errlen,
                     "federate %s: its FMU %s says canBeInstantiatedOnlyOncePerProcess: it "
                     "cannot run in process with the others; run the file distributed (one "
                     "process per federate: \"placement\": \"processes\")",
                     ff->feds[i].name, ff->feds[i].fmu);
            return FMUFED_EUSAGE;
        }
    }
    return FMUFED_OK;
}

int fmufed_run_all(const fedfile *ff, const fmufed_all_opts *ao, fmufed_stats *stats, char *err,
                   size_t errlen)
{
    static const fmufed_all_opts none;
    if (!ao) ao = &none;
    err[0] = '\0';
    if (fedfile_is_master(ff) && !ao->main_fn) {
        snprintf(err, errlen,
                 "%s: method %s runs under tempo-master: run it in process with tempo-master "
                 "--in-process",
                 ff->path, fedfile_alg_name(ff->algo.kind));
        return FMUFED_EUSAGE;
    }
    for (size_t i = 0; i < ff->n_feds; i++)
        if (ff->feds[i].program) {
            snprintf(err, errlen,
                     "federate %s is a program (%s): it cannot run as a thread; run the file "
                     "distributed",
                     ff->feds[i].name, ff->feds[i].program);
            return FMUFED_EUSAGE;
        }
    int rc = check_once_per_process(ff, err, errlen);
    if (rc) return rc;
    /* One embedded RTI per run, named after the federation and this process. */
    char name[96], addr[128], why[512];
    snprintf(name, sizeof name, "%.60s-%ld", ff->federation, (long)getpid());
    snprintf(addr, sizeof addr, "inproc:%s", name);
    if (ao->log_dir && res_make_dirs(ao->log_dir, err, errlen) != RES_OK) /* private */
        return FMUFED_EIO;
    tp_inproc_options io = {.log_dir = ao->log_dir, .spin_us = ao->spin_us, .tasks = ao->tasks};
    if (tp_inproc_start(name, &io, why, sizeof why) != TP_OK) {
        snprintf(err, errlen, "%s: in-process RTI: %s", ff->path, why);
        return FMUFED_ERTI;
    }
    all_worker *w = calloc(ff->n_feds, sizeof *w);
    if (!w) {
        tp_inproc_stop(name, why, sizeof why);
        snprintf(err, errlen, "out of memory");
        return FMUFED_ENOMEM;
    }
    for (size_t i = 0; i < ff->n_feds; i++) {
        w[i] = (all_worker){.ff = ff, .idx = i};
        if (ao->opts) w[i].o = *ao->opts;
        w[i].o.rti = addr;
        if (ao->row_ctx) w[i].o.row_ctx = ao->row_ctx[i];
        if (ao->progress) {
            w[i].o.progress = ao->progress;
            w[i].o.progress_ctx = (void *)ff->feds[i].name;
        }
        if (ao->tasks) {
            if (tp_inproc_spawn(name, all_task, &w[i], why, sizeof why) != TP_OK) {
                w[i].rc = FMUFED_ENOMEM;
                snprintf(w[i].err, sizeof w[i].err, "federate %s: %s", ff->feds[i].name, why);
                break;
            }
            continue; /* not "started": there is no thread to join */
        }
        if (pthread_create(&w[i].th, NULL, all_main, &w[i]) != 0) {
            w[i].rc = FMUFED_ENOMEM;
            snprintf(w[i].err, sizeof w[i].err, "federate %s: cannot start a thread",
                     ff->feds[i].name);
            break; /* the others fail at the start sync point once their timeout passes */
        }
        w[i].started = 1;
    }
    char merr[FMUFED_ERRLEN] = "";
    int mrc = 0;
    if (ao->tasks) { /* the calling thread runs every task, the master's too, to the end */
        main_task *mt = ao->main_fn ? calloc(1, sizeof *mt) : NULL;
        if (mt) *mt = (main_task){.ao = ao, .addr = addr};
        if (ao->main_fn && (!mt || tp_inproc_spawn(name, main_task_fn, mt, why, sizeof why))) {
            mrc = FMUFED_ENOMEM;
            snprintf(merr, sizeof merr, "the master: %s", mt ? why : "out of memory");
        }
        if (tp_inproc_run(name, why, sizeof why) != TP_OK && !mrc) {
            mrc = FMUFED_ERTI;
            snprintf(merr, sizeof merr, "%s: in-process RTI: %s", ff->path, why);
        }
        if (mt && !mrc && mt->rc) {
            mrc = mt->rc;
            snprintf(merr, sizeof merr, "%s", mt->err);
        }
        free(mt);
    } else {
        mrc = ao->main_fn ? ao->main_fn(ao->main_ctx, addr, merr, sizeof merr) : 0;
    }
    for (size_t i = 0; i < ff->n_feds; i++)
        if (w[i].started) pthread_join(w[i].th, NULL);
    tp_inproc_stop(name, why, sizeof why); /* completes the federation log */
    /* The first failure is the cause; "left the federation" of the others follows from it. */
    rc = FMUFED_OK;
    if (mrc) { /* the master's failure is the cause of its slaves' */
        rc = FMUFED_ERTI;
        snprintf(err, errlen, "%s", merr);
    }
    for (int pass = 0; pass < 2 && rc == FMUFED_OK; pass++)
        for (size_t i = 0; i < ff->n_feds && rc == FMUFED_OK; i++)
            if (w[i].rc && (pass || !strstr(w[i].err, "left the federation"))) {
                rc = w[i].rc;
                snprintf(err, errlen, "%s", w[i].err);
            }
    for (size_t i = 0; stats && i < ff->n_feds; i++)
        stats[i] = w[i].st;
    free(w);
    return rc;
}
