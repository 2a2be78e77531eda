/* tempo-log: reads a federation log and prints it as a timeline, statistics, JSON lines, a
 * Chrome/Perfetto trace, CSV, or an explanation of who waits for whom, or replays one
 * federate against it (doc/log.md). This file parses the command line and
 * dispatches; usage and output formats: doc/log.md.
 * Read rti/tlog/tlog_impl.h next. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rti/tlog/tlog_impl.h"

/* One help text per subcommand: `tempo-log SUBCOMMAND --help` prints its own, `tempo-log
 * --help` all of them. */
static const struct {
    const char *cmd, *text;
} sub_help[] = {
    {"show",
     "  show LOG [filters]  readable timeline, one record a line; filters (all optional):\n"
     "      --federate NAME   records of this federate only\n"
     "      --kind TYPE       a record kind, message type or decision (RECV, UPDATE,\n"
     "                        GRANT, ...)\n"
     "      --class NAME      an object class or interaction, subclasses included\n"
     "      --from S, --to S  a logical time window, in seconds\n"
     "      --wall-from S, --wall-to S  a wall-clock window, seconds since the log started\n"},
    {"stats",
     "  stats LOG [--run N]  per federate counts, grants, time waiting for grants, messages by\n"
     "      kind (of one run when the log holds several: the last unless --run N)\n"},
    {"json", "  json LOG [--federate NAME] [--from S] [--to S]  JSON lines: the header, one\n"
             "      record a line, then an END or CUT line\n"},
    {"trace", "  trace LOG [--federate NAME] [--from S] [--to S]  Chrome trace-event JSON (open\n"
              "      it in Perfetto or chrome://tracing); waits for grants as spans\n"},
    {"csv", "  csv LOG [--federate NAME] [--from S] [--to S]  attribute values over logical\n"
            "      time, one column per object attribute (--federate: the ones it updates)\n"},
    {"explain", "  explain LOG [--at SEQ] [--run N]  each federate's time, pending request and\n"
                "      the federate holding its GALT, followed to the root cause (at the end of\n"
                "      the log or of run N, or just after record number SEQ with --at); a\n"
                "      federate polling without progress counts as waiting\n"},
    {"replay", "  replay LOG --federate NAME [--port P] [--timeout S] -- COMMAND [ARGS...]\n"
               "      a stand-in RTI plays the record to one real federate, started as COMMAND;\n"
               "      {rti} and {port} in ARGS become its address; reports the first divergence\n"
               "      --federate NAME  the federate to replay (required unless --handle)\n"
               "      --run N          the run it joined in, when the log holds several\n"
               "                       (default: the last)\n"
               "      --handle H       the federate by its handle (tempo-log show prints them)\n"
               "      --port P         the stand-in's TCP port (default 0: any free port)\n"
               "      --timeout S      longest wait for the federate, seconds (default 10)\n"},
};
#define N_SUBS (sizeof sub_help / sizeof sub_help[0])

static const char usage_tail[] =
    "Options of every form: --help (this text, or one subcommand's: tempo-log show --help),\n"
    "--version.\n"
    "Exit status: 0 done (a cut log is read up to the cut and says so on stderr),\n"
    "1 the log cannot be read, 2 usage error, 3 replay diverged.\n"
    "Format and details: doc/log.md\n";

/* The help of subcommand cmd, or of all of them when cmd is NULL. */
static void usage(FILE *f, const char *cmd)
{
    fputs(cmd ? "usage: tempo-log " : "usage: tempo-log SUBCOMMAND LOG [options]\n", f);
    for (size_t i = 0; i < N_SUBS; i++)
        if (!cmd || strcmp(cmd, sub_help[i].cmd) == 0)
            fputs(cmd ? sub_help[i].text + 2 : sub_help[i].text, f);
    fputs(usage_tail, f);
}

/* Parse the options of every subcommand but replay (check_options has checked that each one
 * belongs to the subcommand and has its value). 0, or -1 after printing the reason. */
static int parse_opts(struct tlog *t, int argc, char **argv, struct tlog_filter *f, uint64_t *at,
                      uint32_t *run)
{
    for (int i = 3; i < argc; i += 2) { /* options come in pairs: --name value */
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int64_t ticks;
        if (!v) return -1; /* check_options said it */
        if (strcmp(o, "--at") == 0 || strcmp(o, "--run") == 0) {
            char *end;
            unsigned long long n = strtoull(v, &end, 10);
            int is_run = o[2] == 'r';
            if (*end || end == v || (is_run && (n == 0 || n > UINT32_MAX))) {
                fprintf(stderr, "tempo-log: %s wants %s, not '%s'\n", o,
                        is_run ? "a run number from 1" : "a record sequence number", v);
                return -1;
            }
            if (is_run)
                *run = (uint32_t)n;
            else
                *at = n;
        } else if (strcmp(o, "--federate") == 0) {
            f->federate = v;
        } else if (strcmp(o, "--kind") == 0) {
            f->kind = v;
        } else if (strcmp(o, "--class") == 0) {
            f->cls = v;
            if (!t->fom)
                fprintf(stderr, "tempo-log: note: --class needs the FOM, which is unusable: %s\n",
                        t->fom_err);
            else if (!fom_class_find(t->fom, v) && !fom_inter_find(t->fom, v))
                fprintf(stderr, "tempo-log: note: the FOM has no class or interaction '%s'\n", v);
        } else if (strcmp(o, "--from") == 0 || strcmp(o, "--to") == 0 ||
                   strcmp(o, "--wall-from") == 0 || strcmp(o, "--wall-to") == 0) {
            int wall = o[2] == 'w';
            struct tlog wt = {.resolution = 1e-9};
            if (tlog_parse_secs(wall ? &wt : t, v, &ticks) != 0) {
                fprintf(stderr, "tempo-log: %s wants seconds, not '%s'\n", o, v);
                return -1;
            }
            int from = strstr(o, "from") != NULL;
            if (wall && from)
                f->has_wfrom = 1, f->wfrom = ticks;
            else if (wall)
                f->has_wto = 1, f->wto = ticks;
            else if (from)
                f->has_from = 1, f->from = ticks;
            else
                f->has_to = 1, f->to = ticks;
        } else {
            return -1; /* check_options said it */
        }
    }
    return 0;
}

