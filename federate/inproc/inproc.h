/* The in-process runner: every federate of a federation file in one process, one thread each,
 * running the file's peer algorithm (algorithms/exchange.h) over an in-memory exchange whose
 * grants and deliveries are decided by the RTI's own time-management engine (rti/tm/tm.h,
 * linked as a library). The same algorithm code and the same FMU adapter as tempo-fmu, so the
 * results are identical bit for bit (tests/integration/inproc_same_test.c checks it).
 * doc/algorithms/port.md ("In one process"); read federate/inproc/inproc.c next, then
 * inproc_tm.c (the only file that includes the engine).
 */
#ifndef TEMPO_FEDERATE_INPROC_INPROC_H
#define TEMPO_FEDERATE_INPROC_INPROC_H

#include <stddef.h>

#include "federate/config/fedfile.h"
#include "federate/fmufed/fmufed.h"

#define INPROC_ERRLEN 2048 /* a buffer this size holds any message of this module */

/* Options of one run; all-zero means "as the federation file says". */
typedef struct inproc_opts {
    const char *output;   /* results folder overriding the file's "output"; the CSVs are
                             the same files tempo-fmu writes */
    int no_csv;           /* 1: write no CSV at all (rows still reach the hook) */
    fmufed_row_hook row;  /* every recorded row of every federate; NULL: none. Runs in
                             that federate's thread. */
    void *const *row_ctx; /* n_feds contexts, row_ctx[i] for federate i; may be NULL */
} inproc_opts;

/* What a run did, per federate (filled also on failure, as far as it got). */
typedef struct inproc_stats {
    long steps;       /* communication points of the algorithm */
    long requests;    /* time requests (FQR polls included) */
    long updates;     /* object updates sent */
    long reflections; /* input values received */
} inproc_stats;

/**
 * Run every federate of ff to the end time in this process.
 * @param ff     loaded file, not NULL; its algorithm must run on the peer side
 * @param opts   options, may be NULL
 * @param stats  NULL, or ff->n_feds entries
 * @param err    caller-owned buffer: the first failure, "federate NAME: what"
 * @param errlen its size (INPROC_ERRLEN)
 * @return FMUFED_OK, or the FMUFED_* code of the first failure (FMUFED_EFMU the FMU,
 *         FMUFED_ERTI the time management refused something, FMUFED_EUSAGE, FMUFED_EIO,
 *         FMUFED_ENOMEM). Starts one thread per federate and joins them all before returning.
 */
int inproc_run(const fedfile *ff, const inproc_opts *opts, inproc_stats *stats, char *err,
               size_t errlen);

#endif
