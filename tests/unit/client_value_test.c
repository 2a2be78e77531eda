/* Unit tests of libtempo's value encoding helpers, status names and time conversions
 * (federate/libtempo/client_value.c, client_err.c, client_time.c). The reference byte patterns are
 * the IEEE 754 / two's complement encodings written out by hand, not produced by our code.
 * Read doc/api.md ("Value encoding") for the layout checked here. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "federate/libtempo/tempo.h"
#include "tests/check.h"

static void test_float64(void)
{
    /* 1.0 = 0x3FF0000000000000, -2.5 = 0xC004000000000000, little-endian. */
    static const uint8_t one[8] = {0, 0, 0, 0, 0, 0, 0xf0, 0x3f};
    static const uint8_t m25[8] = {0, 0, 0, 0, 0, 0, 0x04, 0xc0};
    uint8_t b[8];
    CHECK_INT_EQ(tp_encode_float64(1.0, b), 8);
    CHECK(memcmp(b, one, 8) == 0, "1.0 encodes as 00..f0 3f");
    tp_encode_float64(-2.5, b);
    CHECK(memcmp(b, m25, 8) == 0, "-2.5 encodes as 00..04 c0");
    double d = 0;
    CHECK_INT_EQ(tp_decode_float64(one, 8, &d), TP_OK);
    CHECK_NEAR(d, 1.0, 0.0);
    CHECK_INT_EQ(tp_decode_float64(m25, 8, &d), TP_OK);
    CHECK_NEAR(d, -2.5, 0.0);
    d = 7;
    CHECK_INT_EQ(tp_decode_float64(one, 7, &d), TP_ESIZE);
    CHECK_INT_EQ(tp_decode_float64(one, 9, &d), TP_ESIZE);
    CHECK_NEAR(d, 7.0, 0.0); /* untouched on error */
    /* round trip of awkward values */
    const double vals[] = {0.1, -0.0, 1e308, 4.9e-324, M_PI};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        tp_encode_float64(vals[i], b);
        tp_decode_float64(b, 8, &d);
        CHECK(memcmp(&d, &vals[i], 8) == 0, "round trip of %g is bit-exact", vals[i]);
    }
}

