/* The one stepping interface over an FMU, whatever its kind: open with options, step by h
 * with inputs, read outputs (and their derivatives), get/set variables, save/restore state.
 * Serves doc/fmu.md (used by federates and coupling algorithms). Times here are physical
 * seconds as doubles; the federate converts logical ticks at its boundary (doc/time.md).
 * Read next: federate/fmu/fmu_step.c, then fmu_cs.c / fmu_me.c; doc/fmu.md for the behaviour. */
#ifndef TEMPO_FEDERATE_FMU_STEP_H
#define TEMPO_FEDERATE_FMU_STEP_H

#include <stddef.h>

#include "federate/fmu/fmu_load.h"

/** Status codes: 0 ok, positive informative, negative errors grouped by cause. */
enum {
    FMU_STEP_OK = 0,
    FMU_STEP_TERMINATED = 1, /* the model asked to stop; the time reached is reported */
    FMU_STEP_EVENT = 2,      /* with fmu_step_set_event_stop: the step stopped at its first
                                event, handled; the time reached is the event's */
    FMU_STEP_EDISCARD = -1,  /* recoverable: the FMU or solver refused the step; restore a
                                saved state (fmu_step_restore) before stepping again */
    FMU_STEP_EUSAGE = -2,    /* bad argument or call order; nothing was changed */
    FMU_STEP_EFMU = -3,      /* unrecoverable: the FMU returned fmi2Error/fmi2Fatal (or the
                                solver broke); only fmu_step_close is allowed afterwards */
    FMU_STEP_ELOAD = -4,     /* open: the FMU file is bad or unsupported */
    FMU_STEP_ESYS = -5       /* system error or out of memory */
};

/** Why the ME integrator was (re)initialised (fmu_step_restarts, doc/fmu.md §6). */
typedef enum {
    FMU_RESTART_START = 0, /* the first step after fmu_step_open */
    FMU_RESTART_EVENT = 1, /* after a state, time or step event */
    FMU_RESTART_INPUT = 2, /* an input's value jumped at a step start */
    FMU_RESTART_SET = 3,   /* a variable or the continuous states were set from outside */
    FMU_RESTART_STATE = 4, /* fmu_step_save or fmu_step_restore (rollback stays bit-exact) */
    FMU_RESTART_NCAUSES = 5
} fmu_restart_cause;

/** ME integration method. */
typedef enum { FMU_SOLVER_BDF = 0, FMU_SOLVER_ADAMS = 1 } fmu_solver;

/** Options of fmu_step_open; all-zero means "defaults" for every field. */
typedef struct {
    fmu_kind kind;     /* AUTO: CoSimulation if present, else ModelExchange */
    double rtol;       /* relative tolerance; 0: DefaultExperiment tolerance, else 1e-6 */
    double atol;       /* ME absolute tolerance; 0: rtol * nominal of each state */
    fmu_solver solver; /* ME: BDF (default) or Adams-Moulton */
    double max_step;   /* ME: largest CVODE internal step (s); 0: no limit */
    int has_start;     /* start_time given; else DefaultExperiment startTime, else 0 */
    double start_time; /* s */
    int has_stop;      /* stop_time given (passed to the FMU); else no stop time */
    double stop_time;  /* s, passed to fmi2SetupExperiment */
    size_t n_params;   /* variables to set before initialization */
    const char *const *param_names;  /* n_params names */
    const char *const *param_values; /* n_params values as text (see fmu_step_set_text) */
    const char *instance_name;       /* NULL: the model name */
    fmu_log_fn *log;                 /* FMU and host messages; NULL: dropped */
    void *log_ctx;                   /* handed to log */
    const fmu_zip_limits *limits;    /* NULL: default unpacking limits */
    int early_return;        /* FMI 3.0 CS: instantiate with earlyReturnAllowed when the FMU can
                                return early (canReturnEarlyAfterIntermediateUpdate), for
                                fmu_step_set_event_stop; 0: the FMU handles its events inside a step */
    int intermediate_update; /* FMI 3.0 CS: hand the FMU an intermediate-update callback (with
                                the outputs as required intermediate variables) when it
                                providesIntermediateUpdate; it calls the update hook
                                (fmu_step_set_update_hook) inside fmi3DoStep */
    int event_mode;          /* FMI 3.0 CS: instantiate with eventModeUsed when the FMU has event
                                mode (hasEventMode), with early return when it can: the host handles
                                the FMU's events in event mode where fmi3DoStep returns at them
                                (doc/fmu.md "FMI 3.0"); 0: the FMU handles them inside a step */
} fmu_step_opts;

/** Real inputs of one step. u_i(t) = sum_{k=0..order} c_ik (t - t0)^k / k! with c_i0 = u[i],
 * c_ik = du[i*order + k-1], t0 the step start. order 0: held constant. For CS the derivatives
 * go to fmi2SetRealInputDerivatives when the FMU can interpolate inputs (else only u is set);
 * for ME the polynomial is evaluated before every right-hand-side evaluation. */
