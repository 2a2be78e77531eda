/* The per-connection settings of the methods "balance" (the explicit master with the coupling
 * layer, algorithms/explicit.h) and "energy" (negotiated power exchange, algorithms/energy.h):
 * the object algorithm.coupling of a federation file, keyed by "*" (every connection) or by a
 * receiving "federate.input", and algorithm.power_extrapolation (energy). Read while the file
 * loads (fedfile_load calls the two functions of fedfile_impl.h), resolved against the wiring
 * once every federate is read, so that a name that does not exist is refused at load with its
 * JSON path. doc/federation.md ("balance", "energy"), doc/algorithms/balance-correction.md,
 * doc/algorithms/energy-balance.md. Read federate/config/fedfile_balance.c next.
 */
#ifndef TEMPO_FEDERATE_CONFIG_FEDFILE_BALANCE_H
#define TEMPO_FEDERATE_CONFIG_FEDFILE_BALANCE_H

#include <stddef.h>

#include "algorithms/balance.h"
#include "algorithms/energy.h"

/* One wired input of a slave, resolved: who feeds it and how. Index -1 means "not given". */
typedef struct fedfile_bal_conn {
    size_t to, input;    /* receiving federate, index of the input among its wired inputs */
    size_t from, output; /* sending federate, index of the output among its outputs */
    bal_settings layer;  /* balance: extrapolation, switch, correction, hat, span */
    long slope;          /* sender's output holding d(output)/dt; -1: balance takes the FMU's
                            first output derivative, energy holds the value */
    long amount;         /* balance: sender's output holding the running integral; -1: none */
    long power_input;    /* energy: the receiver's slave input (after its wired inputs) taking
                            the agreed power; -1 for balance */
    long power;          /* energy: the receiver's output holding its interface power; -1 */
    long energy;         /* energy: the receiver's output holding its stored energy, -1: none
                            (given on both sides of a boundary, the missed energy is refed) */
    size_t partner;      /* energy: the connection the other way across the same boundary */
} fedfile_bal_conn;

/* The inputs a slave has beyond its wiring: set by the master only (energy's power inputs). */
typedef struct fedfile_bal_extra {
    size_t n;
    char **var; /* FMU input names, in the order the slave appends them */
} fedfile_bal_extra;

typedef struct fedfile_bal_spec fedfile_bal_spec; /* one entry as written (fedfile_balance.c) */

/* The settings of methods "balance" and "energy" (federate/config/algo_balance.c), owned
 * by the loaded file (ff->algo.settings). */
typedef struct fedfile_balance {
    int energy;               /* 1: method "energy"; 0: "balance" */
    int p_order;              /* energy: the agreed power held (0) or linear (1, default) */
    size_t n_conn;            /* every wired input of every federate, federate and input order */
    fedfile_bal_conn *conn;   /* (the order of fedfile_master_links) */
    fedfile_bal_extra *extra; /* per federate, n_feds entries */
    size_t n_spec;
    fedfile_bal_spec *spec; /* the entries of algorithm.coupling as written */
} fedfile_balance;

/** Free what the loader allocated; accepts NULL. */
void fedfile_balance_free(fedfile_balance *b);

struct fedfile;

/** The balance or energy settings of a loaded file, or NULL for another method. */
const fedfile_balance *fedfile_balance_of(const struct fedfile *ff);

/**
 * The inputs the master sets on federate idx beyond its wired ones (energy's power inputs).
 * @param ff    a loaded file, not NULL
 * @param idx   federate index
 * @param names out: the FMU input names (owned by ff), NULL when there are none
 * @return how many (0 for every other method).
 */
size_t fedfile_balance_extra_inputs(const struct fedfile *ff, size_t idx,
                                    const char *const **names);

/** The energy method's links of a balance block: one per boundary, the connection a -> b
 *  (a < b) with its partner b -> a, in connection order; at most @p cap are written.
 *  @return the number written. No errors: the pairs were checked when the file was loaded. */
size_t fedfile_energy_links(const fedfile_balance *b, energy_link *out, size_t cap);

#endif
