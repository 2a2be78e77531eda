/* SVG plot writer (federate/run/plot_svg.h). doc/run.md.
 * Divisions: errors, ticks and number labels, XML text, layout, drawing one series (pixel
 * column reduction and the pen), the document, results tables.
 * Read tests/unit/plot_test.c next.
 */
#include "federate/run/plot_svg.h"
#include "federate/run/run_err.h"
#include "rti/proto/outfile.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    DEFAULT_WIDTH = 900,   /* px */
    DEFAULT_PANEL_H = 300, /* px */
    TITLE_H = 30,          /* px above the panels when there is a title */
    MARGIN_L = 75,         /* px left of the frame: y tick labels */
    MARGIN_R = 15,         /* px right of the legend */
    LEGEND_W = 160,        /* px right of the frame: legend, at least (widened for its labels) */
    LEGEND_TEXT_X = 38,    /* px from the frame to a legend entry's text */
    CHAR_W = 7,            /* px: a generous width of one character at font-size 12 */
    PANEL_TOP = 26,        /* px above the frame: panel title */
    PANEL_BOTTOM = 44,     /* px below the frame: x tick labels and x label */
    LEGEND_ROW = 16,       /* px per legend entry */
    X_TICKS = 8,           /* at most this many x ticks */
    Y_TICKS = 7,           /* at most this many y ticks */
    GROUP_KEEP = 4,        /* a pixel column with more samples is drawn as first/min/max/last */
};

/* Colors of series within a panel, in order (a common colour-blind-friendly set). */
static const char *const PALETTE[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
#define N_PALETTE (sizeof PALETTE / sizeof PALETTE[0])
#define DASH      " stroke-dasharray=\"6 3\"" /* reference curves, second copies */

const char *plot_color(size_t k)
{
    return PALETTE[k % N_PALETTE];
}

/* The colour of series s, the k-th of its panel. */
static const char *series_color(const plot_series *s, size_t k)
{
    return s->color ? s->color : PALETTE[k % N_PALETTE];
}

/* ======================================================================================
 * Ticks and number labels
 * ====================================================================================== */

size_t plot_ticks(double lo, double hi, size_t max_ticks, double *ticks, double *step)
{
    if (!ticks || max_ticks < 3 || max_ticks > PLOT_MAX_TICKS || !isfinite(lo) || !isfinite(hi) ||
        hi < lo)
        return 0;
    /* A range below 1e-12 of the magnitude cannot get distinct ticks in doubles: treat it as
     * a constant. */
    double mag_v = fmax(fabs(lo), fabs(hi));
    if (hi - lo <= 1e-12 * mag_v || hi - lo <= 0) {
        double mid = lo / 2 + hi / 2;
        double w = fabs(mid) > 0 ? fabs(mid) * 0.1 : 1.0;
        lo = mid - w;
        hi = mid + w;
    }
    double range = hi - lo;
    if (!isfinite(range)) return 0;
    double raw = range / (double)(max_ticks - 1);
    double mag = pow(10.0, floor(log10(raw)) - 1);
    static const double mult[3] = {1, 2, 5};
    /* Walk 1,2,5 x 10^k upwards from below the raw step; the first step whose ticks fit is the
     * densest allowed. At most ~6 candidates. */
    for (int k = 0; k < 12; k++) {
        double st = mult[k % 3] * mag * pow(10.0, k / 3);
        double k0 = floor(lo / st + 1e-9), k1 = ceil(hi / st - 1e-9);
        double cnt = k1 - k0 + 1;
        if (cnt > (double)max_ticks || cnt < 2) continue;
        for (size_t i = 0; i < (size_t)cnt; i++)
            ticks[i] = (k0 + (double)i) * st + 0.0; /* + 0.0 turns -0 into 0 */
        if (step) *step = st;
        return (size_t)cnt;
    }
    return 0;
}

/* Label of tick v for ticks spaced st: as many decimals as the step needs, or %g for very
 * large or small magnitudes. */
static void tick_label(double v, double st, char *buf, size_t len)
{
    double a = fmax(fabs(v), st);
    if (a >= 1e6 || st < 1e-4) {
        snprintf(buf, len, "%.6g", v);
        return;
    }
    int dec = (int)-floor(log10(st) + 1e-9);
    if (dec < 0) dec = 0;
    snprintf(buf, len, "%.*f", dec, v);
    if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
        memmove(buf, buf + 1, strlen(buf)); /* "-0.0" -> "0.0" */
}

/* ======================================================================================
 * XML text: escape markup characters; replace control characters and invalid UTF-8 by '?'
 * so that the document always parses.
 * ====================================================================================== */

/* Length of a valid UTF-8 sequence at s (1..4), or 0 when invalid (RFC 3629 table). */
static int utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80) return 1;
    int n;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F; /* no surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else
        return 0;
    if (s[1] < lo || s[1] > hi) return 0;
    for (int i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return n;
}

static void put_text(FILE *f, const char *text)
{
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    while (*s) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            s++;
            continue;
        case '<':
            fputs("&lt;", f);
            s++;
            continue;
        case '>':
            fputs("&gt;", f);
            s++;
            continue;
        case '"':
            fputs("&quot;", f);
            s++;
            continue;
        case '\'':
            fputs("&apos;", f);
            s++;
            continue;
        default:
            break;
        }
        if (*s < 0x20 && *s != '\t') {
            fputc('?', f);
            s++;
            continue;
        }
        int n = utf8_len(s);
        if (n == 0) {
            fputc('?', f);
            s++;
            continue;
        }
        fwrite(s, 1, (size_t)n, f);
        s += n;
    }
}

/* ======================================================================================
 * Layout: one frame per panel, mapping data to pixels
 * ====================================================================================== */

