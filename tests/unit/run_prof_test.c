/* Unit tests of federate/run/run_prof.c (tempo-run --profile, doc/run.md "Where the time
 * goes"): a federate's profile line is read into its entry and any other line is left alone;
 * a truncated line fills nothing; the table names every federate and the trace is the JSON
 * object tempo-log trace writes, one track per federate, its parts end to end. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "federate/run/run_prof.h"
#include "tests/check.h"

static const char *const names[] = {"prey", "predator", "market"};

static void test_lines(void)
{
    run_prof_fed f[3] = {{0}};
    CHECK_INT_EQ(run_prof_line(f, names, 3, "progress 1 2"), 0);
    CHECK_INT_EQ(run_prof_line(f, names, 3, "tempo-fmu: prey: done at t = 1 s"), 0);
    CHECK_INT_EQ(run_prof_line(f, names, 3,
                               "profile prey steps=200 model=0.5/0.25 wait=0.1/0.01 "
                               "waited=0.3 messaging=0.02/0.01 recording=0.04/0.02 "
                               "other=0.001/0.0005"),
                 1);
    CHECK(f[0].have && f[0].steps == 200, "prey read: have %d steps %ld", f[0].have, f[0].steps);
    CHECK(f[0].wall[0] > 0.49 && f[0].wall[0] < 0.51 && f[0].cpu[0] > 0.24 && f[0].cpu[0] < 0.26,
          "model 0.5/0.25: %g/%g", f[0].wall[0], f[0].cpu[0]);
    CHECK(f[0].waited > 0.29 && f[0].waited < 0.31 && f[0].wall[4] > 0.0009, "waited, other");
    CHECK_INT_EQ(run_prof_line(f, names, 3, "profile predator steps=5 model=0.5/0.25 wait="), 1);
    CHECK(!f[1].have, "a cut line fills nothing");
    CHECK_INT_EQ(run_prof_line(f, names, 3,
                               "profile nobody steps=1 model=1/1 wait=1/1 waited=1 "
                               "messaging=1/1 recording=1/1 other=1/1"),
                 1);
    CHECK(!f[1].have && !f[2].have, "an unknown name fills nothing");

    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (!out) return;
    run_prof_print(out, f, names, 3);
    fclose(out);
    CHECK_STR_HAS(buf, "prey");
    CHECK_STR_HAS(buf, "500.0 / 250.0");
    CHECK_STR_HAS(buf, "predator       (no profile");
    free(buf);

    char dir[] = "/tmp/run_prof_test.XXXXXX", path[64], err[256];
    if (!mkdtemp(dir)) return;
    snprintf(path, sizeof path, "%s/profile.json", dir);
    CHECK_INT_EQ(run_prof_trace(path, f, names, 3, err, sizeof err), 0);
    FILE *t = fopen(path, "r");
    char text[4096] = "";
    size_t n = t ? fread(text, 1, sizeof text - 1, t) : 0;
    text[n] = '\0';
    if (t) fclose(t);
    CHECK(!strncmp(text, "{\"traceEvents\":[", 16), "trace opens: %.40s", text);
    CHECK_STR_HAS(text, "\"args\":{\"name\":\"predator\"}");
    CHECK_STR_HAS(text, "\"name\":\"model\",\"pid\":1,\"tid\":1,\"ts\":0.000,\"dur\":500000.000");
    CHECK_STR_HAS(text, "\"name\":\"wait\",\"pid\":1,\"tid\":1,\"ts\":500000.000");
    CHECK_STR_HAS(text, "\"displayTimeUnit\":\"ms\"");
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    test_lines();
    return check_summary();
}
