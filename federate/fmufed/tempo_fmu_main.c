/* tempo-fmu: the FMU program, two modes: --simulate (one FMU alone, no RTI; doc/fmu.md) and
 * --federation FILE --name X (one federate of a federation file; doc/guide.md item 3, handed
 * whole to fmufed_main). Only argument parsing lives here.
 * Read next: federate/fmu/fmu_sim.c, federate/fmufed/fmufed.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/fmu/fmu_guard.h"
#include "federate/fmu/fmu_info.h"
#include "federate/fmu/fmu_sim.h"
#include "federate/fmu/fmu_zip.h"
#include "federate/fmufed/fmufed.h"

static const char usage[] =
    "usage: tempo-fmu --simulate FILE.fmu [options]      one FMU alone, no RTI (doc/fmu.md)\n"
    "       tempo-fmu --federation FILE.json --name FEDERATE [options]\n"
    "                 one federate of a federation file (tempo-fmu --federation F --help)\n"
    "       tempo-fmu --info FILE.fmu [--json]               what an FMU contains (doc/fmu.md)\n"
    "Options of --simulate:\n"
    "  --start T0        start time (default: the FMU's DefaultExperiment, else 0)\n"
    "  --stop T1         stop time (default: the FMU's DefaultExperiment, else T0 + 1)\n"
    "  --step H          communication (and output) step (default: DefaultExperiment's\n"
    "                    stepSize, else (T1 - T0) / 500)\n"
    "  --input CSV       Real inputs over time: a \"time,name,...\" CSV, linear between rows\n"
    "                    (FMI 3.0: any input type, the others held between rows)\n"
    "  --hold            hold each input row's values until the next row instead\n"
    "  --set name=value  set a parameter, or an input held constant, before initialization\n"
    "                    (repeatable); FMI 3.0: \"A[1,2]=v\" an element, A=\"v1 v2 ...\" a\n"
    "                    whole array, a structural parameter resizes its arrays\n"
    "  --out OUT.csv     write the results there (default: stdout)\n"
    "  --me, --cs        use the model-exchange or co-simulation interface (default: CS\n"
    "                    when the FMU has it)\n"
    "  --rtol R, --atol A  CVODE tolerances for model exchange (> 0)\n"
    "  --adams           CVODE Adams-Moulton instead of BDF\n"
    "  --max-step H      largest internal CVODE step (> 0)\n"
    "  --states          also write the continuous states that are not outputs\n"
    "  --event-mode      FMI 3.0 co-simulation: handle the FMU's events in event mode\n"
    "                    (when it has it), a row before and after each, as fmusim\n"
    "                    --event-mode-used\n"
    "  --record-intermediate-values  FMI 3.0 co-simulation: also a row at each\n"
    "                    intermediate update inside a step (when the FMU provides them)\n"
    "  --exact           write numbers in the shortest form that reads back to the same\n"
    "                    bits (default: as fmusim writes them, %.16g; Float32 %.7g)\n"
    "  --early-return    FMI 3.0 co-simulation: the FMU may end a step early (at an\n"
    "                    event it handles inside), which gets a row at that time\n"
    "  --verbose         print every FMU log line (default: warnings and errors)\n"
    "  fmusim's names work too: --start-time, --stop-time, --output-interval,\n"
    "  --input-file, --output-file, --event-mode-used, --tolerance (= --rtol),\n"
    "  --early-return-allowed (= --early-return),\n"
    "  --interface-type cs|me, --start-value NAME VALUE, and the FMU as the last argument\n"
    "  --help            print this text and exit\n"
    "  --version         print the version and exit\n"
    "Options of --info:\n"
    "  --json            the same as one JSON object, for scripts\n"
    "Exit status: 0 done, 1 the FMU or a file failed, 2 a bad command line.\n";

static int verbose;
static const char *info_path; /* --info FILE.fmu: describe it, run nothing */
static int info_json;         /* --json: the description as one JSON object */

static void log_line(void *ctx, int level, const char *inst, const char *cat, const char *msg)
{
    (void)ctx;
    if (level <= FMU_LOG_WARN || verbose)
        fprintf(stderr, "tempo-fmu: %s [%s]: %s\n", inst, cat[0] ? cat : "-", msg);
}

static int number(const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(*out)) {
        fprintf(stderr, "tempo-fmu: %s: \"%s\" is not a number\n", opt, s);
        return -1;
    }
    return 0;
}

/* The options of fmusim (the Modelica Association's Reference-FMUs simulator) that tempo-fmu
 * --simulate takes under their names too (doc/fmu.md §8). */