typedef struct {
    size_t n;                     /* number of inputs */
    const fmi2ValueReference *vr; /* n value references of Real inputs */
    const double *u;              /* n values at the step start */
    int order;                    /* derivatives per input in du (0..8) */
    const double *du;             /* n*order derivatives, may be NULL when order is 0 */
} fmu_inputs;

typedef struct fmu_step fmu_step;
typedef struct fmu_step_state fmu_step_state;

/**
 * Load an FMU and bring it to the start time: instantiate, setup experiment, set parameters,
 * initialization mode, (ME: initial event iteration, CVODE set-up).
 * @param path  the .fmu file; @param opts NULL for defaults
 * @param out   receives the handle (fmu_step_close), NULL on failure
 * @param err   receives the reason (FMU file, entry, line, variable or function); errlen its size
 * @return FMU_STEP_OK; FMU_STEP_ELOAD bad FMU; FMU_STEP_EUSAGE bad option or parameter (names
 *         it); FMU_STEP_EFMU the FMU failed to initialise; FMU_STEP_ESYS system error.
 */
int fmu_step_open(const char *path, const fmu_step_opts *opts, fmu_step **out, char *err,
                  size_t errlen);

/** Terminate (when still running), free the instance, unload the FMU. Accepts NULL. */
void fmu_step_close(fmu_step *s);

/**
 * Advance from the current time t to t_end > t with these inputs. The FMU is handed
 * fmi2DoStep(t, t_end - t) (CS), CVODE the stop time t_end (ME), and on success the current
 * time becomes t_end exactly: a caller that computes every t_end from an integer count (ticks,
 * or a step index) gets communication points that never drift, however many steps it takes
 * (doc/fmu.md, "Where the FMU's time comes from"). Federates use this one.
 * @param in          NULL: inputs keep the values last set, held constant
 * @param t_reached   receives the time reached (t_end unless the model terminated early, or
 *                    the last successful time on a discard); may be NULL
 * @return FMU_STEP_OK; FMU_STEP_TERMINATED (time reached < t_end possible; further steps are
 *         refused); FMU_STEP_EDISCARD (recoverable, see above); FMU_STEP_EUSAGE (t_end not
 *         after t or not finite, bad inputs, terminated, or a discard not yet followed by a
 *         restore); FMU_STEP_EFMU.
 */
int fmu_step_to(fmu_step *s, double t_end, const fmu_inputs *in, double *t_reached);

/**
 * Advance by h > 0: fmu_step_to(s, t + h, ...). The sum t + h is taken in floating point at
 * every call, so many calls drift off the grid (10^5 steps of 0.001 s end near 100.0000000001);
 * for tests and one-off steps only.
 * @return as fmu_step_to; FMU_STEP_EUSAGE when h <= 0 or not finite.
 */
int fmu_step_do(fmu_step *s, double h, const fmu_inputs *in, double *t_reached);

/**
 * Set the inputs now, at the current time, without stepping (communication-point order,
 * doc/fmu.md §4: set the inputs of t, read the outputs of t, then step): values, and for
 * co-simulation their derivatives when the FMU can interpolate inputs, so that outputs and
 * output derivatives read afterwards see them (direct feedthrough). A following fmu_step_do
 * with the same inputs sets them again, which changes nothing. ME: a value that differs from
 * the FMU's restarts the integrator at the next step.
 * @param in NULL: nothing to do
 * @return OK; EUSAGE bad inputs, terminated, discard pending, value refused; EFMU.
 */
int fmu_step_set_inputs(fmu_step *s, const fmu_inputs *in);

/** Current time (s). */
double fmu_step_time(const fmu_step *s);
/** Kind in use (FMU_KIND_ME or FMU_KIND_CS). */
fmu_kind fmu_step_kind(const fmu_step *s);
/** The FMU's description (owned by s). */
const fmu_md *fmu_step_md(const fmu_step *s);
/** The last error message of s ("" if none); valid until the next call on s. */
const char *fmu_step_errmsg(const fmu_step *s);

/** Read n Real variables by value reference. @return OK, EUSAGE, EFMU. */
int fmu_step_get_real(fmu_step *s, size_t n, const fmi2ValueReference vr[], double out[]);
/** Write n Real variables by value reference. After initialization only inputs and tunable
 * parameters may be set (checked before calling the FMU). @return OK, EUSAGE (unknown value
 * reference, variable not settable now, value refused), EFMU. */
int fmu_step_set_real(fmu_step *s, size_t n, const fmi2ValueReference vr[], const double v[]);

/** Read a numeric variable (Real, Integer, Boolean as 0/1, Enumeration) by name.
 * @return OK; EUSAGE unknown name or String variable; EFMU. */
