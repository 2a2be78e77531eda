/* A coupling algorithm as one value (doc/architecture.md, "Where a new coupling algorithm goes";
 * doc/algorithms/port.md): its name, its side of the port, what it needs from the slaves and the
 * programs (flags), the parser of its own keys of the file's "algorithm" object into its own
 * settings, the function that runs it, a free, and its summary line. Each algorithm's value lives
 * in its own file federate/config/algo_NAME.c; federate/config/fedfile_algos.c lists them, one
 * line each. Programs read the flags, never the name. Read federate/config/algo_jacobi.c (a peer)
 * or federate/config/algo_msjacobi.c (a master) next.
 */
#ifndef TEMPO_FEDERATE_CONFIG_FEDFILE_ALGO_H
#define TEMPO_FEDERATE_CONFIG_FEDFILE_ALGO_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "algorithms/exchange.h"
#include "algorithms/port.h"
#include "federate/config/fedfile.h"

/* What an algorithm needs from the slaves, the loader and the programs (fedfile_algo_def.needs;
 * the loaded file's ff->algo.needs adds what its settings ask for). */
enum {
    FEDFILE_NEEDS_GS_PLAN = 1u << 0,     /* a Gauss-Seidel plan: roles, order, the "StepForward"
                                            interaction, the federates' "role" key */
    FEDFILE_NEEDS_BUS = 1u << 1,         /* the slaves' discrete bus (slave-to-slave values) */
    FEDFILE_NEEDS_ME_STATES = 1u << 2,   /* the slaves expose their model-exchange states and
                                            derivatives to the master */
    FEDFILE_NEEDS_PAST_END = 1u << 3,    /* the master may open instants past algorithm.end */
    FEDFILE_NEEDS_QUANTA = 1u << 4,      /* the federates' "quantum" key (quantized outputs) */
    FEDFILE_NEEDS_PROGRAMS = 1u << 5,    /* program federates may join (each federate acts alone,
                                            doc/federation.md "Program federates") */
    FEDFILE_NEEDS_EVENT_STOPS = 1u << 6, /* the slaves' steps stop at events (an FMI 3.0
                                            co-simulation FMU must allow early return) */
    FEDFILE_NEEDS_SUB_OUTPUTS = 1u << 7, /* the slaves' outputs inside a step (an FMI 3.0
                                            co-simulation FMU gets the intermediate-update
                                            callback, doc/fmu.md "FMI 3.0") */
    FEDFILE_NEEDS_NO_LOOP = 1u << 8,     /* no algebraic loop through the wiring and the FMUs'
                                            ModelStructure (fedfile_algebraic_loop): the method
                                            reads outputs before it sets the inputs they feed */
};

/* Which side of the port an algorithm runs on (doc/algorithms/port.md). */
typedef enum fedfile_side {
    FEDFILE_SIDE_PEER =
        1,               /* every federate runs it over the peer exchange (algorithms/exchange.h) */
    FEDFILE_SIDE_MASTER, /* one master runs it over port_master (algorithms/port.h) */
} fedfile_side;

/* The keys of one JSON object of the file as an algorithm's parser reads them: every key read
 * (present or not) is remembered, so that fedfile_keys_done refuses the others naming their path
 * and the keys the method takes. Filled by the loader (the "algorithm" object) or by
 * fedfile_key_object (a nested object); the fields are the loader's. */
enum { FEDFILE_KEYS_MAX = 40, FEDFILE_JPATH_LEN = 320 };
typedef struct fedfile_keys {
    const struct fedfile_reader *rd; /* the loader: file name and error buffer */
    const json_t *obj;               /* the object */
    char path[FEDFILE_JPATH_LEN];    /* its JSON path ("algorithm") */
    const char *method;              /* the method's name, for messages */
    double resolution;               /* s per tick of the file */
    size_t n_asked;
    const char *asked[FEDFILE_KEYS_MAX]; /* the keys read, static strings */
} fedfile_keys;

/* Options of the key readers. */
enum {
    FEDFILE_KEY_REQUIRED = 1, /* absent is an error */
    FEDFILE_KEY_ZERO_OK = 2,  /* numbers: >= 0 instead of > 0 */
};

