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

static void usage(FILE *f)
{
    fprintf(
        f, "usage: tempo-log SUBCOMMAND LOG [options]\n"
           "  show LOG     readable timeline; filters:\n"
           "               --federate NAME  --kind TYPE (record kind, message type or\n"
           "               decision: RECV, UPDATE, GRANT, ...)  --class NAME (object class\n"
           "               or interaction, subclasses included)  --from S --to S (logical\n"
           "               time window, seconds)  --wall-from S --wall-to S (seconds since\n"
           "               the log started)\n"
           "  stats LOG    per federate counts, grants, time waiting for grants, messages by kind\n"
           "  json LOG     JSON lines: the header, one record a line, then an END or CUT line\n"
           "  trace LOG    Chrome trace-event JSON (open it in Perfetto or chrome://tracing)\n"
           "  csv LOG      attribute values over logical time, one column per object attribute\n"
           "  explain LOG [--at SEQ]  each federate's time, pending request and the federate\n"
           "               holding its GALT, followed to the root cause (at the end or at SEQ)\n"
           "  replay LOG --federate NAME [--port P] [--timeout S] -- COMMAND [ARGS...]\n"
           "               stand-in RTI playing the record to one real federate; {rti} and\n"
           "               {port} in ARGS become its address; reports the first divergence\n"
           "Exit status: 0 done (a cut log is read up to the cut and says so on stderr),\n"
           "1 the log cannot be read, 2 usage error, 3 replay diverged.\n"
           "Format and details: doc/log.md\n");
}

/* Parse the options of `show` / `explain`. 0, or -1 after printing the reason. */
static int parse_opts(struct tlog *t, int argc, char **argv, struct tlog_filter *f, uint64_t *at,
                      int is_explain)
{
    for (int i = 3; i < argc; i += 2) { /* options come in pairs: --name value */
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int64_t ticks;
        if (!v) {
            fprintf(stderr, "tempo-log: option %s needs a value (or is unknown)\n", o);
            return -1;
        }
        if (is_explain && strcmp(o, "--at") == 0) {
            char *end;
            unsigned long long s = strtoull(v, &end, 10);
            if (*end || end == v) {
                fprintf(stderr, "tempo-log: --at wants a record sequence number, not '%s'\n", v);
                return -1;
            }
            *at = s;
        } else if (!is_explain && strcmp(o, "--federate") == 0) {
            f->federate = v;
            if (!tlog_fed_find(t, v))
                fprintf(stderr, "tempo-log: note: no federate named '%s' joined in this log\n", v);
        } else if (!is_explain && strcmp(o, "--kind") == 0) {
            f->kind = v;
        } else if (!is_explain && strcmp(o, "--class") == 0) {
            f->cls = v;
            if (!t->fom)
                fprintf(stderr, "tempo-log: note: --class needs the FOM, which is unusable: %s\n",
                        t->fom_err);
            else if (!fom_class_find(t->fom, v) && !fom_inter_find(t->fom, v))
                fprintf(stderr, "tempo-log: note: the FOM has no class or interaction '%s'\n", v);
        } else if (!is_explain && (strcmp(o, "--from") == 0 || strcmp(o, "--to") == 0 ||
                                   strcmp(o, "--wall-from") == 0 || strcmp(o, "--wall-to") == 0)) {
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
            fprintf(stderr, "tempo-log: unknown option '%s'\n", o);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc < 3) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    static const char *const cmds[] = {"show", "stats",   "json",  "trace",
                                       "csv",  "explain", "replay"};
    int known = 0;
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (strcmp(cmd, cmds[i]) == 0) known = 1;
    if (!known) {
        fprintf(stderr, "tempo-log: unknown subcommand '%s'\n", cmd);
        usage(stderr);
        return 2;
    }
    struct tlog t;
    char err[FLOG_ERR_LEN + 64];
    if (tlog_load(&t, argv[2], err, sizeof err) != 0) {
        fprintf(stderr, "tempo-log: %s\n", err);
        return 1;
    }
    struct tlog_filter f = {0};
    uint64_t at = 0;
    int is_show = strcmp(cmd, "show") == 0, is_explain = strcmp(cmd, "explain") == 0;
    if (strcmp(cmd, "replay") == 0) {
        int rc = tlog_replay(&t, argc - 3, argv + 3, stdout);
        fflush(stdout);
        tlog_report_cut(&t);
        tlog_fini(&t);
        return rc;
    }
    if (!is_show && !is_explain && argc > 3) {
        fprintf(stderr, "tempo-log: %s takes no options ('%s')\n", cmd, argv[3]);
        tlog_fini(&t);
        return 2;
    }
    if ((is_show || is_explain) && parse_opts(&t, argc, argv, &f, &at, is_explain) != 0) {
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
        rc = tlog_json(&t, stdout);
    else if (strcmp(cmd, "trace") == 0)
        rc = tlog_trace(&t, stdout);
    else
        rc = tlog_csv(&t, stdout);
    if (fflush(stdout) != 0 && rc == 0) {
        perror("tempo-log: write");
        rc = 1;
    }
    tlog_report_cut(&t);
    tlog_fini(&t);
    return rc;
}
