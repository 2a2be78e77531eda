/* One FMU, stepped in this process, as a slave of the port (algorithms/port.h): the in-process
 * side of every master-slave algorithm, and the peer algorithms' own model. Operations run at
 * once; collect returns their accumulated status. doc/algorithms/port.md describes the port.
 * Read federate/fmu/fmu_slave.c next. */
#ifndef TEMPO_FEDERATE_FMU_FMU_SLAVE_H
#define TEMPO_FEDERATE_FMU_FMU_SLAVE_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/port.h"
#include "federate/fmu/fmu_step.h"

typedef struct fmu_slave fmu_slave;

/* Called by the record operation: write one results row of the slave at logical time t. */
typedef int fmu_slave_record_fn(void *ctx, int64_t t);

/** What an fmu_slave wraps; the arrays are copied, the fmu_step is borrowed. */
typedef struct fmu_slave_opts {
    const char *name;                 /* for messages; copied */
    fmu_step *fmu;                    /* an opened FMU at time t_now; borrowed, not closed */
    size_t n_in;                      /* Real inputs, in the wiring's order */
    const fmi2ValueReference *in_vr;  /* n_in value references */
    size_t n_out;                     /* Real outputs, in the wiring's order */
    const fmi2ValueReference *out_vr; /* n_out value references */
    int64_t t_now;                    /* the FMU's current time, ticks */
    double tick;                      /* seconds per tick, > 0 */
    fmu_slave_record_fn *record;      /* NULL: record does nothing */
    void *record_ctx;                 /* handed to record */
} fmu_slave_opts;

/**
 * Wrap an opened FMU as a port slave.
 * @param o   options, not NULL; o->fmu not NULL, o->tick > 0
 * @param out receives the new slave (fmu_slave_free), NULL on failure
 * @param ps  filled with the ops table, the context and the slave's info (valid while the
 *            fmu_slave lives)
 * @return PORT_OK, PORT_EUSAGE (bad options), PORT_ENOMEM.
 */
int fmu_slave_new(const fmu_slave_opts *o, fmu_slave **out, port_slave *ps);

/** Free the slave and its saved states (the FMU itself stays open). Accepts NULL. */
void fmu_slave_free(fmu_slave *s);

/** The message of the last failed operation ("" when none); owned by s. */
const char *fmu_slave_errmsg(const fmu_slave *s);

/** The slave's current logical time, ticks. */
int64_t fmu_slave_time(const fmu_slave *s);

/**
 * Event mode, for the hybrid master (doc/algorithms/hybrid.md): from now on a step stops at
 * its first event (ME: located by CVODE root finding, or a time or step event; CS: an early
 * return, fmu_step_set_event_stop), carried on to the next whole tick: the step reports
 * res->event = 1 with t_reached that tick, and port_sync returns PORT_EVENT.
 * @param on 1 on, 0 off (the default)
 */
void fmu_slave_set_event_stop(fmu_slave *s, int on);

#endif /* TEMPO_FEDERATE_FMU_FMU_SLAVE_H */
