/* tempo-run FILE.json: runs a whole federation file on this machine. Starts tempo-rti on a free
 * port (unless --rti names a running one), one `tempo-fmu --federation FILE --name X --rti ADDR`
 * process per federate (and `tempo-master` for a master method, doc/master.md) under
 * federate/run/supervise.h, shows progress, stops everything on a failure or Ctrl-C, then
 * checks the CSVs, plots them (plot_svg.h) and prints a summary.
 * User guide: doc/run.md. Read federate/run/supervise.h next.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "federate/config/fedfile.h"
#include "federate/config/fedfile_algo.h"
#include "federate/config/fedfile_master.h"
#include "federate/config/ssp.h"
#include "federate/fmu/fmu_load.h"
#include "federate/fmu/fmu_zip.h"
#include "federate/run/plot_svg.h"
#include "federate/run/progress.h"
#include "federate/run/results.h"
#include "federate/run/run_check.h"
#include "federate/run/run_ckpt.h"
#include "federate/run/run_prof.h"
#include "federate/run/run_secret.h"
#include "federate/run/supervise.h"
#include "rti/proto/outfile.h"

static const char usage_text[] =
    "usage: tempo-run FILE.json [--rti HOST:PORT|unix:PATH] [--output DIR] [--quiet]\n"
    "                 [--timeout MS] [--verbose] [--profile] [--reference CSV]\n"
    "                 [--secret-file PATH]\n"
    "                 [--log DIR] [--http PORT] [--watchdog S] [--reply-timeout S]\n"
    "                 [--in-process [--threads]|--distributed] [--file-mode MODE]\n"
    "                 [--checkpoint-every S] [--checkpoint-at S]... [--resume CKPT\n"
    "                 [--set FED.VAR=VALUE]...]\n"
    "       tempo-run --export-ssp FILE.json OUT.ssp\n"
    "  --rti ADDR     use this running RTI instead of starting one\n"
    "  --log DIR      record the run: the RTI writes its federation log into DIR (read it\n"
    "                 with tempo-log; doc/log.md); also the file's \"log\" key\n"
    "  --http PORT    the RTI it starts (or embeds, in process) serves the live view on\n"
    "                 127.0.0.1:PORT (0: a free port; the address is printed; doc/live.md)\n"
    "  --watchdog S   when no federate progresses for S seconds, print who waits for whom\n"
    "                 from the RTI's status (default 10; 0 = never)\n"
    "  --reply-timeout S  master methods: a slave silent S seconds while it owes the master\n"
    "                 a reply ends the run naming it (default: the file's\n"
    "                 algorithm.reply_timeout, else tempo-master's 30)\n"
    "  --output DIR   results folder (default: the file's \"output\"); made private when\n"
    "                 missing, refused when anyone may write it\n"
    "  --file-mode MODE  permission bits of every file the run writes (CSVs, plot, logs;\n"
    "                 default 600, folders 700; e.g. 644); also TEMPO_FILE_MODE\n"
    "  --quiet        no progress display; errors and the summary only\n"
    "  --timeout MS   stop everything after MS milliseconds (default: none)\n"
    "  --verbose      echo every federate's output lines, prefixed with its name\n"
    "  --profile      peer methods: at the end, per federate, wall and CPU time in the\n"
    "                 model, waiting for grants, messaging, recording (doc/run.md \"Where\n"
    "                 the time goes\"); also OUTPUT/profile.json for Perfetto\n"
    "  --reference CSV  a reference run (time, then variables by name, e.g. a monolithic\n"
    "                 tempo-fmu --simulate): drawn dashed beside each variable of the same\n"
    "                 name, with a panel of the errors against it\n"
    "  --secret-file PATH  the shared secret (mode 600); default: TEMPO_SECRET,\n"
    "                 TEMPO_SECRET_FILE, the file's \"secret_file\", else a fresh random\n"
    "                 one for the RTI it starts (none with --rti)\n"
    "  --in-process   every federate in one process (tempo-fmu --all) on an RTI embedded\n"
    "                 in it, no sockets: tasks taking turns on one thread (doc/inproc.md)\n"
    "  --threads      with an in-process placement: each federate a thread instead of a\n"
    "                 task (for FMUs that block or keep thread-local state)\n"
    "  --distributed  one process per federate and tempo-rti (the default unless the file\n"
    "                 says \"placement\": \"in-process\")\n"
    "  --checkpoint-every S  save the whole federation every S seconds of simulated time\n"
    "                 into OUTPUT/checkpoints/ckpt-<ticks> (doc/checkpoint.md)\n"
    "  --checkpoint-at S  save it at S seconds (repeatable)\n"
    "  --resume CKPT  continue the run saved in checkpoint folder CKPT, appending to the\n"
    "                 same CSV files (give the same checkpoint options as the first run)\n"
    "  --set FED.VAR=VALUE  with --resume: set variable VAR of federate FED first (a\n"
    "                 branch of the saved run; repeatable)\n"
    "  --export-ssp   write FILE.json's system as an SSP archive OUT.ssp (doc/ssp.md)\n"
    "  --help         print this text and exit\n"
    "  --version      print the version and exit\n"
    "Starts an RTI (unless --rti) and one tempo-fmu per federate of FILE.json (doc/run.md),\n"
    "or of an SSP system given as FILE.ssp or SystemStructure.ssd (doc/ssp.md),\n"
    "shows their progress, then writes the results (CSV, SVG plots) and a summary.\n"
    "Exit status: 0 done, 1 a federate or the RTI failed, 2 usage or a bad file,\n"
    "130 interrupted (SIGINT/SIGTERM).\n";

/* The RTI's child name: a space keeps it apart from every federate name (fedfile allows only
 * letters, digits, '_' and '-'), so a federate may be called "rti". */
#define RTI_CHILD "the RTI"
/* The master of a master method (doc/master.md); fedfile_master_links refuses a federate
 * of that name in such files. */
#define MASTER_CHILD "master"

/* What one federate told us on stdout ("tempo-fmu: X: done at t = ... s: N instants, ..."). */
typedef struct fed_report {
    int done;
    double t;
    long steps, updates, reflections, requests; /* steps: the instants it passed */
    double progress_t;                          /* the last "progress" time it reported (s) */
} fed_report;

/* State shared with the line callback (runs inside sup_* calls, single thread). */
typedef struct run_ctx {
    const fedfile *ff;
    prog *pg;        /* progress display, NULL with --quiet */
    fed_report *rep; /* one per federate */
    int verbose, quiet;
    char log_path[PATH_MAX]; /* the federation log the RTI announced ("logging to"), or "" */
    pid_t rti_pid;           /* the RTI tempo-run started (watchdog's SIGUSR1), 0 none */
    pid_t inproc_pid;        /* the in-process federation (its RTI answers SIGUSR1), 0 none */
    double watchdog_s;       /* no-progress time before the status is printed; 0 = never */
    double last_progress;    /* now_s() of the last progress of any federate */
    int dumping;             /* > 0: the RTI's status lines are being echoed */
    double dump_until;       /* now_s() after which they are no longer echoed */
    int inproc;              /* the federation runs in one process, its RTI inside it */
    run_ckpt *ck;            /* the checkpoints' options and outcomes */
    run_prof_fed *prof;      /* --profile: one per federate, else NULL */
    const char **names;      /* with prof: the federates' names */
} run_ctx;

