/* Tests of federate/run/plot_svg.h: 1-2-5 ticks (cases worked by hand and properties over random
 * ranges), and SVG documents parsed back with libxml2: element counts, coordinates of known
 * points read against the document's own tick marks, NaN gaps, step drawing, decimation that
 * keeps spikes, escaping, errors, and plots of results tables. doc/run.md.
 * Read federate/run/plot_svg.h first.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "federate/run/plot_svg.h"
#include "federate/run/results.h"
#include "tests/check.h"

#define PX_TOL 0.011 /* px: coordinates are written with 2 decimals */

/* ---- ticks ---------------------------------------------------------------------------- */

static void check_ticks(double lo, double hi, size_t max, const double *want, size_t nwant,
                        double want_step)
{
    double t[PLOT_MAX_TICKS], st = 0;
    size_t n = plot_ticks(lo, hi, max, t, &st);
    CHECK(n == nwant, "ticks(%g, %g, %zu): %zu ticks, want %zu", lo, hi, max, n, nwant);
    CHECK_NEAR(st, want_step, 1e-12 * want_step);
    for (size_t i = 0; i < n && i < nwant; i++)
        CHECK_NEAR(t[i], want[i], 1e-12 * want_step);
}

static void test_ticks(void)
{
    /* worked by hand: the smallest 1-2-5 step whose multiples cover the range in <= max */
    check_ticks(0, 10, 8, (double[]){0, 2, 4, 6, 8, 10}, 6, 2); /* step 1: 11 ticks */
    check_ticks(0.13, 0.87, 6, (double[]){0, 0.2, 0.4, 0.6, 0.8, 1}, 6, 0.2);
    check_ticks(-3.7, 12.2, 6, (double[]){-5, 0, 5, 10, 15}, 5, 5); /* step 2: 10 ticks */
    check_ticks(5, 5, 6, (double[]){4.5, 5, 5.5}, 3, 0.5);          /* widened to 4.5..5.5 */
    check_ticks(0, 0, 6, (double[]){-1, -0.5, 0, 0.5, 1}, 5, 0.5);  /* widened to -1..1 */
    check_ticks(0, 100, 8, (double[]){0, 20, 40, 60, 80, 100}, 6, 20);
    check_ticks(1e-9, 3e-9, 6, (double[]){1e-9, 1.5e-9, 2e-9, 2.5e-9, 3e-9}, 5, 5e-10);
    double t[PLOT_MAX_TICKS];
    CHECK_INT_EQ(plot_ticks(1, 0, 6, t, NULL), 0);
    CHECK_INT_EQ(plot_ticks(0, NAN, 6, t, NULL), 0);
    CHECK_INT_EQ(plot_ticks(0, 1, 2, t, NULL), 0);
    CHECK_INT_EQ(plot_ticks(0, 1, PLOT_MAX_TICKS + 1, t, NULL), 0);
    CHECK_INT_EQ(plot_ticks(-1e308, 1e308, 6, t, NULL), 0); /* range overflows */
    CHECK_INT_EQ(plot_ticks(-0.0, 1, 3, t, NULL), 3);       /* 0, 0.5, 1 */
    CHECK(fabs(t[0]) < 1e-300 && !signbit(t[0]), "a zero tick is +0, not -0");

    /* properties over pseudo-random ranges (fixed seed) */
    unsigned long long x = 12345;
    int bad = 0;
    for (int k = 0; k < 5000 && !bad; k++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        double u = (double)(x >> 11) / 9007199254740992.0;
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        double v = (double)(x >> 11) / 9007199254740992.0;
        double scale = pow(10.0, (double)(k % 13) - 6);
        double lo = (u - 0.5) * scale * 10, hi = lo + v * scale;
        size_t max = 3 + (size_t)(k % 8);
        double st;
        size_t n = plot_ticks(lo, hi, max, t, &st);
        double m = st / pow(10.0, floor(log10(st) + 1e-9)); /* mantissa 1, 2 or 5 */
        int m_ok = fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9;
        if (hi - lo <= 1e-12 * fmax(fabs(lo), fabs(hi)))
            continue; /* widened: covered by the hand cases */
        int ok = n >= 2 && n <= max && m_ok && t[0] <= lo + 1e-9 * st && t[n - 1] >= hi - 1e-9 * st;
        for (size_t i = 1; ok && i < n; i++)
            ok = fabs(t[i] - t[i - 1] - st) <= 1e-6 * st;
        /* minimality: the next smaller 1-2-5 step would need more than max ticks */
        double smaller = fabs(m - 1) < 1e-9 ? st / 2 : fabs(m - 2) < 1e-9 ? st / 2 : st * 0.4;
        double c = ceil(hi / smaller - 1e-9) - floor(lo / smaller + 1e-9) + 1;
        ok = ok && c > (double)max;
        if (!ok) {
            bad = 1;
            fprintf(stderr, "ticks(%.17g, %.17g, %zu): n=%zu step=%g first=%g last=%g\n", lo, hi,
                    max, n, st, t[0], n ? t[n - 1] : 0);
        }
    }
    CHECK(!bad, "5000 random ranges: covered, <= max ticks, 1-2-5 step, densest allowed");
}

