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

#include "algorithms/topology.h"
#include "federate/fmu/fmu_md.h"

#define FEDFILE_ERRLEN             1024 /* a buffer this size holds any message of this module */
#define FEDFILE_DEFAULT_PORT       7470 /* doc/protocol.md */
#define FEDFILE_DEFAULT_RESOLUTION 1e-9 /* seconds per tick when "resolution" is absent */
#define FEDFILE_MAX_RECORD_STEPS   1000000000 /* "record_every": {"steps": K}, K at most */

/* Status codes: 0 success, negative errors. */
enum {
    FEDFILE_OK = 0,
    FEDFILE_EIO = -1,     /* the file cannot be read (message has strerror) */
    FEDFILE_ESYNTAX = -2, /* not JSON (message has line and column) */
    FEDFILE_ESCHEMA = -3, /* JSON, but not a valid federation file (message has the JSON path) */
    FEDFILE_ENOMEM = -4,  /* out of memory */
    FEDFILE_EUSAGE = -5,  /* NULL arguments, index out of range */
};

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
    char *var;             /* FMU variable (output for outputs, input for inputs) */
    char *cls;             /* object class name */
    char *attr;            /* attribute name */
    int source;            /* inputs only: index of the federate that publishes cls.attr */
    double factor, offset; /* inputs only: the FMU input is set to factor * value + offset
                              (the federate's "transform", doc/federation.md); 1 and 0 when
                              absent; factor != 0 */
    int transformed;       /* inputs only: 1 when "transform" names it (factor and offset
                              apply), 0: the value is set unchanged, bit for bit */
    size_t n_map;          /* inputs only: the transform's "map" pairs (whole-number inputs) */
    long long *map;        /* n_map pairs (from, to): after factor, offset and rounding, a
                              value equal to a from is set as its to; NULL when none */
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

/* The program that runs a "python" federate (python/tempo-slave, installed beside tempo-run). */
#define FEDFILE_PYTHON_RUNNER "tempo-slave"

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
    char *python;   /* a model in Python, "module:Class" or "FILE.py:Class", or NULL: then
                       program is FEDFILE_PYTHON_RUNNER, which tempo-run finds beside itself
                       and which reads the model and its "parameters" from the file
                       (doc/python.md, "Models in Python as slaves") */
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
    char **record;   /* variables written to the CSV; default: the outputs */
    int record_none; /* "record": [] given: nothing recorded, no CSV file at all (without the
                        key a federate with no outputs still writes its time column) */
} fedfile_fed;

struct fedfile_algo_def; /* federate/config/fedfile_algo.h */

/* The "algorithm" section: the method's definition and settings, and the times every method
 * shares, in seconds as written and in ticks of the resolution. */
typedef struct fedfile_algo {
    const struct fedfile_algo_def *def; /* the method (federate/config/fedfile_algos.c) */
    unsigned needs;                     /* def->needs and what the settings add (FEDFILE_NEEDS_*) */
    void *settings;    /* the method's own settings (its file's struct), or NULL; freed by
                          def->free in fedfile_free */
    double start, end; /* s; end > start */
    double step;       /* s; the fixed macro step of the methods that take "step"; else 0 */
    int64_t t_start, t_end, t_step; /* the same in ticks */
    int64_t t_lookahead;            /* ticks: the peers' lookahead (jacobi-naive; else 0) */
    int extrapolation;              /* the peers' input extrapolation order 0 (hold), 1, 2 */
    double reply_timeout;           /* master methods: tempo-master's reply timeout, s; 0 = none */
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
    fedfile_fed *feds;    /* in file order */
    char *output;         /* results folder (resolved); default "<dir>/results" */
    char *secret_file;    /* the RTI's shared secret is in this file (resolved), or NULL */
    char *log;            /* "log": folder of tempo-run's federation log (resolved), or NULL */
    int in_process;       /* "placement": "in-process": tempo-run runs every federate as a thread
                             of one process (doc/inproc.md); 0 ("processes", the default): one
                             process each */
    topo_plan *gs_plan;   /* FEDFILE_NEEDS_GS_PLAN: roles and execution order; else NULL */
    int64_t record_steps; /* "record_every": {"steps": K}: each federate writes every K-th row
                             (the first, the K+1-th, ...) and the last; 0 every row */
    int64_t record_dt;    /* "record_every": {"seconds": DT} in ticks: the first row at or
                             after each multiple of DT from the start, and the last; 0 every
                             row (doc/federation.md "Recording less") */
    double ckpt_every;    /* "checkpoint.every": s between checkpoints (whole ticks); 0: none */
    double *ckpt_at;      /* "checkpoint.at": n_ckpt_at times (s, whole ticks, inside the run) */
    size_t n_ckpt_at;     /* doc/checkpoint.md; tempo-run's --checkpoint-* options replace both */
    char *ssp_dir;        /* an SSP archive unpacked for this file's FMUs (doc/ssp.md), removed
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
 * with causality parameter or input (an input's start value; no other variables are set
 * from the file), and a value
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
 * Look for an algebraic loop: a cycle through the wiring (an output feeds an input) and the
 * FMUs' direct dependencies (an input feeds an output of the same FMU, by its
 * ModelStructure; fmu_md_output_depends). Every input of a federate without a description
 * (a program or Python federate, or mds NULL), and every output listed without dependencies,
 * is taken to feed all its outputs, unless declared_only.
 * doc/algorithms/jacobi.md "Algebraic loops". Allocates and frees its graph.
 * @param ff      the loaded file, not NULL
 * @param mds     ff->n_feds descriptions by federate (entries may be NULL), or NULL
 * @param declared_only 1: only dependencies a description declares are edges (a loop found
 *                is certain); 0: undeclared ones are assumed (a loop found may be one)
 * @param loop    caller-owned buffer; on 1 the loop as its variables,
 *                "cycle \"A.y\" -> \"B.u\" -> \"B.y\" -> \"A.u\" -> \"A.y\""
 * @param looplen its size
 * @return 0 no loop, 1 a loop (in loop), FEDFILE_ENOMEM, FEDFILE_EUSAGE.
 */
int fedfile_algebraic_loop(const fedfile *ff, fmu_md *const *mds, int declared_only, char *loop,
                           size_t looplen);

/**
 * Count the federates none of whose outputs depends directly on any of its inputs (by the
 * descriptions, as fedfile_algebraic_loop reads them).
 * @param ff   the loaded file (NULL: 0)
 * @param mds  as for fedfile_algebraic_loop
 * @param none NULL, or ff->n_feds entries: 1 for such a federate, else 0
 * @return how many there are.
 */
size_t fedfile_no_feedthrough(const fedfile *ff, fmu_md *const *mds, int *none);

/** 1 for the FMU types a wiring carries as whole numbers (Integer, Boolean, Enumeration and
 * FMI 3.0's sized integers): the peer methods publish them as float64 and set an input to the
 * value rounded to the nearest integer (a Boolean: not 0); doc/federation.md, "Wiring". */
int fedfile_type_discrete(fmu_vtype t);

/** Name of the file's method as written ("jacobi-de"); "?" for a file without one. */
const char *fedfile_method_name(const fedfile *ff);

#endif
