/* Command line of the FMU federate: tempo-fmu --federation FILE --name X [--rti ADDR]
 * [--output DIR] [--timeout MS] [--quiet]. Serves doc/guide.md (item 3: the same file runs
 * locally or distributed). Parses arguments, loads the file and calls fmufed_run
 * (federate/fmufed/fmufed.c); federate/fmufed/tempo_fmu_main.c hands
 * every command line holding --federation here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/fmufed/fmufed.h"
#include "federate/run/run_secret.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: tempo-fmu --federation FILE.json --name FEDERATE [options]\n"
               "  --rti HOST:PORT|unix:PATH  RTI address (default: the file's \"rti\")\n"
               "  --output DIR               results folder (default: the file's \"output\")\n"
               "  --secret-file PATH         the RTI's shared secret (default: TEMPO_SECRET,\n"
               "                             TEMPO_SECRET_FILE, the file's \"secret_file\")\n"
               "  --timeout MS               longest wait for a join, sync or grant, -1: none\n"
               "                             (default: 60000 at the start, none during the run)\n"
               "  --quiet                    no progress lines (\"progress T END\") nor summary\n"
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

int fmufed_main(int argc, char **argv)
{
    const char *file = NULL, *name = NULL, *secret_file = NULL;
    fmufed_opts o = {0};
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
        }
        if (strcmp(a, "--federation") && strcmp(a, "--name") && strcmp(a, "--rti") &&
            strcmp(a, "--output") && strcmp(a, "--timeout") && strcmp(a, "--secret-file")) {
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
        else if (!strcmp(a, "--timeout")) {
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
    if (!file || !name) {
        fprintf(stderr, "tempo-fmu: --federation and --name are required\n");
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
    fmufed_stats st;
    double end = ff->algo.end;
    if (!o.quiet) {
        o.progress = print_progress;
        o.progress_ctx = &end;
    }
    int rc = fmufed_run(ff, name, &o, &st, err, sizeof err);
    fedfile_free(ff);
    if (rc != FMUFED_OK) {
        /* fmufed_run's messages already name the federate (or the file when it is unknown). */
        fprintf(stderr, "tempo-fmu: %s\n", err);
        return rc == FMUFED_EUSAGE ? 2 : 1;
    }
    if (!o.quiet)
        printf("tempo-fmu: %s: done at t = %.9g s: %ld steps, %ld updates, %ld reflections, "
               "%ld time requests; results %s\n",
               name, st.t_final, st.steps, st.updates, st.reflections, st.requests,
               st.csv[0] ? st.csv : "(none)");
    return 0;
}
