/* The model side of the example-FMU framework: what one model file fills in (variables,
 * equations, events) so that the framework can implement every FMI 2.0 function for it.
 * Serves doc/fmu.md (example FMUs written by us in C). Read doc/example-fmus.md for the
 * list of models, then fw_impl.h (the instance) and fw_fmi.c (the FMI functions). */
#ifndef TEMPO_FRAMEWORK_FW_H
#define TEMPO_FRAMEWORK_FW_H

#include <math.h>
#include <stddef.h>

/* Highest input-derivative order fmi2SetRealInputDerivatives accepts (inputs are held as a
 * polynomial of this degree inside a communication step): the highest a method of the port
 * hands over (PORT_MAX_ORDER, algorithms/port.h), so that waveform relaxation's degree n_sub
 * and balance correction's Taylor coefficients reach a co-simulation FMU whole. */
#define FW_MAX_INPUT_ORDER 8

/** How a variable is seen from outside; decides XML attributes and who may set it. */
typedef enum {
    FW_PARAM,  /* fixed parameter: settable before initialisation ends, start value required */
    FW_INPUT,  /* continuous input: settable until Terminated (not in Error), start required */
    FW_OUTPUT, /* output, computed by the model (initial="calculated") */
    FW_LOCAL   /* internal variable: a state, a derivative or a helper (calculated) */
} fw_causality;

/** One real variable. Its value reference is its index in fw_model.vars. */
typedef struct {
    const char *name;        /* FMI name, unique within the model */
    fw_causality causality;  /* see fw_causality */
    int discrete;            /* 1: changes only at events (variability "discrete") */
    int derivative_of;       /* vr of the state this variable is the derivative of, or -1 */
    double start;            /* start value (params and inputs); ignored for calculated ones */
    const char *unit;        /* unit name written to the XML, or NULL */
    const char *description; /* one line for the XML and the docs */
    /* Outputs only: the names of the inputs and continuous states the output's value depends
     * on directly, space-separated ("" none), written as its ModelStructure dependencies
     * (doc/example-fmus.md "Output dependencies"). NULL: an output that is itself a state
     * depends on that state alone; any other output must declare its list (fw_mdgen refuses
     * it otherwise, and refuses a list that misses a dependency its probe observes). */
    const char *depends;
} fw_var;

/** Bounds of one variable, written to the XML as min and max (hosts check them). */
typedef struct {
    int vr;          /* the variable */
    double min, max; /* its bounds */
} fw_bounds;

/** What a model callback sees: the time and every variable, indexed by value reference.
 *  Inputs already hold their (interpolated) value at t; states hold the current state. */
typedef struct fw_ctx {
    double t;                   /* s, current time */
    double *r;                  /* real variables by value reference (owned by the instance) */
    const struct fw_inst *inst; /* for fw_input_der(); opaque to models */
} fw_ctx;

/** In/out record of one call of the model's event handler (fw_model.event). */
typedef struct {
    int initial;        /* in: 1 for the call right after initialisation */
    int time_event;     /* in: 1 when t reached the scheduled next_time */
    const int *crossed; /* in: per indicator -1 fell through 0, +1 rose, 0 none; or NULL */
    int states_changed; /* out: the handler re-initialised a continuous state */
    int iterate;        /* out: call again at the same instant (discrete not yet stable) */
    int terminate;      /* out: the model asks to stop the simulation here */
    int early_return;   /* out, co-simulation: end the communication step at this event, which
                           is handled: fmi2DoStep returns fmi2Discard with the instance at the
                           event (fmi2LastSuccessfulTime), and a later fmi2DoStep goes on from
                           there (FMI 3's early return, for hosts that accept it) */
    double next_time;   /* in/out: s, next time event; INFINITY for none (kept if untouched) */
} fw_event;

