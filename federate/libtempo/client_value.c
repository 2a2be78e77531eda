/* libtempo value encoding helpers: float64, int64, boolean, float64 arrays and strings in
 * the layout of doc/fom.md ("Value encoding"): little-endian IEEE 754 binary64, two's
 * complement int64 and int32, one byte 0/1 for booleans, raw UTF-8 for strings. Pure functions.
 * Serves doc/fom.md (value types). Read federate/libtempo/client_om.c for where values travel. */
#include <string.h>

#include "federate/libtempo/client_impl.h"

static void put_u64(uint64_t u, uint8_t *p)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(u >> (8 * i));
}

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u |= (uint64_t)p[i] << (8 * i);
    return u;
}

size_t tp_encode_float64(double v, void *out)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    put_u64(u, out);
    return TP_FLOAT64_SIZE;
}

size_t tp_encode_int64(int64_t v, void *out)
{
    put_u64((uint64_t)v, out);
    return TP_INT64_SIZE;
}

size_t tp_encode_int32(int32_t v, void *out)
{
    uint32_t u = (uint32_t)v;
    uint8_t *p = out;
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(u >> (8 * i));
    return TP_INT32_SIZE;
}

int tp_decode_int32(const void *data, size_t size, int32_t *out)
{
    if (size != 4 || !data) return TP_ESIZE;
    const uint8_t *p = data;
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    *out = (int32_t)u;
    return TP_OK;
}

size_t tp_encode_boolean(int v, void *out)
{
    *(uint8_t *)out = v ? 1 : 0;
    return TP_BOOLEAN_SIZE;
}

int tp_encode_float64_array(const double *v, size_t n, void *out, size_t cap)
{
    if (n > (size_t)INT32_MAX / 8 || cap < n * 8) return TP_ESIZE;
    for (size_t i = 0; i < n; i++)
        tp_encode_float64(v[i], (uint8_t *)out + 8 * i);
    return (int)(n * 8);
}

int tp_decode_float64(const void *data, size_t size, double *out)
{
    if (size != 8 || !data) return TP_ESIZE;
    uint64_t u = get_u64(data);
    memcpy(out, &u, 8);
    return TP_OK;
}

int tp_decode_int64(const void *data, size_t size, int64_t *out)
{
    if (size != 8 || !data) return TP_ESIZE;
    *out = (int64_t)get_u64(data);
    return TP_OK;
}

int tp_decode_boolean(const void *data, size_t size, int *out)
{
    if (size != 1 || !data) return TP_ESIZE;
    uint8_t b = *(const uint8_t *)data;
    if (b > 1) return TP_EINVAL;
    *out = b;
    return TP_OK;
}

int tp_decode_float64_array(const void *data, size_t size, double *out, size_t cap, size_t *n)
{
    if (size % 8 != 0 || (size && !data) || !n) return TP_ESIZE;
    *n = size / 8;
    if (cap < *n) return TP_ESIZE;
    for (size_t i = 0; i < *n; i++)
        tp_decode_float64((const uint8_t *)data + 8 * i, 8, &out[i]);
    return TP_OK;
}

int tp_decode_string(const void *data, size_t size, char *out, size_t cap)
{
    if (!out || cap == 0 || (size && !data)) return TP_EINVAL;
    if (size && memchr(data, 0, size)) {
        out[0] = '\0';
        return TP_EINVAL;
    }
    size_t n = size < cap ? size : cap - 1;
    if (n) memcpy(out, data, n);
    out[n] = '\0';
    return size < cap ? TP_OK : TP_ESIZE;
}
