/* tempo-master --federation FILE: the master federate of a master method (doc/master.md). It
 * has no FMU: it reads the file's algorithm section and drives the file's federates, either as
 * tempo-fmu slave processes over libtempo (ms_remote.h) or, with --local, as fmu_slaves in this
 * process (fmufed_local). The algorithm code is the same in both modes: the method's value of
 * the algorithm table runs it (federate/config/fedfile_algo.h, run_master). Read
 * federate/master/ms_remote.h next.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "algorithms/pstate.h"
#include "federate/config/fedfile.h"
#include "federate/config/fedfile_algo.h"
#include "federate/config/fedfile_master.h"
#include "federate/fmu/fmu_guard.h"
#include "federate/fmu/fmu_slave.h"
#include "federate/fmufed/fmufed.h"
#include "federate/master/ms_remote.h"
#include "federate/run/results.h"
#include "federate/run/run_secret.h"

static const char usage_text[] =
    "usage: tempo-master --federation FILE [--rti HOST:PORT|unix:PATH] [--output DIR]\n"
    "                    [--local|--in-process [--tasks|--threads] [--log-dir DIR]\n"
    "                    [--http HOST:PORT]]\n"
    "                    [--timeout MS] [--reply-timeout MS] [--secret-file PATH] [--quiet]\n"
    "  --federation FILE  a federation file whose method a master runs (listed below)\n"
    "  --rti ADDR         the RTI (default: the file's \"rti\")\n"
    "  --output DIR       results folder (default: the file's \"output\"): the slaves' CSVs\n"
    "                     with --local (distributed, each slave writes its own), and\n"
    "                     master.csv, the algorithm's notes (iterations, residuals);\n"
    "                     distributed, the notes also go to the federation log\n"
    "  --local            one process: every federate's FMU runs here, no RTI\n"
    "  --in-process       one process: the RTI embedded, every slave running the slave\n"
    "                     role of tempo-fmu beside the master; the same messages and\n"
    "                     results as distributed (doc/inproc.md)\n"
    "  --tasks            with --in-process: master and slaves are tasks taking turns on\n"
    "                     one thread (the default)\n"
    "  --threads          with --in-process: every slave a thread, the master in this one\n"
    "  --log-dir DIR      with --in-process: the federation log folder (tempo-log)\n"
    "  --http HOST:PORT   with --in-process: the embedded RTI serves the live view there\n"
    "                     (loopback; port 0: a free one, printed; doc/live.md)\n"
    "  --timeout MS       longest wait for the slaves to join and start (default 60000)\n"
    "  --reply-timeout MS a slave silent this long while it owes a reply is lost and the\n"
    "                     run stops naming it (default: the file's algorithm.reply_timeout,\n"
    "                     else 30000)\n"
    "  --secret-file PATH the RTI's shared secret (default: TEMPO_SECRET,\n"
    "                     TEMPO_SECRET_FILE, the file's \"secret_file\"); settled and\n"
    "                     checked in every mode, --local included (a bad secret file\n"
    "                     is refused with exit 2 there too)\n"
    "  --checkpoint-every S  ask for a save of the whole federation every S seconds\n"
    "                     of simulated time (default: the file's \"checkpoint\")\n"
    "  --checkpoint-at S  ask for one at S seconds (repeatable); each save is made\n"
    "                     where the macro step holding it closes (doc/checkpoint.md)\n"
    "  --restore          rejoin the federation an RTI restored from a checkpoint and\n"
    "                     go on after the instant the master's part was made at\n"
    "  --checkpoint-dir DIR  with --in-process: where the embedded RTI writes them\n"
    "  --resume CKPT      with --in-process: restore the federation from CKPT and go on\n"
    "  --set FED.VAR=VALUE  with --in-process and --resume: set VAR of slave FED first\n"
    "                     (distributed, each slave takes its own --set)\n"
    "  --quiet            no summary line\n"
    "  --list-methods     print every method of the algorithm table, one a line:\n"
    "                     its name and \"master\" or \"peer\" (tempo-fmu runs a peer\n"
    "                     method), for scripts; then exit\n"
    "  --help             print this text and exit\n"
    "  --version          print the version and exit\n"
    "Exit status: 0 done, 1 the run failed (the message names the slave), 2 usage.\n";

/* --help: the usage, then every master method of the algorithm table with its summary. */
static void print_help(void)
{
    fputs(usage_text, stdout);
    fputs("Methods (\"algorithm.method\" of the file):\n", stdout);
    size_t n = 0;
    const fedfile_algo_def *const *all = fedfile_algos(&n);
    for (size_t i = 0; i < n; i++)
        if (all[i]->side == FEDFILE_SIDE_MASTER)
            printf("  %-17s  %s\n", all[i]->name, all[i]->summary ? all[i]->summary : "");
}