/* Index of federate `name` in the file, or -1 (the RTI, or an unknown child). */
static long fed_index(const run_ctx *c, const char *name)
{
    return fedfile_find(c->ff, name);
}

/* The federate's summary line "PROGRAM: NAME: done at t = ..."; see fmufed_main in
 * federate/fmufed/fmufed_cli.c for its format, which a program federate prints too
 * (doc/federation.md, "Program federates"). */
static void parse_done(fed_report *r, const char *name, const char *line)
{
    char head[300];
    snprintf(head, sizeof head, ": %s: done at t = ", name);
    size_t n = strlen(head);
    const char *at = strstr(line, head);
    if (!at || memchr(line, ' ', (size_t)(at - line))) return; /* PROGRAM is one word */
    /* "instants"; a program federate written before they were named so may say "steps" */
    char word[16] = "";
    if (sscanf(at + n, "%lf s: %ld %15[a-z], %ld updates, %ld reflections, %ld time requests",
               &r->t, &r->steps, word, &r->updates, &r->reflections, &r->requests) == 6 &&
        (!strcmp(word, "instants") || !strcmp(word, "steps")))
        r->done = 1;
}

static double now_s(void);
/* The one child of an in-process run (tempo-fmu --all): a space keeps it apart from federate
 * names; its lines name the federate they are about. */
#define INPROC_CHILD "the federation"

static void on_line(void *ctx, const char *child, sup_stream stream, const char *line)
{
    run_ctx *c = ctx;
    long i = fed_index(c, child);
    if (stream == SUP_STDOUT && run_ckpt_line(c->ck, line)) return; /* a save's outcome */
    if (stream == SUP_STDOUT && c->prof && run_prof_line(c->prof, c->names, c->ff->n_feds, line))
        return; /* --profile */
    if (!strcmp(child, INPROC_CHILD) && stream == SUP_STDOUT) {
        char name[128];
        double t, end;
        const char *u = strstr(line, "live view on http://");
        if (u) { /* tempo-fmu --all / tempo-master --in-process --http (doc/live.md) */
            fprintf(stderr, "tempo-run: %s\n", u);
            return;
        }
        if (sscanf(line, "progress %lf %lf %127s", &t, &end, name) == 3) {
            i = fed_index(c, name);
            if (i < 0) return;
            /* the watchdog's view too: progress of one federate of the process */
            if (t > c->rep[i].progress_t) c->rep[i].progress_t = t, c->last_progress = now_s();
            prog_update(c->pg, (size_t)i, t);
            return;
        }
        if (sscanf(line, "tempo-fmu: %127[^:]:", name) == 1 && (i = fed_index(c, name)) >= 0) {
            parse_done(&c->rep[i], name, line);
            if (c->verbose) fprintf(stderr, "[%s] %s\n", child, line);
            return;
        }
    }
    if (stream == SUP_STDOUT && i >= 0) {
        double t, end;
        if (sscanf(line, "progress %lf %lf", &t, &end) == 2) {
            if (t > c->rep[i].progress_t) c->rep[i].progress_t = t, c->last_progress = now_s();
            prog_update(c->pg, (size_t)i, t);
            return;
        }
        parse_done(&c->rep[i], child, line);
    }
    if (!strcmp(child, INPROC_CHILD) && stream == SUP_STDERR && c->dumping &&
        now_s() < c->dump_until && strstr(line, "[tm] ")) {
        fprintf(stderr, "tempo-run:   %s\n", strstr(line, "[tm] ") + 5);
        return;
    }
    if (!strcmp(child, RTI_CHILD) && stream == SUP_STDERR) {
        /* the federation log the RTI writes ("federation 'X': logging to PATH") */
        const char *p = strstr(line, "logging to ");
        if (p && strstr(line, "[flog]")) snprintf(c->log_path, sizeof c->log_path, "%s", p + 11);
        /* the watchdog asked for the status (SIGUSR1): its lines are "who waits for whom" */
        if (c->dumping && now_s() < c->dump_until && strstr(line, "[tm]")) {
            const char *m = strstr(line, "[tm] ");
            fprintf(stderr, "tempo-run:   %s\n", m ? m + 5 : line);
        }
    }
    /* Federate errors are repeated in the failure report (last stderr lines); echoing them
     * as they come tells the user at once. The RTI's stdout is its banner: verbose only. */
    /* The master's errors, and its summary lines (steps, iterations, messages). */
    int master =
        fedfile_is_master(c->ff) && (!strcmp(child, MASTER_CHILD) || !strcmp(child, INPROC_CHILD));
    int all = !strcmp(child, INPROC_CHILD);
    if (c->verbose || (stream == SUP_STDERR && !c->quiet && (i >= 0 || master || all)) ||
        (master && stream == SUP_STDOUT && !c->quiet))
        fprintf(stderr, "[%s] %s\n", child, line);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sibling program of this executable (bin/tempo-run -> bin/tempo-fmu), else the bare name
 * (looked up in PATH by execvp). */
static void sibling(const char *prog_name, char *out, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            size_t dl = (size_t)(slash - self), pl = strlen(prog_name);
            if (dl + pl + 2 <= len) {
                memcpy(out, self, dl);
                out[dl] = '/';
                memcpy(out + dl + 1, prog_name, pl + 1);
                if (access(out, X_OK) == 0) return;
            }
        }
    }
    snprintf(out, len, "%s", prog_name);
}

/* Algebraic loops by the FMUs' ModelStructure (doc/algorithms/jacobi.md "Algebraic loops"):
 * refused for a method that reads outputs before it sets the inputs they feed
 * (FEDFILE_NEEDS_NO_LOOP: strong coupling) when the loop is certain (every dependency on it
 * declared); a loop that needs an undeclared dependency (a Python or program federate, an FMU
 * that declares none) is said, not refused. With --verbose, a line on what was found. */
static int check_loops(const fedfile *ff, fmu_md *const *mds, int verbose, char *err, size_t errlen)
{
    char loop[FEDFILE_ERRLEN / 2];
    int needs = (ff->algo.needs & FEDFILE_NEEDS_NO_LOOP) != 0;
    int lr = fedfile_algebraic_loop(ff, mds, needs, loop, sizeof loop);
    if (lr < 0) return snprintf(err, errlen, "%s: the algebraic-loop check failed", ff->path), lr;
    if (lr == 1 && needs) {
        snprintf(err, errlen,
                 "%s: method \"%s\" needs a wiring without algebraic loops (it reads the "
                 "outputs before it sets the inputs they feed), and the FMUs' ModelStructure "
                 "makes one: %s",
                 ff->path, fedfile_method_name(ff), loop);
        return FEDFILE_ESCHEMA;
    }
    if (needs && (lr = fedfile_algebraic_loop(ff, mds, 0, loop, sizeof loop)) == 1)
        fprintf(stderr,
                "tempo-run: %s: method \"%s\" needs a wiring without algebraic loops; one may "
                "exist where no dependencies are declared (a federate without a "
                "modelDescription, or an output without its dependencies): %s\n",
                ff->path, fedfile_method_name(ff), loop);
    else if (needs && lr < 0)
        return snprintf(err, errlen, "%s: the algebraic-loop check failed", ff->path), lr;
    if (verbose)
        fprintf(stderr,
                "tempo-run: ModelStructure: %zu of %zu federates without direct feedthrough; "
                "%s%s\n",
                fedfile_no_feedthrough(ff, mds, NULL), ff->n_feds,
                lr == 1 ? "algebraic loop: " : "no algebraic loop", lr == 1 ? loop : "");
    return FEDFILE_OK;
}

