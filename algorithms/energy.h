/* Negotiated power exchange over the port (Moshagen, "On meeting Energy Balance Errors in
 * Cosimulations", 2017, §4): at every communication point two exchanges at one instant, the
 * standard outputs first, then each side's interface power computed from its own state and the
 * up-to-date standard input; both sides then get the same agreed power with opposite signs,
 * P^ = (P_b - P_a) / 2 into b and -P^ into a, and rebuild the replaced input from it at every
 * evaluation of their right-hand side, so the energy leaving one side is the energy entering
 * the other at every instant. doc/algorithms/energy-balance.md. libc and libm only.
 */
#ifndef TEMPO_ALGORITHMS_ENERGY_H
#define TEMPO_ALGORITHMS_ENERGY_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/port.h"

/* One boundary between slaves a and b (indices into the master's slaves). Output and input
 * indices are positions in each slave's outputs and inputs. */
typedef struct energy_link {
    size_t a, b;
    size_t a_out, b_out;   /* standard outputs: a_out feeds b's standard input, b_out a's */
    long a_slope, b_slope; /* outputs holding their slopes (linear extrapolation), -1: hold */
    size_t a_in, b_in;     /* standard inputs (a fallback for the slave near a zero of the
                              power law's divisor) */
    size_t a_pin, b_pin;   /* power inputs: the agreed power into the slave */
    size_t a_P, b_P;       /* power outputs: the rate at which the boundary feeds the slave's
                              energy, from its state and its standard input */
    long a_W, b_W;         /* outputs holding each side's stored energy, or -1 (both or none):
                              with both, the energy a side missed over a step (its agreed power's
                              integral minus the change of its energy: what the inversion could
                              not deliver near a zero of its divisor) is refed to it over the
                              next step as a constant extra power, and a side about to be
                              emptied gets the linear power that empties it exactly where the
                              power vanishes, its slope p0^2 / (2 W) ("landing"; our additions,
                              doc/algorithms/energy-balance.md) */
} energy_link;

/* The agreed power over a step [T, T + H] (doc/algorithms/energy-balance.md "The power's
 * slope"): held at its value at T (order 1 in H); linear with the slope negotiated at T from a
 * third exchange, the paper's dP^ (order 2, three exchanges per step); linear through the
 * agreed values of T - H and T, the negotiated slope on the first step (order 2 with an error
 * 2.5 times larger, two exchanges per step and one more on the first). */
enum energy_p_order { ENERGY_P_HELD = 0, ENERGY_P_LINEAR = 1, ENERGY_P_SECANT = 2 };

typedef struct energy_settings {
    int64_t H; /* macro step, ticks */
    const energy_link *links;
    size_t n_links;
    int p_order; /* agreed power over a step (energy_p_order): held, linear with the slope
                    negotiated at T, or linear through the last two agreed values */
} energy_settings;

typedef struct energy_stats {
    long steps;      /* macro steps */
    long exchanges;  /* exchanges at one instant: two per step, three with the linear power
                        (and on the first step with the secant) */
    long operations; /* port operations posted */
    double missed;   /* energy missed over the last step, summed over the links with refeed
                        (the total energy is off by this much, and only this: the refeed
                        telescopes) */
    long landings;   /* steps whose power was chosen to land a side on its zero (refeed on) */
} energy_stats;

/**
 * Run from m->t_start to m->t_end. Every input of every slave must belong to one link (its
 * standard or its power input). Each slave records at the start and after every step.
 * @return PORT_OK; PORT_EUSAGE (settings; err names the link); a slave's failure status.
 */
int energy_run(const port_master *m, const energy_settings *set, energy_stats *st, char *err,
               size_t errlen);

#endif /* TEMPO_ALGORITHMS_ENERGY_H */
