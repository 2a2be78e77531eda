/* The FMU federate: hosts one FMU of a federation file as a federate and runs the file's
 * standalone coupling algorithm (Jacobi naive / improved, Jacobi discrete-event, Gauss-Seidel),
 * or, when tempo-master runs the file's method (wr, master-jacobi), the slave role.
 * Serves doc/guide.md (item 3), §5 and §8; the Awais thesis chapter 4 (doc/references.md (Awais)).
 * Read federate/fmufed/fmufed.c (the pieces put together) next, then fmufed_model.h (the FMU as
 * the peer's model), fmufed_rec.h (rows), fmufed_tp.h (the peer exchange over libtempo); the
 * algorithms themselves are algorithms/jacobi.c, jacobi_de.c, gauss_seidel.c
 * (doc/algorithms/port.md); users read the "How tempo-fmu runs it" sections of doc/algorithms/.
 */
#ifndef TEMPO_FEDERATE_FMUFED_H
#define TEMPO_FEDERATE_FMUFED_H

#include <stddef.h>
#include <stdint.h>

#include "federate/config/fedfile.h"
#include "federate/libtempo/tempo.h"

#define FMUFED_ERRLEN 2048 /* a buffer this size holds any message of this module */

/* Status codes: 0 success, negative errors. */
enum {
    FMUFED_OK = 0,
    FMUFED_EUSAGE = -1, /* bad arguments: unknown federate name, bad RTI address */
    FMUFED_EFMU = -2,   /* the FMU cannot be loaded, does not fit the file, or failed a step */
    FMUFED_ERTI = -3,   /* join, declaration, time management or a peer failed */
    FMUFED_EIO = -4,    /* the results file could not be written */
    FMUFED_ENOMEM = -5, /* out of memory */
};

/* Called with every recorded row: the time (s) and the n recorded values (the federate's
 * "record" list, else its outputs), as they are written to the CSV; used by tests to compare
 * runs bit for bit. Runs in the federate's thread; must not call fmufed functions. */
typedef void (*fmufed_row_hook)(void *ctx, double t, const double *v, size_t n);

/* Options of one run; all-zero means "as the federation file says". */
typedef struct fmufed_opts {
    const char *rti;    /* "HOST:PORT" or "unix:PATH" overriding the file's "rti" */
    const char *output; /* results folder overriding the file's "output" */
    int timeout_ms;     /* longest wait for one join, sync or grant; < 0 = none; 0 = the
                           default: 60000 for the start (joins, time management, start
                           sync), none during the run (a dead peer is resigned by the RTI,
                           which ends the wait; a hung one is the supervisor's business) */
    int quiet;          /* fmufed_main only: no progress or summary lines on stdout */
    /* Called with the simulation time (s) after the start and whenever the run has gone
     * another 1 % of [start, end] further, and at the end; NULL: none. Runs in the federate's
     * thread between steps; must not call fmufed functions. */
    void (*progress)(void *ctx, double t);
    void *progress_ctx;  /* passed to progress */
    fmufed_row_hook row; /* every recorded row, also without a CSV; NULL: none */
    void *row_ctx;       /* passed to row */
    /* Checkpoints (doc/checkpoint.md, "tempo-fmu's part"). The checkpoint instants: every
     * ckpt_every ticks after the start (0: none) and the n_ckpt_at times ckpt_at (ticks), all
     * before the end. The file's first federate asks the RTI for a save labelled
     * "ckpt-<ticks>" at each; every federate restarts a model-exchange integrator at each
     * (whether or not the save is written), so runs asked for the same instants keep the
     * same bits. A federate whose FMU cannot serialize its state is refused at the start. */
    int64_t ckpt_every;
    const int64_t *ckpt_at;
    size_t n_ckpt_at;
    /* The outcome of each save this federate asked for: its label, time (s), status (TP_OK
     * or the failure's code), detail (the folder, or who failed and why) and the wall time
     * from this federate's part to the outcome (s). Runs in the federate's thread inside a
     * libtempo call; must not call fmufed functions. NULL: none. */
    void (*ckpt_done)(void *ctx, const char *label, double t, int status, const char *detail,
                      double seconds);
    void *ckpt_ctx; /* passed to ckpt_done */
    int restore;    /* 1: join a federation restored from a checkpoint (tp_restore_federation)
                       as the federate of this name, restore its part and go on from there;
                       the CSV is continued at the saved position (res_resume) */
    const char *const *set; /* n_set "FEDERATE.VARIABLE=VALUE": after the restore, the
                               federate of that name sets the variable in its FMU (a branch
                               of the saved run; an input or a tunable parameter) */
    size_t n_set;
} fmufed_opts;

/* What a run did (filled also on failure, as far as it got). */
typedef struct fmufed_stats {
    long steps;              /* instants (communication points) passed after the start:
                                what the summary line calls "instants" (doc/fmu.md) */
    long updates;            /* attribute updates sent */
    long reflections;        /* attribute values received and mapped to inputs */
    long requests;           /* time-advance requests (TAR, TARA, NER, NERA, FQR) issued */
    double t_final;          /* simulation time reached, s */
    long refused;            /* slave role: commands and shares refused, not from the federate their
                                class belongs to (doc/master.md "Commands only from the master") */
    char refused_first[200]; /* the first refused message's sender ("" when none) */
    char csv[1024];          /* path of the results CSV ("" when none was written) */
} fmufed_stats;