/* ---- SVG helpers ---------------------------------------------------------------------- */

typedef struct nodes {
    size_t n;
    xmlNode *v[64];
} nodes;

/* Elements whose class attribute equals cls, in document order. */
static void find_class(xmlNode *node, const char *cls, nodes *out)
{
    for (xmlNode *c = node; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        xmlChar *a = xmlGetProp(c, (const xmlChar *)"class");
        if (a && strcmp((const char *)a, cls) == 0 && out->n < 64) out->v[out->n++] = c;
        xmlFree(a);
        find_class(c->children, cls, out);
    }
}

static double num_attr(xmlNode *n, const char *name)
{
    xmlChar *a = xmlGetProp(n, (const xmlChar *)name);
    double v = a ? strtod((const char *)a, NULL) : NAN;
    xmlFree(a);
    return v;
}

static char *str_attr(xmlNode *n, const char *name)
{
    xmlChar *a = xmlGetProp(n, (const xmlChar *)name);
    char *s = a ? strdup((const char *)a) : NULL;
    xmlFree(a);
    return s;
}

static char *text_of(xmlNode *n)
{
    xmlChar *a = xmlNodeGetContent(n);
    char *s = a ? strdup((const char *)a) : NULL;
    xmlFree(a);
    return s;
}

/* Points of a path's d attribute; moves counts the "M" commands. */
typedef struct pts {
    size_t n, moves;
    double *x, *y;
} pts;

static pts parse_d(xmlNode *path)
{
    pts p = {0};
    char *d = str_attr(path, "d");
    size_t cap = d ? strlen(d) / 4 + 1 : 1;
    p.x = malloc(cap * sizeof *p.x);
    p.y = malloc(cap * sizeof *p.y);
    for (char *s = d; s && *s;) {
        if (*s == ' ') {
            s++;
            continue;
        }
        if (*s == 'M') p.moves++;
        char *e;
        double x = strtod(s + 1, &e), y = strtod(e, &e);
        if (p.n < cap) {
            p.x[p.n] = x;
            p.y[p.n] = y;
            p.n++;
        }
        s = e;
    }
    free(d);
    return p;
}

static void pts_free(pts *p)
{
    free(p->x);
    free(p->y);
}

/* The axis mapping of panel k read from the document's tick lines and labels: value -> px.
 * Returns slope and offset for x (xtick) or y (ytick) from the first and last tick. */
static int axis_map(xmlNode *panel, const char *axis, double *a, double *b)
{
    char cls[32], lcls[32];
    nodes lines = {0}, labels = {0};
    snprintf(cls, sizeof cls, "%s", axis);
    snprintf(lcls, sizeof lcls, "%s-label", axis);
    find_class(panel->children, cls, &lines);
    find_class(panel->children, lcls, &labels);
    if (lines.n < 2 || lines.n != labels.n) return 0;
    int is_x = axis[0] == 'x';
    char *l0 = text_of(labels.v[0]), *l1 = text_of(labels.v[lines.n - 1]);
    double v0 = strtod(l0, NULL), v1 = strtod(l1, NULL);
    double p0 = num_attr(lines.v[0], is_x ? "x1" : "y1");
    double p1 = num_attr(lines.v[lines.n - 1], is_x ? "x1" : "y1");
    free(l0);
    free(l1);
    *a = (p1 - p0) / (v1 - v0);
    *b = p0 - *a * v0;
    return 1;
}

