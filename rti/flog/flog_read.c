/* Federation log reader: a pure function from (bytes, length) to the header and then one
 * record at a time, every length checked before use (doc/log.md, doc/contributing.md §7). Also the
 * CRC-32C and the names shared with the writer. Uses only libc, so the fuzz target links it
 * alone. Byte format: doc/log.md. Read rti/flog/flog.h first; the writer is rti/flog/flog.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rti/flog/flog.h"
#include "rti/proto/delivery.h"

/* ---- names and checksum ------------------------------------------------------------------ */

static const char *const kind_names[FLOG_K_END] = {
    [FLOG_K_RECV] = "RECV",           [FLOG_K_SENT] = "SENT",
    [FLOG_K_JOINED] = "JOINED",       [FLOG_K_LOST] = "LOST",
    [FLOG_K_DECISION] = "DECISION",   [FLOG_K_TM_SEND] = "TM_SEND",
    [FLOG_K_NOTE] = "NOTE",           [FLOG_K_SENT_AGAIN] = "SENT_AGAIN",
    [FLOG_K_DELIVERED] = "DELIVERED", [FLOG_K_DELIVERED_AGAIN] = "DELIVERED_AGAIN",
    [FLOG_K_GRANTED] = "GRANTED",
};

/* The delivery reasons are the shared rule table (rti/proto/delivery.h); the log stores a
 * rule's code, so the two must count alike. */
_Static_assert(FLOG_WHY_COUNT == DELIVERY_RULE_COUNT, "log codes and delivery rules differ");

const char *flog_why_text(unsigned code)
{
    return code > 0 && code < FLOG_WHY_COUNT ? delivery_rule_text(code) : NULL;
}

unsigned flog_why_code(const char *reason)
{
    if (!reason) return 0;
    size_t n = strlen(reason);
    for (unsigned c = 1; c < FLOG_WHY_COUNT; c++) {
        const char *w = delivery_rule_text(c);
        size_t k = strlen(w);
        /* the text must be the whole tail after ": ", not just a suffix of a longer why */
        if (n >= k + 2 && memcmp(reason + n - k, w, k) == 0 &&
            memcmp(reason + n - k - 2, ": ", 2) == 0)
            return c;
    }
    return 0;
}

