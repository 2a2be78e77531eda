/* tempo-log csv: attribute values over logical time, one column per (object, attribute)
 * that some UPDATE in the log carries, named "<object>.<attribute>" and decoded with the FOM
 * in the log header (doc/log.md; value encodings: doc/fom.md). One row per distinct
 * logical time, in increasing order; a cell holds the attribute's latest value at or before
 * that time (sample and hold), empty before its first update. An update without a time stamp
 * counts at its sender's last granted time (0 before the first grant); several updates at one
 * time keep the last in log order. Updates the RTI refused (ERROR echoing their request id)
 * are left out. Cost: O(U log U) for U attribute values. Read rti/tlog/tlog_util.c first. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rti/tlog/tlog_impl.h"

struct col {
    uint64_t obj;  /* object handle */
    uint32_t attr; /* attribute handle */
};

struct entry {
    int64_t time;        /* ticks */
    uint64_t order;      /* log order (record index, then value index) */
    uint32_t col;        /* column index */
    uint32_t fed, req;   /* the UPDATE's sender and request id (refusal matching) */
    const uint8_t *data; /* value bytes inside the log */
    uint32_t len;
};

struct csv {
    struct col *cols;
    uint32_t ncols, ccap;
    uint32_t *hash; /* open addressing: column index + 1, 0 = empty; hcap slots */
    uint32_t hcap;
    struct entry *ents;
    size_t nents, ecap;
    uint64_t *refused; /* (fed << 32 | req) of refused UPDATEs, sorted later */
    size_t nref, rcap;
    int64_t *granted; /* [fed]: last granted time */
    uint32_t gcap;
    const struct tlog_filter *f; /* --federate (its updates only), --from/--to (rows) */
    uint32_t only;               /* the handle --federate names, 0 = every sender */
};

static uint32_t hkey(uint64_t obj, uint32_t attr)
{
    uint64_t k = (obj * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)attr * 0xC2B2AE3D27D4EB4Full);
    return (uint32_t)(k >> 32);
}

/* Column index of (obj, attr), created when new. UINT32_MAX on out of memory. */
static uint32_t column(struct csv *c, uint64_t obj, uint32_t attr)
{
    if (2 * (c->ncols + 1) > c->hcap) {
        uint32_t nc = c->hcap ? 2 * c->hcap : 256;
        uint32_t *nh = calloc(nc, sizeof *nh);
        if (!nh) return UINT32_MAX;
        for (uint32_t i = 0; i < c->ncols; i++) {
            uint32_t s = hkey(c->cols[i].obj, c->cols[i].attr) & (nc - 1);
            while (nh[s])
                s = (s + 1) & (nc - 1);
            nh[s] = i + 1;
        }
        free(c->hash);
        c->hash = nh;
        c->hcap = nc;
    }
    uint32_t s = hkey(obj, attr) & (c->hcap - 1);
    while (c->hash[s]) {
        const struct col *k = &c->cols[c->hash[s] - 1];
        if (k->obj == obj && k->attr == attr) return c->hash[s] - 1;
        s = (s + 1) & (c->hcap - 1);
    }
    if (c->ncols == c->ccap) {
        uint32_t nc = c->ccap ? 2 * c->ccap : 64;
        struct col *n = realloc(c->cols, nc * sizeof *n);
        if (!n) return UINT32_MAX;
        c->cols = n;
        c->ccap = nc;
    }
    c->cols[c->ncols] = (struct col){obj, attr};
    c->hash[s] = ++c->ncols;
    return c->ncols - 1;
}

