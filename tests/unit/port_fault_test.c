/* Tests of fault injection through the port (tests/unit/port_fault.h), which the algorithms'
 * unit tests use to make a slave fail: a wrapped slave that is not armed behaves as the bare one
 * (same results, same statuses, same empty slots); an armed one fails exactly the call it names,
 * from the post and at the next collect, without reaching the slave; an injected error wins over
 * the slave's own event. algorithms/port.h, "Calling a slave" and "Post and collect". And the
 * peer side's calls (algorithms/exchange.h, exchange_*): checks, empty slots, forwarding. */
#include <stdint.h>
#include <string.h>

#include "algorithms/exchange.h"
#include "algorithms/port.h"
#include "tests/check.h"
#include "tests/unit/port_fault.h"

/* A slave whose output is its time in ticks; its step to an odd tick stops early at an event. */
typedef struct clock_slave {
    int64_t t;
    int status; /* owed to collect */
    long steps; /* steps that reached the slave */
} clock_slave;

static int c_step(void *ctx, int64_t t_to, int n_sub, double *y, port_step_result *res)
{
    clock_slave *c = ctx;
    c->steps++;
    int ev = t_to % 2 != 0;
    c->t = ev ? t_to - 1 : t_to;
    if (y) y[0] = (double)c->t;
    if (res) *res = (port_step_result){.t_reached = c->t, .event = ev, .n_sub_done = 1};
    if (ev && c->status == PORT_OK) c->status = PORT_EVENT;
    return PORT_OK;
}
static int c_get_outputs(void *ctx, double *y)
{
    y[0] = (double)((clock_slave *)ctx)->t;
    return PORT_OK;
}
static int c_collect(void *ctx)
{
    clock_slave *c = ctx;
    int st = c->status;
    c->status = PORT_OK;
    return st;
}
static const port_slave_ops clock_ops = {.version = PORT_OPS_VERSION,
                                         .step = c_step,
                                         .get_outputs = c_get_outputs,
                                         .collect = c_collect};

static port_slave clock_of(clock_slave *c)
{
    memset(c, 0, sizeof *c);
    return (port_slave){.ops = &clock_ops, .ctx = c, .info = {.name = "clock", .n_out = 1}};
}

/* Unarmed: the same outputs, step results and statuses as the bare slave, the same slots. */
static void test_transparent(void)
{
    clock_slave a, b;
    port_slave bare = clock_of(&a), wrapped = clock_of(&b);
    port_fault f;
    port_fault_wrap(&f, &wrapped);
    CHECK(wrapped.ops != bare.ops && wrapped.ctx == &f, "the slave is wrapped in place");
    CHECK_STR_EQ(wrapped.info.name, "clock");
    for (int64_t t = 2; t <= 12; t += 3) {
        double ya = -1, yb = -1;
        port_step_result ra, rb;
        CHECK_INT_EQ(port_step(&wrapped, t, 1, &yb, &rb), port_step(&bare, t, 1, &ya, &ra));
        CHECK(ya == yb && ra.t_reached == rb.t_reached && ra.event == rb.event, "step to %lld",
              (long long)t);
        CHECK_INT_EQ(port_collect(&wrapped), port_collect(&bare));
    }
    for (int op = PORT_OP_OUTPUT_DERIVS; op <= PORT_OP_RECORD; op++)
        CHECK_INT_EQ(port_has(&wrapped, (port_op)op), port_has(&bare, (port_op)op));
    /* an empty slot stays empty: the port_* default answers, the slave is not reached */
    CHECK_INT_EQ(port_save(&wrapped, 0), PORT_EUNSUPPORTED);
    CHECK_INT_EQ(port_record(&wrapped), PORT_OK);
    CHECK_INT_EQ(f.calls[PF_STEP], 4);
}