/* --list-methods: "NAME SIDE" per method, in table order, so that scripts cover every method
 * without a list of their own (tests/integration/san_masters.sh, ticks_end.sh). */
static void print_methods(void)
{
    size_t n = 0;
    const fedfile_algo_def *const *all = fedfile_algos(&n);
    for (size_t i = 0; i < n; i++)
        printf("%s %s\n", all[i]->name, all[i]->side == FEDFILE_SIDE_MASTER ? "master" : "peer");
}

/* The reply timeout when neither --reply-timeout nor the file's algorithm.reply_timeout
 * gives one: long beside any step of the example FMUs (milliseconds), short enough that a
 * stopped or hung slave ends the run instead of hanging it (doc/master.md). */
#define MASTER_REPLY_TIMEOUT_MS 30000

typedef struct margs {
    const char *file, *rti, *output, *secret_file;
    const char *log_dir; /* --log-dir */
    const char *http;    /* --http: the embedded RTI's live view (doc/live.md) */
    int local, quiet, timeout_ms, reply_timeout_ms;
    int in_process; /* --in-process */
    int tasks;      /* -1 default (FMUFED_ALL_TASKS_DEFAULT), 0 --threads, 1 --tasks */
    /* Checkpoints (doc/checkpoint.md "tempo-master's part"): the instants in seconds, then in
     * ticks of the loaded file (ckpt_ticks) */
    double every;
    double at[64];
    size_t n_at;
    int64_t t_every, t_at[64];
    int restore;                   /* --restore (distributed) or --resume (in process) */
    const char *ckpt_dir, *resume; /* --checkpoint-dir, --resume: with --in-process */
    const char *set[64];           /* --set FED.VAR=VALUE */
    size_t n_set;
} margs;

