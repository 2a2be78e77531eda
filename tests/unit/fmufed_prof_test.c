/* Unit tests of federate/fmufed/fmufed_prof.c (tempo-fmu --profile, doc/run.md "Where the
 * time goes") over a fake slave and exchange: every operation is forwarded with its arguments
 * and result, empty slots stay empty, each call lands in its part (model, recording, wait,
 * messaging) and is counted, a part's wall time holds what its calls slept, and a wait's
 * "waited" holds its whole time; then the profile line's format. No figure is asserted beyond
 * what the calls themselves guarantee (a sleep lasts at least its length). */
#include <string.h>
#include <time.h>

#include "federate/fmufed/fmufed_prof.h"
#include "tests/check.h"

typedef struct fake {
    int steps, records, publishes, requests, inputs;
    int64_t last_t;
} fake;

static void sleep_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static int f_step(void *ctx, int64_t t, int n_sub, double *y, port_step_result *res)
{
    fake *f = ctx;
    f->steps++;
    f->last_t = t;
    sleep_ms(2);
    if (y) y[0] = 42.0 + n_sub;
    return PORT_EVENT; /* a value the wrapper must hand back unchanged */
}
static int f_record(void *ctx)
{
    ((fake *)ctx)->records++;
    return PORT_OK;
}
static int f_collect(void *ctx)
{
    return PORT_OK;
}
static const port_slave_ops fake_ops = {
    .step = f_step, .record = f_record, .collect = f_collect, .version = PORT_OPS_VERSION};

static int x_publish(void *ctx, int64_t ts, const double *y)
{
    ((fake *)ctx)->publishes++;
    return PORT_OK;
}
static int x_request(void *ctx, peer_req kind, int64_t t, int64_t *granted)
{
    ((fake *)ctx)->requests++;
    sleep_ms(3);
    if (granted) *granted = t + 1;
    return PORT_OK;
}
static int x_inputs(void *ctx, peer_input *in)
{
    ((fake *)ctx)->inputs++;
    in[0] = (peer_input){.v = 7, .t = 5, .fresh = 1};
    return PORT_OK;
}
static const peer_exchange_ops fake_x = {
    .publish = x_publish, .request = x_request, .inputs = x_inputs};

static void test_wrap(void)
{
    fake f = {0};
    port_slave s = {.ops = &fake_ops, .ctx = &f, .info = {.name = "F", .n_in = 1, .n_out = 1}};
    peer_exchange x = {.ops = &fake_x, .ctx = &f};
    fmufed_prof *p = fmufed_prof_new(s, x);
    CHECK(p != NULL, "fmufed_prof_new");
    if (!p) return;
    port_slave ps = fmufed_prof_slave(p);
    peer_exchange px = fmufed_prof_exchange(p);
    CHECK_STR_EQ(ps.info.name, "F");
    CHECK(ps.ops->set_inputs == NULL && ps.ops->get_outputs == NULL && ps.ops->save == NULL,
          "empty slots stay empty");
    CHECK(px.ops->token_send == NULL && px.ops->idle == NULL, "empty exchange slots stay empty");
    double y[1] = {0};
    port_step_result res;
    CHECK_INT_EQ(port_step(&ps, 99, 2, y, &res), PORT_EVENT);
    CHECK_INT_EQ(port_step(&ps, 100, 1, y, &res), PORT_EVENT);
    CHECK(f.steps == 2 && f.last_t == 100 && y[0] > 42.5, "forwarded: %d steps, t %lld, y %g",
          f.steps, (long long)f.last_t, y[0]);
    CHECK_INT_EQ(port_record(&ps), PORT_OK);
    double c[1] = {0};
    CHECK_INT_EQ(port_set_inputs(&ps, &(port_poly){.n = 1, .c = c}), PORT_EUNSUPPORTED);
    int64_t g = 0;
    CHECK_INT_EQ(exchange_request(&px, PEER_CLOSE, 10, &g), PORT_OK);
    CHECK(g == 11, "granted %lld", (long long)g);
    CHECK_INT_EQ(exchange_publish(&px, 10, y), PORT_OK);
    peer_input in[1];
    CHECK_INT_EQ(exchange_inputs(&px, in), PORT_OK);
    CHECK(in[0].v > 6.5 && in[0].t == 5, "inputs forwarded");
    fmufed_prof_out o;
    fmufed_prof_result(p, &o);
    CHECK(o.on == 1, "on");
    CHECK(o.calls[FMUFED_PROF_MODEL] == 2 && o.calls[FMUFED_PROF_REC] == 1 &&
              o.calls[FMUFED_PROF_WAIT] == 1 && o.calls[FMUFED_PROF_MSG] == 2,
          "calls: model %lu rec %lu wait %lu msg %lu", o.calls[FMUFED_PROF_MODEL],
          o.calls[FMUFED_PROF_REC], o.calls[FMUFED_PROF_WAIT], o.calls[FMUFED_PROF_MSG]);
    CHECK(o.wall[FMUFED_PROF_MODEL] >= 0.004, "model wall %g s holds two 2-ms sleeps",
          o.wall[FMUFED_PROF_MODEL]);
    CHECK(o.waited >= 0.003 && o.wall[FMUFED_PROF_WAIT] >= 0.003,
          "waited %g s, wait %g s hold the 3-ms sleep (nobody else ran)", o.waited,
          o.wall[FMUFED_PROF_WAIT]);
    for (int k = 0; k < FMUFED_PROF_N; k++)
        CHECK(o.cpu[k] >= 0 && o.cpu[k] <= o.wall[k] + 1e-9, "%s: CPU %g within wall %g",
              fmufed_prof_name(k), o.cpu[k], o.wall[k]);
    char line[512];
    fmufed_prof_line(line, sizeof line, "F", 2, &o);
    CHECK(!strncmp(line, "profile F steps=2 model=", 24), "line: %s", line);
    CHECK(strstr(line, " wait=") && strstr(line, " waited=") && strstr(line, " messaging=") &&
              strstr(line, " recording=") && strstr(line, " other="),
          "every part named: %s", line);
    CHECK_STR_EQ(fmufed_prof_name(FMUFED_PROF_N), "?");
    fmufed_prof_free(p);
    fmufed_prof_free(NULL);
}

int main(void)
{
    test_wrap();
    return check_summary();
}
