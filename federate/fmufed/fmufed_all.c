/* Every federate of a federation file in one process: an RTI embedded in the process
 * (tp_inproc_start, doc/inproc.md) and each federate a thread running fmufed_run over
 * "inproc:NAME", the same code as the distributed run with another connection string.
 * tempo-fmu --federation FILE --all calls it; tempo-run starts that for "placement":
 * "in-process" or --in-process. Serves doc/inproc.md and doc/run.md. Read
 * federate/fmufed/fmufed.c (one federate) next. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "federate/config/fedfile_master.h"
#include "federate/fmu/fmu_load.h"
#include "federate/fmufed/fmufed.h"
#include "federate/libtempo/tempo.h"
#include "federate/run/results.h"

/* --resume with tasks: the federation is restored by a task of the RTI (a task's call), which
 * runs before the workers join it. state: 0 not yet, 1 restored, -1 failed (err). */
typedef struct restore_gate {
    const char *addr, *ckpt, *federation;
    int state;
    int code;
    char err[FMUFED_ERRLEN];
} restore_gate;

typedef struct all_worker {
    restore_gate *gate; /* NULL: no restore to wait for */
    const fedfile *ff;
    size_t idx;
    fmufed_opts o;   /* the caller's, with rti set to the embedded RTI */
    fmufed_stats st; /* its figures */
    int rc;          /* fmufed_run's status */
    char err[FMUFED_ERRLEN];
    pthread_t th;
    int started;
} all_worker;

/* ---- a failure ends the others' start-up waits (fmufed_abandoned) ----------------------- */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_abandoned;   /* a federate of this process failed; under g_lock */
static char g_who[128];   /* which one */
#define SYNC_SLICE_MS 200 /* a start-up wait looks at g_abandoned this often */

int fmufed_abandoned(char *who, size_t len)
{
    pthread_mutex_lock(&g_lock);
    int a = g_abandoned;
    if (who && len) snprintf(who, len, "%s", a ? g_who : "");
    pthread_mutex_unlock(&g_lock);
    return a;
}

void fmufed_abandon(const char *who)
{
    pthread_mutex_lock(&g_lock);
    if (!g_abandoned) snprintf(g_who, sizeof g_who, "%s", who ? who : "");
    g_abandoned = 1;
    pthread_mutex_unlock(&g_lock);
}

static void abandon_reset(void)
{
    pthread_mutex_lock(&g_lock);
    g_abandoned = 0;
    g_who[0] = '\0';
    pthread_mutex_unlock(&g_lock);
}

static long ms_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long)(now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
}

/* One of tp_sync's two waits, in slices. */
static int sync_wait(tp_federate *tp, const char *label, int timeout_ms, int announced,
                     int *abandoned)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int rc = announced ? tp_wait_announced(tp, label, SYNC_SLICE_MS)
                           : tp_wait_sync(tp, label, SYNC_SLICE_MS);
        if (rc != TP_TIMEOUT) return rc;
        if (fmufed_abandoned(NULL, 0)) {
            *abandoned = 1;
            return TP_TIMEOUT;
        }
        if (timeout_ms >= 0 && ms_since(&t0) >= timeout_ms) return TP_TIMEOUT;
    }
}

int fmufed_sync(tp_federate *tp, const char *label, int timeout_ms, int *abandoned)
{
    *abandoned = 0;
    int rc = sync_wait(tp, label, timeout_ms, 1, abandoned);
    if (rc == TP_OK) rc = tp_achieve_sync(tp, label);
    if (rc == TP_OK) rc = sync_wait(tp, label, timeout_ms, 0, abandoned);
    return rc;
}

int fmufed_all_shared_fmu(const fedfile *ff, char *why, size_t len)
{
    for (size_t i = 0; i < ff->n_feds; i++) {
        char a[PATH_MAX], b[PATH_MAX];
        if (!ff->feds[i].fmu || !realpath(ff->feds[i].fmu, a)) continue;
        for (size_t j = i + 1; j < ff->n_feds; j++) {
            if (!ff->feds[j].fmu || !realpath(ff->feds[j].fmu, b) || strcmp(a, b)) continue;
            if (why && len)
                snprintf(why, len, "federates %s and %s both load %s", ff->feds[i].name,
                         ff->feds[j].name, ff->feds[i].fmu);
            return 1;
        }
    }
    return 0;
}

/* ---- the workers ------------------------------------------------------------------------- */

static void *all_main(void *arg)
{
    all_worker *w = arg;
    w->rc = fmufed_run(w->ff, w->ff->feds[w->idx].name, &w->o, &w->st, w->err, sizeof w->err);
    /* its peers' start-up waits end now; a failure that only followed another's changes
     * nothing (the first call wins) */
    if (w->rc) fmufed_abandon(w->ff->feds[w->idx].name);
    return NULL;
}