typedef struct frame {
    double px0, px1, py0, py1; /* plot area, px (py0 top, py1 bottom) */
    size_t legend_chars;       /* characters of a legend entry that fit in the page */
    double xlo, xhi, ylo, yhi; /* axis ranges (whole ticks) */
    double xt[PLOT_MAX_TICKS], yt[PLOT_MAX_TICKS], xst, yst; /* ticks and steps */
    size_t nxt, nyt;
} frame;

static double map_x(const frame *fr, double t)
{
    return fr->px0 + (t - fr->xlo) / (fr->xhi - fr->xlo) * (fr->px1 - fr->px0);
}

static double map_y(const frame *fr, double y)
{
    return fr->py1 - (y - fr->ylo) / (fr->yhi - fr->ylo) * (fr->py1 - fr->py0);
}

/* ======================================================================================
 * Drawing one series. Samples are grouped by pixel column; a column with more than GROUP_KEEP
 * samples is drawn as its first, minimum, maximum and last sample (in time order), so a
 * one-sample spike still reaches its height. A gap (NaN) narrower than the column it falls in
 * is not drawn. Cost: O(n) per series, output O(width) points.
 * ====================================================================================== */

typedef struct pen {
    FILE *f;
    const frame *fr;
    int step;      /* PLOT_STEP */
    int down;      /* a subpath is open */
    int any;       /* something was written to d (separator needed) */
    double lx, ly; /* last point, px */
} pen;

static void pen_to(pen *p, double x, double y)
{
    const char *sep = p->any ? " " : "";
    if (!p->down)
        fprintf(p->f, "%sM%.2f %.2f", sep, x, y);
    else if (p->step)
        fprintf(p->f, " L%.2f %.2f L%.2f %.2f", x, p->ly, x, y);
    else
        fprintf(p->f, " L%.2f %.2f", x, y);
    p->down = p->any = 1;
    p->lx = x;
    p->ly = y;
}

/* Lift the pen at a gap starting at pixel x: a step series holds its value up to there. */
static void pen_gap(pen *p, double x)
{
    if (p->down && p->step && x > p->lx) fprintf(p->f, " L%.2f %.2f", x, p->ly);
    p->down = 0;
}

typedef struct group {
    long col;                /* pixel column */
    size_t n;                /* samples in it */
    size_t idx[GROUP_KEEP];  /* the first GROUP_KEEP of them */
    size_t last, imin, imax; /* sample indices */
} group;

