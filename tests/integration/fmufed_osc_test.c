/* Integration test of the FMU federate on the two-mass rotational oscillator of Glumac and Kovačić
 * (2023) §4.1 (osc_omega2tau + osc_tau2omega as two tempo-fmu processes, against the monolithic
 * osc_twomass at rtol 1e-10): Jacobi at fixed steps converges with order one (halving H halves
 * the error), the naive variant's extra step of lag costs accuracy, and Gauss-Seidel also
 * converges with order one. Serves doc/algorithms/README.md and doc/run.md (second case study);
 * the errors go into doc/cases/figures/osc_peer.md (tests/figures.h). Read
 * tests/integration/fmufed_lv_test.c for the Lotka-Volterra case.
 */
#include <math.h>
#include <stdlib.h>

#include "federate/fmu/fmu_step.h"
#include "federate/run/results.h"
#include "tests/figures.h"
#include "tests/integration/client_harness.h"

static char g_dir[256], g_cwd[1024];

/* Run one federation of the two slaves; returns the max |omega2 error| over the run, or -1. */
static double run_osc(const char *rti, const char *tag, const char *method, double h, double end)
{
    char file[512], out[512], p[1200], e[RES_ERRLEN];
    snprintf(file, sizeof file, "%s/%s.json", g_dir, tag);
    snprintf(out, sizeof out, "%s/out-%s", g_dir, tag);
    FILE *f = fopen(file, "w");
    CHECK(f != NULL, "create %s", file);
    if (!f) return -1;
    fprintf(
        f,
        "{ \"federation\": \"osc-%s\",\n"
        "  \"algorithm\": { \"method\": \"%s\", \"end\": %g, \"step\": %g },\n"
        "  \"solver\": { \"rtol\": 1e-10, \"atol\": 1e-12 },\n"
        "  \"federates\": [\n"
        "   { \"name\": \"s1\", \"fmu\": \"%s/build/fmus/osc_omega2tau_me.fmu\",\n"
        "     \"outputs\": { \"tau1\": \"S1.tau1\" }, \"inputs\": { \"omega2\": \"S2.omega2\" } "
        "},\n"
        "   { \"name\": \"s2\", \"fmu\": \"%s/build/fmus/osc_tau2omega_me.fmu\",\n"
        "     \"outputs\": { \"omega2\": \"S2.omega2\" }, \"inputs\": { \"tau1\": \"S1.tau1\" } }\n"
        "  ], \"output\": \"%s\" }\n",
        tag, method, end, h, g_cwd, g_cwd, out);
    fclose(f);
    fflush(stdout);
    pid_t pid[2];
    const char *names[2] = {"s1", "s2"};
    for (int i = 0; i < 2; i++) {
        pid[i] = fork();
        if (pid[i] == 0) {
            FILE *o = freopen("/dev/null", "w", stdout);
            (void)o;
            execl("bin/tempo-fmu", "bin/tempo-fmu", "--federation", file, "--name", names[i],
                  "--rti", rti, "--timeout", "20000", (char *)NULL);
            _exit(127);
        }
    }
    int ok = 0;
    for (int i = 0; i < 2; i++) {
        int st;
        if (waitpid(pid[i], &st, 0) == pid[i] && WIFEXITED(st) && WEXITSTATUS(st) == 0) ok++;
    }
    CHECK(ok == 2, "%s: both slaves exit 0", tag);
    if (ok != 2) return -1;
    snprintf(p, sizeof p, "%s/s2.csv", out);
    res_table *t = NULL;
    if (res_read_csv(p, &t, e, sizeof e) != RES_OK) {
        CHECK(0, "read %s: %s", p, e);
        return -1;
    }
    long c = res_table_find(t, "omega2");
    CHECK_INT_EQ((long)t->n_rows, lround(end / h) + 1);
    /* Reference at the same points. */
    snprintf(p, sizeof p, "%s/build/fmus/osc_twomass_me.fmu", g_cwd);
    fmu_step_opts o = {.rtol = 1e-10, .atol = 1e-12};
    fmu_step *s = NULL;
    double worst = -1;
    if (fmu_step_open(p, &o, &s, e, sizeof e) != FMU_STEP_OK) {
        CHECK(0, "open osc_twomass: %s", e);
    } else {
        worst = 0;
        for (size_t i = 0; i < t->n_rows && c >= 0; i++) {
            double dt = t->cols[0][i] - fmu_step_time(s), ref = 0;
            if (dt > 1e-12 && fmu_step_do(s, dt, NULL, NULL) != FMU_STEP_OK) {
                CHECK(0, "reference step: %s", fmu_step_errmsg(s));
                worst = -1;
                break;
            }
            fmu_step_get_by_name(s, "omega2", &ref);
            double err = fabs(t->cols[c][i] - ref);
            if (err > worst) worst = err;
        }
        fmu_step_close(s);
    }
    res_table_free(t);
    return worst;
}