/* The options each subcommand takes (every one with a value), for check_options. */
static const char *const options_of[][9] = {
    {"show", "--federate", "--kind", "--class", "--from", "--to", "--wall-from", "--wall-to"},
    {"explain", "--at", "--run"},
    {"stats", "--run"},
    {"trace", "--federate", "--from", "--to"},
    {"csv", "--federate", "--from", "--to"},
    {"json", "--federate", "--from", "--to"},
    {"replay", "--federate", "--port", "--timeout", "--run", "--handle"},
};

/* Before the log is read: every option of subcommand cmd (argv[3..], up to replay's "--")
 * is one it takes and has its value. 0, or -1 after printing the argument at fault. */
static int check_options(const char *cmd, int argc, char **argv)
{
    const char *const *names = NULL;
    for (size_t k = 0; k < sizeof options_of / sizeof options_of[0]; k++)
        if (strcmp(cmd, options_of[k][0]) == 0) names = options_of[k] + 1;
    for (int i = 3; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
        int known = 0;
        for (size_t k = 0; names && k < 8 && names[k]; k++)
            known |= strcmp(argv[i], names[k]) == 0;
        if (!known) {
            fprintf(stderr, "tempo-log: %s: unknown option '%s' (see tempo-log %s --help)\n", cmd,
                    argv[i], cmd);
            return -1;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "tempo-log: %s: option %s needs a value\n", cmd, argv[i]);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout, NULL);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        printf("tempo-log %s\n", TEMPO_VERSION);
        return 0;
    }
    if (argc < 2) {
        usage(stderr, NULL);
        return 2;
    }
    const char *cmd = argv[1];
    int known = 0;
    for (size_t i = 0; i < N_SUBS; i++)
        if (strcmp(cmd, sub_help[i].cmd) == 0) known = 1;
    if (!known) {
        fprintf(stderr, "tempo-log: unknown subcommand '%s' (see tempo-log --help)\n", cmd);
        return 2;
    }
    /* SUBCOMMAND ... --help (or --version) anywhere before replay's "--". */
    for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout, cmd);
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0) {
            printf("tempo-log %s\n", TEMPO_VERSION);
            return 0;
        }
    }
    if (argc < 3 || argv[2][0] == '-') {
        fprintf(stderr, "tempo-log: %s needs a LOG file first%s%s (see tempo-log %s --help)\n", cmd,
                argc < 3 ? "" : ", not ", argc < 3 ? "" : argv[2], cmd);
        return 2;
    }
    if (check_options(cmd, argc, argv) != 0) return 2;
    struct tlog t;
    char err[FLOG_ERR_LEN + 64];
    if (tlog_load(&t, argv[2], err, sizeof err) != 0) {
        fprintf(stderr, "tempo-log: %s\n", err);
        return 1;
    }
    struct tlog_filter f = {0};
    uint64_t at = 0;
    uint32_t run = 0;
    int is_show = strcmp(cmd, "show") == 0, is_explain = strcmp(cmd, "explain") == 0;
    if (strcmp(cmd, "replay") == 0) {
        int rc = tlog_replay(&t, argc - 3, argv + 3, stdout);
        fflush(stdout);
        tlog_report_cut(&t);
        tlog_fini(&t);
        return rc;
    }
    if (parse_opts(&t, argc, argv, &f, &at, &run) != 0) {
        tlog_fini(&t);
        return 2;
    }
    if (f.federate && !tlog_fed_find(&t, f.federate))
        fprintf(stderr, "tempo-log: note: no federate named '%s' joined in this log\n", f.federate);
    /* explain and stats read one run of a log that holds several (the last unless --run) */
    if ((is_explain || strcmp(cmd, "stats") == 0) &&
        tlog_select_run(&t, run, is_explain ? stdout : stderr) != 0) {
        tlog_fini(&t);
        return 2;
    }
    int rc;
    if (is_show)
        rc = tlog_show(&t, &f, stdout);
    else if (is_explain)
        rc = tlog_explain(&t, at, stdout);
    else if (strcmp(cmd, "stats") == 0)
        rc = tlog_stats(&t, stdout);
    else if (strcmp(cmd, "json") == 0)
        rc = tlog_json(&t, &f, stdout);
    else if (strcmp(cmd, "trace") == 0)
        rc = tlog_trace(&t, &f, stdout);
    else
        rc = tlog_csv(&t, &f, stdout);
    if (fflush(stdout) != 0 && rc == 0) {
        perror("tempo-log: write");
        rc = 1;
    }
    tlog_report_cut(&t);
    tlog_fini(&t);
    return rc;
}