static xmlDoc *render(const plot_opts *o, const plot_series *s, size_t n, int want_rc,
                      size_t *bytes)
{
    char *buf = NULL, err[PLOT_ERRLEN] = "";
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int rc = f ? plot_svg_write(f, o, s, n, err, sizeof err) : -99;
    if (f) fclose(f);
    CHECK(rc == want_rc, "plot_svg_write: rc %d, want %d: %s", rc, want_rc, err);
    if (bytes) *bytes = len;
    xmlDoc *doc =
        rc == PLOT_OK ? xmlReadMemory(buf, (int)len, "plot.svg", NULL, XML_PARSE_NONET) : NULL;
    if (rc == PLOT_OK) CHECK(doc != NULL, "the SVG parses as XML");
    free(buf);
    return doc;
}

/* ---- documents ------------------------------------------------------------------------ */

static void test_linear_and_gaps(void)
{
    double t[11], y[11], yb[6] = {0, 1, NAN, NAN, 4, 5}, tb[6] = {0, 1, 2, 3, 4, 5};
    for (int i = 0; i <= 10; i++) {
        t[i] = i;
        y[i] = 3.0 * i - 7; /* -7 .. 23 */
    }
    plot_series s[3] = {
        {.label = "A.x", .t = t, .y = y, .n = 11, .panel = 0},
        {.label = "B.y", .t = tb, .y = yb, .n = 6, .panel = 1},
        {.label = "B.empty", .n = 0, .panel = 1},
    };
    const char *titles[2] = {"A", "B"};
    plot_opts o = {
        .title = "Lotka & Volterra", .n_panels = 2, .panel_titles = titles, .ylabel = "population"};
    xmlDoc *doc = render(&o, s, 3, PLOT_OK, NULL);
    if (!doc) return;
    xmlNode *root = xmlDocGetRootElement(doc);
    CHECK_STR_EQ((const char *)root->name, "svg");
    nodes panels = {0}, series = {0}, legends = {0}, titles_n = {0};
    find_class(root, "panel", &panels);
    find_class(root, "series", &series);
    find_class(root, "legend", &legends);
    find_class(root, "panel-title", &titles_n);
    CHECK_INT_EQ(panels.n, 2);
    CHECK_INT_EQ(series.n, 3);
    CHECK_INT_EQ(legends.n, 2);
    CHECK_INT_EQ(titles_n.n, 2);
    nodes ylabels = {0};
    find_class(root, "ylabel", &ylabels);
    CHECK_INT_EQ(ylabels.n, 2);
    nodes title = {0};
    find_class(root, "title", &title);
    char *tt = title.n ? text_of(title.v[0]) : NULL;
    CHECK_STR_EQ(tt, "Lotka & Volterra");
    free(tt);
    if (panels.n == 2 && series.n == 3) {
        double ax, bx, ay, by;
        CHECK(axis_map(panels.v[0], "xtick", &ax, &bx), "x ticks of panel 0");
        CHECK(axis_map(panels.v[0], "ytick", &ay, &by), "y ticks of panel 0");
        pts p = parse_d(series.v[0]);
        CHECK_INT_EQ(p.n, 11); /* 11 samples, wide apart: all drawn */
        CHECK_INT_EQ(p.moves, 1);
        for (size_t i = 0; i < p.n; i++) {
            CHECK_NEAR(p.x[i], ax * t[i] + bx, PX_TOL);
            CHECK_NEAR(p.y[i], ay * y[i] + by, PX_TOL);
        }
        CHECK(ay < 0, "y grows upwards");
        pts_free(&p);
        char *lab = str_attr(series.v[1], "data-label");
        CHECK_STR_EQ(lab, "B.y");
        free(lab);
        p = parse_d(series.v[1]);
        CHECK_INT_EQ(p.moves, 2); /* the NaN run splits the line */
        CHECK_INT_EQ(p.n, 4);
        double ax1, bx1;
        CHECK(axis_map(panels.v[1], "xtick", &ax1, &bx1), "x ticks of panel 1");
        CHECK_NEAR(ax1, ax, 1e-9); /* the x axis is shared */
        if (p.n == 4) CHECK_NEAR(p.x[2], ax1 * 4 + bx1, PX_TOL);
        pts_free(&p);
        p = parse_d(series.v[2]);
        CHECK_INT_EQ(p.n, 0);
        pts_free(&p);
    }
    xmlFreeDoc(doc);
}