/** A model: filled in once per FMU as `const fw_model fw_model_def = {...};`. */
typedef struct {
    const char *id;          /* modelIdentifier: names the .so and the FMU */
    const char *description; /* one line for the XML */
    int nvars;               /* number of entries in vars */
    const fw_var *vars;      /* the variables, vr = index */
    int nz;                  /* number of event indicators */
    int max_output_order;    /* CS maxOutputDerivativeOrder: 0 when output_der is NULL */
    int has_me;              /* 1: build a model-exchange FMU */
    int has_cs;              /* 1: build a co-simulation FMU */
    double stop_time;        /* s, DefaultExperiment stopTime */
    double step_size;        /* s, DefaultExperiment stepSize (a communication step) */
    double tolerance;        /* DefaultExperiment tolerance (relative) */
    int nbounds;             /* entries of bounds */
    const fw_bounds *bounds; /* variables with min/max, or NULL */
    /* Set states (and anything else) from the parameters; called when initialisation
     * starts, after each parameter change during it, and when it ends, so it must only read
     * params and inputs (c->t is the start time). May be NULL. */
    void (*init)(fw_ctx *c);
    /* Write every derivative variable from states, inputs and params. May be NULL (nx = 0). */
    void (*derivatives)(fw_ctx *c);
    /* Write every output and local helper from states, inputs and params. May be NULL. */
    void (*outputs)(fw_ctx *c);
    /* Write the nz event indicators into z (a state event is a sign change). May be NULL. */
    void (*indicators)(fw_ctx *c, double *z);
    /* Handle an event at c->t (discrete changes, re-initialisation). May be NULL. */
    void (*event)(fw_ctx *c, fw_event *ev);
    /* Analytic order-th time derivative (1 <= order <= max_output_order) of output vr at
     * c->t; outputs and derivatives are up to date. Return 0, or -1 if not available. */
    int (*output_der)(fw_ctx *c, unsigned vr, int order, double *value);
    /* Co-simulation only, may be NULL: the model's own fixed-step method. Called at the start
     * of each fmi2DoStep with the inputs at c->t; return 1 after advancing the states in c->r
     * over the whole step h (no events are looked for), or 0 to let the framework integrate
     * (the osc_* slaves' forward-Euler variant, doc/example-fmus.md), or -1 when the model
     * fails the step (fmi2DoStep then returns fmi2Error and the instance is in error). */
    int (*cs_step)(fw_ctx *c, double h);
    /* May be NULL: the partial derivative d(unknown)/d(known) at c->t, states and inputs, for
     * fmi2GetDirectionalDerivative (providesDirectionalDerivative is then true in both kinds).
     * Return 0, or -1 when unknown is not an output or derivative, or known not an input or
     * state. Called after the outputs and derivatives are brought up to date. */
    int (*partial)(fw_ctx *c, unsigned unknown, unsigned known, double *value);
    /* 1: the XML declares canBeInstantiatedOnlyOncePerProcess="true" (both kinds), for a
     * model standing for an FMU that cannot share a process with another of its instances. */
    int once_per_process;
} fw_model;

/** The model of this shared object (defined by the model's C file). */
extern const fw_model fw_model_def;

/**
 * The order-th time derivative at c->t of input vr as set by fmi2SetRealInputDerivatives
 * (the input polynomial is re-expanded at c->t); 0 when none was set.
 * @param c     the callback context
 * @param vr    value reference of an input
 * @param order 1..FW_MAX_INPUT_ORDER
 * @return the derivative, or 0 for a non-input, a bad order, or a model-exchange instance
 */
double fw_input_der(const fw_ctx *c, unsigned vr, int order);

/**
 * A GUID derived from the model's identifier and variable table (an FNV-1a hash printed in
 * the usual 8-4-4-4-12 form), so that the .so and its generated XML always agree.
 * @param m   the model
 * @param buf caller-owned buffer of at least 39 bytes; receives a NUL-terminated string
 */
void fw_guid(const fw_model *m, char buf[39]);

#endif
