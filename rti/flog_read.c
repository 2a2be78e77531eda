/* Federation log reader: a pure function from (bytes, length) to the header and then one
 * record at a time, every length checked before use (DESIGN.md §9, STYLE.md §2.7). Also the
 * CRC-32C and the names shared with the writer. Uses only libc, so the fuzz target links it
 * alone. Byte format: doc/log.md. Read rti/flog.h first; the writer is rti/flog.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rti/flog.h"

/* ---- names and checksum ------------------------------------------------------------------ */

const char *flog_strerror(int status)
{
    switch (status) {
    case FLOG_OK:
        return "FLOG_OK";
    case FLOG_STOPPED:
        return "FLOG_STOPPED";
    case FLOG_EIO:
        return "FLOG_EIO";
    case FLOG_ENOMEM:
        return "FLOG_ENOMEM";
    case FLOG_EUSAGE:
        return "FLOG_EUSAGE";
    case FLOG_EMAGIC:
        return "FLOG_EMAGIC";
    case FLOG_EVERSION:
        return "FLOG_EVERSION";
    case FLOG_ETRUNC:
        return "FLOG_ETRUNC";
    case FLOG_ECRC:
        return "FLOG_ECRC";
    case FLOG_ECORRUPT:
        return "FLOG_ECORRUPT";
    default:
        return "FLOG_E?";
    }
}

static const char *const kind_names[FLOG_K_END] = {
    [FLOG_K_RECV] = "RECV", [FLOG_K_SENT] = "SENT",         [FLOG_K_JOINED] = "JOINED",
    [FLOG_K_LOST] = "LOST", [FLOG_K_DECISION] = "DECISION", [FLOG_K_TM_SEND] = "TM_SEND",
    [FLOG_K_NOTE] = "NOTE", [FLOG_K_SENT_AGAIN] = "SENT_AGAIN",
};

/* Must equal texts that rti/tm.c's deliver() calls pass: tests/unit/flog_test.c finds each in
 * rti/tm.c, and tests/integration/rti_flog_test.c checks that a real delivery is coded. A
 * reason not here is simply recorded in full. */
static const char *const why_texts[FLOG_WHY_COUNT] = {
    NULL,
    "ts <= t for TAR(t)",
    "ts <= t for TARA(t)",
    "smallest queued ts for NER/NERA",
    "receiver no longer time-constrained",
    "FQR flushes every queued message",
    "sender not time-regulating or no time stamp",
    "receiver not time-constrained",
    "stamped T after an available grant",
};

const char *flog_why_text(unsigned code)
{
    return code > 0 && code < FLOG_WHY_COUNT ? why_texts[code] : NULL;
}

unsigned flog_why_code(const char *reason)
{
    if (!reason) return 0;
    size_t n = strlen(reason);
    for (unsigned c = 1; c < FLOG_WHY_COUNT; c++) {
        size_t k = strlen(why_texts[c]);
        /* the text must be the whole tail after ": ", not just a suffix of a longer why */
        if (n >= k + 2 && memcmp(reason + n - k, why_texts[c], k) == 0 &&
            memcmp(reason + n - k - 2, ": ", 2) == 0)
            return c;
    }
    return 0;
}

unsigned flog_why_rule_code(const char *rule)
{
    if (!rule) return 0;
    for (unsigned c = 1; c < FLOG_WHY_COUNT; c++)
        if (strcmp(rule, why_texts[c]) == 0) return c;
    return 0;
}

const char *flog_kind_name(unsigned kind)
{
    return kind > 0 && kind < FLOG_K_END ? kind_names[kind] : "?";
}

unsigned flog_kind_parse(const char *name)
{
    if (!name) return 0;
    for (unsigned k = 1; k < FLOG_K_END; k++)
        if (strcasecmp(name, kind_names[k]) == 0) return k;
    return 0;
}

/* CRC-32C (Castagnoli, reflected polynomial 0x82F63B78). Chosen over the IEEE CRC-32 because
 * x86-64 computes it in hardware (SSE4.2 `crc32`, 8 bytes per instruction): the writer
 * checksums every frame the RTI logs, so this is on the RTI's hot path.
 * Portable path: slicing-by-8 tables built on first use; tab[0] is the classic byte table,
 * tab[k][i] the CRC of byte i followed by k zero bytes, so eight bytes cost eight independent
 * lookups. Building the tables twice from two threads writes the same values (benign race;
 * tempo-log and the RTI are single threaded anyway). */
