/* Failure paths of the stepping interface with an FMU that fails on demand
 * (tests/unit/fmu_fixture_faulty.c, x' = -x): fmi2Discard -> FMU_STEP_EDISCARD, the handle then
 * refuses to step until a restore, after which the run continues correctly; fmi2Error ->
 * FMU_STEP_EFMU with the FMU's logged reason, then only close (no crash, no leak). Both kinds.
 * Serves doc/fmu.md (recoverable vs unrecoverable failures, doc/contributing.md §11). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "federate/fmu/fmu_sim.h"
#include "federate/fmu/fmu_step.h"
#include "tests/check.h"
#include "tests/unit/faulty_fmu.h"

/* The faulty FMU this run builds: a name of its own (the pid), so that two runs never share it. */
static char fmu_path[96];
#define FMU fmu_path

static fmu_step *open_kind(fmu_kind kind, const char *param, const char *value)
{
    const char *names[] = {param}, *values[] = {value};
    fmu_step_opts o = {.kind = kind,
                       .rtol = 1e-10,
                       .atol = 1e-12,
                       .n_params = param ? 1 : 0,
                       .param_names = names,
                       .param_values = values};
    char err[FMU_ERR_LEN] = "";
    fmu_step *s = NULL;
    int rc = fmu_step_open(FMU, &o, &s, err, sizeof err);
    CHECK(rc == 0, "open: %s", err);
    return s;
}

static void test_discard(fmu_kind kind)
{
    const char *k = kind == FMU_KIND_ME ? "ME" : "CS";
    fmu_step *s = open_kind(kind, "discard_t", "1.0");
    if (!s) return;
    fmu_step_state *st = NULL;
    CHECK_INT_EQ(fmu_step_do(s, 0.5, NULL, NULL), 0);
    CHECK_INT_EQ(fmu_step_save(s, &st), 0);
    double reached = -1;
    int rc = fmu_step_do(s, 0.7, NULL, &reached);
    CHECK(rc == FMU_STEP_EDISCARD, "%s: rc %d (%s), want discarded", k, rc, fmu_step_errmsg(s));
    CHECK(reached >= 0.5 && reached <= 1.0 + 1e-9, "%s: reached %g within [0.5, 1]", k, reached);
    CHECK_STR_HAS(fmu_step_errmsg(s),
                  kind == FMU_KIND_CS ? "fmi2DoStep returned fmi2Discard" : "CVODE failed");
    rc = fmu_step_do(s, 0.1, NULL, NULL);
    CHECK_INT_EQ(rc, FMU_STEP_EUSAGE);
    CHECK_STR_HAS(fmu_step_errmsg(s), "restore a state first");
    fmu_step_state *st2 = NULL;
    CHECK_INT_EQ(fmu_step_save(s, &st2), FMU_STEP_EUSAGE);
    CHECK_INT_EQ(fmu_step_restore(s, st), 0);
    CHECK_NEAR(fmu_step_time(s), 0.5, 0);
    /* Smaller steps up to the threshold work; then lift it and carry on. */
    CHECK_INT_EQ(fmu_step_do(s, 0.25, NULL, NULL), 0);
    CHECK_INT_EQ(fmu_step_set_text(s, "discard_t", "100"), 0);
    CHECK_INT_EQ(fmu_step_do(s, 0.75, NULL, NULL), 0);
    double x = NAN;
    CHECK_INT_EQ(fmu_step_get_by_name(s, "x", &x), 0);
    CHECK_NEAR(x, exp(-1.5), 1e-8); /* rtol 1e-10 */
    fmu_step_state_free(s, st);
    fmu_step_close(s);
}

