/* Command line of the FMU federate: tempo-fmu --federation FILE --name X [--rti ADDR]
 * [--output DIR] [--timeout MS] [--quiet]. Serves doc/guide.md (item 3: the same file runs
 * locally or distributed). Parses arguments, loads the file and calls fmufed_run
 * (federate/fmufed/fmufed.c); federate/fmufed/tempo_fmu_main.c hands
 * every command line holding --federation here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/fmu/fmu_guard.h"
#include "federate/fmufed/fmufed.h"
#include "federate/run/run_secret.h"

/* --profile: one line per federate for tempo-run ("profile NAME steps=N model=W/C ...",
 * fmufed_prof_line), whatever --quiet says: it was asked for. */
static void print_profile(const char *name, const fmufed_stats *st)
{
    char line[512];
    if (!st->prof.on) return;
    fmufed_prof_line(line, sizeof line, name, st->steps, &st->prof);
    printf("%s\n", line);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: tempo-fmu --federation FILE.json --name FEDERATE [options]\n"
               "       tempo-fmu --federation FILE.json --all [--tasks|--threads] [--log-dir DIR]\n"
               "                [--http HOST:PORT]\n"
               "                 [--spin-us US] [options]\n"
               "  --rti HOST:PORT|unix:PATH  RTI address (default: the file's \"rti\")\n"
               "  --output DIR               results folder (default: the file's \"output\")\n"
               "  --secret-file PATH         the RTI's shared secret (default: TEMPO_SECRET,\n"
               "                             TEMPO_SECRET_FILE, the file's \"secret_file\")\n"
               "  --timeout MS               longest wait for a join, sync or grant, -1: none\n"
               "                             (default: 60000 at the start, none during the run)\n"
               "  --quiet                    no progress lines (\"progress T END\") nor summary\n"
               "  --profile                  a line per federate at the end: wall/CPU seconds in\n"
               "                             the model, waiting for grants, messaging, recording\n"
               "                             (peer methods; doc/run.md \"Where the time goes\")\n"
               "  --all                      every federate of the file in this process, on an\n"
               "                             RTI embedded in it (doc/inproc.md); progress lines\n"
               "                             then end with the federate's name\n"
               "  --tasks                    with --all: the federates are tasks taking turns on\n"
               "                             one thread (the default)\n"
               "  --threads                  with --all: each federate a thread\n"
               "  --log-dir DIR              with --all: the federation log folder (tempo-log)\n"
               "  --http HOST:PORT           with --all: the embedded RTI serves the live view\n"
               "                             there (loopback; port 0: a free one, printed)\n"
               "  --spin-us US               with --all --threads: us a waiting federate polls\n"
               "                             before it blocks (default 50; -1: never)\n"
               "  --checkpoint-every S       checkpoints every S seconds of simulated time\n"
               "  --checkpoint-at S          a checkpoint at S seconds (repeatable); the file's\n"
               "                             first federate asks the RTI for each save\n"
               "                             (doc/checkpoint.md)\n"
               "  --checkpoint-dir DIR       with --all: where the embedded RTI writes them\n"
               "  --restore                  join the federation an RTI restored from a\n"
               "                             checkpoint and go on from this federate's part\n"
               "  --resume CKPT              with --all: restore the federation from CKPT and\n"
               "                             go on from there\n"
               "  --set FED.VAR=VALUE        after the restore, set VAR of federate FED\n"
               "                             (repeatable): a branch of the saved run\n"
               "  --help                     print this text and exit\n"
               "  --version                  print the version and exit\n"
               "Joins the federation as FEDERATE, runs the file's algorithm to its end time and\n"
               "writes DIR/FEDERATE.csv. Exit status: 0 done, 1 the run failed, 2 usage.\n");
}

/* One line per report, flushed at once: tempo-run reads it through a pipe. */
static void print_progress(void *ctx, double t)
{
    const double *end = ctx;
    printf("progress %.17g %.17g\n", t, *end);
    fflush(stdout);
}

static double g_end; /* --all: the end time every progress line names */

/* The outcome of a save this federate asked for, one line for tempo-run (doc/run.md):
 * "checkpoint LABEL T saved|failed SECONDS DETAIL". */
static void print_ckpt(void *ctx, const char *label, double t, int status, const char *detail,
                       double seconds)
{
    printf("checkpoint %s %.17g %s %.6f %s\n", label, t, status == TP_OK ? "saved" : "failed",
           seconds, detail);
    fflush(stdout);
}

