/* Integration test of libtempo's federation services against a real bin/tempo-rti
 * (doc/architecture.md §6, §10): create and destroy a federation, the join refusals (missing
 * federation without create, duplicate federate name, a different FOM, a wrong or missing shared
 * secret), destroy refused while federates are joined, and the Unix-socket transport. Each refusal
 * must come back as its own TP_E* code with a message naming what is wrong. */
#include "tests/integration/client_harness.h"

/* An RTI that requires a shared secret: a JOIN, CREATE_FEDERATION or DESTROY_FEDERATION
 * with a wrong or missing secret is refused (TP_EAUTH); with the secret each one works. */
static void secret_rti(void)
{
    const char *const sargs[] = {"--log-level", "error", "--secret", "s3cret", NULL};
    const char *addr = harness_start_rti(sargs, 60);
    if (!addr) return;
    char err[512] = "";
    tp_federate *f = NULL;
    tp_join_options sj = {.rti = addr,
                          .federation = "sec",
                          .federate = "a",
                          .fom_path = "fom/test.xml",
                          .create = 1,
                          .timeout_ms = 5000};
    sj.secret = "wrong";
    CHECK_INT_EQ(tp_join(&sj, NULL, NULL, &f, err, sizeof err), TP_EAUTH);
    CHECK_STR_HAS(err, "secret");
    sj.secret = NULL;
    CHECK_INT_EQ(tp_join(&sj, NULL, NULL, &f, err, sizeof err), TP_EAUTH);
    /* CREATE_FEDERATION and DESTROY_FEDERATION carry the secret too; each call is a
     * connection of its own, so nothing from an earlier JOIN vouches for it. */
    CHECK_INT_EQ(tp_create_federation(&sj, err, sizeof err), TP_EAUTH);
    CHECK_STR_HAS(err, "secret");
    sj.secret = "s3cre"; /* a prefix of the secret is not the secret */
    CHECK_INT_EQ(tp_create_federation(&sj, err, sizeof err), TP_EAUTH);
    sj.secret = "s3cret";
    CHECK_INT_EQ(tp_create_federation(&sj, err, sizeof err), TP_OK);
    CHECK_INT_EQ(tp_create_federation(&sj, err, sizeof err), TP_EEXISTS); /* it was created */
    sj.secret = "wrong";
    CHECK_INT_EQ(tp_destroy_federation(&sj, err, sizeof err), TP_EAUTH);
    CHECK_STR_HAS(err, "secret");
    sj.secret = NULL;
    CHECK_INT_EQ(tp_destroy_federation(&sj, err, sizeof err), TP_EAUTH);
    sj.secret = "s3cret";
    CHECK_INT_EQ(tp_destroy_federation(&sj, err, sizeof err), TP_OK);
    CHECK_INT_EQ(tp_destroy_federation(&sj, err, sizeof err), TP_ENOTFOUND); /* it is gone */
    /* A JOIN with the secret and create = 1 creates it again; the RTI destroys it when its
     * last federate resigns (doc/rti.md), so a DESTROY afterwards finds nothing. */
    CHECK_INT_EQ(tp_join(&sj, NULL, NULL, &f, err, sizeof err), TP_OK);
    if (f) {
        CHECK_INT_EQ(tp_resign(f, TP_DELETE_OBJECTS), TP_OK);
        tp_federate_free(f);
    }
    CHECK_INT_EQ(tp_destroy_federation(&sj, err, sizeof err), TP_ENOTFOUND);
    harness_stop_rti();
}

