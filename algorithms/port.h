/* The port: how a coupling algorithm meets its slaves, written once for every master-slave
 * algorithm (waveform relaxation, semi-implicit, strong coupling, hybrid with events, defect
 * control, F3ORNITS, balance correction, energy exchange). doc/algorithms/port.md describes it;
 * doc/master.md maps each operation onto the master-slave protocol. Read algorithms/port_ops.c
 * next (the port_* calls), then federate/fmu/fmu_slave.c (an FMU as an in-process slave). Pure C:
 * libc only (doc/contributing.md §1, §14).
 *
 * Shape. A slave is a struct of function pointers over an opaque context. An algorithm POSTS
 * operations to any number of slaves and then calls port_sync(), which completes every posted
 * operation and reports each slave's status. Results land in caller buffers given at post time
 * and are valid after port_sync() returns. In one process an operation runs at once and sync
 * only collects the statuses; over libtempo an operation is a time-stamped command interaction
 * and its result an attribute update of the slave, so posting to N slaves and syncing once
 * costs one round trip, not N. Posting never blocks.
 *
 * Time. Every time is logical time in ticks (int64_t), the resolution given by port_master.tick
 * (seconds per tick). A macro step [T_n, T_n+1] is opened by port_open(T_n+1): every exchange of
 * the step (however many iterations) happens at that one logical time, and port_close(T_n+1)
 * commits it (doc/master.md "One instant per macro step").
 *
 * Calling a slave. An algorithm calls an operation through port_OP(slave, ...) (port_set_inputs,
 * port_step, ...), never through the table: one place checks the slave and the arguments and
 * gives an empty slot its meaning (PORT_EUNSUPPORTED; record and collect: nothing to do). The
 * unit tests make a slave fail in one way too: tests/unit/port_fault.h wraps it in a table that
 * forwards every call through these functions but the one it is armed to fail. A peer calls its
 * exchange likewise, through exchange_* (algorithms/exchange.h).
 *
 * Post and collect (the contract every slave keeps; tests/unit/fmu_slave_test.c shows it). A
 * post returns PORT_OK when the operation was posted (in one process: done), else its error. A
 * failure of the operation itself (refused by the slave, its FMU or the transport) is also
 * reported by the slave's next collect, the first error of the round winning over an event,
 * so an algorithm may ignore a post's return and test the sync. A refusal by the port_* call
 * (a NULL slave, a table of another version, a bad argument, an empty slot) comes back from the
 * post only: the slave never saw it. port_sync collects every slave: it returns the worst
 * status of the round and leaves each slave's cleared.
 *
 * Save and restore. save(slot) keeps the FMU's state (fmi2GetFMUstate), the slave's time and
 * its discrete outputs with their event times; not the inputs: after a restore the inputs last
 * set stay in force, so an algorithm that retries a step sets them again. A model-exchange
 * slave's CVODE keeps no history across a save: saving restarts the integrator at the saved
 * time, as a restore does, so that the path going on after a save and the path coming back to
 * it run the same instructions, bit for bit (doc/fmu.md §7). The price: a run that saves at
 * every commit and one that does not differ in the last bits (of the order of 1e-9 relative
 * after a minute of simulated time); two algorithms that must agree bit for bit save at the
 * same points.
 *
 * After a refusal. A step that returns PORT_EDISCARD leaves the slave at the time it reached;
 * until a restore it refuses another step and a save (PORT_EUSAGE). The instant stays open: the
 * algorithm restores, retries inside it (a smaller step, other inputs) and closes it once a
 * step is accepted.
 */
#ifndef TEMPO_ALGORITHMS_PORT_H
#define TEMPO_ALGORITHMS_PORT_H

#include <stddef.h>
#include <stdint.h>

/* Status codes of every port operation, of port_sync and of the algorithms over the port:
 * 0 success, positive informative, negative errors grouped by cause. */
typedef enum port_status {
    PORT_OK = 0,
    PORT_EVENT = 1,         /* step: the slave stopped early at an event (port_step_result) */
    PORT_TERMINATED = 2,    /* step: the model asked to stop; the time reached is reported */
    PORT_EDISCARD = -1,     /* recoverable: the slave refused the step; restore a saved state */
    PORT_EUNSUPPORTED = -2, /* the slave cannot do this (no state saving, no derivatives) */
    PORT_EUSAGE = -3,       /* bad argument or call order (algorithm bug or bad settings) */
    PORT_EFAIL = -4,        /* the slave is broken (FMU error, solver failure): stop */
    PORT_ELOST = -5,        /* the slave is gone (process died, resigned, timed out) */
    PORT_ENOCONV = -6,      /* an algorithm did not converge within its limits */
    PORT_ENOMEM = -7,       /* allocation failed */
} port_status;

