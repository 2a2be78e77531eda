/* The results rows a local master run hands to master_local_opts.row (tests/unit/master_local.h),
 * kept for the first two federates: what the WR, semi-implicit and strong-coupling FMU tests
 * compare with their monolithic references. Read tests/unit/wr_fmu_test.c next. */
#ifndef TEMPO_TESTS_UNIT_FMU_ROWS_H
#define TEMPO_TESTS_UNIT_FMU_ROWS_H

#include <stddef.h>

#define MAXR 4096 /* rows kept per federate */
#define MAXC 3    /* recorded columns kept per federate */

typedef struct rows {
    size_t n[2];             /* rows kept of federates 0 and 1 */
    double t[2][MAXR];       /* s */
    double v[2][MAXR][MAXC]; /* the first MAXC recorded values of each row */
} rows;

/* master_local_opts.row with row_ctx a rows: keeps the row when there is room. */
static inline void on_row(void *ctx, size_t fed, double t, size_t n, const double *vals)
{
    rows *r = ctx;
    if (fed > 1 || r->n[fed] >= MAXR) return;
    r->t[fed][r->n[fed]] = t;
    for (size_t c = 0; c < MAXC && c < n; c++)
        r->v[fed][r->n[fed]][c] = vals[c];
    r->n[fed]++;
}

#endif /* TEMPO_TESTS_UNIT_FMU_ROWS_H */
