/* The FMU piece of a peer: one federate's FMU opened as the federation file says and offered to
 * the peer algorithms as a port_slave (algorithms/port.h), stepped in this process. Used by
 * tempo-fmu (federate/fmufed/fmufed.c) and by the in-process runner (federate/inproc/).
 * doc/algorithms/port.md ("Who implements which side"); read fmufed_rec.h next (where the
 * rows go), then fmufed_tp.h (the libtempo exchange). Private to the federates: not installed.
 */
#ifndef TEMPO_FEDERATE_FMUFED_MODEL_H
#define TEMPO_FEDERATE_FMUFED_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/port.h"
#include "algorithms/pstate.h"
#include "federate/config/fedfile.h"

/* Where recorded rows go: called by the slave's record op with the logical time (ticks), the
 * same time in seconds and the n_rec recorded values: numbers in v (Integer, Enumeration and
 * Boolean as exact doubles), Strings in text (text NULL when no column is a String; else
 * text[k] is column k's string, valid during the call, or NULL for a number; v[k] is then NaN).
 * Returns PORT_OK or an error after writing its message (naming the file) into err. */
typedef int (*fmufed_row_fn)(void *ctx, int64_t t, double seconds, const double *v,
                             const char *const *text, char *err, size_t errlen);

typedef struct fmufed_model fmufed_model; /* opaque */

/**
 * Open federate idx's FMU with the file's parameters and solver settings, check it against
 * the file (fedfile_check_fmu), resolve the wiring's value references and read the inputs'
 * start values.
 * @param ff     loaded file, not NULL, must outlive the model
 * @param idx    federate index < ff->n_feds
 * @param err    caller-owned buffer shared with the slave's later failures: messages read
 *               "federate NAME: what"; must outlive the model
 * @param errlen its size (FMUFED_ERRLEN)
 * @param out    out: the model, owned by the caller (fmufed_model_close)
 * @return PORT_OK, PORT_EFAIL (the FMU cannot be loaded or does not fit the file),
 *         PORT_ENOMEM.
 */
int fmufed_model_open(const fedfile *ff, size_t idx, char *err, size_t errlen, fmufed_model **out);

/** Close the FMU and free the model. Accepts NULL. */
void fmufed_model_close(fmufed_model *m);

/**
 * The model as a port slave: set_inputs (order 0: the values are set in the FMU at once;
 * higher orders: the polynomial is handed to the next step), step (n_sub <= 1), get_outputs,
 * get_output_derivs (order 1, when every output offers it: info.max_output_deriv), record
 * (reads the recorded variables and calls the row sink; nothing without one) and collect;
 * the other operations answer PORT_EUNSUPPORTED. Operations run at once; collect returns the
 * first failure since the previous collect. Failures write "federate NAME: what" into err.
 * The slave is valid while m is.
 */
port_slave fmufed_model_slave(fmufed_model *m);

/** The n_in start values of the wired inputs (the FMU's start attributes, 0 when absent);
 *  valid while m is. */
const double *fmufed_model_u0(const fmufed_model *m);

/**
 * Where rows go: the recorded variables are the federate's "record" list (any type), else its
 * wired outputs.
 * @param row NULL: record does nothing (no variable is read)
 */
void fmufed_model_set_rows(fmufed_model *m, fmufed_row_fn row, void *ctx);

/** Names of the recorded variables (n_rec of them); valid while m is. */
const char *const *fmufed_model_rec_names(const fmufed_model *m, size_t *n_rec);

/* ---- checkpoints (doc/checkpoint.md, "tempo-fmu's part") ------------------------------- */

/** Can the FMU's state be written to bytes (canGetAndSetFMUstate and canSerializeFMUstate)? */
int fmufed_model_can_save(const fmufed_model *m);

/**
 * Append the model's state to b: its time (ticks), the inputs handed to its next step when a
 * polynomial is pending, and the FMU's serialized state (fmu_step_serialize: for model
 * exchange, CVODE restarts at the next step, as in the run resumed from these bytes).
 * @return PORT_OK; PORT_EUNSUPPORTED (the FMU cannot serialize), PORT_EFAIL, PORT_ENOMEM,
 *         with "federate NAME: what" in the model's err buffer.
 */
int fmufed_model_save(fmufed_model *m, pstate_buf *b);

/**
 * Restore what fmufed_model_save wrote into this freshly opened model (the same FMU; another
 * one's bytes are refused by its guid, without touching the instance).
 * @return PORT_OK; PORT_EUSAGE refused bytes (the reason in err), PORT_EFAIL.
 */
int fmufed_model_restore(fmufed_model *m, pstate_rd *d);

/** The output interval's place alone (rows asked for, next row due), for the slave role,
 *  whose FMU state its fmu_slave writes (fmu_slave_ckpt_save): i64 rows, i64 next row. */
void fmufed_model_rows_save(const fmufed_model *m, pstate_buf *b);

/** Restore what fmufed_model_rows_save wrote. @return PORT_OK; PORT_EUSAGE (truncated, or a
 *  negative count; the reason in err). */
int fmufed_model_rows_restore(fmufed_model *m, pstate_rd *d);

/**
 * Restart a model-exchange FMU's integrator at its next step (nothing for co-simulation):
 * what saving does, done at every checkpoint instant whether or not the save itself succeeds,
 * so that a run's results do not depend on which saves were written (doc/checkpoint.md).
 * @return PORT_OK or PORT_EFAIL.
 */
int fmufed_model_mark(fmufed_model *m);

/* ---- for callers that step the FMU themselves (the slave role, fmufed_slave.c) ----------- */

struct fmu_step;

/** The opened FMU, owned by the model (closed by fmufed_model_close); valid while m is. The
 *  slave role wraps it in fmu_slave (federate/fmu/fmu_slave.h), which offers every port
 *  operation, where fmufed_model_slave offers a peer's. */
struct fmu_step *fmufed_model_fmu(fmufed_model *m);

/**
 * One row at logical time t (ticks): read the recorded variables as the FMU holds them now
 * and call the row sink (nothing without one). The model slave's record op is this at the
 * model's own time.
 * @return PORT_OK, PORT_EFAIL (a read failed, or the sink's failure; "federate NAME: what"
 *         in the model's err buffer).
 */
int fmufed_model_record_at(fmufed_model *m, int64_t t);

/* ---- a model in Python instead of an FMU (doc/python.md "In one process") --------------- */

struct fmufed_rec;
struct msproto_child;

/**
 * Start federate idx's model in Python (its "python" key) as a tempo-slave process driven
 * over a socket pair (federate/msproto/msproto_child.h): the program beside this executable,
 * else tempo-slave on PATH. The child writes "<output>/<name>.csv" itself at its end; each row
 * it records is reported to rec (fmufed_rec_row without values: final time and progress).
 * @param output results folder, NULL: the file's
 * @param rec    where rows are reported (rec->st->csv is set to the child's CSV), or NULL
 * @param out    out: the child (msproto_child_free, which ends it)
 * @param ps     out: its port slave
 * @return PORT_OK, PORT_EFAIL (it did not start or answer; err "federate NAME: why"),
 *         PORT_ENOMEM.
 */
int fmufed_python_child(const fedfile *ff, size_t idx, const char *output, struct fmufed_rec *rec,
                        struct msproto_child **out, port_slave *ps, char *err, size_t errlen);

#endif
