/* Wire protocol codec (rti/proto/wire.h): one table of message layouts drives the encoder, the
 * decoder and the names used in logs. doc/protocol.md and §10; doc/contributing.md §7.
 * The byte format is described in doc/protocol.md. Divisions: catalogue, little-endian
 * helpers, encoder, splitter and decoder, value access, TIME_STATUS records, hex sample.
 * Read tests/unit/wire_test.c next. */
#include "rti/proto/wire.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ======================================================================================
 * Catalogue
 * ====================================================================================== */

/* Layout field bits: which generic fields a type carries, in body order. */
enum {
    L_REQ = 1 << 0,
    L_CODE = 1 << 1,
    L_A = 1 << 2,
    L_B = 1 << 3,
    L_C = 1 << 4,
    L_TIME = 1 << 5,
    L_TIME2 = 1 << 6,
    L_VALUES = 1 << 7,
    L_HANDLES = 1 << 8
};

/* String slot kinds. */
enum { S_NONE = 0, S_TEXT = 1, S_BLOB = 2 };

struct layout {
    const char *name;           /* type name for logs */
    uint8_t dir;                /* enum wire_dir; 0 = no such type */
    uint16_t fields;            /* L_* bits */
    uint8_t str[WIRE_MAX_STRS]; /* S_* per slot; slots after the first S_NONE are unused */
    uint32_t code_min;          /* allowed code range when L_CODE is set */
    uint32_t code_max;
};

#define C2R      WIRE_DIR_C2R
#define R2C      WIRE_DIR_R2C
#define ANY_CODE 0, UINT32_MAX
#define NOCODE   0, 0
#define T        S_TEXT
#define B        S_BLOB

/* The catalogue. Each row: name, direction, fields, string slots, code range. The field
 * meanings per type are documented beside enum wire_type and in doc/protocol.md. */
