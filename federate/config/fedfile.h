/* Federation files: the JSON document that names the RTI, the FOM, the FMU federates, their
 * wiring, parameters and solver settings, the coupling algorithm and what to record.
 *
 * The schema is doc/federation.md. fedfile_load parses
 * and checks everything that needs no FMU; fedfile_check_fmu checks a federate against its
 * FMU's modelDescription (a hook: nothing calls it yet, see its comment). Read
 * federate/config/fedfile.c next, then algorithms/topology.h (Gauss-Seidel plan).
 */
#ifndef TEMPO_FEDERATE_FEDFILE_H
#define TEMPO_FEDERATE_FEDFILE_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/exchange.h"
#include "algorithms/hybrid.h"
#include "algorithms/port.h"
#include "algorithms/semi.h"
#include "algorithms/strong.h"
#include "algorithms/topology.h"
#include "algorithms/wr.h"
#include "federate/fmu/fmu_md.h"

#define FEDFILE_ERRLEN             1024 /* a buffer this size holds any message of this module */
#define FEDFILE_DEFAULT_PORT       7470 /* doc/protocol.md */
#define FEDFILE_DEFAULT_RESOLUTION 1e-9 /* seconds per tick when "resolution" is absent */

/* Status codes: 0 success, negative errors. */
enum {
    FEDFILE_OK = 0,
    FEDFILE_EIO = -1,     /* the file cannot be read (message has strerror) */
    FEDFILE_ESYNTAX = -2, /* not JSON (message has line and column) */
    FEDFILE_ESCHEMA = -3, /* JSON, but not a valid federation file (message has the JSON path) */
    FEDFILE_ENOMEM = -4,  /* out of memory */
    FEDFILE_EUSAGE = -5,  /* NULL arguments, index out of range */
};

/* The coupling algorithm (doc/algorithms/README.md, the Awais thesis chapter 4). */
typedef enum fedfile_alg {
    FEDFILE_ALG_JACOBI_NAIVE = 1, /* "jacobi-naive": TAR, lookahead = step (§4.2.1, Fig. 4.4) */
    FEDFILE_ALG_JACOBI,           /* "jacobi": TARA/TAR at lookahead 0 (§4.2.1, Fig. 4.9) */
    FEDFILE_ALG_JACOBI_DE,        /* "jacobi-de": NERA/NER, quantized steps (§4.2.2) */
    FEDFILE_ALG_GAUSS_SEIDEL,     /* "gauss-seidel": FQR + step forward (§4.3, Algorithm 1) */
    FEDFILE_ALG_DEFECT_CONTROL,   /* "defect-control": a master runs Glumac and Kovačić's
                                     Algorithm 1 (doc/algorithms/defect-control.md) */
    FEDFILE_ALG_WR,               /* "wr": waveform relaxation, master-slave (§5.2, Alg. 2) */
    FEDFILE_ALG_MASTER_JACOBI,    /* "master-jacobi": tempo-master drives slaves over the port
                                     (doc/master.md; fedfile_master.h) */
    FEDFILE_ALG_SEMI,             /* "semi-implicit": quasi-Newton coupling, master-slave
                                     (§5.3, Alg. 3; doc/algorithms/semi-implicit.md) */
    FEDFILE_ALG_F3ORNITS,         /* "f3ornits": Éguillon et al.'s flexible order and
                                     asynchronous steps (doc/algorithms/f3ornits.md) */
    FEDFILE_ALG_STRONG,           /* "strong": CVODE in the master over every slave's states
                                     (§5.4, Alg. 4; doc/algorithms/strong-coupling.md) */
    FEDFILE_ALG_HYBRID,           /* "hybrid": events, rewind, step-size control, master-slave
                                     (§5.5, Alg. 5; doc/algorithms/hybrid.md) */
    FEDFILE_ALG_BALANCE,          /* "balance": explicit master with the coupling layer
                                     (doc/algorithms/balance-correction.md) */
    FEDFILE_ALG_ENERGY,           /* "energy": negotiated power exchange
                                     (doc/algorithms/energy-balance.md) */
} fedfile_alg;

