/* Private layout of one FMU instance of the example-FMU framework, shared by fw_fmi.c (common
 * and model-exchange functions) and fw_cs.c (co-simulation functions). doc/fmu.md.
 * Read fw_fmi.c next. */
#ifndef TEMPO_FRAMEWORK_FW_IMPL_H
#define TEMPO_FRAMEWORK_FW_IMPL_H

#include <stdarg.h>
#include <stddef.h>

#include "examples/fmus/framework/fw.h"
#include "examples/fmus/framework/fw_rk.h"
#include "federate/fmu/fmi2.h"

/** Where an instance is in the FMI 2.0 state machine (standard 3.2.3 and 4.2.4). */
typedef enum {
    FW_INSTANTIATED = 1, /* after fmi2Instantiate / fmi2Reset */
    FW_INIT,             /* Initialization Mode */
    FW_EVENT,            /* ME Event Mode */
    FW_CONT,             /* ME Continuous-Time Mode */
    FW_STEP,             /* CS: step complete, ready for fmi2DoStep */
    FW_TERMINATED,       /* after fmi2Terminate */
    FW_ERROR             /* a numerical failure: only get, reset and free are allowed */
} fw_mode;

/* Log categories, in the order of the XML's <LogCategories> (bit i of log_mask). */
enum { FW_LOG_EVENTS, FW_LOG_WARNING, FW_LOG_ERROR, FW_LOG_CALLS, FW_LOG_SOLVER, FW_NLOG };
extern const char *const fw_log_names[FW_NLOG];

/** Everything fmi2GetFMUstate must save: one block, copied with memcpy (no pointers). */
typedef struct {
    fw_mode mode;         /* see fw_mode */
    int initial_pending;  /* 1 until the first event handler call after initialisation */
    int model_terminated; /* 1 once the model asked to stop (CS: doStep then refuses) */
    int early_return;     /* CS: an event handler asked to end the current step there */
    double t;             /* s, current time */
    double t_start;       /* s, from fmi2SetupExperiment */
    double t_stop;        /* s, INFINITY when no stop time was given */
    double rtol;          /* relative tolerance of the CS integrator */
    double next_time;     /* s, next time event; INFINITY for none */
    double h_prev;        /* s, last accepted internal step (CS), 0 before the first */
    long long steps;      /* fmi2DoStep calls completed: the communication point's number */
    double v[];           /* r | z_prev | u0 | ut0 | uep | du (see fw_inst) */
} fw_data;

/** One instance (fmi2Component). */
struct fw_inst {
    const fw_model *m;        /* the model of this .so */
    fmi2Type kind;            /* ME or CS, from fmi2Instantiate */
    char *name;               /* instance name (owned) */
    fmi2CallbackFunctions cb; /* copy of the host's callbacks */
    int logging_on;           /* fmi2SetDebugLogging / loggingOn */
    unsigned log_mask;        /* bit FW_LOG_*: category enabled */
    int nx;                   /* number of continuous states */
    unsigned *xvr;            /* nx: value reference of each state */
    unsigned *dvr;            /* nx: value reference of each state derivative */
    size_t d_bytes;           /* size of the block d */
    fw_data *d;               /* the saved-with-the-state block */
    double *r;                /* into d: real variables by vr */
    double *z_prev;           /* into d: indicators at the last accepted point */
    double *u0;               /* into d: input values at ut0 (inputs only) */
    double *ut0;              /* into d: s, origin of each input polynomial */
    double *uep;              /* into d: value of d->steps when each input was last set */
    double *du;               /* into d: du[(k-1)*nvars+vr], k-th input derivative at ut0 */
    /* scratch, not part of the state */
    double *x;    /* nx: state vector of the current point (CS) */
    double *x1;   /* nx: candidate state */
    double *xs;   /* nx: state probed during event location */
    double *k1;   /* nx: f(t, x) at the current point */
    double *z;    /* nz: indicators at a probed point */
    int *crossed; /* nz: direction of each crossing, see fw_event */
    fw_rk rk;     /* Dormand-Prince workspace */
};
typedef struct fw_inst fw_inst;

/* ---- helpers shared by fw_fmi.c and fw_cs.c (prefix fw_) ------------------------------- */

/** Log through the host's logger; errors always, others when their category is on. */
void fw_log(fw_inst *in, fmi2Status st, int category, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/** Return 1 when in->mode is one of the bits of mask (1u << FW_*); else log an error naming
 *  the function and the current mode and return 0. */
int fw_check_mode(fw_inst *in, const char *fn, unsigned mask);

/** Set r[input] to each input's value at time t (its polynomial in CS). */
void fw_eval_inputs(fw_inst *in, double t);

/**
 * Set input vr to u0 at the current time. The first setting (value or derivative) of an input
 * at a communication point starts a new polynomial there, without derivatives; later ones at
 * the same point keep the derivatives already set, so value and derivatives may come in any
 * order. An input not set at a point keeps following its polynomial.
 */
void fw_input_restart(fw_inst *in, unsigned vr, double u0);

/** Inputs at in->d->t, then derivatives and outputs from the states held in r. */
void fw_refresh(fw_inst *in);

/** Evaluate the nz indicators at the point held in r (inputs and outputs refreshed). */
void fw_indicators(fw_inst *in, double *z);

/**
 * One call of the model's event handler at in->d->t, then refresh and z_prev update.
 * @param time_event 1 when the scheduled time event is due
 * @param crossed    nz crossing directions, or NULL for none
 * @param ev         receives the handler's answers
 */
void fw_handle_event(fw_inst *in, int time_event, const int *crossed, fw_event *ev);

/** Co-simulation, at the end of fmi2ExitInitializationMode (fw_cs.c): the event iteration at
 *  the start time (the model's initial event call, and a time event due then).
 *  @return fmi2OK, or fmi2Error when the iteration does not settle (logged) */
fmi2Status fw_cs_after_init(fw_inst *in);

/** The framework's time tolerance at time t: 1e-12 * max(1, |t|) seconds. */
double fw_time_tol(double t);

#define FW_BIT(m) (1u << (m))

#endif