/** The value of key (remembered as read), or NULL when absent. */
const json_t *fedfile_key_get(fedfile_keys *k, const char *key);
/** "FILE: PATH.key: message"; returns FEDFILE_ESCHEMA. key may be NULL (the object itself). */
int fedfile_key_fail(const fedfile_keys *k, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** A number > 0 (>= 0 with FEDFILE_KEY_ZERO_OK); *out left alone when absent; have may be
 *  NULL. */
int fedfile_key_num(fedfile_keys *k, const char *key, int opts, double *out, int *have);
/** A number of seconds, a whole number of ticks >= min_ticks, into *s and *t when present. */
int fedfile_key_ticks(fedfile_keys *k, const char *key, int opts, int64_t min_ticks, double *s,
                      int64_t *t, int *have);
/** An integer lo..hi; `what` (may be NULL) says in the refusal what it means. */
int fedfile_key_int(fedfile_keys *k, const char *key, long lo, long hi, const char *what, int *out);
/** One of the NULL-terminated `names` as a string; *out its index, left alone when absent. */
int fedfile_key_choice(fedfile_keys *k, const char *key, const char *const *names, int *out);
/** true or false into *out (0/1), left alone when absent. */
int fedfile_key_bool(fedfile_keys *k, const char *key, int *out);
/** The nested object key as keys of its own (sub->obj NULL when absent and not required). */
int fedfile_key_object(fedfile_keys *k, const char *key, int opts, fedfile_keys *sub);
/** Refuse every key of k's object that no reader asked for: "PATH.key: unknown key for method
 *  \"M\" (it takes: ...)". */
int fedfile_keys_done(const fedfile_keys *k);
/** The fixed macro step "step" (required, >= 1 tick) into ff->algo.step and t_step. */
int fedfile_key_step(fedfile_keys *k, fedfile *ff);
/** The peers' input extrapolation "extrapolation" (0 hold, 1, 2) into ff->algo.extrapolation. */
int fedfile_key_extrapolation(fedfile_keys *k, fedfile *ff);

/* What a master run is given: the loaded file, the port (its notes go to master.csv), the file's
 * links in federate and input order (fedfile_master_links), and whether to print the summary. */
typedef struct fedfile_master_run {
    const fedfile *ff;
    const port_master *m;
    const port_link *links; /* NULL when n_links is 0 */
    size_t n_links;
    int quiet;
} fedfile_master_run;

typedef struct fedfile_algo_def {
    const char *name;    /* as written in "algorithm.method" */
    fedfile_side side;   /* who runs it: tempo-fmu / the in-process runner, or tempo-master */
    unsigned needs;      /* FEDFILE_NEEDS_* */
    const char *summary; /* one line for tempo-master --help and tempo-run --help */
    /* Read the method's own keys of the "algorithm" object (the common ones: method, start,
     * end and, for a master, reply_timeout, are read) into *settings, the algorithm's own
     * struct; may add FEDFILE_NEEDS_* bits to ff->algo.needs. Unknown keys are refused after it
     * returns. NULL: the method takes no keys. Errors name the JSON path (FEDFILE_ESCHEMA). */
    int (*parse)(fedfile_keys *k, fedfile *ff, void **settings);
    /* Once every federate is read: check the settings against the wiring. May be NULL. */
    int (*resolve)(const struct fedfile_reader *rd, fedfile *ff);
    /* Free what parse allocated; accepts NULL. NULL when parse allocates nothing. */
    void (*free)(void *settings);
    /* FEDFILE_NEEDS_BUS: 1 when the output published as cls.attr goes slave to slave on the
     * discrete bus (the programs wire it through fedfile_bus_flags, fedfile_master.h); NULL:
     * none does. */
    int (*on_bus)(const void *settings, const char *cls, const char *attr);
    /* Peer side: the settings of federate idx's run (allocated into *run, freed by destroy),
     * and the run over the peer exchange (a port_status). */
    int (*create)(const fedfile *ff, size_t idx, void **run, char *err, size_t errlen);
    int (*run_peer)(const void *run, peer *p);
    void (*destroy)(void *run);
    /* Master side: run over r->m (a port_status; err names the slave or setting at fault), and
     * print the summary line on stdout unless r->quiet. */
    int (*run_master)(const fedfile_master_run *r, char *err, size_t errlen);
    /* Master side: 1 when run_master saves the algorithm's state between macro steps
     * (port_master.ckpt, doc/checkpoint.md "Master methods"), so that tempo-run accepts
     * checkpoints of the method; 0: refused before the start, naming the method. */
    int saves;
} fedfile_algo_def;

/** The definition named as in the file ("jacobi-de"), or NULL. */
const fedfile_algo_def *fedfile_algo_by_name(const char *name);

/** The settings of a loaded file whose method is `method` (ff->algo.settings, the type its
 *  algorithm's file documents), or NULL when the file's method is another. */
const void *fedfile_settings(const fedfile *ff, const char *method);

/** The table: *n receives the number of entries (fedfile_algos.c). Static storage. */
const fedfile_algo_def *const *fedfile_algos(size_t *n);

#endif