int fmu_step_get_by_name(fmu_step *s, const char *name, double *out);
/** Read a String variable by name. @param out receives the FMU's string (never NULL on
 * success: "" when the FMU gives NULL), owned by the FMU and valid until the next call on s.
 * @return OK; EUSAGE unknown name or not a String; EFMU. */
int fmu_step_get_string(fmu_step *s, const char *name, const char **out);
/** Read any variable by name as text: Real (Float64, Float32) in the shortest form that reads
 * back to the same value, integers in full, Boolean 0/1, String as it is, FMI 3.0 Binary in
 * hexadecimal; an FMI 3.0 array element by its name ("v[2,3]"). @param out receives the text,
 * owned by s and valid until the next call on s (4095 characters at most).
 * @return OK; EUSAGE unknown name or a Clock; EFMU. */
int fmu_step_get_text(fmu_step *s, const char *name, const char **out);
/** Set any variable by name from text ("1.5", "3", "true"/"false"/"1"/"0", any string).
 * Same rule as fmu_step_set_real on what may be set when.
 * @return OK; EUSAGE unknown name, unparsable value, variable not settable (constant,
 *         calculated, or fixed after initialization), value refused; EFMU. */
int fmu_step_set_text(fmu_step *s, const char *name, const char *value);

/**
 * Highest derivative order fmu_step_get_output_derivs can give for this Real variable:
 * CS: maxOutputDerivativeOrder for outputs; ME: 1 when the variable is a continuous state.
 */
int fmu_step_deriv_order(const fmu_step *s, fmi2ValueReference vr);
/** The order-th time derivative (1 <= order <= fmu_step_deriv_order) of n variables at the
 * current time. @return OK; EUSAGE order not available; EFMU. */
int fmu_step_get_output_derivs(fmu_step *s, size_t n, const fmi2ValueReference vr[], int order,
                               double out[]);

/** True when the FMU provides directional derivatives (providesDirectionalDerivative). */
int fmu_step_has_directional(const fmu_step *s);
/** Directional derivatives at the current time, states and inputs
 * (fmi2GetDirectionalDerivative): dv_unknown = (d unknown / d known) dv_known, for n_unknown
 * outputs (or derivatives) and n_known inputs (or states) given by value reference.
 * @return OK; EUSAGE the FMU does not provide them; EFMU. */
int fmu_step_get_directional(fmu_step *s, size_t n_unknown, const fmi2ValueReference unknown[],
                             size_t n_known, const fmi2ValueReference known[],
                             const double dv_known[], double dv_unknown[]);

/** True when save/restore work (the FMU has canGetAndSetFMUstate). */
int fmu_step_can_save(const fmu_step *s);
/**
 * Save the complete state at the current time (FMU state, time, pending time event).
 * @param out receives a snapshot owned by the caller, freed with fmu_step_state_free
 * @return OK; EUSAGE FMU cannot save state; EFMU; ESYS.
 */
int fmu_step_save(fmu_step *s, fmu_step_state **out);
/** Go back to a snapshot of this same handle; also clears a pending discard. Repeating a step
 * after a restore with the same inputs gives bit-identical results (doc/fmu.md "Rollback").
 * @return OK; EUSAGE foreign snapshot; EFMU. */
int fmu_step_restore(fmu_step *s, const fmu_step_state *st);
/** Free a snapshot (before closing s). Accepts NULL. */
void fmu_step_state_free(fmu_step *s, fmu_step_state *st);

/** True when the state can be written to bytes (canGetAndSetFMUstate and
 *  canSerializeFMUstate): what a checkpoint needs (doc/checkpoint.md). */
int fmu_step_can_serialize(const fmu_step *s);
/**
 * Write the complete state at the current time to bytes that outlive this process: the FMU's
 * serialized state (fmi2SerializeFMUstate), the time, the terminated flag and, for ME, the
 * pending time event; tagged with the FMU's guid (doc/checkpoint.md, "FMU state"). As with
 * fmu_step_save, the ME integrator restarts at the next step, so the run that saved and a run
 * resumed from the bytes execute the same instructions from here on.
 * @param out  receives malloc'ed bytes (the caller frees them), @p len their size
 * @return OK; EUSAGE the FMU cannot serialize, or a step was discarded; EFMU; ESYS.
 */
int fmu_step_serialize(fmu_step *s, unsigned char **out, size_t *len);
/**
 * Restore a state written by fmu_step_serialize of the same FMU (same guid), in this handle or
 * in a fresh one opened from the same file (in another process). Bytes of another FMU, of
 * another format version, truncated or with trailing bytes are refused without touching the
 * instance. Clears a pending discard.
 * @return OK; EUSAGE refused bytes (the message says why) or the FMU cannot serialize; EFMU.
 */
