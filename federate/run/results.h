/* Results of a federation run: one CSV file per federate ("time,<var1>,<var2>,..."), written
 * as the federate steps, and a bounded reader that loads such a file into columns (used by the
 * plotter and by tests). Format in doc/run.md (results).
 * Read federate/run/results.c next, then federate/run/plot_svg.h.
 */
#ifndef TEMPO_FEDERATE_RESULTS_H
#define TEMPO_FEDERATE_RESULTS_H

#include <stddef.h>
#include <stdio.h>

#define RES_ERRLEN   1024      /* a buffer this size holds any message of this module */
#define RES_MAX_COLS 4096      /* columns of one file, time included */
#define RES_MAX_ROWS 50000000  /* data rows one file may hold when read */
#define RES_MAX_LINE (1 << 20) /* bytes of one line, newline included, when read */

/* Status codes: 0 success, negative errors. */
enum {
    RES_OK = 0,
    RES_EUSAGE = -1,  /* NULL arguments, zero or too many variables, bad federate name */
    RES_EIO = -2,     /* create, open, write or close failed (message has path and strerror) */
    RES_EFORMAT = -3, /* a file read is not a results CSV (message has path, line, column) */
    RES_ELIMIT = -4,  /* a file read exceeds RES_MAX_COLS, RES_MAX_ROWS or RES_MAX_LINE */
    RES_ENOMEM = -5,  /* out of memory */
};

typedef struct res_writer res_writer; /* opaque: one open CSV file */

/**
 * Create the folder `dir` (and its parents) when missing and open "<dir>/<fed>.csv" for
 * writing (an existing file is replaced), then write the header line "time,<vars...>". A name
 * holding a comma, a double quote, a CR or LF is quoted as RFC 4180 says ("a,b" -> "\"a,b\"").
 * @param out    out: the writer, owned by the caller (res_close); NULL on error
 * @param dir    output folder, not NULL
 * @param fed    federate name: the file's base name; not empty, no '/', not "." or ".."
 * @param n_vars number of recorded variables, 0 .. RES_MAX_COLS - 1 (0: time only)
 * @param vars   their names, not NULL when n_vars > 0; copied
 * @param err    caller-owned buffer, e.g. "results/A.csv: cannot create: Permission denied"
 * @param errlen its size (RES_ERRLEN is enough)
 * @return RES_OK, RES_EUSAGE, RES_EIO, RES_ENOMEM.
 */
int res_open(res_writer **out, const char *dir, const char *fed, size_t n_vars,
             const char *const *vars, char *err, size_t errlen);

/**
 * Append one row: the time and one value per variable. Every double is written with the
 * fewest significant digits (up to 17) that read back to the same bits, so the file loses
 * nothing ("%.17g" precision) and identical runs give identical files; NaN is written "nan",
 * infinities "inf" / "-inf". Rows are buffered by stdio; res_close reports a late failure.
 * @param w      writer, not NULL
 * @param time   simulation time, s
 * @param values n_vars values (NULL allowed when n_vars is 0)
 * @param err    caller-owned buffer naming the file
 * @param errlen its size
 * @return RES_OK, RES_EUSAGE, RES_EIO.
 */
int res_write_row(res_writer *w, double time, const double *values, char *err, size_t errlen);

/**
 * res_write_row with text columns: where text is not NULL and text[i] is not NULL, column i is
 * that text in double quotes (quotes doubled, RFC 4180) instead of values[i], so that a String
 * variable is recorded as it is ("" for an empty string). Numbers as res_write_row.
 * @param text NULL (all numbers, as res_write_row) or n_vars entries, each NULL or a string
 * @return RES_OK, RES_EUSAGE, RES_EIO.
 */
int res_write_row_text(res_writer *w, double time, const double *values, const char *const *text,
                       char *err, size_t errlen);

/**
 * Push buffered rows to the file (fflush), so that a crash later loses nothing written so
 * far. Cost: one write(2); a federate may call it every macro step or every N steps.
 * @param w      writer, not NULL
 * @param err    caller-owned buffer naming the file
 * @param errlen its size
 * @return RES_OK, RES_EUSAGE, RES_EIO.
 */
int res_flush(res_writer *w, char *err, size_t errlen);

/**
 * Where the file stands: flush, then give the file's size in bytes (header and every row
 * written so far). A checkpoint records it so that a resumed run can continue the file there
 * (res_resume, doc/checkpoint.md "Results files").
 * @param w      writer, not NULL
 * @param bytes  out: the size
 * @return RES_OK, RES_EUSAGE, RES_EIO.
 */
