/* The smart-grid case's FMUs against closed forms (doc/cases/houses.md): the environment's
 * sinusoid at its extremes and mid-points; a house whose agent pushes the band far down (a
 * high price) cools exponentially to a constant ambient with its time constant C / UA; a house
 * at a cheap price follows the exact piecewise solution of its hysteresis cycle (switching
 * times in closed form), in co-simulation and in model exchange. */
#include <math.h>
#include <stdio.h>

#include "examples/fmus/house/house_model.h"
#include "federate/fmu/fmu_step.h"
#include "tests/check.h"

static fmu_step *open_fmu(const char *path, fmu_kind kind, size_t n, const char *const *names,
                          const char *const *values)
{
    char err[FMU_ERR_LEN] = "";
    fmu_step *s = NULL;
    fmu_step_opts o = {.kind = kind,
                       .rtol = 1e-10,
                       .atol = 1e-10,
                       .n_params = n,
                       .param_names = names,
                       .param_values = values};
    int rc = fmu_step_open(path, &o, &s, err, sizeof err);
    CHECK(rc == FMU_STEP_OK, "%s: %s", path, err);
    return rc == FMU_STEP_OK ? s : NULL;
}

static double get(fmu_step *s, const char *name)
{
    double v = NAN;
    CHECK(fmu_step_get_by_name(s, name, &v) == FMU_STEP_OK, "read %s", name);
    return v;
}

/* T_amb = 10 - 5 cos(2 pi t / 86400): 5 at midnight, 10 at 6 h and 18 h, 15 at noon. */
static void test_environment(void)
{
    fmu_step *s = open_fmu("build/fmus/environment_cs.fmu", FMU_KIND_CS, 0, NULL, NULL);
    if (!s) return;
    const double want[] = {5, 10, 15, 10, 5};
    for (int k = 0; k < 5; k++) {
        if (k) CHECK(fmu_step_do(s, 21600, NULL, NULL) == FMU_STEP_OK, "step");
        double v = get(s, "T_amb");
        CHECK(fabs(v - want[k]) < 1e-9, "T_amb(%d h) = %.12g, expected %g", 6 * k, v, want[k]);
    }
    fmu_step_close(s);
}

/* A high price drops the band far below the ambient: the heater never runs and
 * T(t) = T_amb + (T0 - T_amb) exp(-t UA / C). */
static void test_cooling(fmu_kind kind, const char *path)
{
    const char *names[] = {"seed", "price", "T_amb"}, *values[] = {"3", "100", "10"};
    fmu_step *s = open_fmu(path, kind, 3, names, values);
    if (!s) return;
    house_drawn h = house_from_seed(3, HOUSE_BAND);
    double tau = HOUSE_C_VOL * h.volume / h.ua, worst = 0;
    for (int k = 1; k <= 24; k++) {
        CHECK(fmu_step_do(s, 3600, NULL, NULL) == FMU_STEP_OK, "step %d", k);
        double t = 3600.0 * k, want = 10 + (h.t_start - 10) * exp(-t / tau);
        worst = fmax(worst, fabs(get(s, "T_in") - want));
    }
    CHECK(worst < 1e-6, "%s: cooling: largest |T - exact| %.3g K (bound 1e-6)", path, worst);
    CHECK(get(s, "heater") == 0 && get(s, "E") == 0, "%s: the heater stayed off", path);
    fmu_step_close(s);
}

/* Constant ambient 10 degC and a cheap price: from T0 the house cools to the band's lower edge,
 * heats to the upper one, and so on. With a = UA / C and T_eq = 10 + P / UA (on) or 10 (off),
 * T(t) = T_eq + (T_s - T_eq) exp(-a (t - s)) from a switch at s, and the next switch is at
 * s + ln((T_s - T_eq) / (edge - T_eq)) / a. The FMU must switch as often and follow this at
 * every sample within `bound`: 1e-6 K in co-simulation (the framework's Dormand-Prince); in
 * model exchange CVODE (rtol 1e-10) restarts at each of the agent's 1440 daily time events and
 * each switch, and the restarts' local errors add up to about 1.5e-5 K over the day. */
static void test_cycle(fmu_kind kind, const char *path, double bound)
{
    const char *names[] = {"seed", "price", "T_amb"}, *values[] = {"5", "0.1", "10"};
    fmu_step *s = open_fmu(path, kind, 3, names, values);
    if (!s) return;
    house_drawn h = house_from_seed(5, HOUSE_BAND);
    double a = h.ua / (HOUSE_C_VOL * h.volume);
    double lo = house_band_low(0.1, h.t_set, HOUSE_K_PRICE, HOUSE_P_REF, HOUSE_BAND);
    double hi = lo + HOUSE_BAND;
    /* The exact trajectory: (switch time, temperature there, heater after). */
    double sw_t = 0, sw_T = h.t_start, worst = 0, e_exact = 0;
    int on = 0, switches = 0, fmu_switches = 0, prev_heater = 0;
    for (int k = 1; k <= 2000; k++) { /* 2000 samples of 43.2 s: one day */
        double t = 43.2 * k;
        CHECK(fmu_step_do(s, 43.2, NULL, NULL) == FMU_STEP_OK, "step %d", k);
        for (;;) {
            double teq = 10 + (on ? h.p_rated / h.ua : 0), edge = on ? hi : lo;
            double t_next = sw_t + log((sw_T - teq) / (edge - teq)) / a;
            if (t_next > t) break;
            e_exact += on ? h.p_rated * (t_next - sw_t) / 3.6e6 : 0;
            sw_t = t_next, sw_T = edge, on = !on, switches++;
        }
        double teq = 10 + (on ? h.p_rated / h.ua : 0);
        double want = teq + (sw_T - teq) * exp(-a * (t - sw_t));
        worst = fmax(worst, fabs(get(s, "T_in") - want));
        int heater = get(s, "heater") > 0.5;
        fmu_switches += heater != prev_heater;
        prev_heater = heater;
    }
    e_exact += on ? h.p_rated * (86400 - sw_t) / 3.6e6 : 0;
    CHECK(switches >= 20, "%s: the exact cycle switches %d times in a day", path, switches);
    CHECK(fmu_switches == switches, "%s: the FMU switched %d times, the exact cycle %d", path,
          fmu_switches, switches);
    CHECK(worst < bound, "%s: cycle: largest |T - exact| %.3g K (bound %g)", path, worst, bound);
    double e = get(s, "E");
    CHECK(fabs(e - e_exact) < 1e-5 * e_exact, "%s: energy %.9g kWh, exact %.9g kWh", path, e,
          e_exact);
    fmu_step_close(s);
}

int main(void)
{
    test_environment();
    test_cooling(FMU_KIND_CS, "build/fmus/house_cs.fmu");
    test_cooling(FMU_KIND_ME, "build/fmus/house_me.fmu");
    test_cycle(FMU_KIND_CS, "build/fmus/house_cs.fmu", 1e-6);
    test_cycle(FMU_KIND_ME, "build/fmus/house_me.fmu", 5e-5);
    return check_summary();
}