static void test_error(fmu_kind kind)
{
    const char *k = kind == FMU_KIND_ME ? "ME" : "CS";
    fmu_step *s = open_kind(kind, "error_t", "0.8");
    if (!s) return;
    fmu_step_state *st = NULL;
    CHECK_INT_EQ(fmu_step_do(s, 0.5, NULL, NULL), 0);
    CHECK_INT_EQ(fmu_step_save(s, &st), 0);
    int rc = fmu_step_do(s, 0.5, NULL, NULL);
    CHECK(rc == FMU_STEP_EFMU, "%s: rc %d (%s), want FMU error", k, rc, fmu_step_errmsg(s));
    CHECK_STR_HAS(fmu_step_errmsg(s), "returned fmi2Error: injected error at t=");
    CHECK_STR_HAS(fmu_step_errmsg(s), "faulty");
    CHECK_INT_EQ(fmu_step_do(s, 0.1, NULL, NULL), FMU_STEP_EUSAGE);
    CHECK_STR_HAS(fmu_step_errmsg(s), "failed earlier");
    double x;
    CHECK_INT_EQ(fmu_step_get_by_name(s, "x", &x), FMU_STEP_EUSAGE);
    CHECK_INT_EQ(fmu_step_restore(s, st), FMU_STEP_EUSAGE);
    fmu_step_state_free(s, st);
    fmu_step_close(s);
}

/* Starting with a failing parameter: the failure is reported by open or by the first step. */
static void test_bad_setting(void)
{
    const char *names[] = {"x"}, *values[] = {"2"};
    fmu_step_opts o = {
        .kind = FMU_KIND_CS, .n_params = 1, .param_names = names, .param_values = values};
    char err[FMU_ERR_LEN] = "";
    fmu_step *s = NULL;
    /* x is an output with initial="exact": settable per the standard, but this FMU refuses
     * with fmi2Error, which must come back as an FMU error naming the call. */
    int rc = fmu_step_open(FMU, &o, &s, err, sizeof err);
    CHECK(rc == FMU_STEP_EFMU && s == NULL, "rc %d: %s", rc, err);
    CHECK_STR_HAS(err, "fmi2SetReal returned fmi2Error");
}

/* The same binary described without canGetAndSetFMUstate: save is refused by us, cleanly. */
static void test_no_state(void)
{
    /* Copy the description with every canGetAndSetFMUstate="true" turned into "false". */
    static const char from[] = "canGetAndSetFMUstate=\"true\"";
    char desc[sizeof faulty_fmu_md + 16], *w = desc;
    for (const char *q = faulty_fmu_md; *q;) {
        if (strncmp(q, from, sizeof from - 1) == 0) {
            w += sprintf(w, "canGetAndSetFMUstate=\"false\"");
            q += sizeof from - 1;
        } else {
            *w++ = *q++;
        }
    }
    *w = '\0';
    char path[112];
    snprintf(path, sizeof path, "%s.nostate.fmu", fmu_path);
    CHECK(faulty_fmu_build(path, desc) == 0, "build %s", path);
    for (int kind = FMU_KIND_ME; kind <= FMU_KIND_CS; kind++) {
        fmu_step_opts o = {.kind = (fmu_kind)kind};
        char err[FMU_ERR_LEN] = "";
        fmu_step *s = NULL;
        CHECK_INT_EQ(fmu_step_open(path, &o, &s, err, sizeof err), 0);
        if (!s) continue;
        CHECK_INT_EQ(fmu_step_can_save(s), 0);
        fmu_step_state *st = (fmu_step_state *)1;
        CHECK_INT_EQ(fmu_step_save(s, &st), FMU_STEP_EUSAGE);
        CHECK(st == NULL, "no snapshot");
        CHECK_STR_HAS(fmu_step_errmsg(s), "canGetAndSetFMUstate is false");
        CHECK_INT_EQ(fmu_step_do(s, 0.5, NULL, NULL), 0); /* still usable */
        fmu_step_close(s);
    }
}

/* tempo-fmu --simulate records every output whatever its type: Integer and Boolean as
 * numbers, String in quotes with quotes doubled (RFC 4180), and its summary counts them. */
