/* Progress display (federate/run/progress.h): per-federate percentages, a rewritten TTY line or
 * threshold lines for logs. doc/run.md.
 * Read tests/unit/progress_test.c next.
 */
#include "federate/run/progress.h"
#include "federate/run/run_err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    DEFAULT_EVERY_PCT = 10, /* non-TTY: a line per 10% per federate */
    NAME_SHOWN = 24,        /* bytes of a name shown on the TTY line */
};

typedef struct pfed {
    char *name;
    double t;    /* latest time, s, clamped to [t_start, t_end] */
    int pct;     /* floor of the percentage of t */
    int printed; /* non-TTY: highest multiple of every_pct printed, -1 before any */
} pfed;

struct prog {
    prog_opts o;
    size_t n;
    pfed *f;
    size_t line_len; /* TTY: length of the line last printed, for padding; 0 when none open */
    int open;        /* TTY: a line is open (no newline yet) */
};

int prog_new(prog **out, const prog_opts *o, size_t n, const char *const *names, char *err,
             size_t errlen)
{
    if (!out) return run_fail(err, errlen, PROG_EUSAGE, "prog_new: NULL out");
    *out = NULL;
    if (!o || !o->out || !names || n == 0 || n > PROG_MAX_FEDS)
        return run_fail(err, errlen, PROG_EUSAGE,
                        "prog_new: NULL options, stream or names, or %zu federates (1..%d)", n,
                        PROG_MAX_FEDS);
    if (!isfinite(o->t_start) || !isfinite(o->t_end) || !(o->t_end > o->t_start))
        return run_fail(err, errlen, PROG_EUSAGE, "prog_new: end time %g is not after start %g",
                        o->t_end, o->t_start);
    if (o->every_pct < 0 || o->every_pct > 100)
        return run_fail(err, errlen, PROG_EUSAGE, "prog_new: every_pct %d is not 0..100",
                        o->every_pct);
    prog *p = calloc(1, sizeof *p);
    if (!p || !(p->f = calloc(n, sizeof *p->f))) {
        free(p);
        return run_fail(err, errlen, PROG_ENOMEM, "prog_new: out of memory");
    }
    p->o = *o;
    p->n = n;
    if (p->o.every_pct == 0) p->o.every_pct = DEFAULT_EVERY_PCT;
    if (p->o.tty < 0) p->o.tty = isatty(fileno(o->out)) ? 1 : 0;
    for (size_t i = 0; i < n; i++) {
        p->f[i].t = o->t_start;
        p->f[i].printed = -1;
        if (!(p->f[i].name = strdup(names[i] ? names[i] : "?"))) {
            prog_free(p);
            return run_fail(err, errlen, PROG_ENOMEM, "prog_new: out of memory");
        }
    }
    *out = p;
    return PROG_OK;
}

/* TTY: rewrite the whole line; pad with spaces over a longer previous line. */
static void tty_line(prog *p)
{
    char line[512];
    size_t off = 0;
    if (p->n <= PROG_LIST_FEDS) {
        for (size_t i = 0; i < p->n && off < sizeof line; i++)
            off += (size_t)snprintf(line + off, sizeof line - off, "%s%.*s %3d%%", i ? "  " : "",
                                    NAME_SHOWN, p->f[i].name, p->f[i].pct);
    } else {
        size_t lo = 0, hi = 0;
        for (size_t i = 1; i < p->n; i++) {
            if (p->f[i].pct < p->f[lo].pct) lo = i;
            if (p->f[i].pct > p->f[hi].pct) hi = i;
        }
        off = (size_t)snprintf(line, sizeof line,
                               "%zu federates: slowest %.*s %d%%, fastest "
                               "%.*s %d%%",
                               p->n, NAME_SHOWN, p->f[lo].name, p->f[lo].pct, NAME_SHOWN,
                               p->f[hi].name, p->f[hi].pct);
    }
    if (off >= sizeof line) off = sizeof line - 1;
    fprintf(p->o.out, "\r%s", line);
    for (size_t k = off; k < p->line_len; k++)
        fputc(' ', p->o.out);
    p->line_len = off;
    p->open = 1;
    fflush(p->o.out);
}

void prog_update(prog *p, size_t idx, double t)
{
    if (!p || idx >= p->n || isnan(t)) return;
    pfed *f = &p->f[idx];
    double span = p->o.t_end - p->o.t_start;
    if (t > p->o.t_end) t = p->o.t_end;
    if (t < f->t) return;
    f->t = t;
    /* The small slack absorbs rounding so that t == t_end gives 100 and 0.5 of 1 gives 50. */
    int pct = (int)floor((t - p->o.t_start) / span * 100.0 + 1e-9);
    if (pct > 100) pct = 100;
    if (pct == f->pct && (p->o.tty || f->printed >= 0)) return;
    f->pct = pct;
    if (p->o.tty) {
        tty_line(p);
        return;
    }
    int mult = pct / p->o.every_pct * p->o.every_pct;
    if (mult <= f->printed) return;
    f->printed = mult;
    fprintf(p->o.out, "progress: %s %d%% (t = %g of %g s)\n", f->name, pct, t, p->o.t_end);
    fflush(p->o.out);
}

int prog_percent(const prog *p, size_t idx)
{
    if (!p || idx >= p->n) return -1;
    return p->f[idx].pct;
}

void prog_finish(prog *p)
{
    if (!p || !p->open) return;
    fputc('\n', p->o.out);
    fflush(p->o.out);
    p->open = 0;
    p->line_len = 0;
}

void prog_free(prog *p)
{
    if (!p) return;
    prog_finish(p);
    for (size_t i = 0; i < p->n; i++)
        free(p->f[i].name);
    free(p->f);
    free(p);
}
