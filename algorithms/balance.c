/* The coupling layer of explicit co-simulation (algorithms/balance.h): extrapolation, smooth
 * switch, balance correction, hats (Scharff, Moshagen, Vondrejc 2017; doc/algorithms/
 * balance-correction.md). Symbols: interval j = [t_{j-1}, t_j], H = t_j - t_{j-1} (s),
 * s = t - t_{j-1} (s), x the reference variable on [-1, 1].
 *
 *   Ext^j(s)   = u(t_{j-1}) [+ u'(t_{j-1}) s]                                   §2.2
 *   ubar^j(s)  = (1 - psi_j) Ext^{j-1}(H + s) + psi_j Ext^j(s),
 *                psi_j(s) = psi(2 s / H - 1)                                     eq. (12), (17)
 *   dE_j       = A_j - int_j ubar^j                    (classic)                  eq. (11)
 *   BC_j       = A_j - int_j Ext^j,  SE_j = int_j (Ext^j - ubar^j)  (quick)       eq. (16)
 *   phi(t)     = (2/L) phibar((2/L)(t - mid)), L the support, mid its centre       eq. (19)
 *   used^j(s)  = ubar^j(s) + sum over pending corrections of amount * phi(t)
 *
 * Our choices (the page says why): no switch on the first interval (there is no Ext^0), and
 * linear extrapolation starts with a constant first interval (the paper's §4.1.1); corrections
 * are added to the input, not to the right-hand side; a hat of span > 1 needs a constant H,
 * because its breakpoints must fall on exchange times for the input to stay one polynomial per
 * interval. */
#include "algorithms/balance.h"
#include "algorithms/port.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* psi(x) = 1/2 + (35 x - 35 x^3 + 21 x^5 - 5 x^7) / 32 on [-1, 1]: eq. (23) with the hat. */
static const bal_poly PSI = {{0.5, 35.0 / 32, 0, -35.0 / 32, 0, 21.0 / 32, 0, -5.0 / 32, 0}, 7};
/* hat(x) = (35/32)(1 - x^2)^3 = (35/32)(1 - 3x^2 + 3x^4 - x^6): eqs. (20)-(22). */
static const bal_poly HAT = {{35.0 / 32, 0, -105.0 / 32, 0, 105.0 / 32, 0, -35.0 / 32, 0, 0}, 6};

double bal_poly_eval(const bal_poly *p, double s)
{
    double v = 0;
    for (int k = p->deg; k >= 0; k--)
        v = v * s + p->a[k];
    return v;
}

double bal_poly_deriv(const bal_poly *p, int k, double s)
{
    bal_poly d = *p;
    for (int r = 0; r < k; r++) {
        if (d.deg == 0) return 0;
        for (int i = 1; i <= d.deg; i++)
            d.a[i - 1] = i * d.a[i];
        d.a[d.deg] = 0;
        d.deg--;
    }
    return bal_poly_eval(&d, s);
}

double bal_poly_integral(const bal_poly *p, double s0, double s1)
{
    double v0 = 0, v1 = 0;
    for (int k = p->deg; k >= 0; k--) { /* antiderivative sum a_k s^{k+1} / (k+1) */
        v0 = v0 * s0 + p->a[k] / (k + 1);
        v1 = v1 * s1 + p->a[k] / (k + 1);
    }
    return v1 * s1 - v0 * s0;
}

int bal_poly_mul(const bal_poly *p, const bal_poly *q, bal_poly *r)
{
    if (p->deg + q->deg > BAL_MAX_DEG) return BAL_EINVAL;
    bal_poly t = {{0}, p->deg + q->deg};
    for (int i = 0; i <= p->deg; i++)
        for (int k = 0; k <= q->deg; k++)
            t.a[i + k] += p->a[i] * q->a[k];
    *r = t;
    return BAL_OK;
}

void bal_poly_axpy(double x, const bal_poly *p, double y, const bal_poly *q, bal_poly *r)
{
    bal_poly t = {{0}, p->deg > q->deg ? p->deg : q->deg};
    for (int k = 0; k <= t.deg; k++)
        t.a[k] = x * p->a[k] + y * q->a[k];
    *r = t;
}

void bal_poly_affine(const bal_poly *p, double alpha, double beta, bal_poly *r)
{
    /* Horner over polynomials: r = (...(a_n (alpha s + beta) + a_{n-1}) ...) + a_0. */
    bal_poly t = {{p->a[p->deg]}, 0};
    for (int k = p->deg - 1; k >= 0; k--) {
        bal_poly n = {{0}, t.deg + 1};
        for (int i = 0; i <= t.deg; i++) {
            n.a[i] += beta * t.a[i];
            n.a[i + 1] += alpha * t.a[i];
        }
        n.a[0] += p->a[k];
        t = n;
    }
    *r = t;
}

int bal_hat_piece(bal_hat_kind kind, int span, int m, double H, bal_poly *out)
{
    if (!(H > 0) || m < 0 || m >= span) return BAL_EINVAL;
    double L = span * H;
    switch (kind) {
    case BAL_HAT_CONST:
        if (span != 1) return BAL_EINVAL;
        *out = (bal_poly){{1 / L}, 0};
        return BAL_OK;
    case BAL_HAT_POLY:
        if (span != 1) return BAL_EINVAL;
        bal_poly_affine(&HAT, 2 / L, -1, out); /* x = 2 s / L - 1 */
        break;
    case BAL_HAT_I2H: {
        if (span != 2 && span != 4) return BAL_EINVAL;
        /* On interval m, x = (2/L) s + b with b = 2m/span - 1; the interval lies wholly on
         * one side of 0, so one branch of eq. (24) covers it. */
        double b = 2.0 * m / span - 1;
        if (m < span / 2)
            bal_poly_affine(&PSI, 4 / L, 2 * b + 1, out); /* psi(2x + 1) */
        else
            bal_poly_affine(&PSI, -4 / L, 1 - 2 * b, out); /* psi(1 - 2x) */
        break;
    }
    default:
        return BAL_EINVAL;
    }
    for (int k = 0; k <= out->deg; k++)
        out->a[k] *= 2 / L; /* eq. (19)'s 2/L */
    return BAL_OK;
}

