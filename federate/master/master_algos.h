/* The master algorithms tempo-master runs, one table entry each (federate/master/master_algos.c):
 * the file's method picks its entry, the entry runs the algorithm over the port and prints its
 * summary line. The same entry runs with --local (slaves in this process) and distributed
 * (ms_remote), so an algorithm added here runs both ways without a further change
 * (doc/master.md, "Adding a master algorithm"). Read federate/master/master_algos.c next.
 */
#ifndef TEMPO_FEDERATE_MASTER_MASTER_ALGOS_H
#define TEMPO_FEDERATE_MASTER_MASTER_ALGOS_H

#include <stddef.h>

#include "algorithms/port.h"
#include "federate/config/fedfile.h"
#include "federate/config/fedfile_master.h"

/* What one run is given: the loaded file, the port (its notes go to master.csv), the file's
 * couplings in federate and input order (fedfile_master_couplings), and whether to print the
 * summary line. */
typedef struct master_run {
    const fedfile *ff;
    const port_master *m;
    const fedfile_coupling *cp; /* NULL when n_cp is 0 */
    size_t n_cp;
    int quiet;
} master_run;

/* Run the algorithm of r->ff over r->m. Returns a port_status; on failure err names the slave
 * or the setting at fault. Prints one summary line on stdout unless r->quiet. */
typedef int (*master_algo_fn)(const master_run *r, char *err, size_t errlen);

typedef struct master_algo {
    fedfile_alg kind; /* the registry kind (federate/config/fedfile_algos.c) it runs */
    master_algo_fn run;
} master_algo;

/** The entry that runs kind, or NULL when tempo-master does not run it. */
const master_algo *master_algo_find(fedfile_alg kind);

/* The entries, one per file under federate/master/ (master_NAME.c). */
int master_run_wr(const master_run *r, char *err, size_t errlen);
int master_run_semi(const master_run *r, char *err, size_t errlen);
int master_run_jacobi(const master_run *r, char *err, size_t errlen);
int master_run_defect(const master_run *r, char *err, size_t errlen);
int master_run_f3ornits(const master_run *r, char *err, size_t errlen);
int master_run_strong(const master_run *r, char *err, size_t errlen);
int master_run_hybrid(const master_run *r, char *err, size_t errlen);
int master_run_balance(const master_run *r, char *err, size_t errlen); /* master_balance.c */
int master_run_energy(const master_run *r, char *err, size_t errlen);

#endif