static uint32_t crc_tab[8][256];
static int crc_ready; /* 0 not set up, 1 tables, 2 tables and hardware */

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1u) ? 0x82F63B78u ^ (c >> 1) : c >> 1;
        crc_tab[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int k = 1; k < 8; k++)
            crc_tab[k][i] = (crc_tab[k - 1][i] >> 8) ^ crc_tab[0][crc_tab[k - 1][i] & 0xFFu];
    crc_ready = 1;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (__builtin_cpu_supports("sse4.2")) crc_ready = 2;
#endif
}

uint32_t flog_crc32c_soft(uint32_t crc, const void *p, size_t n)
{
    if (!crc_ready) crc_init();
    const uint8_t *b = p;
    crc = ~crc;
    for (; n >= 8; n -= 8, b += 8) {
        uint32_t lo = crc ^ ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                             (uint32_t)b[3] << 24);
        uint32_t hi =
            (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
        crc = crc_tab[7][lo & 0xFFu] ^ crc_tab[6][(lo >> 8) & 0xFFu] ^
              crc_tab[5][(lo >> 16) & 0xFFu] ^ crc_tab[4][lo >> 24] ^ crc_tab[3][hi & 0xFFu] ^
              crc_tab[2][(hi >> 8) & 0xFFu] ^ crc_tab[1][(hi >> 16) & 0xFFu] ^ crc_tab[0][hi >> 24];
    }
    for (; n > 0; n--, b++)
        crc = crc_tab[0][(crc ^ *b) & 0xFFu] ^ (crc >> 8);
    return ~crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* The SSE4.2 instruction consumes its 8-byte operand in little-endian byte order, the same
 * order as the byte-at-a-time definition, so both paths give the same value. */
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const uint8_t *b, size_t n)
{
    uint64_t c = ~crc;
    for (; n >= 8; n -= 8, b += 8) {
        uint64_t v;
        memcpy(&v, b, 8);
        c = __builtin_ia32_crc32di(c, v);
    }
    uint32_t c32 = (uint32_t)c;
    for (; n > 0; n--, b++)
        c32 = __builtin_ia32_crc32qi(c32, *b);
    return ~c32;
}
#endif

uint32_t flog_crc32c(uint32_t crc, const void *p, size_t n)
{
    if (!crc_ready) crc_init();
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (crc_ready == 2) return crc_hw(crc, p, n);
#endif
    return flog_crc32c_soft(crc, p, n);
}

/* ---- little-endian helpers --------------------------------------------------------------- */

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}
static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint64_t get64(const uint8_t *p)
{
    return get32(p) | ((uint64_t)get32(p + 4) << 32);
}

int flog_fail(int status, char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return status;
}

/* ---- header ------------------------------------------------------------------------------ */

/* Take a "u32 len, bytes" string at *off inside [0, end). 0, or -1 when it overruns. */
static int take_str(const uint8_t *p, size_t end, size_t *off, const char **s, uint32_t *len)
{
    if (end - *off < 4) return -1;
    uint32_t l = get32(p + *off);
    if (end - *off - 4 < l) return -1;
    *s = (const char *)(p + *off + 4);
    *len = l;
    *off += 4 + (size_t)l;
    return 0;
}