static void test_int64_bool(void)
{
    static const uint8_t m2[8] = {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    static const uint8_t big[8] = {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};
    uint8_t b[8];
    int64_t v = 0;
    CHECK_INT_EQ(tp_encode_int64(-2, b), 8);
    CHECK(memcmp(b, m2, 8) == 0, "-2 encodes as fe ff .. ff");
    tp_encode_int64(0x0102030405060708ll, b);
    CHECK(memcmp(b, big, 8) == 0, "0x0102030405060708 is little-endian");
    CHECK_INT_EQ(tp_decode_int64(big, 8, &v), TP_OK);
    CHECK_INT_EQ(v, 0x0102030405060708ll);
    CHECK_INT_EQ(tp_decode_int64(big, 4, &v), TP_ESIZE);
    tp_encode_int64(INT64_MIN, b);
    tp_decode_int64(b, 8, &v);
    CHECK(v == INT64_MIN, "INT64_MIN round trip");

    static const uint8_t m3[4] = {0xfd, 0xff, 0xff, 0xff};
    int32_t i32 = 0;
    CHECK_INT_EQ(tp_encode_int32(-3, b), 4);
    CHECK(memcmp(b, m3, 4) == 0, "-3 encodes as fd ff ff ff");
    CHECK_INT_EQ(tp_decode_int32(big, 4, &i32), TP_OK);
    CHECK_INT_EQ(i32, 0x05060708);
    CHECK_INT_EQ(tp_decode_int32(big, 8, &i32), TP_ESIZE);

    int t = -1;
    CHECK_INT_EQ(tp_encode_boolean(5, b), 1);
    CHECK_INT_EQ(b[0], 1);
    tp_encode_boolean(0, b);
    CHECK_INT_EQ(b[0], 0);
    CHECK_INT_EQ(tp_decode_boolean(b, 1, &t), TP_OK);
    CHECK_INT_EQ(t, 0);
    b[0] = 2;
    CHECK_INT_EQ(tp_decode_boolean(b, 1, &t), TP_EINVAL);
    CHECK_INT_EQ(tp_decode_boolean(b, 2, &t), TP_ESIZE);
}

static void test_array_string(void)
{
    double in[3] = {1.0, -2.5, 0.25}, out[3] = {0};
    uint8_t b[24];
    size_t n = 99;
    CHECK_INT_EQ(tp_encode_float64_array(in, 3, b, sizeof b), 24);
    CHECK_INT_EQ(tp_encode_float64_array(in, 3, b, 23), TP_ESIZE);
    CHECK_INT_EQ(b[6], 0xf0); /* first element is 1.0 */
    CHECK_INT_EQ(tp_decode_float64_array(b, 24, out, 3, &n), TP_OK);
    CHECK_INT_EQ(n, 3);
    CHECK(out[0] == 1.0 && out[1] == -2.5 && out[2] == 0.25, "array round trip");
    CHECK_INT_EQ(tp_decode_float64_array(b, 24, out, 2, &n), TP_ESIZE);
    CHECK_INT_EQ(n, 3); /* the count is reported even when the buffer is too small */
    CHECK_INT_EQ(tp_decode_float64_array(b, 23, out, 3, &n), TP_ESIZE);
    CHECK_INT_EQ(tp_decode_float64_array(NULL, 0, NULL, 0, &n), TP_OK);
    CHECK_INT_EQ(n, 0);

    char s[8];
    CHECK_INT_EQ(tp_decode_string("hello", 5, s, sizeof s), TP_OK);
    CHECK_STR_EQ(s, "hello");
    CHECK_INT_EQ(tp_decode_string("hello world", 11, s, sizeof s), TP_ESIZE);
    CHECK_STR_EQ(s, "hello w"); /* truncated, terminated */
    CHECK_INT_EQ(tp_decode_string("a\0b", 3, s, sizeof s), TP_EINVAL);
    CHECK_INT_EQ(tp_decode_string("", 0, s, sizeof s), TP_OK);
    CHECK_STR_EQ(s, "");
    CHECK_INT_EQ(tp_decode_string("x", 1, s, 0), TP_EINVAL);
}

static void test_names_and_time(void)
{
    CHECK_STR_HAS(tp_strerror(TP_EBOUND), "TP_EBOUND");
    CHECK_STR_HAS(tp_strerror(TP_OK), "TP_OK");
    CHECK_STR_HAS(tp_strerror(12345), "unknown");
    CHECK_STR_EQ(tp_last_error(NULL), "");
    /* NULL federate: default resolution 1 ns per tick. */
    CHECK(tp_time_from_seconds(NULL, 1.5) == 1500000000ll, "1.5 s is 1.5e9 ns ticks");
    CHECK(tp_time_from_seconds(NULL, 1e-10) == 0, "rounds to nearest");
    CHECK(tp_time_from_seconds(NULL, 1e30) == TP_TIME_MAX, "saturates");
    CHECK(tp_time_from_seconds(NULL, NAN) == TP_NO_TIME, "NaN is no time");
    CHECK_NEAR(tp_time_to_seconds(NULL, 250000000), 0.25, 1e-15);
    /* doc/time.md "Seconds from ticks": the nearest double to the decimal time, exactly. */
    double s15 = tp_time_to_seconds(NULL, 15000000000ll),
           s99 = tp_time_to_seconds(NULL, 99999000000ll);
    CHECK(memcmp(&s15, &(double){15.0}, sizeof s15) == 0, "15e9 ns gave %.17g", s15);
    CHECK(memcmp(&s99, &(double){99.999}, sizeof s99) == 0, "99.999e9 ns gave %.17g", s99);
    CHECK(isinf(tp_time_to_seconds(NULL, TP_TIME_MAX)), "infinity");
    /* Integer ticks make "the same instant" exact: 10 steps of 0.1 s equal 1 s. */
    tp_time t = 0;
    for (int i = 0; i < 10; i++)
        t += tp_time_from_seconds(NULL, 0.1);
    CHECK(t == tp_time_from_seconds(NULL, 1.0), "10 x 0.1 s == 1 s in ticks");
    /* Calls on a NULL federate fail cleanly. */
    CHECK_INT_EQ(tp_evoke(NULL, 0), TP_EINVAL);
    CHECK_INT_EQ(tp_flush(NULL), TP_EINVAL);
    CHECK_INT_EQ(tp_time_advance_request(NULL, 1), TP_EINVAL);
    tp_federate_free(NULL);
    tp_federate *f = (tp_federate *)1;
    char err[256] = "";
    CHECK_INT_EQ(tp_join(&(tp_join_options){.federation = "x"}, NULL, NULL, &f, err, sizeof err),
                 TP_EINVAL);
    CHECK(f == NULL, "out is NULL after a failed join");
    CHECK_STR_HAS(err, "federate");
    CHECK_INT_EQ(tp_join(&(tp_join_options){.federation = "x",
                                            .federate = "y",
                                            .fom_path = "/nonexistent/fom.xml"},
                         NULL, NULL, &f, err, sizeof err),
                 TP_EFOM);
    CHECK_STR_HAS(err, "/nonexistent/fom.xml");
    /* An endless file is read only up to the FOM size limit (fom_read_file), then refused. */
    CHECK_INT_EQ(
        tp_join(&(tp_join_options){.federation = "x", .federate = "y", .fom_path = "/dev/zero"},
                NULL, NULL, &f, err, sizeof err),
        TP_EFOM);
    CHECK_STR_HAS(err, "/dev/zero: file over the");
    CHECK_INT_EQ(
        tp_join(&(tp_join_options){.federation = "x", .federate = "y", .fom_text = "<notafom"},
                NULL, NULL, &f, err, sizeof err),
        TP_EFOM);
    CHECK_STR_HAS(err, "<fom_text>");
    /* A good FOM but nobody listening: a system error naming the address (a Unix socket
     * path that does not exist: no network in a unit test). */
    CHECK_INT_EQ(tp_join(&(tp_join_options){.federation = "x",
                                            .federate = "y",
                                            .rti = "unix:/nonexistent/tempo.sock",
                                            .fom_path = "fom/demo.xml"},
                         NULL, NULL, &f, err, sizeof err),
                 TP_ESYS);
    CHECK_STR_HAS(err, "/nonexistent/tempo.sock");
    CHECK_INT_EQ(tp_join(&(tp_join_options){.federation = "x",
                                            .federate = "y",
                                            .rti = "nocolon",
                                            .fom_path = "fom/demo.xml"},
                         NULL, NULL, &f, err, sizeof err),
                 TP_ESYS);
    CHECK_STR_HAS(err, "nocolon");
}

/* tp_time_add against the sums written out: exact inside the range, saturated at the ends. */
static void test_time_add(void)
{
    CHECK_INT_EQ(tp_time_add(1, 2), 3);
    CHECK_INT_EQ(tp_time_add(-5, 2), -3);
    CHECK_INT_EQ(tp_time_add(TP_TIME_MAX - 10, 10), TP_TIME_MAX);
    CHECK_INT_EQ(tp_time_add(TP_TIME_MAX - 10, 9), TP_TIME_MAX - 1);
    CHECK_INT_EQ(tp_time_add(TP_TIME_MAX - 10, 11), TP_TIME_MAX);
    CHECK_INT_EQ(tp_time_add(TP_TIME_MAX / 2 + 1, TP_TIME_MAX / 2 + 1), TP_TIME_MAX);
    CHECK_INT_EQ(tp_time_add(TP_TIME_MAX, -1000), TP_TIME_MAX); /* +inf stays +inf */
    CHECK_INT_EQ(tp_time_add(-1000, TP_TIME_MAX), TP_TIME_MAX);
    CHECK_INT_EQ(tp_time_add(-TP_TIME_MAX + 3, -4), -TP_TIME_MAX);
    CHECK_INT_EQ(tp_time_add(TP_NO_TIME, 1), TP_NO_TIME);
    CHECK_INT_EQ(tp_time_add(1, TP_NO_TIME), TP_NO_TIME);
}

int main(void)
{
    test_time_add();
    test_float64();
    test_int64_bool();
    test_array_string();
    test_names_and_time();
    return check_summary();
}