static void pen_sample(pen *p, const plot_series *s, size_t i)
{
    pen_to(p, map_x(p->fr, s->t[i]), map_y(p->fr, s->y[i]));
}

static void flush_group(pen *p, const plot_series *s, group *g)
{
    if (g->n == 0) return;
    if (g->n <= GROUP_KEEP) {
        for (size_t k = 0; k < g->n; k++)
            pen_sample(p, s, g->idx[k]);
    } else {
        size_t a = g->imin < g->imax ? g->imin : g->imax;
        size_t b = g->imin < g->imax ? g->imax : g->imin;
        pen_sample(p, s, g->idx[0]);
        if (a != g->idx[0]) pen_sample(p, s, a);
        if (b != a && b != g->last) pen_sample(p, s, b);
        pen_sample(p, s, g->last);
    }
    g->n = 0;
}

static void draw_series(FILE *f, const frame *fr, const plot_series *s, int step)
{
    pen p = {.f = f, .fr = fr, .step = step};
    group g = {0};
    int gap = 0;      /* non-finite samples seen since the last finite one */
    double gap_t = 0; /* time of the first of them */
    double w = fr->px1 - fr->px0;
    for (size_t i = 0; i < s->n; i++) {
        if (!isfinite(s->y[i])) {
            if (!gap) gap_t = s->t[i];
            gap = 1;
            continue;
        }
        double cx = map_x(fr, s->t[i]) - fr->px0;
        long col = (long)floor(cx < 0 ? 0 : cx > w ? w : cx);
        if (g.n > 0 && col == g.col) {
            gap = 0; /* a gap inside one pixel column is invisible */
        } else {
            flush_group(&p, s, &g);
            if (gap) pen_gap(&p, map_x(fr, gap_t));
            gap = 0;
            g.col = col;
        }
        if (g.n < GROUP_KEEP) g.idx[g.n] = i;
        if (g.n == 0 || s->y[i] < s->y[g.imin]) g.imin = i;
        if (g.n == 0 || s->y[i] > s->y[g.imax]) g.imax = i;
        g.last = i;
        g.n++;
    }
    flush_group(&p, s, &g);
    if (gap) pen_gap(&p, map_x(fr, gap_t));
}

/* ======================================================================================
 * The document
 * ====================================================================================== */

/* Check every series and compute the shared x range and each panel's y range. */
static int scan(const plot_series *s, size_t n, size_t np, double *xlo, double *xhi, double *ylo,
                double *yhi, char *err, size_t errlen)
{
    *xlo = INFINITY;
    *xhi = -INFINITY;
    for (size_t k = 0; k < np; k++) {
        ylo[k] = INFINITY;
        yhi[k] = -INFINITY;
    }
    for (size_t j = 0; j < n; j++) {
        const plot_series *sj = &s[j];
        if (!sj->label || (sj->n > 0 && (!sj->t || !sj->y)))
            return run_fail(err, errlen, PLOT_EUSAGE, "series %zu: NULL label, t or y", j);
        if (sj->panel >= np)
            return run_fail(err, errlen, PLOT_EUSAGE, "series '%s': panel %zu, only %zu panels",
                            sj->label, sj->panel, np);
        for (size_t i = 0; i < sj->n; i++) {
            double t = sj->t[i], y = sj->y[i];
            if (!isfinite(t))
                return run_fail(err, errlen, PLOT_EDATA,
                                "series '%s': time is not finite at sample %zu", sj->label, i);
            if (i > 0 && t < sj->t[i - 1])
                return run_fail(err, errlen, PLOT_EDATA,
                                "series '%s': time decreases at sample %zu (%g after %g)",
                                sj->label, i, t, sj->t[i - 1]);
            *xlo = fmin(*xlo, t);
            *xhi = fmax(*xhi, t);
            if (isfinite(y)) {
                ylo[sj->panel] = fmin(ylo[sj->panel], y);
                yhi[sj->panel] = fmax(yhi[sj->panel], y);
            }
        }
    }
    if (*xlo > *xhi) { /* no samples at all */
        *xlo = 0;
        *xhi = 1;
    }
    for (size_t k = 0; k < np; k++)
        if (ylo[k] > yhi[k]) {
            ylo[k] = 0;
            yhi[k] = 1;
        }
    return PLOT_OK;
}

