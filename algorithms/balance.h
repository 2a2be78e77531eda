/* The coupling layer of explicit co-simulation: what a receiver is handed over one exchange
 * interval, built from the sender's value (and slope) at the interval's start. Constant or
 * linear extrapolation, the smooth switch psi between the previous and the new extrapolation,
 * balance correction of the amount the receiver missed (classic, or with the switching error
 * refed at once), spread by hats over 1, 2 or 4 intervals.
 *
 * Scharff, Moshagen, Vondrejc, "Treating Smoothness and Balance during Data Exchange in
 * Explicit Simulator Coupling or Cosimulation" (2017), §2-§5; doc/algorithms/balance-correction.md
 * has the equations, the master's pseudo-code and our choices. Everything on one interval is a
 * polynomial of degree <= 8 in s = t - t_{j-1} (seconds), so a receiver gets exact coefficients
 * (algorithms/port.h port_poly) and every integral here is exact. Read algorithms/balance.c next.
 * Pure C: libc and libm only.
 */
#ifndef TEMPO_ALGORITHMS_BALANCE_H
#define TEMPO_ALGORITHMS_BALANCE_H

#include <stddef.h>

#define BAL_MAX_DEG     8 /* linear extrapolation blended by psi (degree 7) times s: 8 */
#define BAL_MAX_PENDING 8 /* corrections alive at once: 2 per interval over at most 4 */

/* Status codes: 0 success, negative errors. */
enum {
    BAL_OK = 0,
    BAL_EINVAL = -1, /* bad settings or argument (the message of bal_conn_init says which) */
    BAL_EFULL = -2,  /* more pending corrections than BAL_MAX_PENDING (cannot happen with
                        valid settings; kept as a guard) */
};

/* A polynomial a[0] + a[1] s + ... + a[deg] s^deg. */
typedef struct bal_poly {
    double a[BAL_MAX_DEG + 1]; /* coefficients, unused ones 0 */
    int deg;                   /* highest index in use, 0..BAL_MAX_DEG */
} bal_poly;

/** Value at s (Horner). */
double bal_poly_eval(const bal_poly *p, double s);
/** The k-th derivative at s (k >= 0). */
double bal_poly_deriv(const bal_poly *p, int k, double s);
/** Exact integral over [s0, s1]. */
double bal_poly_integral(const bal_poly *p, double s0, double s1);
/** r = p(alpha s + beta) (composition with an affine map; exact up to rounding). */
void bal_poly_affine(const bal_poly *p, double alpha, double beta, bal_poly *r);
/** r = p * q; returns BAL_EINVAL when the degree would exceed BAL_MAX_DEG (r untouched). */
int bal_poly_mul(const bal_poly *p, const bal_poly *q, bal_poly *r);
/** r = x p + y q. */
void bal_poly_axpy(double x, const bal_poly *p, double y, const bal_poly *q, bal_poly *r);

/* The reference functions on [-1, 1] (Scharff et al. §5), zero outside (psi: 0 left, 1 right),
 * which bal_hat_piece cuts into polynomial pieces (tests/unit/balance_test.c evaluates these
 * closed forms as its reference):
 *   hat:    (35/32)(1 - x^2)^3                              eq. (20)-(22), integral 1, C2
 *   psi:    1/2 + (35x - 35x^3 + 21x^5 - 5x^7)/32            eq. (23), the integral of hat, C3
 *   i2h:    psi(2x + 1) for x < 0, psi(1 - 2x) for x >= 0    eq. (24)-(25), integral 1, peak 1 */

/* Extrapolation of the sender's signal over an interval (§2.2). */
typedef enum bal_extrap {
    BAL_EXTRAP_CONSTANT = 0, /* u(t_{j-1}) held */
    BAL_EXTRAP_LINEAR = 1,   /* u(t_{j-1}) + u'(t_{j-1}) (t - t_{j-1}); constant on the first */
} bal_extrap;

/* Balance correction (§2.3.6, §4.3). */
typedef enum bal_bc {
    BAL_BC_OFF = 0,
    BAL_BC_CLASSIC = 1, /* dE_j = A_j - int(u_bar^j), refed from t_j on (eq. 11) */
    BAL_BC_QUICK = 2,   /* A_j - int(Ext^j) from t_j on, and the switching error
                           int(Ext^j - u_bar^j), known at t_{j-1}, from t_{j-1} on (eq. 16) */
} bal_bc;

