/* A federation file's FMUs as port slaves in this process: every federate's FMU opened with its
 * parameters and solver settings, wrapped as an fmu_slave, its inputs linked to the outputs
 * that feed them (port_link). A master-slave algorithm (algorithms/wr.h) then runs over the
 * returned port_master exactly as it runs over distributed slaves. doc/algorithms/port.md,
 * doc/algorithms/waveform-relaxation.md ("Running in one process"). Read local.c next.
 */
#ifndef TEMPO_FEDERATE_MASTER_LOCAL_H
#define TEMPO_FEDERATE_MASTER_LOCAL_H

#include <stddef.h>
#include <stdio.h>

#include "algorithms/port.h"
#include "algorithms/wr.h"
#include "federate/config/fedfile.h"
#include "federate/fmu/fmu_slave.h"

#define MASTER_LOCAL_ERRLEN 1024 /* enough for every message of this module */

/* Called at every committed step of federate `fed` with its n recorded variables (the file's
 * "record", default its outputs) at t seconds; vals is valid during the call only. */
typedef void master_local_row_fn(void *ctx, size_t fed, double t, size_t n, const double *vals);

/** Options; all-zero means: the kind the FMU file offers (CS when present), no CSV, no hook. */
typedef struct master_local_opts {
    fmu_kind kind;            /* FMU_KIND_AUTO, FMU_KIND_CS or FMU_KIND_ME for every FMU */
    const char *csv_dir;      /* not NULL: "<csv_dir>/<federate>.csv" per federate (doc/run.md
                                 format), and "<csv_dir>/master.csv" of the algorithm's notes */
    master_local_row_fn *row; /* NULL: none */
    void *row_ctx;            /* handed to row */
} master_local_opts;

typedef struct master_local master_local;

/**
 * Open every federate of ff as a slave in this process, at ff->algo.start.
 * @param ff     a loaded federation file, not NULL; must outlive the result
 * @param o      options, NULL for the defaults
 * @param out    out: the set, freed with master_local_free; NULL on failure
 * @param err    caller-owned buffer naming the federate and FMU at fault; errlen its size
 * @return PORT_OK; PORT_EFAIL (an FMU failed to open or does not fit the file: err says
 *         which); PORT_EUSAGE (a CSV could not be created); PORT_ENOMEM.
 */
int master_local_open(const fedfile *ff, const master_local_opts *o, master_local **out, char *err,
                      size_t errlen);

/** The master over the slaves (in-process instant clock; note writes master.csv when asked):
 * tick = ff->resolution, t_start/t_end of ff->algo. Owned by ml. */
const port_master *master_local_port(const master_local *ml);

/** The links of every input, slave by slave (port_link), from the wiring (every input of a
 * loaded file has a publisher). Owned by ml; NULL when no inputs; *n receives their number. */
const port_link *master_local_links(const master_local *ml, size_t *n);

/** Federate j's FMU and slave (j < number of federates); owned by ml. */
fmu_step *master_local_fmu(const master_local *ml, size_t j);
fmu_slave *master_local_slave(const master_local *ml, size_t j);

/**
 * Run the file's algorithm ("wr" only, so far) over the local slaves.
 * @param res  out: the WR result (wr_result_fini), not NULL
 * @param err  on failure the algorithm's report, followed by the failing slave's own message
 * @return the status of wr_run, or PORT_EUSAGE for another method.
 */
int master_local_run(master_local *ml, wr_result *res, char *err, size_t errlen);

/** Close the CSV files, free the slaves and close the FMUs. Accepts NULL. */
void master_local_free(master_local *ml);

#endif /* TEMPO_FEDERATE_MASTER_LOCAL_H */