static void write_axes(FILE *f, const frame *fr, const char *xlabel)
{
    char b[64];
    for (size_t i = 0; i < fr->nxt; i++) {
        double x = map_x(fr, fr->xt[i]);
        tick_label(fr->xt[i], fr->xst, b, sizeof b);
        fprintf(f,
                "<line class=\"xtick\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
                "stroke=\"#ddd\"/>\n",
                x, fr->py0, x, fr->py1);
        fprintf(f,
                "<text class=\"xtick-label\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%s"
                "</text>\n",
                x, fr->py1 + 15, b);
    }
    for (size_t i = 0; i < fr->nyt; i++) {
        double y = map_y(fr, fr->yt[i]);
        tick_label(fr->yt[i], fr->yst, b, sizeof b);
        fprintf(f,
                "<line class=\"ytick\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
                "stroke=\"#ddd\"/>\n",
                fr->px0, y, fr->px1, y);
        fprintf(f,
                "<text class=\"ytick-label\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%s"
                "</text>\n",
                fr->px0 - 6, y + 4, b);
    }
    /* after the grid lines, so they do not cover it */
    fprintf(f,
            "<rect class=\"frame\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
            "fill=\"none\" stroke=\"#333\"/>\n",
            fr->px0, fr->py0, fr->px1 - fr->px0, fr->py1 - fr->py0);
    fprintf(f, "<text class=\"xlabel\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">",
            (fr->px0 + fr->px1) / 2, fr->py1 + 34);
    put_text(f, xlabel);
    fputs("</text>\n", f);
}

/* Characters of UTF-8 text (continuation bytes not counted). */
static size_t text_chars(const char *text)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++)
        n += (*p & 0xC0) != 0x80;
    return n;
}

/* The legend's width: room for the longest label of any panel (so that no label runs off the
 * page), at least LEGEND_W and at most 40 % of the page; longer labels are cut with an
 * ellipsis by put_label. */
static int legend_width(const plot_series *s, size_t n, int width)
{
    size_t most = 0;
    for (size_t j = 0; j < n; j++) {
        size_t c = text_chars(s[j].label);
        if (c > most) most = c;
    }
    int w = LEGEND_TEXT_X + CHAR_W * (int)most + 4;
    if (w < LEGEND_W) w = LEGEND_W;
    if (w > width * 2 / 5) w = width * 2 / 5;
    return w;
}

/* A legend entry's text: at most max characters, the last of them an ellipsis when cut. */
static void put_label(FILE *f, const char *text, size_t max)
{
    if (text_chars(text) <= max || max < 2) {
        put_text(f, text);
        return;
    }
    char buf[512];
    size_t k = 0, chars = 0;
    for (const char *p = text; *p && k + 4 < sizeof buf; p++) {
        if ((*(const unsigned char *)p & 0xC0) != 0x80 && ++chars > max - 1) break;
        buf[k++] = *p;
    }
    memcpy(buf + k, "\xe2\x80\xa6", 4); /* U+2026, with the terminating NUL */
    put_text(f, buf);
}

/* Legend right of the frame: one entry per series of the panel, as many as fit; the last row
 * says how many more there are when they do not all fit. */
static void write_legend(FILE *f, const frame *fr, const plot_series *s, size_t n, size_t panel)
{
    double lx = fr->px1 + 12, y = fr->py0 + 10; /* the text at lx + 26 = px1 + LEGEND_TEXT_X */
    size_t total = 0, k = 0, shown = 0, room = (size_t)((fr->py1 - fr->py0) / LEGEND_ROW);
    for (size_t j = 0; j < n; j++)
        total += s[j].panel == panel;
    if (room < 1) room = 1; /* PLOT_MIN_PANEL_H gives 3; kept so that fit cannot wrap */
    size_t fit = total <= room ? total : room - 1; /* entries drawn; the last row says "more" */
    fputs("<g class=\"legend\">\n", f);
    for (size_t j = 0; j < n; j++) {
        if (s[j].panel != panel) continue;
        if (shown < fit) {
            fprintf(f,
                    "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
                    "stroke-width=\"2\"%s/><text class=\"legend-entry\" x=\"%.2f\" y=\"%.2f\">",
                    lx, y, lx + 20, y, series_color(&s[j], k), s[j].dashed ? DASH : "", lx + 26,
                    y + 4);
            put_label(f, s[j].label, fr->legend_chars);
            fputs("</text>\n", f);
            y += LEGEND_ROW;
            shown++;
        }
        k++;
    }
    if (shown < total)
        fprintf(f, "<text class=\"legend-more\" x=\"%.2f\" y=\"%.2f\">... and %zu more</text>\n",
                lx, y + 4, total - shown);
    fputs("</g>\n", f);
}