static const struct layout layouts[WIRE_TYPE_END] = {
    [WIRE_HELLO] = {"HELLO", C2R, L_CODE, {B, T}, ANY_CODE},
    [WIRE_HELLO_OK] = {"HELLO_OK", R2C, L_CODE, {T}, ANY_CODE},
    [WIRE_REPLY] = {"REPLY", R2C, L_REQ | L_CODE | L_A, {T}, ANY_CODE},
    [WIRE_ERROR] = {"ERROR", R2C, L_REQ | L_CODE | L_A, {T}, ANY_CODE},
    [WIRE_CREATE_FEDERATION] = {"CREATE_FEDERATION", C2R, L_REQ, {T, T, B}, NOCODE},
    [WIRE_DESTROY_FEDERATION] = {"DESTROY_FEDERATION", C2R, L_REQ, {T, B}, NOCODE},
    [WIRE_JOIN] = {"JOIN", C2R, L_REQ | L_CODE, {T, T, T, B}, 0, WIRE_JOIN_FLAGS_ALL},
    [WIRE_JOIN_OK] = {"JOIN_OK", R2C, L_REQ | L_A | L_B | L_TIME, {T, T}, NOCODE},
    [WIRE_RESIGN] = {"RESIGN", C2R, L_REQ | L_CODE, {0}, 0, WIRE_RESIGN_KEEP_OBJECTS},
    [WIRE_FEDERATE_JOINED] = {"FEDERATE_JOINED", R2C, L_A, {T}, NOCODE},
    [WIRE_FEDERATE_RESIGNED] =
        {"FEDERATE_RESIGNED", R2C, L_A | L_CODE, {T, T}, 0, WIRE_REASON_EXPELLED},
    [WIRE_PUBLISH_OBJECT] = {"PUBLISH_OBJECT", C2R, L_REQ | L_A | L_HANDLES, {0}, NOCODE},
    [WIRE_UNPUBLISH_OBJECT] = {"UNPUBLISH_OBJECT", C2R, L_REQ | L_A | L_HANDLES, {0}, NOCODE},
    [WIRE_SUBSCRIBE_OBJECT] = {"SUBSCRIBE_OBJECT", C2R, L_REQ | L_A | L_HANDLES, {0}, NOCODE},
    [WIRE_UNSUBSCRIBE_OBJECT] = {"UNSUBSCRIBE_OBJECT", C2R, L_REQ | L_A | L_HANDLES, {0}, NOCODE},
    [WIRE_PUBLISH_INTERACTION] = {"PUBLISH_INTERACTION", C2R, L_REQ | L_A, {0}, NOCODE},
    [WIRE_UNPUBLISH_INTERACTION] = {"UNPUBLISH_INTERACTION", C2R, L_REQ | L_A, {0}, NOCODE},
    [WIRE_SUBSCRIBE_INTERACTION] = {"SUBSCRIBE_INTERACTION", C2R, L_REQ | L_A, {0}, NOCODE},
    [WIRE_UNSUBSCRIBE_INTERACTION] = {"UNSUBSCRIBE_INTERACTION", C2R, L_REQ | L_A, {0}, NOCODE},
    [WIRE_REGISTER_OBJECT] = {"REGISTER_OBJECT", C2R, L_REQ | L_A, {T}, NOCODE},
    [WIRE_DISCOVER] = {"DISCOVER", R2C, L_A | L_B | L_C, {T}, NOCODE},
    [WIRE_UPDATE] = {"UPDATE", C2R, L_REQ | L_A | L_TIME | L_VALUES, {B}, NOCODE},
    [WIRE_REFLECT] =
        {"REFLECT", R2C, L_CODE | L_A | L_C | L_TIME | L_VALUES, {B}, 0, WIRE_ORDER_TSO},
    [WIRE_DELETE_OBJECT] = {"DELETE_OBJECT", C2R, L_REQ | L_A | L_TIME, {B}, NOCODE},
    [WIRE_REMOVE_OBJECT] =
        {"REMOVE_OBJECT", R2C, L_CODE | L_A | L_C | L_TIME, {B}, 0, WIRE_ORDER_TSO},
    [WIRE_SEND_INTERACTION] =
        {"SEND_INTERACTION", C2R, L_REQ | L_A | L_TIME | L_VALUES, {B}, NOCODE},
    [WIRE_RECEIVE_INTERACTION] = {"RECEIVE_INTERACTION",
                                  R2C,
                                  L_CODE | L_A | L_C | L_TIME | L_VALUES,
                                  {B},
                                  0,
                                  WIRE_ORDER_TSO},
    [WIRE_REQUEST_UPDATE] =
        {"REQUEST_UPDATE", C2R, L_REQ | L_CODE | L_A | L_HANDLES, {0}, 0, WIRE_RU_CLASS},
    [WIRE_PROVIDE_UPDATE] = {"PROVIDE_UPDATE", R2C, L_A | L_C | L_HANDLES, {0}, NOCODE},
    [WIRE_REGISTER_SYNC] = {"REGISTER_SYNC", C2R, L_REQ | L_HANDLES, {T, B}, NOCODE},
    [WIRE_SYNC_REGISTERED] = {"SYNC_REGISTERED", R2C, L_REQ | L_CODE, {T, T}, ANY_CODE},
    [WIRE_ANNOUNCE_SYNC] = {"ANNOUNCE_SYNC", R2C, 0, {T, B}, NOCODE},
    [WIRE_ACHIEVE_SYNC] = {"ACHIEVE_SYNC", C2R, L_REQ, {T}, NOCODE},
    [WIRE_FEDERATION_SYNCED] = {"FEDERATION_SYNCED", R2C, 0, {T}, NOCODE},
    [WIRE_ENABLE_REGULATION] = {"ENABLE_REGULATION", C2R, L_REQ | L_TIME2, {0}, NOCODE},
    [WIRE_REGULATION_ENABLED] = {"REGULATION_ENABLED", R2C, L_CODE | L_TIME | L_TIME2, {0}, 0, 1},
    [WIRE_DISABLE_REGULATION] = {"DISABLE_REGULATION", C2R, L_REQ, {0}, NOCODE},
    [WIRE_ENABLE_CONSTRAINED] = {"ENABLE_CONSTRAINED", C2R, L_REQ, {0}, NOCODE},
    [WIRE_CONSTRAINED_ENABLED] = {"CONSTRAINED_ENABLED", R2C, L_TIME, {0}, NOCODE},
    [WIRE_DISABLE_CONSTRAINED] = {"DISABLE_CONSTRAINED", C2R, L_REQ, {0}, NOCODE},
    [WIRE_MODIFY_LOOKAHEAD] = {"MODIFY_LOOKAHEAD", C2R, L_REQ | L_TIME2, {0}, NOCODE},
    [WIRE_TIME_REQUEST] =
        {"TIME_REQUEST", C2R, L_REQ | L_CODE | L_TIME, {0}, WIRE_TR_TAR, WIRE_TR_FQR},
    [WIRE_TIME_GRANT] = {"TIME_GRANT", R2C, L_CODE | L_TIME, {0}, WIRE_TR_NONE, WIRE_TR_FQR},
    [WIRE_QUERY_TIME] = {"QUERY_TIME", C2R, L_REQ, {0}, NOCODE},
    [WIRE_TIME_STATUS] = {"TIME_STATUS", R2C, L_REQ | L_TIME | L_VALUES, {0}, NOCODE},
    [WIRE_PING] = {"PING", WIRE_DIR_BOTH, L_REQ, {B}, NOCODE},
    [WIRE_PONG] = {"PONG", WIRE_DIR_BOTH, L_REQ, {B}, NOCODE},
    [WIRE_REQUEST_SAVE] = {"REQUEST_SAVE", C2R, L_REQ | L_TIME, {T}, NOCODE},
    [WIRE_INITIATE_SAVE] =
        {"INITIATE_SAVE", R2C, L_REQ | L_CODE | L_A | L_TIME | L_TIME2, {T}, 0, 1},
    [WIRE_SAVE_DONE] = {"SAVE_DONE", C2R, L_REQ | L_CODE | L_A, {T, B, T}, 0, WIRE_SAVE_FAILED},
    [WIRE_FEDERATION_SAVED] = {"FEDERATION_SAVED", R2C, L_REQ | L_CODE | L_TIME, {T, T}, ANY_CODE},
    [WIRE_RESTORE_FEDERATION] = {"RESTORE_FEDERATION", C2R, L_REQ, {T, T, B}, NOCODE},
    [WIRE_RESTORE_PART] = {"RESTORE_PART", R2C, L_REQ | L_CODE | L_TIME, {T, B}, 0, 1},
};