/* Integration method for model-exchange FMUs (CVODE). */
typedef enum fedfile_method {
    FEDFILE_METHOD_DEFAULT = 0, /* not given: the integrator's default (BDF) */
    FEDFILE_METHOD_BDF,
    FEDFILE_METHOD_ADAMS,
} fedfile_method;

/* Kind of a parameter value, as written in JSON. */
typedef enum fedfile_kind {
    FEDFILE_REAL = 1, /* JSON number with a fraction or exponent */
    FEDFILE_INTEGER,  /* JSON integer (also acceptable for a Real parameter) */
    FEDFILE_BOOLEAN,  /* true / false */
    FEDFILE_STRING,   /* JSON string */
} fedfile_kind;

/* One parameter assignment "name": value. */
typedef struct fedfile_param {
    char *name;        /* FMU variable name */
    fedfile_kind kind; /* which of the fields below holds the value */
    double real;       /* REAL; also set for INTEGER (converted) */
    long long integer; /* INTEGER; BOOLEAN as 0/1 */
    char *string;      /* STRING, else NULL */
} fedfile_param;

/* One wiring entry: an FMU variable and the FOM attribute Class.attribute it maps to. */
typedef struct fedfile_wire {
    char *var;  /* FMU variable (output for outputs, input for inputs) */
    char *cls;  /* object class name */
    char *attr; /* attribute name */
    int source; /* inputs only: index of the federate that publishes cls.attr */
} fedfile_wire;

/* Quantum of one output for jacobi-de. */
typedef struct fedfile_quantum {
    char *var; /* output variable */
    double q;  /* quantum, output unit, > 0 */
} fedfile_quantum;

/* Solver settings for model-exchange FMUs; 0 means "default" (the FMU's DefaultExperiment
 * tolerance, else the integrator's own default). */
typedef struct fedfile_solver {
    fedfile_method method; /* BDF or Adams */
    double rtol;           /* relative tolerance, > 0 when given */
    double atol;           /* absolute tolerance, > 0 when given */
    double max_step;       /* largest internal step, s, > 0 when given */
} fedfile_solver;

/* One federate. */
typedef struct fedfile_fed {
    char *name;    /* unique in the file */
    char *fmu;     /* path of the FMU, resolved against the file's folder; NULL for a
                      program federate */
    char *program; /* a custom federate's executable (resolved), or NULL for an FMU
                      federate; tempo-run starts it with --federation, --name, --rti,
                      [--output] and then args (doc/federation.md, "Program federates") */
    size_t n_args;
    char **args;    /* the program's extra arguments, in file order */
    topo_role role; /* gauss-seidel: given or inferred; else TOPO_ROLE_AUTO */
    size_t n_params;
    fedfile_param *params; /* in file order */
    size_t n_outputs;
    fedfile_wire *outputs; /* published: var -> cls.attr, in file order */
    size_t n_inputs;
    fedfile_wire *inputs;  /* subscribed: cls.attr -> var, in file order */
    fedfile_solver solver; /* merged: file-level "solver" overridden field by field */
    size_t n_quanta;
    fedfile_quantum *quanta; /* jacobi-de per-output quanta (others use algorithm.quantum) */
    size_t n_record;
    char **record; /* variables written to the CSV; default: the outputs */
} fedfile_fed;

/* "algorithm"."defect-control": the settings of algorithms/defect_master.h's dc_config, as
 * written (doc/federation.md). The step is variable when tol > 0. */
typedef struct fedfile_dc {
    int m, n;                 /* input and output polynomial orders, 0..4 */
    double h1;                /* first (or fixed) step, s, > 0 */
    double tol;               /* s; 0: fixed step */
    double h_min, h_max;      /* s; 0: no bound */
    double kp, ki, theta_max; /* 0: the paper's 0.13, 1/15, 2 */
    int init;                 /* 0 "consistent", 1 "zero" */
    int exchange;             /* 0 "sequential", 1 "jacobi" */
    int defect;               /* 0 "both", 1 "output", 2 "connection" */
    int clip_end;             /* 1: the last step ends exactly at end */
} fedfile_dc;

/* "algorithm"."f3ornits": the settings of algorithms/f3ornits_master.h's f3_config, as
 * written (doc/federation.md). */