/* One panel: title, axes, its series, its legend. */
static void write_panel(FILE *f, const frame *fr, const plot_opts *d, const plot_series *s,
                        size_t n, size_t k, double y0)
{
    fprintf(f, "<g class=\"panel\" id=\"panel-%zu\">\n", k);
    if (d->panel_titles && d->panel_titles[k]) {
        fprintf(f, "<text class=\"panel-title\" x=\"%.2f\" y=\"%.2f\" font-weight=\"bold\">",
                fr->px0, y0 + 18);
        put_text(f, d->panel_titles[k]);
        fputs("</text>\n", f);
    }
    write_axes(f, fr, d->xlabel ? d->xlabel : "time (s)");
    const char *ylabel = d->panel_ylabels && d->panel_ylabels[k] ? d->panel_ylabels[k] : d->ylabel;
    if (ylabel) {
        double cy = (fr->py0 + fr->py1) / 2;
        fprintf(f,
                "<text class=\"ylabel\" x=\"14\" y=\"%.2f\" text-anchor=\"middle\" "
                "transform=\"rotate(-90 14 %.2f)\">",
                cy, cy);
        put_text(f, ylabel);
        fputs("</text>\n", f);
    }
    size_t ci = 0;
    for (size_t j = 0; j < n; j++) {
        if (s[j].panel != k) continue;
        fprintf(f, "<path class=\"series\" data-label=\"");
        put_text(f, s[j].label);
        fprintf(f, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s d=\"",
                series_color(&s[j], ci++), s[j].dashed ? DASH : "");
        draw_series(f, fr, &s[j], d->draw == PLOT_STEP);
        fputs("\"/>\n", f);
    }
    write_legend(f, fr, s, n, k);
    fputs("</g>\n", f);
}

