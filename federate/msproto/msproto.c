/* The master-slave protocol's codec and FOM (federate/msproto/msproto.h, doc/master.md).
 * Fixed little-endian layouts with the counts up front, so that a decoder checks the length
 * once against the counts and then reads without further bounds tests. Doubles travel as
 * their IEEE 754 bits: a value crosses the wire unchanged, which is what makes a distributed
 * run bit-identical to the one-process run. */
#include "federate/msproto/msproto.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/config/fedfile.h"
#include "federate/config/fedfile_algo.h"

#define CMD_HEAD   26 /* version, kind, seq, t, arg, n_v, n_tv */
#define REPLY_HEAD 36 /* version, kind, seq, status, t, event, n_sub_done, n_v, n_tv, msg_len */

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

static const char *const KIND_NAMES[] = {
    "?",
    "set-inputs",
    "step",
    "get-outputs",
    "get-output-derivs",
    "get-discrete",
    "set-discrete",
    "get-states",
    "set-states",
    "get-derivatives",
    "get-directional",
    "save",
    "restore",
    "record",
    "close",
    "end",
    "hello",
    "share",
};

const char *msproto_kind_name(int kind)
{
    if (kind < 1 || kind > MSP_KIND_MAX) return "?";
    return KIND_NAMES[kind];
}

/* ---- little-endian primitives ------------------------------------------------------------ */