int fmu_step_deserialize(fmu_step *s, const unsigned char *p, size_t len);

/** How often the ME integrator (CVODE) was initialised for this cause since open; always 0
 * for CS. Between restarts CVODE integrates across communication points with its history
 * (order, step size) intact. */
long fmu_step_restarts(const fmu_step *s, fmu_restart_cause cause);

/* ---- Continuous states (ME only), for master algorithms that drive the integration ------ */

/** Number of continuous states (ME: numberOfContinuousStates from the model structure; CS: 0). */
size_t fmu_step_n_states(const fmu_step *s);
/** Read the nx continuous states at the current time (fmi2GetContinuousStates), in the order
 * of the modelDescription's Derivatives. @return OK; EUSAGE not ME or n != nx; EFMU. */
int fmu_step_get_states(fmu_step *s, size_t n, double x[]);
/** Overwrite the nx continuous states at the current time (fmi2SetContinuousStates). The
 * integrator restarts from them at the next step (cause FMU_RESTART_SET).
 * @return OK; EUSAGE not ME, n != nx, a value not finite, the model has terminated, or the
 *         FMU refused them (fmi2Discard); EFMU. */
int fmu_step_set_states(fmu_step *s, size_t n, const double x[]);
/** The nx state derivatives at the current time, states and inputs (fmi2GetDerivatives).
 * @return OK; EUSAGE not ME or n != nx; EFMU. */
int fmu_step_get_derivatives(fmu_step *s, size_t n, double dx[]);
/** Move the model to time t (fmi2SetTime) without integrating, for a master whose own
 * integrator evaluates the model at times it chooses, not always increasing (strong coupling,
 * doc/algorithms/strong-coupling.md): ME only. The current time becomes t and the integrator
 * restarts from the FMU's states at the next step (cause FMU_RESTART_SET).
 * @return OK; EUSAGE not ME, t not finite, the model has terminated or a step was discarded;
 *         EFMU. */
int fmu_step_set_time(fmu_step *s, double t);

/**
 * Make every following step stop at its first event. ME: a state event located by CVODE root
 * finding, a time event or a step event, after the event iteration. CS: fmi2DoStep returning
 * fmi2Discard with fmi2LastSuccessfulTime inside the step (and the model not terminated) is
 * read as an early return at a handled event (FMI 3's semantics; only for FMUs that document
 * it), not as a refused step. Either way fmu_step_do returns FMU_STEP_EVENT and t_reached is
 * the event's time, from which the next step goes on. Off at open. For the hybrid master
 * algorithm (doc/algorithms/hybrid.md).
 * @param on 1 to stop at events, 0 to integrate through them (the default)
 */
void fmu_step_set_event_stop(fmu_step *s, int on);

/** Called by a model-exchange step at each event (state, time or step event) just before
 * fmi2EnterEventMode: the FMU holds the event's time, its inputs and the states CVODE reached,
 * in continuous-time mode, so the hook may read variables (the values just before the event).
 * An FMI 3.0 co-simulation opened with event_mode calls it too, where fmi3DoStep returned at
 * an event, before fmi3EnterEventMode (the FMU in step mode at the event's time).
 * It returns 0 to go on; any other value ends the step with FMU_STEP_ESYS (the hook keeps its
 * own message). */
typedef int fmu_event_hook(void *ctx, fmu_step *s, double t);

/**
 * Install (or, with fn NULL, remove) the hook called before each model-exchange event, and
 * before each event an FMI 3.0 co-simulation in event mode hands to the host. For tempo-fmu
 * --simulate, which writes a row before and one after every event as fmusim does (doc/fmu.md §8).
 * ctx is handed to fn as it is.
 */
void fmu_step_set_event_hook(fmu_step *s, fmu_event_hook *fn, void *ctx);

/**
 * Install (or, with fn NULL, remove) the hook an FMI 3.0 co-simulation opened with
 * intermediate_update calls at each intermediate update inside fmi3DoStep where the FMU lets
 * the outputs be read (intermediateVariableGetAllowed): the FMU is in Intermediate Update Mode
 * at time t (inside the step), and the hook may read variables (fmu_step_get_text and the
 * like), not set them. Its return value is ignored; no early return is asked. For tempo-fmu
 * --simulate --record-intermediate-values (fmusim's option of the same name).
 */
void fmu_step_set_update_hook(fmu_step *s, fmu_event_hook *fn, void *ctx);

/** 1 when the instance was opened with intermediate_update and the FMU provides intermediate
 * updates (FMI 3.0 co-simulation): the update hook can be called inside a step. */
int fmu_step_updates(const fmu_step *s);

/** Name of a status code ("ok", "discarded", ...). */
const char *fmu_step_strerror(int code);

#endif /* TEMPO_FEDERATE_FMU_STEP_H */