/* The checkpoint options, given in seconds, in ticks of the loaded file (whole ticks only). */
typedef struct ckpt_args {
    double every;
    double at[64];
    size_t n_at;
    int64_t t_at[64];
} ckpt_args;

static int ckpt_ticks(const fedfile *ff, ckpt_args *ca, fmufed_opts *o)
{
    double res = ff->resolution;
    if (ca->every == 0 && ca->n_at == 0) { /* the file's "checkpoint" key, unless options */
        ca->every = ff->ckpt_every;
        for (size_t k = 0; k < ff->n_ckpt_at && k < sizeof ca->at / sizeof ca->at[0]; k++)
            ca->at[ca->n_at++] = ff->ckpt_at[k];
    }
    for (size_t k = 0; k <= ca->n_at; k++) {
        double sec = k < ca->n_at ? ca->at[k] : ca->every;
        if (k == ca->n_at && sec == 0) break;
        /* the federation file's rule (fedfile.c): within 1e-6 ticks, or 1e-12 relative */
        double x = sec / res, r = nearbyint(x);
        if (!(x > 0) || x > 4e18 || fabs(x - r) > fmax(1e-6, fabs(x) * 1e-12)) {
            fprintf(stderr, "tempo-fmu: %s %g s: not a positive whole number of ticks of %g s\n",
                    k < ca->n_at ? "--checkpoint-at" : "--checkpoint-every", sec, res);
            return -1;
        }
        if (k < ca->n_at)
            ca->t_at[k] = (int64_t)r;
        else
            o->ckpt_every = (int64_t)r;
    }
    o->ckpt_at = ca->t_at;
    o->n_ckpt_at = ca->n_at;
    return 0;
}

/* --all: one line per report, naming the federate (ctx). */
static void print_progress_named(void *ctx, double t)
{
    printf("progress %.17g %.17g %s\n", t, g_end, (const char *)ctx);
    fflush(stdout);
}

static const char *g_http; /* --http HOST:PORT with --all: the embedded RTI's live view */

/* The live view serves (doc/live.md, "The in-process runner"): say where, as tempo-rti does. */
static void print_view(const char *address)
{
    printf("tempo-fmu: live view on http://%s/\n", address);
    fflush(stdout);
}

/* tempo-fmu --federation FILE --all: every federate in this process. */
static int main_all(const char *file, fmufed_opts *o, ckpt_args *ca, const char *ckpt_dir,
                    const char *resume, const char *log_dir, int spin_us, int tasks)
{
    fedfile *ff = NULL;
    char err[FMUFED_ERRLEN];
    if (fedfile_load(file, &ff, err, sizeof err) != FEDFILE_OK) {
        fprintf(stderr, "tempo-fmu: %s\n", err);
        return 1;
    }
    if (ckpt_ticks(ff, ca, o) != 0) {
        fedfile_free(ff);
        return 2;
    }
    g_end = ff->algo.end;
    char why[FMUFED_ERRLEN];
    if (!tasks && fmufed_all_shared_fmu(ff, why, sizeof why)) {
        /* one library, several threads: not safe for every FMU (doc/inproc.md) */
        fprintf(stderr, "tempo-fmu: %s: %s: they run as tasks on one thread, not as threads\n",
                ff->federation, why);
        tasks = 1, spin_us = 0;
    }
    fmufed_stats *st = calloc(ff->n_feds, sizeof *st);
    fmufed_all_opts ao = {.opts = o,
                          .ckpt_dir = ckpt_dir,
                          .resume = resume,
                          .log_dir = log_dir,
                          .spin_us = spin_us,
                          .tasks = tasks,
                          .progress = o->quiet ? NULL : print_progress_named,
                          .http = g_http,
                          .on_view = print_view};
    /* exit() or a crash inside an FMU: a failed run naming the federate (fmu_guard.h) */
    fmu_guard_run(1, ff->federation);
    int rc = st ? fmufed_run_all(ff, &ao, st, err, sizeof err) : FMUFED_ENOMEM;
    fmu_guard_run(0, NULL);
    if (rc != FMUFED_OK) {
        fprintf(stderr, "tempo-fmu: %s\n", st ? err : "out of memory");
    } else if (!o->quiet) {
        for (size_t i = 0; i < ff->n_feds; i++)
            printf(
                "tempo-fmu: %s: done at t = %.15g s: %ld instants, %ld updates, %ld reflections, "
                "%ld time requests; results %s\n",
                ff->feds[i].name, st[i].t_final, st[i].steps, st[i].updates, st[i].reflections,
                st[i].requests, st[i].csv[0] ? st[i].csv : "(none)");
    }
    for (size_t i = 0; rc == FMUFED_OK && i < ff->n_feds; i++)
        print_profile(ff->feds[i].name, &st[i]);
    free(st);
    fedfile_free(ff);
    return rc == FMUFED_OK ? 0 : rc == FMUFED_EUSAGE ? 2 : 1;
}

