/* A house of the smart-grid case (the Awais thesis §4.2.3; doc/cases/houses.md): one thermal
 * volume losing heat to the ambient, a heater switched by a hysteresis controller, and an
 * agent that lowers the controller's band when electricity is dear. The house's size,
 * insulation, heater and set point are drawn from its `seed`, so that every house differs.
 * Both kinds. Read doc/cases/houses.md for the equations and every constant. */
#include "examples/fmus/framework/fw.h"
#include "examples/fmus/house/house_model.h"

enum {
    SEED,
    BAND,
    K_PRICE,
    P_REF,
    AGENT_PERIOD,
    C_VOL, /* parameters */
    T_AMB,
    PRICE, /* inputs */
    T_IN,
    E,
    DER_T,
    DER_E, /* states and their derivatives */
    P,
    HEATER,
    T_LOW,
    T_HIGH, /* outputs */
    VOLUME,
    UA,
    P_RATED,
    T_SET,
    T_START, /* drawn from the seed */
    NV
};

static const fw_var vars[NV] = {
    [SEED] = {"seed", FW_PARAM, 0, -1, 1, NULL,
              "integer that draws this house's volume, insulation, heater and set point", NULL},
    [BAND] = {"band", FW_PARAM, 0, -1, HOUSE_BAND, "K", "width of the controller's hysteresis band",
              NULL},
    [K_PRICE] = {"k_price", FW_PARAM, 0, -1, HOUSE_K_PRICE, "K",
                 "set-point drop per unit of price above p_ref", NULL},
    [P_REF] = {"p_ref", FW_PARAM, 0, -1, HOUSE_P_REF, NULL,
               "price below which the agent keeps the set point", NULL},
    [AGENT_PERIOD] = {"agent_period", FW_PARAM, 0, -1, HOUSE_AGENT_PERIOD, "s",
                      "the agent reads the price and moves the band every agent_period", NULL},
    [C_VOL] = {"c_vol", FW_PARAM, 0, -1, HOUSE_C_VOL, "J/(m3.K)",
               "effective heat capacity per m3 of volume (air, walls, furniture)", NULL},
    [T_AMB] = {"T_amb", FW_INPUT, 0, -1, 10.0, "degC", "ambient temperature", NULL},
    [PRICE] = {"price", FW_INPUT, 0, -1, 0.1, NULL, "electricity price per kWh", NULL},
    [T_IN] = {"T_in", FW_OUTPUT, 0, -1, 0, "degC", "inside temperature", NULL},
    [E] = {"E", FW_OUTPUT, 0, -1, 0, "kWh", "electric energy consumed since the start", NULL},
    [DER_T] = {"der(T_in)", FW_LOCAL, 0, T_IN, 0, "K/s", "(UA (T_amb - T_in) + P) / (c_vol volume)",
               NULL},
    [DER_E] = {"der(E)", FW_LOCAL, 0, E, 0, "kWh/s", "P / 3.6e6", NULL},
    [P] = {"P", FW_OUTPUT, 1, -1, 0, "W",
           "electric power drawn: P_rated when the heater is on, else 0", .depends = "T_in price"},
    [HEATER] = {"heater", FW_OUTPUT, 1, -1, 0, NULL, "1 while the heater is on",
                .depends = "T_in price"},
    [T_LOW] = {"T_low", FW_OUTPUT, 1, -1, 0, "degC",
               "the band's lower edge: the heater switches on below it", .depends = "price"},
    [T_HIGH] = {"T_high", FW_OUTPUT, 1, -1, 0, "degC",
                "the band's upper edge: the heater switches off above it", .depends = "price"},
    [VOLUME] = {"volume", FW_LOCAL, 0, -1, 0, "m3", "150 + 300 u1", NULL},
    [UA] = {"UA", FW_LOCAL, 0, -1, 0, "W/K", "heat loss coefficient, 100 + 150 u2", NULL},
    [P_RATED] = {"P_rated", FW_LOCAL, 0, -1, 0, "W", "heater power, 5000 + 5000 u3", NULL},
    [T_SET] = {"T_set", FW_LOCAL, 0, -1, 0, "degC", "set point at a cheap price, 19 + 2 u4", NULL},
    [T_START] = {"T_start", FW_LOCAL, 0, -1, 0, "degC",
                 "initial temperature, T_set + band (u5 - 1/2)", NULL},
};

