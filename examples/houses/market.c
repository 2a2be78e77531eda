/* The market of the smart-grid case (doc/cases/houses.md): a custom federate written against
 * libtempo that joins a federation of FMU federates started by tempo-run. Every `period`
 * seconds it reads every house's energy meter (its input wires, "E<i>": "House<i>.E"), takes
 * the average power per house over the period, smooths it exponentially and publishes a new
 * price:
 *
 *     P_s = P_s + alpha (P_avg - P_s),   price = p_min + (p_max - p_min) min(1, P_s / p_cap)
 *
 * (P_s starts at 0; alpha = 1 prices each period's average alone). Seven houses' heaters
 * switch by whole kilowatts, and a price that followed each quarter hour alone would swing
 * between its bounds; the smoothing is the market's memory (doc/cases/houses.md).
 *
 * It follows what every FMU federate of the file does (federate/fmufed/fmufed_tp.c): join with
 * the FOM the file generates, declare its wiring, enable time management with the method's
 * lookahead, meet the "tempo-start" synchronisation point, publish its first value at the
 * start time and close that instant with TAR; at the end meet "tempo-end" and resign. In
 * between it advances with NER to each reading time: the RTI grants it earlier whenever a
 * house's update arrives (it only records the reading), and at the reading time every update
 * stamped up to it has been delivered. The new price is stamped one tick (or the lookahead)
 * later, since after an NER grant at t nothing may be sent at t itself (doc/time.md).
 *
 * Checkpoints (doc/checkpoint.md, "Program federates"): its save callback writes its part
 * (where it is in its loop, the smoothed power, the meters, its CSV position), and with
 * --restore it rejoins a federation restored from a checkpoint and goes on from that part.
 *
 * usage: tempo-example-market --federation FILE --name NAME --rti ADDR [--output DIR]
 *        [--restore] [--period S] [--p-min X] [--p-max X] [--p-cap W] [--alpha A]
 * tempo-run passes the first four and --restore; the rest come from the federate's "args".
 * Beside libtempo it uses the tree's federation-file reader (federate/config/fedfile.h) for
 * its wiring and the generated FOM; a federate outside the tree would name a FOM file. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "federate/config/fedfile.h"
#include "federate/libtempo/tempo.h"
#include "federate/run/results.h"

typedef struct market_opts {
    const char *file, *name, *rti, *output;
    double period, p_min, p_max, p_cap, alpha;
    int restore; /* --restore: rejoin a restored federation and go on from the part */
} market_opts;

/* One meter: the input wire "E<i>" -> House<i>.E. */
typedef struct meter {
    tp_handle cls, attr;
    double e;      /* kWh: the newest reading */
    double e_last; /* kWh: the reading used at the previous price */
} meter;

typedef struct market {
    const fedfile *ff;
    const fedfile_fed *fd;
    long idx;
    tp_federate *f;
    meter *m;
    size_t n;
    tp_handle price_cls, price_attr;
    tp_object price_obj;
    size_t joined; /* other federates of the file seen joined */
    int lost;      /* a federate left before the end */
    char why[300];
    long steps, updates, reflections, requests;
    /* Where the run is, for a save: the request it waits in (0 the start's TAR, 1 an NER of
     * the loop, 2 the NER to an end between two periods) and its time, the smoothed power and
     * the last price. */
    int site;
    tp_time t;
    double p_s, price;
    FILE *csv;
    unsigned char *part; /* the part a restoring join handed back (malloc), NULL */
    size_t n_part;
} market;

/* ---- checkpoints (doc/checkpoint.md, "Program federates") ------------------------------- */

/* The part, little-endian: "TMKT", u32 version 1, u32 site, i64 its time, i64 the grant, f64
 * p_s, f64 price, u32 n meters x (f64 e, f64 e_last), i64 x 4 counters, i64 price object, i64
 * the CSV's length. Doubles by their bits, so a resumed run goes on with the same values. */