/* One coupling of a master algorithm: input `in` of slave `to` takes output `out` of slave
 * `from` (indices into port_master.slaves, and into those slaves' inputs and outputs). The
 * loaded file gives them in slave and input order (fedfile_master_links). */
typedef struct port_link {
    size_t to, in, from, out;
} port_link;

/** Name of a status ("ok", "event", "discarded", ...); never NULL. */
const char *port_strerror(int status);

/* Inputs of one step as polynomials in (t - t0), t0 in ticks: for input i,
 *   u_i(t) = sum_{k=0..order} c[i*(order+1) + k] * s^k / k!,   s = (t - t0) * tick  (seconds)
 * so c[i*(order+1)] is the value at t0 and the others its time derivatives. order 0 holds the
 * value; a waveform from the other slaves is handed over as the polynomial the algorithm fitted
 * to it. A co-simulation slave hands the derivatives to fmi2SetRealInputDerivatives when the FMU
 * can interpolate inputs; a model-exchange slave evaluates the polynomial at every right-hand
 * side evaluation. */
#define PORT_MAX_ORDER 8
typedef struct port_poly {
    int64_t t0;      /* expansion point, ticks */
    int order;       /* 0..PORT_MAX_ORDER */
    size_t n;        /* number of inputs: the slave's input count */
    const double *c; /* n * (order + 1) coefficients, caller-owned, read at post time */
} port_poly;

/* What a step did. Written by the slave, valid after port_sync. */
typedef struct port_step_result {
    int64_t t_reached; /* ticks: the target, or earlier on an event / termination / discard */
    int event;         /* 1: a state, time or step event stopped the step at t_reached */
    int n_sub_done;    /* sub-steps whose outputs were written to y_sub */
} port_step_result;

/* A discrete output value with the time of the event that set it (hybrid algorithm). */
typedef struct port_discrete {
    double v;  /* the value after the event */
    int64_t t; /* ticks: time of the event; INT64_MIN when the value never changed */
} port_discrete;

/* What a slave is and can do, filled by the side that creates it (read-only afterwards). */
typedef struct port_slave_info {
    const char *name;      /* the federate or instance name, for messages */
    size_t n_in, n_out;    /* Real inputs and outputs, in the order of the wiring */
    size_t n_state;        /* continuous states (0: none, or not exposed) */
    size_t n_discrete;     /* discrete outputs (Integer/Boolean/Real with variability
                              discrete), reported with their event time */
    int can_save;          /* save/restore work (fmi2GetFMUstate or our own snapshot) */
    int max_output_deriv;  /* highest output derivative order offered (0: none) */
    int has_state_derivs;  /* get_derivatives and set_states work (ME, or CS exposing them) */
    int has_directional;   /* get_directional works (providesDirectionalDerivative) */
    int is_me;             /* model exchange integrated by the slave's own CVODE */
    const long *out_state; /* NULL (unknown), or n_out entries: the continuous state output k
                              is (the same variable), -1 when it is not a state; strong
                              coupling then wires states to inputs without reading outputs */
} port_slave_info;

/* The operations. Each posts the operation and returns PORT_OK, or an error when it could not
 * even be posted (bad argument, slave already failed). Buffers passed for results must stay
 * valid until the next port_sync. Operations posted to one slave complete in post order. */
#define PORT_OPS_VERSION 1 /* port_slave_ops.version: the layout of this table */

