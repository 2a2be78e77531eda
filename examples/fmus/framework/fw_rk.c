/* Dormand-Prince 5(4) step (Dormand & Prince 1980; the coefficients are the published
 * tableau, e.g. Hairer, Norsett & Wanner, Solving ODE I, Table 5.2). doc/fmu.md.
 * Read fw_cs.c next: it drives this step with error control and locates events. */
#include <math.h>
#include <stddef.h>

#include "examples/fmus/framework/fw_rk.h"

/* Butcher tableau: c (nodes), a (stage weights), b (5th order), e = b - b* (error). */
static const double C2 = 1.0 / 5, C3 = 3.0 / 10, C4 = 4.0 / 5, C5 = 8.0 / 9;
static const double A21 = 1.0 / 5;
static const double A31 = 3.0 / 40, A32 = 9.0 / 40;
static const double A41 = 44.0 / 45, A42 = -56.0 / 15, A43 = 32.0 / 9;
static const double A51 = 19372.0 / 6561, A52 = -25360.0 / 2187, A53 = 64448.0 / 6561,
                    A54 = -212.0 / 729;
static const double A61 = 9017.0 / 3168, A62 = -355.0 / 33, A63 = 46732.0 / 5247, A64 = 49.0 / 176,
                    A65 = -5103.0 / 18656;
static const double B1 = 35.0 / 384, B3 = 500.0 / 1113, B4 = 125.0 / 192, B5 = -2187.0 / 6784,
                    B6 = 11.0 / 84;
static const double E1 = 71.0 / 57600, E3 = -71.0 / 16695, E4 = 71.0 / 1920, E5 = -17253.0 / 339200,
                    E6 = 22.0 / 525, E7 = -1.0 / 40;

int fw_rk_init(fw_rk *w, int n, void *(*alloc)(size_t, size_t))
{
    w->n = n;
    w->block = alloc((size_t)8 * (size_t)(n > 0 ? n : 1), sizeof(double));
    if (!w->block) return -1;
    for (int i = 0; i < 7; i++)
        w->k[i] = w->block + (size_t)i * (size_t)n;
    w->tmp = w->block + (size_t)7 * (size_t)n;
    return 0;
}

void fw_rk_fini(fw_rk *w, void (*release)(void *))
{
    if (w->block) release(w->block);
    w->block = NULL;
}

double fw_rk_step(fw_rk *w, fw_rhs f, void *ctx, double t, const double *x, const double *k1,
                  double h, double rtol, double atol, double *x1)
{
    int n = w->n;
    double **k = w->k, *y = w->tmp;
    for (int i = 0; i < n; i++)
        k[0][i] = k1[i];
    for (int i = 0; i < n; i++)
        y[i] = x[i] + h * A21 * k[0][i];
    f(ctx, t + C2 * h, y, k[1]);
    for (int i = 0; i < n; i++)
        y[i] = x[i] + h * (A31 * k[0][i] + A32 * k[1][i]);
    f(ctx, t + C3 * h, y, k[2]);
    for (int i = 0; i < n; i++)
        y[i] = x[i] + h * (A41 * k[0][i] + A42 * k[1][i] + A43 * k[2][i]);
    f(ctx, t + C4 * h, y, k[3]);
    for (int i = 0; i < n; i++)
        y[i] = x[i] + h * (A51 * k[0][i] + A52 * k[1][i] + A53 * k[2][i] + A54 * k[3][i]);
    f(ctx, t + C5 * h, y, k[4]);
    for (int i = 0; i < n; i++)
        y[i] = x[i] +
               h * (A61 * k[0][i] + A62 * k[1][i] + A63 * k[2][i] + A64 * k[3][i] + A65 * k[4][i]);
    f(ctx, t + h, y, k[5]);
    for (int i = 0; i < n; i++)
        x1[i] =
            x[i] + h * (B1 * k[0][i] + B3 * k[2][i] + B4 * k[3][i] + B5 * k[4][i] + B6 * k[5][i]);
    f(ctx, t + h, x1, k[6]);
    double sum = 0;
    for (int i = 0; i < n; i++) {
        double e = h * (E1 * k[0][i] + E3 * k[2][i] + E4 * k[3][i] + E5 * k[4][i] + E6 * k[5][i] +
                        E7 * k[6][i]);
        double sc = atol + rtol * fmax(fabs(x[i]), fabs(x1[i]));
        sum += (e / sc) * (e / sc);
    }
    return n > 0 ? sqrt(sum / n) : 0.0;
}