int plot_svg_write(FILE *f, const plot_opts *o, const plot_series *s, size_t n, char *err,
                   size_t errlen)
{
    plot_opts d = {0};
    if (o) d = *o;
    if (!f || (n > 0 && !s))
        return run_fail(err, errlen, PLOT_EUSAGE, "plot_svg_write: NULL stream or series");
    int width = d.width ? d.width : DEFAULT_WIDTH;
    int ph = d.panel_height ? d.panel_height : DEFAULT_PANEL_H;
    size_t np = d.n_panels ? d.n_panels : 1;
    if (width < PLOT_MIN_WIDTH || width > PLOT_MAX_WIDTH || ph < PLOT_MIN_PANEL_H ||
        ph > PLOT_MAX_PANEL_H)
        return run_fail(err, errlen, PLOT_EUSAGE, "plot: size %dx%d out of range (%d..%d x %d..%d)",
                        width, ph, PLOT_MIN_WIDTH, PLOT_MAX_WIDTH, PLOT_MIN_PANEL_H,
                        PLOT_MAX_PANEL_H);
    if (np > PLOT_MAX_PANELS || n > PLOT_MAX_SERIES)
        return run_fail(err, errlen, PLOT_EUSAGE,
                        "plot: %zu panels and %zu series, at most %d and %d", np, n,
                        PLOT_MAX_PANELS, PLOT_MAX_SERIES);
    double xlo, xhi, ylo[PLOT_MAX_PANELS], yhi[PLOT_MAX_PANELS];
    int rc = scan(s, n, np, &xlo, &xhi, ylo, yhi, err, errlen);
    if (rc != PLOT_OK) return rc;
    frame fr;
    memset(&fr, 0, sizeof fr);
    fr.nxt = plot_ticks(xlo, xhi, X_TICKS, fr.xt, &fr.xst);
    if (fr.nxt == 0)
        return run_fail(err, errlen, PLOT_EDATA, "plot: times %g .. %g cannot be placed on an axis",
                        xlo, xhi);
    fr.xlo = fr.xt[0];
    fr.xhi = fr.xt[fr.nxt - 1];
    int top = d.title ? TITLE_H : 0;
    int height = top + (int)np * ph;
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n",
            width, height, width, height, width, height);
    if (d.title) {
        fprintf(f,
                "<text class=\"title\" x=\"%d\" y=\"20\" text-anchor=\"middle\" "
                "font-size=\"15\">",
                width / 2);
        put_text(f, d.title);
        fputs("</text>\n", f);
    }
    for (size_t k = 0; k < np; k++) {
        fr.nyt = plot_ticks(ylo[k], yhi[k], Y_TICKS, fr.yt, &fr.yst);
        if (fr.nyt == 0)
            return run_fail(err, errlen, PLOT_EDATA,
                            "plot: panel %zu: values %g .. %g cannot be placed on an axis", k,
                            ylo[k], yhi[k]);
        fr.ylo = fr.yt[0];
        fr.yhi = fr.yt[fr.nyt - 1];
        double y0 = top + (double)k * ph;
        int lw = legend_width(s, n, width);
        fr.px0 = MARGIN_L;
        fr.px1 = width - MARGIN_R - lw;
        fr.legend_chars = (size_t)((lw - LEGEND_TEXT_X - 4) / CHAR_W);
        fr.py0 = y0 + PANEL_TOP;
        fr.py1 = y0 + ph - PANEL_BOTTOM;
        write_panel(f, &fr, &d, s, n, k, y0);
    }
    fputs("</svg>\n", f);
    if (fflush(f) != 0 || ferror(f))
        return run_fail(err, errlen, PLOT_EIO, "plot: write error: %s", strerror(errno));
    return PLOT_OK;
}

int plot_svg_file(const char *path, const plot_opts *o, const plot_series *s, size_t n, char *err,
                  size_t errlen)
{
    if (!path) return run_fail(err, errlen, PLOT_EUSAGE, "plot_svg_file: NULL path");
    char e[1200];
    FILE *f = outfile_fopen(path, e, sizeof e); /* private, never through a link */
    if (!f) return run_fail(err, errlen, PLOT_EIO, "%s", e);
    int rc = plot_svg_write(f, o, s, n, err, errlen);
    if (rc == PLOT_EIO)
        run_fail(err, errlen, PLOT_EIO, "%s: write error: %s", path, strerror(errno));
    if (fclose(f) != 0 && rc == PLOT_OK)
        rc = run_fail(err, errlen, PLOT_EIO, "%s: close: %s", path, strerror(errno));
    return rc;
}

/* ======================================================================================
 * Results tables
 * ====================================================================================== */

/* The distinct variables (column names) of the tables, in first-seen order: a variable's index
 * here is its colour. names must hold every column of every table. Returns the count. */
static size_t distinct_vars(const res_table *const *tables, size_t n, const char **vars)
{
    size_t nv = 0;
    for (size_t k = 0; k < n; k++)
        for (size_t c = 1; c < tables[k]->n_cols; c++) {
            size_t v = 0;
            while (v < nv && strcmp(vars[v], tables[k]->names[c]) != 0)
                v++;
            if (v == nv) vars[nv++] = tables[k]->names[c];
        }
    return nv;
}

static size_t var_index(const char *const *vars, size_t nv, const char *name)
{
    size_t v = 0;
    while (v < nv && strcmp(vars[v], name) != 0)
        v++;
    return v;
}

/* Column of table t named name, or 0 (time) when there is none. */
static size_t column_of(const res_table *t, const char *name)
{
    for (size_t c = 1; c < t->n_cols; c++)
        if (strcmp(t->names[c], name) == 0) return c;
    return 0;
}