static void restore_task(void *arg)
{
    restore_gate *g = arg;
    tp_join_options jo = {.rti = g->addr, .federation = g->federation};
    char why[FMUFED_ERRLEN / 2];
    g->code = tp_restore_federation(&jo, g->ckpt, why, sizeof why);
    if (g->code != TP_OK)
        snprintf(g->err, sizeof g->err, "restoring %s: %s: %s", g->ckpt, tp_strerror(g->code), why);
    g->state = g->code == TP_OK ? 1 : -1;
}

static void all_task(void *arg)
{
    all_worker *w = arg;
    while (w->gate && w->gate->state == 0 && tp_inproc_yield()) {
    }
    if (w->gate && w->gate->state < 0) {
        w->rc = w->gate->code == TP_ECKPT ? FMUFED_EUSAGE : FMUFED_ERTI;
        snprintf(w->err, sizeof w->err, "%s", w->gate->err);
        return;
    }
    all_main(arg);
}

/* The master of a master method as one more task (ao->tasks). */
typedef struct main_task {
    const fmufed_all_opts *ao;
    const char *addr;
    restore_gate *gate; /* --resume: the master rejoins once the federation is restored */
    int rc;
    char err[FMUFED_ERRLEN];
} main_task;

static void main_task_fn(void *arg)
{
    main_task *m = arg;
    while (m->gate && m->gate->state == 0 && tp_inproc_yield()) {
    }
    if (m->gate && m->gate->state < 0) {
        m->rc = FMUFED_ERTI;
        snprintf(m->err, sizeof m->err, "%s", m->gate->err);
        return;
    }
    m->rc = m->ao->main_fn(m->ao->main_ctx, m->addr, m->err, sizeof m->err);
    if (m->rc) fmufed_abandon("master");
}

/* FMUs that must not share a process with another instance of themselves are refused: this
 * host cannot give them one, and two federates of one file may name the same FMU. */