typedef struct port_slave_ops {
    /* Inputs for the next step(s); see port_poly. */
    int (*set_inputs)(void *ctx, const port_poly *u);
    /* Advance from the slave's time to t_to. With n_sub > 1 the step is split into n_sub equal
     * sub-steps and the outputs after each are written to y_sub[k * n_out + j] (NULL: none);
     * with n_sub <= 1, y_sub (if not NULL) receives the outputs at the end. An event stops the
     * step early (res->event, PORT_EVENT from sync). res may be NULL. */
    int (*step)(void *ctx, int64_t t_to, int n_sub, double *y_sub, port_step_result *res);
    /* Outputs at the slave's current time, after the inputs set (direct feedthrough seen). */
    int (*get_outputs)(void *ctx, double *y);
    /* The order-th time derivatives of the outputs, 1 <= order <= max_output_deriv. */
    int (*get_output_derivs)(void *ctx, int order, double *dy);
    /* Discrete outputs with the time of the event that last set each. */
    int (*get_discrete)(void *ctx, port_discrete *d);
    /* Set discrete inputs (values from another slave's discrete outputs, hybrid algorithm). */
    int (*set_discrete)(void *ctx, size_t n, const port_discrete *d);
    /* Share Data Only Discrete (hybrid algorithm): send this slave's discrete outputs with
     * their event times to the slaves whose discrete inputs they feed, slave to slave (not
     * through the master), and take what those send in the same round as its own discrete
     * inputs (as set_discrete). t, ticks, names the round. Every slave of the round must be
     * posted it before the sync: a slave completes only once its sources have shared. NULL
     * when the slave cannot share. */
    int (*share_discrete)(void *ctx, int64_t t);
    /* Continuous states and their derivatives at the current time (strong coupling). */
    int (*get_states)(void *ctx, double *x);
    int (*set_states)(void *ctx, int64_t t, const double *x);
    int (*get_derivatives)(void *ctx, double *dx);
    /* Directional derivatives of outputs wrt inputs: dy = (dy/du) * du (semi-implicit). */
    int (*get_directional)(void *ctx, const double *du, double *dy);
    /* Save the state (FMU state, time, discrete outputs; not the inputs) in slot
     * (0..PORT_SLOTS-1) inside the slave, replacing what the slot held; restore goes back to it.
     * Both restart a model-exchange slave's CVODE ("Save and restore" above). */
    int (*save)(void *ctx, int slot);
    int (*restore)(void *ctx, int slot);
    /* Record the slave's own results row at its current time (CSV), once a step is accepted. */
    int (*record)(void *ctx);
    /* Complete the operations posted since the last collect and return their status (the
     * first non-OK one; PORT_EVENT / PORT_TERMINATED from a step; else PORT_OK), then forget
     * it. In one process the operations already ran and this only returns the status; over
     * libtempo it waits for this slave's replies (the others' keep arriving meanwhile, so
     * collecting N slaves in turn costs the slowest round trip, not the sum). Called by
     * port_sync; not by algorithms directly. */
    int (*collect)(void *ctx);
    int version; /* PORT_OPS_VERSION; the port_* calls refuse another table (PORT_EUSAGE) */
} port_slave_ops;

#define PORT_SLOTS 4 /* saved states a slave keeps: T_n, and three for nested rewinds */

typedef struct port_slave {
    const port_slave_ops *ops;
    void *ctx;
    port_slave_info info;
} port_slave;

/* The calls of the operations (algorithms/port_ops.c): the slave's operation with the same
 * arguments, after the checks of "Calling a slave" above. Each returns PORT_EUSAGE for a NULL
 * slave, a table of another version or a bad argument (NULL buffers where the slave has
 * values, an order out of range, a slot outside 0..PORT_SLOTS-1), PORT_EUNSUPPORTED for an
 * empty slot (port_record and port_collect: PORT_OK), else what the operation returns. */
int port_set_inputs(const port_slave *s, const port_poly *u);
int port_step(const port_slave *s, int64_t t_to, int n_sub, double *y_sub, port_step_result *res);
int port_get_outputs(const port_slave *s, double *y);
int port_get_output_derivs(const port_slave *s, int order, double *dy);
int port_get_discrete(const port_slave *s, port_discrete *d);
int port_set_discrete(const port_slave *s, size_t n, const port_discrete *d);
int port_share_discrete(const port_slave *s, int64_t t);
int port_get_states(const port_slave *s, double *x);
int port_set_states(const port_slave *s, int64_t t, const double *x);
int port_get_derivatives(const port_slave *s, double *dx);
int port_get_directional(const port_slave *s, const double *du, double *dy);
int port_save(const port_slave *s, int slot);
int port_restore(const port_slave *s, int slot);
int port_record(const port_slave *s);
int port_collect(const port_slave *s);

/* What a slave's table offers, for algorithms that adapt to it. */
typedef enum port_op {
    PORT_OP_OUTPUT_DERIVS = 1, /* get_output_derivs */
    PORT_OP_DISCRETE,          /* get_discrete */
    PORT_OP_SHARE_DISCRETE,    /* share_discrete */
    PORT_OP_STATES,            /* get_states, set_states and get_derivatives */
    PORT_OP_DIRECTIONAL,       /* get_directional */
    PORT_OP_SAVE,              /* save and restore */
    PORT_OP_RECORD,            /* record */
} port_op;
/** 1 when slave s (a table of this version) fills op's slots, else 0. */
int port_has(const port_slave *s, port_op op);