static int push_entry(struct csv *c, const struct entry *e)
{
    if (c->nents == c->ecap) {
        size_t nc = c->ecap ? 2 * c->ecap : 1024;
        struct entry *n = realloc(c->ents, nc * sizeof *n);
        if (!n) return -1;
        c->ents = n;
        c->ecap = nc;
    }
    c->ents[c->nents++] = *e;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_entry(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->time != y->time) return x->time < y->time ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Collect the columns and value entries. 0, or -1 on out of memory. */
static int collect(struct tlog *t, struct csv *c)
{
    struct flog_reader r;
    struct tlog_rec x;
    tlog_rewind(t, &r);
    while (tlog_next(t, &r, &x)) {
        if (!x.has_msg) continue;
        const struct wire_msg *m = &x.msg;
        uint32_t fed = x.r.fed;
        if (x.r.kind == FLOG_K_SENT && m->type == WIRE_TIME_GRANT && fed < TLOG_MAX_HANDLE) {
            if (fed >= c->gcap) {
                uint32_t nc = c->gcap ? c->gcap : 16;
                while (nc <= fed)
                    nc *= 2;
                int64_t *n = realloc(c->granted, nc * sizeof *n);
                if (!n) return -1;
                memset(n + c->gcap, 0, (nc - c->gcap) * sizeof *n);
                c->granted = n;
                c->gcap = nc;
            }
            c->granted[fed] = m->time;
        } else if (x.r.kind == FLOG_K_SENT && m->type == WIRE_ERROR && m->a == WIRE_UPDATE &&
                   m->req) {
            if (c->nref == c->rcap) {
                size_t nc = c->rcap ? 2 * c->rcap : 64;
                uint64_t *n = realloc(c->refused, nc * sizeof *n);
                if (!n) return -1;
                c->refused = n;
                c->rcap = nc;
            }
            c->refused[c->nref++] = (uint64_t)fed << 32 | m->req;
        } else if (x.r.kind == FLOG_K_RECV && m->type == WIRE_UPDATE &&
                   (!c->only || fed == c->only)) {
            int64_t when = m->time != WIRE_TIME_NONE ? m->time
                           : fed < c->gcap           ? c->granted[fed]
                                                     : 0;
            struct wire_value_iter it;
            struct wire_value v;
            uint32_t k = 0;
            wire_value_iter_init(&it, m);
            while (wire_value_next(&it, &v)) {
                uint32_t col = column(c, m->a, v.handle);
                if (col == UINT32_MAX) return -1;
                struct entry e = {
                    when, (x.r.index << 16) | (k++ & 0xFFFFu), col, fed, m->req, v.data, v.len};
                if (push_entry(c, &e) != 0) return -1;
            }
        }
    }
    return 0;
}

/* Print a cell, quoted when it holds a comma, quote, space or line break. */
static void cell(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\" \n\r")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static int cmp_col(const void *a, const void *b)
{
    const struct col *x = a, *y = b;
    if (x->obj != y->obj) return x->obj < y->obj ? -1 : 1;
    return x->attr < y->attr ? -1 : x->attr > y->attr;
}

static void print(struct tlog *t, struct csv *c, FILE *out)
{
    /* Order the columns by object, then attribute handle, and renumber the entries. */
    uint32_t *perm = malloc((c->ncols ? c->ncols : 1) * sizeof *perm);
    struct col *sorted = malloc((c->ncols ? c->ncols : 1) * sizeof *sorted);
    const struct entry **last = calloc(c->ncols ? c->ncols : 1, sizeof *last);
    if (!perm || !sorted || !last) {
        fprintf(stderr, "tempo-log: out of memory\n");
        free(perm), free(sorted), free(last);
        return;
    }
    if (c->ncols) {
        memcpy(sorted, c->cols, c->ncols * sizeof *sorted);
        qsort(sorted, c->ncols, sizeof *sorted, cmp_col);
    }
    for (uint32_t i = 0; i < c->ncols; i++) {
        struct col key = c->cols[i];
        const struct col *p = bsearch(&key, sorted, c->ncols, sizeof *sorted, cmp_col);
        perm[i] = (uint32_t)(p - sorted);
    }
    fputs("time_s,ticks", out);
    for (uint32_t i = 0; i < c->ncols; i++) {
        char name[2 * TLOG_NAME_MAX + 32], ob[40], ab[24];
        const struct tlog_obj *o = tlog_obj(t, sorted[i].obj);
        const char *an = t->fom ? fom_attr_name(t->fom, sorted[i].attr) : NULL;
        snprintf(ob, sizeof ob, "obj%" PRIu64, sorted[i].obj);
        snprintf(ab, sizeof ab, "#%u", sorted[i].attr);
        snprintf(name, sizeof name, "%s.%s", o && o->name[0] ? o->name : ob, an ? an : ab);
        fputc(',', out);
        cell(out, name);
    }
    fputc('\n', out);
    for (size_t i = 0; i < c->nents;) {
        int64_t now = c->ents[i].time;
        for (; i < c->nents && c->ents[i].time == now; i++)
            last[perm[c->ents[i].col]] = &c->ents[i];
        /* rows outside --from/--to are not printed, but their values are held */
        if ((c->f->has_from && now < c->f->from) || (c->f->has_to && now > c->f->to)) continue;
        fprintf(out, "%.15g,%" PRId64, tlog_secs(t, now), now); /* ticks are exact */
        for (uint32_t k = 0; k < c->ncols; k++) {
            fputc(',', out);
            if (!last[k]) continue;
            char txt[1024];
            tlog_value_text(t, 0, sorted[k].attr, last[k]->data, last[k]->len, txt, sizeof txt);
            cell(out, txt);
        }
        fputc('\n', out);
    }
    free(perm), free(sorted), free(last);
}

int tlog_csv(struct tlog *t, const struct tlog_filter *f, FILE *out)
{
    struct csv c = {0};
    int rc = 0;
    c.f = f;
    if (f->federate && !(c.only = tlog_fed_find(t, f->federate))) c.only = UINT32_MAX;
    if (collect(t, &c) != 0) {
        fprintf(stderr, "tempo-log: out of memory\n");
        rc = 1;
        goto done;
    }
    if (!t->fom)
        fprintf(stderr, "tempo-log: note: FOM unusable (%s): values are printed in hex\n",
                t->fom_err);
    /* Drop refused updates, then order by (time, log order). */
    if (c.nref) qsort(c.refused, c.nref, sizeof *c.refused, cmp_u64);
    size_t kept = 0;
    for (size_t i = 0; i < c.nents; i++) {
        uint64_t key = (uint64_t)c.ents[i].fed << 32 | c.ents[i].req;
        if (c.ents[i].req && c.nref && bsearch(&key, c.refused, c.nref, sizeof key, cmp_u64))
            continue;
        c.ents[kept++] = c.ents[i];
    }
    c.nents = kept;
    if (c.nents) qsort(c.ents, c.nents, sizeof *c.ents, cmp_entry);
    print(t, &c, out);
done:
    free(c.cols), free(c.hash), free(c.ents), free(c.refused), free(c.granted);
    return rc;
}