static int parse(int argc, char **argv, margs *a)
{
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            print_help();
            return 1;
        } else if (!strcmp(s, "--version")) {
            printf("tempo-master %s\n", TEMPO_VERSION);
            return 1;
        } else if (!strcmp(s, "--list-methods")) {
            print_methods();
            return 1;
        } else if (!strcmp(s, "--local")) {
            a->local = 1;
        } else if (!strcmp(s, "--in-process")) {
            a->in_process = 1;
        } else if (!strcmp(s, "--tasks") || !strcmp(s, "--threads")) {
            int t = !strcmp(s, "--tasks");
            if (a->tasks >= 0 && a->tasks != t) {
                fprintf(stderr, "tempo-master: --tasks and --threads exclude each other\n");
                return -1;
            }
            a->tasks = t;
        } else if (!strcmp(s, "--quiet")) {
            a->quiet = 1;
        } else if (!strcmp(s, "--restore")) {
            a->restore = 1;
        } else if (!strcmp(s, "--checkpoint-every") || !strcmp(s, "--checkpoint-at") ||
                   !strcmp(s, "--checkpoint-dir") || !strcmp(s, "--resume") ||
                   !strcmp(s, "--set")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "tempo-master: %s needs a value\n%s", s, usage_text);
                return -1;
            }
            const char *v = argv[++i];
            if (!strcmp(s, "--checkpoint-dir")) {
                a->ckpt_dir = v;
            } else if (!strcmp(s, "--resume")) {
                a->resume = v;
            } else if (!strcmp(s, "--set")) {
                const char *dot = strchr(v, '.'), *eq = strchr(v, '=');
                if (!dot || !eq || dot > eq || dot == v || eq == dot + 1) {
                    fprintf(stderr, "tempo-master: --set %s: expected FEDERATE.VARIABLE=VALUE\n",
                            v);
                    return -1;
                }
                if (a->n_set == sizeof a->set / sizeof a->set[0]) {
                    fprintf(stderr, "tempo-master: more than %zu --set\n",
                            sizeof a->set / sizeof a->set[0]);
                    return -1;
                }
                a->set[a->n_set++] = v;
            } else {
                char *end;
                double sec = strtod(v, &end);
                if (*end || end == v || !(sec > 0) || !isfinite(sec)) {
                    fprintf(stderr, "tempo-master: %s %s: expected seconds > 0\n", s, v);
                    return -1;
                }
                if (!strcmp(s, "--checkpoint-every")) {
                    a->every = sec;
                } else if (a->n_at == sizeof a->at / sizeof a->at[0]) {
                    fprintf(stderr, "tempo-master: more than %zu --checkpoint-at\n",
                            sizeof a->at / sizeof a->at[0]);
                    return -1;
                } else {
                    a->at[a->n_at++] = sec;
                }
            }
        } else if (!strcmp(s, "--federation") || !strcmp(s, "--rti") || !strcmp(s, "--output") ||
                   !strcmp(s, "--timeout") || !strcmp(s, "--reply-timeout") ||
                   !strcmp(s, "--secret-file") || !strcmp(s, "--log-dir") || !strcmp(s, "--http")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "tempo-master: %s needs a value\n%s", s, usage_text);
                return -1;
            }
            const char *v = argv[++i];
            if (!strcmp(s, "--secret-file"))
                a->secret_file = v;
            else if (!strcmp(s, "--log-dir"))
                a->log_dir = v;
            else if (!strcmp(s, "--http"))
                a->http = v;
            else if (!strcmp(s, "--federation"))
                a->file = v;
            else if (!strcmp(s, "--rti"))
                a->rti = v;
            else if (!strcmp(s, "--output"))
                a->output = v;
            else {
                char *end;
                errno = 0;
                long ms = strtol(v, &end, 10);
                if (*end || end == v || errno || ms <= 0 || ms > 86400000) {
                    fprintf(stderr, "tempo-master: %s %s: expected milliseconds 1..86400000\n", s,
                            v);
                    return -1;
                }
                if (!strcmp(s, "--timeout"))
                    a->timeout_ms = (int)ms;
                else
                    a->reply_timeout_ms = (int)ms;
            }
        } else {
            fprintf(stderr, "tempo-master: %s \"%s\" (see --help)\n",
                    s[0] == '-' ? "unknown option" : "unexpected argument", s);
            return -1;
        }
    }
    if (!a->file) {
        fprintf(stderr, "tempo-master: no --federation FILE given\n%s", usage_text);
        return -1;
    }
    if ((a->log_dir || a->tasks >= 0 || a->http) && !a->in_process) {
        fprintf(stderr, "tempo-master: %s goes with --in-process\n",
                a->log_dir ? "--log-dir"
                : a->http  ? "--http"
                : a->tasks ? "--tasks"
                           : "--threads");
        return -1;
    }
    if (a->in_process && (a->local || a->rti)) {
        fprintf(stderr, "tempo-master: --in-process excludes %s\n", a->local ? "--local" : "--rti");
        return -1;
    }
    if ((a->ckpt_dir || a->resume) && !a->in_process) {
        fprintf(stderr,
                "tempo-master: %s goes with --in-process (distributed: the RTI's "
                "--checkpoint-dir and --restore)\n",
                a->ckpt_dir ? "--checkpoint-dir" : "--resume");
        return -1;
    }
    if (a->restore && a->in_process) {
        fprintf(stderr, "tempo-master: with --in-process, --resume CKPT restores the federation\n");
        return -1;
    }
    if (a->resume) a->restore = 1;
    if (a->local && (a->restore || a->every > 0 || a->n_at)) {
        fprintf(stderr, "tempo-master: --local has no RTI: checkpoints need one (distributed or "
                        "--in-process)\n");
        return -1;
    }
    if (a->n_set && !a->restore) {
        fprintf(stderr, "tempo-master: --set branches a restored run: it goes with --restore or "
                        "--resume\n");
        return -1;
    }
    return 0;
}

/* The checkpoint instants in ticks of the loaded file (whole ticks only, the federation
 * file's rule: within 1e-6 ticks, or 1e-12 relative); the file's "checkpoint" key unless
 * options give them, as tempo-fmu reads them. */
