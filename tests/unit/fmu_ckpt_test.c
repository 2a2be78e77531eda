/* Unit test of the FMU state as bytes (federate/fmu/fmu_step.h: fmu_step_serialize,
 * fmu_step_deserialize; doc/checkpoint.md, "FMU state"), on the example FMUs lv_prey (an
 * input) and bouncingball (events), both kinds: a run that writes its state at t = 1 and goes
 * on, and a fresh instance (as in another process) that reads those bytes and goes on the same
 * way, give bit-identical outputs at every step; bytes of another FMU or kind, of another
 * version, truncated or extended, are refused and leave the instance usable.
 * Read federate/fmu/fmu_step.h first. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/fmu/fmu_step.h"
#include "tests/check.h"

#define NSTEP 25

static const char *const kind_name[] = {"auto", "ME", "CS"};

static fmu_step *open_fmu(const char *model, fmu_kind kind)
{
    char path[256], err[FMU_ERR_LEN] = "";
    snprintf(path, sizeof path, "build/fmus/%s_%s.fmu", model, kind == FMU_KIND_ME ? "me" : "cs");
    fmu_step_opts o = {.kind = kind, .rtol = 1e-8, .atol = 1e-10};
    fmu_step *s = NULL;
    int rc = fmu_step_open(path, &o, &s, err, sizeof err);
    CHECK(rc == FMU_STEP_OK && s, "open %s: %s", path, err);
    return s;
}

/* One step of 0.1 with the input of lv_prey (y varies with the step index) or none. */
static int step(fmu_step *s, const char *model, int i)
{
    if (strcmp(model, "lv_prey") != 0) return fmu_step_do(s, 0.1, NULL, NULL);
    long k = fmu_md_find(fmu_step_md(s), "y");
    fmi2ValueReference vy = k >= 0 ? fmu_step_md(s)->vars[k].vr : 0;
    double y = 1.0 + 0.1 * sin(0.7 * i), dy = 0.07 * cos(0.7 * i);
    fmu_inputs in = {1, &vy, &y, 1, &dy};
    return fmu_step_do(s, 0.1, &in, NULL);
}

/* The bits of output `var` after each of steps from..NSTEP-1. */
static void run_on(fmu_step *s, const char *model, const char *var, int from, double *out)
{
    for (int i = from; i < NSTEP; i++) {
        CHECK_INT_EQ(step(s, model, i), 0);
        out[i] = NAN;
        CHECK_INT_EQ(fmu_step_get_by_name(s, var, &out[i]), 0);
    }
}

static void same_bits(const char *model, int kind)
{
    const char *var = strcmp(model, "lv_prey") == 0 ? "x" : "h";
    double a[NSTEP], b[NSTEP];
    fmu_step *s = open_fmu(model, (fmu_kind)kind);
    if (!s) return;
    CHECK(fmu_step_can_serialize(s), "%s %s can serialize", model, kind_name[kind]);
    run_on(s, model, var, 0, a);
    (void)a;
    fmu_step_close(s);
    /* the saving run: 10 steps, write, 15 more */
    s = open_fmu(model, (fmu_kind)kind);
    if (!s) return;
    double first[NSTEP];
    for (int i = 0; i < 10; i++)
        CHECK_INT_EQ(step(s, model, i), 0);
    unsigned char *bytes = NULL;
    size_t len = 0;
    CHECK_INT_EQ(fmu_step_serialize(s, &bytes, &len), 0);
    CHECK(bytes && len > 40, "%s %s: %zu bytes", model, kind_name[kind], len);
    run_on(s, model, var, 10, first);
    fmu_step_close(s);
    /* a fresh instance reads the bytes and goes on */
    s = open_fmu(model, (fmu_kind)kind);
    if (s && bytes) {
        CHECK(fmu_step_deserialize(s, bytes, len) == 0, "%s %s: %s", model, kind_name[kind],
              fmu_step_errmsg(s));
        CHECK_NEAR(fmu_step_time(s), 1.0, 1e-12);
        run_on(s, model, var, 10, b);
        CHECK(memcmp(first + 10, b + 10, sizeof(double) * (NSTEP - 10)) == 0,
              "%s %s: resumed run differs (%.17g vs %.17g at the end)", model, kind_name[kind],
              first[NSTEP - 1], b[NSTEP - 1]);
        /* CS has no integrator history: the uninterrupted run gives the same bits too */
        if (kind == FMU_KIND_CS)
            CHECK(memcmp(a + 10, b + 10, sizeof(double) * (NSTEP - 10)) == 0,
                  "%s CS: resumed run differs from the uninterrupted one", model);
        fmu_step_close(s);
    }
    free(bytes);
}

static void test_same_bits(void)
{
    for (int kind = FMU_KIND_ME; kind <= FMU_KIND_CS; kind++) {
        same_bits("lv_prey", kind);
        same_bits("bouncingball", kind);
    }
}

/* Damaged and foreign bytes are refused; the instance still steps afterwards. */
static void test_refusals(void)
{
    fmu_step *prey = open_fmu("lv_prey", FMU_KIND_CS);
    fmu_step *ball = open_fmu("bouncingball", FMU_KIND_CS);
    fmu_step *prey_me = open_fmu("lv_prey", FMU_KIND_ME);
    if (!prey || !ball || !prey_me) {
        fmu_step_close(prey);
        fmu_step_close(ball);
        fmu_step_close(prey_me);
        return;
    }
    unsigned char *bytes = NULL;
    size_t len = 0;
    CHECK_INT_EQ(step(prey, "lv_prey", 0), 0);
    CHECK_INT_EQ(fmu_step_serialize(prey, &bytes, &len), 0);
    if (!bytes) return;
    CHECK_INT_EQ(fmu_step_deserialize(ball, bytes, len), FMU_STEP_EUSAGE);
    CHECK_STR_HAS(fmu_step_errmsg(ball), "another FMU");
    CHECK_INT_EQ(fmu_step_deserialize(prey_me, bytes, len), FMU_STEP_EUSAGE);
    CHECK_STR_HAS(fmu_step_errmsg(prey_me), "saved as co-simulation");
    for (size_t n = 0; n < len; n++)
        CHECK(fmu_step_deserialize(prey, bytes, n) == FMU_STEP_EUSAGE, "prefix %zu refused", n);
    unsigned char *more = malloc(len + 1);
    if (more) {
        memcpy(more, bytes, len);
        more[len] = 0;
        CHECK_INT_EQ(fmu_step_deserialize(prey, more, len + 1), FMU_STEP_EUSAGE);
        CHECK_STR_HAS(fmu_step_errmsg(prey), "truncated or malformed");
        more[4] = 2;
        CHECK_INT_EQ(fmu_step_deserialize(prey, more, len), FMU_STEP_EUSAGE);
        CHECK_STR_HAS(fmu_step_errmsg(prey), "version 2");
        free(more);
    }
    CHECK_INT_EQ(step(prey, "lv_prey", 1), 0);
    CHECK_INT_EQ(step(ball, "bouncingball", 1), 0);
    CHECK_NEAR(fmu_step_time(prey), 0.2, 1e-12);
    /* the good bytes still restore t = 0.1 */
    CHECK_INT_EQ(fmu_step_deserialize(prey, bytes, len), 0);
    CHECK_NEAR(fmu_step_time(prey), 0.1, 1e-12);
    free(bytes);
    fmu_step_close(prey);
    fmu_step_close(ball);
    fmu_step_close(prey_me);
}

int main(void)
{
    test_same_bits();
    test_refusals();
    return check_summary();
}
