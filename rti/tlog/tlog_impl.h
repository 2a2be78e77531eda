/* tempo-log internals: the loaded log, the maps built by a first pass (federate names,
 * objects and their classes), record decoding and filters shared by every subcommand
 * (doc/log.md). Read rti/tlog/tlog_main.c next, then one
 * rti/tlog/tlog_<subcommand>.c. */
#ifndef TEMPO_RTI_TLOG_IMPL_H
#define TEMPO_RTI_TLOG_IMPL_H

#include <stdint.h>
#include <stdio.h>

#include "fom/fom.h"
#include "rti/flog/flog.h"
#include "rti/proto/wire.h"

#define TLOG_NAME_MAX   128        /* bytes of a federate or object name kept, NUL included */
#define TLOG_MAX_HANDLE (1u << 24) /* federate / object handles above this are not mapped */

/* One object instance seen in the log. */
struct tlog_obj {
    fom_handle cls;           /* class, FOM_NONE when unknown */
    char name[TLOG_NAME_MAX]; /* "" when unknown */
};

/* One run of the federation in the log: from a JOINED while nobody was joined to the record
 * before the next such JOINED (an RTI that keeps a federation after its last federate left
 * writes every run into one file). */
struct tlog_run {
    uint64_t first, last; /* record seqs, inclusive */
    int64_t wall0, wall1; /* their stamps, ns since the epoch */
    uint32_t feds;        /* federates that joined in it */
};

/* A loaded log and what the first pass learned from it. */
struct tlog {
    const char *path;             /* as given on the command line */
    uint8_t *data;                /* the whole file (owned) */
    size_t len;                   /* bytes at data */
    struct flog_header hdr;       /* points into data */
    double resolution;            /* seconds per tick (from the header; 1e-9 when unreadable) */
    struct fom *fom;              /* parsed FOM, NULL when the header's FOM does not parse */
    char fom_err[FOM_ERRLEN];     /* why fom is NULL */
    char (*names)[TLOG_NAME_MAX]; /* [handle]: federate name, "" unknown; names_cap entries */
    uint32_t names_cap;
    struct tlog_obj *objs; /* [handle]: objects, objs_cap entries */
    uint32_t objs_cap;
    uint64_t records;           /* complete records */
    int64_t last_wall_ns;       /* stamp of the last complete record (start when none) */
    int cut;                    /* 0 clean end; else the reader's error status */
    char cut_msg[FLOG_ERR_LEN]; /* the reader's message when cut != 0 */
    int closed;                 /* 1: the last record is the RTI's closing NOTE */
    uint32_t *run_of;           /* [handle]: its run (1-based), 0 never joined; names_cap */
    struct tlog_run *runs;      /* n_runs runs in log order (owned) */
    uint32_t n_runs, runs_cap;
    uint32_t live;       /* first pass: federates joined and not yet gone */
    uint32_t run_sel;    /* the run selected (1-based; tlog_select_run), 0 = all */
    uint32_t handle_sel; /* the federate handle selected (--handle), 0 = by name */
};

/* One record with its frame decoded (RECV/SENT). */
struct tlog_rec {
    struct flog_record r; /* the raw record */
    int has_msg;          /* 1: msg holds the decoded frame */
    struct wire_msg msg;  /* decoded frame (points into the log) */
    char msg_err[128];    /* frame kinds: why the frame does not decode */
    char why[320];        /* a GRANT stored as its facts (dec.grant.row != 0): its reason, worded
                             by tlog_next with the federates' names; r.dec.reason points here */
    int64_t ltime;        /* logical time the record concerns (ticks), TM_NO_TIME if none */
    fom_handle cls;       /* object class concerned, FOM_NONE if none */
    fom_handle inter;     /* interaction class concerned, FOM_NONE if none */
};

/* Record filters of `show` (and the options parsed for every subcommand). */
struct tlog_filter {
    const char *federate;   /* only records of this federate (name), NULL = all */
    const char *kind;       /* record kind ("DECISION") or wire type ("UPDATE"), NULL = all */
    const char *cls;        /* object class or interaction name, NULL = all */
    int has_from, has_to;   /* logical window given */
    int64_t from, to;       /* ticks, inclusive */
    int has_wfrom, has_wto; /* wall window given */
    int64_t wfrom, wto;     /* ns since the log's start, inclusive */
};

/* ---- tlog_util.c ------------------------------------------------------------------------ */

