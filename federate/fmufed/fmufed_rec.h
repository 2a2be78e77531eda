/* The recording piece of a peer: where a peer's rows go (its CSV, a caller's hook for the
 * doubles themselves) and the progress reports that follow them. Plugged into the model with
 * fmufed_model_set_rows(m, fmufed_rec_row, rec). Used by tempo-fmu and by federate/inproc/.
 * doc/run.md (the CSV); read fmufed_tp.h next. Private to the federates: not installed.
 */
#ifndef TEMPO_FEDERATE_FMUFED_REC_H
#define TEMPO_FEDERATE_FMUFED_REC_H

#include <stddef.h>
#include <stdint.h>

#include "federate/fmufed/fmufed.h"
#include "federate/run/results.h"

typedef struct fmufed_rec {
    res_writer *csv;                       /* NULL: no file (then no progress either, as before) */
    fmufed_stats *st;                      /* t_final and csv filled; not NULL */
    void (*progress)(void *ctx, double t); /* fmufed_opts.progress, may be NULL */
    void *progress_ctx;
    int64_t progress_next;  /* report again when a recorded time reaches this, ticks */
    int64_t progress_wall;  /* ... or once the monotonic clock passes this, ns (a slow run
                               still shows it moves: tempo-run's watchdog, doc/run.md) */
    int64_t t_start, t_end; /* ticks */
    fmufed_row_hook hook;   /* fmufed_opts.row, may be NULL */
    void *hook_ctx;
    size_t n; /* values per row */
} fmufed_rec;

/**
 * Open the CSV "<dir>/<fed>.csv" with the recorded variables' names (dir NULL: no file).
 * @param r      zeroed record to fill (st, progress, hook, times set by the caller first)
 * @return PORT_OK, PORT_EFAIL with the results module's message in err (naming the file).
 */
int fmufed_rec_open(fmufed_rec *r, const char *dir, const char *fed, size_t n,
                    const char *const *names, char *err, size_t errlen);

/** Continue the CSV "<dir>/<fed>.csv" of the run a checkpoint saved, at its saved position
 *  (res_resume: rows written after it are cut off). @return PORT_OK, PORT_EFAIL (err). */
int fmufed_rec_resume(fmufed_rec *r, const char *dir, const char *fed, size_t n,
                      const char *const *names, unsigned long long pos, char *err, size_t errlen);

/** Where the CSV stands (res_position): *has 0 without a CSV. @return PORT_OK, PORT_EFAIL. */
int fmufed_rec_position(fmufed_rec *r, int *has, unsigned long long *pos, char *err, size_t errlen);

/** Close the CSV. @return PORT_OK or PORT_EFAIL (a late write failure, message in err). */
int fmufed_rec_close(fmufed_rec *r, char *err, size_t errlen);

/** The row sink (fmufed_row_fn): the hook (numbers only: a String column is NaN there), then
 *  the CSV row (Strings quoted), t_final and progress. */
int fmufed_rec_row(void *ctx, int64_t t, double seconds, const double *v, const char *const *text,
                   char *err, size_t errlen);

#endif
