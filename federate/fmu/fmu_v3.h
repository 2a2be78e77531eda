/* FMI 3.0 behind the FMI 2.0-shaped calls of the stepping code: the binary's functions, the
 * instantiation, the adapters that fmu_file.fn holds for a 3.0 FMU, and typed access to every
 * FMI 3.0 type and array element by variable. Serves doc/fmu.md ("FMI 3.0").
 * Read next: federate/fmu/fmu_v3.c. */
#ifndef TEMPO_FEDERATE_FMU_V3_H
#define TEMPO_FEDERATE_FMU_V3_H

#include <stddef.h>

#include "federate/fmu/fmu_load.h"

typedef struct fmu_step fmu_step;

/** dlopen binaries/x86_64-linux/<id>.so of f (FMI 3.0), resolve f->fn3 (every function the
 * kind and the capabilities need, by name when one is missing), check fmi3GetVersion, and
 * fill f->fn with the adapters. @return 0; -1 with err naming what is missing. */
int fmu_v3_open(fmu_file *f, char *err, size_t errlen);

/** Options of an FMI 3.0 instantiation. */
typedef struct {
    int early_return;        /* CS: earlyReturnAllowed (the hybrid method's event stop) */
    int event_mode;          /* CS: eventModeUsed */
    int intermediate_update; /* CS: an intermediateUpdate callback (step's update hook) */
    int logging;             /* loggingOn */
    const int *event_stop;   /* CS: nonzero while the host stops steps at events; an early
                                return otherwise is carried on to the step's end. May be NULL */
    const fmu_md *md;        /* the instance's description (resized arrays), NULL: f->md */
    fmu_step *step;          /* CS with event mode: the handle whose event hook
                                (fmu_step_set_event_hook) runs before each event; may be NULL */
} fmu_v3_opts;

/** fmi3InstantiateCoSimulation or fmi3InstantiateModelExchange by f->kind, the resources
 * folder as a native path ending in '/'. @return the wrapper to use as the fmi2Component of
 * f->fn's adapters (freed by their FreeInstance), or NULL (the sink holds the FMU's message). */
fmi2Component fmu_v3_instantiate(fmu_file *f, const char *name, fmu_log_sink *sink,
                                 const fmu_v3_opts *o);

/** Variable v (an element of an array too) as text: numbers exact (Float64 and Float32 in the
 * shortest form that reads back, integers in full), Boolean 0/1, Binary in hexadecimal,
 * String as it is. @return an FMU_STEP_* code. */
int fmu_v3_get_text(fmu_step *s, const fmu_var *v, char *buf, size_t len);
/** Variable v as a double (every numeric type, Boolean 0/1). @return an FMU_STEP_* code;
 * EUSAGE for String, Binary and Clock. */
int fmu_v3_get_number(fmu_step *s, const fmu_var *v, double *out);
/** Sets variable v from text (numbers, true/false/1/0, any string, Binary in hexadecimal),
 * bounds checked. @return an FMU_STEP_* code (EUSAGE: not parsable, out of bounds, refused). */
int fmu_v3_set_text(fmu_step *s, const fmu_var *v, const char *text);

#endif /* TEMPO_FEDERATE_FMU_V3_H */
