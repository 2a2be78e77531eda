/* The settings of method "defect-control" (federate/config/algo_defect.c, doc/federation.md)
 * as the master and the in-process runner examples/defect_run.c take them. Read algo_defect.c
 * next.
 */
#ifndef TEMPO_FEDERATE_CONFIG_ALGO_DEFECT_H
#define TEMPO_FEDERATE_CONFIG_ALGO_DEFECT_H

#include <stddef.h>

#include "algorithms/defect_master.h"
#include "algorithms/port.h"
#include "federate/config/fedfile.h"

/** The defect-control settings of a "defect-control" file as dc_run takes them, with the
 *  caller's @p n_links couplings (caller-owned, read during dc_run). No errors: the values were
 *  checked when the file was loaded. */
dc_config fedfile_dc_config(const fedfile *ff, const port_link *links, size_t n_links);

#endif