/* The hat that spreads a correction (eq. 19 maps it onto its support). */
typedef enum bal_hat_kind {
    BAL_HAT_CONST = 0, /* 1/L: discontinuous; span 1 only */
    BAL_HAT_POLY = 1,  /* (35/32)(1 - x^2)^3; span 1 only */
    BAL_HAT_I2H = 2,   /* integral of two hats; span 2 or 4 (not polynomial on one interval) */
} bal_hat_kind;

typedef struct bal_settings {
    bal_extrap extrap;
    int smooth; /* 1: blend Ext^{j-1} into Ext^j with psi over the interval (eq. 12) */
    bal_bc bc;
    bal_hat_kind hat;
    int span; /* intervals a hat covers: 1 (const, poly) or 2, 4 (i2h) */
} bal_settings;

/* One correction still being delivered. */
typedef struct bal_pending {
    double amount; /* what it adds in all, the signal's unit times seconds */
    long start;    /* index of the interval its hat starts in (0-based) */
} bal_pending;

/* The layer's state for one scalar connection. Zero it with bal_conn_init. */
typedef struct bal_conn {
    bal_settings set;
    long j;                 /* intervals handed out so far */
    double H;               /* interval length of the last interval (s); multi-interval hats
                               need it constant (checked) */
    double u_prev, du_prev; /* data that defined Ext^{j-1} (value, slope at its own start) */
    double int_ubar;        /* integral of u_bar over the last interval (no corrections) */
    double int_ext;         /* integral of Ext over the last interval */
    int open;               /* 1 between bal_conn_open and bal_conn_close */
    bal_pending pend[BAL_MAX_PENDING];
    int n_pend;
} bal_conn;

/**
 * Check settings and reset the state.
 * @param c   the connection, not NULL
 * @param set settings, not NULL
 * @param err receives the reason on BAL_EINVAL (which setting), errlen its size
 * @return BAL_OK or BAL_EINVAL.
 */
int bal_conn_init(bal_conn *c, const bal_settings *set, char *err, size_t errlen);

/**
 * Open the next interval [t_{j-1}, t_{j-1} + H]: the signal the receiver uses on it, as a
 * polynomial in s = t - t_{j-1}: extrapolation, switch, and the corrections due in it (the
 * master's pseudo-code of doc/algorithms/balance-correction.md).
 * @param c       the connection (the previous interval closed, or none yet)
 * @param H       interval length (s), > 0; constant when span > 1
 * @param u, du   the sender's value and slope at t_{j-1} (du ignored for constant)
 * @param used    out: the polynomial, not NULL
 * @return BAL_OK, BAL_EINVAL (H <= 0, H changed with span > 1, an interval still open),
 *         BAL_EFULL.
 */
int bal_conn_open(bal_conn *c, double H, double u, double du, bal_poly *used);

/**
 * Close the interval opened last, once the sender's exact amount over it is known:
 * A = int_{t_{j-1}}^{t_j} u dt (for example the difference of a cumulative integral output).
 * With BC on, this books the balance error (eq. 11; eq. 16's BC part for the quick variant)
 * for delivery from the next interval on. Without BC, A is ignored.
 * @return BAL_OK, BAL_EINVAL (no interval open), BAL_EFULL.
 */
int bal_conn_close(bal_conn *c, double A);

/**
 * Amount still owed to the receiver: each pending correction times the share of its hat not
 * yet handed out. With BC on, right after bal_conn_close it equals the cumulative imbalance
 * sum_k (A_k - int u_used,k) (the telescoping property, Scharff et al. §2.3.6).
 */
double bal_conn_outstanding(const bal_conn *c);

/**
 * The restriction to interval m (0 <= m < span) of a hat of the given kind whose support is
 * span intervals of length H starting at 0, scaled by eq. 19 (integral 1 over the support),
 * as a polynomial in the interval's own s.
 * @return BAL_OK, BAL_EINVAL (kind/span mismatch, m out of range, H <= 0).
 */
int bal_hat_piece(bal_hat_kind kind, int span, int m, double H, bal_poly *out);

#endif /* TEMPO_ALGORITHMS_BALANCE_H */
