/* Federation files whose algorithm a master federate runs (doc/master.md, doc/federation.md):
 * which methods those are, the extra checks they need, and the couplings the master computes
 * from the wiring. Kept apart from fedfile.c so that new master methods touch one file.
 * Read federate/config/fedfile_master.c next.
 */
#ifndef TEMPO_FEDERATE_CONFIG_FEDFILE_MASTER_H
#define TEMPO_FEDERATE_CONFIG_FEDFILE_MASTER_H

#include <stddef.h>
#include <stdint.h>

#include "federate/config/fedfile.h"

/** 1 when the file's method is run by tempo-master (every federate is then a slave). */
int fedfile_is_master(const fedfile *ff);

/**
 * The last instant a master may open, ticks: ff->algo.t_end, or INT64_MAX when the method may
 * step past the end (defect-control without clip_end: the paper's last step ends at the first
 * T_k >= end, doc/algorithms/defect-control.md). The slaves wait for the next instant up to it
 * and their FMUs get no stop time when it is not the end.
 * @param ff loaded file, not NULL
 */
int64_t fedfile_master_horizon(const fedfile *ff);

/* One coupling the master performs: input `input` of federate `to` takes output `output` of
 * federate `from` (indices into the file's arrays). */
typedef struct fedfile_coupling {
    size_t to, input, from, output;
} fedfile_coupling;

/**
 * The couplings of a master file, in federate and input order, and its extra checks: no
 * federate is named "master" (the master's own name).
 * @param ff  loaded file, not NULL
 * @param out out: malloc'ed array (free()), NULL when there is none
 * @param n   out: its length
 * @return FEDFILE_OK, FEDFILE_ESCHEMA (err names the federate), FEDFILE_ENOMEM,
 *         FEDFILE_EUSAGE.
 */
int fedfile_master_couplings(const fedfile *ff, fedfile_coupling **out, size_t *n, char *err,
                             size_t errlen);

#endif