#undef C2R
#undef R2C
#undef ANY_CODE
#undef NOCODE
#undef T
#undef B

int wire_type_state(unsigned type)
{
    switch (type) {
    case WIRE_ERROR:
    case WIRE_FEDERATE_JOINED:
    case WIRE_FEDERATE_RESIGNED:
    case WIRE_DISCOVER:
    case WIRE_REFLECT:
    case WIRE_REMOVE_OBJECT:
    case WIRE_RECEIVE_INTERACTION:
    case WIRE_PROVIDE_UPDATE:
    case WIRE_SYNC_REGISTERED:
    case WIRE_ANNOUNCE_SYNC:
    case WIRE_FEDERATION_SYNCED:
    case WIRE_REGULATION_ENABLED:
    case WIRE_CONSTRAINED_ENABLED:
    case WIRE_TIME_GRANT:
        return 1;
    default:
        return 0;
    }
}

static const struct layout *layout_of(unsigned type)
{
    if (type == 0 || type >= WIRE_TYPE_END || layouts[type].dir == 0) return NULL;
    return &layouts[type];
}

const char *wire_type_name(unsigned type)
{
    const struct layout *l = layout_of(type);
    return l ? l->name : "UNKNOWN";
}

int wire_type_dir(unsigned type)
{
    const struct layout *l = layout_of(type);
    return l ? l->dir : 0;
}

const char *wire_strerror(int status)
{
    switch (status) {
    case WIRE_OK:
        return "WIRE_OK";
    case WIRE_ETRUNC:
        return "WIRE_ETRUNC";
    case WIRE_ETOOBIG:
        return "WIRE_ETOOBIG";
    case WIRE_ETYPE:
        return "WIRE_ETYPE";
    case WIRE_EFLAGS:
        return "WIRE_EFLAGS";
    case WIRE_EFIELD:
        return "WIRE_EFIELD";
    case WIRE_ETRAIL:
        return "WIRE_ETRAIL";
    case WIRE_ENOMEM:
        return "WIRE_ENOMEM";
    case WIRE_EUSAGE:
        return "WIRE_EUSAGE";
    default:
        return "WIRE_E?";
    }
}

/* Fill the caller's error buffer and return the status. */
static int fail(int status, char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return status;
}

/* ======================================================================================
 * Little-endian helpers: frames are unaligned and little-endian. On a little-endian host a
 * field is one unaligned load or store (memcpy, which the compiler turns into one move);
 * elsewhere byte by byte. The byte loops were about a tenth of the codec's instructions on
 * an in-process macro step (callgrind, doc/performance.md "In one process").
 * ====================================================================================== */

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) &&                                 \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define WIRE_HOST_LE 1
#else
#define WIRE_HOST_LE 0
#endif

