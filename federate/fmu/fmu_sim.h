/* Standalone simulation of one FMU (tempo-fmu --simulate): inputs from a CSV file or
 * constants, outputs written as CSV. Serves doc/fmu.md (checking an FMU alone).
 * Read next: federate/fmu/fmu_sim.c; doc/fmu.md "tempo-fmu --simulate" for the formats. */
#ifndef TEMPO_FEDERATE_FMU_SIM_H
#define TEMPO_FEDERATE_FMU_SIM_H

#include <stdio.h>

#include "federate/fmu/fmu_step.h"

/** How CSV inputs are read between rows. */
typedef enum { FMU_SIM_LINEAR = 0, FMU_SIM_HOLD = 1 } fmu_sim_interp;

/** Options of one run. Zero fields mean defaults. */
typedef struct {
    const char *fmu_path;              /* the .fmu file (required) */
    fmu_step_opts fopts;               /* kind, tolerances, solver, parameters (--set), log;
                                          event_mode (--event-mode): rows before and after
                                          each event of an FMI 3.0 co-simulation too */
    int has_start, has_stop, has_step; /* else DefaultExperiment, else 0 / 1 / (stop-start)/500 */
    double start, stop, step;          /* s */
    const char *input_csv;             /* NULL: no input file */
    fmu_sim_interp interp;             /* CSV inputs: linear (default) or sample-and-hold */
    int with_states;                   /* also write the continuous states (ME) */
    int fmusim_format;                 /* numbers as fmusim writes them (Float64 %.16g, Float32
                                          %.7g) and the header's names quoted; 0: numbers in
                                          the shortest form that reads back (tempo-fmu
                                          --exact) */
    FILE *summary;                     /* NULL: none; else one line after a run that ended well */
} fmu_sim_opts;

/** A table of numbers read from CSV: column 0 is time. */
typedef struct {
    size_t n_cols, n_rows;
    char **names; /* n_cols column names */
    double *v;    /* n_rows * n_cols values, row-major */
    char **text;  /* n_rows * n_cols: each value's text as written (FMI 3.0 integers are set
                     from it exactly, beyond a double's 53 bits) */
} fmu_sim_table;

/**
 * Read a CSV file: one header line of names (first = time), then rows of numbers with
 * non-decreasing time (an integer beyond 2^53 is kept exactly in text). Empty lines and lines
 * starting with '#' are skipped.
 * @return 0; -1 bad file (err names the line and column); -2 out of memory.
 */
int fmu_sim_read_csv(const char *path, fmu_sim_table *t, char *err, size_t errlen);
/** Free the contents of a table (not the struct). */
void fmu_sim_table_fini(fmu_sim_table *t);

/**
 * Run the simulation and write "time,<outputs...>" rows to out, at the rows fmusim (the
 * Modelica Association's simulator) writes: the start time, every point start + i*step and
 * every input event (a CSV time given twice, or a row where a held input changes).
 * Co-simulation writes the outputs a step produced before the inputs of its end are set
 * (so a direct feedthrough lags one step); model exchange sets the interpolated inputs of a
 * point first, then writes, and writes one row before and one after every event (state, time,
 * step and input events). Every output is written whatever its type (Boolean as 0/1, String
 * in quotes). doc/fmu.md §8.
 * @return 0 done (also when the model terminated early: a note goes to err); 1 failure (err
 *         says why: bad FMU, bad option, unknown input column, FMU error or discard).
 */
int fmu_sim_run(const fmu_sim_opts *o, FILE *out, char *err, size_t errlen);

/**
 * Format one double in the shortest form that reads back to the same bits ("0.1", not
 * "0.10000000000000001"; "-0" stays "-0"), or "nan", "inf", "-inf": how every CSV of Tempo
 * writes numbers (tempo-fmu --simulate, the federates' results).
 * @param v   value
 * @param buf caller-owned buffer of at least 32 bytes; @param len its size
 * @return buf.
 */
char *fmu_sim_format_double(double v, char *buf, size_t len);

#endif /* TEMPO_FEDERATE_FMU_SIM_H */