static const char *const fmusim_names[][2] = {
    {"--start-time", "--start"},     {"--stop-time", "--stop"},
    {"--output-interval", "--step"}, {"--input-file", "--input"},
    {"--output-file", "--out"},      {"--event-mode-used", "--event-mode"},
    {"--tolerance", "--rtol"},       {"--early-return-allowed", "--early-return"},
};

/* Parse argv into o (names/values arrays hold argv pointers, the split '=' is written in). */
static int parse(int argc, char **argv, fmu_sim_opts *o, const char **out_path, const char **names,
                 const char **values)
{
    int simulate = 0;
    size_t n_set = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        for (size_t k = 0; k < sizeof fmusim_names / sizeof *fmusim_names; k++)
            if (!strcmp(a, fmusim_names[k][0])) a = fmusim_names[k][1];
        if (!strcmp(a, "--start-value")) { /* fmusim's NAME VALUE, as --set NAME=VALUE */
            if (i + 2 >= argc)
                return fprintf(stderr, "tempo-fmu: --start-value needs a name and a value\n"), -1;
            names[n_set] = argv[i + 1];
            values[n_set++] = argv[i + 2];
            i += 2;
            continue;
        }
        if (!strcmp(a, "--interface-type")) { /* fmusim's cs|me, as --cs or --me */
            if (i + 1 >= argc || (strcmp(argv[i + 1], "cs") && strcmp(argv[i + 1], "me")))
                return fprintf(stderr, "tempo-fmu: --interface-type takes cs or me\n"), -1;
            a = argv[++i][0] == 'm' ? "--me" : "--cs";
        }
        /* fmusim's last argument: the FMU (as --simulate FILE) */
        if (i == argc - 1 && !simulate && a[0] != '-' && strlen(a) > 4 &&
            !strcmp(a + strlen(a) - 4, ".fmu")) {
            simulate = 1, o->fmu_path = a;
            continue;
        }
        int has_val = i + 1 < argc;
        const char *v = has_val ? argv[i + 1] : NULL;
        static const char *const with_value[] = {"--simulate", "--start",    "--stop", "--step",
                                                 "--input",    "--set",      "--out",  "--rtol",
                                                 "--atol",     "--max-step", "--info"};
        int needs = 0;
        for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++)
            needs |= strcmp(a, with_value[k]) == 0;
        if (needs && !has_val) {
            fprintf(stderr, "tempo-fmu: %s needs a value (see --help)\n", a);
            return -1;
        }
        if (needs) i++;
        double d;
        if (!strcmp(a, "--simulate"))
            simulate = 1, o->fmu_path = v;
        else if (!strcmp(a, "--start")) {
            if (number(a, v, &o->start)) return -1;
            o->has_start = 1;
        } else if (!strcmp(a, "--stop")) {
            if (number(a, v, &o->stop)) return -1;
            o->has_stop = 1;
        } else if (!strcmp(a, "--step")) {
            if (number(a, v, &o->step)) return -1;
            if (!(o->step > 0)) return fprintf(stderr, "tempo-fmu: --step must be > 0\n"), -1;
            o->has_step = 1;
        } else if (!strcmp(a, "--input"))
            o->input_csv = v;
        else if (!strcmp(a, "--out"))
            *out_path = v;
        else if (!strcmp(a, "--set")) {
            char *eq = strchr(argv[i], '=');
            if (!eq || eq == argv[i])
                return fprintf(stderr, "tempo-fmu: --set %s: expected name=value\n", v), -1;
            *eq = '\0';
            names[n_set] = argv[i];
            values[n_set++] = eq + 1;
        } else if (!strcmp(a, "--rtol") || !strcmp(a, "--atol") || !strcmp(a, "--max-step")) {
            if (number(a, v, &d)) return -1;
            if (!(d > 0)) return fprintf(stderr, "tempo-fmu: %s must be > 0\n", a), -1;
            *(a[2] == 'r' ? &o->fopts.rtol : a[2] == 'a' ? &o->fopts.atol : &o->fopts.max_step) = d;
        } else if (!strcmp(a, "--me") || !strcmp(a, "--cs")) {
            fmu_kind k = a[2] == 'm' ? FMU_KIND_ME : FMU_KIND_CS;
            if (o->fopts.kind && o->fopts.kind != k)
                return fprintf(stderr, "tempo-fmu: --me and --cs exclude each other\n"), -1;
            o->fopts.kind = k;
        } else if (!strcmp(a, "--hold"))
            o->interp = FMU_SIM_HOLD;
        else if (!strcmp(a, "--adams"))
            o->fopts.solver = FMU_SOLVER_ADAMS;
        else if (!strcmp(a, "--states"))
            o->with_states = 1;
        else if (!strcmp(a, "--exact"))
            o->fmusim_format = 0;
        else if (!strcmp(a, "--event-mode"))
            o->fopts.event_mode = 1;
        else if (!strcmp(a, "--early-return"))
            o->fopts.early_return = 1;
        else if (!strcmp(a, "--record-intermediate-values"))
            o->fopts.intermediate_update = 1;
        else if (!strcmp(a, "--verbose"))
            verbose = 1;
        else if (!strcmp(a, "--info"))
            info_path = v;
        else if (!strcmp(a, "--json"))
            info_json = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return fputs(usage, stdout), 1;
        else if (!strcmp(a, "--version"))
            return printf("tempo-fmu %s\n", TEMPO_VERSION), 1;
        else
            return fprintf(stderr, "tempo-fmu: unknown argument \"%s\" (see --help)\n", a), -1;
    }
    if (info_path && simulate)
        return fprintf(stderr, "tempo-fmu: --info and --simulate exclude each other\n"), -1;
    if (info_json && !info_path) return fprintf(stderr, "tempo-fmu: --json goes with --info\n"), -1;
    if (info_path) return 0;
    if (!simulate)
        return fprintf(stderr,
                       "tempo-fmu: no mode given (--simulate or --federation; see --help)\n"),
               -1;
    if (o->has_start && o->has_stop && o->stop < o->start)
        return fprintf(stderr, "tempo-fmu: --stop %g is before --start %g\n", o->stop, o->start),
               -1;
    o->fopts.n_params = n_set;
    o->fopts.param_names = names;
    o->fopts.param_values = values;
    return 0;
}