/* The master's side: the set of slaves and the instant control. */
typedef struct port_master_ops {
    /* Open the instant t (TARA(t) over libtempo; nothing in one process). t must not be below
     * the last closed instant. */
    int (*open)(void *ctx, int64_t t);
    /* Close the instant t: every slave commits its step (TAR(t) by everyone). Operations
     * posted and not yet synced go out with the close, before it, and are answered before
     * the slaves commit: the next port_sync (after the close) completes them without another
     * round trip. An algorithm whose last operations of an instant need no answer before the
     * close (inputs for the next step, record, a commit whose outputs serve the next
     * instant) posts them, closes, then syncs (doc/algorithms/port.md "Closing with posts"). */
    int (*close)(void *ctx, int64_t t);
    /* Note one algorithm event for the record (iteration count, residual, step decision): the
     * distributed side writes it into the federation log and the CSV, the local side into the
     * CSV; may be NULL. */
    void (*note)(void *ctx, const char *what, double value);
} port_master_ops;

/* Checkpoints of a master algorithm between macro steps (doc/checkpoint.md "Master methods").
 * An algorithm that can save hands its state between steps to `offer` just before it closes
 * each instant (port_ckpt_offer): the bytes (algorithms/pstate.h) say what a run resumed after
 * that instant needs beyond the slaves' own states; the master keeps a copy for a save made in
 * that close. A run given `resume` (bytes an offer gave) starts after that instant instead of
 * at t_start: it re-enters the step loop with the saved state and never re-runs the start.
 * Which algorithms do: doc/checkpoint.md "Status"; the others ignore both, and their callers
 * must not hand them `resume`. */
typedef struct port_ckpt {
    /* the state once instant t is closed; NULL: nobody saves. Returns PORT_OK or
     * PORT_ENOMEM (the run stops). */
    int (*offer)(void *ctx, int64_t t, const void *state, size_t n);
    void *ctx;
    const void *resume; /* NULL: a run from t_start; else n_resume bytes of an offer */
    size_t n_resume;
    /* The state once instant t closes, written only if a save needs it: write(arg, &bytes,
     * &n) hands malloc'ed bytes (the caller frees them) and returns PORT_OK or PORT_ENOMEM;
     * the master calls it in the close's grant, when the replies of every operation posted
     * before the close have landed in the algorithm's buffers (an algorithm whose state
     * depends on such replies offers this way: port_ckpt_offer_later), and never after the
     * next open. NULL: port_ckpt_offer_later writes the bytes at once and offers them. */
    int (*offer_later)(void *ctx, int64_t t, int (*write)(void *arg, void **bytes, size_t *n),
                       void *arg);
    /* Asked once per instant t the algorithm closes, in order: 1 when t is the first instant
     * at or past a checkpoint instant of the run (a save may be made in its close), else 0.
     * An algorithm whose state holds history it cannot write (strong coupling's CVODE) starts
     * it afresh after such a close, whether or not the save is made, as a resumed run starts
     * it (doc/checkpoint.md "Master methods"). NULL: never. */
    int (*marked)(void *ctx, int64_t t);
} port_ckpt;

typedef struct port_master {
    const port_master_ops *ops;
    void *ctx;
    port_slave *slaves; /* n_slaves slaves */
    size_t n_slaves;
    double tick;            /* seconds per tick */
    int64_t t_start, t_end; /* ticks */
    const port_ckpt *ckpt;  /* NULL: no checkpoints (see port_ckpt) */
} port_master;

/** Hand the state once instant t closes to m->ckpt->offer, when there is one.
 *  @return PORT_OK, or what offer returns. */
int port_ckpt_offer(const port_master *m, int64_t t, const void *state, size_t n);

/** The state once instant t closes, as write(arg, ...) makes it when a save needs it
 *  (m->ckpt->offer_later), or at once through m->ckpt->offer when the master takes offers
 *  only; nothing without either. arg must stay valid until the next open.
 *  @return PORT_OK, or what write or offer returns. */
int port_ckpt_offer_later(const port_master *m, int64_t t,
                          int (*write)(void *arg, void **bytes, size_t *n), void *arg);

/** m->ckpt->marked(t) when there is one, else 0 (see port_ckpt.marked). */
int port_ckpt_marked(const port_master *m, int64_t t);