typedef struct fedfile_f3 {
    int fit;                 /* 0 "extrapolation", 1 "cls" */
    int order;               /* -1 flexible (the order function), 0..2 forced (0: ZOH) */
    int variable;            /* 1: the time-stepper chooses the steps; 0: fixed dt_init */
    int norm;                /* 0 "magnitude", 1 "amplitude", 2 "damped" */
    int smooth;              /* 1: C^1 inputs (Hermite cubics) */
    double mu;               /* 1/s, damping of "damped" */
    double rtol, atol;       /* tolerances of the normalisation */
    double rho_min, rho_max; /* bounds of the step ratio */
    double safety;           /* factor of the ratio */
    double dt_init, dt_max;  /* s: first (and smallest) step; largest (0: none) */
    size_t n_imposed;
    char **imposed_fed;   /* federate names whose step is imposed */
    double *imposed_step; /* their steps, s, whole ticks */
} fedfile_f3;

/* Algorithm settings, in seconds as written and in ticks of the resolution. */
typedef struct fedfile_algo {
    fedfile_alg kind;
    double start, end;   /* s; end > start */
    double step;         /* s; fixed macro step (0 for jacobi-de) */
    double lookahead;    /* s; jacobi-naive only (default = step); others 0 */
    double quantum;      /* jacobi-de default quantum, output unit; else 0 */
    double h_min, h_max; /* jacobi-de step clamp, s; wr: smallest halved step, s; else 0 */
    int64_t t_start, t_end, t_step, t_lookahead, t_h_min, t_h_max; /* the same in ticks */
    int extrapolation;    /* input extrapolation order 0 (hold, default), 1, 2 */
    double reply_timeout; /* master methods: tempo-master's reply timeout, s; 0 = none */
    fedfile_dc dc;        /* defect-control only; else zero */
    fedfile_f3 f3;        /* f3ornits only; else zero (imposed arrays owned, fedfile_free) */
    wr_opts wr;           /* wr only: settings in ticks (step, tol, max_iter, norm, relative,
                             n_sub, on_fail, h_min), defaults from wr_opts_default; else zero */
    semi_opts semi;       /* semi-implicit only: settings in ticks (step, tol, max_iter, iter,
                             jac0, n_sub), defaults from semi_opts_default; else zero */
    strong_opts strong;   /* strong only: the master's CVODE (output step in ticks, BDF/Adams,
                             rtol, atol, max_step), defaults from strong_opts_default; else
                             zero */

    /* hybrid only (else zero): algorithm.hybrid in ticks, defaults from hybrid_opts_default,
     * and the "Class.attribute" outputs listed as discrete-valued (hy_n_discrete strings) */
    hybrid_opts hybrid;
    char **hy_discrete;
    size_t hy_n_discrete;
    struct fedfile_balance *balance; /* balance and energy: per-connection settings
                                        (federate/config/fedfile_balance.h); else NULL */
} fedfile_algo;

/* A loaded federation file. Everything is owned by this object; release with fedfile_free. */
typedef struct fedfile {
    char *path;        /* the file as given */
    char *dir;         /* its folder; relative paths in the file are resolved against it */
    char *federation;  /* federation name */
    char *rti_host;    /* "127.0.0.1" when absent; NULL when rti_unix is set */
    int rti_port;      /* TCP port; 0 = not given: tempo-run picks a free one */
    char *rti_unix;    /* Unix socket path when "rti" is "unix:PATH", else NULL */
    char *fom;         /* FOM file (resolved), or NULL: generate it (fedfile_fom_xml) */
    double resolution; /* seconds per tick */
    fedfile_algo algo;
    size_t n_feds;
    fedfile_fed *feds;  /* in file order */
    char *output;       /* results folder (resolved); default "<dir>/results" */
    char *secret_file;  /* the RTI's shared secret is in this file (resolved), or NULL */
    char *log;          /* "log": folder of tempo-run's federation log (resolved), or NULL */
    int in_process;     /* "placement": "in-process": tempo-run runs every federate as a thread
                           of one process (doc/inproc.md); 0 ("processes", the default): one
                           process each */
    topo_plan *gs_plan; /* gauss-seidel only: roles and execution order; else NULL */
    char *ssp_dir;      /* an SSP archive unpacked for this file's FMUs (doc/ssp.md), removed
                           by fedfile_free; else NULL */
} fedfile;

