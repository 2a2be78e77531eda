/* Private layout of fmu_step, shared by fmu_step.c (common parts), fmu_cs.c (co-simulation)
 * and fmu_me.c (model exchange with CVODE). Serves doc/fmu.md.
 * Read next: federate/fmu/fmu_me.c. */
#ifndef TEMPO_FEDERATE_FMU_STEP_IMPL_H
#define TEMPO_FEDERATE_FMU_STEP_IMPL_H

#include "federate/fmu/fmu_step.h"

typedef struct fmu_me fmu_me;

struct fmu_step {
    fmu_file *f;               /* loaded FMU, owned */
    const fmu_md *md;          /* this instance's description: f->md, or own_md */
    fmu_md *own_md;            /* FMI 3.0: the description with the arrays resized by the
                                  structural parameters the caller set (fmu_step_open), owned;
                                  NULL when none differs from its start */
    fmi2Component c;           /* the instance, NULL once freed */
    fmu_log_sink sink;         /* componentEnvironment of c */
    fmi2CallbackFunctions cb;  /* must outlive c (the FMU may keep the pointer) */
    char err[FMU_ERR_LEN];     /* last error message */
    double t;                  /* current time (s) */
    int initialized;           /* fmi2ExitInitializationMode done: fixed parameters frozen */
    int terminated;            /* the model asked to stop: no more steps */
    int broken;                /* unrecoverable failure: only close */
    int need_restore;          /* a step was discarded: restore before the next step */
    int event_stop;            /* ME: a step stops at its first event (fmu_step_set_event_stop) */
    fmu_event_hook *on_event;  /* ME: called before each event (fmu_step_set_event_hook), or NULL */
    void *on_event_ctx;        /* its context */
    fmu_event_hook *on_update; /* FMI 3.0 CS: called at intermediate updates, or NULL */
    int updates;               /* FMI 3.0 CS: the instance has the intermediate-update callback */
    void *on_update_ctx;       /* its context */
    fmu_me *me;                /* ME integrator, NULL for CS */
    char who[128];             /* instance name, for the process guard's messages (fmu_guard.h) */
    char text[4096];           /* fmu_step_get_text's answer, valid until the next call */
};

struct fmu_step_state {
    const fmu_step *owner; /* the handle that made it */
    fmi2FMUstate fs;       /* FMU's own state */
    double t;              /* time (s) */
    int terminated;        /* copied flags */
    int me_next_defined;   /* ME: a time event is pending */
    double me_next_time;   /* ME: its time (s) */
};

/* Record an error message in s->err and return code. */
int fmu_step_fail(fmu_step *s, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Turn an fmi2Status of call `what` into a step code (Warning counts as OK), with message. */
int fmu_step_check(fmu_step *s, fmi2Status st, const char *what);

/* Co-simulation inputs at the current time (fmu_cs.c): values, and derivatives when the FMU
 * interpolates inputs. */
int fmu_cs_set_inputs(fmu_step *s, const fmu_inputs *in);
/* Co-simulation step from s->t to t_end > s->t (fmu_cs.c). */
int fmu_cs_step(fmu_step *s, double t_end, const fmu_inputs *in, double *t_reached);

/* Model exchange (fmu_me.c). fmu_me_new runs after fmi2ExitInitializationMode. */
int fmu_me_new(fmu_step *s, const fmu_step_opts *o);
void fmu_me_free(fmu_me *me);
/* Model-exchange step from s->t to t_end > s->t, t_end CVODE's stop time. */
int fmu_me_step(fmu_step *s, double t_end, const fmu_inputs *in, double *t_reached);
/* Pending time event, for snapshots. */
void fmu_me_get_event(const fmu_me *me, int *defined, double *t);
void fmu_me_set_event(fmu_me *me, int defined, double t);
/* Index of the state whose value reference is vr, or -1. */
long fmu_me_state_of(const fmu_me *me, fmi2ValueReference vr);
/* Ask for a CVODE restart before the next step (the RHS jumped for this cause). */
void fmu_me_mark_restart(fmu_me *me, fmu_restart_cause cause);
/* Before n Real values are set from outside: a restart when one differs from the FMU's. */
int fmu_me_note_set(fmu_me *me, size_t n, const fmi2ValueReference vr[], const double v[]);
/* The step inputs' values at the current time (fmu_step_set_inputs). */
int fmu_me_set_inputs(fmu_step *s, const fmu_inputs *in);
/* CS counterpart (fmu_cs.c). */
int fmu_cs_set_inputs(fmu_step *s, const fmu_inputs *in);
/* FMI 3.0 model exchange: a discrete variable set from outside after initialization is an
 * input event: begin enters event mode, end runs the event iteration (back in
 * continuous-time mode) and restarts CVODE at the next step. */
int fmu_me_input_event_begin(fmu_step *s);
int fmu_me_input_event_end(fmu_step *s);
/* Restarts done for this cause. */
long fmu_me_restarts(const fmu_me *me, fmu_restart_cause cause);
/* Derivatives of states (current time and states). */
int fmu_me_derivatives(fmu_step *s, double *dx);

#endif /* TEMPO_FEDERATE_FMU_STEP_IMPL_H */
