/* Federation files whose algorithm a master federate runs (doc/master.md, doc/federation.md),
 * as the programs see them whatever the method: whether a master runs it (the value's side),
 * how far its instants go (FEDFILE_NEEDS_PAST_END), the links the master computes from the
 * wiring, and which couplings go slave to slave on the discrete bus (FEDFILE_NEEDS_BUS, the
 * value's on_bus). Nothing here names a method: a new master method adds nothing to this file
 * (doc/architecture.md, "Where a new coupling algorithm goes"). A method's own settings are
 * declared beside its value (federate/config/algo_NAME.h). Read federate/config/fedfile_master.c
 * next.
 */
#ifndef TEMPO_FEDERATE_CONFIG_FEDFILE_MASTER_H
#define TEMPO_FEDERATE_CONFIG_FEDFILE_MASTER_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/port.h"
#include "federate/config/fedfile.h"

/** 1 when the file's method is run by tempo-master (every federate is then a slave). */
int fedfile_is_master(const fedfile *ff);

/**
 * The last instant a master may open, ticks: ff->algo.t_end, or INT64_MAX when the method may
 * step past the end (FEDFILE_NEEDS_PAST_END: defect-control without clip_end, whose last step
 * ends at the first T_k >= end, doc/algorithms/defect-control.md). The slaves wait for the next
 * instant up to it and their FMUs get no stop time when it is not the end.
 * @param ff loaded file, not NULL
 */
int64_t fedfile_master_horizon(const fedfile *ff);

/**
 * The links of a master file (port_link: indices into the file's arrays), in federate and input
 * order, and its extra checks: no
 * federate is named "master" (the master's own name).
 * @param ff  loaded file, not NULL
 * @param out out: malloc'ed array (free()), NULL when there is none
 * @param n   out: its length
 * @return FEDFILE_OK, FEDFILE_ESCHEMA (err names the federate), FEDFILE_ENOMEM,
 *         FEDFILE_EUSAGE.
 */
int fedfile_master_links(const fedfile *ff, port_link **out, size_t *n, char *err, size_t errlen);

/**
 * The couplings of federate idx that go slave to slave on the discrete bus (FEDFILE_NEEDS_BUS:
 * the method's on_bus, e.g. hybrid's algorithm.hybrid.discrete, doc/algorithms/hybrid.md):
 * out[k] = 1 when its output k is carried on the bus, in[i] = 1 when its input i is wired to
 * such an output. All zero for a method without a bus.
 * @param ff loaded file, not NULL; idx < ff->n_feds
 * @param out NULL or n_outputs entries; @param in NULL or n_inputs entries (written)
 * @return the number of flags set.
 */
size_t fedfile_bus_flags(const fedfile *ff, size_t idx, unsigned char *out, unsigned char *in);

/**
 * Where a bus input of federate idx comes from (fedfile_bus_flags gives in[i] = 1): the
 * publishing federate *src and the position *k of that output among its bus outputs (the order
 * of get_discrete).
 * @return 0, or -1 when input i is not a bus input.
 */
int fedfile_bus_source(const fedfile *ff, size_t idx, size_t i, size_t *src, size_t *k);

#endif
