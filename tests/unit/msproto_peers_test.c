/* Tests of the master-slave federation's names by handle (federate/msproto/msproto_peers.h,
 * doc/master.md "Commands only from the master"): a role binds to the federate joined now
 * under its name, not to one that left nor (after the binding) to a later one; names outlive
 * resignations; the table stays bounded by forgetting the oldest federates that left. */
#include <stdio.h>

#include "federate/msproto/msproto_peers.h"
#include "tests/check.h"

static void test_roles(void)
{
    msproto_peers *p = msproto_peers_new();
    char buf[200];
    CHECK(p != NULL, "new");
    CHECK_INT_EQ(msproto_peers_handle(p, "master"), 0);
    /* a stranger took the name first and left: not the master */
    CHECK_INT_EQ(msproto_peers_joined(p, 1, "master"), 0);
    msproto_peers_resigned(p, 1);
    CHECK_INT_EQ(msproto_peers_handle(p, "master"), 0);
    CHECK_INT_EQ(msproto_peers_joined(p, 2, "prey"), 0);
    CHECK_INT_EQ(msproto_peers_joined(p, 3, "master"), 0);
    CHECK_INT_EQ(msproto_peers_joined(p, 4, "mallory"), 0);
    CHECK_INT_EQ(msproto_peers_handle(p, "master"), 3);
    CHECK_INT_EQ(msproto_peers_handle(p, "prey"), 2);
    /* a handle keeps its first name */
    CHECK_INT_EQ(msproto_peers_joined(p, 4, "master"), 0);
    CHECK_STR_EQ(msproto_peers_describe(p, 4, buf, sizeof buf), "mallory (federate 4)");
    /* names outlive the resignation (a message may be delivered after it) */
    msproto_peers_resigned(p, 4);
    CHECK_STR_EQ(msproto_peers_describe(p, 4, buf, sizeof buf), "mallory (federate 4)");
    CHECK_STR_EQ(msproto_peers_describe(p, 9, buf, sizeof buf), "federate 9 (name unknown)");
    CHECK_STR_EQ(msproto_peers_describe(NULL, 9, buf, sizeof buf), "federate 9 (name unknown)");
    CHECK(msproto_peers_joined(p, 0, "x") != 0, "handle 0 accepted");
    msproto_peers_free(p);
    msproto_peers_free(NULL);
}

static void test_bounded(void)
{
    msproto_peers *p = msproto_peers_new();
    char name[32], buf[200];
    CHECK_INT_EQ(msproto_peers_joined(p, 1, "master"), 0);
    /* joins and resignations past the limit: the oldest that left are forgotten, the master
     * (still joined) is kept */
    int fails = 0;
    for (uint32_t h = 2; h < 3 * MSPROTO_PEERS_MAX; h++) {
        snprintf(name, sizeof name, "f%u", (unsigned)h);
        fails += msproto_peers_joined(p, h, name) != 0;
        msproto_peers_resigned(p, h);
    }
    CHECK_INT_EQ(fails, 0);
    CHECK_INT_EQ(msproto_peers_handle(p, "master"), 1);
    CHECK_STR_EQ(msproto_peers_describe(p, 2, buf, sizeof buf), "federate 2 (name unknown)");
    uint32_t last = 3 * MSPROTO_PEERS_MAX - 1;
    snprintf(name, sizeof name, "f%u (federate %u)", (unsigned)last, (unsigned)last);
    CHECK_STR_EQ(msproto_peers_describe(p, last, buf, sizeof buf), name);
    /* MSPROTO_PEERS_MAX joined at once: the next one has no room */
    msproto_peers_free(p);
    p = msproto_peers_new();
    for (uint32_t h = 1; h <= MSPROTO_PEERS_MAX; h++) {
        snprintf(name, sizeof name, "g%u", (unsigned)h);
        fails += msproto_peers_joined(p, h, name) != 0;
    }
    CHECK_INT_EQ(fails, 0);
    CHECK(msproto_peers_joined(p, MSPROTO_PEERS_MAX + 1, "one-more") != 0, "past the limit");
    msproto_peers_free(p);
}

int main(void)
{
    test_roles();
    test_bounded();
    return check_summary();
}
