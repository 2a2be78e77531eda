/* Rows of a peer (fmufed_rec.h): the caller's hook, the CSV file, the progress reports.
 * doc/run.md; read fmufed_tp.c next.
 */
#include <stdio.h>
#include <time.h>

#include "federate/fmufed/fmufed_model.h"
#include "federate/fmufed/fmufed_rec.h"

#define FMUFED_PROGRESS_NS 500000000 /* a progress line at least every 0.5 s of wall time */

int fmufed_rec_open(fmufed_rec *r, const char *dir, const char *fed, size_t n,
                    const char *const *names, char *err, size_t errlen)
{
    r->n = n;
    r->progress_next = INT64_MIN;
    r->progress_wall = 0; /* the first row reports at once */
    if (!dir) return PORT_OK;
    if (res_open(&r->csv, dir, fed, n, names, err, errlen) != RES_OK) return PORT_EFAIL;
    snprintf(r->st->csv, sizeof r->st->csv, "%s", res_path(r->csv));
    return PORT_OK;
}

int fmufed_rec_resume(fmufed_rec *r, const char *dir, const char *fed, size_t n,
                      const char *const *names, unsigned long long pos, char *err, size_t errlen)
{
    r->n = n;
    r->progress_next = INT64_MIN;
    r->progress_wall = 0;
    if (!dir) return PORT_OK;
    if (res_resume(&r->csv, dir, fed, n, names, pos, err, errlen) != RES_OK) return PORT_EFAIL;
    snprintf(r->st->csv, sizeof r->st->csv, "%s", res_path(r->csv));
    return PORT_OK;
}

int fmufed_rec_position(fmufed_rec *r, int *has, unsigned long long *pos, char *err, size_t errlen)
{
    *has = r->csv != NULL;
    *pos = 0;
    if (!r->csv) return PORT_OK;
    return res_position(r->csv, pos, err, errlen) == RES_OK ? PORT_OK : PORT_EFAIL;
}

int fmufed_rec_close(fmufed_rec *r, char *err, size_t errlen)
{
    if (!r->csv) return PORT_OK;
    int rc = res_close(r->csv, err, errlen);
    r->csv = NULL;
    return rc == RES_OK ? PORT_OK : PORT_EFAIL;
}

int fmufed_rec_row(void *ctx, int64_t t, double seconds, const double *v, const char *const *text,
                   char *err, size_t errlen)
{
    fmufed_rec *r = ctx;
    if (r->hook) r->hook(r->hook_ctx, seconds, v, r->n);
    if (!r->csv) return PORT_OK;
    if (res_write_row_text(r->csv, seconds, v, text, err, errlen) != RES_OK) return PORT_EFAIL;
    r->st->t_final = seconds;
    if (!r->progress) return PORT_OK;
    /* every 1 % of the run, and at least every FMUFED_PROGRESS_NS of wall time */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    if (t >= r->progress_next || t >= r->t_end || now >= r->progress_wall) {
        r->progress(r->progress_ctx, seconds);
        int64_t span = r->t_end - r->t_start, pct = span / 100 ? span / 100 : 1;
        r->progress_next = port_tick_add(t, pct);
        r->progress_wall = now + FMUFED_PROGRESS_NS;
    }
    return PORT_OK;
}