/**
 * Complete every posted operation of every slave (each slave's collect, in turn).
 * @param m      the master, not NULL
 * @param status NULL, or n_slaves entries: slave j's status
 * @return the worst status: the most negative one, else the largest positive one, else PORT_OK.
 *         A caller may test only the return value and look at status[] to name the slave.
 */
int port_sync(const port_master *m, int *status);

/**
 * port_sync that also says which slave to name in a failure report: *culprit receives the
 * index of the first slave whose status is the one returned, or -1 when that is PORT_OK.
 * @param culprit not NULL
 */
int port_sync_first(const port_master *m, int *status, long *culprit);

/**
 * Write a printf-style message into a caller-owned error buffer and return status: the one
 * error helper of every algorithm over the port (doc/contributing.md §6).
 * @param err    buffer, may be NULL (then nothing is written); @param errlen its size
 * @param status returned as it is
 * @return status.
 */
int port_errorf(char *err, size_t errlen, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/** Hand one algorithm event (iteration count, residual, step decision) to m->ops->note, when
 *  the master has one. */
void port_note(const port_master *m, const char *what, double value);

/**
 * Make room for need elements of size bytes in *p (capacity *cap, in elements), doubling
 * from 64: for the growing records of a run (residual histories), never in a step's inner loop.
 * @return 0, or -1 out of memory (*p and *cap unchanged).
 */
int port_grow(void **p, size_t *cap, size_t need, size_t size);

/* ---- The working set shared by the algorithms that step every slave each iteration ----
 * Waveform relaxation, semi-implicit, strong coupling and the hybrid algorithm all check the
 * master, number every slave's outputs and inputs into concatenated vectors, check each input
 * link and report a failed sync the same way; these calls do it once for all of them. */

/* What every slave must offer, checked by port_frame_init. */
enum { PORT_NEED_SAVE = 1, PORT_NEED_STATE_DERIVS = 2 };

/* Where the algorithm keeps what port_frame_init sizes: each member points at a field of the
 * algorithm's own working set, NULL where it does not want that part. */
typedef struct port_frame {
    size_t *n_c;                         /* slaves */
    size_t *n_out, *n_in;                /* outputs and inputs over all slaves */
    size_t **off_out, **off_in, **off_x; /* n_c + 1 prefix sums of n_out, n_in, n_state */
    port_step_result **sr;               /* n_c step results */
    int **st;                            /* n_c statuses of the last sync */
    port_link **by_in;                   /* n_in: the link feeding each input, inputs numbered
                                            slave by slave (input i of slave j is
                                            off_in[j] + i) */
} port_frame;

/* How port_frame_init checks the slaves and names the algorithm in its messages. */
typedef struct port_frame_rules {
    const char *who;        /* the algorithm's name, first word of every message ("wr") */
    int need;               /* PORT_NEED_SAVE or PORT_NEED_STATE_DERIVS */
    const char *lack;       /* "slave 'NAME' <lack>" when a slave cannot do what need asks */
    const port_link *links; /* n_links links, in any order; every input fed by exactly one */
    size_t n_links;
    int self_links; /* 1: a slave's input may be its own output (strong coupling) */
} port_frame_rules;

/**
 * Check the master (slaves, tick > 0, end after start), allocate the parts f asks for and fill
 * them: the prefix sums and totals, zeroed step results and statuses, and the links ordered by
 * the input they feed (by_in); check that every slave offers r->need, that every link names an
 * existing input and an existing output of another slave (of itself too with r->self_links),
 * and that every input is fed by exactly one link.
 * @param f  where to store each part, not NULL (its NULL members are skipped)
 * @param m  the master, not NULL
 * @param r  the checks and the algorithm's name, not NULL
 * @param err caller-owned buffer for the message ("<who>: ..."), may be NULL; errlen its size
 * @return PORT_OK; PORT_EUSAGE (no slaves, tick <= 0, end not after start, a link to a missing
 *         input or output, an input fed by no link or by two); PORT_EUNSUPPORTED (a slave without
 * r->need); PORT_ENOMEM. On error the parts already allocated stay in the fields: the caller frees
 * them with port_frame_fini, as after success. The arrays belong to the caller.
 */
int port_frame_init(const port_frame *f, const port_master *m, const port_frame_rules *r, char *err,
                    size_t errlen);

/** Free the arrays the members of f point at (NULL or not) and set those fields to NULL.
 *  f may be NULL. */
void port_frame_fini(const port_frame *f);

/* What port_sync_report hands back as it is, without a report (its pass argument). */
enum {
    PORT_PASS_EVENT = 1,   /* PORT_EVENT: the caller reads the step results */
    PORT_PASS_DISCARD = 2, /* PORT_EDISCARD: the caller recovers (restore, a smaller step) */
};

/**
 * port_sync_first into status, with the report an algorithm gives of a failed sync: a negative
 * status is returned as it is, a positive one (an event or a terminated model, which the
 * algorithm cannot handle) as PORT_EUNSUPPORTED. What pass names is returned as it is with no
 * message (err untouched): PORT_EVENT with PORT_PASS_EVENT, and with PORT_PASS_DISCARD a
 * PORT_EDISCARD, which an algorithm that recovers from a refused step does not report as a
 * failure; *failed_slave still names the slave that refused. Otherwise the message reads
 * "<who>: slave 'NAME' <what> at <t> s: <port_strerror>", with positive_note appended to a
 * positive status's text; *failed_slave receives the slave's index.
 * @param m, status as port_sync (status: n_slaves entries or NULL)
 * @param t  seconds, for the message
 * @param pass  0, or PORT_PASS_EVENT and PORT_PASS_DISCARD or-ed
 * @param positive_note  appended for a positive status, "" for none, not NULL
 * @param failed_slave   not NULL; written only on a failure or a passed discard
 * @param err caller-owned, may be NULL; errlen its size
 * @return PORT_OK, PORT_EVENT or PORT_EDISCARD (when passed), or the error as described.
 */
int port_sync_report(const port_master *m, int *status, const char *who, const char *what, double t,
                     int pass, const char *positive_note, int *failed_slave, char *err,
                     size_t errlen);

/**
 * Adds a slave's own words (cause) to an algorithm's report of a failed status (err), naming
 * the slave once (doc/algorithms/port.md "Failures"). A slave's words carry no name of their
 * own (fmu_slave_errmsg), or open with "slave NAME: " or "slave NAME lost: " when they crossed
 * the protocol (the master's record of the reply). When err already names the slave ("slave
 * NAME" or "slave 'NAME'"), the opening "slave NAME: " is dropped ("slave NAME lost: " becomes
 * "lost: "); when it does not and slave
 * is given, "slave NAME: " is put before the cause. When err ends with the generic words of
 * PORT_EFAIL or PORT_ELOST (port_strerror: "slave failed", "slave lost"), the cause replaces them
 * (with a "slave NAME: " just before them when the cause names the slave itself); else it follows
 * in brackets.
 * @param err     the report, NUL-terminated, errlen its size; cut to fit
 * @param status  the status err reports
 * @param slave   the failing slave's name when cause does not open with it, or NULL
 * @param cause   the slave's words; NULL or "" leaves err as it is
 */
void port_add_cause(char *err, size_t errlen, int status, const char *slave, const char *cause);

/* In one process: open and close only check that instants never go backwards (ctx is a
 * port_local_clock), note does nothing. */
typedef struct port_local_clock {
    int64_t last; /* last instant opened or closed, ticks; INT64_MIN before the first */
} port_local_clock;
extern const port_master_ops port_local_master_ops;

/* Convenience wrappers: the same call through the ops table. */
static inline int port_open(const port_master *m, int64_t t)
{
    return m->ops->open(m->ctx, t);
}
static inline int port_close(const port_master *m, int64_t t)
{
    return m->ops->close(m->ctx, t);
}

/**
 * Ticks to seconds: the one conversion of every time a federate hands on, to an FMU
 * (fmi2DoStep's communication point and step size), to a solver's stop time, to a CSV row or
 * to a message (doc/time.md, "Seconds from ticks"). A time is t = n ticks, converted here once;
 * it is never the sum of step sizes in seconds. With a whole number of ticks per second (1 ns:
 * 1e9) t is divided by it, which is correctly rounded: 15e9 ticks give 15 exactly, where
 * 15e9 * 1e-9 gives 15.000000000000002, so the last point of a run lands on the file's end time.
 * Otherwise t * tick.
 * @param tick seconds per tick, > 0
 * @param t    ticks
 * @return seconds.
 */
double port_seconds(double tick, int64_t t);

/* Saturating tick arithmetic (doc/contributing.md §11): a + b clamped to INT64_MAX. */
static inline int64_t port_tick_add(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
    return a + b;
}

#endif /* TEMPO_ALGORITHMS_PORT_H */
