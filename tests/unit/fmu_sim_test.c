/* Unit tests of the standalone simulator (federate/fmu/fmu_sim.c): CSV input reading and its
 * errors, a run of the mass FMU driven by a CSV force (linear and hold) compared with the exact
 * integral, output CSV format, and run-time errors. Serves doc/fmu.md.
 * Read next: tests/integration/fmu_simulate.sh (the command line). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "federate/fmu/fmu_sim.h"
#include "tests/check.h"

/* The CSV files this run writes: build/fmu-fixtures/sim-test.PID/NAME (a folder of its own, so
 * that two runs never share one), in one of four rotating buffers. */
static char work[96];
static const char *at(const char *name)
{
    static char buf[4][160];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", work, name);
    return buf[k];
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "create %s", path);
    if (f) fputs(text, f), fclose(f);
}

static void test_csv(void)
{
    fmu_sim_table t;
    char err[FMU_ERR_LEN] = "";
    write_file(at("in_ok.csv"), "# comment\ntime, f ,g\n0,1,2\n\n0.5, 3 ,4\n1,5,6\n");
    CHECK_INT_EQ(fmu_sim_read_csv(at("in_ok.csv"), &t, err, sizeof err), 0);
    CHECK_INT_EQ(t.n_cols, 3);
    CHECK_INT_EQ(t.n_rows, 3);
    if (t.n_rows == 3) {
        CHECK_STR_EQ(t.names[1], "f");
        CHECK_NEAR(t.v[1 * 3 + 1], 3, 0);
        CHECK_NEAR(t.v[2 * 3 + 2], 6, 0);
    }
    fmu_sim_table_fini(&t);
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"time,f\n0,1\n1\n", ":3: 1 values, the header has 2 columns"},
        {"time,f\n0,1,2\n", ":2: more values than the 2 header columns"},
        {"time,f\n0,abc\n", ":2: column 2 (f): \"abc\" is not a number"},
        {"time,f\n1,1\n0.5,1\n", ":3: time 0.5 goes backwards"},
        {"time,f\n", "no data rows"},
        {"", "no header line"},
        {"time,,f\n0,1,2\n", ":1: column 2 has no name"},
        {"time,f\n0,nan\n", "is not a number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file(at("in_bad.csv"), bad[i].text);
        err[0] = '\0';
        CHECK(fmu_sim_read_csv(at("in_bad.csv"), &t, err, sizeof err) == -1, "case %zu", i);
        CHECK_STR_HAS(err, bad[i].want);
        CHECK_STR_HAS(err, "in_bad.csv");
        CHECK(t.names == NULL && t.v == NULL, "table left empty");
    }
    CHECK_INT_EQ(fmu_sim_read_csv(at("nonexistent.csv"), &t, err, sizeof err), -1);
    CHECK_STR_HAS(err, "nonexistent.csv");
}

/* Exact mass solution (m = 1, v0 = 0, x0 = 1) for f linear 0 -> 2 on [0,1] then 2 (linear),
 * or f = 0 on [0,1) then 2 (hold). */
static void mass_exact(double t, int hold, double *v, double *x)
{
    if (t <= 1) {
        *v = hold ? 0 : t * t;
        *x = 1 + (hold ? 0 : t * t * t / 3);
        return;
    }
    double s = t - 1, v1 = hold ? 0 : 1, x1 = hold ? 1 : 1 + 1.0 / 3;
    *v = v1 + 2 * s;
    *x = x1 + v1 * s + s * s;
}