int flog_reader_init(struct flog_reader *r, const uint8_t *p, size_t n, char *err, size_t errlen)
{
    if (!r || (!p && n))
        return flog_fail(FLOG_EUSAGE, err, errlen, "flog_reader_init: NULL argument");
    memset(r, 0, sizeof *r);
    r->p = p;
    r->n = n;
    if (n < FLOG_MAGIC_LEN || memcmp(p, FLOG_MAGIC, FLOG_MAGIC_LEN) != 0) {
        if (n < FLOG_MAGIC_LEN && (n == 0 || memcmp(p, FLOG_MAGIC, n) == 0))
            return flog_fail(FLOG_ETRUNC, err, errlen,
                             "log cut at byte offset %zu inside the file header (magic)", n);
        return flog_fail(FLOG_EMAGIC, err, errlen, "not a Tempo federation log (bad magic)");
    }
    if (n < FLOG_MAGIC_LEN + 2)
        return flog_fail(FLOG_ETRUNC, err, errlen,
                         "log cut at byte offset %zu inside the file header (version)", n);
    uint16_t version = get16(p + 8);
    if (version != FLOG_VERSION)
        return flog_fail(FLOG_EVERSION, err, errlen,
                         "log format version %u is not supported (this reader knows version %u)",
                         version, FLOG_VERSION);
    if (n < FLOG_FILE_PREFIX)
        return flog_fail(FLOG_ETRUNC, err, errlen,
                         "log cut at byte offset %zu inside the file header (prefix)", n);
    uint16_t flags = get16(p + 10);
    uint32_t hlen = get32(p + 12);
    uint32_t crc = get32(p + 16);
    if (flags != 0)
        return flog_fail(FLOG_ECORRUPT, err, errlen, "file header: flags 0x%04x must be 0", flags);
    if (hlen < FLOG_FILE_PREFIX + 8 + 12 || hlen > FLOG_MAX_HEADER)
        return flog_fail(FLOG_ECORRUPT, err, errlen, "file header: header_len %u is impossible",
                         hlen);
    if (n < hlen)
        return flog_fail(FLOG_ETRUNC, err, errlen,
                         "log cut at byte offset %zu inside the file header (header_len %u)", n,
                         hlen);
    uint32_t got = flog_crc32c(0, p + FLOG_FILE_PREFIX, hlen - FLOG_FILE_PREFIX);
    if (got != crc)
        return flog_fail(FLOG_ECRC, err, errlen,
                         "file header: checksum 0x%08x does not match the stored 0x%08x", got, crc);
    struct flog_header *h = &r->hdr;
    h->version = version;
    h->header_len = hlen;
    h->start_wall_ns = (int64_t)get64(p + FLOG_FILE_PREFIX);
    size_t off = FLOG_FILE_PREFIX + 8;
    if (take_str(p, hlen, &off, &h->federation, &h->federation_len) ||
        take_str(p, hlen, &off, &h->resolution, &h->resolution_len) ||
        take_str(p, hlen, &off, &h->fom, &h->fom_len))
        return flog_fail(FLOG_ECORRUPT, err, errlen,
                         "file header: a string length at offset %zu overruns header_len %u", off,
                         hlen);
    if (off != hlen)
        return flog_fail(FLOG_ECORRUPT, err, errlen,
                         "file header: %u bytes left after the FOM text", hlen - (uint32_t)off);
    r->off = hlen;
    r->last_wall_ns = h->start_wall_ns;
    return FLOG_OK;
}

/* ---- records ----------------------------------------------------------------------------- */

/* Unsigned LEB128 at p[*h] inside [0, n), at most @p max bytes; a value whose last byte
 * carries bits beyond 64 is refused. 0 and *h advanced, or -1 (*h at the bad byte). */