/**
 * Load and check a federation file. Checks everything that needs no FMU: the schema (unknown
 * keys and wrong types are refused), duplicate federate names, an attribute published twice
 * or a class published by two federates, an input wired to an attribute nobody publishes,
 * end <= start, step <= 0, times that are not whole ticks, the FMU file on disk (stat), the
 * per-algorithm keys, and for gauss-seidel the topology (algorithms/topology.h).
 * An SSP system (a path ending in .ssp or .ssd) is translated first, and a JSON file with a
 * "system" key merged with its SSP (federate/config/ssp.h, doc/ssp.md); an archive's unpacked
 * folder is ff->ssp_dir.
 * @param path   the JSON file, or an .ssp archive or .ssd file, not NULL
 * @param out    out: the loaded file, owned by the caller (fedfile_free); NULL on error
 * @param err    caller-owned buffer; on error "PATH: JSON.PATH: what is expected", e.g.
 *               "lv.json: federates[1].outputs[\"y\"]: expected a string \"Class.attribute\""
 * @param errlen size of err (FEDFILE_ERRLEN is always enough)
 * @return FEDFILE_OK, FEDFILE_EIO, FEDFILE_ESYNTAX, FEDFILE_ESCHEMA, FEDFILE_ENOMEM,
 *         FEDFILE_EUSAGE.
 */
int fedfile_load(const char *path, fedfile **out, char *err, size_t errlen);

/**
 * Free a loaded file. Accepts NULL.
 * @param ff file from fedfile_load, or NULL
 */
void fedfile_free(fedfile *ff);

/**
 * Find a federate by name.
 * @param ff   loaded file, not NULL
 * @param name federate name, may be NULL (then -1)
 * @return its index in ff->feds, or -1.
 */
long fedfile_find(const fedfile *ff, const char *name);

/**
 * Generate the FOM for a file that names none (doc/fom.md schema): one object class per
 * publishing federate, named as in its wiring, with one float64 attribute per published output,
 * plus the interaction class "StepForward" that Gauss-Seidel passes as its token, and the time
 * resolution of the file.
 * @param ff     loaded file, not NULL
 * @param out    out: NUL-terminated XML text, owned by the caller (free()); NULL on error
 * @param err    caller-owned buffer
 * @param errlen its size
 * @return FEDFILE_OK, FEDFILE_ESCHEMA (a qualified class name such as "Root.A": a generated
 *         FOM has flat classes; err names the output), FEDFILE_ENOMEM, FEDFILE_EUSAGE.
 */
int fedfile_fom_xml(const fedfile *ff, char **out, char *err, size_t errlen);

struct fom; /* fom/fom.h */

/**
 * Check the wiring against a FOM (given or generated): every Class.attribute of the wiring
 * exists and is float64, the FOM's resolution equals the file's, and for gauss-seidel the FOM
 * declares the interaction class "StepForward".
 * @param ff     loaded file, not NULL
 * @param f      parsed FOM, not NULL
 * @param err    caller-owned buffer naming the federate and JSON path at fault
 * @param errlen its size
 * @return FEDFILE_OK, FEDFILE_ESCHEMA, FEDFILE_EUSAGE.
 */
int fedfile_check_fom(const fedfile *ff, const struct fom *f, char *err, size_t errlen);

/**
 * Check federate `i` against its FMU's modelDescription: every output exists with causality
 * output and type Real; every input with causality input and type Real; every parameter exists
 * with causality parameter (our choice: no other variables are set from the file) and a value
 * of a fitting kind (Real takes a JSON number, Integer/Enumeration an integer, Boolean
 * true/false, String a string);
 * every recorded variable exists; every quantized variable is one of the outputs.
 * Uses only the fmu_md struct (no fmu_* call), so it links without the FMU library.
 * NOT WIRED YET: fedfile_load does not open FMUs; tempo-fmu / tempo-run must obtain md from
 * the FMU loader (federate/fmu/fmu_load.h) and call this for every federate before
 * anything starts.
 * @param ff     loaded file, not NULL
 * @param i      federate index < ff->n_feds
 * @param md     the parsed modelDescription of that federate's FMU, not NULL
 * @param err    caller-owned buffer naming the file, JSON path and variable, e.g.
 *               "lv.json: federates[0].inputs[\"v\"]: the FMU has no variable \"v\""
 * @param errlen its size
 * @return FEDFILE_OK, FEDFILE_ESCHEMA, FEDFILE_EUSAGE.
 */