const char *flog_kind_name(unsigned kind)
{
    return kind > 0 && kind < FLOG_K_END ? kind_names[kind] : "?";
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
    if (version < FLOG_VERSION_MIN || version > FLOG_VERSION)
        return flog_fail(FLOG_EVERSION, err, errlen,
                         "log format version %u is not supported (this reader knows versions "
                         "%u to %u)",
                         version, FLOG_VERSION_MIN, FLOG_VERSION);
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
    r->off = r->blk_end = hlen;
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

static int64_t unzigzag(uint64_t z)
{
    return (int64_t)((z >> 1) ^ (0 - (z & 1)));
}

/* Take the varints of a coded message (time, sender, seq, token) at q[*h] inside [0, n) into
 * d. 0, or -1 (*h at the bad byte). */
static int take_msg(const uint8_t *q, size_t n, size_t *h, struct flog_decision *d)
{
    uint64_t t = 0, sender = 0;
    if (get_varint(q, n, h, 10, &t) != 0 || get_varint(q, n, h, 5, &sender) != 0 ||
        sender > UINT32_MAX || get_varint(q, n, h, 10, &d->seq) != 0 ||
        get_varint(q, n, h, 10, &d->token) != 0)
        return -1;
    d->time = unzigzag(t);
    d->sender = (uint32_t)sender;
    return 0;
}

/* A DELIVER's reason code @p why into d (the text is the table's). 0, or -1 with err. */
static int set_why(struct flog_decision *d, unsigned why, char *err, size_t errlen)
{
    const char *w = flog_why_text(why);
    if (d->kind != TM_D_DELIVER || !w) {
        flog_fail(0, err, errlen,
                  "reason code %u with decision kind %u (codes are 1..%u, for DELIVER only)", why,
                  d->kind, FLOG_WHY_COUNT - 1);
        return -1;
    }
    d->why = (uint8_t)why;
    d->reason = w;
    d->reason_len = (uint32_t)strlen(w);
    return 0;
}

/* DECISION payload (doc/log.md): u8 kind, u8 req, u8 tso, u8 why, varints time (zigzag),
 * sender, seq, token, code (zigzag), then the reason text (none when why != 0). */
static int decode_decision(struct flog_record *rec, char *err, size_t errlen)
{
    const uint8_t *q = rec->payload;
    size_t n = rec->payload_len, h = 4;
    struct flog_decision *d = &rec->dec;
    uint64_t code = 0;
    if (n < 4 || take_msg(q, n, &h, d) != 0 || get_varint(q, n, &h, 10, &code) != 0) {
        flog_fail(0, err, errlen,
                  "DECISION payload: a field at payload byte %zu is too long or overruns the %zu "
                  "bytes",
                  h, n);
        return -1;
    }
    int64_t c = unzigzag(code);
    if (c < INT32_MIN || c > INT32_MAX) {
        flog_fail(0, err, errlen, "DECISION payload: status code %lld is not an int32",
                  (long long)c);
        return -1;
    }
    d->kind = q[0];
    d->req = q[1];
    d->tso = q[2];
    d->code = (int32_t)c;
    if (q[3] != 0) {
        char why[128];
        if (set_why(d, q[3], why, sizeof why) != 0) {
            flog_fail(0, err, errlen, "DECISION payload: %s", why);
            return -1;
        }
        if (h != n) {
            flog_fail(0, err, errlen, "DECISION payload: %zu bytes of text after reason code %u",
                      n - h, q[3]);
            return -1;
        }
        return 0;
    }
    d->reason = (const char *)(q + h);
    d->reason_len = (uint32_t)(n - h);
    return 0;
}

/* GRANTED payload (version 4): u8 req, u8 row | queued << 3 | galt strict << 4, varints
 * zigzag(time), then asked, galt and, for an FQR row, prev as zigzag differences to time,
 * holder. Returned as a GRANT DECISION without a reason text (flog_grant_text words it). */
static int decode_granted(struct flog_record *rec, uint16_t version, char *err, size_t errlen)
{
    const uint8_t *q = rec->payload;
    size_t n = rec->payload_len, h = 2;
    struct flog_decision *d = &rec->dec;
    if (version < 4) {
        flog_fail(0, err, errlen, "GRANTED record in a version %u log (from version 4 on)",
                  version);
        return -1;
    }
    uint64_t t = 0, da = 0, dg = 0, holder = 0, dp = 0;
    unsigned row = n >= 2 ? q[1] & 7u : 0;
    if (n < 2 || get_varint(q, n, &h, 10, &t) != 0 || get_varint(q, n, &h, 10, &da) != 0 ||
        get_varint(q, n, &h, 10, &dg) != 0 || get_varint(q, n, &h, 5, &holder) != 0 ||
        holder > UINT32_MAX || (row == TM_GROW_FQR && get_varint(q, n, &h, 10, &dp) != 0)) {
        flog_fail(0, err, errlen,
                  "GRANTED payload: a field at payload byte %zu is too long or overruns the %zu "
                  "bytes",
                  h, n);
        return -1;
    }
    if (row < TM_GROW_AT_ONCE || row > TM_GROW_FQR || (q[1] & ~31u) || q[0] < TM_REQ_TAR ||
        q[0] > TM_REQ_FQR || h != n) {
        flog_fail(0, err, errlen,
                  "GRANTED payload: request %u, row %u, flags 0x%02x or %zu bytes after the "
                  "fields are impossible",
                  q[0], row, q[1], n - h);
        return -1;
    }
    d->kind = TM_D_GRANT;
    d->req = q[0];
    d->time = unzigzag(t);
    tm_grant_facts *g = &d->grant;
    g->row = (tm_grant_row)row;
    g->queued = (q[1] >> 3) & 1u;
    g->galt.strict = (q[1] >> 4) & 1u;
    /* the writer's wrapping differences, undone the same way */
    g->asked = (int64_t)((uint64_t)d->time + (uint64_t)unzigzag(da));
    g->galt.t = (int64_t)((uint64_t)d->time + (uint64_t)unzigzag(dg));
    g->prev =
        row == TM_GROW_FQR ? (int64_t)((uint64_t)d->time + (uint64_t)unzigzag(dp)) : TM_NO_TIME;
    g->holder = (tm_fed)holder;
    rec->kind = FLOG_K_DECISION;
    return 0;
}

/* TM_SEND payload: varints ts (zigzag), token, n, then n x u32 receivers. */
static int decode_tm_send(struct flog_record *rec, char *err, size_t errlen)
{
    const uint8_t *q = rec->payload;
    size_t n = rec->payload_len, h = 0;
    struct flog_tm_send *s = &rec->send;
    uint64_t ts = 0, cnt = 0;
    if (get_varint(q, n, &h, 10, &ts) != 0 || get_varint(q, n, &h, 10, &s->token) != 0 ||
        get_varint(q, n, &h, 5, &cnt) != 0 || cnt > UINT32_MAX) {
        flog_fail(0, err, errlen,
                  "TM_SEND payload: a field at payload byte %zu is too long or overruns the %zu "
                  "bytes",
                  h, n);
        return -1;
    }
    if (cnt * 4u != n - h) {
        flog_fail(0, err, errlen, "TM_SEND payload: %llu receivers need %llu bytes, %zu present",
                  (unsigned long long)cnt, (unsigned long long)cnt * 4u, n - h);
        return -1;
    }
    s->ts = unzigzag(ts);
    s->n = (uint32_t)cnt;
    s->receivers = q + h;
    return 0;
}

static void ring_push(struct flog_reader *r, const uint8_t *frame, uint32_t len,
                      const struct flog_decision *msg)
{
    struct flog_ring_entry *e = &r->ring[r->ring_n % FLOG_AGAIN_RING];
    memset(e, 0, sizeof *e);
    e->frame = frame;
    e->len = len;
    if (msg) {
        e->has_msg = 1;
        e->time = msg->time;
        e->sender = msg->sender;
        e->seq = msg->seq;
        e->token = msg->token;
    }
    r->ring_n++;
}

/* The ring entry a varint distance at q[*h] names, or NULL (with err filled). */
static const struct flog_ring_entry *ring_named(const struct flog_reader *r, const uint8_t *q,
                                                size_t n, size_t *h, int need_msg, char *err,
                                                size_t errlen)
{
    uint64_t dist = 0;
    uint32_t have = r->ring_n < FLOG_AGAIN_RING ? r->ring_n : FLOG_AGAIN_RING;
    /* SENT_AGAIN holds one distance; DELIVERED_AGAIN pairs, each with one */
    int must_end = !need_msg;
    if (get_varint(q, n, h, 5, &dist) != 0 || (must_end && *h != n) || dist < 1 || dist > have) {
        flog_fail(0, err, errlen,
                  "names no earlier frame (%u kept; its distance must be one varint from 1 to "
                  "that%s)",
                  have, must_end ? ", ending the payload" : "");
        return NULL;
    }
    const struct flog_ring_entry *e = &r->ring[(r->ring_n - dist) % FLOG_AGAIN_RING];
    if (need_msg && !e->has_msg) {
        flog_fail(0, err, errlen, "names frame %llu back, which no DELIVERED stored",
                  (unsigned long long)dist);
        return NULL;
    }
    return e;
}

/* The SENT half of a delivery record: rec's header with @p frame as its payload. */
static void sent_half(const struct flog_record *rec, struct flog_record *sent, const uint8_t *frame,
                      uint32_t len)
{
    *sent = *rec;
    memset(&sent->dec, 0, sizeof sent->dec);
    sent->kind = FLOG_K_SENT;
    sent->payload = frame;
    sent->payload_len = len;
}

/* The (u8 flags, varint distance) pair of a DELIVERED_AGAIN at q[*h]: its DECISION into rec
 * (header fields set by the caller; payload = the pair's bytes) and its SENT into sent, *h
 * past it. 0, or -1 with err filled. */
static int again_pair(const struct flog_reader *r, const uint8_t *q, size_t n, size_t *h,
                      struct flog_record *rec, struct flog_record *sent, char *err, size_t errlen)
{
    struct flog_decision *d = &rec->dec;
    char why[160];
    size_t at = *h;
    memset(d, 0, sizeof *d);
    d->kind = TM_D_DELIVER;
    d->tso = q[at] & 1u;
    if (set_why(d, q[at] >> 1, why, sizeof why) != 0) {
        flog_fail(0, err, errlen, "DELIVERED_AGAIN payload byte %zu: %s", at, why);
        return -1;
    }
    *h = at + 1;
    const struct flog_ring_entry *e = ring_named(r, q, n, h, 1, why, sizeof why);
    if (!e) {
        flog_fail(0, err, errlen, "DELIVERED_AGAIN pair at payload byte %zu %s", at, why);
        return -1;
    }
    d->time = e->time;
    d->sender = e->sender;
    d->seq = e->seq;
    d->token = e->token;
    rec->kind = FLOG_K_DECISION;
    rec->payload = q + at;
    rec->payload_len = (uint32_t)(*h - at);
    sent_half(rec, sent, e->frame, e->len);
    return 0;
}

/* Decode a stored record's payload into rec (and, for DELIVERED and DELIVERED_AGAIN, the SENT
 * half of its first delivery into *sent, with *two set; for DELIVERED_AGAIN, *rest = the
 * payload offset of its next pair, the payload length when none); changes nothing in the
 * reader (the caller commits, ring and pairs included, once the whole record is good). 0, or
 * -1 with err filled. */
static int decode_stored(struct flog_reader *r, struct flog_record *rec, struct flog_record *sent,
                         int *two, size_t *rest, char *err, size_t errlen)
{
    const uint8_t *q = rec->payload;
    size_t n = rec->payload_len, h = 0;
    *two = 0;
    switch (rec->kind) {
    case FLOG_K_DECISION:
        return decode_decision(rec, err, errlen);
    case FLOG_K_GRANTED:
        return decode_granted(rec, r->hdr.version, err, errlen);
    case FLOG_K_TM_SEND:
        return decode_tm_send(rec, err, errlen);
    case FLOG_K_SENT_AGAIN: {
        char why[160];
        const struct flog_ring_entry *e = ring_named(r, q, n, &h, 0, why, sizeof why);
        if (!e) {
            flog_fail(0, err, errlen, "SENT_AGAIN %s", why);
            return -1;
        }
        rec->kind = FLOG_K_SENT; /* a repeat of a recent frame: hand it on as a SENT */
        rec->payload = e->frame;
        rec->payload_len = e->len;
        return 0;
    }
    case FLOG_K_DELIVERED_AGAIN: {
        if (n < 1) {
            flog_fail(0, err, errlen, "DELIVERED_AGAIN payload is empty");
            return -1;
        }
        /* every pair is checked now, so that the records of the later ones cannot fail */
        struct flog_record d1, s1;
        for (size_t x = 0; x < n;) {
            d1 = *rec;
            if (again_pair(r, q, n, &x, &d1, &s1, err, errlen) != 0) return -1;
        }
        if (again_pair(r, q, n, &h, rec, sent, err, errlen) != 0) return -1;
        *rest = h;
        *two = 1;
        return 0;
    }
    case FLOG_K_DELIVERED: {
        struct flog_decision *d = &rec->dec;
        char why[160];
        if (n < 1) {
            flog_fail(0, err, errlen, "DELIVERED payload is empty");
            return -1;
        }
        d->kind = TM_D_DELIVER;
        d->tso = q[0] & 1u;
        h = 1;
        if (set_why(d, q[0] >> 1, why, sizeof why) != 0) {
            flog_fail(0, err, errlen, "DELIVERED payload: %s", why);
            return -1;
        }
        if (take_msg(q, n, &h, d) != 0) {
            flog_fail(0, err, errlen,
                      "DELIVERED payload: a varint at payload byte %zu is too long or overruns "
                      "the %zu bytes",
                      h, n);
            return -1;
        }
        rec->kind = FLOG_K_DECISION;
        rec->payload_len = (uint32_t)h; /* the DECISION half: the coded fields */
        sent_half(rec, sent, q + h, (uint32_t)(n - h));
        *two = 1;
        return 0;
    }
    default:
        return 0;
    }
}

/* Where a record that starts at @p off ends or is cut, in words, for ETRUNC messages. */
static int cut_at(const struct flog_reader *r, uint64_t idx, size_t off, const char *what,
                  char *err, size_t errlen)
{
    return flog_fail(FLOG_ETRUNC, err, errlen,
                     "log cut at byte offset %zu inside record %llu (which starts at %zu): %s",
                     r->n, (unsigned long long)idx, off, what);
}

int flog_reader_next(struct flog_reader *r, struct flog_record *rec, char *err, size_t errlen)
{
    if (!r || !rec) return flog_fail(FLOG_EUSAGE, err, errlen, "flog_reader_next: NULL argument");
    if (r->pending) { /* the SENT half of a delivery */
        *rec = r->next;
        rec->index = rec->seq = ++r->count;
        r->pending = 0;
        return 1;
    }
    if (r->run_at < r->run_len) { /* the next pair of a DELIVERED_AGAIN, checked when read */
        struct flog_record sent;
        size_t h = r->run_at;
        *rec = r->run_rec;
        if (again_pair(r, r->run, r->run_len, &h, rec, &sent, err, errlen) != 0)
            return FLOG_ECORRUPT;
        r->run_at = (uint32_t)h;
        rec->index = rec->seq = ++r->count;
        r->next = sent;
        r->pending = 1;
        return 1;
    }
    memset(rec, 0, sizeof *rec);
    size_t off = r->off, end = r->blk_end;
    int cut = r->blk_cut;
    uint64_t idx = r->count + 1;
    if (off == end && cut) /* cut right after a record of a block that has more */
        return cut_at(r, idx, off, "its block's length says more records follow", err, errlen);
    if (off == end) { /* at a block boundary: the next block's prefix, checked whole */
        size_t left = r->n - off;
        if (left == 0) return 0;
        if (left < FLOG_BLOCK_PREFIX)
            return flog_fail(FLOG_ETRUNC, err, errlen,
                             "log cut at byte offset %zu inside record %llu: the %u-byte prefix "
                             "of its block (at %zu) has only %zu bytes",
                             r->n, (unsigned long long)idx, FLOG_BLOCK_PREFIX, off, left);
        uint32_t blen = get32(r->p + off), crc = get32(r->p + off + 4);
        if (blen < FLOG_REC_MIN + 1 || blen > FLOG_MAX_BLOCK)
            return flog_fail(FLOG_ECORRUPT, err, errlen,
                             "block at byte offset %zu (record %llu on): length %u is impossible",
                             off, (unsigned long long)idx, blen);
        off += FLOG_BLOCK_PREFIX;
        left -= FLOG_BLOCK_PREFIX;
        if (left < blen) { /* cut short: its records are read up to the cut, unchecked */
            end = r->n;
            cut = 1;
        } else {
            end = off + blen;
            cut = 0;
            uint32_t got = flog_crc32c(0, r->p + off, blen);
            if (got != crc)
                return flog_fail(FLOG_ECRC, err, errlen,
                                 "block at byte offset %zu (record %llu on): checksum 0x%08x does "
                                 "not match the stored 0x%08x",
                                 off - FLOG_BLOCK_PREFIX, (unsigned long long)idx, got, crc);
        }
    }
    size_t h = off;
    uint64_t blen = 0;
    if (get_varint(r->p, end, &h, 5, &blen) != 0) {
        if (cut && h >= end) return cut_at(r, idx, off, "its length is cut", err, errlen);
        return flog_fail(FLOG_ECORRUPT, err, errlen,
                         "record %llu at byte offset %zu: its length varint is too long or "
                         "overruns its block",
                         (unsigned long long)idx, off);
    }
    if (blen < FLOG_REC_MIN || blen > FLOG_MAX_RECORD)
        return flog_fail(FLOG_ECORRUPT, err, errlen,
                         "record %llu at byte offset %zu: body length %llu is impossible",
                         (unsigned long long)idx, off, (unsigned long long)blen);
    if (end - h < blen) {
        if (cut) {
            char what[96];
            snprintf(what, sizeof what, "its length says %llu body bytes, %zu present",
                     (unsigned long long)blen, end - h);
            return cut_at(r, idx, off, what, err, errlen);
        }
        return flog_fail(FLOG_ECORRUPT, err, errlen,
                         "record %llu at byte offset %zu: its %llu body bytes overrun its block",
                         (unsigned long long)idx, off, (unsigned long long)blen);
    }
    const uint8_t *b = r->p + h;
    size_t body_end = h + (size_t)blen;
    if (b[0] == 0 || b[0] >= FLOG_K_END)
        return flog_fail(FLOG_ECORRUPT, err, errlen,
                         "record %llu at byte offset %zu: unknown kind %u", (unsigned long long)idx,
                         off, b[0]);
    uint64_t fed = 0, zz = 0;
    size_t k = 1;
    int bad_fed = get_varint(b, (size_t)blen, &k, 5, &fed) != 0 || fed > UINT32_MAX;
    if (bad_fed || get_varint(b, (size_t)blen, &k, 10, &zz) != 0)
        return flog_fail(FLOG_ECORRUPT, err, errlen,
                         "record %llu at byte offset %zu: the %s varint at body byte %zu is longer "
                         "than its type or overruns the %llu-byte body",
                         (unsigned long long)idx, off, bad_fed ? "federate" : "wall-time", k,
                         (unsigned long long)blen);
    rec->index = idx;
    rec->offset = off;
    rec->kind = b[0];
    rec->fed = (uint32_t)fed;
    rec->seq = idx;
    /* undo the zigzag mapping; the sum wraps like the writer's difference */
    rec->wall_ns = (int64_t)((uint64_t)r->last_wall_ns + (uint64_t)unzigzag(zz));
    rec->payload = b + k;
    rec->payload_len = (uint32_t)(blen - k);
    uint8_t stored_kind = rec->kind;
    struct flog_record sent, hdr = *rec;
    int two = 0;
    size_t rest = 0;
    char why[200] = "";
    if (decode_stored(r, rec, &sent, &two, &rest, why, sizeof why) != 0) {
        memset(rec, 0, sizeof *rec);
        return flog_fail(FLOG_ECORRUPT, err, errlen, "record %llu at byte offset %zu: %s",
                         (unsigned long long)idx, off, why);
    }
    /* commit: position, block, ring */
    r->off = body_end;
    r->blk_end = end;
    r->blk_cut = cut;
    r->count = idx;
    r->last_wall_ns = rec->wall_ns;
    if (stored_kind == FLOG_K_SENT && rec->payload_len <= FLOG_AGAIN_MAX)
        ring_push(r, rec->payload, rec->payload_len, NULL);
    if (stored_kind == FLOG_K_DELIVERED && sent.payload_len <= FLOG_AGAIN_MAX)
        ring_push(r, sent.payload, sent.payload_len, &rec->dec);
    if (two) {
        r->next = sent;
        r->pending = 1;
    }
    if (stored_kind == FLOG_K_DELIVERED_AGAIN && rest < hdr.payload_len) {
        r->run = hdr.payload; /* more pairs: returned by the next calls */
        r->run_len = hdr.payload_len;
        r->run_at = (uint32_t)rest;
        r->run_rec = hdr;
    }
    return 1;
}

/* ---- files ------------------------------------------------------------------------------- */

int flog_load_file(const char *path, uint8_t **data, size_t *len, char *err, size_t errlen)
{
    if (!path || !data || !len) return flog_fail(FLOG_EUSAGE, err, errlen, "flog_load_file: NULL");
    *data = NULL;
    *len = 0;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; the type check refuses it next. */
    int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return flog_fail(FLOG_EIO, err, errlen, "open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return flog_fail(FLOG_EIO, err, errlen, "fstat %s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return flog_fail(FLOG_EIO, err, errlen,
                         "%s: not a regular file (a device, FIFO, socket or folder); a "
                         "federation log is a file",
                         path);
    }
    /* Memory is the size fstat gave, never more: a file that grows meanwhile is read up to
     * that size. The magic is checked on the first bytes before the rest is read. */
    if ((uintmax_t)st.st_size > (uintmax_t)SIZE_MAX - 1) {
        close(fd);
        return flog_fail(FLOG_ENOMEM, err, errlen, "%s: too large to load", path);
    }
    size_t cap = (size_t)st.st_size, n = 0;
    uint8_t head[FLOG_MAGIC_LEN];
    while (n < FLOG_MAGIC_LEN && n < cap) {
        ssize_t got = read(fd, head + n, (cap < FLOG_MAGIC_LEN ? cap : FLOG_MAGIC_LEN) - n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        n += (size_t)got;
    }
    if (n == FLOG_MAGIC_LEN && memcmp(head, FLOG_MAGIC, FLOG_MAGIC_LEN) != 0) {
        close(fd);
        return flog_fail(FLOG_EMAGIC, err, errlen, "%s: not a Tempo federation log (bad magic)",
                         path);
    }
    uint8_t *b = malloc(cap > n ? cap : n ? n : 1);
    if (!b) {
        close(fd);
        return flog_fail(FLOG_ENOMEM, err, errlen, "%s: out of memory for %zu bytes", path, cap);
    }
    memcpy(b, head, n);
    while (n < cap) {
        ssize_t got = read(fd, b + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int e = errno;
            free(b);
            close(fd);
            return flog_fail(FLOG_EIO, err, errlen, "read %s: %s", path, strerror(e));
        }
        if (got == 0) break; /* shrank meanwhile: the reader reports the cut */
        n += (size_t)got;
    }
    close(fd);
    *data = b;
    *len = n;
    return FLOG_OK;
}