/* --info: the description only (unpacked with the usual checks, parsed, folder removed). */
static int info(const char *path)
{
    fmu_md *md = NULL;
    char err[FMU_ERR_LEN];
    if (fmu_load_md(path, NULL, &md, err, sizeof err))
        return fprintf(stderr, "tempo-fmu: %s\n", err), 1;
    int rc = fmu_info_write(path, md, info_json, stdout);
    fmu_md_free(md);
    if (rc) fprintf(stderr, "tempo-fmu: --info: writing failed\n");
    return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
    /* SIGINT/SIGTERM/SIGHUP (Ctrl-C, tempo-run stopping its federates) remove the unpacked
     * FMU folders before the process ends (doc/fmu.md §1). */
    fmu_zip_remove_on_signals();
    /* An FMU that calls exit() or crashes in the middle of the run is a failed run that names
     * it (doc/robustness.md, "Faults inside an FMU"); installed before any other exit handler
     * so that those run first. */
    fmu_guard_install("tempo-fmu");
    /* Federate mode: its options are fmufed_main's (federate/fmufed/fmufed_cli.c). */
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--federation")) return fmufed_main(argc, argv);
    fmu_sim_opts o = {.fmusim_format = 1}; /* numbers as fmusim writes them; --exact */
    const char *out_path = NULL;
    const char **names = calloc((size_t)argc + 1, sizeof *names);
    const char **values = calloc((size_t)argc + 1, sizeof *values);
    if (!names || !values) return fputs("tempo-fmu: out of memory\n", stderr), 1;
    int rc = parse(argc, argv, &o, &out_path, names, values);
    if (rc) {
        free(names), free(values);
        return rc < 0 ? 2 : 0;
    }
    if (info_path) {
        free(names), free(values);
        return info(info_path);
    }
    o.fopts.log = log_line;
    o.summary = stderr;
    FILE *out = stdout;
    if (out_path && !(out = fopen(out_path, "w"))) {
        fprintf(stderr, "tempo-fmu: --out %s: %s\n", out_path, strerror(errno));
        free(names), free(values);
        return 1;
    }
    /* One row per write: a crash leaves whole rows behind (doc/robustness.md). */
    setvbuf(out, NULL, _IOLBF, 0);
    char err[FMU_ERR_LEN];
    fmu_guard_run(1, o.fmu_path);
    rc = fmu_sim_run(&o, out, err, sizeof err);
    fmu_guard_run(0, NULL);
    if (err[0]) fprintf(stderr, "tempo-fmu: %s\n", err);
    if (out != stdout && fclose(out) != 0 && !rc) {
        fprintf(stderr, "tempo-fmu: --out %s: %s\n", out_path, strerror(errno));
        rc = 1;
    }
    free(names), free(values);
    return rc;
}