/* Parameters are checked against min/max and type before the FMU sees them; an output that
 * the FMU calculates cannot be set. */
static void test_set_checks(void)
{
    static const struct {
        const char *name, *value, *want;
    } cases[] = {
        {"discard_t", "-1", "discard_t=-1: below min 0 of Real variable \"discard_t\""},
        {"discard_t", "2e300", "discard_t=2e300: above max 1.0000000000000001e+300"},
        {"discard_t", "soon", "discard_t=soon: not a real number"},
        {"tenths", "3", "variable \"tenths\" (output, discrete, calculated) cannot be set"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *names[] = {cases[i].name}, *values[] = {cases[i].value};
        fmu_step_opts o = {.n_params = 1, .param_names = names, .param_values = values};
        char err[FMU_ERR_LEN] = "";
        fmu_step *s = NULL;
        CHECK_INT_EQ(fmu_step_open(FMU, &o, &s, err, sizeof err), FMU_STEP_EUSAGE);
        CHECK_STR_HAS(err, cases[i].want);
        fmu_step_close(s);
    }
    const char *names[] = {"discard_t"}, *values[] = {"0"};
    fmu_step_opts o = {.n_params = 1, .param_names = names, .param_values = values};
    char err[FMU_ERR_LEN] = "";
    fmu_step *s = NULL;
    CHECK(fmu_step_open(FMU, &o, &s, err, sizeof err) == 0, "min itself is allowed: %s", err);
    fmu_step_close(s);
}

static void test_record_types(fmu_kind kind)
{
    static const char *const want[] = {"time,x,tenths,late,phase\n", ",0,0,\"early\"\n",
                                       ",2,0,\"early\"\n",           ",5,0,\"early\"\n",
                                       ",7,1,\"late, \"\"x\"\"\"\n", ",10,1,\"late, \"\"x\"\"\"\n"};
    fmu_sim_opts o = {.fmu_path = FMU, .has_stop = 1, .stop = 1, .has_step = 1, .step = 0.25};
    o.fopts.kind = kind;
    FILE *out = tmpfile(), *sum = tmpfile();
    CHECK(out && sum, "tmpfile");
    if (!out || !sum) return;
    o.summary = sum;
    char err[FMU_ERR_LEN] = "", line[256];
    CHECK(fmu_sim_run(&o, out, err, sizeof err) == 0, "simulate: %s", err);
    rewind(out);
    size_t n = 0;
    while (fgets(line, sizeof line, out)) {
        size_t l = strlen(line), w = n < 6 ? strlen(want[n]) : 0;
        CHECK(n < 6 && l >= w && strcmp(line + l - w, want[n]) == 0, "row %zu: %s", n, line);
        n++;
    }
    CHECK_INT_EQ((int)n, 6);
    rewind(sum);
    CHECK(fgets(line, sizeof line, sum) != NULL, "a summary line");
    CHECK_STR_HAS(line,
                  "4 columns recorded (2 Integer/Boolean/Enumeration, 1 String), none left out");
    fclose(out);
    fclose(sum);
}

int main(void)
{
    mkdir("build/fmu-fixtures", 0755);
    snprintf(fmu_path, sizeof fmu_path, "build/fmu-fixtures/faulty.%ld.fmu", (long)getpid());
    CHECK(faulty_fmu_build(FMU, faulty_fmu_md) == 0,
          "could not build %s (is build/fmu-fixtures/faulty.so built?)", FMU);
    test_no_state();
    test_discard(FMU_KIND_CS);
    test_discard(FMU_KIND_ME);
    test_error(FMU_KIND_CS);
    test_error(FMU_KIND_ME);
    test_bad_setting();
    test_set_checks();
    test_record_types(FMU_KIND_CS);
    test_record_types(FMU_KIND_ME);
    char nostate[112];
    snprintf(nostate, sizeof nostate, "%s.nostate.fmu", fmu_path);
    unlink(nostate);
    unlink(fmu_path);
    return check_summary();
}