/* Every federate against its FMU before anything starts, so a bad file leaves nothing
 * running; in process (inproc), no FMU that must have a process of its own. Returns 0 or -1
 * with the reason in err. */
static int check_fmus(const fedfile *ff, int inproc, int verbose, char *err, size_t errlen)
{
    fmu_md **mds = calloc(ff->n_feds + 1, sizeof *mds);
    if (!mds) return snprintf(err, errlen, "%s: out of memory", ff->path), -1;
    int rc = FEDFILE_OK;
    for (size_t i = 0; rc == FEDFILE_OK && i < ff->n_feds; i++) {
        char e[FEDFILE_ERRLEN];
        if (!ff->feds[i].fmu) continue; /* a program federate: checked at load */
        if (fmu_load_md(ff->feds[i].fmu, NULL, &mds[i], e, sizeof e) != 0) {
            snprintf(err, errlen, "%s: federates[%zu] (\"%s\"): %s", ff->path, i, ff->feds[i].name,
                     e);
            rc = FEDFILE_EIO;
            break;
        }
        const fmu_md *md = mds[i];
        rc = fedfile_check_fmu(ff, i, md, err, errlen);
        if (rc == FEDFILE_OK && run_check_params(ff, i, md, err, errlen) != 0) rc = FEDFILE_ESCHEMA;
        int once = md->cs.can_be_instantiated_only_once_per_process ||
                   md->me.can_be_instantiated_only_once_per_process;
        if (rc == FEDFILE_OK && inproc && once) { /* doc/inproc.md: refused, not given a process */
            snprintf(err, errlen,
                     "%s: federate %s: its FMU %s says canBeInstantiatedOnlyOncePerProcess: it "
                     "cannot run in process with the others; run the file distributed "
                     "(--distributed, or \"placement\": \"processes\")",
                     ff->path, ff->feds[i].name, ff->feds[i].fmu);
            rc = FEDFILE_ESCHEMA;
        }
    }
    if (rc == FEDFILE_OK) rc = check_loops(ff, mds, verbose, err, errlen);
    for (size_t i = 0; i < ff->n_feds; i++)
        fmu_md_free(mds[i]);
    free(mds);
    if (rc != FEDFILE_OK) return -1;
    if (fedfile_is_master(ff)) {
        port_link *cp = NULL;
        size_t n = 0;
        if (fedfile_master_links(ff, &cp, &n, err, errlen) != FEDFILE_OK) return -1;
        free(cp);
    }
    return 0;
}

typedef struct run_args {
    const char *file, *rti, *output, *reference, *secret_file, *log;
    const char *http; /* --http PORT: the RTI it starts serves the live view (doc/live.md) */
    int quiet, verbose;
    int threads;   /* --threads: in process, federates as threads, not tasks */
    int profile;   /* --profile: where each federate's time goes (doc/run.md) */
    int placement; /* 1 --in-process, -1 --distributed, 0 as the file says */
    long timeout_ms;
    double watchdog_s;      /* < 0: not given (default RUN_WATCHDOG_S) */
    double reply_timeout_s; /* < 0: not given (the file's, else tempo-master's default) */
    run_ckpt ck;            /* --checkpoint-every, --checkpoint-at, --resume, --set */
} run_args;

#define RUN_WATCHDOG_S 10.0 /* default no-progress time before the RTI's status is shown */
#define RUN_FAIL_GRACE 1000 /* ms the others get to end after the first failure (sup_opts) */

static int parse_args(int argc, char **argv, run_args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            fputs(usage_text, stdout);
            return 1;
        } else if (!strcmp(s, "--version")) {
            printf("tempo-run %s\n", TEMPO_VERSION);
            return 1;
        } else if (!strcmp(s, "--quiet")) {
            a->quiet = 1;
        } else if (!strcmp(s, "--verbose")) {
            a->verbose = 1;
        } else if (!strcmp(s, "--in-process")) {
            a->placement = 1;
        } else if (!strcmp(s, "--distributed")) {
            a->placement = -1;
        } else if (!strcmp(s, "--profile")) {
            a->profile = 1;
        } else if (!strcmp(s, "--threads")) {
            a->threads = 1;
        } else if (!strncmp(s, "--checkpoint-", 13) || !strcmp(s, "--resume") ||
                   !strcmp(s, "--set")) {
            char e[600];
            int r = i + 1 < argc ? run_ckpt_arg(&a->ck, s, argv[i + 1], e, sizeof e) : 0;
            if (r <= 0) {
                if (r == 0) snprintf(e, sizeof e, "%s: unknown option or no value", s);
                fprintf(stderr, "tempo-run: %s\n%s", e, r == 0 ? usage_text : "");
                return -1;
            }
            i++;
        } else if (!strcmp(s, "--rti") || !strcmp(s, "--output") || !strcmp(s, "--timeout") ||
                   !strcmp(s, "--reference") || !strcmp(s, "--secret-file") ||
                   !strcmp(s, "--log") || !strcmp(s, "--watchdog") ||
                   !strcmp(s, "--reply-timeout") || !strcmp(s, "--file-mode") ||
                   !strcmp(s, "--http")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "tempo-run: %s needs a value\n%s", s, usage_text);
                return -1;
            }
            const char *v = argv[++i];
            if (!strcmp(s, "--reference")) {
                a->reference = v;
            } else if (!strcmp(s, "--secret-file")) {
                a->secret_file = v;
            } else if (!strcmp(s, "--log")) {
                a->log = v;
            } else if (!strcmp(s, "--file-mode")) {
                unsigned mode;
                char e[200];
                if (outfile_parse_mode(v, &mode, e, sizeof e) != 0) {
                    fprintf(stderr, "tempo-run: --file-mode: %s\n", e);
                    return -1;
                }
                setenv(OUTFILE_ENV, v, 1); /* this process and every child read it */
            } else if (!strcmp(s, "--http")) {
                char *end;
                long port = strtol(v, &end, 10);
                if (*end || end == v || port < 0 || port > 65535) {
                    fprintf(stderr, "tempo-run: --http %s: expected a port, 0 .. 65535\n", v);
                    return -1;
                }
                a->http = v;
            } else if (!strcmp(s, "--watchdog")) {
                char *end;
                a->watchdog_s = strtod(v, &end);
                if (*end || end == v || !(a->watchdog_s >= 0) || a->watchdog_s > 1e6) {
                    fprintf(stderr, "tempo-run: --watchdog %s: expected seconds >= 0\n", v);
                    return -1;
                }
            } else if (!strcmp(s, "--reply-timeout")) {
                char *end;
                a->reply_timeout_s = strtod(v, &end);
                if (*end || end == v || !(a->reply_timeout_s >= 0.001) ||
                    a->reply_timeout_s > 86400) {
                    fprintf(stderr,
                            "tempo-run: --reply-timeout %s: expected seconds, 0.001 to "
                            "86400\n",
                            v);
                    return -1;
                }
            } else if (s[2] == 'r') {
                a->rti = v;
            } else if (s[2] == 'o') {
                a->output = v;
            } else {
                char *end;
                errno = 0;
                a->timeout_ms = strtol(v, &end, 10);
                if (*end || end == v || errno || a->timeout_ms <= 0) {
                    fprintf(stderr, "tempo-run: --timeout %s: expected milliseconds > 0\n", v);
                    return -1;
                }
            }
        } else if (s[0] == '-') {
            fprintf(stderr, "tempo-run: unknown option %s (see --help)\n", s);
            return -1;
        } else if (a->file) {
            fprintf(stderr, "tempo-run: unexpected argument %s: one federation file only (%s)\n", s,
                    a->file);
            return -1;
        } else {
            a->file = s;
        }
    }
    if (!a->file) {
        fprintf(stderr, "tempo-run: no federation file given\n%s", usage_text);
        return -1;
    }
    return 0;
}