int bal_conn_init(bal_conn *c, const bal_settings *set, char *err, size_t errlen)
{
    if (set->extrap != BAL_EXTRAP_CONSTANT && set->extrap != BAL_EXTRAP_LINEAR)
        return port_errorf(err, errlen, BAL_EINVAL,
                           "extrapolation: %d is neither constant nor linear", (int)set->extrap);
    if (set->bc < BAL_BC_OFF || set->bc > BAL_BC_QUICK)
        return port_errorf(err, errlen, BAL_EINVAL, "balance correction: unknown mode %d",
                           (int)set->bc);
    if (set->bc != BAL_BC_OFF) {
        if (set->hat == BAL_HAT_I2H ? set->span != 2 && set->span != 4
                                    : set->hat != BAL_HAT_CONST && set->hat != BAL_HAT_POLY)
            return port_errorf(err, errlen, BAL_EINVAL,
                               "hat: the integral-of-two-hats hat needs a span of 2 or 4");
        if (set->hat != BAL_HAT_I2H && set->span != 1)
            return port_errorf(err, errlen, BAL_EINVAL,
                               "hat: constant and polynomial hats span 1 interval, not %d",
                               set->span);
    }
    memset(c, 0, sizeof *c);
    c->set = *set;
    return BAL_OK;
}

/* Share of a hat's amount handed out in its first n intervals. */
static double delivered_share(const bal_settings *set, long n, double H)
{
    double share = 0;
    for (long m = 0; m < n && m < set->span; m++) {
        bal_poly piece;
        if (bal_hat_piece(set->hat, set->span, (int)m, H, &piece) == BAL_OK)
            share += bal_poly_integral(&piece, 0, H);
    }
    return share;
}

static int book(bal_conn *c, double amount, long start)
{
    if (c->n_pend == BAL_MAX_PENDING) return BAL_EFULL;
    c->pend[c->n_pend++] = (bal_pending){amount, start};
    return BAL_OK;
}

int bal_conn_open(bal_conn *c, double H, double u, double du, bal_poly *used)
{
    if (c->open || !(H > 0) || (c->j > 0 && c->set.span > 1 && c->H != H)) return BAL_EINVAL;
    int first = c->j == 0, linear = c->set.extrap == BAL_EXTRAP_LINEAR && !first;
    bal_poly ext = {{u, linear ? du : 0}, linear ? 1 : 0};
    bal_poly ubar = ext;
    if (c->set.smooth && !first) {
        /* Ext^{j-1} continued: it was expanded at t_{j-2} = t_{j-1} - H_prev. */
        bal_poly prev = {{c->u_prev + c->du_prev * c->H, c->du_prev}, 1}, diff, psi_j, blend;
        bal_poly_axpy(1, &ext, -1, &prev, &diff);
        bal_poly_affine(&PSI, 2 / H, -1, &psi_j);
        if (bal_poly_mul(&psi_j, &diff, &blend)) return BAL_EINVAL;
        bal_poly_axpy(1, &prev, 1, &blend, &ubar);
    }
    c->int_ext = bal_poly_integral(&ext, 0, H);
    c->int_ubar = bal_poly_integral(&ubar, 0, H);
    if (c->set.bc == BAL_BC_QUICK && c->set.smooth && !first) {
        int rc = book(c, c->int_ext - c->int_ubar, c->j); /* SE_j: known now (eq. 16) */
        if (rc) return rc;
    }
    *used = ubar;
    for (int i = 0; i < c->n_pend; i++) {
        bal_poly piece;
        long m = c->j - c->pend[i].start;
        if (m < 0 || m >= c->set.span) continue;
        bal_hat_piece(c->set.hat, c->set.span, (int)m, H, &piece);
        bal_poly_axpy(1, used, c->pend[i].amount, &piece, used);
    }
    c->u_prev = u;
    c->du_prev = linear ? du : 0;
    c->H = H;
    c->j++;
    c->open = 1;
    /* Forget the corrections whose hats are now wholly handed out. */
    int k = 0;
    for (int i = 0; i < c->n_pend; i++)
        if (c->pend[i].start + c->set.span > c->j) c->pend[k++] = c->pend[i];
    c->n_pend = k;
    return BAL_OK;
}

int bal_conn_close(bal_conn *c, double A)
{
    if (!c->open) return BAL_EINVAL;
    c->open = 0;
    switch (c->set.bc) {
    case BAL_BC_CLASSIC:
        return book(c, A - c->int_ubar, c->j); /* eq. (11) */
    case BAL_BC_QUICK:
        return book(c, A - c->int_ext, c->j); /* eq. (16), BC part */
    default:
        return BAL_OK;
    }
}

double bal_conn_outstanding(const bal_conn *c)
{
    double owed = 0;
    for (int i = 0; i < c->n_pend; i++)
        owed += c->pend[i].amount * (1 - delivered_share(&c->set, c->j - c->pend[i].start, c->H));
    return owed;
}