static int get_varint(const uint8_t *p, size_t n, size_t *h, int max, uint64_t *v)
{
    uint64_t x = 0;
    for (int i = 0; i < max; i++) {
        if (*h >= n) return -1;
        uint8_t c = p[*h];
        if (i == 9 && c > 1) return -1;
        x |= (uint64_t)(c & 0x7f) << (7 * i);
        (*h)++;
        if (!(c & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

uint32_t flog_tm_send_receiver(const struct flog_tm_send *s, uint32_t i)
{
    if (!s || i >= s->n || !s->receivers) return 0;
    return get32(s->receivers + 4 * (size_t)i);
}

/* A DECISION whose byte 3 (why) is not 0: a DELIVER with its reason as a code and its fields
 * as varints (doc/log.md 1.2). 0, or -1 with err filled. */
static int decode_coded(struct flog_record *rec, char *err, size_t errlen)
{
    const uint8_t *q = rec->payload;
    uint32_t n = rec->payload_len;
    struct flog_decision *d = &rec->dec;
    d->kind = q[0];
    d->req = q[1];
    d->tso = q[2];
    d->why = q[3];
    const char *w = flog_why_text(d->why);
    if (d->kind != TM_D_DELIVER || !w) {
        flog_fail(0, err, errlen,
                  "DECISION payload: reason code %u with decision kind %u (codes are 1..%u, for "
                  "DELIVER only)",
                  d->why, d->kind, FLOG_WHY_COUNT - 1);
        return -1;
    }
    uint64_t t = 0, sender = 0;
    size_t h = 4;
    if (get_varint(q, n, &h, 10, &t) != 0 || get_varint(q, n, &h, 5, &sender) != 0 ||
        sender > UINT32_MAX || get_varint(q, n, &h, 10, &d->seq) != 0 ||
        get_varint(q, n, &h, 10, &d->token) != 0 || h != n) {
        flog_fail(0, err, errlen,
                  "coded DELIVER payload: a varint at payload byte %zu is too long or overruns the "
                  "%u bytes, or bytes are left after the token",
                  h, n);
        return -1;
    }
    d->time = (int64_t)((t >> 1) ^ (0 - (t & 1)));
    d->sender = (uint32_t)sender;
    d->reason = w;
    d->reason_len = (uint32_t)strlen(w);
    return 0;
}

/* Decode the kind-specific part. 0, or -1 with err filled. */
static int decode_payload(struct flog_record *rec, char *err, size_t errlen)
{
    const uint8_t *q = rec->payload;
    uint32_t n = rec->payload_len;
    if (rec->kind == FLOG_K_DECISION && n >= 4 && q[3] != 0) return decode_coded(rec, err, errlen);
    if (rec->kind == FLOG_K_DECISION) {
        if (n < FLOG_DECISION_FIXED) {
            flog_fail(0, err, errlen, "DECISION payload of %u bytes is shorter than %u", n,
                      FLOG_DECISION_FIXED);
            return -1;
        }
        struct flog_decision *d = &rec->dec;
        d->kind = q[0];
        d->req = q[1];
        d->tso = q[2];
        d->code = (int32_t)get32(q + 4);
        d->time = (int64_t)get64(q + 8);
        d->sender = get32(q + 16);
        d->seq = get64(q + 24);
        d->token = get64(q + 32);
        d->reason = (const char *)(q + FLOG_DECISION_FIXED);
        d->reason_len = n - FLOG_DECISION_FIXED;
    } else if (rec->kind == FLOG_K_TM_SEND) {
        if (n < 20) {
            flog_fail(0, err, errlen, "TM_SEND payload of %u bytes is shorter than 20", n);
            return -1;
        }
        struct flog_tm_send *s = &rec->send;
        s->ts = (int64_t)get64(q);
        s->token = get64(q + 8);
        s->n = get32(q + 16);
        if ((uint64_t)s->n * 4u != (uint64_t)n - 20u) {
            flog_fail(0, err, errlen, "TM_SEND payload: %u receivers need %llu bytes, %u present",
                      s->n, (unsigned long long)s->n * 4u, n - 20u);
            return -1;
        }
        s->receivers = q + 20;
    }
    return 0;
}

int flog_reader_next(struct flog_reader *r, struct flog_record *rec, char *err, size_t errlen)
{
    if (!r || !rec) return flog_fail(FLOG_EUSAGE, err, errlen, "flog_reader_next: NULL argument");
    memset(rec, 0, sizeof *rec);
    size_t off = r->off, left = r->n - off;
    uint64_t idx = r->count + 1;
    if (left == 0) return 0;
    if (left < FLOG_REC_PREFIX)
        return flog_fail(FLOG_ETRUNC, err, errlen,
                         "log cut at byte offset %zu inside record %llu: its %u-byte length and "
                         "checksum prefix has only %zu bytes",
                         r->n, (unsigned long long)idx, FLOG_REC_PREFIX, left);
    uint32_t blen = get32(r->p + off), crc = get32(r->p + off + 4);
    if (blen < FLOG_REC_MIN || blen > FLOG_MAX_RECORD)
        return flog_fail(FLOG_ECORRUPT, err, errlen,
                         "record %llu at byte offset %zu: body length %u is impossible",
                         (unsigned long long)idx, off, blen);
    if (left - FLOG_REC_PREFIX < blen)
        return flog_fail(FLOG_ETRUNC, err, errlen,
                         "log cut at byte offset %zu inside record %llu (which starts at %zu): "
                         "its length says %u body bytes, %zu present",
                         r->n, (unsigned long long)idx, off, blen, left - FLOG_REC_PREFIX);
    const uint8_t *b = r->p + off + FLOG_REC_PREFIX;
    uint32_t got = flog_crc32c(0, b, blen);
    if (got != crc)
        return flog_fail(FLOG_ECRC, err, errlen,
                         "record %llu at byte offset %zu: checksum 0x%08x does not match the "
                         "stored 0x%08x",
                         (unsigned long long)idx, off, got, crc);
    if (b[0] == 0 || b[0] >= FLOG_K_END)
        return flog_fail(FLOG_ECORRUPT, err, errlen,
                         "record %llu at byte offset %zu: unknown kind %u", (unsigned long long)idx,
                         off, b[0]);
    uint64_t fed = 0, zz = 0;
    size_t h = 1;
    int bad_fed = get_varint(b, blen, &h, 5, &fed) != 0 || fed > UINT32_MAX;
    if (bad_fed || get_varint(b, blen, &h, 10, &zz) != 0)
        return flog_fail(FLOG_ECORRUPT, err, errlen,
                         "record %llu at byte offset %zu: the %s varint at body byte %zu is longer "
                         "than its type or overruns the %u-byte body",
                         (unsigned long long)idx, off, bad_fed ? "federate" : "wall-time", h, blen);
    /* undo the zigzag mapping; the sum wraps like the writer's difference */
    uint64_t d = (zz >> 1) ^ (0 - (zz & 1));
    rec->index = idx;
    rec->offset = off;
    rec->kind = b[0];
    rec->fed = (uint32_t)fed;
    rec->seq = idx;
    rec->wall_ns = (int64_t)((uint64_t)r->last_wall_ns + d);
    rec->payload = b + h;
    rec->payload_len = blen - (uint32_t)h;
    int pushed = 0; /* this record's frame goes into the SENT_AGAIN ring */
    if (rec->kind == FLOG_K_SENT_AGAIN) {
        /* a repeat of a recent SENT frame: hand it on as a SENT record with that frame */
        uint64_t dist = 0;
        size_t at = 0;
        uint32_t have = r->ring_n < FLOG_AGAIN_RING ? r->ring_n : FLOG_AGAIN_RING;
        if (get_varint(rec->payload, rec->payload_len, &at, 5, &dist) != 0 ||
            at != rec->payload_len || dist < 1 || dist > have) {
            memset(rec, 0, sizeof *rec);
            return flog_fail(FLOG_ECORRUPT, err, errlen,
                             "record %llu at byte offset %zu: SENT_AGAIN names no earlier SENT "
                             "frame (%u kept; its payload must be one varint from 1 to that)",
                             (unsigned long long)idx, off, have);
        }
        uint32_t k = (uint32_t)((r->ring_n - dist) % FLOG_AGAIN_RING);
        rec->kind = FLOG_K_SENT;
        rec->payload = r->ring[k];
        rec->payload_len = r->ring_len[k];
    } else if (rec->kind == FLOG_K_SENT && rec->payload_len <= FLOG_AGAIN_MAX) {
        pushed = 1;
    }
    char why[160] = "";
    if (decode_payload(rec, why, sizeof why) != 0) {
        memset(rec, 0, sizeof *rec);
        return flog_fail(FLOG_ECORRUPT, err, errlen, "record %llu at byte offset %zu: %s",
                         (unsigned long long)idx, off, why);
    }
    r->off = off + FLOG_REC_PREFIX + blen;
    r->count = idx;
    r->last_wall_ns = rec->wall_ns;
    if (pushed) {
        uint32_t k = r->ring_n % FLOG_AGAIN_RING;
        r->ring[k] = rec->payload;
        r->ring_len[k] = rec->payload_len;
        r->ring_n++;
    }
    return 1;
}

/* ---- files ------------------------------------------------------------------------------- */

int flog_load_file(const char *path, uint8_t **data, size_t *len, char *err, size_t errlen)
{
    if (!path || !data || !len) return flog_fail(FLOG_EUSAGE, err, errlen, "flog_load_file: NULL");
    *data = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return flog_fail(FLOG_EIO, err, errlen, "open %s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = malloc(cap);
    if (!b) {
        fclose(f);
        return flog_fail(FLOG_ENOMEM, err, errlen, "%s: out of memory", path);
    }
    for (;;) {
        if (n == cap) {
            uint8_t *nb = cap > SIZE_MAX / 2 ? NULL : realloc(b, cap * 2);
            if (!nb) {
                free(b);
                fclose(f);
                return flog_fail(FLOG_ENOMEM, err, errlen, "%s: out of memory at %zu bytes", path,
                                 n);
            }
            b = nb;
            cap *= 2;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    int e = errno;
    fclose(f);
    if (bad) {
        free(b);
        return flog_fail(FLOG_EIO, err, errlen, "read %s: %s", path, strerror(e));
    }
    *data = b;
    *len = n;
    return FLOG_OK;
}