/* Start tempo-rti as a service child and return its address in addr ("HOST:PORT" or
 * "unix:PATH"). Listens where the file says when it gives a port or a socket, else on a free
 * loopback port. Returns a SUP_ status. */
static int start_rti(sup *s, const fedfile *ff, const char *log, const char *http,
                     const char *ckpt_dir, char *addr, size_t len, char *err, size_t errlen)
{
    char bin[PATH_MAX], listen[300], line[SUP_LINE_MAX], host[256], view[32];
    sibling("tempo-rti", bin, sizeof bin);
    char *argv[12] = {bin, "--listen", listen, NULL};
    int k = 3;
    if (ckpt_dir) argv[k++] = "--checkpoint-dir", argv[k++] = (char *)ckpt_dir;
    if (log) argv[k++] = "--log", argv[k++] = (char *)log; /* one file per run (doc/log.md) */
    if (http) { /* the live view, on loopback only (doc/live.md) */
        snprintf(view, sizeof view, "127.0.0.1:%s", http);
        argv[k++] = "--http", argv[k++] = view;
    }
    if (ff->rti_unix) {
        snprintf(listen, sizeof listen, "none");
        argv[k++] = "--unix";
        argv[k++] = ff->rti_unix;
    } else {
        const char *h = ff->rti_host ? ff->rti_host : "127.0.0.1";
        snprintf(listen, sizeof listen, strchr(h, ':') ? "[%s]:%d" : "%s:%d", h, ff->rti_port);
    }
    int idx = sup_start(s, &(sup_spec){.name = RTI_CHILD, .argv = argv, .service = 1}, err, errlen);
    if (idx < 0) return idx;
    int rc = sup_wait_line(s, idx, "listening on", 10000, line, sizeof line, err, errlen);
    if (rc != SUP_OK) return rc;
    char vline[SUP_LINE_MAX];
    if (http) {
        rc = sup_wait_line(s, idx, "live view on", 10000, vline, sizeof vline, err, errlen);
        if (rc != SUP_OK) return rc;
        const char *u = strstr(vline, "http://");
        fprintf(stderr, "tempo-run: live view on %s\n", u ? u : vline);
    }
    int port;
    rc = sup_parse_listen(line, host, sizeof host, &port, err, errlen);
    if (rc != SUP_OK) return rc;
    if (port == 0)
        snprintf(addr, len, "%s", host);
    else
        snprintf(addr, len, strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
    return SUP_OK;
}

/* The units the FMUs give their variables, for the plot's axis labels (each federate's
 * modelDescription.xml; a federate whose FMU cannot be read gives no units, and the plot then
 * shows the names alone). A name is looked up in the federates in file order. */
typedef struct fed_units {
    const fedfile *ff;
    fmu_md **md; /* ff->n_feds descriptions, NULL where unread */
} fed_units;

static const char *unit_of(void *ctx, const char *name)
{
    fed_units *fu = ctx;
    for (size_t i = 0; i < fu->ff->n_feds; i++) {
        if (!fu->md[i]) continue;
        long k = fmu_md_find(fu->md[i], name);
        if (k >= 0 && fu->md[i]->vars[k].unit) return fu->md[i]->vars[k].unit;
    }
    return NULL;
}

/* After a successful run: every CSV must exist (none of a federate that records nothing); plot
 * them all into DIR/plot.svg. */
static int collect(const fedfile *ff, const char *outdir, const char *reference, char *plot_path,
                   size_t plen, char *err, size_t errlen)
{
    size_t n = ff->n_feds;
    res_table **t = calloc(n, sizeof *t);
    const char **names = calloc(n, sizeof *names);
    int rc = 0;
    if (!t || !names) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    size_t k = 0; /* tables read: a federate that records nothing writes none */
    for (size_t i = 0; !rc && i < n; i++) {
        if (ff->feds[i].record_none) continue; /* doc/federation.md "Recording less" */
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/%s.csv", outdir, ff->feds[i].name);
        names[k] = ff->feds[i].name;
        if (res_read_csv(p, &t[k++], err, errlen) != RES_OK) rc = -1;
    }
    size_t nf = n; /* federates, for their units */
    n = k;
    if (!rc && n > 0 && n <= PLOT_MAX_PANELS) {
        snprintf(plot_path, plen, "%s/plot.svg", outdir);
        char title[300];
        snprintf(title, sizeof title, "%s", ff->federation);
        plot_opts po = {.title = title, .draw = PLOT_LINEAR};
        res_table *ref = NULL;
        fed_units fu = {ff, calloc(nf, sizeof(fmu_md *))};
        for (size_t i = 0; fu.md && i < nf; i++) {
            char merr[FMU_ERR_LEN];
            if (!ff->feds[i].fmu ||
                fmu_load_md(ff->feds[i].fmu, NULL, &fu.md[i], merr, sizeof merr))
                fu.md[i] = NULL;
        }
        if (reference && res_read_csv(reference, &ref, err, errlen) != RES_OK)
            rc = -1;
        else if (plot_tables_ref(plot_path, (const res_table *const *)t, names, n, ref,
                                 fu.md ? unit_of : NULL, &fu, &po, err, errlen) != PLOT_OK)
            rc = -1;
        for (size_t i = 0; fu.md && i < nf; i++)
            fmu_md_free(fu.md[i]);
        free(fu.md);
        res_table_free(ref);
    }
    for (size_t i = 0; t && i < n; i++)
        res_table_free(t[i]);
    free(t);
    free(names);
    return rc;
}

/* The results folder as the user should read it: relative to the working directory when it
 * lies below it ("examples/../build/run/x" -> "build/run/x"), else absolute; as given when it
 * cannot be resolved. */
static void show_dir(const char *dir, char *out, size_t len)
{
    char real[PATH_MAX], cwd[PATH_MAX];
    snprintf(out, len, "%s", dir);
    if (!realpath(dir, real) || !getcwd(cwd, sizeof cwd)) return;
    size_t n = strlen(cwd);
    if (!strncmp(real, cwd, n) && real[n] == '/')
        snprintf(out, len, "%s", real + n + 1);
    else
        snprintf(out, len, "%s", real);
}

static void summary(const fedfile *ff, const fed_report *rep, double wall, const char *outdir_raw,
                    const char *plot)
{
    char outdir[PATH_MAX];
    show_dir(outdir_raw, outdir, sizeof outdir);
    long steps_min = -1, steps_max = 0, upd = 0, refl = 0, req = 0;
    int all = 1;
    for (size_t i = 0; i < ff->n_feds; i++) {
        if (!rep[i].done) {
            all = 0;
            continue;
        }
        if (steps_min < 0 || rep[i].steps < steps_min) steps_min = rep[i].steps;
        if (rep[i].steps > steps_max) steps_max = rep[i].steps;
        upd += rep[i].updates, refl += rep[i].reflections, req += rep[i].requests;
    }
    printf("tempo-run: %s: %zu federates, %s, t = %g .. %g s, wall time %.3f s\n", ff->federation,
           ff->n_feds, fedfile_method_name(ff), ff->algo.start, ff->algo.end, wall);
    /* The message figures are the federates' own counts; when one did not report them they
     * are left out rather than guessed. */
    if (all && steps_min >= 0) {
        if (steps_min == steps_max)
            printf("tempo-run: %ld instants per federate; ", steps_min);
        else
            printf("tempo-run: %ld to %ld instants per federate; ", steps_min, steps_max);
        printf("messages: %ld attribute updates sent, %ld reflections received, "
               "%ld time requests\n",
               upd, refl, req);
    }
    for (size_t i = 0; i < ff->n_feds; i++)
        if (!ff->feds[i].record_none) /* "record": [] writes no file */
            printf("tempo-run: results %s/%s.csv\n", outdir, ff->feds[i].name);
    /* A master method's notes (iterations, residuals; doc/master.md). */
    if (fedfile_is_master(ff)) printf("tempo-run: results %s/master.csv\n", outdir);
    if (plot[0]) printf("tempo-run: plot %s/plot.svg\n", outdir);
}

/* The watchdog (sup_opts.on_tick): when no federate has progressed for watchdog_s, say so
 * and show the RTI's "who waits for whom" (SIGUSR1 makes tempo-rti, or the in-process
 * federation's embedded RTI, log every federate's time state, the stalls under polling
 * included, then the federate to look at, by the rule of tempo-log explain and the live view:
 * tm_look_at; on_line echoes those lines). Again after every further watchdog_s without
 * progress. */
static void watchdog(void *ctx)
{
    run_ctx *c = ctx;
    double now = now_s();
    if (c->watchdog_s <= 0 || now - c->last_progress < c->watchdog_s) return;
    c->last_progress = now;
    fprintf(stderr, "%stempo-run: no federate has progressed for %g s:", c->pg ? "\n" : "",
            c->watchdog_s);
    for (size_t i = 0; i < c->ff->n_feds; i++)
        fprintf(stderr, "%s %s at t = %g s", i ? "," : "", c->ff->feds[i].name,
                c->rep[i].progress_t);
    fputc('\n', stderr);
    if (c->inproc && c->inproc_pid) { /* its embedded RTI answers too (doc/inproc.md) */
        fprintf(stderr, "tempo-run: who waits for whom, from the in-process RTI's status (times "
                        "in ticks):\n");
        c->dumping = 1;
        c->dump_until = now + 2.0;
        kill(c->inproc_pid, SIGUSR1);
        return;
    }
    if (!c->rti_pid) {
        fprintf(stderr, "tempo-run: (the RTI is not tempo-run's: send it SIGUSR1 to see who waits "
                        "for whom)\n");
        return;
    }
    fprintf(stderr, "tempo-run: who waits for whom, from the RTI's status (times in ticks):\n");
    c->dumping = 1;
    c->dump_until = now + 2.0;
    kill(c->rti_pid, SIGUSR1);
}

/* Does child `who`'s message say that federate (or master) `other` left before the end? */
static int blames(const sup_child_info *who, const char *other)
{
    char pat[300];
    snprintf(pat, sizeof pat, "federate %s left the federation before the end", other);
    for (size_t k = 0; k < who->n_tail; k++)
        if (strstr(who->tail[k], pat) ||
            (!strcmp(other, MASTER_CHILD) && strstr(who->tail[k], "the master left before")))
            return 1;
    return 0;
}

/* Where the master's line says it lost slave X: after "slave X lost: ", or after "lost: "
 * in a report that names the slave once ("slave X: lost: ...", "slave 'X' ...: lost: ...";
 * port_add_cause, algorithms/port.h); NULL when it does not. */
static const char *lost_words(const char *line, const char *x)
{
    char pat[300];
    snprintf(pat, sizeof pat, "slave %s lost: ", x);
    const char *at = strstr(line, pat);
    if (at) return at + strlen(pat);
    char p1[300], p2[300];
    snprintf(p1, sizeof p1, "slave %s: ", x);
    snprintf(p2, sizeof p2, "slave '%s' ", x);
    at = strstr(line, p1);
    if (!at) at = strstr(line, p2);
    const char *lost = at ? strstr(at, ": lost: ") : NULL;
    return lost ? lost + 8 : NULL;
}

/* The master (in[root]) reports a slave it lost ("slave X lost: ..."): when that slave's
 * process did not fail itself (stopped, hung), it is the one at fault, not the master; say so
 * and return 1, else 0. */
static int report_stopped_slave(const run_ctx *c, const sup_child_info *in, size_t n, long root)
{
    for (size_t k = 0; k < in[root].n_tail; k++)
        for (size_t i = 0; i < n; i++) {
            const char *why = lost_words(in[root].tail[k], in[i].name);
            if (!why || (long)i == root || fed_index(c, in[i].name) < 0 ||
                in[i].state == SUP_EXITED)
                continue;
            int len = (int)strlen(why), open = 0;
            for (int j = 0; j < len; j++)
                open += (why[j] == '(') - (why[j] == ')');
            while (open < 0 && len > 0 && why[len - 1] == ')') /* the master's brackets */
                len--, open++;
            fprintf(stderr,
                    "tempo-run: %s: failed: federate '%s' (pid %ld) stopped answering "
                    "the master (stopped or hung): %.*s\n",
                    c->ff->federation, in[i].name, (long)in[i].pid, len, why);
            fprintf(stderr, "tempo-run:   master said: \"%s\"\n", in[root].tail[k]);
            return 1;
        }
    return 0;
}

/* In process the child is the whole federation, and the master speaks for its slaves: their
 * last line naming a federate ("tempo-fmu: NAME: ...", "... federate NAME: ...", "slave NAME:
 * ...", "slave 'NAME' ...") is the verdict, which names the federate at fault (fmufed_run_all and
 * tempo-master report the cause, not the followers). */
static void print_at_fault(const run_ctx *c, const sup_child_info *r)
{
    for (size_t kk = r->n_tail; kk > 0; kk--) {
        size_t k = kk - 1;
        for (size_t j = 0; j < c->ff->n_feds; j++) {
            char p1[200], p2[200], p3[200], p4[200];
            snprintf(p1, sizeof p1, ": %s: ", c->ff->feds[j].name);
            snprintf(p2, sizeof p2, "federate %s: ", c->ff->feds[j].name);
            snprintf(p3, sizeof p3, "slave %s: ", c->ff->feds[j].name);
            snprintf(p4, sizeof p4, "slave '%s' ", c->ff->feds[j].name);
            if (strstr(r->tail[k], p1) || strstr(r->tail[k], p2) || strstr(r->tail[k], p3) ||
                strstr(r->tail[k], p4)) {
                fprintf(stderr, "tempo-run:   the federate at fault: %s\n", c->ff->feds[j].name);
                return;
            }
        }
    }
}

/* After a failed run: the federate that failed first, with its own message quoted, then the
 * others. A federate whose failure says another "left the federation before the end" only
 * followed that one; a federate that ended with status 0 but without its summary line ended
 * in the middle of the run (an FMU calling exit(), doc/run.md). */
static void failure_report(sup *s, const run_ctx *c, const char *sup_err)
{
    size_t n = sup_count(s);
    sup_child_info *in = calloc(n ? n : 1, sizeof *in);
    int *bad = calloc(n ? n : 1, sizeof *bad);
    if (!in || !bad) {
        free(in), free(bad);
        fprintf(stderr, "tempo-run: %s: failed: %s\n", c->ff->federation, sup_err);
        return;
    }
    char tails[SUP_MAX_CHILDREN][SUP_TAIL_LINES][SUP_TAIL_LEN];
    for (size_t i = 0; i < n && i < SUP_MAX_CHILDREN; i++) {
        sup_child(s, (int)i, &in[i]);
        for (size_t k = 0; k < in[i].n_tail; k++) { /* pointers last until the next call */
            snprintf(tails[i][k], SUP_TAIL_LEN, "%s", in[i].tail[k]);
            in[i].tail[k] = tails[i][k];
        }
        long f = fed_index(c, in[i].name);
        int early = f >= 0 && in[i].state == SUP_EXITED && in[i].code == 0 && !c->rep[f].done;
        bad[i] = in[i].failed ? 1 : early ? 2 : 0;
    }
    /* the root: a failed child that blames no other failed (or early-ended) child */
    long root = -1;
    for (size_t i = 0; i < n && root < 0; i++) {
        if (!bad[i]) continue;
        int follows = 0;
        for (size_t j = 0; j < n && !follows; j++)
            follows = j != i && bad[j] && blames(&in[i], in[j].name);
        if (!follows) root = (long)i;
    }
    if (root < 0) { /* everyone blames someone: the first named by another */
        for (size_t i = 0; i < n && root < 0; i++)
            if (bad[i]) root = (long)i;
    }
    if (root < 0) {
        fprintf(stderr, "tempo-run: %s: failed: %s\n", c->ff->federation, sup_err);
        free(in), free(bad);
        return;
    }
    if (!strcmp(in[root].name, MASTER_CHILD) && report_stopped_slave(c, in, n, root)) {
        free(in), free(bad);
        return;
    }
    const sup_child_info *r = &in[root];
    char sb[32];
    int called_exit = 0, others = 0;
    for (size_t k = 0; k < r->n_tail; k++)
        called_exit |= strstr(r->tail[k], "was called (by the FMU or a library it uses") != NULL;
    for (size_t i = 0; i < n; i++)
        others += bad[i] && (long)i != root;
    fprintf(stderr, "tempo-run: %s: failed: child '%s' (pid %ld) ", c->ff->federation, r->name,
            (long)r->pid);
    if (r->state == SUP_SIGNALED)
        fprintf(stderr, "was killed by %s", sup_signal_name(r->sig, sb, sizeof sb));
    else
        fprintf(stderr, "exited with status %d", r->code);
    if (bad[root] == 2 || called_exit)
        fprintf(stderr, " in the middle of the run, without its summary line: its FMU (or a "
                        "library it uses) called exit()");
    fprintf(stderr, "%s\n", others ? ", first (the others followed)" : "");
    if (!strcmp(r->name, INPROC_CHILD) || !strcmp(r->name, MASTER_CHILD)) print_at_fault(c, r);
    /* its own words: the last lines it wrote on stderr */
    size_t from = r->n_tail > 3 ? r->n_tail - 3 : 0;
    for (size_t k = from; k < r->n_tail; k++)
        fprintf(stderr, "tempo-run:   %s said: \"%s\"\n", r->name, r->tail[k]);
    if (r->n_tail == 0) fprintf(stderr, "tempo-run:   (%s wrote nothing on stderr)\n", r->name);
    for (size_t i = 0; i < n; i++) {
        if (!bad[i] || (long)i == root) continue;
        fprintf(stderr, "tempo-run: then '%s' %s%s%s\n", in[i].name,
                bad[i] == 2 ? "ended early" : "failed", in[i].n_tail ? ": " : "",
                in[i].n_tail ? in[i].tail[in[i].n_tail - 1] : "");
    }
    free(in), free(bad);
}

/* The run itself, once the file is loaded and checked. Returns the exit status. */
/* --profile: the table of every federate's parts, and OUTPUT/profile.json for Perfetto. */
static void profile_report(const run_ctx *c, const char *outdir)
{
    char path[PATH_MAX], err[PATH_MAX + 200];
    run_prof_print(stdout, c->prof, c->names, c->ff->n_feds);
    snprintf(path, sizeof path, "%s/profile.json", outdir);
    if (run_prof_trace(path, c->prof, c->names, c->ff->n_feds, err, sizeof err) != 0)
        fprintf(stderr, "tempo-run: profile trace: %s\n", err);
    else
        printf("tempo-run: profile trace %s (Perfetto, chrome://tracing)\n", path);
}

static int run(const fedfile *ff, const run_args *a, const char *outdir)
{
    char err[SUP_ERRLEN + 512], addr[300], fmu_bin[PATH_MAX];
    double t0 = now_s();
    fed_report *rep = calloc(ff->n_feds, sizeof *rep);
    if (!rep) return fputs("tempo-run: out of memory\n", stderr), 1;
    run_ctx c = {.ff = ff,
                 .rep = rep,
                 .verbose = a->verbose,
                 .quiet = a->quiet,
                 .watchdog_s = a->watchdog_s < 0 ? RUN_WATCHDOG_S : a->watchdog_s,
                 .last_progress = t0,
                 .ck = (run_ckpt *)&a->ck};
    if (a->profile && fedfile_is_master(ff))
        fprintf(stderr,
                "tempo-run: --profile: method \"%s\" runs under tempo-master, whose "
                "phases are not profiled yet (doc/run.md \"Where the time goes\")\n",
                fedfile_method_name(ff));
    else if (a->profile) {
        c.prof = calloc(ff->n_feds, sizeof *c.prof);
        c.names = calloc(ff->n_feds, sizeof *c.names);
        if (!c.prof || !c.names) return free(c.prof), free(c.names), free(rep), 1;
        for (size_t i = 0; i < ff->n_feds; i++)
            c.names[i] = ff->feds[i].name;
    }
    const char *ckpt_dir = run_ckpt_asked(&a->ck) ? a->ck.dir : NULL;
    for (size_t i = 0; i < ff->n_feds; i++)
        rep[i].progress_t = ff->algo.start;
    const char *log = a->log ? a->log : ff->log;
    if (log && a->rti) {
        fprintf(stderr,
                "tempo-run: %s records the RTI tempo-run starts; with --rti, start that "
                "RTI with --log DIR yourself\n",
                a->log ? "--log" : "the file's \"log\"");
        free(rep);
        return 2;
    }
    if (a->http && a->rti) {
        fprintf(stderr, "tempo-run: --http serves the view from the RTI tempo-run starts; with "
                        "--rti, start that RTI with --http HOST:PORT yourself\n");
        free(rep);
        return 2;
    }
    if (log && outfile_mkdirs(log, err, sizeof err) != 0) { /* private, like the logs in it */
        fprintf(stderr, "tempo-run: log folder: %s\n", err);
        free(rep);
        return 2;
    }
    const char **names = calloc(ff->n_feds, sizeof *names);
    for (size_t i = 0; names && i < ff->n_feds; i++)
        names[i] = ff->feds[i].name;
    if (!a->quiet && names) {
        prog_opts po = {.out = stderr, .tty = -1, .t_start = ff->algo.start, .t_end = ff->algo.end};
        if (prog_new(&c.pg, &po, ff->n_feds, names, err, sizeof err) != PROG_OK) c.pg = NULL;
    }
    free(names);

    sup *s = NULL;
    sup_opts so = {.catch_signals = 1,
                   .on_line = on_line,
                   .on_tick = watchdog,
                   .ctx = &c,
                   .timeout_ms = a->timeout_ms,
                   .fail_grace_ms = RUN_FAIL_GRACE};
    int rc = sup_new(&s, &so, err, sizeof err);
    int inproc = a->placement ? a->placement > 0 : ff->in_process;
    c.inproc = inproc;
    char reply_ms[32] = ""; /* --reply-timeout for tempo-master, in ms */
    if (a->reply_timeout_s > 0)
        snprintf(reply_ms, sizeof reply_ms, "%ld", (long)(a->reply_timeout_s * 1000.0 + 0.5));
    if (rc == SUP_OK && inproc) {
        /* One process: tempo-fmu --all (tempo-master --in-process for a master method) runs
         * the RTI embedded and each federate a thread. */
        int master = fedfile_is_master(ff);
        sibling(master ? "tempo-master" : "tempo-fmu", fmu_bin, sizeof fmu_bin);
        char *argv[24 + 4 * RUN_CKPT_MAX] = {fmu_bin, "--federation", (char *)a->file,
                                             master ? "--in-process" : "--all", NULL};
        int k = 4;
        if (a->output) argv[k++] = "--output", argv[k++] = (char *)a->output;
        if (log) argv[k++] = "--log-dir", argv[k++] = (char *)log; /* the embedded RTI's */
        /* never --quiet: the federates' summary lines tell that each one finished */
        if (master && reply_ms[0]) argv[k++] = "--reply-timeout", argv[k++] = reply_ms;
        if (a->threads) argv[k++] = "--threads";
        if (c.prof && !master) argv[k++] = "--profile";
        char view[32]; /* the embedded RTI serves the live view (doc/live.md), on loopback */
        if (a->http) {
            snprintf(view, sizeof view, "127.0.0.1:%s", a->http);
            argv[k++] = "--http", argv[k++] = view;
        }
        argv[k] = NULL;
        k = run_ckpt_child_args(&a->ck, argv, k, 1);
        int idx = sup_start(s, &(sup_spec){.name = INPROC_CHILD, .argv = argv}, err, sizeof err);
        sup_child_info ci;
        if (idx < 0)
            rc = idx;
        else if (sup_child(s, idx, &ci) == SUP_OK)
            c.inproc_pid = ci.pid;
    } else if (rc == SUP_OK && a->rti) {
        snprintf(addr, sizeof addr, "%s", a->rti);
        /* --resume at a running RTI: it restores the federation (from a folder it can read) */
        if (run_ckpt_restore(&a->ck, ff, addr, err, sizeof err) != 0) rc = SUP_EUSAGE;
    } else if (rc == SUP_OK) {
        rc = start_rti(s, ff, log, a->http, ckpt_dir, addr, sizeof addr, err, sizeof err);
        sup_child_info ri;
        if (rc == SUP_OK && sup_child(s, 0, &ri) == SUP_OK) c.rti_pid = ri.pid;
        /* --resume: the RTI recreates the federation; the federates rejoin it (--restore) */
        if (rc == SUP_OK && run_ckpt_restore(&a->ck, ff, addr, err, sizeof err) != 0)
            rc = SUP_EUSAGE;
    }
    sibling("tempo-fmu", fmu_bin, sizeof fmu_bin);
    char py_bin[PATH_MAX]; /* runs the "python" federates (doc/python.md) */
    sibling(FEDFILE_PYTHON_RUNNER, py_bin, sizeof py_bin);
    for (size_t i = 0; rc == SUP_OK && !inproc && i < ff->n_feds; i++) {
        /* An FMU federate runs under tempo-fmu; a program federate is its own executable, given
         * the same four options and then its "args". */
        const fedfile_fed *fd = &ff->feds[i];
        char **argv = calloc(fd->n_args + 24 + 4 * RUN_CKPT_MAX, sizeof *argv);
        if (!argv) {
            snprintf(err, sizeof err, "out of memory");
            rc = SUP_ENOMEM;
            break;
        }
        size_t k = 0;
        /* A model in Python whose peer method extrapolates its inputs, or in a run with
         * checkpoints, runs under tempo-fmu, whose peer loop (algorithms/jacobi.c) and part of
         * a save drive it in a tempo-slave --pipe child (doc/python.md "In one process");
         * tempo-slave's own loops hold the inputs and save nothing. */
        int py_fmu = fd->python && !fedfile_is_master(ff) &&
                     (ff->algo.extrapolation > 0 || run_ckpt_asked(&a->ck));
        argv[k++] = fd->python && !py_fmu ? py_bin : fd->program && !py_fmu ? fd->program : fmu_bin;
        argv[k++] = "--federation", argv[k++] = (char *)a->file;
        argv[k++] = "--name", argv[k++] = fd->name;
        argv[k++] = "--rti", argv[k++] = addr;
        if (a->output) argv[k++] = "--output", argv[k++] = (char *)a->output;
        if (fd->fmu && c.prof && !fedfile_is_master(ff)) argv[k++] = "--profile";
        if (fd->fmu || py_fmu)
            k = (size_t)run_ckpt_child_args(&a->ck, argv, (int)k, 0);
        else if (a->ck.resume) /* a program federate rejoins (doc/checkpoint.md) */
            argv[k++] = "--restore";
        for (size_t j = 0; !py_fmu && j < fd->n_args; j++)
            argv[k++] = fd->args[j];
        static const char *const roles[] = {"auto", "source", "common", "sink"};
        if (fd->python && !py_fmu &&
            ff->gs_plan) /* tempo-slave follows the file's plan (doc/python.md) */
            argv[k++] = "--gs-role", argv[k++] = (char *)roles[ff->gs_plan->role[i] & 3];
        int idx = sup_start(s, &(sup_spec){.name = fd->name, .argv = argv}, err, sizeof err);
        free(argv);
        if (idx < 0) rc = idx;
    }
    if (rc == SUP_OK && !inproc && fedfile_is_master(ff)) {
        /* The master federate: the same file and RTI; the slaves write the results. */
        char master_bin[PATH_MAX];
        sibling("tempo-master", master_bin, sizeof master_bin);
        char *argv[16 + 4 * RUN_CKPT_MAX] = {master_bin, "--federation", (char *)a->file,
                                             "--rti",    addr,           NULL};
        int k = 5;
        if (a->output) argv[k++] = "--output", argv[k++] = (char *)a->output;
        if (a->quiet) argv[k++] = "--quiet";
        if (reply_ms[0]) argv[k++] = "--reply-timeout", argv[k++] = reply_ms;
        argv[k] = NULL;
        k = run_ckpt_child_args(&a->ck, argv, k, 0); /* the master asks for the saves */
        int idx = sup_start(s, &(sup_spec){.name = MASTER_CHILD, .argv = argv}, err, sizeof err);
        if (idx < 0) rc = idx;
    }
    if (rc == SUP_OK) rc = sup_wait(s, err, sizeof err);
    prog_finish(c.pg);
    prog_free(c.pg);
    double wall = now_s() - t0;
    int status = 0;
    /* a federate (a slave of a master method too) that ended with status 0 without its
     * summary did not finish the run */
    for (size_t i = 0; rc == SUP_OK && i < ff->n_feds; i++)
        if (!rep[i].done) rc = SUP_ECHILD;
    if (rc == SUP_EINTR) {
        fprintf(stderr, "tempo-run: %s\n", err);
        status = 130;
    } else if (rc == SUP_ECHILD) {
        failure_report(s, &c, err);
        status = 1;
    } else if (rc != SUP_OK) {
        fprintf(stderr, "tempo-run: %s: failed: %s\n", ff->federation, err);
        status = 1;
    } else {
        char plot[PATH_MAX + 16] = "";
        if (collect(ff, outdir, a->reference, plot, sizeof plot, err, sizeof err) != 0) {
            fprintf(stderr, "tempo-run: %s: results: %s\n", ff->federation, err);
            status = 1;
        } else {
            summary(ff, rep, wall, outdir, plot);
            if (c.prof) profile_report(&c, outdir);
        }
    }
    run_ckpt_report(&a->ck, stdout);
    sup_free(s);
    fmu_zip_sweep(NULL); /* the unpacked FMUs of federates killed before they could clean up */
    if (c.log_path[0])
        printf("tempo-run: federation log %s (tempo-log; doc/log.md)\n", c.log_path);
    else if (inproc && log)
        printf("tempo-run: federation log in %s (tempo-log; doc/log.md)\n", log);
    free(rep);
    free(c.prof);
    free(c.names);
    return status;
}

/* tempo-run --export-ssp FILE.json OUT.ssp (doc/ssp.md, "Export"): the file is checked as for
 * a run, then written as an SSP archive. */
static int export_ssp(const char *file, const char *out)
{
    fedfile *ff = NULL;
    char err[FEDFILE_ERRLEN + 256];
    if (fedfile_load(file, &ff, err, sizeof err) != FEDFILE_OK) {
        fprintf(stderr, "tempo-run: %s\n", err);
        return 2;
    }
    fedfile_free(ff);
    int rc = ssp_export(file, out, err, sizeof err);
    if (rc) {
        fprintf(stderr, "tempo-run: %s\n", err);
        return rc == -1 ? 2 : 1;
    }
    printf("tempo-run: wrote %s\n", out);
    return 0;
}

int main(int argc, char **argv)
{
    run_args a = {.watchdog_s = -1, .reply_timeout_s = -1}; /* -1: not given, the defaults */
    if (argc == 4 && !strcmp(argv[1], "--export-ssp")) return export_ssp(argv[2], argv[3]);
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc < 0 ? 2 : 0;
    fedfile *ff = NULL;
    char err[FEDFILE_ERRLEN + 256];
    if (fedfile_load(a.file, &ff, err, sizeof err) != FEDFILE_OK) {
        fprintf(stderr, "tempo-run: %s\n", err);
        return 2;
    }
    int inproc = a.placement ? a.placement > 0 : ff->in_process;
    /* a "python" model runs in process through its tempo-slave --pipe child (doc/python.md) */
    for (size_t i = 0; inproc && i < ff->n_feds; i++)
        if (ff->feds[i].program && !ff->feds[i].python) {
            fprintf(stderr,
                    "tempo-run: %s: federate %s is a program (%s): it cannot run as a thread; "
                    "run the file with --distributed\n",
                    a.file, ff->feds[i].name, ff->feds[i].program);
            fedfile_free(ff);
            return 2;
        }
    if (a.reply_timeout_s > 0 && !fedfile_is_master(ff)) { /* as the file's key (fedfile.c) */
        fprintf(stderr,
                "tempo-run: %s: --reply-timeout goes with a method run by tempo-master "
                "(doc/master.md); "
                "method \"%s\" has no master\n",
                a.file, fedfile_method_name(ff));
        fedfile_free(ff);
        return 2;
    }
    if (!inproc && a.threads) {
        fprintf(stderr,
                "tempo-run: %s: --threads goes with an in-process placement (--in-process, or "
                "\"placement\": \"in-process\" in the file)\n",
                a.file);
        fedfile_free(ff);
        return 2;
    }
    if (inproc && a.rti) {
        fprintf(stderr,
                "tempo-run: %s: --rti and in-process placement exclude each other (the RTI "
                "runs inside the federates' process)\n",
                a.file);
        fedfile_free(ff);
        return 2;
    }
    if (check_fmus(ff, inproc, a.verbose, err, sizeof err) != 0) {
        fprintf(stderr, "tempo-run: %s\n", err);
        fedfile_free(ff);
        return 2;
    }
    /* Its own RTI gets a fresh secret unless one is given: nobody else can join the run. The
     * RTI and the federates read it from the environment, never from a command line. */
    const char *src = NULL;
    if (run_secret_apply(a.secret_file, ff->secret_file, !a.rti, &src, err, sizeof err) != 0) {
        fprintf(stderr, "tempo-run: %s\n", err);
        fedfile_free(ff);
        return 2;
    }
    if (a.verbose) fprintf(stderr, "tempo-run: shared secret: %s\n", src);
    const char *outdir = a.output ? a.output : ff->output;
    int lock_fd = -1; /* held until exit: no second run writes into this folder meanwhile */
    char warn[1200];
    unsigned mode;
    if (outfile_mode(&mode, err, sizeof err) != 0 || run_check_names(ff, err, sizeof err) != 0 ||
        run_check_files(ff->fom, outdir, err, sizeof err) != 0 ||
        run_check_outputs(ff, outdir, fedfile_is_master(ff), warn, sizeof warn, err, sizeof err) !=
            0 ||
        run_lock_output(outdir, &lock_fd, err, sizeof err) != 0) {
        fprintf(stderr, "tempo-run: %s: %s\n", a.file, err);
        fedfile_free(ff);
        return 2;
    }
    if (run_ckpt_prepare(&a.ck, ff, outdir, err, sizeof err) != 0) {
        fprintf(stderr, "tempo-run: %s: %s\n", a.file, err);
        fedfile_free(ff);
        close(lock_fd);
        return 2;
    }
    if (warn[0]) fprintf(stderr, "tempo-run: warning: %s\n", warn);
    /* Stdout is a pipe when tempo-run itself is supervised; keep the summary in order. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    rc = run(ff, &a, outdir);
    fedfile_free(ff);
    close(lock_fd);
    return rc;
}