/* Armed: the third step fails with a discard, from the post and at the next collect only. */
static void test_armed(void)
{
    clock_slave c;
    port_slave s = clock_of(&c);
    port_fault f;
    port_fault_wrap(&f, &s);
    port_fault_arm(&f, PF_STEP, 3, PORT_EDISCARD);
    CHECK_INT_EQ(port_step(&s, 2, 1, NULL, NULL), PORT_OK);
    CHECK_INT_EQ(port_step(&s, 4, 1, NULL, NULL), PORT_OK);
    CHECK_INT_EQ(port_collect(&s), PORT_OK);
    CHECK_INT_EQ(port_step(&s, 6, 1, NULL, NULL), PORT_EDISCARD);
    CHECK_INT_EQ(c.steps, 2); /* the slave never saw the third */
    CHECK_INT_EQ(c.t, 4);
    CHECK_INT_EQ(port_collect(&s), PORT_EDISCARD);
    CHECK_INT_EQ(port_collect(&s), PORT_OK); /* reported once */
    CHECK_INT_EQ(port_step(&s, 6, 1, NULL, NULL), PORT_OK);
    CHECK_INT_EQ(c.t, 6);
    /* an injected error wins over the slave's own event of the same round */
    port_fault_arm(&f, PF_GET_OUTPUTS, 1, PORT_EFAIL);
    double y;
    CHECK_INT_EQ(port_step(&s, 9, 1, NULL, NULL), PORT_OK); /* stops at 8: an event */
    CHECK_INT_EQ(port_get_outputs(&s, &y), PORT_EFAIL);
    CHECK_INT_EQ(port_collect(&s), PORT_EFAIL);
    /* an injected event does not hide the slave's error... and an error of the slave passes */
    port_fault_arm(&f, PF_STEP, 6, PORT_EVENT);
    c.status = PORT_ELOST;
    CHECK_INT_EQ(port_step(&s, 10, 1, NULL, NULL), PORT_EVENT);
    CHECK_INT_EQ(port_collect(&s), PORT_ELOST);
}

/* An exchange with publish and request only: the defaults of the empty slots, the checks. */
static int64_t g_req_t;
static int x_publish(void *ctx, int64_t ts, const double *y)
{
    *(double *)ctx = y[0] + (double)ts;
    return PORT_OK;
}
static int x_request(void *ctx, peer_req kind, int64_t t, int64_t *granted)
{
    g_req_t = t;
    if (granted) *granted = kind == PEER_FLUSH ? t - 1 : t;
    return PORT_OK;
}
static void test_exchange(void)
{
    static const peer_exchange_ops ops = {.publish = x_publish, .request = x_request};
    double got = 0, y = 2.5;
    peer_exchange x = {.ops = &ops, .ctx = &got};
    int64_t g = 0;
    CHECK_INT_EQ(exchange_publish(&x, 4, &y), PORT_OK);
    CHECK(got == 6.5, "published %g", got);
    CHECK_INT_EQ(exchange_request(&x, PEER_FLUSH, 10, &g), PORT_OK);
    CHECK(g == 9 && g_req_t == 10, "granted %lld", (long long)g);
    CHECK_INT_EQ(exchange_request(&x, (peer_req)9, 10, &g), PORT_EUSAGE);
    CHECK_INT_EQ(exchange_publish(&x, 4, NULL), PORT_EUSAGE);
    CHECK_INT_EQ(exchange_publish(NULL, 4, &y), PORT_EUSAGE);
    /* empty slots */
    peer_input in[1];
    CHECK_INT_EQ(exchange_inputs(&x, in), PORT_EUNSUPPORTED);
    CHECK_INT_EQ(exchange_token_send(&x, 3), PORT_EUNSUPPORTED);
    CHECK(exchange_token_time(&x) == PEER_NO_TIME, "no token without a token_time");
    CHECK_INT_EQ(exchange_idle(&x, 0, 3, "x"), PORT_OK);
    CHECK(exchange_token_time(NULL) == PEER_NO_TIME, "NULL exchange");
}

int main(void)
{
    test_exchange();
    test_transparent();
    test_armed();
    return check_summary();
}