static void put(unsigned char **p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        *(*p)++ = (unsigned char)(v >> (8 * i));
}
static uint64_t get(const unsigned char **p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t) * (*p)++ << (8 * i);
    return v;
}
static uint64_t bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}
static double dbl(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static int on_save(void *ctx, const char *label, tp_time time, void **bytes, size_t *n, char *why,
                   size_t why_size)
{
    market *k = ctx;
    long pos = fflush(k->csv) == 0 ? ftell(k->csv) : -1;
    size_t size = 4 + 4 + 4 + 8 * 4 + 4 + 16 * k->n + 8 * 6;
    unsigned char *b = malloc(size), *p = b;
    if (!b || pos < 0) {
        free(b);
        snprintf(why, why_size, "market %s: %s", k->fd->name, b ? "its CSV" : "out of memory");
        return TP_ESYS;
    }
    memcpy(p, "TMKT", 4), p += 4;
    put(&p, 1, 4);
    put(&p, (uint64_t)k->site, 4);
    put(&p, (uint64_t)k->t, 8);
    put(&p, (uint64_t)time, 8);
    put(&p, bits(k->p_s), 8);
    put(&p, bits(k->price), 8);
    put(&p, k->n, 4);
    for (size_t i = 0; i < k->n; i++)
        put(&p, bits(k->m[i].e), 8), put(&p, bits(k->m[i].e_last), 8);
    put(&p, (uint64_t)k->steps, 8);
    put(&p, (uint64_t)k->updates, 8);
    put(&p, (uint64_t)k->reflections, 8);
    put(&p, (uint64_t)k->requests, 8);
    put(&p, (uint64_t)k->price_obj, 8);
    put(&p, (uint64_t)pos, 8);
    *bytes = b;
    *n = size;
    return TP_OK;
}

static int on_restore(void *ctx, const char *label, tp_time time, const void *bytes, size_t n,
                      char *why, size_t why_size)
{
    market *k = ctx;
    if (!(k->part = malloc(n ? n : 1))) {
        snprintf(why, why_size, "out of memory");
        return TP_ENOMEM;
    }
    memcpy(k->part, bytes, n);
    k->n_part = n;
    return TP_OK;
}

/* Read the part back (after declare resolved the handles): everything or nothing. Returns the
 * saved grant, or TP_NO_TIME with a message. */
static tp_time load_part(market *k, long *csv_pos)
{
    const unsigned char *p = k->part;
    size_t want = 4 + 4 + 4 + 8 * 4 + 4 + 16 * k->n + 8 * 6;
    if (!p || k->n_part != want || memcmp(p, "TMKT", 4) != 0) {
        fprintf(stderr, "tempo-example-market: %s: its part is not a market's of %zu meters\n",
                k->fd->name, k->n);
        return TP_NO_TIME;
    }
    p += 4;
    uint32_t version = (uint32_t)get(&p, 4);
    k->site = (int)get(&p, 4);
    k->t = (tp_time)get(&p, 8);
    tp_time g = (tp_time)get(&p, 8);
    k->p_s = dbl(get(&p, 8));
    k->price = dbl(get(&p, 8));
    size_t n = get(&p, 4);
    if (version != 1 || n != k->n || k->site < 0 || k->site > 2) {
        fprintf(stderr, "tempo-example-market: %s: its part is damaged\n", k->fd->name);
        return TP_NO_TIME;
    }
    for (size_t i = 0; i < k->n; i++) {
        k->m[i].e = dbl(get(&p, 8));
        k->m[i].e_last = dbl(get(&p, 8));
    }
    k->steps = (long)get(&p, 8);
    k->updates = (long)get(&p, 8);
    k->reflections = (long)get(&p, 8);
    k->requests = (long)get(&p, 8);
    k->price_obj = (tp_object)get(&p, 8);
    *csv_pos = (long)get(&p, 8);
    return g;
}

static void on_reflect(void *ctx, const tp_reflection *r)
{
    market *k = ctx;
    for (size_t v = 0; v < r->n_values; v++)
        for (size_t i = 0; i < k->n; i++)
            if (k->m[i].cls == r->object_class && k->m[i].attr == r->values[v].handle &&
                tp_decode_float64(r->values[v].data, r->values[v].size, &k->m[i].e) == TP_OK)
                k->reflections++;
}

static void on_joined(void *ctx, tp_fed fed, const char *name)
{
    market *k = ctx;
    long i = fedfile_find(k->ff, name);
    if (i >= 0 && i != k->idx) k->joined++;
}

static void on_resigned(void *ctx, tp_fed fed, const char *name, const char *reason)
{
    market *k = ctx;
    if (!k->lost) snprintf(k->why, sizeof k->why, "%s left: %s", name, reason ? reason : "?");
    k->lost = 1;
}

static int fail(market *k, const char *what)
{
    fprintf(stderr, "tempo-example-market: %s: %s: %s\n", k->fd ? k->fd->name : "?", what,
            k->f ? tp_last_error(k->f) : "");
    return 1;
}

/* Join with the FOM the federation file generates (or names), as tempo-fmu does. */
static int join(market *k, const market_opts *o)
{
    char err[FEDFILE_ERRLEN], *fom = NULL;
    if (!k->ff->fom && fedfile_fom_xml(k->ff, &fom, err, sizeof err) != FEDFILE_OK) {
        fprintf(stderr, "tempo-example-market: %s\n", err);
        return 1;
    }
    tp_callbacks cb = {.reflect = on_reflect,
                       .federate_joined = on_joined,
                       .federate_resigned = on_resigned,
                       .save = on_save,
                       .restore = on_restore};
    tp_join_options jo = {.rti = o->rti,
                          .federation = k->ff->federation,
                          .federate = k->fd->name,
                          .fom_path = k->ff->fom,
                          .fom_text = fom,
                          .create = 1,
                          .timeout_ms = 60000,
                          .restore = o->restore};
    int rc = tp_join(&jo, &cb, k, &k->f, err, sizeof err);
    free(fom);
    if (rc != TP_OK) {
        fprintf(stderr, "tempo-example-market: joining %s at %s: %s\n", k->ff->federation, o->rti,
                err);
        return 1;
    }
    return 0;
}

/* Publish Market.price, register its object, subscribe every meter's class; after a restore
 * only the handles (the declarations came back from the RTI). */
static int declare(market *k, int restore)
{
    const fedfile_fed *fd = k->fd;
    if (fd->n_outputs != 1) {
        fprintf(stderr, "tempo-example-market: %s: expected one output (the price), got %zu\n",
                fd->name, fd->n_outputs);
        return 1;
    }
    const fedfile_wire *w = &fd->outputs[0];
    if (tp_object_class(k->f, w->cls, &k->price_cls) != TP_OK ||
        tp_attribute(k->f, k->price_cls, w->attr, &k->price_attr) != TP_OK ||
        (!restore && (tp_publish_object_class(k->f, k->price_cls, &k->price_attr, 1) != TP_OK ||
                      tp_register_object(k->f, k->price_cls, fd->name, &k->price_obj) != TP_OK)))
        return fail(k, "publishing the price");
    k->n = fd->n_inputs;
    if (!(k->m = calloc(k->n + 1, sizeof *k->m))) return fail(k, "out of memory");
    for (size_t i = 0; i < k->n; i++) {
        meter *m = &k->m[i];
        if (tp_object_class(k->f, fd->inputs[i].cls, &m->cls) != TP_OK ||
            tp_attribute(k->f, m->cls, fd->inputs[i].attr, &m->attr) != TP_OK ||
            (!restore && tp_subscribe_object_class(k->f, m->cls, &m->attr, 1) != TP_OK))
            return fail(k, fd->inputs[i].var);
    }
    return 0;
}

/* The start point: the file's first federate registers it once everybody has joined, and the
 * end point right after the start, while everybody is certainly joined (as tempo-fmu does). */
static int sync_start(market *k)
{
    if (k->idx == 0) {
        while (k->joined + 1 < k->ff->n_feds)
            if (tp_evoke(k->f, 100) < 0) return fail(k, "waiting for the others to join");
        if (tp_register_sync(k->f, "tempo-start", NULL, 0, NULL, 0) != TP_OK)
            return fail(k, "registering tempo-start");
    }
    if (tp_sync(k->f, "tempo-start", -1) != TP_OK) return fail(k, "tempo-start");
    if (k->idx == 0 && tp_register_sync(k->f, "tempo-end", NULL, 0, NULL, 0) != TP_OK)
        return fail(k, "registering tempo-end");
    return 0;
}

static int advance(market *k, int ner, tp_time t, tp_time *granted)
{
    int rc = ner ? tp_next_event_request(k->f, t) : tp_time_advance_request(k->f, t);
    k->requests++;
    if (rc == TP_OK) rc = tp_wait_grant(k->f, granted, -1);
    if (rc != TP_OK) return fail(k, ner ? "NER" : "TAR");
    if (k->lost) {
        fprintf(stderr, "tempo-example-market: %s: %s\n", k->fd->name, k->why);
        return 1;
    }
    return 0;
}

static int publish(market *k, double price, tp_time ts)
{
    unsigned char b[TP_FLOAT64_SIZE];
    tp_encode_float64(price, b);
    tp_value v = {.handle = k->price_attr, .data = b, .size = sizeof b};
    if (tp_update(k->f, k->price_obj, &v, 1, ts) != TP_OK) return fail(k, "price update");
    k->updates++;
    return 0;
}

static double price_of(const market_opts *o, double p_avg)
{
    double x = p_avg / o->p_cap;
    return o->p_min + (o->p_max - o->p_min) * (x < 0 ? 0 : x > 1 ? 1 : x);
}

/* The run from the start, or from a restored part (k->part): the request it was saved in is
 * not issued again, its saved grant is taken as granted (doc/checkpoint.md). */
static int run(market *k, const market_opts *o, FILE *csv)
{
    const fedfile *ff = k->ff;
    tp_time lookahead = ff->algo.t_lookahead; /* jacobi-naive's; else 0 */
    tp_time t0 = ff->algo.t_start, g = TP_NO_TIME, step = tp_time_from_seconds(k->f, o->period);
    tp_time after = lookahead > 0 ? lookahead : 1; /* the send bound past an NER grant */
    int resumed = k->part != NULL;
    if (resumed) { /* load_part sets k->site, k->t and the saved grant */
        long pos;
        if ((g = load_part(k, &pos)) == TP_NO_TIME) return 1;
        if (fflush(csv) != 0 || ftruncate(fileno(csv), pos) != 0 || fseek(csv, pos, SEEK_SET) != 0)
            return fail(k, "continuing its CSV");
    } else {
        if (tp_enable_regulation(k->f, lookahead) != TP_OK ||
            tp_wait_regulation_enabled(k->f, 60000) != TP_OK ||
            tp_enable_constrained(k->f) != TP_OK ||
            tp_wait_constrained_enabled(k->f, 60000) != TP_OK)
            return fail(k, "enabling time management");
        if (sync_start(k)) return 1;
        /* The start instant: the first price (nothing consumed yet: p_min), then TAR closes
         * it. */
        k->price = price_of(o, 0);
        if (lookahead == 0 && publish(k, k->price, t0)) return 1;
        k->site = 0, k->t = t0;
        if (advance(k, 0, t0, &g)) return 1;
    }
    if (k->site == 0) {
        fprintf(csv, "%.15g,%.17g,%.17g,%.17g\n", tp_time_to_seconds(k->f, t0), k->price, 0.0, 0.0);
        for (size_t i = 0; i < k->n; i++)
            k->m[i].e_last = k->m[i].e;
        k->p_s = 0; /* W: the smoothed average power */
        k->t = t0 + step;
        resumed = 0;
    }
    for (; k->t <= ff->algo.t_end; k->t += step) {
        tp_time t = k->t;
        k->site = 1;
        if (!resumed || g < t) {
            do {
                if (advance(k, 1, t, &g)) return 1;
            } while (g < t); /* a house's update: recorded by on_reflect */
        }
        resumed = 0;
        double kwh = 0;
        for (size_t i = 0; i < k->n; i++) {
            kwh += k->m[i].e - k->m[i].e_last;
            k->m[i].e_last = k->m[i].e;
        }
        double p_avg = k->n ? kwh * 3.6e6 / (o->period * (double)k->n) : 0;
        k->p_s += o->alpha * (p_avg - k->p_s);
        k->price = price_of(o, k->p_s);
        fprintf(csv, "%.15g,%.17g,%.17g,%.17g\n", tp_time_to_seconds(k->f, t), k->price, p_avg,
                k->p_s);
        if (t + after <= ff->algo.t_end && publish(k, k->price, t + after)) return 1;
        k->steps++;
        printf("progress %.17g %.17g\n", tp_time_to_seconds(k->f, t), ff->algo.end);
    }
    /* An end between two periods: every other federate's last request reaches the end, which
     * needs the market's promise past its last period, so it advances there too (site 2; the
     * CSV gets no row: no period ended there). */
    if (k->t - step < ff->algo.t_end) {
        k->site = 2;
        if (!resumed || g < ff->algo.t_end) {
            do {
                if (advance(k, 1, ff->algo.t_end, &g)) return 1;
            } while (g < ff->algo.t_end);
        }
    }
    if (tp_sync(k->f, "tempo-end", -1) != TP_OK) return fail(k, "tempo-end");
    if (tp_resign(k->f, TP_DELETE_OBJECTS) != TP_OK) return fail(k, "resign");
    return 0;
}

static int number(const char *opt, const char *v, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (*end || end == v || errno || !(x > 0) || !isfinite(x)) {
        fprintf(stderr, "tempo-example-market: %s %s: expected a number > 0\n", opt, v);
        return -1;
    }
    *out = x;
    return 0;
}

static int parse(int argc, char **argv, market_opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "--help")) {
            puts("usage: tempo-example-market --federation FILE --name NAME --rti ADDR\n"
                 "         [--output DIR] [--restore] [--period S] [--p-min X] [--p-max X]\n"
                 "         [--p-cap W] [--alpha A]\n"
                 "The market of the houses case (doc/cases/houses.md); tempo-run starts it.");
            return 1;
        }
        if (!strcmp(s, "--version")) {
            printf("tempo-example-market %s\n", TEMPO_VERSION);
            return 1;
        }
        if (!strcmp(s, "--restore")) {
            o->restore = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "tempo-example-market: %s: missing value (see --help)\n", s);
            return -1;
        }
        const char *v = argv[++i];
        if (!strcmp(s, "--federation"))
            o->file = v;
        else if (!strcmp(s, "--name"))
            o->name = v;
        else if (!strcmp(s, "--rti"))
            o->rti = v;
        else if (!strcmp(s, "--output"))
            o->output = v;
        else if (!strcmp(s, "--period")  ? number(s, v, &o->period)
                 : !strcmp(s, "--p-min") ? number(s, v, &o->p_min)
                 : !strcmp(s, "--p-max") ? number(s, v, &o->p_max)
                 : !strcmp(s, "--p-cap") ? number(s, v, &o->p_cap)
                 : !strcmp(s, "--alpha") ? number(s, v, &o->alpha)
                                         : (fprintf(stderr,
                                                    "tempo-example-market: unknown "
                                                    "option %s (see --help)\n",
                                                    s),
                                            -1))
            return -1;
    }
    if (o->alpha > 1) {
        fprintf(stderr, "tempo-example-market: --alpha %g: expected 0 < alpha <= 1\n", o->alpha);
        return -1;
    }
    if (!o->file || !o->name || !o->rti) {
        fprintf(stderr, "tempo-example-market: --federation, --name and --rti are required\n");
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    market_opts o = {.period = 900, .p_min = 0.10, .p_max = 0.177, .p_cap = 3000, .alpha = 0.25};
    int rc = parse(argc, argv, &o);
    if (rc) return rc < 0 ? 2 : 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    fedfile *ff = NULL;
    char err[FEDFILE_ERRLEN];
    if (fedfile_load(o.file, &ff, err, sizeof err) != FEDFILE_OK) {
        fprintf(stderr, "tempo-example-market: %s\n", err);
        return 2;
    }
    market k = {.ff = ff, .idx = fedfile_find(ff, o.name)};
    if (k.idx < 0) {
        fprintf(stderr, "tempo-example-market: %s has no federate \"%s\"\n", o.file, o.name);
        fedfile_free(ff);
        return 2;
    }
    k.fd = &ff->feds[k.idx];
    char path[4096], name[300], e[1300];
    const char *dir = o.output ? o.output : ff->output;
    snprintf(path, sizeof path, "%s/%s.csv", dir, k.fd->name);
    snprintf(name, sizeof name, "%s.csv", k.fd->name);
    /* Private, never through a link, as every federate's CSV (doc/run.md "Output files"). */
    /* A restored run continues the file at the saved length (run). */
    int fd = o.restore ? open(path, O_RDWR | O_NOFOLLOW) : -1; /* never through a link */
    FILE *csv =
        o.restore ? (fd >= 0 ? fdopen(fd, "r+") : NULL) : res_create(dir, name, e, sizeof e);
    if (!csv) {
        fprintf(stderr, "tempo-example-market: %s\n", o.restore ? path : e);
        fedfile_free(ff);
        return 1;
    }
    if (!o.restore) fputs("time,price,P_avg,P_smooth\n", csv);
    k.csv = csv;
    rc = join(&k, &o) || declare(&k, o.restore) || run(&k, &o, csv);
    if (fclose(csv) != 0 && !rc) {
        fprintf(stderr, "tempo-example-market: %s: write failed\n", path);
        rc = 1;
    }
    if (!rc)
        printf("tempo-example-market: %s: done at t = %.15g s: %ld instants, %ld updates, %ld "
               "reflections, %ld time requests\n",
               k.fd->name, ff->algo.end, k.steps, k.updates, k.reflections, k.requests);
    tp_federate_free(k.f);
    free(k.m);
    free(k.part);
    fedfile_free(ff);
    return rc ? 1 : 0;
}
