/* One FMU, stepped in this process, as a slave of the port (algorithms/port.h): the in-process
 * side of every master-slave algorithm, and the peer algorithms' own model. Operations run at
 * once; collect returns their accumulated status. doc/algorithms/port.md describes the port.
 * Read federate/fmu/fmu_slave.c next. */
#ifndef TEMPO_FEDERATE_FMU_FMU_SLAVE_H
#define TEMPO_FEDERATE_FMU_FMU_SLAVE_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/port.h"
#include "algorithms/pstate.h"
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
    const unsigned char *disc_out;    /* NULL, or n_out flags: 1 for a discrete-valued output,
                                         reported by get_discrete with its event time */
    const unsigned char *disc_in;     /* NULL, or n_in flags: 1 for an input fed by another
                                         slave's discrete output, set by set_discrete */
    const double *in_factor;          /* NULL (identity), or n_in factors f != 0 and ... */
    const double *in_offset;          /* ... NULL or n_in offsets o: the FMU's input i is set
                                         to f_i u_i + o_i and its derivatives to f_i du_i, where
                                         u is what set_inputs / set_discrete give; directional
                                         derivatives are with respect to u (the connection's
                                         linear transformation, doc/federation.md) */
    const unsigned char *kind_in;     /* NULL (every input Real), or n_in FMU_SLAVE_* kinds: a
                                         typed input is set by name (in_name) and held over the
                                         step, without derivatives: a whole number rounded to the
                                         nearest integer then through its map (a Boolean true
                                         when not 0), a Float32 rounded to single precision */
    const unsigned char *kind_out;    /* NULL, or n_out kinds: a typed output is read by name
                                         (out_name) as a number; its derivatives are 0 */
    const char *const *in_name;       /* n_in names, read where kind_in is not REAL */
    const char *const *out_name;      /* n_out names, read where kind_out is not REAL */
    const long long *const *in_map;   /* NULL, or per input NULL or in_n_map[i] pairs
                                         (from, to) applied to a whole number after rounding */
    const size_t *in_n_map;           /* NULL, or n_in pair counts */
} fmu_slave_opts;

/** Kinds of fmu_slave_opts kind_in / kind_out: how a port's variable is exchanged
 * (doc/federation.md, "Whole numbers on the wire"). */
enum { FMU_SLAVE_REAL = 0, FMU_SLAVE_WHOLE = 1, FMU_SLAVE_FLOAT32 = 2 };

/**
 * Wrap an opened FMU as a port slave.
 *
 * Discrete outputs (o->disc_out; info.n_discrete of them, in output order): get_discrete gives
 * each one's value and the time, ticks, of the step that last changed it: the tick at or
 * after the event where the step stopped at one (event mode: a state event located by CVODE,
 * an early return of a co-simulation FMU), else the end of the step over which it changed;
 * INT64_MIN while it has its start value. Saved and restored with the slots.
 * Discrete inputs (o->disc_in, in input order): set_discrete(n = their count) gives their
 * values, held (zero derivatives) from then on in place of what set_inputs gives them, over
 * restores too, until the next set_discrete (the hybrid algorithm's Share Data Only
 * Discrete). Either operation on a slave without such variables fails with PORT_EUNSUPPORTED.
 * @param o   options, not NULL; o->fmu not NULL, o->tick > 0
 * @param out receives the new slave (fmu_slave_free), NULL on failure
 * @param ps  filled with the ops table, the context and the slave's info (valid while the
 *            fmu_slave lives)
 * @return PORT_OK, PORT_EUSAGE (bad options, a discrete output that cannot be read),
 *         PORT_ENOMEM.
 */
int fmu_slave_new(const fmu_slave_opts *o, fmu_slave **out, port_slave *ps);

/** The steps whose sub-step outputs (port op step, n_sub > 1) came from the FMU's
 * intermediate updates in one fmi3DoStep rather than from n_sub steps (doc/fmu.md "FMI 3.0"). */
long fmu_slave_sub_updates(const fmu_slave *s);

/** Free the slave and its saved states (the FMU itself stays open). Accepts NULL. */
void fmu_slave_free(fmu_slave *s);

/** The message of the last failed operation ("" when none); owned by s. It does not name the
 * slave: whoever reports it does, once (port_add_cause, algorithms/port.h). */
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

/* Slave-to-slave sharing of discrete values in one process (port share_discrete, the hybrid
 * algorithm's Share Data Only Discrete): the slaves of one master join one bus; share_discrete
 * puts a slave's discrete outputs and their event times on it at once, and its collect takes
 * the values its discrete inputs are fed from the other members' shares of the same round
 * (so every member of the round is posted before the sync, as port_sync does). The master
 * never holds the values. Over libtempo the slaves send them to each other through the RTI
 * instead (doc/master.md). */
typedef struct fmu_slave_bus fmu_slave_bus;

/** A bus for n slaves (members 0..n-1); NULL when out of memory. Free it after its slaves. */
fmu_slave_bus *fmu_slave_bus_new(size_t n);

/** Free a bus. Accepts NULL. */
void fmu_slave_bus_free(fmu_slave_bus *b);

/**
 * Join s to the bus as member idx. Its discrete input k (o->disc_in order) is fed by the
 * discrete output src_k[k] (get_discrete order) of member src[k]. The arrays are copied; the
 * bus is borrowed and must outlive the slave's last share_discrete.
 * @return PORT_OK, PORT_EUSAGE (idx or a source outside the bus), PORT_ENOMEM.
 */
int fmu_slave_join_bus(fmu_slave *s, fmu_slave_bus *b, size_t idx, const size_t *src,
                       const size_t *src_k);

/**
 * Write the slave's whole state for a checkpoint (doc/checkpoint.md "The slave role's part"):
 * its time, the inputs held (the polynomial set_inputs gave), the discrete outputs and held
 * discrete inputs, every saved slot (its time, its discrete outputs and the FMU's state in
 * it, through fmu_step_serialize: the slots hold fmi2GetFMUstate copies that die with the
 * process) and the FMU's current state. Writing a slot restores it into the FMU, serializes
 * it and restores the current state again; for model exchange this restarts CVODE at the next
 * step, as fmu_step_serialize does, in the saving run as in a run resumed from the bytes.
 * @return PORT_OK; PORT_EUNSUPPORTED (the FMU cannot serialize its state), PORT_EFAIL (the FMU
 *         refused; fmu_slave_errmsg says why), PORT_ENOMEM.
 */
int fmu_slave_ckpt_save(fmu_slave *s, pstate_buf *b);

/**
 * Restore what fmu_slave_ckpt_save wrote into a slave freshly made over the same FMU and
 * wiring. Refuses, before touching the FMU, bytes it did not write (magic, version), another
 * wiring (input, output, discrete counts), an input order out of range and truncated bytes;
 * the FMU's own bytes are checked by fmu_step_deserialize (guid, kind).
 * @return PORT_OK; PORT_EUSAGE (refused: fmu_slave_errmsg says why), PORT_EFAIL, PORT_ENOMEM.
 */
int fmu_slave_ckpt_restore(fmu_slave *s, pstate_rd *d);

#endif /* TEMPO_FEDERATE_FMU_FMU_SLAVE_H */
