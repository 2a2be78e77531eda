/* Progress display for tempo-run: simulation time against end time, per federate. On a
 * terminal one line is rewritten in place (carriage return); otherwise (a log file, CI) a line
 * is printed each time a federate crosses a multiple of N percent, so logs stay short.
 * Serves doc/run.md. Read federate/run/progress.c next.
 */
#ifndef TEMPO_FEDERATE_PROGRESS_H
#define TEMPO_FEDERATE_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

#define PROG_ERRLEN    256 /* a buffer this size holds any message of this module */
#define PROG_MAX_FEDS  4096
#define PROG_LIST_FEDS 6 /* up to this many federates are listed one by one on a TTY */

/* Status codes: 0 success, negative errors. */
enum {
    PROG_OK = 0,
    PROG_EUSAGE = -1, /* NULL arguments, end <= start, bad percent step, too many federates */
    PROG_ENOMEM = -2, /* out of memory */
};

/* Options. */
typedef struct prog_opts {
    FILE *out;      /* where to print, not NULL */
    int tty;        /* 1: rewrite one line; 0: one line per step; -1: isatty(fileno(out)) */
    int every_pct;  /* non-TTY: print when a federate crosses a multiple of this, 1..100;
                       0 = 10 */
    double t_start; /* simulation start, s */
    double t_end;   /* simulation end, s, > t_start */
} prog_opts;

typedef struct prog prog; /* opaque */

/**
 * Create a display for n federates, all at t_start. Prints nothing yet.
 * @param out    out: the display, owned by the caller (prog_free); NULL on error
 * @param o      options, not NULL
 * @param n      number of federates, 1 .. PROG_MAX_FEDS
 * @param names  their names, copied
 * @param err    caller-owned buffer
 * @param errlen its size (PROG_ERRLEN is enough)
 * @return PROG_OK, PROG_EUSAGE, PROG_ENOMEM.
 */
int prog_new(prog **out, const prog_opts *o, size_t n, const char *const *names, char *err,
             size_t errlen);

/**
 * Record that federate idx reached simulation time t (s) and print if the display changed:
 * TTY mode rewrites the line when any whole percent changes; non-TTY mode prints
 * "progress: NAME P% (t = T of END s)" when the federate crosses a multiple of every_pct
 * (once, at the highest multiple crossed). Times are clamped to [t_start, t_end]; a time
 * below the federate's previous one is ignored (progress never goes back). Bad idx: ignored.
 * @param p   display, may be NULL (no-op)
 * @param idx federate index < n
 * @param t   simulation time, s (NaN is ignored)
 */
void prog_update(prog *p, size_t idx, double t);

/**
 * Current percentage of federate idx (0..100, rounded down), or -1 for a bad index.
 * @param p   display, not NULL
 * @param idx federate index
 */
int prog_percent(const prog *p, size_t idx);

/**
 * End the display: on a TTY, finish the rewritten line with a newline. Safe to call twice.
 * @param p display, may be NULL
 */
void prog_finish(prog *p);

/**
 * Free the display (calls prog_finish). Accepts NULL.
 * @param p display or NULL
 */
void prog_free(prog *p);

#endif
