/* Federation files whose algorithm a master federate runs (doc/master.md, doc/federation.md):
 * which methods those are, the extra checks they need, and the links the master computes from
 * the wiring; and the accessors of two methods' settings that the slaves and the examples read
 * (hybrid: federate/config/algo_hybrid.c; defect-control: federate/config/algo_defect.c).
 * Read federate/config/fedfile_master.c next.
 */
#ifndef TEMPO_FEDERATE_CONFIG_FEDFILE_MASTER_H
#define TEMPO_FEDERATE_CONFIG_FEDFILE_MASTER_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/defect_master.h"
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
 * The hybrid method's discrete couplings seen from federate idx (algorithm.hybrid.discrete):
 * out[k] = 1 when its output k is listed as discrete-valued, in[i] = 1 when its input i is
 * wired to a listed attribute (then fed slave to slave, doc/algorithms/hybrid.md). All zero
 * for another method. In federate/config/algo_hybrid.c.
 * @param ff loaded file, not NULL; idx < ff->n_feds
 * @param out NULL or n_outputs entries; @param in NULL or n_inputs entries (written)
 * @return the number of flags set.
 */
size_t fedfile_hybrid_flags(const fedfile *ff, size_t idx, unsigned char *out, unsigned char *in);

/**
 * Where a discrete input of federate idx comes from (fedfile_hybrid_flags gives in[i] = 1):
 * the publishing federate *src and the position *k of that output among its discrete outputs
 * (the order of get_discrete).
 * @return 0, or -1 when input i is not a discrete input.
 */
int fedfile_hybrid_source(const fedfile *ff, size_t idx, size_t i, size_t *src, size_t *k);

/** The defect-control settings of a "defect-control" file as dc_run takes them (algo_defect.c),
 *  with the caller's @p n_links couplings (caller-owned, read during dc_run). No errors: the
 *  values were checked when the file was loaded. */
dc_config fedfile_dc_config(const fedfile *ff, const port_link *links, size_t n_links);

#endif