/* y of (rt, ry, n) at time x, linear between rows; NaN outside [rt[0], rt[n-1]]. */
static double interp(const double *rt, const double *ry, size_t n, double x)
{
    if (n == 0 || !(x >= rt[0]) || !(x <= rt[n - 1])) return NAN;
    size_t lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (rt[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    if (rt[hi] == rt[lo]) return ry[hi];
    double w = (x - rt[lo]) / (rt[hi] - rt[lo]);
    return ry[lo] + w * (ry[hi] - ry[lo]);
}

/* Everything plot_tables and plot_tables_ref allocate; freed by builder_free. */
typedef struct builder {
    plot_series *s;
    char **strs; /* labels and y labels, owned */
    double **ys; /* error series values, owned */
    size_t ns, nstr, nys;
} builder;

static void builder_free(builder *b)
{
    for (size_t i = 0; i < b->nstr; i++)
        free(b->strs[i]);
    for (size_t i = 0; i < b->nys; i++)
        free(b->ys[i]);
    free(b->strs);
    free(b->ys);
    free(b->s);
}

/* A copy of "<a><sep><b><tail>" kept in b, or NULL when out of memory. */
static char *builder_str(builder *b, const char *a, const char *sep, const char *bb,
                         const char *tail)
{
    size_t len = strlen(a) + strlen(sep) + strlen(bb) + strlen(tail) + 1;
    char *p = malloc(len);
    if (!p) return NULL;
    snprintf(p, len, "%s%s%s%s", a, sep, bb, tail);
    b->strs[b->nstr++] = p;
    return p;
}

/* Builds and writes the plot; ref NULL: plot_tables. */
static int tables_plot(const char *path, const res_table *const *tables, const char *const *names,
                       size_t n, int per_table, const res_table *ref,
                       const char *(*units)(void *, const char *), void *ctx, const plot_opts *o,
                       char *err, size_t errlen)
{
    if (!path || !tables || !names || n == 0)
        return run_fail(err, errlen, PLOT_EUSAGE, "plot_tables: NULL or empty arguments");
    size_t np_max = per_table ? n + (ref != NULL) : 1;
    if (np_max > PLOT_MAX_PANELS)
        return run_fail(err, errlen, PLOT_EUSAGE, "plot_tables: %zu federates, at most %d panels",
                        n, PLOT_MAX_PANELS - (ref != NULL));
    size_t ncols = 0, nref = 0;
    for (size_t k = 0; k < n; k++) {
        if (!tables[k] || !names[k] || tables[k]->n_cols < 1)
            return run_fail(err, errlen, PLOT_EUSAGE, "plot_tables: table %zu is NULL or empty", k);
        ncols += tables[k]->n_cols - 1;
        for (size_t c = 1; ref && c < tables[k]->n_cols; c++)
            nref += column_of(ref, tables[k]->names[c]) != 0;
    }
    size_t ns = ncols + 2 * nref; /* each column; a reference curve and an error per match */
    if (ns > PLOT_MAX_SERIES)
        return run_fail(err, errlen, PLOT_EUSAGE, "plot_tables: %zu series, at most %d", ns,
                        PLOT_MAX_SERIES);
    builder b = {0};
    const char **vars = calloc(ncols + 1, sizeof *vars);
    const char **ylabels = calloc(np_max, sizeof *ylabels);
    const char **titles = calloc(np_max, sizeof *titles);
    b.s = calloc(ns + 1, sizeof *b.s);
    b.strs = calloc(ns + np_max + 1, sizeof *b.strs);
    b.ys = calloc(nref + 1, sizeof *b.ys);
    int rc = PLOT_OK;
    if (!vars || !ylabels || !titles || !b.s || !b.strs || !b.ys) {
        rc = run_fail(err, errlen, PLOT_ENOMEM, "plot_tables: out of memory");
        goto out;
    }
    size_t nv = distinct_vars(tables, n, vars);
    size_t np = per_table ? n : 1;
    for (size_t k = 0; k < n; k++) {
        const res_table *t = tables[k];
        char yl[512] = "", *w = yl;
        for (size_t c = 1; c < t->n_cols; c++) {
            size_t v = var_index(vars, nv, t->names[c]);
            const char *label = per_table ? builder_str(&b, t->names[c], "", "", "")
                                          : builder_str(&b, names[k], ".", t->names[c], "");
            if (!label) goto oom;
            b.s[b.ns++] = (plot_series){.label = label,
                                        .t = t->cols[0],
                                        .y = t->cols[c],
                                        .n = t->n_rows,
                                        .panel = per_table ? k : 0,
                                        .color = plot_color(v)};
            size_t rcol = ref ? column_of(ref, t->names[c]) : 0;
            if (rcol) {
                if (!(label = builder_str(&b, t->names[c], "", "", " (reference)"))) goto oom;
                b.s[b.ns++] = (plot_series){.label = label,
                                            .t = ref->cols[0],
                                            .y = ref->cols[rcol],
                                            .n = ref->n_rows,
                                            .panel = k,
                                            .color = plot_color(v),
                                            .dashed = 1};
            }
            const char *u = units ? units(ctx, t->names[c]) : NULL;
            int room = (int)(sizeof yl - (size_t)(w - yl));
            int m = snprintf(w, (size_t)room, "%s%s%s%s%s", c > 1 ? ", " : "", t->names[c],
                             u ? " (" : "", u ? u : "", u ? ")" : "");
            if (m > 0 && m < room) w += m;
        }
        if (per_table) {
            titles[k] = names[k];
            if (!(ylabels[k] = builder_str(&b, yl, "", "", ""))) goto oom;
        }
    }
    /* The error panel: |value - reference| of each matched column, at the table's times. */
    if (ref && nref > 0 && per_table) {
        for (size_t k = 0; k < n; k++) {
            const res_table *t = tables[k];
            for (size_t c = 1; c < t->n_cols; c++) {
                size_t rcol = column_of(ref, t->names[c]);
                if (!rcol) continue;
                double *e = malloc((t->n_rows ? t->n_rows : 1) * sizeof *e);
                if (!e) goto oom;
                b.ys[b.nys++] = e;
                for (size_t r = 0; r < t->n_rows; r++)
                    e[r] = fabs(t->cols[c][r] -
                                interp(ref->cols[0], ref->cols[rcol], ref->n_rows, t->cols[0][r]));
                int first = 1; /* the first federate with this column draws it solid */
                for (size_t k2 = 0; k2 < k; k2++)
                    first &= column_of(tables[k2], t->names[c]) == 0;
                const char *label = builder_str(&b, names[k], ".", t->names[c], "");
                if (!label) goto oom;
                b.s[b.ns++] = (plot_series){.label = label,
                                            .t = t->cols[0],
                                            .y = e,
                                            .n = t->n_rows,
                                            .panel = n,
                                            .color = plot_color(var_index(vars, nv, t->names[c])),
                                            .dashed = !first};
            }
        }
        titles[n] = "error against the reference";
        ylabels[n] = "|co-simulation - reference|";
        np = n + 1;
    }
    plot_opts d = {0};
    if (o) d = *o;
    d.n_panels = np;
    d.panel_titles = per_table ? titles : NULL;
    d.panel_ylabels = per_table ? ylabels : NULL;
    rc = plot_svg_file(path, &d, b.s, b.ns, err, errlen);
    goto out;
oom:
    rc = run_fail(err, errlen, PLOT_ENOMEM, "plot_tables: out of memory");
out:
    builder_free(&b);
    free(vars);
    free(ylabels);
    free(titles);
    return rc;
}

int plot_tables(const char *path, const res_table *const *tables, const char *const *names,
                size_t n, int per_table, const plot_opts *o, char *err, size_t errlen)
{
    return tables_plot(path, tables, names, n, per_table, NULL, NULL, NULL, o, err, errlen);
}

int plot_tables_ref(const char *path, const res_table *const *tables, const char *const *names,
                    size_t n, const res_table *ref,
                    const char *(*units)(void *ctx, const char *name), void *ctx,
                    const plot_opts *o, char *err, size_t errlen)
{
    if (ref && ref->n_cols < 1)
        return run_fail(err, errlen, PLOT_EUSAGE, "plot_tables_ref: empty reference");
    return tables_plot(path, tables, names, n, 1, ref, units, ctx, o, err, errlen);
}