static int ckpt_ticks(const fedfile *ff, margs *a)
{
    if (a->every == 0 && a->n_at == 0) {
        a->every = ff->ckpt_every;
        for (size_t k = 0; k < ff->n_ckpt_at && k < sizeof a->at / sizeof a->at[0]; k++)
            a->at[a->n_at++] = ff->ckpt_at[k];
    }
    for (size_t k = 0; k <= a->n_at; k++) {
        double sec = k < a->n_at ? a->at[k] : a->every;
        if (k == a->n_at && sec == 0) break;
        double x = sec / ff->resolution, r = nearbyint(x);
        if (!(x > 0) || x > 4e18 || fabs(x - r) > fmax(1e-6, fabs(x) * 1e-12)) {
            fprintf(stderr, "tempo-master: %s %g s: not a positive whole number of ticks of %g s\n",
                    k < a->n_at ? "--checkpoint-at" : "--checkpoint-every", sec, ff->resolution);
            return -1;
        }
        if (k < a->n_at)
            a->t_at[k] = (int64_t)r;
        else
            a->t_every = (int64_t)r;
    }
    return 0;
}

/* The outcome of a save the master asked for, one line for tempo-run (doc/run.md), as
 * tempo-fmu prints it: "checkpoint LABEL T saved|failed SECONDS DETAIL". */
static void print_ckpt(void *ctx, const char *label, double t, int status, const char *detail,
                       double seconds)
{
    (void)ctx;
    printf("checkpoint %s %.17g %s %.6f %s\n", label, t, status == 0 ? "saved" : "failed", seconds,
           detail ? detail : "");
    fflush(stdout);
}

/* What the master's part carries beside the link's state: where its notes file stands. */
typedef struct master_ckpt {
    FILE *notes; /* master.csv while the algorithm runs, NULL: none */
    char path[4200];
} master_ckpt;

/* ms_ckpt_opts.save_extra: u8 has master.csv, i64 its length. */
static int save_notes(void *ctx, pstate_buf *b, char *why, size_t why_size)
{
    master_ckpt *mc = ctx;
    off_t at = 0;
    if (mc->notes && (fflush(mc->notes) != 0 || (at = ftello(mc->notes)) < 0)) {
        snprintf(why, why_size, "the master: %s: %s", mc->path, strerror(errno));
        return -1;
    }
    pstate_put_u8(b, mc->notes ? 1 : 0);
    pstate_put_i64(b, (int64_t)at);
    return 0;
}

/* master.csv of a resumed run: the saved run's file cut at the saved length (rows written
 * after the checkpoint by the run that was stopped go), then appended to. Its header must be
 * the notes' header; a link in its place is refused. */