static void test_step(void)
{
    double t[5] = {0, 1, 2, 3, 4}, y[5] = {0, 1, 0, NAN, 2};
    plot_series s = {.label = "u", .t = t, .y = y, .n = 5};
    plot_opts o = {.draw = PLOT_STEP};
    xmlDoc *doc = render(&o, &s, 1, PLOT_OK, NULL);
    if (!doc) return;
    xmlNode *root = xmlDocGetRootElement(doc);
    nodes panels = {0}, series = {0};
    find_class(root, "panel", &panels);
    find_class(root, "series", &series);
    double ax, bx, ay, by;
    if (panels.n == 1 && series.n == 1 && axis_map(panels.v[0], "xtick", &ax, &bx) &&
        axis_map(panels.v[0], "ytick", &ay, &by)) {
        pts p = parse_d(series.v[0]);
        /* M(0,0) L(1,0) L(1,1) L(2,1) L(2,0) L(3,0) [gap] M(4,2) */
        double wx[7] = {0, 1, 1, 2, 2, 3, 4}, wy[7] = {0, 0, 1, 1, 0, 0, 2};
        CHECK_INT_EQ(p.n, 7);
        CHECK_INT_EQ(p.moves, 2);
        for (size_t i = 0; i < 7 && i < p.n; i++) {
            CHECK_NEAR(p.x[i], ax * wx[i] + bx, PX_TOL);
            CHECK_NEAR(p.y[i], ay * wy[i] + by, PX_TOL);
        }
        pts_free(&p);
    } else {
        CHECK(0, "step document has one panel, one series and ticks");
    }
    xmlFreeDoc(doc);
}