static void put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    if (WIRE_HOST_LE) {
        memcpy(p, &v, 4);
        return;
    }
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
    if (WIRE_HOST_LE) {
        memcpy(p, &v, 8);
        return;
    }
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint16_t get_u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get_u32(const uint8_t *p)
{
    if (WIRE_HOST_LE) {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
    if (WIRE_HOST_LE) {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* Two's complement conversions without implementation-defined casts. */
static uint64_t i64_bits(int64_t v)
{
    return (uint64_t)v;
}

static int64_t bits_i64(uint64_t u)
{
    if (u <= (uint64_t)INT64_MAX) return (int64_t)u;
    return -(int64_t)(~u) - 1;
}

/* ======================================================================================
 * Messages and encoder
 * ====================================================================================== */

void wire_msg_init(struct wire_msg *m, unsigned type)
{
    memset(m, 0, sizeof *m);
    m->type = (uint16_t)type;
    m->time = WIRE_TIME_NONE;
    m->time2 = WIRE_TIME_NONE;
}

/* Refuse a message that sets a field its type does not carry or breaks a per-type rule.
 * Shared by the encoder; the decoder checks the same rules on the bytes it reads. */
static int check_fields(const struct layout *l, const struct wire_msg *m, char *err, size_t errlen)
{
    const char *n = l->name;
    uint16_t f = l->fields;
    if (!(f & L_REQ) && m->req) return fail(WIRE_EFIELD, err, errlen, "%s: carries no req", n);
    if (!(f & L_CODE) && m->code) return fail(WIRE_EFIELD, err, errlen, "%s: carries no code", n);
    if (!(f & L_A) && m->a) return fail(WIRE_EFIELD, err, errlen, "%s: carries no field a", n);
    if (!(f & L_B) && m->b) return fail(WIRE_EFIELD, err, errlen, "%s: carries no field b", n);
    if (!(f & L_C) && m->c) return fail(WIRE_EFIELD, err, errlen, "%s: carries no field c", n);
    if (!(f & L_TIME) && m->time != WIRE_TIME_NONE && m->time != 0)
        return fail(WIRE_EFIELD, err, errlen, "%s: carries no time", n);
    if (!(f & L_TIME2) && m->time2 != WIRE_TIME_NONE && m->time2 != 0)
        return fail(WIRE_EFIELD, err, errlen, "%s: carries no time2", n);
    if (!(f & L_VALUES) && m->nvalues)
        return fail(WIRE_EFIELD, err, errlen, "%s: carries no values", n);
    if (!(f & L_HANDLES) && m->nhandles)
        return fail(WIRE_EFIELD, err, errlen, "%s: carries no handles", n);
    if ((f & L_CODE) && (m->code < l->code_min || m->code > l->code_max))
        return fail(WIRE_EFIELD, err, errlen, "%s: code %" PRIu32 " outside %" PRIu32 "..%" PRIu32,
                    n, m->code, l->code_min, l->code_max);
    for (int i = 0; i < WIRE_MAX_STRS; i++) {
        const struct wire_str *s = &m->str[i];
        if (l->str[i] == S_NONE) {
            if (s->len) return fail(WIRE_EFIELD, err, errlen, "%s: carries no str%d", n, i);
            continue;
        }
        if (s->len && !s->ptr)
            return fail(WIRE_EUSAGE, err, errlen, "%s: str%d has length %" PRIu32 " and no bytes",
                        n, i, s->len);
        if (l->str[i] == S_TEXT && s->len && memchr(s->ptr, 0, s->len))
            return fail(WIRE_EFIELD, err, errlen, "%s: str%d holds a NUL byte", n, i);
    }
    if (m->type == WIRE_HELLO &&
        (m->str[0].len != WIRE_MAGIC_LEN || memcmp(m->str[0].ptr, WIRE_MAGIC, WIRE_MAGIC_LEN)))
        return fail(WIRE_EFIELD, err, errlen, "HELLO: str0 must be the magic \"TMPO\"");
    if (m->nvalues && !m->values && !m->values_raw)
        return fail(WIRE_EUSAGE, err, errlen, "%s: %" PRIu32 " values and no array", n, m->nvalues);
    if (m->nhandles && !m->handles && !m->handles_raw)
        return fail(WIRE_EUSAGE, err, errlen, "%s: %" PRIu32 " handles and no array", n,
                    m->nhandles);
    return WIRE_OK;
}

/* Body size of a checked message; fails on a value that is not allowed for the type. */
static int body_size(const struct layout *l, const struct wire_msg *m, uint64_t *size, char *err,
                     size_t errlen)
{
    uint64_t s = 0;
    if (l->fields & L_REQ) s += 4;
    if (l->fields & L_CODE) s += 4;
    if (l->fields & L_A) s += 8;
    if (l->fields & L_B) s += 8;
    if (l->fields & L_C) s += 8;
    if (l->fields & L_TIME) s += 8;
    if (l->fields & L_TIME2) s += 8;
    for (int i = 0; i < WIRE_MAX_STRS; i++)
        if (l->str[i] != S_NONE) s += 4 + (uint64_t)m->str[i].len;
    if (l->fields & L_VALUES) {
        s += 4;
        struct wire_value_iter it;
        struct wire_value v;
        wire_value_iter_init(&it, m);
        while (wire_value_next(&it, &v)) {
            if (v.len && !v.data)
                return fail(WIRE_EUSAGE, err, errlen, "%s: values[%" PRIu32 "] has no bytes",
                            l->name, it.index - 1);
            if (m->type == WIRE_TIME_STATUS && v.len != WIRE_TSTAT_SIZE &&
                v.len != WIRE_TSTAT_SIZE_OLD)
                return fail(WIRE_EFIELD, err, errlen,
                            "TIME_STATUS: values[%" PRIu32 "].len %" PRIu32 " is not %u (or %u)",
                            it.index - 1, v.len, WIRE_TSTAT_SIZE, WIRE_TSTAT_SIZE_OLD);
            s += 8 + (uint64_t)v.len;
        }
        /* A hand-made raw form must hold exactly nvalues values and nothing more. */
        if (it.index != m->nvalues || (!m->values && it.off != m->values_raw_len))
            return fail(WIRE_EUSAGE, err, errlen,
                        "%s: raw values hold %" PRIu32 " values in %zu of %zu bytes, nvalues "
                        "is %" PRIu32,
                        l->name, it.index, it.off, m->values_raw_len, m->nvalues);
    }
    if (l->fields & L_HANDLES) s += 4 + 4 * (uint64_t)m->nhandles;
    *size = s;
    return WIRE_OK;
}

static uint8_t *put_str(uint8_t *p, const struct wire_str *s)
{
    put_u32(p, s->len);
    if (s->len) memcpy(p + 4, s->ptr, s->len);
    return p + 4 + s->len;
}

int wire_encode(struct buf *out, const struct wire_msg *m, uint32_t max_frame, char *err,
                size_t errlen)
{
    if (!out || !m) return fail(WIRE_EUSAGE, err, errlen, "wire_encode: NULL argument");
    if (max_frame == 0) max_frame = WIRE_MAX_FRAME_DEFAULT;
    if (max_frame < WIRE_MAX_FRAME_MIN) max_frame = WIRE_MAX_FRAME_MIN; /* as wire_split */
    const struct layout *l = layout_of(m->type);
    if (!l) return fail(WIRE_ETYPE, err, errlen, "encode: unknown type %u", (unsigned)m->type);
    if (m->flags) return fail(WIRE_EFLAGS, err, errlen, "%s: flags must be 0", l->name);
    int rc = check_fields(l, m, err, errlen);
    if (rc) return rc;
    uint64_t body = 0;
    rc = body_size(l, m, &body, err, errlen);
    if (rc) return rc;
    if (body > (uint64_t)max_frame - WIRE_HEADER_SIZE)
        return fail(WIRE_ETOOBIG, err, errlen,
                    "%s: frame of %" PRIu64 " bytes over the limit %" PRIu32, l->name,
                    body + WIRE_HEADER_SIZE, max_frame);
    size_t total = (size_t)body + WIRE_HEADER_SIZE;
    if (buf_reserve(out, total) != 0)
        return fail(WIRE_ENOMEM, err, errlen, "%s: cannot grow output by %zu bytes", l->name,
                    total);

    uint8_t *p = out->data + out->len;
    put_u32(p, (uint32_t)body);
    put_u16(p + 4, m->type);
    put_u16(p + 6, 0);
    p += WIRE_HEADER_SIZE;
    if (l->fields & L_REQ) put_u32(p, m->req), p += 4;
    if (l->fields & L_CODE) put_u32(p, m->code), p += 4;
    if (l->fields & L_A) put_u64(p, m->a), p += 8;
    if (l->fields & L_B) put_u64(p, m->b), p += 8;
    if (l->fields & L_C) put_u64(p, m->c), p += 8;
    if (l->fields & L_TIME) put_u64(p, i64_bits(m->time)), p += 8;
    if (l->fields & L_TIME2) put_u64(p, i64_bits(m->time2)), p += 8;
    for (int i = 0; i < WIRE_MAX_STRS; i++)
        if (l->str[i] != S_NONE) p = put_str(p, &m->str[i]);
    if (l->fields & L_VALUES) {
        put_u32(p, m->nvalues);
        p += 4;
        struct wire_value_iter it;
        struct wire_value v;
        wire_value_iter_init(&it, m);
        while (wire_value_next(&it, &v)) {
            put_u32(p, v.handle);
            put_u32(p + 4, v.len);
            if (v.len) memcpy(p + 8, v.data, v.len);
            p += 8 + v.len;
        }
    }
    if (l->fields & L_HANDLES) {
        put_u32(p, m->nhandles);
        p += 4;
        for (uint32_t i = 0; i < m->nhandles; i++, p += 4)
            put_u32(p, wire_msg_handle(m, i));
    }
    /* Invariant: the size computed above is exactly what was written. */
    if ((size_t)(p - (out->data + out->len)) != total)
        return fail(WIRE_EUSAGE, err, errlen, "%s: internal size mismatch", l->name);
    out->len += total;
    return WIRE_OK;
}

/* ======================================================================================
 * Splitter and decoder
 * ====================================================================================== */

int wire_split(const uint8_t *p, size_t n, uint32_t max_frame, size_t *frame_len, char *err,
               size_t errlen)
{
    if (max_frame == 0) max_frame = WIRE_MAX_FRAME_DEFAULT;
    if (max_frame < WIRE_MAX_FRAME_MIN) max_frame = WIRE_MAX_FRAME_MIN;
    if (n < WIRE_HEADER_SIZE || !p) return 0;
    uint32_t body = get_u32(p);
    if (body > max_frame - WIRE_HEADER_SIZE)
        return fail(WIRE_ETOOBIG, err, errlen,
                    "frame header announces %" PRIu32 " body bytes (type %u %s), over the limit "
                    "of %" PRIu32 " bytes per frame",
                    body, (unsigned)get_u16(p + 4), wire_type_name(get_u16(p + 4)), max_frame);
    size_t total = (size_t)body + WIRE_HEADER_SIZE;
    if (frame_len) *frame_len = total;
    return n >= total;
}

/* Bounds-checked reader over one frame. Offsets in messages count from the frame start. */
struct reader {
    const uint8_t *p; /* frame start */
    size_t end;       /* frame length (header + body) */
    size_t off;       /* next byte to read */
    const char *tname;
    char *err;
    size_t errlen;
};

static int need(struct reader *r, size_t n, const char *field, int idx)
{
    if (n <= r->end - r->off) return WIRE_OK;
    char fname[48];
    if (idx >= 0)
        snprintf(fname, sizeof fname, "%s[%d]", field, idx);
    else
        snprintf(fname, sizeof fname, "%s", field);
    return fail(WIRE_ETRUNC, r->err, r->errlen,
                "%s: field %s needs %zu bytes at offset %zu, only %zu left in the frame", r->tname,
                fname, n, r->off, r->end - r->off);
}

/* The bytes are there in every frame but a bad one: the check inline, need()'s message only
 * when it fails. */
static int rd_u32(struct reader *r, const char *field, uint32_t *v)
{
    if (r->end - r->off < 4) return need(r, 4, field, -1);
    *v = get_u32(r->p + r->off);
    r->off += 4;
    return WIRE_OK;
}

static int rd_u64(struct reader *r, const char *field, uint64_t *v)
{
    if (r->end - r->off < 8) return need(r, 8, field, -1);
    *v = get_u64(r->p + r->off);
    r->off += 8;
    return WIRE_OK;
}

static int rd_str(struct reader *r, int i, int kind, struct wire_str *s)
{
    uint32_t len;
    int rc = need(r, 4, "str.len", i);
    if (rc) return rc;
    len = get_u32(r->p + r->off);
    size_t at = r->off;
    r->off += 4;
    if (len > r->end - r->off)
        return fail(WIRE_ETRUNC, r->err, r->errlen,
                    "%s: str%d length %" PRIu32 " at offset %zu overruns the frame (%zu bytes "
                    "left)",
                    r->tname, i, len, at, r->end - r->off);
    s->ptr = len ? (const char *)r->p + r->off : NULL;
    s->len = len;
    if (kind == S_TEXT && len && memchr(s->ptr, 0, len))
        return fail(WIRE_EFIELD, r->err, r->errlen, "%s: str%d at offset %zu holds a NUL byte",
                    r->tname, i, at);
    r->off += len;
    return WIRE_OK;
}

static int rd_values(struct reader *r, struct wire_msg *m)
{
    uint32_t count;
    size_t at = r->off;
    int rc = rd_u32(r, "values.count", &count);
    if (rc) return rc;
    /* Each value needs at least its 8-byte head: refuse an impossible count before walking. */
    if (count > (r->end - r->off) / 8)
        return fail(WIRE_ETRUNC, r->err, r->errlen,
                    "%s: values.count %" PRIu32 " at offset %zu overruns the frame (%zu bytes "
                    "left)",
                    r->tname, count, at, r->end - r->off);
    size_t start = r->off;
    for (uint32_t i = 0; i < count; i++) {
        rc = need(r, 8, "values.head", (int)i);
        if (rc) return rc;
        uint32_t len = get_u32(r->p + r->off + 4);
        size_t vat = r->off;
        r->off += 8;
        if (len > r->end - r->off)
            return fail(WIRE_ETRUNC, r->err, r->errlen,
                        "%s: values[%" PRIu32 "].len %" PRIu32 " at offset %zu overruns the "
                        "frame (%zu bytes left)",
                        r->tname, i, len, vat + 4, r->end - r->off);
        if (m->type == WIRE_TIME_STATUS && len != WIRE_TSTAT_SIZE && len != WIRE_TSTAT_SIZE_OLD)
            return fail(WIRE_EFIELD, r->err, r->errlen,
                        "TIME_STATUS: values[%" PRIu32 "].len %" PRIu32
                        " at offset %zu is not %u (or %u)",
                        i, len, vat + 4, WIRE_TSTAT_SIZE, WIRE_TSTAT_SIZE_OLD);
        r->off += len;
    }
    m->nvalues = count;
    m->values_raw = r->p + start;
    m->values_raw_len = r->off - start;
    return WIRE_OK;
}

static int rd_handles(struct reader *r, struct wire_msg *m)
{
    uint32_t count;
    size_t at = r->off;
    int rc = rd_u32(r, "handles.count", &count);
    if (rc) return rc;
    if (count > (r->end - r->off) / 4)
        return fail(WIRE_ETRUNC, r->err, r->errlen,
                    "%s: handles.count %" PRIu32 " at offset %zu overruns the frame (%zu bytes "
                    "left)",
                    r->tname, count, at, r->end - r->off);
    m->nhandles = count;
    m->handles_raw = r->p + r->off;
    r->off += 4 * (size_t)count;
    return WIRE_OK;
}

/* Read the body fields of a frame whose header is already checked. */
static int decode_body(struct reader *r, const struct layout *l, struct wire_msg *m)
{
    int rc = WIRE_OK;
    uint64_t t;
    if (l->fields & L_REQ && (rc = rd_u32(r, "req", &m->req))) return rc;
    if (l->fields & L_CODE) {
        size_t at = r->off;
        if ((rc = rd_u32(r, "code", &m->code))) return rc;
        if (m->code < l->code_min || m->code > l->code_max)
            return fail(WIRE_EFIELD, r->err, r->errlen,
                        "%s: code %" PRIu32 " at offset %zu outside %" PRIu32 "..%" PRIu32, l->name,
                        m->code, at, l->code_min, l->code_max);
    }
    if (l->fields & L_A && (rc = rd_u64(r, "a", &m->a))) return rc;
    if (l->fields & L_B && (rc = rd_u64(r, "b", &m->b))) return rc;
    if (l->fields & L_C && (rc = rd_u64(r, "c", &m->c))) return rc;
    if (l->fields & L_TIME) {
        if ((rc = rd_u64(r, "time", &t))) return rc;
        m->time = bits_i64(t);
    }
    if (l->fields & L_TIME2) {
        if ((rc = rd_u64(r, "time2", &t))) return rc;
        m->time2 = bits_i64(t);
    }
    for (int i = 0; i < WIRE_MAX_STRS; i++)
        if (l->str[i] != S_NONE && (rc = rd_str(r, i, l->str[i], &m->str[i]))) return rc;
    if (l->fields & L_VALUES && (rc = rd_values(r, m))) return rc;
    if (l->fields & L_HANDLES && (rc = rd_handles(r, m))) return rc;
    if (m->type == WIRE_HELLO &&
        (m->str[0].len != WIRE_MAGIC_LEN || memcmp(m->str[0].ptr, WIRE_MAGIC, WIRE_MAGIC_LEN)))
        return fail(WIRE_EFIELD, r->err, r->errlen,
                    "HELLO: bad magic (str0 must be the 4 bytes \"TMPO\")");
    if (r->off != r->end)
        return fail(WIRE_ETRAIL, r->err, r->errlen,
                    "%s: %zu trailing bytes after the last field at offset %zu", l->name,
                    r->end - r->off, r->off);
    return WIRE_OK;
}

int wire_decode(const uint8_t *frame, size_t len, struct wire_msg *m, char *err, size_t errlen)
{
    if (!m) return fail(WIRE_EUSAGE, err, errlen, "wire_decode: NULL message");
    wire_msg_init(m, 0);
    if (len < WIRE_HEADER_SIZE || !frame)
        return fail(WIRE_ETRUNC, err, errlen,
                    "frame of %zu bytes is shorter than the %u-byte "
                    "header",
                    len, WIRE_HEADER_SIZE);
    uint32_t body = get_u32(frame);
    unsigned type = get_u16(frame + 4);
    uint16_t flags = get_u16(frame + 6);
    const struct layout *l = layout_of(type);
    if (!l) return fail(WIRE_ETYPE, err, errlen, "unknown message type %u at offset 4", type);
    if ((uint64_t)body + WIRE_HEADER_SIZE > len)
        return fail(WIRE_ETRUNC, err, errlen,
                    "%s: header announces %" PRIu32 " body bytes, only %zu present", l->name, body,
                    len - WIRE_HEADER_SIZE);
    if ((uint64_t)body + WIRE_HEADER_SIZE < len)
        return fail(WIRE_ETRAIL, err, errlen,
                    "%s: %zu bytes given past the %" PRIu32 "-byte body announced by the header",
                    l->name, len - WIRE_HEADER_SIZE - body, body);
    if (flags)
        return fail(WIRE_EFLAGS, err, errlen, "%s: reserved flags 0x%04x at offset 6 are set",
                    l->name, (unsigned)flags);
    m->type = (uint16_t)type;
    struct reader r = {frame, len, WIRE_HEADER_SIZE, l->name, err, errlen};
    int rc = decode_body(&r, l, m);
    if (rc) {
        unsigned keep = m->type;
        wire_msg_init(m, keep);
    }
    return rc;
}

/* ======================================================================================
 * Value and handle access
 * ====================================================================================== */

void wire_value_iter_init(struct wire_value_iter *it, const struct wire_msg *m)
{
    it->msg = m;
    it->index = 0;
    it->off = 0;
}

int wire_value_next(struct wire_value_iter *it, struct wire_value *out)
{
    const struct wire_msg *m = it->msg;
    if (it->index >= m->nvalues) return 0;
    if (m->values) {
        *out = m->values[it->index++];
        return 1;
    }
    /* Decoded form: the decoder validated every head and length, but stay defensive so a
     * hand-built raw form cannot make us read past values_raw_len. */
    if (!m->values_raw || it->off > m->values_raw_len || m->values_raw_len - it->off < 8) return 0;
    const uint8_t *p = m->values_raw + it->off;
    uint32_t len = get_u32(p + 4);
    if (len > m->values_raw_len - it->off - 8) return 0;
    out->handle = get_u32(p);
    out->len = len;
    out->data = p + 8;
    it->off += 8 + (size_t)len;
    it->index++;
    return 1;
}

uint32_t wire_msg_values(const struct wire_msg *m, struct wire_value *out, uint32_t cap)
{
    struct wire_value_iter it;
    struct wire_value v;
    uint32_t i = 0;
    wire_value_iter_init(&it, m);
    while (i < cap && wire_value_next(&it, &v))
        out[i++] = v;
    return m->nvalues;
}

uint32_t wire_msg_handle(const struct wire_msg *m, uint32_t i)
{
    if (i >= m->nhandles) return 0;
    if (m->handles) return m->handles[i];
    if (m->handles_raw) return get_u32(m->handles_raw + 4 * (size_t)i);
    return 0;
}

int wire_str_copy(const struct wire_str *s, char *dst, size_t cap)
{
    if (cap == 0) return -1;
    size_t n = s->len;
    int rc = 0;
    if (n > cap - 1) {
        n = cap - 1;
        rc = -1;
    }
    if (n) memcpy(dst, s->ptr, n);
    dst[n] = '\0';
    return rc;
}

int wire_str_set(struct wire_str *s, const char *cstr)
{
    size_t n = cstr ? strlen(cstr) : 0;
    if (n > UINT32_MAX) return -1;
    s->ptr = n ? cstr : NULL;
    s->len = (uint32_t)n;
    return 0;
}

int wire_str_eq(const struct wire_str *s, const char *cstr)
{
    size_t n = cstr ? strlen(cstr) : 0;
    return n == s->len && (n == 0 || memcmp(s->ptr, cstr, n) == 0);
}

/* ======================================================================================
 * TIME_STATUS records
 * ====================================================================================== */

void wire_tstat_pack(const struct wire_tstat *t, uint8_t out[WIRE_TSTAT_SIZE])
{
    uint8_t *p = out;
    put_u64(p, t->federate), p += 8;
    put_u64(p, i64_bits(t->time)), p += 8;
    put_u32(p, t->req_kind), p += 4;
    put_u64(p, i64_bits(t->req_time)), p += 8;
    put_u64(p, i64_bits(t->bound)), p += 8;
    *p++ = t->bound_strict ? 1 : 0;
    put_u64(p, i64_bits(t->galt)), p += 8;
    *p++ = t->galt_strict ? 1 : 0;
    put_u64(p, t->holder), p += 8;
    put_u64(p, i64_bits(t->lits)), p += 8;
    put_u64(p, t->root), p += 8;
    put_u32(p, t->polls), p += 4;
    put_u64(p, t->waits_for);
}

int wire_tstat_unpack(const uint8_t *p, size_t len, struct wire_tstat *t, char *err, size_t errlen)
{
    if ((len != WIRE_TSTAT_SIZE && len != WIRE_TSTAT_SIZE_OLD) || !p)
        return fail(WIRE_EFIELD, err, errlen, "TIME_STATUS record of %zu bytes, want %u (or %u)",
                    len, WIRE_TSTAT_SIZE, WIRE_TSTAT_SIZE_OLD);
    t->federate = get_u64(p), p += 8;
    t->time = bits_i64(get_u64(p)), p += 8;
    t->req_kind = get_u32(p), p += 4;
    t->req_time = bits_i64(get_u64(p)), p += 8;
    t->bound = bits_i64(get_u64(p)), p += 8;
    t->bound_strict = *p++;
    t->galt = bits_i64(get_u64(p)), p += 8;
    t->galt_strict = *p++;
    t->holder = get_u64(p), p += 8;
    t->lits = bits_i64(get_u64(p)), p += 8;
    t->root = get_u64(p), p += 8;
    t->polls = 0, t->waits_for = 0;
    if (len == WIRE_TSTAT_SIZE) t->polls = get_u32(p), t->waits_for = get_u64(p + 4);
    if (t->bound_strict > 1 || t->galt_strict > 1)
        return fail(WIRE_EFIELD, err, errlen, "TIME_STATUS record: strict flag not 0 or 1");
    if (t->req_kind > WIRE_TR_FQR)
        return fail(WIRE_EFIELD, err, errlen,
                    "TIME_STATUS record: request kind %" PRIu32 " unknown", t->req_kind);
    return WIRE_OK;
}

/* ======================================================================================
 * Hex sample for log lines
 * ====================================================================================== */

char *wire_hex_sample(const uint8_t *p, size_t n, char *out, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    char tmp[WIRE_HEX_BUFSZ];
    size_t shown = n < WIRE_HEX_MAX ? n : WIRE_HEX_MAX;
    if (!p) shown = 0;
    size_t k = (size_t)snprintf(tmp, sizeof tmp, "len=%zu hex=", n);
    for (size_t i = 0; i < shown; i++) {
        tmp[k++] = hex[p[i] >> 4];
        tmp[k++] = hex[p[i] & 15];
        if (i + 1 < shown) tmp[k++] = ' ';
    }
    memcpy(tmp + k, " ascii=", 7);
    k += 7;
    for (size_t i = 0; i < shown; i++)
        tmp[k++] = (p[i] >= 0x20 && p[i] < 0x7f) ? (char)p[i] : '.';
    tmp[k] = '\0';
    if (n > shown) snprintf(tmp + k, sizeof tmp - k, " (+%zu more)", n - shown);
    if (cap > 0) snprintf(out, cap, "%s", tmp);
    return out;
}