static void test_run(void)
{
    write_file(at("force.csv"), "time,f\n0,0\n1,2\n2,2\n");
    for (int kind = FMU_KIND_ME; kind <= FMU_KIND_CS; kind++) {
        for (int hold = 0; hold <= 1; hold++) {
            fmu_sim_opts o = {0};
            o.fmu_path = kind == FMU_KIND_ME ? "build/fmus/mass_me.fmu" : "build/fmus/mass_cs.fmu";
            o.fopts.kind = (fmu_kind)kind;
            o.fopts.rtol = 1e-10;
            o.fopts.atol = 1e-12;
            o.has_stop = 1, o.stop = 2.0;
            o.has_step = 1, o.step = 0.3; /* grid 0.3 does not meet the CSV row at t = 1 */
            o.input_csv = at("force.csv");
            o.interp = hold ? FMU_SIM_HOLD : FMU_SIM_LINEAR;
            FILE *out = tmpfile();
            char err[FMU_ERR_LEN] = "";
            int rc = fmu_sim_run(&o, out, err, sizeof err);
            CHECK(rc == 0, "kind %d hold %d: %s", kind, hold, err);
            rewind(out);
            char line[512];
            CHECK(fgets(line, sizeof line, out) != NULL, "header");
            CHECK_STR_EQ(line, "time,v,x,a,W,P\n"); /* P: the power output of power mode */
            int rows = 0;
            double worst = 0, last_t = -1;
            while (fgets(line, sizeof line, out)) {
                double t, v, x, a, w, ve, xe;
                if (sscanf(line, "%lf,%lf,%lf,%lf,%lf", &t, &v, &x, &a, &w) != 5) break;
                mass_exact(t, hold, &ve, &xe);
                worst = fmax(worst, fmax(fabs(v - ve), fabs(x - xe)));
                rows++;
                last_t = t;
            }
            /* 0, 0.3, ..., 1.8, 2.0; held, the change at t = 1 is an input event: a row at 1
             * (ME: one before it and one after, doc/fmu.md §8). */
            CHECK_INT_EQ(rows, !hold ? 8 : kind == FMU_KIND_ME ? 10 : 9);
            CHECK_NEAR(last_t, 2.0, 0);
            CHECK(worst <= 1e-8, "kind %d hold %d: error %g > 1e-8", kind, hold, worst);
            fclose(out);
        }
    }
}

static void test_run_errors(void)
{
    char err[FMU_ERR_LEN] = "";
    FILE *out = tmpfile();
    write_file(at("wrongcol.csv"), "time,x\n0,1\n");
    fmu_sim_opts o = {.fmu_path = "build/fmus/mass_me.fmu", .input_csv = at("wrongcol.csv")};
    CHECK_INT_EQ(fmu_sim_run(&o, out, err, sizeof err), 1);
    CHECK_STR_HAS(err, "column \"x\" is not a Real input");
    fmu_sim_opts o2 = {.fmu_path = "build/fmus/none.fmu"};
    CHECK_INT_EQ(fmu_sim_run(&o2, out, err, sizeof err), 1);
    CHECK_STR_HAS(err, "none.fmu");
    /* Termination is not a failure: the stair stops at its 2nd jump (t = 1). */
    const char *n[] = {"period", "n_max"}, *v[] = {"0.5", "2"};
    fmu_sim_opts o3 = {.fmu_path = "build/fmus/stair_me.fmu",
                       .has_stop = 1,
                       .stop = 3,
                       .has_step = 1,
                       .step = 0.25};
    o3.fopts.n_params = 2, o3.fopts.param_names = n, o3.fopts.param_values = v;
    FILE *o3out = tmpfile();
    CHECK_INT_EQ(fmu_sim_run(&o3, o3out, err, sizeof err), 0);
    CHECK_STR_HAS(err, "terminated the simulation at t=1");
    rewind(o3out);
    char line[256], last[256] = "";
    while (fgets(line, sizeof line, o3out))
        strcpy(last, line);
    CHECK_STR_EQ(last, "1,2,2\n");
    fclose(o3out);
    fclose(out);
}

int main(void)
{
    mkdir("build/fmu-fixtures", 0755);
    snprintf(work, sizeof work, "build/fmu-fixtures/sim-test.%ld", (long)getpid());
    CHECK(mkdir(work, 0700) == 0, "create %s", work);
    test_csv();
    test_run();
    test_run_errors();
    const char *written[] = {"in_ok.csv", "in_bad.csv", "force.csv", "wrongcol.csv"};
    for (size_t i = 0; i < sizeof written / sizeof *written; i++)
        unlink(at(written[i]));
    CHECK(rmdir(work) == 0, "%s holds only the files this test wrote", work);
    return check_summary();
}