static int check_once_per_process(const fedfile *ff, char *err, size_t errlen)
{
    for (size_t i = 0; i < ff->n_feds; i++) {
        if (!ff->feds[i].fmu) continue; /* a model in Python: no FMU of its own */
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

/* ---- the watchdog's question (doc/inproc.md "When a run hangs") ------------------------------
 * SIGUSR1 asks this process who waits for whom, as it asks tempo-rti. The handler only writes
 * a byte to a pipe; a thread of its own reads it and prints the embedded RTI's status
 * (tp_inproc_status) on stderr as "in-process RTI: [tm] LINE", so that it answers while every
 * federate is stuck (in an FMU call, or waiting for a grant). */
static int g_status_fd[2] = {-1, -1};
static char g_status_rti[96];

static void on_usr1(int sig)
{
    (void)sig;
    int saved = errno;
    if (g_status_fd[1] >= 0 && write(g_status_fd[1], "s", 1) < 0) { /* a full pipe: asked already */
    }
    errno = saved;
}

static void status_line(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "in-process RTI: [tm] %s\n", line);
}

static void *status_main(void *arg)
{
    (void)arg;
    char c;
    while (read(g_status_fd[0], &c, 1) == 1 && c == 's') {
        char why[300];
        if (tp_inproc_status(g_status_rti, status_line, NULL, why, sizeof why) != TP_OK)
            fprintf(stderr, "in-process RTI: [tm] (no status: %s)\n", why);
        fflush(stderr);
    }
    return NULL;
}

/* Start answering SIGUSR1 for the RTI called name; 1 when the thread runs (status_stop). */
static int status_start(const char *name, pthread_t *th)
{
    snprintf(g_status_rti, sizeof g_status_rti, "%s", name);
    if (pipe(g_status_fd) != 0) return 0;
    if (pthread_create(th, NULL, status_main, NULL) != 0) {
        close(g_status_fd[0]), close(g_status_fd[1]);
        g_status_fd[0] = g_status_fd[1] = -1;
        return 0;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &sa, NULL);
    return 1;
}

static void status_stop(pthread_t th)
{
    signal(SIGUSR1, SIG_IGN);                /* a late question must not end the process */
    if (write(g_status_fd[1], "q", 1) < 0) { /* the thread ends on any byte but 's' */
    }
    pthread_join(th, NULL);
    close(g_status_fd[0]), close(g_status_fd[1]);
    g_status_fd[0] = g_status_fd[1] = -1;
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
                 ff->path, fedfile_method_name(ff));
        return FMUFED_EUSAGE;
    }
    /* a "python" model runs here through its tempo-slave --pipe child (doc/python.md) */
    for (size_t i = 0; i < ff->n_feds; i++)
        if (ff->feds[i].program && !ff->feds[i].python) {
            snprintf(err, errlen,
                     "federate %s is a program (%s): it cannot run as a thread; run the file "
                     "distributed",
                     ff->feds[i].name, ff->feds[i].program);
            return FMUFED_EUSAGE;
        }
    int rc = check_once_per_process(ff, err, errlen);
    if (rc) return rc;
    abandon_reset();
    /* One embedded RTI per run, named after the federation and this process. */
    char name[96], addr[128], why[512];
    snprintf(name, sizeof name, "%.60s-%ld", ff->federation, (long)getpid());
    snprintf(addr, sizeof addr, "inproc:%s", name);
    if (ao->log_dir && res_make_dirs(ao->log_dir, err, errlen) != RES_OK) /* private */
        return FMUFED_EIO;
    tp_inproc_options io = {.log_dir = ao->log_dir,
                            .spin_us = ao->spin_us,
                            .tasks = ao->tasks,
                            .checkpoint_dir = ao->ckpt_dir,
                            .http = ao->http};
    if (tp_inproc_start(name, &io, why, sizeof why) != TP_OK) {
        snprintf(err, errlen, "%s: in-process RTI: %s", ff->path, why);
        return FMUFED_ERTI;
    }
    char view[128];
    if (ao->http && ao->on_view && tp_inproc_http_address(name, view, sizeof view) == TP_OK)
        ao->on_view(view);
    pthread_t status_th;
    int status_on = status_start(name, &status_th);
    /* --resume: the federation as the checkpoint holds it, which the federates rejoin; with
     * tasks a task restores it (the calls of a task RTI come from its tasks) before the
     * workers join. */
    restore_gate gate = {.addr = addr, .ckpt = ao->resume, .federation = ff->federation};
    if (ao->resume && ao->tasks &&
        tp_inproc_spawn(name, restore_task, &gate, why, sizeof why) != TP_OK) {
        if (status_on) status_stop(status_th);
        tp_inproc_stop(name, NULL, 0);
        snprintf(err, errlen, "%s: restoring %s: %s", ff->path, ao->resume, why);
        return FMUFED_ERTI;
    }
    if (ao->resume && !ao->tasks) {
        restore_task(&gate);
        if (gate.state < 0) {
            if (status_on) status_stop(status_th);
            tp_inproc_stop(name, NULL, 0);
            snprintf(err, errlen, "%s: %s", ff->path, gate.err);
            return gate.code == TP_ECKPT ? FMUFED_EUSAGE : FMUFED_ERTI;
        }
    }
    all_worker *w = calloc(ff->n_feds, sizeof *w);
    if (!w) {
        if (status_on) status_stop(status_th);
        tp_inproc_stop(name, why, sizeof why);
        snprintf(err, errlen, "out of memory");
        return FMUFED_ENOMEM;
    }
    for (size_t i = 0; i < ff->n_feds; i++) {
        w[i] = (all_worker){.ff = ff, .idx = i, .gate = ao->resume && ao->tasks ? &gate : NULL};
        if (ao->opts) w[i].o = *ao->opts;
        w[i].o.rti = addr;
        if (ao->resume) w[i].o.restore = 1;
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
        if (mt) *mt = (main_task){.ao = ao, .addr = addr, .gate = ao->resume ? &gate : NULL};
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
        if (mrc) fmufed_abandon("master");
    }
    for (size_t i = 0; i < ff->n_feds; i++)
        if (w[i].started) pthread_join(w[i].th, NULL);
    if (status_on) status_stop(status_th);
    tp_inproc_stop(name, why, sizeof why); /* completes the federation log */
    /* The first failure is the cause; "left the federation" of the others follows from it,
     * and so does a stop because another failed (FMUFED_FOLLOWED). */
    rc = FMUFED_OK;
    if (mrc && !strstr(merr, FMUFED_FOLLOWED)) { /* the master's failure causes its slaves' */
        rc = FMUFED_ERTI;
        snprintf(err, errlen, "%s", merr);
    }
    for (int pass = 0; pass < 2 && rc == FMUFED_OK; pass++)
        for (size_t i = 0; i < ff->n_feds && rc == FMUFED_OK; i++)
            if (w[i].rc && (pass || (!strstr(w[i].err, "left the federation") &&
                                     !strstr(w[i].err, FMUFED_FOLLOWED)))) {
                rc = w[i].rc;
                snprintf(err, errlen, "%s", w[i].err);
            }
    if (rc == FMUFED_OK && mrc) { /* only the master failed, after another's stop */
        rc = FMUFED_ERTI;
        snprintf(err, errlen, "%s", merr);
    }
    for (size_t i = 0; stats && i < ff->n_feds; i++)
        stats[i] = w[i].st;
    free(w);
    return rc;
}