/**
 * Run federate `name` of a loaded federation file to the end time: load its FMU with the
 * file's parameters and solver settings (checked with fedfile_check_fmu), join the federation
 * (created when missing; FOM given or generated), publish outputs and subscribe inputs per the
 * wiring, register one object per published class, enable time regulation and constrained,
 * synchronise the start with every federate of the file (sync point "tempo-start"), run the
 * algorithm, write "<output>/<name>.csv" (time and the recorded variables at every
 * communication point), synchronise the end ("tempo-end") and resign.
 * A peer that resigns before the end fails the run with its name and reason.
 * @param ff     loaded federation file, not NULL (not modified)
 * @param name   federate name in ff, not NULL
 * @param opts   options, may be NULL
 * @param stats  out: figures of the run, may be NULL
 * @param err    caller-owned buffer for the reason, naming the federate (FMUFED_ERRLEN is enough)
 * @param errlen its size
 * @return FMUFED_OK, FMUFED_EUSAGE, FMUFED_EFMU, FMUFED_ERTI, FMUFED_EIO, FMUFED_ENOMEM.
 */
int fmufed_run(const fedfile *ff, const char *name, const fmufed_opts *opts, fmufed_stats *stats,
               char *err, size_t errlen);

/* ---- every federate of a file in one process (fmufed_all.c, doc/inproc.md) ----------------- */

/* Options of fmufed_run_all; all-zero means the defaults. */
/* What tempo-fmu --all and tempo-master --in-process run the federates as when neither
 * --tasks nor --threads is given: 1 tasks on one thread, 0 threads (doc/inproc.md). */
#define FMUFED_ALL_TASKS_DEFAULT 1

typedef struct fmufed_all_opts {
    const fmufed_opts *opts; /* given to every federate (rti is replaced); may be NULL */
    const char *log_dir;     /* the embedded RTI's federation log folder (doc/log.md); NULL:
                                none */
    int spin_us;             /* tp_inproc_options.spin_us: 0 default, < 0 never spin */
    int tasks;               /* 1: every federate (and main_fn) a task on the calling thread
                                (tp_inproc_options.tasks); 0: each a thread */
    /* Progress of each federate: called with ctx = the federate's name (valid during the
     * run) and the simulation time; runs in that federate's thread. NULL: none. */
    void (*progress)(void *ctx, double t);
    /* Run in the calling thread while the federates run, given the embedded RTI's address
     * ("inproc:NAME"; with tasks, as one more task): the master of a master method
     * (tempo-master --in-process). Returns 0,
     * or nonzero with err filled (that failure is then the run's). NULL: none; a master
     * method is then refused. */
    int (*main_fn)(void *ctx, const char *rti, char *err, size_t errlen);
    void *main_ctx;       /* passed to main_fn */
    void **row_ctx;       /* NULL, or one opts->row context per federate, in file order (tests) */
    const char *ckpt_dir; /* the embedded RTI's checkpoint folder (tp_inproc_options); NULL:
                             saves are refused */
    const char *resume;   /* a checkpoint folder: the embedded RTI restores the federation
                             from it and every federate rejoins it (opts->restore); NULL:
                             a fresh run */
    const char *http;     /* tp_inproc_options.http: serve the live view (doc/live.md); NULL none */
    void (*on_view)(const char *address); /* told the view's bound "HOST:PORT" once it serves
                                             (before any federate runs); NULL: none */
} fmufed_all_opts;

/**
 * Run every federate of a loaded file in this process: an RTI embedded in the process
 * (tp_inproc_start, named after the federation and the process id) and each federate a
 * thread (or, with ao->tasks, a task of the calling thread) running fmufed_run over it; the results
 * are the distributed run's, bit for bit (doc/inproc.md). Refused before anything runs: a master
 * method without main_fn, and an FMU whose modelDescription.xml says
 * canBeInstantiatedOnlyOncePerProcess (named).
 * @param stats out: ff->n_feds entries in file order, or NULL
 * @return as fmufed_run: the first federate's failure that is not a consequence of another's.
 */
int fmufed_run_all(const fedfile *ff, const fmufed_all_opts *ao, fmufed_stats *stats, char *err,
                   size_t errlen);

/**
 * Do two federates of the file name the same FMU (the same file, by its real path)? Their
 * instances would share one library per process (each instance loads its own copy of the FMU's
 * binary, but the libraries that copy uses, an embedded interpreter's for one, exist once), and
 * threads would call into it at once: tempo-fmu --all and tempo-master --in-process then run
 * the federates as tasks, on one thread, whatever --threads says (doc/inproc.md).
 * @param why out: "federates A and B both load FMU" when 1, may be NULL
 * @return 1 when two do, else 0
 */
int fmufed_all_shared_fmu(const fedfile *ff, char *why, size_t len);