static void test_decimation(void)
{
    const size_t n = 1000000;
    double *t = malloc(n * sizeof *t), *y = malloc(n * sizeof *y);
    if (!t || !y) {
        free(t);
        free(y);
        CHECK(0, "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        t[i] = (double)i * 1e-4; /* 0 .. 100 s */
        y[i] = sin(t[i]);
    }
    y[500001] = 100; /* one-sample spike */
    y[700001] = -50;
    plot_series s = {.label = "spiky", .t = t, .y = y, .n = n};
    plot_opts o = {.width = 600};
    size_t bytes = 0;
    xmlDoc *doc = render(&o, &s, 1, PLOT_OK, &bytes);
    CHECK(bytes < 200000, "1e6 samples give a bounded file: %zu bytes", bytes);
    if (doc) {
        xmlNode *root = xmlDocGetRootElement(doc);
        nodes panels = {0}, series = {0}, frame = {0};
        find_class(root, "panel", &panels);
        find_class(root, "series", &series);
        find_class(root, "frame", &frame);
        double ax, bx, ay, by;
        if (series.n == 1 && frame.n == 1 && axis_map(panels.v[0], "ytick", &ay, &by) &&
            axis_map(panels.v[0], "xtick", &ax, &bx)) {
            double w = num_attr(frame.v[0], "width");
            pts p = parse_d(series.v[0]);
            CHECK(p.n <= 4 * ((size_t)w + 1), "%zu points for %g px columns", p.n, w);
            CHECK(p.n >= (size_t)w, "every pixel column drawn: %zu points", p.n);
            double top = INFINITY, bottom = -INFINITY, x_top = 0;
            for (size_t i = 0; i < p.n; i++) {
                if (p.y[i] < top) {
                    top = p.y[i];
                    x_top = p.x[i];
                }
                bottom = fmax(bottom, p.y[i]);
            }
            CHECK_NEAR(top, ay * 100 + by, PX_TOL); /* the spike keeps its height */
            CHECK_NEAR(x_top, ax * t[500001] + bx, PX_TOL);
            CHECK_NEAR(bottom, ay * -50 + by, PX_TOL);
            int sorted = 1;
            for (size_t i = 1; i < p.n; i++)
                sorted &= p.x[i] >= p.x[i - 1];
            CHECK(sorted, "points in time order");
            pts_free(&p);
        } else {
            CHECK(0, "decimated document has one series, a frame and ticks");
        }
        xmlFreeDoc(doc);
    }
    free(t);
    free(y);
}

static void test_escaping_and_errors(void)
{
    double t[2] = {0, 1}, y[2] = {1, 2}, tbad[3] = {0, 2, 1};
    plot_series s = {.label = "a<b & \"c\" 'd'\x01\xff\xc3\xa9", .t = t, .y = y, .n = 2};
    xmlDoc *doc = render(NULL, &s, 1, PLOT_OK, NULL);
    if (doc) {
        nodes series = {0};
        find_class(xmlDocGetRootElement(doc), "series", &series);
        char *lab = series.n ? str_attr(series.v[0], "data-label") : NULL;
        CHECK_STR_EQ(lab, "a<b & \"c\" 'd'??\xc3\xa9");
        free(lab);
        xmlFreeDoc(doc);
    }
    char err[PLOT_ERRLEN] = "";
    FILE *f = fopen("/dev/null", "w");
    plot_series b = {.label = "F.x", .t = tbad, .y = tbad, .n = 3};
    CHECK_INT_EQ(plot_svg_write(f, NULL, &b, 1, err, sizeof err), PLOT_EDATA);
    CHECK_STR_HAS(err, "series 'F.x': time decreases at sample 2");
    double tn[2] = {0, NAN};
    b.t = tn;
    b.n = 2;
    CHECK_INT_EQ(plot_svg_write(f, NULL, &b, 1, err, sizeof err), PLOT_EDATA);
    CHECK_STR_HAS(err, "not finite at sample 1");
    b.t = t;
    b.panel = 1;
    CHECK_INT_EQ(plot_svg_write(f, NULL, &b, 1, err, sizeof err), PLOT_EUSAGE);
    CHECK_STR_HAS(err, "panel 1");
    plot_opts small = {.width = 10};
    b.panel = 0;
    CHECK_INT_EQ(plot_svg_write(f, &small, &b, 1, err, sizeof err), PLOT_EUSAGE);
    CHECK_INT_EQ(plot_svg_write(f, NULL, &b, PLOT_MAX_SERIES + 1, err, sizeof err), PLOT_EUSAGE);
    double huge[2] = {-1e308, 1e308};
    b.y = huge;
    CHECK_INT_EQ(plot_svg_write(f, NULL, &b, 1, err, sizeof err), PLOT_EDATA);
    CHECK_STR_HAS(err, "panel 0");
    if (f) fclose(f);
    CHECK_INT_EQ(plot_svg_file("/nonexistent-dir/p.svg", NULL, &s, 1, err, sizeof err), PLOT_EIO);
    CHECK_STR_HAS(err, "/nonexistent-dir/p.svg");

    /* all-NaN and constant series still give a valid document */
    double nn[2] = {NAN, NAN};
    plot_series c[2] = {{.label = "nan", .t = t, .y = nn, .n = 2},
                        {.label = "const", .t = t, .y = (double[]){3, 3}, .n = 2}};
    doc = render(NULL, c, 2, PLOT_OK, NULL);
    if (doc) {
        nodes series = {0};
        find_class(xmlDocGetRootElement(doc), "series", &series);
        CHECK_INT_EQ(series.n, 2);
        if (series.n == 2) {
            pts p = parse_d(series.v[0]);
            CHECK_INT_EQ(p.n, 0);
            pts_free(&p);
        }
        xmlFreeDoc(doc);
    }
}

/* A legend with more series than rows lists what fits and counts the rest. */
static void test_legend_overflow(void)
{
    double t[2] = {0, 1}, y[2] = {0, 1};
    plot_series s[30];
    char labels[30][16];
    for (int i = 0; i < 30; i++) {
        snprintf(labels[i], sizeof labels[i], "v%d", i);
        s[i] = (plot_series){.label = labels[i], .t = t, .y = y, .n = 2};
    }
    /* panel 120 px: the frame is 120 - 26 - 44 = 50 px high, room for 3 rows of 16 px */
    plot_opts o = {.panel_height = PLOT_MIN_PANEL_H};
    xmlDoc *doc = render(&o, s, 30, PLOT_OK, NULL);
    if (!doc) return;
    nodes entries = {0}, more = {0}, series = {0};
    find_class(xmlDocGetRootElement(doc), "legend-entry", &entries);
    find_class(xmlDocGetRootElement(doc), "legend-more", &more);
    find_class(xmlDocGetRootElement(doc), "series", &series);
    CHECK_INT_EQ(entries.n, 2);
    CHECK_INT_EQ(more.n, 1);
    CHECK_INT_EQ(series.n, 30); /* all drawn; only the legend is cut */
    char *txt = more.n ? text_of(more.v[0]) : NULL;
    CHECK_STR_EQ(txt, "... and 28 more");
    free(txt);
    xmlFreeDoc(doc);
    /* exactly as many as fit: no "more" row */
    doc = render(&o, s, 3, PLOT_OK, NULL);
    if (!doc) return;
    entries.n = more.n = 0;
    find_class(xmlDocGetRootElement(doc), "legend-entry", &entries);
    find_class(xmlDocGetRootElement(doc), "legend-more", &more);
    CHECK_INT_EQ(entries.n, 3);
    CHECK_INT_EQ(more.n, 0);
    xmlFreeDoc(doc);
}

/* A long legend entry widens the legend (the frame narrows) so that it stays inside the page,
 * at 7 px a character (a generous width at font-size 12); one longer than 40 % of the page
 * allows is cut with an ellipsis, the series keeping its whole label in data-label. */
static void test_legend_width(void)
{
    double t[2] = {0, 1}, y[2] = {0, 1};
    char mid[64], lng[400];
    memset(mid, 'm', 40), mid[40] = '\0';
    memset(lng, 'w', 300), lng[300] = '\0';
    for (int c = 0; c < 2; c++) {
        const char *label = c ? lng : mid;
        plot_series s[2] = {{.label = "x", .t = t, .y = y, .n = 2},
                            {.label = label, .t = t, .y = y, .n = 2}};
        plot_opts o = {.width = 900};
        xmlDoc *doc = render(&o, s, 2, PLOT_OK, NULL);
        if (!doc) return;
        nodes entries = {0}, series = {0}, frames = {0};
        find_class(xmlDocGetRootElement(doc), "legend-entry", &entries);
        find_class(xmlDocGetRootElement(doc), "series", &series);
        find_class(xmlDocGetRootElement(doc), "frame", &frames);
        CHECK_INT_EQ(entries.n, 2);
        if (entries.n == 2 && series.n == 2 && frames.n == 1) {
            char *txt = text_of(entries.v[1]), *full = str_attr(series.v[1], "data-label");
            size_t chars = 0;
            for (const char *p = txt ? txt : ""; *p; p++)
                chars += (*p & 0xC0) != 0x80;
            double x = num_attr(entries.v[1], "x");
            CHECK(x + 7.0 * (double)chars <= 900,
                  "%s label: %zu characters from x = %g run past "
                  "the page",
                  c ? "long" : "40-character", chars, x);
            CHECK_STR_EQ(full, label);
            if (c) {
                CHECK(txt && strstr(txt, "\xe2\x80\xa6") && chars < 300, "long label not cut: %s",
                      txt ? txt : "(none)");
            } else {
                CHECK_STR_EQ(txt, mid);
                /* the frame gave up the room: narrower than with the default legend */
                CHECK(num_attr(frames.v[0], "width") < 900 - 75 - 15 - 160, "frame width %g",
                      num_attr(frames.v[0], "width"));
            }
            free(txt);
            free(full);
        }
        xmlFreeDoc(doc);
    }
}

static void test_tables(void)
{
    char dir[256], err[RES_ERRLEN] = "", path[300];
    snprintf(dir, sizeof dir, "build/test-tmp/plot_test.%ld", (long)getpid());
    const char *va[] = {"x", "y"}, *vb[] = {"z"};
    res_writer *w = NULL;
    CHECK_INT_EQ(res_open(&w, dir, "prey", 2, va, err, sizeof err), RES_OK);
    for (int i = 0; w && i <= 20; i++)
        res_write_row(w, i * 0.5, (double[]){i * 0.1, i * i * 0.01}, err, sizeof err);
    res_close(w, err, sizeof err);
    CHECK_INT_EQ(res_open(&w, dir, "pred", 1, vb, err, sizeof err), RES_OK);
    for (int i = 0; w && i <= 20; i++)
        res_write_row(w, i * 0.5, (double[]){-i * 1.0}, err, sizeof err);
    res_close(w, err, sizeof err);
    res_table *ta = NULL, *tb = NULL;
    snprintf(path, sizeof path, "%s/prey.csv", dir);
    CHECK_INT_EQ(res_read_csv(path, &ta, err, sizeof err), RES_OK);
    snprintf(path, sizeof path, "%s/pred.csv", dir);
    CHECK_INT_EQ(res_read_csv(path, &tb, err, sizeof err), RES_OK);
    if (ta && tb) {
        const res_table *tabs[2] = {ta, tb};
        const char *names[2] = {"prey", "pred"};
        snprintf(path, sizeof path, "%s/plot.svg", dir);
        for (int per = 0; per <= 1; per++) {
            CHECK_INT_EQ(plot_tables(path, tabs, names, 2, per, NULL, err, sizeof err), PLOT_OK);
            xmlDoc *doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
            CHECK(doc != NULL, "plot file parses");
            if (!doc) continue;
            nodes panels = {0}, series = {0};
            find_class(xmlDocGetRootElement(doc), "panel", &panels);
            find_class(xmlDocGetRootElement(doc), "series", &series);
            CHECK_INT_EQ(panels.n, per ? 2 : 1);
            CHECK_INT_EQ(series.n, 3);
            char *lab = series.n == 3 ? str_attr(series.v[2], "data-label") : NULL;
            CHECK_STR_EQ(lab, per ? "z" : "pred.z");
            free(lab);
            xmlFreeDoc(doc);
        }
    }
    CHECK_INT_EQ(plot_tables(path, NULL, NULL, 0, 1, NULL, err, sizeof err), PLOT_EUSAGE);
    res_table_free(ta);
    res_table_free(tb);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* plot_tables_ref on tables built by hand: prey records x = t and y = 1, pred records y = 2
 * and x = t, both at t = 0 .. 4; the reference, at every 0.5 s, has x = t + 0.25 and y = 1.
 * So the errors are exactly 0.25 (prey.x, pred.x), 0 (prey.y) and 1 (pred.y), the reference
 * rows between the tables' times are skipped by the interpolation, and x and y each keep one
 * colour in all three panels. */
static void test_tables_ref(void)
{
    double t[5] = {0, 1, 2, 3, 4}, one[5] = {1, 1, 1, 1, 1}, two[5] = {2, 2, 2, 2, 2};
    double rt[9], rx[9], ry[9];
    for (int i = 0; i < 9; i++)
        rt[i] = i * 0.5, rx[i] = i * 0.5 + 0.25, ry[i] = 1;
    res_table prey = {.n_cols = 3,
                      .names = (char *[]){"time", "x", "y"},
                      .n_rows = 5,
                      .cols = (double *[]){t, t, one}};
    res_table pred = {.n_cols = 3,
                      .names = (char *[]){"time", "y", "x"},
                      .n_rows = 5,
                      .cols = (double *[]){t, two, t}};
    res_table ref = {.n_cols = 3,
                     .names = (char *[]){"time", "x", "y"},
                     .n_rows = 9,
                     .cols = (double *[]){rt, rx, ry}};
    const res_table *tabs[2] = {&prey, &pred};
    const char *names[2] = {"prey", "pred"};
    char path[300], err[PLOT_ERRLEN] = "";
    snprintf(path, sizeof path, "build/test-tmp/plot_ref.%ld.svg", (long)getpid());
    CHECK_INT_EQ(plot_tables_ref(path, tabs, names, 2, &ref, NULL, NULL, NULL, err, sizeof err),
                 PLOT_OK);
    xmlDoc *doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
    CHECK(doc != NULL, "%s parses", path);
    if (!doc) return;
    nodes panels = {0}, series = {0}, titles = {0};
    find_class(xmlDocGetRootElement(doc), "panel", &panels);
    find_class(xmlDocGetRootElement(doc), "series", &series);
    find_class(xmlDocGetRootElement(doc), "panel-title", &titles);
    CHECK_INT_EQ(panels.n, 3);
    CHECK_INT_EQ(series.n, 12); /* 4 columns, 4 reference curves, 4 errors */
    char *title = titles.n == 3 ? text_of(titles.v[2]) : NULL;
    CHECK_STR_EQ(title, "error against the reference");
    free(title);
    /* Colours: one per variable; the references are dashed. */
    char *cx = NULL, *cy = NULL;
    int colours_ok = 1, dashed = 0;
    for (size_t i = 0; i < series.n; i++) {
        char *lab = str_attr(series.v[i], "data-label"), *col = str_attr(series.v[i], "stroke");
        char *dash = str_attr(series.v[i], "stroke-dasharray");
        int is_x = lab && (lab[0] == 'x' || strstr(lab, ".x"));
        char **want = is_x ? &cx : &cy;
        if (!*want)
            *want = strdup(col ? col : "");
        else
            colours_ok &= col && strcmp(*want, col) == 0;
        dashed += lab && strstr(lab, "(reference)") && dash;
        free(lab), free(col), free(dash);
    }
    CHECK(colours_ok && cx && cy && strcmp(cx, cy) != 0, "x %s and y %s, one colour each", cx, cy);
    CHECK_INT_EQ(dashed, 4);
    free(cx), free(cy);
    /* The error values, read back through the error panel's own y axis. */
    static const char *const lab_want[4] = {"prey.x", "prey.y", "pred.y", "pred.x"};
    static const double err_want[4] = {0.25, 0, 1, 0.25};
    double a = 0, b = 0;
    int mapped = panels.n == 3 && axis_map(panels.v[2], "ytick", &a, &b);
    CHECK(mapped, "the error panel has a y axis");
    for (size_t k = 0; mapped && k < 4 && series.n == 12; k++) {
        char *lab = str_attr(series.v[8 + k], "data-label");
        CHECK_STR_EQ(lab, lab_want[k]);
        free(lab);
        pts p = parse_d(series.v[8 + k]);
        CHECK_INT_EQ(p.n, 5);
        double worst = 0;
        for (size_t i = 0; i < p.n; i++)
            worst = fmax(worst, fabs((p.y[i] - b) / a - err_want[k]));
        CHECK(worst < 1e-3, "%s: error read back off by %g", lab_want[k], worst);
        pts_free(&p);
    }
    xmlFreeDoc(doc);
    remove(path);
}

/* Units label the axes: without a reference (no error panel, one panel per table), each
 * panel's y label lists its variables with the unit the callback gives ("x (m)"), and a
 * variable without one keeps its bare name. */
static const char *unit_cb(void *ctx, const char *name)
{
    (void)ctx;
    return strcmp(name, "x") == 0 ? "m" : NULL;
}

static void test_units(void)
{
    double t[3] = {0, 1, 2}, x[3] = {0, 1, 2}, y[3] = {1, 1, 1};
    res_table a = {.n_cols = 3,
                   .names = (char *[]){"time", "x", "y"},
                   .n_rows = 3,
                   .cols = (double *[]){t, x, y}};
    const res_table *tabs[1] = {&a};
    const char *names[1] = {"ball"};
    char path[300], err[PLOT_ERRLEN] = "";
    snprintf(path, sizeof path, "build/test-tmp/plot_units.%ld.svg", (long)getpid());
    CHECK_INT_EQ(plot_tables_ref(path, tabs, names, 1, NULL, unit_cb, NULL, NULL, err, sizeof err),
                 PLOT_OK);
    xmlDoc *doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
    CHECK(doc != NULL, "%s parses", path);
    if (!doc) return;
    nodes panels = {0}, ylabels = {0};
    find_class(xmlDocGetRootElement(doc), "panel", &panels);
    find_class(xmlDocGetRootElement(doc), "ylabel", &ylabels);
    CHECK_INT_EQ(panels.n, 1); /* no error panel without a reference */
    char *yl = ylabels.n == 1 ? text_of(ylabels.v[0]) : NULL;
    CHECK_STR_EQ(yl, "x (m), y");
    free(yl);
    xmlFreeDoc(doc);
    remove(path);
}

int main(void)
{
    mkdir("build", 0777);
    mkdir("build/test-tmp", 0777);
    test_ticks();
    test_linear_and_gaps();
    test_step();
    test_decimation();
    test_escaping_and_errors();
    test_legend_overflow();
    test_legend_width();
    test_tables();
    test_tables_ref();
    test_units();
    xmlCleanupParser();
    return check_summary();
}