/* Load the file, check the header and run the first pass. 0, or -1 with err filled
 * (unreadable file, not a log, unknown version: nothing to show). A cut log loads (t->cut). */
int tlog_load(struct tlog *t, const char *path, char *err, size_t errlen);
void tlog_fini(struct tlog *t);
/* Start reading records from the beginning. */
void tlog_rewind(const struct tlog *t, struct flog_reader *r);
/* Next record, decoded: 1, or 0 at the end or at the cut (which tlog_load already recorded). */
int tlog_next(const struct tlog *t, struct flog_reader *r, struct tlog_rec *out);
/* Set ltime, cls and inter of a record whose msg is decoded (has_msg). */
void tlog_classify(const struct tlog *t, struct tlog_rec *x);
/* Federate name for a handle: the joined name or "fed<N>" (0 gives "-"). Static buffer per
 * call site is not used: the result lives in t or in buf. */
const char *tlog_fed_name(const struct tlog *t, uint32_t fed, char *buf, size_t cap);
/* Handle of a federate name, 0 when no JOINED record names it. */
uint32_t tlog_fed_find(const struct tlog *t, const char *name);
/* Object record, NULL when the handle was never seen. */
const struct tlog_obj *tlog_obj(const struct tlog *t, uint64_t handle);
/* Seconds for ticks. */
double tlog_secs(const struct tlog *t, int64_t ticks);
/* Parse seconds ("2.5") into ticks with the log's resolution. 0, or -1 when not a number. */
int tlog_parse_secs(const struct tlog *t, const char *s, int64_t *ticks);
/* Does the record pass the filter? */
int tlog_match(const struct tlog *t, const struct tlog_filter *f, const struct tlog_rec *x);
/* One-line description of a record (no newline). */
void tlog_describe(const struct tlog *t, const struct tlog_rec *x, char *buf, size_t cap);
/* Only the decoded frame of a record: "UPDATE object=1(ball1) t=10 (0.01s) x=1.5". */
void tlog_describe_msg(const struct tlog *t, const struct tlog_rec *x, char *buf, size_t cap);
/* Value of an attribute / parameter as text using the FOM (type from `param`: 0 attribute,
 * 1 parameter); hex when the FOM does not know the handle or the bytes do not fit the type. */
void tlog_value_text(const struct tlog *t, int param, uint32_t handle, const uint8_t *p, uint32_t n,
                     char *buf, size_t cap);
/* Print "<path>: log cut ..." to stderr when the log is cut. */
void tlog_report_cut(const struct tlog *t);
/* When the log does not end with the RTI's closing record: one line to @p out saying that the
 * RTI stopped abruptly (or still runs) and when, from the last record's stamp. */
void tlog_report_end(const struct tlog *t, FILE *out);
/* Logical time as "0.25 s [250000000]" (seconds, ticks in brackets), "inf" or "none". */
const char *tlog_tfmt(const struct tlog *t, int64_t ticks, char *buf, size_t cap);
/* Logical time in seconds only: "0.25 s", "inf", "none". */
const char *tlog_sfmt(const struct tlog *t, int64_t ticks, char *buf, size_t cap);
/* Choose the run the subcommand reads (doc/log.md): @p want (1-based, 0 = not given); with
 * several runs and none given, the last one, saying so on @p note. Sets t->run_sel (0 when
 * the log holds one run). 0, or -1 after printing why (want out of range). */
int tlog_select_run(struct tlog *t, uint32_t want, FILE *note);
/* Is record seq inside the selected run (always 1 when none is selected)? */
int tlog_in_run(const struct tlog *t, uint64_t seq);

/* ---- subcommands: each returns the process exit status ---------------------------------- */

int tlog_show(struct tlog *t, const struct tlog_filter *f, FILE *out);
/* json, trace and csv honour the filter's federate and logical window (--federate, --from,
 * --to); the other fields are not set for them. */
int tlog_json(struct tlog *t, const struct tlog_filter *f, FILE *out);
int tlog_stats(struct tlog *t, FILE *out);
int tlog_trace(struct tlog *t, const struct tlog_filter *f, FILE *out);
int tlog_csv(struct tlog *t, const struct tlog_filter *f, FILE *out);
int tlog_explain(struct tlog *t, uint64_t at_seq, FILE *out);
/* replay: argv holds the options after LOG (--federate NAME ... -- COMMAND ...). */
int tlog_replay(struct tlog *t, int argc, char **argv, FILE *out);

#endif