int res_position(res_writer *w, unsigned long long *bytes, char *err, size_t errlen);

/**
 * Continue "<dir>/<fed>.csv" written by an earlier run at position @p bytes (res_position):
 * the file must exist (a symbolic link is refused), start with exactly the header res_open
 * writes for these variables, and hold at least @p bytes bytes; what follows is cut off (rows
 * written after the checkpoint by a run that then stopped or crashed), and rows append from
 * there. So a resumed run that writes the rows the first run would have written leaves the
 * same bytes as a run that never stopped.
 * @param bytes  the recorded position, at least the header's length
 * @return RES_OK and *out; RES_EUSAGE bad arguments; RES_EFORMAT the header differs (other
 *         variables) or the file is shorter than @p bytes (the message says which); RES_EIO;
 *         RES_ENOMEM.
 */
int res_resume(res_writer **out, const char *dir, const char *fed, size_t n_vars,
               const char *const *vars, unsigned long long bytes, char *err, size_t errlen);

/**
 * Path of the file being written ("<dir>/<fed>.csv").
 * @param w writer, not NULL
 * @return owned by the writer, valid until res_close.
 */
const char *res_path(const res_writer *w);

/**
 * Flush and close the file, and free the writer. Accepts NULL (returns RES_OK).
 * @param w      writer or NULL
 * @param err    caller-owned buffer, may be NULL
 * @param errlen its size
 * @return RES_OK, or RES_EIO when a buffered write or the close failed (the data is incomplete).
 */
int res_close(res_writer *w, char *err, size_t errlen);

/**
 * Create another output file (master.csv, a report) as res_open creates a CSV: its folder made
 * with its parents when missing, private and checked, the file private and never written through
 * a link or into an existing file (rti/proto/outfile.h, doc/run.md "Output files").
 * @param dir the folder, not NULL; @param name the file's name in it, not NULL.
 * @return the stream, opened "w" (fclose it), or NULL with err naming the file and the fault.
 */
FILE *res_create(const char *dir, const char *name, char *err, size_t errlen);

/** Make an output folder (a federation log's, say) as res_open makes its folder: with its
 *  parents, private, checked. @return RES_OK, or RES_EIO with err naming the folder. */
int res_make_dirs(const char *dir, char *err, size_t errlen);

/* A CSV file loaded into columns. Everything is owned by the table (res_table_free). */
typedef struct res_table {
    char *path;    /* the file as given */
    size_t n_cols; /* columns, time (column 0) included, >= 1 */
    char **names;  /* header names, unquoted */
    size_t n_rows; /* data rows */
    double **cols; /* cols[c][r]; an empty field or "nan" is NaN */
} res_table;

/**
 * Load a results CSV: a header line of names, then rows of numbers with exactly as many fields
 * (CRLF or LF line ends, a final line may lack its newline, empty lines are refused). Fields
 * are read with strtod (so "nan", "inf" and hexadecimal floats are accepted); an empty field
 * is NaN, and so is a quoted text field (a String variable, res_write_row_text; one without a
 * line break). Header names may be quoted as res_open writes them.
 * @param path   file to read, not NULL
 * @param out    out: the table, owned by the caller (res_table_free); NULL on error
 * @param err    caller-owned buffer, e.g. "out/A.csv:7: field 3 (\"y\"): cannot read \"1.2x\"
 *               as a number" or "out/A.csv:4: 2 fields, the header has 3"
 * @param errlen its size
 * @return RES_OK, RES_EUSAGE, RES_EIO, RES_EFORMAT, RES_ELIMIT, RES_ENOMEM.
 */
/* (Not "res_read": ICU's urename.h, pulled in by libxml2's headers, #defines that name.) */
int res_read_csv(const char *path, res_table **out, char *err, size_t errlen);

/**
 * Index of a column by name.
 * @param t    table, not NULL
 * @param name column name, may be NULL (then -1)
 * @return its index, or -1.
 */
long res_table_find(const res_table *t, const char *name);

/**
 * Free a table. Accepts NULL.
 * @param t table or NULL
 */
void res_table_free(res_table *t);

/**
 * Format one double as res_write_row does (shortest round-trip form, "nan", "inf", "-inf").
 * @param v   value
 * @param buf caller-owned buffer of at least 32 bytes
 * @param len its size
 * @return buf.
 */
char *res_format_double(double v, char *buf, size_t len);

#endif