static void put_u16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}
static void put_u32(unsigned char *p, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        p[k] = (unsigned char)(v >> (8 * k));
}
static void put_u64(unsigned char *p, uint64_t v)
{
    for (int k = 0; k < 8; k++)
        p[k] = (unsigned char)(v >> (8 * k));
}
static uint16_t get_u16(const unsigned char *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}
static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int k = 3; k >= 0; k--)
        v = (v << 8) | p[k];
    return v;
}
static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--)
        v = (v << 8) | p[k];
    return v;
}
static void put_f64(unsigned char *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    put_u64(p, u);
}
static double get_f64(const unsigned char *p)
{
    uint64_t u = get_u64(p);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

size_t msproto_cmd_size(size_t n_v, size_t n_tv)
{
    return CMD_HEAD + 8 * (n_v + n_tv);
}
size_t msproto_reply_size(size_t n_v, size_t n_tv, size_t msg_len)
{
    return REPLY_HEAD + 8 * (n_v + n_tv) + (msg_len > MSPROTO_MAX_MSG ? MSPROTO_MAX_MSG : msg_len);
}

/* ---- batches ----------------------------------------------------------------------------- */

/* The first record of a batch: its header's counts give its size, checked against what is
 * left, so a batch splits without decoding (doc/master.md "Batches"). */
static int span(const unsigned char *b, size_t len, size_t head, size_t *n, const char *what,
                char *err, size_t errlen)
{
    if (len < head)
        return fail(err, errlen, MSPROTO_EMALFORMED,
                    "%s of %zu bytes, shorter than its %zu-byte header", what, len, head);
    if (b[0] != MSPROTO_VERSION)
        return fail(err, errlen, MSPROTO_EMALFORMED, "byte 0: version %u, expected %d", b[0],
                    MSPROTO_VERSION);
    size_t at = head == CMD_HEAD ? 18 : 26;
    uint32_t nv = get_u32(b + at), nt = get_u32(b + at + 4);
    uint16_t ml = head == CMD_HEAD ? 0 : get_u16(b + 34);
    if (nv > MSPROTO_MAX_VALUES || nt > MSPROTO_MAX_VALUES || ml > MSPROTO_MAX_MSG)
        return fail(err, errlen, MSPROTO_EMALFORMED,
                    "%s header: %u values, %u times, a %u-byte message (at most %d, %d, %d)", what,
                    nv, nt, ml, MSPROTO_MAX_VALUES, MSPROTO_MAX_VALUES, MSPROTO_MAX_MSG);
    size_t need = head + 8 * ((size_t)nv + nt) + ml;
    if (need > len)
        return fail(err, errlen, MSPROTO_EMALFORMED, "%s of %zu bytes; %zu bytes are left", what,
                    need, len);
    *n = need;
    return MSPROTO_OK;
}

int msproto_cmd_span(const void *buf, size_t len, size_t *n, char *err, size_t errlen)
{
    if (!n || (!buf && len))
        return fail(err, errlen, MSPROTO_EUSAGE, "msproto_cmd_span: NULL argument");
    return span(buf, len, CMD_HEAD, n, "command", err, errlen);
}

int msproto_reply_span(const void *buf, size_t len, size_t *n, char *err, size_t errlen)
{
    if (!n || (!buf && len))
        return fail(err, errlen, MSPROTO_EUSAGE, "msproto_reply_span: NULL argument");
    return span(buf, len, REPLY_HEAD, n, "reply", err, errlen);
}

/* ---- commands ---------------------------------------------------------------------------- */

/* What each kind carries: its arg range and which arrays. */
int msproto_cmd_check(const msproto_cmd *c, char *err, size_t errlen)
{
    const char *k = msproto_kind_name((int)c->kind);
    int none = c->n_v == 0 && c->n_tv == 0;
    if (c->kind < 1 || c->kind > MSP_KIND_MAX)
        return fail(err, errlen, MSPROTO_EMALFORMED, "unknown command kind %d", (int)c->kind);
    if (c->n_v > MSPROTO_MAX_VALUES || c->n_tv > MSPROTO_MAX_VALUES)
        return fail(err, errlen, MSPROTO_EMALFORMED, "%s: %zu values and %zu times (at most %d)", k,
                    c->n_v, c->n_tv, MSPROTO_MAX_VALUES);
    switch (c->kind) {
    case MSP_SET_INPUTS:
        if (c->arg < 0 || c->arg > PORT_MAX_ORDER)
            return fail(err, errlen, MSPROTO_EMALFORMED, "%s: order %d is not 0..%d", k,
                        (int)c->arg, PORT_MAX_ORDER);
        if (c->n_tv || c->n_v % (size_t)(c->arg + 1))
            return fail(err, errlen, MSPROTO_EMALFORMED,
                        "%s: %zu coefficients are not a multiple of order + 1 = %d", k, c->n_v,
                        (int)c->arg + 1);
        return MSPROTO_OK;
    case MSP_STEP:
        if (c->arg < 0 || c->arg > MSPROTO_MAX_VALUES || !none)
            return fail(err, errlen, MSPROTO_EMALFORMED, "%s: %d sub-steps, %zu values", k,
                        (int)c->arg, c->n_v + c->n_tv);
        return MSPROTO_OK;
    case MSP_GET_OUTPUT_DERIVS:
        if (c->arg < 1 || c->arg > PORT_MAX_ORDER || !none)
            return fail(err, errlen, MSPROTO_EMALFORMED, "%s: order %d is not 1..%d", k,
                        (int)c->arg, PORT_MAX_ORDER);
        return MSPROTO_OK;
    case MSP_SET_DISCRETE:
        if (c->n_v != c->n_tv || c->arg)
            return fail(err, errlen, MSPROTO_EMALFORMED, "%s: %zu values but %zu event times", k,
                        c->n_v, c->n_tv);
        return MSPROTO_OK;
    case MSP_SET_STATES:
    case MSP_GET_DIRECTIONAL:
        if (c->n_tv || c->arg)
            return fail(err, errlen, MSPROTO_EMALFORMED, "%s: carries no times or argument", k);
        return MSPROTO_OK;
    case MSP_SAVE:
    case MSP_RESTORE:
        if (c->arg < 0 || c->arg >= PORT_SLOTS || !none)
            return fail(err, errlen, MSPROTO_EMALFORMED, "%s: slot %d is not 0..%d", k, (int)c->arg,
                        PORT_SLOTS - 1);
        return MSPROTO_OK;
    default: /* get-outputs, get-discrete, get-states, get-derivatives, record, close, end */
        if (!none || c->arg)
            return fail(err, errlen, MSPROTO_EMALFORMED, "%s: carries no values or argument", k);
        return MSPROTO_OK;
    }
}

int msproto_cmd_encode(const msproto_cmd *c, unsigned char *out, size_t cap, size_t *len, char *err,
                       size_t errlen)
{
    if (!c || !out || !len || (c->n_v && !c->v) || (c->n_tv && !c->tv))
        return fail(err, errlen, MSPROTO_EUSAGE, "msproto_cmd_encode: NULL argument");
    int rc = msproto_cmd_check(c, err, errlen);
    if (rc) return rc;
    size_t need = msproto_cmd_size(c->n_v, c->n_tv);
    if (cap < need)
        return fail(err, errlen, MSPROTO_ESPACE, "%zu bytes needed, %zu given", need, cap);
    out[0] = MSPROTO_VERSION;
    out[1] = (unsigned char)c->kind;
    put_u32(out + 2, c->seq);
    put_u64(out + 6, (uint64_t)c->t);
    put_u32(out + 14, (uint32_t)c->arg);
    put_u32(out + 18, (uint32_t)c->n_v);
    put_u32(out + 22, (uint32_t)c->n_tv);
    unsigned char *p = out + CMD_HEAD;
    for (size_t i = 0; i < c->n_v; i++, p += 8)
        put_f64(p, c->v[i]);
    for (size_t i = 0; i < c->n_tv; i++, p += 8)
        put_u64(p, (uint64_t)c->tv[i]);
    *len = need;
    return MSPROTO_OK;
}

int msproto_cmd_decode(const void *buf, size_t len, msproto_cmd *c, double *v, size_t cap_v,
                       int64_t *tv, size_t cap_tv, char *err, size_t errlen)
{
    if (!c || (!buf && len))
        return fail(err, errlen, MSPROTO_EUSAGE, "msproto_cmd_decode: NULL argument");
    const unsigned char *b = buf;
    if (len < CMD_HEAD)
        return fail(err, errlen, MSPROTO_EMALFORMED,
                    "command of %zu bytes, shorter than its "
                    "%d-byte header",
                    len, CMD_HEAD);
    if (b[0] != MSPROTO_VERSION)
        return fail(err, errlen, MSPROTO_EMALFORMED, "byte 0: version %u, expected %d", b[0],
                    MSPROTO_VERSION);
    uint32_t nv = get_u32(b + 18), nt = get_u32(b + 22);
    if (nv > MSPROTO_MAX_VALUES || nt > MSPROTO_MAX_VALUES)
        return fail(err, errlen, MSPROTO_EMALFORMED,
                    "bytes 18..25: %u values and %u times "
                    "(at most %d)",
                    nv, nt, MSPROTO_MAX_VALUES);
    if (len != msproto_cmd_size(nv, nt))
        return fail(err, errlen, MSPROTO_EMALFORMED,
                    "command of %zu bytes; its counts (%u values, %u times) make %zu", len, nv, nt,
                    msproto_cmd_size(nv, nt));
    if (nv > cap_v || nt > cap_tv || (nv && !v) || (nt && !tv))
        return fail(err, errlen, MSPROTO_ESPACE, "%u values and %u times, room for %zu and %zu", nv,
                    nt, cap_v, cap_tv);
    *c = (msproto_cmd){.kind = (msproto_kind)b[1],
                       .seq = get_u32(b + 2),
                       .t = (int64_t)get_u64(b + 6),
                       .arg = (int32_t)get_u32(b + 14),
                       .n_v = nv,
                       .v = v,
                       .n_tv = nt,
                       .tv = tv};
    const unsigned char *p = b + CMD_HEAD;
    for (uint32_t i = 0; i < nv; i++, p += 8)
        v[i] = get_f64(p);
    for (uint32_t i = 0; i < nt; i++, p += 8)
        tv[i] = (int64_t)get_u64(p);
    return msproto_cmd_check(c, err, errlen);
}

void msproto_info_encode(const port_slave_info *in, double *v)
{
    v[0] = (double)in->n_in;
    v[1] = (double)in->n_out;
    v[2] = (double)in->n_state;
    v[3] = (double)in->n_discrete;
    v[4] = in->can_save ? 1 : 0;
    v[5] = in->max_output_deriv;
    v[6] = in->has_state_derivs ? 1 : 0;
    v[7] = in->has_directional ? 1 : 0;
    v[8] = in->is_me ? 1 : 0;
}

int msproto_info_decode(const double *v, port_slave_info *out, char *err, size_t errlen)
{
    for (int k = 0; k < MSPROTO_INFO_N; k++) {
        double lim = (k == 5) ? PORT_MAX_ORDER : (k >= 4 ? 1 : MSPROTO_MAX_VALUES);
        if (!(v[k] >= 0 && v[k] <= lim) || v[k] != (double)(long)v[k])
            return fail(err, errlen, MSPROTO_EMALFORMED,
                        "hello reply: field %d is %g, "
                        "expected a whole number 0..%g",
                        k, v[k], lim);
    }
    out->n_in = (size_t)v[0];
    out->n_out = (size_t)v[1];
    out->n_state = (size_t)v[2];
    out->n_discrete = (size_t)v[3];
    out->can_save = (int)v[4];
    out->max_output_deriv = (int)v[5];
    out->has_state_derivs = (int)v[6];
    out->has_directional = (int)v[7];
    out->is_me = (int)v[8];
    return MSPROTO_OK;
}

size_t msproto_info_map_encode(const port_slave_info *in, double *v)
{
    for (size_t k = 0; k < in->n_out; k++)
        v[k] = in->out_state && in->out_state[k] >= 0 ? (double)in->out_state[k] + 1 : 0;
    return in->n_out;
}

int msproto_info_map_decode(const double *v, size_t n_out, size_t n_state, long *out, char *err,
                            size_t errlen)
{
    for (size_t k = 0; k < n_out; k++) {
        if (!(v[k] >= 0 && v[k] <= (double)n_state) || v[k] != (double)(long)v[k])
            return fail(err, errlen, MSPROTO_EMALFORMED,
                        "hello reply: output %zu's state is %g, expected a whole number 0..%zu", k,
                        v[k], n_state);
        out[k] = (long)v[k] - 1;
    }
    return MSPROTO_OK;
}

/* ---- replies ----------------------------------------------------------------------------- */

static int reply_check(const msproto_reply *r, char *err, size_t errlen)
{
    if (r->kind < 1 || r->kind > MSP_KIND_MAX)
        return fail(err, errlen, MSPROTO_EMALFORMED, "reply to unknown command kind %d",
                    (int)r->kind);
    if (r->status < PORT_ENOMEM || r->status > PORT_TERMINATED)
        return fail(err, errlen, MSPROTO_EMALFORMED, "reply status %d is not a port status",
                    (int)r->status);
    if ((r->event != 0 && r->event != 1) || r->n_sub_done < 0)
        return fail(err, errlen, MSPROTO_EMALFORMED, "reply: event %d, %d sub-steps done",
                    (int)r->event, (int)r->n_sub_done);
    if (r->n_v > MSPROTO_MAX_VALUES || r->n_tv > MSPROTO_MAX_VALUES)
        return fail(err, errlen, MSPROTO_EMALFORMED, "reply: %zu values and %zu times", r->n_v,
                    r->n_tv);
    if (r->kind == MSP_GET_DISCRETE || r->kind == MSP_SHARE ? r->n_tv != r->n_v : r->n_tv != 0)
        return fail(err, errlen, MSPROTO_EMALFORMED, "reply to %s: %zu values, %zu times",
                    msproto_kind_name((int)r->kind), r->n_v, r->n_tv);
    return MSPROTO_OK;
}

int msproto_reply_encode(const msproto_reply *r, unsigned char *out, size_t cap, size_t *len,
                         char *err, size_t errlen)
{
    if (!r || !out || !len || (r->n_v && !r->v) || (r->n_tv && !r->tv))
        return fail(err, errlen, MSPROTO_EUSAGE, "msproto_reply_encode: NULL argument");
    int rc = reply_check(r, err, errlen);
    if (rc) return rc;
    size_t ml = r->msg ? strlen(r->msg) : 0;
    if (ml > MSPROTO_MAX_MSG) ml = MSPROTO_MAX_MSG;
    size_t need = msproto_reply_size(r->n_v, r->n_tv, ml);
    if (cap < need)
        return fail(err, errlen, MSPROTO_ESPACE, "%zu bytes needed, %zu given", need, cap);
    out[0] = MSPROTO_VERSION;
    out[1] = (unsigned char)r->kind;
    put_u32(out + 2, r->seq);
    put_u32(out + 6, (uint32_t)r->status);
    put_u64(out + 10, (uint64_t)r->t);
    put_u32(out + 18, (uint32_t)r->event);
    put_u32(out + 22, (uint32_t)r->n_sub_done);
    put_u32(out + 26, (uint32_t)r->n_v);
    put_u32(out + 30, (uint32_t)r->n_tv);
    put_u16(out + 34, (uint16_t)ml);
    unsigned char *p = out + REPLY_HEAD;
    for (size_t i = 0; i < r->n_v; i++, p += 8)
        put_f64(p, r->v[i]);
    for (size_t i = 0; i < r->n_tv; i++, p += 8)
        put_u64(p, (uint64_t)r->tv[i]);
    if (ml) memcpy(p, r->msg, ml);
    *len = need;
    return MSPROTO_OK;
}

int msproto_reply_decode(const void *buf, size_t len, msproto_reply *r, double *v, size_t cap_v,
                         int64_t *tv, size_t cap_tv, char *msg, size_t msg_cap, char *err,
                         size_t errlen)
{
    if (!r || (!buf && len) || !msg || msg_cap < MSPROTO_MAX_MSG + 1)
        return fail(err, errlen, MSPROTO_EUSAGE, "msproto_reply_decode: bad argument");
    const unsigned char *b = buf;
    if (len < REPLY_HEAD)
        return fail(err, errlen, MSPROTO_EMALFORMED,
                    "reply of %zu bytes, shorter than its "
                    "%d-byte header",
                    len, REPLY_HEAD);
    if (b[0] != MSPROTO_VERSION)
        return fail(err, errlen, MSPROTO_EMALFORMED, "byte 0: version %u, expected %d", b[0],
                    MSPROTO_VERSION);
    uint32_t nv = get_u32(b + 26), nt = get_u32(b + 30);
    uint16_t ml = get_u16(b + 34);
    if (nv > MSPROTO_MAX_VALUES || nt > MSPROTO_MAX_VALUES || ml > MSPROTO_MAX_MSG)
        return fail(err, errlen, MSPROTO_EMALFORMED,
                    "bytes 26..35: %u values, %u times, a %u-byte message (at most %d, %d, %d)", nv,
                    nt, ml, MSPROTO_MAX_VALUES, MSPROTO_MAX_VALUES, MSPROTO_MAX_MSG);
    if (len != msproto_reply_size(nv, nt, ml))
        return fail(err, errlen, MSPROTO_EMALFORMED, "reply of %zu bytes; its counts make %zu", len,
                    msproto_reply_size(nv, nt, ml));
    if (nv > cap_v || nt > cap_tv || (nv && !v) || (nt && !tv))
        return fail(err, errlen, MSPROTO_ESPACE, "%u values and %u times, room for %zu and %zu", nv,
                    nt, cap_v, cap_tv);
    const unsigned char *p = b + REPLY_HEAD;
    for (uint32_t i = 0; i < nv; i++, p += 8)
        v[i] = get_f64(p);
    for (uint32_t i = 0; i < nt; i++, p += 8)
        tv[i] = (int64_t)get_u64(p);
    if (ml && memchr(p, '\0', ml))
        return fail(err, errlen, MSPROTO_EMALFORMED, "reply message holds a NUL byte");
    memcpy(msg, p, ml);
    msg[ml] = '\0';
    *r = (msproto_reply){.kind = (msproto_kind)b[1],
                         .seq = get_u32(b + 2),
                         .status = (int32_t)get_u32(b + 6),
                         .t = (int64_t)get_u64(b + 10),
                         .event = (int32_t)get_u32(b + 18),
                         .n_sub_done = (int32_t)get_u32(b + 22),
                         .n_v = nv,
                         .v = v,
                         .n_tv = nt,
                         .tv = tv,
                         .msg = msg};
    return reply_check(r, err, errlen);
}

/* ---- the FOM ----------------------------------------------------------------------------- */

void msproto_slave_class(size_t i, char *out, size_t cap)
{
    snprintf(out, cap, "Slave%zu", i);
}
void msproto_command_class(size_t i, char *out, size_t cap)
{
    snprintf(out, cap, "Command%zu", i);
}
void msproto_share_class(size_t i, char *out, size_t cap)
{
    snprintf(out, cap, "Share%zu", i);
}

int msproto_fom_xml(const struct fedfile *ff, char **out, char *err, size_t errlen)
{
    if (!ff || !out) return fail(err, errlen, MSPROTO_EUSAGE, "msproto_fom_xml: NULL argument");
    *out = NULL;
    /* Per federate about 200 bytes; the resolution printed exactly (%.17g reads back). */
    size_t cap = 768 + 256 * ff->n_feds, n = 0;
    char *b = malloc(cap);
    if (!b) return fail(err, errlen, MSPROTO_ENOMEM, "out of memory generating the FOM");
    /* Shortest of %.15g / %.17g that reads back as the same double ("1e-09", not
     * "1.0000000000000001e-09"). */
    char res[40];
    snprintf(res, sizeof res, "%.15g", ff->resolution);
    double back = strtod(res, NULL);
    if (memcmp(&back, &ff->resolution, sizeof back) != 0)
        snprintf(res, sizeof res, "%.17g", ff->resolution);
    n += (size_t)snprintf(b + n, cap - n,
                          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                          "<!-- generated by tempo: the master-slave FOM (doc/master.md) -->\n"
                          "<fom name=\"master_slave\">\n  <time resolution=\"%s\"/>\n"
                          "  <objects>\n",
                          res);
    for (size_t i = 0; i < ff->n_feds; i++)
        n += (size_t)snprintf(b + n, cap - n,
                              "    <class name=\"Slave%zu\"><attribute name=\"" MSPROTO_REPLY_ATTR
                              "\" type=\"bytes\"/></class>\n",
                              i);
    for (size_t i = 0; (ff->algo.needs & FEDFILE_NEEDS_BUS) && i < ff->n_feds; i++)
        n += (size_t)snprintf(b + n, cap - n,
                              "    <class name=\"Share%zu\"><attribute name=\"" MSPROTO_SHARE_ATTR
                              "\" type=\"bytes\"/></class>\n",
                              i);
    n += (size_t)snprintf(b + n, cap - n, "  </objects>\n  <interactions>\n");
    for (size_t i = 0; i < ff->n_feds; i++)
        n += (size_t)snprintf(
            b + n, cap - n,
            "    <interaction name=\"Command%zu\"><parameter name=\"" MSPROTO_BODY_PARAM
            "\" type=\"bytes\"/></interaction>\n",
            i);
    snprintf(b + n, cap - n,
             "    <interaction name=\"" MSPROTO_NOTE_CLASS "\"><parameter name=\"" MSPROTO_NOTE_WHAT
             "\" type=\"string\"/><parameter name=\"" MSPROTO_NOTE_VALUE
             "\" type=\"float64\"/><parameter name=\"" MSPROTO_NOTE_AT
             "\" type=\"float64\"/></interaction>\n  </interactions>\n</fom>\n");
    *out = b;
    return MSPROTO_OK;
}
