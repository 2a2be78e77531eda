/* Unit test of the RTI text log (rti/server/log.c, doc/contributing.md §9): level names and
 * parsing, the threshold, that a disabled level does not evaluate its arguments, and the line
 * format (time, level, component, federate, message). Read rti/server/log.h for the contract. */
#include "rti/server/log.h"
#include "tests/check.h"

static int evaluated;

static int side_effect(void)
{
    evaluated++;
    return 42;
}

/* Run the macros at threshold lv into a temporary stream; return what was written. */
static void capture(int lv, char *out, size_t cap)
{
    FILE *f = tmpfile();
    CHECK(f != NULL, "tmpfile");
    if (!f) return;
    log_set_stream(f);
    log_set_level(lv);
    LOGE("conn", "alpha", "error %d", side_effect());
    LOGW("fed", "beta", "warn %d", side_effect());
    LOGI("om", NULL, "info %d", side_effect());
    LOGD(NULL, "delta", "debug %d", side_effect());
    LOGT("tm", "eps", "trace %d", side_effect());
    log_set_stream(NULL);
    rewind(f);
    size_t n = fread(out, 1, cap - 1, f);
    out[n] = '\0';
    fclose(f);
}

int main(void)
{
    int lv = -1;
    CHECK_INT_EQ(log_level_parse("error", &lv), 0);
    CHECK_INT_EQ(lv, LOG_LV_ERROR);
    CHECK_INT_EQ(log_level_parse("WARN", &lv), 0);
    CHECK_INT_EQ(lv, LOG_LV_WARN);
    CHECK_INT_EQ(log_level_parse("warning", &lv), 0);
    CHECK_INT_EQ(lv, LOG_LV_WARN);
    CHECK_INT_EQ(log_level_parse("Trace", &lv), 0);
    CHECK_INT_EQ(lv, LOG_LV_TRACE);
    lv = 7;
    CHECK_INT_EQ(log_level_parse("verbose", &lv), -1);
    CHECK_INT_EQ(lv, 7);
    CHECK_INT_EQ(log_level_parse(NULL, &lv), -1);

    /* Threshold warn: error and warn are written, the rest not even evaluated. */
    char buf[4096];
    evaluated = 0;
    capture(LOG_LV_WARN, buf, sizeof buf);
    CHECK_INT_EQ(evaluated, 2);
    CHECK_STR_HAS(buf, "ERROR [conn] alpha: error 42\n");
    CHECK_STR_HAS(buf, "WARN  [fed] beta: warn 42\n");
    CHECK(strstr(buf, "info") == NULL, "info not written at warn: %s", buf);
    /* Each line starts with an ISO-8601 UTC time stamp with milliseconds. */
    CHECK(strlen(buf) > 24 && buf[4] == '-' && buf[10] == 'T' && buf[19] == '.' && buf[23] == 'Z',
          "time stamp format: %.30s", buf);

    /* Threshold trace: all five, NULL component and federate printed as "-". */
    evaluated = 0;
    capture(LOG_LV_TRACE, buf, sizeof buf);
    CHECK_INT_EQ(evaluated, 5);
    CHECK_STR_HAS(buf, "INFO  [om] -: info 42\n");
    CHECK_STR_HAS(buf, "DEBUG [-] delta: debug 42\n");
    CHECK_STR_HAS(buf, "TRACE [tm] eps: trace 42\n");

    /* Out-of-range levels are clamped. */
    log_set_level(-5);
    CHECK_INT_EQ(log_threshold, LOG_LV_ERROR);
    log_set_level(50);
    CHECK_INT_EQ(log_threshold, LOG_LV_TRACE);

    /* A message longer than the line buffer is truncated, not overflowed. */
    char big[5000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    FILE *f = tmpfile();
    log_set_stream(f);
    log_write(LOG_LV_ERROR, "c", "f", "%s", big);
    log_set_stream(NULL);
    CHECK(ftell(f) > 1000 && ftell(f) < 2100, "long line truncated to the buffer (%ld)", ftell(f));
    fclose(f);
    return check_summary();
}
