/* SVG plots of recorded variables against time: several series, axes with 1-2-5 ticks, labels,
 * a legend, one panel per federate if asked, NaN gaps, linear or zero-order-hold (step)
 * drawing, and a size bound (series denser than the pixels are reduced per pixel column to
 * first/min/max/last, so spikes stay visible). No library: plain text written to a FILE.
 * Serves doc/run.md (plots). Read federate/run/plot_svg.c next.
 */
#ifndef TEMPO_FEDERATE_PLOT_SVG_H
#define TEMPO_FEDERATE_PLOT_SVG_H

#include <stddef.h>
#include <stdio.h>

#include "federate/run/results.h"

#define PLOT_ERRLEN      512 /* a buffer this size holds any message of this module */
#define PLOT_MAX_SERIES  256 /* series in one plot */
#define PLOT_MAX_PANELS  64  /* panels in one plot */
#define PLOT_MAX_TICKS   10  /* ticks on one axis, at most */
#define PLOT_MIN_WIDTH   240 /* px; narrower requests are refused */
#define PLOT_MAX_WIDTH   8000
#define PLOT_MIN_PANEL_H 120 /* px */
#define PLOT_MAX_PANEL_H 4000

/* Status codes: 0 success, negative errors. */
enum {
    PLOT_OK = 0,
    PLOT_EUSAGE = -1, /* NULL arguments, bad sizes, panel index out of range, too many series */
    PLOT_EDATA = -2,  /* a series' time is NaN/infinite or decreases, or values are too large
                         to place on an axis (message names the series and point) */
    PLOT_EIO = -3,    /* writing failed (message has the path and strerror) */
    PLOT_ENOMEM = -4, /* out of memory */
};

/* How consecutive samples are joined. */
typedef enum plot_draw {
    PLOT_LINEAR = 0, /* straight lines between samples */
    PLOT_STEP = 1,   /* zero-order hold: y_i holds over [t_i, t_i+1), then a vertical jump */
} plot_draw;

/* One series; the arrays are the caller's and are only read. */
typedef struct plot_series {
    const char *label; /* legend text (XML-escaped on output), not NULL */
    const double *t;   /* n times, s, finite, non-decreasing */
    const double *y;   /* n values; NaN or infinite values leave a gap */
    size_t n;          /* samples (0 is allowed: listed in the legend, nothing drawn) */
    size_t panel;      /* panel index < opts.n_panels (0 when one panel) */
    const char *color; /* an SVG colour ("#1f77b4"), or NULL: the panel's next palette colour */
    int dashed;        /* 1: drawn dashed (a reference curve, a second copy of a variable) */
} plot_series;

/* Plot options; zero fields take the defaults. */
typedef struct plot_opts {
    int width;                        /* px, 0 = 900 */
    int panel_height;                 /* px per panel, 0 = 300 */
    const char *title;                /* above everything, or NULL */
    const char *xlabel;               /* below each panel, NULL = "time (s)" */
    const char *ylabel;               /* left of each panel, rotated, or NULL: none */
    size_t n_panels;                  /* 0 = 1 */
    const char *const *panel_titles;  /* n_panels titles, or NULL */
    const char *const *panel_ylabels; /* n_panels y labels (a NULL entry: ylabel), or NULL */
    plot_draw draw;                   /* PLOT_LINEAR or PLOT_STEP */
} plot_opts;

/**
 * Write a complete SVG document. The x axis is shared by all panels (the range of every
 * series' time); each panel has its own y range. Axis ranges are widened to whole ticks.
 * Every element the tests and readers rely on has a class: "panel" (g), "frame" (rect),
 * "xtick"/"ytick" (grid lines), "xtick-label"/"ytick-label" (text), "xlabel"/"ylabel"
 * (text), "series" (path, one per series, attribute data-label), "legend" (g).
 * @param f      output stream, not NULL (not closed)
 * @param o      options, or NULL for the defaults
 * @param s      n series
 * @param n      0 .. PLOT_MAX_SERIES
 * @param err    caller-owned buffer, e.g. "series 'A.x': time decreases at sample 12"
 * @param errlen its size (PLOT_ERRLEN is enough)
 * @return PLOT_OK, PLOT_EUSAGE, PLOT_EDATA, PLOT_EIO (a write error on f).
 */