/* The band for the current price (house_model.h). */
static void agent(double *r)
{
    r[T_LOW] = house_band_low(r[PRICE], r[T_SET], r[K_PRICE], r[P_REF], r[BAND]);
    r[T_HIGH] = r[T_LOW] + r[BAND];
}

static void init(fw_ctx *c)
{
    double *r = c->r;
    house_drawn h = house_from_seed(r[SEED], r[BAND]);
    r[VOLUME] = h.volume;
    r[UA] = h.ua;
    r[P_RATED] = h.p_rated;
    r[T_SET] = h.t_set;
    r[T_START] = h.t_start;
    r[T_IN] = r[T_START];
    r[E] = 0.0;
    r[HEATER] = 0.0;
    agent(r);
}

static void outputs(fw_ctx *c)
{
    c->r[P] = c->r[HEATER] > 0.5 ? c->r[P_RATED] : 0.0;
}

static void derivatives(fw_ctx *c)
{
    double *r = c->r;
    double p = r[HEATER] > 0.5 ? r[P_RATED] : 0.0;
    r[DER_T] = (r[UA] * (r[T_AMB] - r[T_IN]) + p) / (r[C_VOL] * r[VOLUME]);
    r[DER_E] = p / 3.6e6;
}

/* One indicator: the distance to the edge that switches the heater next (on: the upper
 * edge, off: the lower one); it falls through 0 when the controller must switch. */
static void indicators(fw_ctx *c, double *z)
{
    const double *r = c->r;
    z[0] = r[HEATER] > 0.5 ? r[T_HIGH] - r[T_IN] : r[T_IN] - r[T_LOW];
}

/* At a crossing the controller switches; at the agent's time events (every agent_period from
 * the start) the band follows the price and the controller re-checks it at once. */
static void event(fw_ctx *c, fw_event *ev)
{
    double *r = c->r;
    if (ev->initial || ev->time_event) agent(r);
    if (r[HEATER] > 0.5 && r[T_IN] >= r[T_HIGH])
        r[HEATER] = 0.0;
    else if (r[HEATER] < 0.5 && r[T_IN] <= r[T_LOW])
        r[HEATER] = 1.0;
    if (r[AGENT_PERIOD] > 0) {
        /* From the count of periods, so the agent's times do not drift. */
        double k = floor(c->t / r[AGENT_PERIOD] + 0.5) + 1.0;
        ev->next_time = k * r[AGENT_PERIOD];
    } else {
        ev->next_time = INFINITY;
    }
}

/* T_in' and E' are the derivatives; P and the discrete outputs are constant between events. */
static int output_der(fw_ctx *c, unsigned vr, int order, double *value)
{
    if (order != 1) return -1;
    if (vr == T_IN)
        *value = c->r[DER_T];
    else if (vr == E)
        *value = c->r[DER_E];
    else if (vr == P || vr == HEATER || vr == T_LOW || vr == T_HIGH)
        *value = 0.0;
    else
        return -1;
    return 0;
}

const fw_model fw_model_def = {
    .id = "house",
    .description = "House: thermal volume, hysteresis heater, price-driven agent",
    .nvars = NV,
    .vars = vars,
    .nz = 1,
    .max_output_order = 1,
    .has_me = 1,
    .has_cs = 1,
    .stop_time = 86400.0,
    .step_size = 60.0,
    .tolerance = 1e-8,
    .nbounds = 3,
    .bounds =
        (const fw_bounds[]){{BAND, 0.01, 10.0}, {AGENT_PERIOD, 0.0, 86400.0}, {C_VOL, 1.0, 1e7}},
    .init = init,
    .derivatives = derivatives,
    .outputs = outputs,
    .indicators = indicators,
    .event = event,
    .output_der = output_der,
};