int main(void)
{
    char sock[80];
    snprintf(sock, sizeof sock, "/tmp/tempo-fed-test-%d.sock", (int)getpid());
    const char *const args[] = {"--log-level", "warn", "--unix", sock, NULL};
    const char *addr = harness_start_rti(args, 60);
    if (!addr) return check_summary();
    char err[512] = "";
    tp_join_options o = {
        .rti = addr, .federation = "made", .fom_path = "fom/test.xml", .timeout_ms = 5000};

    /* create, create again */
    CHECK_INT_EQ(tp_create_federation(&o, err, sizeof err), TP_OK);
    CHECK_INT_EQ(tp_create_federation(&o, err, sizeof err), TP_EEXISTS);
    CHECK_STR_HAS(err, "made");
    tp_join_options nofom = o;
    nofom.fom_path = NULL;
    CHECK_INT_EQ(tp_create_federation(&nofom, err, sizeof err), TP_EINVAL);
    nofom.fom_text = "<fom name=\"x\">\n  <bogus/>\n</fom>\n"; /* checked before connecting */
    CHECK_INT_EQ(tp_create_federation(&nofom, err, sizeof err), TP_EFOM);
    CHECK_STR_HAS(err, "<fom_text>:2");

    /* join: missing federation without create */
    tp_federate *f = NULL, *g = NULL, *h = NULL;
    tp_join_options j = o;
    j.federation = "missing";
    j.federate = "a";
    CHECK_INT_EQ(tp_join(&j, NULL, NULL, &f, err, sizeof err), TP_ENOTFOUND);
    CHECK_STR_HAS(err, "missing");
    CHECK(f == NULL, "no federate");

    j.federation = "made";
    /* good join, duplicate name, different FOM */
    CHECK_INT_EQ(tp_join(&j, NULL, NULL, &f, err, sizeof err), TP_OK);
    CHECK_INT_EQ(tp_join(&j, NULL, NULL, &g, err, sizeof err), TP_EEXISTS);
    CHECK_STR_HAS(err, "a");
    tp_join_options d = j;
    d.federate = "b";
    d.fom_path = "fom/demo.xml";
    CHECK_INT_EQ(tp_join(&d, NULL, NULL, &g, err, sizeof err), TP_EFOMDIFF);
    CHECK(g == NULL, "no federate after a FOM mismatch");

    /* the Unix socket reaches the same RTI and federation; the FOM given as text (the same
     * file's contents, reformatted: only the meaning counts) */
    char uaddr[100];
    snprintf(uaddr, sizeof uaddr, "unix:%s", sock);
    tp_join_options u = j;
    u.rti = uaddr;
    u.federate = "viaunix";
    u.fom_path = NULL;
    char text[8192];
    FILE *fp = fopen("fom/test.xml", "r");
    size_t len = fp ? fread(text, 1, sizeof text - 1, fp) : 0;
    if (fp) fclose(fp);
    text[len] = '\0';
    for (size_t i = 0; i < len; i++) /* indentation does not change the FOM */
        if (text[i] == ' ' && i + 1 < len && text[i + 1] == ' ') text[i] = '\t';
    u.fom_text = text;
    CHECK(len > 100 && len < sizeof text - 1, "read fom/test.xml (%zu bytes)", len);
    CHECK_INT_EQ(tp_join(&u, NULL, NULL, &h, err, sizeof err), TP_OK);
    size_t n = 0;
    if (h) CHECK_INT_EQ(tp_query_time_status(h, NULL, 0, &n), TP_OK);
    CHECK_INT_EQ(n, 2); /* "a" over TCP and "viaunix" */

    /* destroy refused while joined, then accepted, then not found */
    CHECK_INT_EQ(tp_destroy_federation(&o, err, sizeof err), TP_EREFUSED);
    if (f) CHECK_INT_EQ(tp_resign(f, TP_DELETE_OBJECTS), TP_OK);
    if (h) CHECK_INT_EQ(tp_resign(h, TP_DELETE_OBJECTS), TP_OK);
    tp_federate_free(f);
    tp_federate_free(h);
    int rc = tp_destroy_federation(&o, err, sizeof err);
    /* The RTI may already have destroyed it when the last federate left (doc/fom.md:
     * "destroy when empty"); either way it is gone afterwards. */
    CHECK(rc == TP_OK || rc == TP_ENOTFOUND, "destroy: %s (%s)", tp_strerror(rc), err);
    CHECK_INT_EQ(tp_destroy_federation(&o, err, sizeof err), TP_ENOTFOUND);
    j.create = 0;
    CHECK_INT_EQ(tp_join(&j, NULL, NULL, &f, err, sizeof err), TP_ENOTFOUND);
    harness_stop_rti();
    unlink(sock);

    secret_rti();
    harness_stop_rti();
    return check_summary();
}