int fedfile_check_fmu(const fedfile *ff, size_t i, const fmu_md *md, char *err, size_t errlen);

/**
 * Quantum of one output for jacobi-de: the federate's "quantum" entry for it, else
 * algorithm.quantum.
 * @param ff  loaded file, not NULL
 * @param fd  one of ff->feds, not NULL
 * @param var output variable name, not NULL
 * @return the quantum (> 0 for jacobi-de files; 0 for other methods).
 */
double fedfile_quantum_of(const fedfile *ff, const fedfile_fed *fd, const char *var);

/** Name of an algorithm as written in the file ("jacobi-de"). Never NULL. */
const char *fedfile_alg_name(fedfile_alg a);

/* ---- the algorithm registry ------------------------------------------------------------
 * One entry per coupling algorithm (federate/config/fedfile_algos.c holds the table; adding an
 * algorithm is adding one entry, doc/architecture.md "Where a new coupling algorithm goes").
 * An entry owns its settings: parse reads its own keys of the file's "algorithm" object,
 * create turns the loaded file into the settings one run needs, run runs it over the port of
 * its side, free releases the settings. tempo-fmu and the in-process runner never switch on
 * the algorithm: they call run_peer. The master entries carry parse only: their side says that
 * tempo-master runs them (fedfile_is_master), and tempo-master's own table
 * (federate/master/master_algos.c) maps the kind to the run, since a master run needs the
 * port over libtempo or the local slaves, which this component does not link. run_master is
 * unused. */

/* Which side of the port an algorithm runs on (doc/algorithms/port.md). */
typedef enum fedfile_side {
    FEDFILE_SIDE_PEER =
        1,               /* every federate runs it over the peer exchange (algorithms/exchange.h) */
    FEDFILE_SIDE_MASTER, /* one master runs it over port_master (algorithms/port.h) */
} fedfile_side;

struct fedfile_reader; /* the loader's state: file name and error buffer (fedfile.c) */

typedef struct fedfile_algo_entry {
    const char *name; /* as written in "algorithm.method" */
    fedfile_alg kind;
    fedfile_side side;
    /* Read the algorithm's own keys of the "algorithm" object (algo: a jansson json_t *) into
     * ff->algo, refusing the keys it does not use; the common keys (method, start, end,
     * extrapolation) are already read. Errors name the JSON path (FEDFILE_ESCHEMA). */
    int (*parse)(const struct fedfile_reader *rd, const void *algo, fedfile *ff);
    /* The settings one run needs, for federate idx (peer side) or the master (idx ignored),
     * allocated into *settings (the entry's own struct: jacobi_settings, ...).
     * Returns FEDFILE_OK, FEDFILE_EUSAGE or FEDFILE_ENOMEM with err set. */
    int (*create)(const fedfile *ff, size_t idx, void **settings, char *err, size_t errlen);
    /* Run over the peer port (side PEER; NULL otherwise). Returns a port_status. */
    int (*run_peer)(const void *settings, peer *p);
    /* Run over the master port (side MASTER; NULL otherwise). Returns a port_status. */
    int (*run_master)(const void *settings, const port_master *m);
    /* Free what create allocated; accepts NULL. create, run_* and free may be NULL for an
     * entry whose runs are not started through the registry yet (then only parse is used). */
    void (*free)(void *settings);
} fedfile_algo_entry;

/** The registry entry of an algorithm kind, or NULL when none is registered. */
const fedfile_algo_entry *fedfile_algo_find(fedfile_alg kind);

/** The registry entry named as in the file ("jacobi-de"), or NULL. */
const fedfile_algo_entry *fedfile_algo_by_name(const char *name);

/** The registry: *n receives the number of entries. Static storage. */
const fedfile_algo_entry *fedfile_algos(size_t *n);

#endif