int fmufed_main(int argc, char **argv)
{
    const char *file = NULL, *name = NULL, *secret_file = NULL, *log_dir = NULL;
    const char *ckpt_dir = NULL, *resume = NULL;
    int all = 0, spin_us = 0, tasks = -1; /* tasks: -1 default, 0 --threads, 1 --tasks */
    fmufed_opts o = {.ckpt_done = print_ckpt};
    ckpt_args ca = {0};
    const char *sets[64];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            printf("tempo-fmu %s\n", TEMPO_VERSION);
            return 0;
        } else if (!strcmp(a, "--quiet")) {
            o.quiet = 1;
            continue;
        } else if (!strcmp(a, "--profile")) {
            o.profile = 1;
            continue;
        } else if (!strcmp(a, "--all")) {
            all = 1;
            continue;
        } else if (!strcmp(a, "--restore")) {
            o.restore = 1;
            continue;
        } else if (!strcmp(a, "--tasks") || !strcmp(a, "--threads")) {
            int t = !strcmp(a, "--tasks");
            if (tasks >= 0 && tasks != t) {
                fprintf(stderr, "tempo-fmu: --tasks and --threads exclude each other\n");
                return 2;
            }
            tasks = t;
            continue;
        }
        if (strcmp(a, "--federation") && strcmp(a, "--name") && strcmp(a, "--rti") &&
            strcmp(a, "--output") && strcmp(a, "--timeout") && strcmp(a, "--secret-file") &&
            strcmp(a, "--log-dir") && strcmp(a, "--spin-us") && strcmp(a, "--checkpoint-every") &&
            strcmp(a, "--checkpoint-at") && strcmp(a, "--checkpoint-dir") &&
            strcmp(a, "--resume") && strcmp(a, "--set") && strcmp(a, "--http")) {
            fprintf(stderr, "tempo-fmu: unknown option %s (see tempo-fmu --federation F --help)\n",
                    a);
            return 2;
        }
        if (!v) {
            fprintf(stderr, "tempo-fmu: %s needs a value\n", a);
            usage(stderr);
            return 2;
        }
        if (!strcmp(a, "--federation"))
            file = v;
        else if (!strcmp(a, "--name"))
            name = v;
        else if (!strcmp(a, "--rti"))
            o.rti = v;
        else if (!strcmp(a, "--output"))
            o.output = v;
        else if (!strcmp(a, "--secret-file"))
            secret_file = v;
        else if (!strcmp(a, "--log-dir"))
            log_dir = v;
        else if (!strcmp(a, "--http"))
            g_http = v;
        else if (!strcmp(a, "--checkpoint-dir"))
            ckpt_dir = v;
        else if (!strcmp(a, "--resume"))
            resume = v;
        else if (!strcmp(a, "--set")) {
            const char *dot = strchr(v, '.'), *eq = strchr(v, '=');
            if (!dot || !eq || dot > eq || dot == v || eq == dot + 1) {
                fprintf(stderr, "tempo-fmu: --set %s: expected FEDERATE.VARIABLE=VALUE\n", v);
                return 2;
            }
            if (o.n_set == sizeof sets / sizeof sets[0]) {
                fprintf(stderr, "tempo-fmu: more than %zu --set\n", sizeof sets / sizeof sets[0]);
                return 2;
            }
            sets[o.n_set++] = v;
            o.set = sets;
        } else if (!strcmp(a, "--checkpoint-every") || !strcmp(a, "--checkpoint-at")) {
            char *end;
            double sec = strtod(v, &end);
            if (*end || end == v || !(sec > 0) || !isfinite(sec)) {
                fprintf(stderr, "tempo-fmu: %s %s: expected seconds > 0\n", a, v);
                return 2;
            }
            if (a[13] == 'e') {
                ca.every = sec;
            } else if (ca.n_at == sizeof ca.at / sizeof ca.at[0]) {
                fprintf(stderr, "tempo-fmu: more than %zu --checkpoint-at\n",
                        sizeof ca.at / sizeof ca.at[0]);
                return 2;
            } else {
                ca.at[ca.n_at++] = sec;
            }
        } else if (!strcmp(a, "--spin-us")) {
            char *end;
            long us = strtol(v, &end, 10);
            if (*end || end == v || us < -1 || us > 1000000) {
                fprintf(stderr, "tempo-fmu: --spin-us %s: expected microseconds 0..1000000 or -1\n",
                        v);
                return 2;
            }
            spin_us = us == 0 ? -1 : (int)us; /* 0 means "no spin" on the command line */
        } else if (!strcmp(a, "--timeout")) {
            char *end;
            long ms = strtol(v, &end, 10);
            if (*end || ms == 0 || ms < -1 || ms > 86400000) {
                fprintf(stderr, "tempo-fmu: --timeout %s: expected milliseconds > 0 or -1\n", v);
                return 2;
            }
            o.timeout_ms = (int)ms;
        }
        i++;
    }
    if (file && all && !name) {
        if (o.rti && strncmp(o.rti, "inproc:", 7)) {
            fprintf(stderr,
                    "tempo-fmu: --all runs its own in-process RTI: --rti %s does not "
                    "apply\n",
                    o.rti);
            return 2;
        }
        if (tasks == 1 && spin_us) {
            fprintf(stderr, "tempo-fmu: --spin-us goes with --threads (a task never spins)\n");
            return 2;
        }
        if (o.restore) {
            fprintf(stderr, "tempo-fmu: with --all, --resume CKPT restores the federation\n");
            return 2;
        }
        if (tasks < 0) tasks = spin_us ? 0 : FMUFED_ALL_TASKS_DEFAULT;
        return main_all(file, &o, &ca, ckpt_dir, resume, log_dir, spin_us, tasks);
    }
    if (all || log_dir || spin_us || tasks >= 0 || ckpt_dir || resume || g_http) {
        fprintf(stderr, "tempo-fmu: %s\n",
                all ? "--all and --name exclude each other"
                    : "--log-dir, --spin-us, --tasks, --threads, --checkpoint-dir, --resume and "
                      "--http go with --all");
        return 2;
    }
    if (o.n_set && !o.restore) {
        fprintf(stderr, "tempo-fmu: --set branches a restored run: it goes with --restore\n");
        return 2;
    }
    if (!file || !name) {
        fprintf(stderr, "tempo-fmu: --federation and --name (or --all) are required\n");
        usage(stderr);
        return 2;
    }
    fedfile *ff = NULL;
    char err[FMUFED_ERRLEN];
    if (fedfile_load(file, &ff, err, sizeof err) != FEDFILE_OK) {
        fprintf(stderr, "tempo-fmu: %s: %s\n", name, err);
        return 1;
    }
    if (run_secret_apply(secret_file, ff->secret_file, 0, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "tempo-fmu: %s: %s\n", name, err);
        fedfile_free(ff);
        return 2;
    }
    if (ckpt_ticks(ff, &ca, &o) != 0) {
        fedfile_free(ff);
        return 2;
    }
    fmufed_stats st;
    double end = ff->algo.end;
    if (!o.quiet) {
        o.progress = print_progress;
        o.progress_ctx = &end;
    }
    /* An FMU (or a library it uses) that calls exit() ends the process in the middle of the
     * run: the guard says so and makes the status 1 (fmu_guard.h, doc/run.md). */
    fmu_guard_install("tempo-fmu");
    fmu_guard_run(1, name);
    int rc = fmufed_run(ff, name, &o, &st, err, sizeof err);
    fmu_guard_run(0, NULL);
    fedfile_free(ff);
    if (rc != FMUFED_OK) {
        /* fmufed_run's messages already name the federate (or the file when it is unknown). */
        fprintf(stderr, "tempo-fmu: %s\n", err);
        return rc == FMUFED_EUSAGE ? 2 : 1;
    }
    if (!o.quiet)
        printf("tempo-fmu: %s: done at t = %.15g s: %ld instants, %ld updates, %ld reflections, "
               "%ld time requests; results %s\n",
               name, st.t_final, st.steps, st.updates, st.reflections, st.requests,
               st.csv[0] ? st.csv : "(none)");
    print_profile(name, &st);
    return 0;
}
