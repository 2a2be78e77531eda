/* Tests of the port's own helpers (algorithms/port.h): status names, saturating tick sums,
 * the worst-status rule of port_sync over fake slaves. doc/algorithms/port.md. */
#include <stdint.h>
#include <string.h>

#include "algorithms/port.h"
#include "tests/check.h"

static int fake_collect(void *ctx)
{
    return *(int *)ctx;
}
static const port_slave_ops fake_ops = {.collect = fake_collect};

/* port_sync over three fake slaves; *culprit (may be NULL) gets port_sync_first's answer. */
static int sync_of3(int a, int b, int c, int *st, long *culprit)
{
    int v[3] = {a, b, c};
    port_slave s[3];
    for (int j = 0; j < 3; j++)
        s[j] = (port_slave){.ops = &fake_ops, .ctx = &v[j]};
    port_master m = {.slaves = s, .n_slaves = 3};
    long k;
    int rc = port_sync_first(&m, st, &k);
    if (culprit) *culprit = k;
    return rc;
}

static int sync_of(int a, int b, int c, int *st)
{
    return sync_of3(a, b, c, st, NULL);
}

int main(void)
{
    CHECK_STR_EQ(port_strerror(PORT_OK), "ok");
    CHECK_STR_HAS(port_strerror(PORT_EDISCARD), "discarded");
    CHECK_STR_HAS(port_strerror(12345), "unknown");
    CHECK_INT_EQ(port_tick_add(INT64_MAX - 5, 10), INT64_MAX);
    CHECK_INT_EQ(port_tick_add(INT64_MIN + 5, -10), INT64_MIN);
    CHECK_INT_EQ(port_tick_add(100, -30), 70);
    int st[3];
    CHECK_INT_EQ(sync_of(PORT_OK, PORT_OK, PORT_OK, st), PORT_OK);
    CHECK_INT_EQ(sync_of(PORT_EVENT, PORT_OK, PORT_TERMINATED, st), PORT_TERMINATED);
    CHECK_INT_EQ(sync_of(PORT_EVENT, PORT_EDISCARD, PORT_ELOST, st), PORT_ELOST);
    CHECK_INT_EQ(st[0], PORT_EVENT);
    CHECK_INT_EQ(st[1], PORT_EDISCARD);
    CHECK_INT_EQ(sync_of(PORT_EFAIL, PORT_OK, PORT_EDISCARD, NULL), PORT_EFAIL);
    /* The slave a report names: the first with the status returned; none when all are ok. */
    long k = 7;
    sync_of3(PORT_OK, PORT_OK, PORT_OK, NULL, &k);
    CHECK_INT_EQ(k, -1);
    sync_of3(PORT_EVENT, PORT_EDISCARD, PORT_ELOST, NULL, &k);
    CHECK_INT_EQ(k, 2);
    sync_of3(PORT_EFAIL, PORT_OK, PORT_EFAIL, NULL, &k);
    CHECK_INT_EQ(k, 0);
    sync_of3(PORT_OK, PORT_TERMINATED, PORT_EVENT, NULL, &k);
    CHECK_INT_EQ(k, 1);
    return check_summary();
}