static FILE *resume_notes(const char *outdir, const unsigned char *extra, size_t n, master_ckpt *mc,
                          char *err, size_t errlen)
{
    pstate_rd d = {.p = extra, .n = n};
    int has = pstate_get_u8(&d);
    int64_t at = pstate_get_i64(&d);
    static const char head[] = "time,what,value\n";
    if (d.bad || d.at != d.n || has > 1 || at < 0) {
        snprintf(err, errlen, "the master's part: its notes' position is damaged");
        return NULL;
    }
    if (!has) return NULL;
    snprintf(mc->path, sizeof mc->path, "%s/master.csv", outdir);
    int fd = open(mc->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    struct stat sb;
    char got[sizeof head];
    FILE *f = NULL;
    if (fd < 0)
        snprintf(err, errlen, "%s: cannot open to resume: %s", mc->path, strerror(errno));
    else if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        snprintf(err, errlen, "%s: not a regular file", mc->path);
    else if (sb.st_size < at || at < (int64_t)sizeof head - 1)
        snprintf(err, errlen, "%s: %lld bytes, cannot resume at byte %lld", mc->path,
                 (long long)sb.st_size, (long long)at);
    else if (pread(fd, got, sizeof head - 1, 0) != (ssize_t)sizeof head - 1 ||
             memcmp(got, head, sizeof head - 1) != 0)
        snprintf(err, errlen, "%s: not the notes of a master (its header differs)", mc->path);
    else if (ftruncate(fd, (off_t)at) != 0 || lseek(fd, 0, SEEK_END) < 0)
        snprintf(err, errlen, "%s: cannot cut at byte %lld: %s", mc->path, (long long)at,
                 strerror(errno));
    else if (!(f = fdopen(fd, "a")))
        snprintf(err, errlen, "%s: fdopen: %s", mc->path, strerror(errno));
    if (!f && fd >= 0) close(fd);
    return f;
}

/* The algorithm's notes (port_master_ops.note) as "<output>/master.csv" rows
 * "time,what,value", the time being the instant open or last closed; the same in both modes. */
typedef struct notes {
    const port_master_ops *inner;
    void *inner_ctx;
    FILE *f;
    double tick;
    int64_t t;      /* the last instant opened or closed, ticks */
    int64_t closed; /* the latest instant closed, ticks (INT64_MIN: none) */
} notes;

static int notes_open(void *ctx, int64_t t)
{
    notes *n = ctx;
    n->t = t;
    return n->inner->open(n->inner_ctx, t);
}
static int notes_close(void *ctx, int64_t t)
{
    notes *n = ctx;
    n->t = t;
    if (t > n->closed) n->closed = t;
    return n->inner->close(n->inner_ctx, t);
}
static void notes_note(void *ctx, const char *what, double v)
{
    notes *n = ctx;
    if (n->f) fprintf(n->f, "%.17g,%s,%.17g\n", port_seconds(n->tick, n->t), what, v);
    if (n->inner->note) n->inner->note(n->inner_ctx, what, v); /* distributed: the log */
}
static const port_master_ops notes_ops = {
    .open = notes_open, .close = notes_close, .note = notes_note};

/* The file's algorithm over the port m, its notes written to "<outdir>/master.csv". *t_done
 * (s): the end reached, what "done at" prints: the file's end, or the last instant when the
 * method steps past it (defect-control without clip_end; doc/master.md "Instants and steps"). */
static int run_algorithm(const fedfile *ff, const port_master *m0, const char *outdir, int quiet,
                         ms_link *L, master_ckpt *mc, double *t_done, char *err, size_t errlen)
{
    notes nt = {.inner = m0->ops,
                .inner_ctx = m0->ctx,
                .tick = ff->resolution,
                .t = m0->t_start,
                .closed = INT64_MIN};
    port_master m = *m0;
    m.ops = &notes_ops;
    m.ctx = &nt;
    const unsigned char *extra = NULL;
    size_t n_extra = 0;
    if (L && ms_link_restored_extra(L, &extra, &n_extra)) {
        /* resumed: master.csv goes on from the saved length (doc/checkpoint.md) */
        err[0] = '\0';
        if (outdir && !(nt.f = resume_notes(outdir, extra, n_extra, mc, err, errlen)) && err[0])
            return PORT_EUSAGE;
    } else if (outdir) {
        /* The folder private, the file never through a link (doc/run.md "Output files"). */
        if (!(nt.f = res_create(outdir, "master.csv", err, errlen))) return PORT_EUSAGE;
        fputs("time,what,value\n", nt.f);
        if (mc) snprintf(mc->path, sizeof mc->path, "%s/master.csv", outdir);
    }
    if (mc) mc->notes = nt.f;
    port_link *links = NULL;
    size_t n = 0;
    int rc = PORT_ENOMEM;
    if (fedfile_master_links(ff, &links, &n, err, errlen) != FEDFILE_OK) {
        rc = PORT_EUSAGE;
        goto out;
    }
    const fedfile_algo_def *alg = ff->algo.def;
    if (!alg->run_master) {
        snprintf(err, errlen, "method \"%s\" is not run by tempo-master", alg->name);
        rc = PORT_EUSAGE;
        goto out;
    }
    int64_t at = 0;
    if (L && ms_link_resumed_at(L, &at) && at >= ff->algo.t_end) {
        /* resumed from the close of the last instant: nothing is left to run but the end */
        rc = PORT_OK;
        goto out;
    }
    rc = alg->run_master(
        &(fedfile_master_run){.ff = ff, .m = &m, .links = links, .n_links = n, .quiet = quiet}, err,
        errlen);
out:
    free(links);
    *t_done = ff->algo.end;
    if (nt.closed != INT64_MIN && port_seconds(ff->resolution, nt.closed) > *t_done)
        *t_done = port_seconds(ff->resolution, nt.closed);
    if (mc) mc->notes = NULL;
    if (nt.f && fclose(nt.f) != 0 && rc == PORT_OK) {
        snprintf(err, errlen, "%.900s/master.csv: write failed", outdir);
        rc = PORT_EFAIL;
    }
    return rc;
}

static int run_local(const fedfile *ff, const margs *a, double *t_done, char *err, size_t errlen)
{
    size_t n = ff->n_feds;
    fmufed_local **l = calloc(n, sizeof *l);
    port_slave *ps = calloc(n, sizeof *ps);
    port_local_clock clk = {.last = INT64_MIN};
    int rc = !l || !ps ? PORT_ENOMEM : PORT_OK;
    for (size_t i = 0; !rc && i < n; i++)
        if (fmufed_local_new(ff, i, a->output, &l[i], &ps[i], err, errlen) != FMUFED_OK)
            rc = PORT_EFAIL;
    /* FEDFILE_NEEDS_BUS (hybrid): the slaves share their discrete values on a bus */
    fmu_slave_bus *bus = NULL;
    if (!rc && (ff->algo.needs & FEDFILE_NEEDS_BUS) && !(bus = fmu_slave_bus_new(n)))
        rc = PORT_ENOMEM;
    for (size_t i = 0; bus && !rc && i < n; i++)
        if (fmufed_local_join_bus(l[i], bus, ff, i, err, errlen) != FMUFED_OK) rc = PORT_EFAIL;
    if (!rc) {
        port_master m = {.ops = &port_local_master_ops,
                         .ctx = &clk,
                         .slaves = ps,
                         .n_slaves = n,
                         .tick = ff->resolution,
                         .t_start = ff->algo.t_start,
                         .t_end = ff->algo.t_end};
        rc = run_algorithm(ff, &m, a->output ? a->output : ff->output, a->quiet, NULL, NULL, t_done,
                           err, errlen);
    }
    /* The failing slaves' own messages (the FMU's or the solver's words), each slave named
     * once (port_add_cause). */
    for (size_t i = 0; rc && l && i < n; i++)
        if (l[i]) port_add_cause(err, errlen, rc, ff->feds[i].name, fmufed_local_errmsg(l[i]));
    for (size_t i = 0; l && i < n; i++) {
        char e[FMUFED_ERRLEN];
        if (fmufed_local_free(l[i], e, sizeof e) != FMUFED_OK && !rc) {
            snprintf(err, errlen, "%s", e);
            rc = PORT_EFAIL;
        }
    }
    fmu_slave_bus_free(bus);
    free(l);
    free(ps);
    return rc;
}

static int run_remote(const fedfile *ff, const margs *a, char *err, size_t errlen)
{
    ms_link *L = NULL;
    port_master m;
    int reply_ms = a->reply_timeout_ms;
    if (!reply_ms && ff->algo.reply_timeout > 0)
        reply_ms = (int)(ff->algo.reply_timeout * 1000.0 + 0.5);
    if (!reply_ms) reply_ms = MASTER_REPLY_TIMEOUT_MS; /* never wait for ever (doc/master.md) */
    master_ckpt mc = {0};
    ms_ckpt_opts ck = {.every = a->t_every,
                       .at = a->t_at,
                       .n_at = a->n_at,
                       .restore = a->restore,
                       .save_extra = save_notes,
                       .done = print_ckpt,
                       .ctx = &mc};
    int asked = a->t_every > 0 || a->n_at || a->restore;
    int rc = ms_link_new_ckpt(ff, a->rti, a->timeout_ms, reply_ms, asked ? &ck : NULL, &L, &m, err,
                              errlen);
    struct timespec t0, t1, c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    double t_done = ff->algo.end;
    if (!rc)
        rc = run_algorithm(ff, &m, a->output ? a->output : ff->output, a->quiet, L, &mc, &t_done,
                           err, errlen);
    clock_gettime(CLOCK_MONOTONIC, &t1); /* the algorithm alone: no join, start or end */
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    if (rc && L) {
        char why[MS_ERRLEN];
        ms_link_lost(L, why, sizeof why);
        port_add_cause(err, errlen, rc, NULL, why); /* "slave NAME: ..." named once */
    }
    if (!rc) rc = ms_link_finish(L, err, errlen);
    if (!rc && !a->quiet) {
        long cmds = 0, reps = 0, nts = 0, rounds = 0, m_out = 0, m_in = 0;
        ms_link_counts(L, &cmds, &reps, &nts);
        ms_link_messages(L, &rounds, &m_out, &m_in);
        /* rounds and messages: doc/master.md "Batches" */
        printf("tempo-master: %s: done at t = %.15g s: %ld commands, %ld replies, %ld notes "
               "logged; %ld rounds, %ld messages out, %ld in; the algorithm took %.6f s (CPU "
               "%.6f s)\n",
               ff->federation, t_done, cmds, reps, nts, rounds, m_out, m_in,
               (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
               (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec));
    }
    char first[200];
    long refused = L ? ms_link_refused(L, first, sizeof first) : 0;
    if (refused) /* reported whatever the outcome: someone tried to answer for a slave */
        fprintf(stderr,
                "tempo-master: %s: %ld repl%s refused in this run, not from the slave their class "
                "belongs to; the first from %s\n",
                ff->federation, refused, refused == 1 ? "y" : "ies", first);
    ms_link_free(L); /* on failure: resigns, so every slave still waiting stops */
    return rc;
}

/* --in-process: the master runs here over the embedded RTI while fmufed_run_all runs every
 * slave as a thread (doc/inproc.md). */
typedef struct inproc_master {
    const fedfile *ff;
    margs a;
} inproc_master;

static int master_main(void *ctx, const char *rti, char *err, size_t errlen)
{
    inproc_master *m = ctx;
    margs a = m->a;
    a.rti = rti;
    int rc = run_remote(m->ff, &a, err, errlen);
    if (rc != PORT_OK) {
        char why[FMUFED_ERRLEN];
        snprintf(why, sizeof why, "%s%s%s", port_strerror(rc), err[0] ? ": " : "", err);
        snprintf(err, errlen, "%s", why);
    }
    return rc;
}

static double g_end; /* --in-process: the end time every progress line names */

/* --in-process: one progress line per report, naming the slave (ctx), as tempo-fmu --all
 * prints them: tempo-run's display and watchdog read them (doc/run.md). */
static void print_progress_named(void *ctx, double t)
{
    printf("progress %.17g %.17g %s\n", t, g_end, (const char *)ctx);
    fflush(stdout);
}

/* The live view serves (doc/live.md, "The in-process runner"): say where, as tempo-rti does. */
static void print_view(const char *address)
{
    printf("tempo-master: live view on http://%s/\n", address);
    fflush(stdout);
}

static int run_in_process(const fedfile *ff, const margs *a, char *err, size_t errlen)
{
    g_end = ff->algo.end;
    inproc_master m = {ff, *a};
    fmufed_opts o = {.output = a->output,
                     .timeout_ms = a->timeout_ms,
                     .ckpt_every = a->t_every,
                     .ckpt_at = a->t_at,
                     .n_ckpt_at = a->n_at,
                     .set = a->set,
                     .n_set = a->n_set};
    int tasks = a->tasks >= 0 ? a->tasks : FMUFED_ALL_TASKS_DEFAULT;
    char why[FMUFED_ERRLEN];
    if (!tasks && fmufed_all_shared_fmu(ff, why, sizeof why)) {
        /* one library, several threads: not safe for every FMU (doc/inproc.md) */
        fprintf(stderr, "tempo-master: %s: %s: they run as tasks on one thread, not as threads\n",
                ff->federation, why);
        tasks = 1;
    }
    fmufed_all_opts ao = {.opts = &o,
                          .log_dir = a->log_dir,
                          .tasks = tasks,
                          .progress = a->quiet ? NULL : print_progress_named,
                          .main_fn = master_main,
                          .main_ctx = &m,
                          .http = a->http,
                          .on_view = print_view,
                          .ckpt_dir = a->ckpt_dir,
                          .resume = a->resume};
    fmufed_stats *st = calloc(ff->n_feds, sizeof *st);
    int rc = st ? fmufed_run_all(ff, &ao, st, err, errlen) : FMUFED_ENOMEM;
    if (!st) snprintf(err, errlen, "out of memory");
    for (size_t i = 0; rc == FMUFED_OK && !a->quiet && i < ff->n_feds; i++)
        printf("tempo-fmu: %s: done at t = %.15g s: %ld instants, %ld updates, %ld reflections, "
               "%ld time requests; results %s\n",
               ff->feds[i].name, st[i].t_final, st[i].steps, st[i].updates, st[i].reflections,
               st[i].requests, st[i].csv[0] ? st[i].csv : "(none)");
    free(st);
    return rc;
}

int main(int argc, char **argv)
{
    /* exit() or a crash inside a slave's FMU (--local, --in-process): a failed run naming
     * it (fmu_guard.h); installed before any other exit handler so that those run first. */
    fmu_guard_install("tempo-master");
    margs a = {.tasks = -1};
    int prc = parse(argc, argv, &a);
    if (prc) return prc < 0 ? 2 : 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    fedfile *ff = NULL;
    char err[FEDFILE_ERRLEN + MS_ERRLEN];
    if (fedfile_load(a.file, &ff, err, sizeof err) != FEDFILE_OK) {
        fprintf(stderr, "tempo-master: %s\n", err);
        return 2;
    }
    if (!fedfile_is_master(ff)) {
        fprintf(stderr, "tempo-master: %s: method \"%s\" is not run by a master (use tempo-run)\n",
                ff->path, fedfile_method_name(ff));
        fedfile_free(ff);
        return 2;
    }
    /* A program slave written by hand is a process of its own: it cannot be opened in this
     * one. A "python" model can: its slave drives it in a tempo-slave --pipe child
     * (fmufed_local_new, federate/msproto/msproto_child.h; doc/python.md "In one process"). */
    for (size_t i = 0; (a.local || a.in_process) && i < ff->n_feds; i++)
        if (ff->feds[i].program && !ff->feds[i].python) {
            fprintf(stderr,
                    "tempo-master: %s: federate %s is a program (%s): it runs only as its own "
                    "process; run the file distributed (without %s)\n",
                    ff->path, ff->feds[i].name, ff->feds[i].program,
                    a.local ? "--local" : "--in-process");
            fedfile_free(ff);
            return 2;
        }
    /* Every mode settles the secret as tempo-fmu and tempo-run do, so that one federation
     * file and environment are accepted or refused alike whichever way it runs (--local has
     * no RTI to hand it to, but a secret file others may read is refused all the same). */
    if (run_secret_apply(a.secret_file, ff->secret_file, 0, NULL, err, sizeof err)) {
        fprintf(stderr, "tempo-master: %s\n", err);
        fedfile_free(ff);
        return 2;
    }
    /* Checkpoints: the instants in ticks; a method whose state is not saved is refused
     * before the start, naming it (doc/checkpoint.md "Status"). */
    if (ckpt_ticks(ff, &a) != 0) {
        fedfile_free(ff);
        return 2;
    }
    if ((a.t_every > 0 || a.n_at || a.restore) && !ff->algo.def->saves) {
        fprintf(stderr,
                "tempo-master: %s: method \"%s\" cannot save its state between steps yet: no "
                "checkpoints of it (doc/checkpoint.md)\n",
                ff->path, ff->algo.def->name);
        fedfile_free(ff);
        return 2;
    }
    err[0] = '\0';
    fmu_guard_run(1, ff->federation);
    if (a.in_process) {
        int irc = run_in_process(ff, &a, err, sizeof err);
        fmu_guard_run(0, NULL);
        if (irc != FMUFED_OK) fprintf(stderr, "tempo-master: %s: %s\n", ff->federation, err);
        fedfile_free(ff);
        return irc == FMUFED_OK ? 0 : irc == FMUFED_EUSAGE ? 2 : 1;
    }
    double t_done = ff->algo.end;
    int rc =
        a.local ? run_local(ff, &a, &t_done, err, sizeof err) : run_remote(ff, &a, err, sizeof err);
    fmu_guard_run(0, NULL);
    if (rc != PORT_OK)
        fprintf(stderr, "tempo-master: %s: %s%s%s\n", ff->federation, port_strerror(rc),
                err[0] ? ": " : "", err);
    else if (a.local && !a.quiet)
        printf("tempo-master: %s: done at t = %.15g s (one process)\n", ff->federation, t_done);
    fedfile_free(ff);
    return rc == PORT_OK ? 0 : 1;
}
