/* tempo-run --profile: the federates' "profile" lines (tempo-fmu --profile, fmufed_prof.h)
 * gathered into one table and a Perfetto trace. Serves doc/run.md "Where the time goes".
 * Read federate/run/run_prof.c next. */
#ifndef TEMPO_FEDERATE_RUN_RUN_PROF_H
#define TEMPO_FEDERATE_RUN_RUN_PROF_H

#include <stddef.h>
#include <stdio.h>

#define RUN_PROF_PARTS 5 /* model, wait, messaging, recording, other (the lines' order) */

/** One federate's profile as its line gave it. */
typedef struct run_prof_fed {
    int have;                    /* 1: its line was read */
    long steps;                  /* instants */
    double wall[RUN_PROF_PARTS]; /* s */
    double cpu[RUN_PROF_PARTS];  /* s */
    double waited;               /* s, requests to grants, inclusive */
} run_prof_fed;

/**
 * Read one child's output line: a "profile NAME steps=N model=W/C wait=W/C waited=W
 * messaging=W/C recording=W/C other=W/C" line fills the entry of the federate it names.
 * @param feds  n entries by federate index
 * @param names the n federate names (the file's order)
 * @return 1 when the line was such a line (consumed, even for an unknown name), else 0.
 */
int run_prof_line(run_prof_fed *feds, const char *const *names, size_t n, const char *line);

/**
 * The table: per federate, ms of wall / CPU time per part, µs per instant, and the total;
 * federates without a line are named as such.
 */
void run_prof_print(FILE *out, const run_prof_fed *feds, const char *const *names, size_t n);

/**
 * The same as a Chrome trace-event file (the JSON of tempo-log trace, doc/log.md), one track
 * per federate with its parts laid end to end from 0 ("ph":"X", their wall time as the
 * duration, args wall_s, cpu_s, us_per_instant). 0, or -1 with the reason in err.
 */
int run_prof_trace(const char *path, const run_prof_fed *feds, const char *const *names, size_t n,
                   char *err, size_t errlen);

#endif
