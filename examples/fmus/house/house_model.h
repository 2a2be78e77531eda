/* The house of the smart-grid case, written once for the FMU (examples/fmus/house/house.c) and
 * the case's exact reference (examples/houses/houses.c): the parameters a seed draws and the
 * agent's band. Equations and constants: doc/cases/houses.md. */
#ifndef TEMPO_EXAMPLES_HOUSE_MODEL_H
#define TEMPO_EXAMPLES_HOUSE_MODEL_H

#include <stdint.h>

/* The parameters' defaults (the FMU's start values; the reference uses them too). */
#define HOUSE_BAND         1.0     /* K: width of the hysteresis band */
#define HOUSE_K_PRICE      5.0     /* K per unit of price above p_ref: the set point's drop */
#define HOUSE_P_REF        0.1     /* price below which the set point stays */
#define HOUSE_AGENT_PERIOD 60.0    /* s: the agent reads the price this often */
#define HOUSE_C_VOL        12000.0 /* J/(m3 K): effective heat capacity per m3 */

/* What a seed draws for one house. */
typedef struct house_drawn {
    double volume;  /* m3: 150 + 300 u1 */
    double ua;      /* W/K: heat loss coefficient, 100 + 150 u2 */
    double p_rated; /* W: heater power, 5000 + 5000 u3 */
    double t_set;   /* degC: set point at a cheap price, 19 + 2 u4 */
    double t_start; /* degC: initial temperature, t_set + band (u5 - 1/2) */
} house_drawn;

/* The k-th uniform number in [0, 1) of a seed: splitmix64 of seed * 8 + k, top 53 bits. */
static inline double house_draw(double seed, int k)
{
    uint64_t z = (uint64_t)(int64_t)seed * 8u + (uint64_t)k + 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

static inline house_drawn house_from_seed(double seed, double band)
{
    house_drawn h;
    h.volume = 150.0 + 300.0 * house_draw(seed, 1);
    h.ua = 100.0 + 150.0 * house_draw(seed, 2);
    h.p_rated = 5000.0 + 5000.0 * house_draw(seed, 3);
    h.t_set = 19.0 + 2.0 * house_draw(seed, 4);
    h.t_start = h.t_set + band * (house_draw(seed, 5) - 0.5);
    return h;
}

/* The agent: the band's lower edge for a price; the set point drops by k_price per unit of
 * price above p_ref. The upper edge is lower + band. */
static inline double house_band_low(double price, double t_set, double k_price, double p_ref,
                                    double band)
{
    double over = price > p_ref ? price - p_ref : 0.0;
    return t_set - k_price * over - 0.5 * band;
}

#endif
