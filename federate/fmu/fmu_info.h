/* What an FMU contains, for people and scripts (tempo-fmu --info [--json]): FMI kinds and their
 * capabilities, default experiment, continuous states, and every variable with causality,
 * variability, initial, type, start, unit and bounds. Serves doc/fmu.md §8c.
 * Read next: federate/fmu/fmu_info.c; federate/fmu/fmu_md.h for the fields. */
#ifndef TEMPO_FEDERATE_FMU_INFO_H
#define TEMPO_FEDERATE_FMU_INFO_H

#include <stdio.h>

#include "federate/fmu/fmu_md.h"

/**
 * Write a description of md (read from path) to out: aligned text, or one JSON object when
 * json is set (keys in doc/fmu.md §8c). Nothing is loaded or run.
 * @param path only printed; @param md the parsed description (fmu_load_md), not kept
 * @return 0; -1 when writing to out failed.
 */
int fmu_info_write(const char *path, const fmu_md *md, int json, FILE *out);

#endif /* TEMPO_FEDERATE_FMU_INFO_H */