/**
 * In process (fmufed_run_all): has a federate (or the master) of this process failed? Its
 * peers then stop their start-up waits (joins, start synchronisation) at once instead of
 * waiting out their timeout, and say they only followed (FMUFED_FOLLOWED). Thread-safe.
 * @param who out: the federate that failed ("" when unknown), may be NULL
 * @param len bytes of who
 * @return 1 when one failed, else 0 (always 0 outside fmufed_run_all)
 */
int fmufed_abandoned(char *who, size_t len);

/** Mark this process's in-process run as failed by federate `who` (the first call wins). */
void fmufed_abandon(const char *who);

/* The words a federate's message holds when it stopped only because another one of the
 * process failed (fmufed_run_all then reports the other's). */
#define FMUFED_FOLLOWED "stopped: federate"

/**
 * tp_sync for the start-up of an in-process federate: the same waits, in slices, that end
 * early when fmufed_abandoned() says another federate of the process failed.
 * @return a tp_sync code; TP_TIMEOUT after timeout_ms (< 0: none); *abandoned = 1 (and
 *         TP_TIMEOUT) when the wait ended because of another federate's failure
 */
int fmufed_sync(tp_federate *tp, const char *label, int timeout_ms, int *abandoned);

/* ---- the slave role of master methods (fmufed_slave.c, doc/master.md) ---------------------- */

#include "algorithms/port.h"

/* One federate of a file as an in-process port slave: its FMU opened with the file's
 * parameters, wrapped by fmu_slave (federate/fmu/fmu_slave.h), recording its CSV; or, for a
 * "python" federate, its model in a tempo-slave process (federate/msproto/msproto_child.h),
 * which writes its own CSV (doc/python.md "In one process"). */
typedef struct fmufed_local fmufed_local;

/**
 * Open federate idx of a loaded file as a port slave (tempo-master's one-process mode, and the
 * inside of the slave role).
 * @param ff     loaded file, not NULL; must outlive the slave
 * @param idx    federate index
 * @param output results folder overriding the file's, or NULL
 * @param out    out: the slave (fmufed_local_free)
 * @param ps     out: its port slave (valid while *out lives)
 * @return FMUFED_OK, FMUFED_EUSAGE, FMUFED_EFMU, FMUFED_EIO, FMUFED_ENOMEM (err set).
 */
int fmufed_local_new(const fedfile *ff, size_t idx, const char *output, fmufed_local **out,
                     port_slave *ps, char *err, size_t errlen);

/** The last failure's message of the slave's FMU operations ("" when none). */
const char *fmufed_local_errmsg(const fmufed_local *l);

/** The slave's time (ticks): its FMU's, or its Python model's as the last reply said. */
int64_t fmufed_local_time(const fmufed_local *l);

/* federate/fmu/fmu_slave.h: the in-process slave-to-slave channel of discrete values. */
typedef struct fmu_slave_bus fmu_slave_bus;

/**
 * Hybrid method in one process: join the slave (federate idx of ff) to the bus its fellow
 * slaves share discrete values on (port share_discrete), its discrete inputs fed as the file
 * wires them (fedfile_bus_source). The bus must outlive the slave's last share.
 * @return FMUFED_OK, FMUFED_EUSAGE, FMUFED_ENOMEM (err set).
 */
int fmufed_local_join_bus(fmufed_local *l, fmu_slave_bus *b, const fedfile *ff, size_t idx,
                          char *err, size_t errlen);

/**
 * Close the CSV and the FMU and free. Accepts NULL.
 * @return FMUFED_OK, or FMUFED_EIO when the CSV could not be completed (err set).
 */
int fmufed_local_free(fmufed_local *l, char *err, size_t errlen);

/**
 * The slave role: federate `name` of a file whose method tempo-master runs. Joins with the
 * master-slave FOM (federate/msproto/msproto.h), registers its Slave<i> object, subscribes to
 * Command<i>, and executes the master's commands on its FMU until the end command, replying
 * to each at the open instant. fmufed_run calls it for such files. A master that leaves first
 * fails the run with its reason. Of opts it uses rti, output and timeout_ms (not progress
 * nor row). The FMU and the CSV are the peer's pieces (fmufed_model.h, fmufed_rec.h), the FMU
 * wrapped by fmu_slave.
 * @return as fmufed_run.
 */
int fmufed_slave_run(const fedfile *ff, const char *name, const fmufed_opts *opts,
                     fmufed_stats *stats, char *err, size_t errlen);

/**
 * Command-line entry: tempo-fmu --federation FILE --name X [--rti HOST:PORT|unix:PATH]
 * [--output DIR] [--timeout MS] [--quiet]. Loads the file and calls fmufed_run; prints errors
 * to stderr as "tempo-fmu: federate X: reason" and, on stdout unless --quiet, progress
 * lines "progress T END" (two numbers, seconds, %.17g; for tempo-run: sscanf(line,
 * "progress %lf %lf", &t, &end)) and one summary line "tempo-fmu: X: done at ..." at the end.
 * @param argc, argv as given to main
 * @return the process exit status: 0 success, 1 run failure, 2 usage error.
 */
int fmufed_main(int argc, char **argv);

#endif