int plot_svg_write(FILE *f, const plot_opts *o, const plot_series *s, size_t n, char *err,
                   size_t errlen);

/**
 * plot_svg_write to a file (created or replaced).
 * @param path output file, not NULL
 * @return as plot_svg_write; PLOT_EIO names the path.
 */
int plot_svg_file(const char *path, const plot_opts *o, const plot_series *s, size_t n, char *err,
                  size_t errlen);

/**
 * Plot results tables (res_read_csv): column 0 is time, every other column a series. With
 * per_table set, table k is panel k titled names[k] and series are labelled by column name;
 * otherwise one panel holds everything and labels are "names[k].column". A variable (column
 * name) has one colour in every panel.
 * @param path      output file, not NULL
 * @param tables    n tables, not NULL
 * @param names     n federate names, not NULL
 * @param n         1 .. PLOT_MAX_PANELS when per_table; tables' series <= PLOT_MAX_SERIES
 * @param per_table 1: one panel per table
 * @param o         options (n_panels and panel_titles are ignored), or NULL
 * @param err       caller-owned buffer
 * @param errlen    its size
 * @return as plot_svg_file; PLOT_ENOMEM.
 */
int plot_tables(const char *path, const res_table *const *tables, const char *const *names,
                size_t n, int per_table, const plot_opts *o, char *err, size_t errlen);

/**
 * The co-simulation against a reference, for a reader who must see at a glance whether it is
 * right: plot_tables with per_table set, plus, in each federate's panel, the reference curve
 * of every column whose name is a column of ref (dashed, in the variable's colour, labelled
 * "x (reference)"), and a last panel "error against the reference" holding
 * |table value - reference| at the table's times (the reference interpolated linearly between
 * its rows; NaN outside its time range) for each such column, labelled "federate.x" (solid
 * for the first federate with that column, dashed for the others). Each panel's y label lists
 * its variables, with the unit units(ctx, name) gives when it gives one ("x, y (1/s)").
 * @param ref     the reference table (time first, then variables by name), or NULL: no
 *                reference curves and no error panel (the units still label the axes)
 * @param units   NULL, or returns a variable's unit (or NULL: none); ctx is passed back
 * Other parameters and returns: as plot_tables. Without any column shared with ref the plot
 * has no error panel.
 */
int plot_tables_ref(const char *path, const res_table *const *tables, const char *const *names,
                    size_t n, const res_table *ref,
                    const char *(*units)(void *ctx, const char *name), void *ctx,
                    const plot_opts *o, char *err, size_t errlen);

/**
 * The colour plot_tables gives the k-th distinct variable (k from 0; the palette repeats
 * after 10 colours). Returns a static string.
 */
const char *plot_color(size_t k);

/**
 * Tick values for an axis over [lo, hi]: the smallest step of 1, 2 or 5 times a power of ten
 * whose multiples cover [lo, hi] in at most max_ticks values (at least 2 ticks). A range
 * narrower than 1e-12 of its magnitude (lo == hi included) is first widened around its middle
 * by 10% of |middle|, or by 1 when the middle is 0.
 * @param lo        smallest value, finite
 * @param hi        largest value, finite, >= lo
 * @param max_ticks 3 .. PLOT_MAX_TICKS (2 cannot serve a range that holds a multiple of
 *                  every step, such as one straddling 0)
 * @param ticks     out: the values, ascending, ticks[0] <= lo and ticks[n-1] >= hi (within
 *                  1e-9 of a step, for rounding); room for max_ticks values
 * @param step      out: the step, or NULL
 * @return the number of ticks (2 .. max_ticks), or 0 for bad arguments or a range whose width
 *         overflows a double.
 */
size_t plot_ticks(double lo, double hi, size_t max_ticks, double *ticks, double *step);

#endif
