/* tempo-run's checkpoints: the options (--checkpoint-every, --checkpoint-at, --resume, --set),
 * what is checked before anything starts, the options handed to the federates, the restore of
 * the federation at the RTI tempo-run starts, and the cost printed at the end. Serves
 * doc/run.md ("Checkpoints") and doc/checkpoint.md; read federate/fmufed/fmufed_tp.c next (who
 * asks for the saves). Private to tempo-run: not installed.
 */
#ifndef TEMPO_FEDERATE_RUN_RUN_CKPT_H
#define TEMPO_FEDERATE_RUN_RUN_CKPT_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include "federate/config/fedfile.h"

#define RUN_CKPT_MAX 64 /* --checkpoint-at and --set given at most this often */

typedef struct run_ckpt {
    double every;            /* --checkpoint-every, s; 0: none */
    double at[RUN_CKPT_MAX]; /* --checkpoint-at, s */
    size_t n_at;
    const char *resume;      /* --resume CKPT, or NULL */
    char *set[RUN_CKPT_MAX]; /* --set FED.VAR=VALUE */
    size_t n_set;
    char dir[PATH_MAX]; /* where the RTI writes them: OUTPUT/checkpoints */
    char every_s[32];   /* the seconds as handed to the federates */
    char at_s[RUN_CKPT_MAX][32];
    /* The outcomes the first federate reported ("checkpoint ..." lines). */
    long n_saved, n_failed;
    double seconds, seconds_max; /* wall time from a part to the outcome: sum, largest */
    unsigned long long bytes;    /* the checkpoints' sizes, summed */
    char last[PATH_MAX];         /* the last checkpoint saved */
    char failure[600];           /* the first failure's line */
} run_ckpt;

/**
 * One command-line option of tempo-run, when it is a checkpoint option.
 * @return 1 consumed (with its value), 0 not a checkpoint option, -1 bad value (err set).
 */
int run_ckpt_arg(run_ckpt *c, const char *opt, const char *val, char *err, size_t errlen);

/** Were checkpoints asked for (instants, or a resume)? */
int run_ckpt_asked(const run_ckpt *c);

/**
 * Before anything starts: without --checkpoint-* options, the file's "checkpoint" key gives
 * the instants; a master method is refused (its checkpoints are not built); every
 * FMU must serialize its state (named when it cannot); --set needs --resume and names a
 * federate of the file; the checkpoint's own folder is checked (its MANIFEST's time); the
 * folder OUTPUT/checkpoints is made, and refused when it holds a checkpoint this run would
 * write again (a later one of the run the resume continues, or any for a fresh run).
 * @return 0, or -1 with err naming the federate, file or folder at fault.
 */
int run_ckpt_prepare(run_ckpt *c, const fedfile *ff, const char *outdir, char *err, size_t errlen);

/**
 * Append the options of one tempo-fmu (or of tempo-fmu --all: all = 1) to argv from index k.
 * argv must have room for 6 + 2 * (n_at + n_set) more entries (and the NULL).
 * @return the new k.
 */
int run_ckpt_child_args(const run_ckpt *c, char **argv, int k, int all);

/**
 * Restore the federation from c->resume at the RTI at addr (distributed runs; an in-process
 * run restores it in tempo-fmu --all).
 * @return 0, or -1 with err naming the checkpoint and the fault.
 */
int run_ckpt_restore(const run_ckpt *c, const fedfile *ff, const char *addr, char *err,
                     size_t errlen);

/** A federate's stdout line: when it reports a save ("checkpoint LABEL T saved|failed S
 *  DETAIL"), record it. @return 1 when it was one, else 0. */
int run_ckpt_line(run_ckpt *c, const char *line);

/** Print the cost of the checkpoints written (count, time, size, the last folder). */
void run_ckpt_report(const run_ckpt *c, FILE *out);

#endif