/* Remove the temporary folder at exit (kept when FMUFED_KEEP is set, to inspect the files). */
static void remove_dir(void)
{
    if (!g_dir[0] || getenv("FMUFED_KEEP")) return;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    int r = system(cmd);
    (void)r;
}

int main(void)
{
    if (!getcwd(g_cwd, sizeof g_cwd)) return 1;
    snprintf(g_dir, sizeof g_dir, "/tmp/fmufed_osc_XXXXXX");
    if (!mkdtemp(g_dir)) return 1;
    atexit(remove_dir);
    const char *r = harness_start_rti(NULL, 240);
    if (!r) return check_summary();
    atexit(harness_stop_rti);
    char rti[128];
    snprintf(rti, sizeof rti, "%s", r);

    const double H[3] = {0.2, 0.1, 0.05};
    const char *methods[3] = {"jacobi", "gauss-seidel", "jacobi-naive"};
    double err[3][3];
    figures_table g;
    FILE *fig = figures_open(&g, "osc_peer.md", "tests/integration/fmufed_osc_test.c");
    fprintf(fig, "### Two-mass oscillator, the peer methods\n\n"
                 "osc_omega2tau and osc_tau2omega (model exchange, rtol 1e-10) as two tempo-fmu "
                 "processes, end 20; the largest |error| of omega2 against osc_twomass at rtol "
                 "1e-10, and its ratio per halving of H.\n\n"
                 "| method | H = 0.2 | H = 0.1 | H = 0.05 | ratios |\n|---|---|---|---|---|\n");
    for (int m = 0; m < 3; m++) {
        for (int k = 0; k < 3; k++) {
            char tag[64];
            snprintf(tag, sizeof tag, "%s-%d", methods[m], k);
            err[m][k] = run_osc(rti, tag, methods[m], H[k], 20);
        }
        printf("%-13s max |e_omega2| over [0,20]: H=0.2 %.3e, H=0.1 %.3e, H=0.05 %.3e; ratios %.2f "
               "%.2f\n",
               methods[m], err[m][0], err[m][1], err[m][2], err[m][0] / err[m][1],
               err[m][1] / err[m][2]);
        fprintf(fig, "| %s | %.3g | %.3g | %.3g | %.2f, %.2f |\n", methods[m], err[m][0], err[m][1],
                err[m][2], err[m][0] / err[m][1], err[m][1] / err[m][2]);
        /* First order: halving H halves the error; the band [1.6, 2.5] allows for the
         * higher-order terms at the coarser steps. */
        for (int k = 0; k < 2; k++)
            CHECK(err[m][k + 1] > 0 && err[m][k] / err[m][k + 1] > 1.6 &&
                      err[m][k] / err[m][k + 1] < 2.5,
                  "%s first-order: error ratio %.2f for H %g -> %g", methods[m],
                  err[m][k] / err[m][k + 1], H[k], H[k + 1]);
    }
    for (int k = 0; k < 3; k++)
        CHECK(err[0][k] < err[2][k],
              "improved Jacobi more accurate than naive at H = %g "
              "(%.3e < %.3e)",
              H[k], err[0][k], err[2][k]);
    figures_close(&g);
    return check_summary();
}
