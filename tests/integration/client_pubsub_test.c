/* Integration test of libtempo's declaration and object management against a real
 * bin/tempo-rti (doc/fom.md): the publish/subscribe matrix (only subscribed
 * attributes reflected, subclass matching, late joiner discovers existing objects,
 * interactions only to subscribers, unsubscribe stops delivery, request update -> provide),
 * a register-object name clash, local validation errors, delete -> remove, and two federations
 * on one RTI that do not see each other. Several federates run in this one process.
 *
 * "Nothing arrives" is shown without sleeping: barrier() makes every federate do a round trip
 * to the RTI after the senders' round trips, so anything the RTI routed is in its buffer. */
#include "tests/integration/client_harness.h"

#define MAXEV 64

/* What one federate saw. */
struct rec {
    const char *who;
    int discovers;
    struct {
        tp_object obj;
        tp_handle cls;
        char name[32];
    } disc[MAXEV];
    int reflects;
    tp_object refl_obj[MAXEV];
    tp_handle refl_attrs[MAXEV][8]; /* attribute handles of each reflection */
    size_t refl_n[MAXEV];
    double refl_speed[MAXEV]; /* decoded "speed" when present, else NAN */
    int receives;
    tp_handle recv_cls[MAXEV];
    char recv_text[MAXEV][32];
    int removes;
    tp_object removed[MAXEV];
    int provides;
    tp_object prov_obj;
    tp_handle prov_attr;
    int errors;
    /* for answering provide requests */
    tp_federate *f;
    tp_handle speed;
    tp_handle text;
};

static void on_discover(void *ctx, tp_object obj, tp_handle cls, const char *name, tp_fed owner)
{
    struct rec *r = ctx;
    if (r->discovers < MAXEV) {
        r->disc[r->discovers].obj = obj;
        r->disc[r->discovers].cls = cls;
        snprintf(r->disc[r->discovers].name, 32, "%s", name);
    }
    r->discovers++;
}

static void on_reflect(void *ctx, const tp_reflection *x)
{
    struct rec *r = ctx;
    if (r->reflects < MAXEV) {
        int k = r->reflects;
        r->refl_obj[k] = x->object;
        r->refl_n[k] = x->n_values;
        r->refl_speed[k] = NAN;
        for (size_t i = 0; i < x->n_values && i < 8; i++) {
            r->refl_attrs[k][i] = x->values[i].handle;
            if (x->values[i].handle == r->speed)
                tp_decode_float64(x->values[i].data, x->values[i].size, &r->refl_speed[k]);
        }
    }
    r->reflects++;
}

static void on_receive(void *ctx, const tp_interaction *in)
{
    struct rec *r = ctx;
    if (r->receives < MAXEV) {
        r->recv_cls[r->receives] = in->interaction_class;
        r->recv_text[r->receives][0] = '\0';
        for (size_t i = 0; i < in->n_params; i++)
            if (in->params[i].handle == r->text)
                tp_decode_string(in->params[i].data, in->params[i].size, r->recv_text[r->receives],
                                 32);
    }
    r->receives++;
}

static void on_remove(void *ctx, tp_object obj, tp_time t, tp_order o, tp_fed sender)
{
    struct rec *r = ctx;
    if (r->removes < MAXEV) r->removed[r->removes] = obj;
    r->removes++;
}

static void on_provide(void *ctx, tp_object obj, const tp_handle *attrs, size_t n)
{
    struct rec *r = ctx;
    r->provides++;
    r->prov_obj = obj;
    r->prov_attr = n ? attrs[0] : 0;
    /* Answer from inside the callback, as a real owner would. */
    uint8_t b[8];
    tp_encode_float64(99.0, b);
    tp_value v = {r->speed, b, 8};
    int rc = tp_update(r->f, obj, &v, 1, TP_NO_TIME);
    CHECK(rc == TP_OK, "update from provide: %s", tp_last_error(r->f));
}

static void on_error(void *ctx, int code, const char *msg)
{
    struct rec *r = ctx;
    r->errors++;
    fprintf(stderr, "%s: async error %s: %s\n", r->who, tp_strerror(code), msg);
}

static const tp_callbacks CB = {.discover = on_discover,
                                .reflect = on_reflect,
                                .receive = on_receive,
                                .remove = on_remove,
                                .provide = on_provide,
                                .error = on_error};

static tp_federate *all[16]; /* every joined federate, for barrier() and the final resign */
static int nall;

/* Every federate makes a round trip to the RTI, twice over (so that frames routed because of
 * another federate's earlier frames are in every buffer), then dispatches what it holds. */
static void barrier(void)
{
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < nall; i++) {
            size_t n = 0;
            int rc = tp_query_time_status(all[i], NULL, 0, &n);
            CHECK(rc == TP_OK, "barrier query: %s", tp_last_error(all[i]));
        }
    for (int i = 0; i < nall; i++)
        tp_evoke(all[i], 0);
}

static int find_disc(const struct rec *r, const char *name)
{
    for (int i = 0; i < r->discovers && i < MAXEV; i++)
        if (strcmp(r->disc[i].name, name) == 0) return i;
    return -1;
}

static int has_attr(const struct rec *r, int k, tp_handle a)
{
    for (size_t i = 0; i < r->refl_n[k] && i < 8; i++)
        if (r->refl_attrs[k][i] == a) return 1;
    return 0;
}

/* The federation under test and its FOM handles, shared by the scenario functions below
 * (main runs them in order; each builds on the state the previous one left). */
static const char *addr; /* RTI address */
static const char *const fom = "fom/test.xml";
static struct rec rp = {.who = "P"}, r1 = {.who = "S1"}, r2 = {.who = "S2"}, r3 = {.who = "S3"},
                  r4 = {.who = "S4"};
static tp_federate *P, *S1, *S2, *S3, *S4; /* publisher, subscribers, late joiner */
static tp_handle vehicle, car, sports, truck, speed, name, position, passengers, turbo, load;
static tp_handle message, alarm_ic, text, level, step;
static tp_object sc1, t1, v1;                 /* SportsCar, Truck and Vehicle objects */
static uint8_t sb[8], pb[4], tb[1], posb[16]; /* encoded speed, passengers, turbo, pos */
static tp_value upd[5];                       /* an update of every sc1 attribute */
static tp_value mp[1];                        /* a Message's parameters */

/* Start the RTI, join P, S1, S2, S3 into fedA and resolve the handles. */
static int setup(void)
{
    const char *const rti_args[] = {"--log-level", "warn", NULL};
    addr = harness_start_rti(rti_args, 60);
    if (!addr) return 0;
    P = harness_join(addr, "fedA", "P", fom, &CB, &rp);
    S1 = harness_join(addr, "fedA", "S1", fom, &CB, &r1);
    S2 = harness_join(addr, "fedA", "S2", fom, &CB, &r2);
    S3 = harness_join(addr, "fedA", "S3", fom, &CB, &r3);
    if (!P || !S1 || !S2 || !S3) return 0;
    all[0] = P;
    all[1] = S1;
    all[2] = S2;
    all[3] = S3;
    nall = 4;
    rp.f = P;

    CHECK_INT_EQ(tp_object_class(P, "Vehicle", &vehicle), TP_OK);
    CHECK_INT_EQ(tp_object_class(P, "Vehicle.Car", &car), TP_OK);
    CHECK_INT_EQ(tp_object_class(P, "SportsCar", &sports), TP_OK);
    CHECK_INT_EQ(tp_object_class(P, "Truck", &truck), TP_OK);
    CHECK_INT_EQ(tp_attribute(P, vehicle, "speed", &speed), TP_OK);
    CHECK_INT_EQ(tp_attribute(P, vehicle, "name", &name), TP_OK);
    CHECK_INT_EQ(tp_attribute(P, vehicle, "position", &position), TP_OK);
    CHECK_INT_EQ(tp_attribute(P, car, "passengers", &passengers), TP_OK);
    CHECK_INT_EQ(tp_attribute(P, sports, "turbo", &turbo), TP_OK);
    CHECK_INT_EQ(tp_attribute(P, truck, "load", &load), TP_OK);
    CHECK_INT_EQ(tp_interaction_class(P, "Message", &message), TP_OK);
    CHECK_INT_EQ(tp_interaction_class(P, "Alarm", &alarm_ic), TP_OK);
    CHECK_INT_EQ(tp_interaction_class(P, "Step", &step), TP_OK);
    CHECK_INT_EQ(tp_parameter(P, message, "text", &text), TP_OK);
    CHECK_INT_EQ(tp_parameter(P, alarm_ic, "level", &level), TP_OK);
    {
        tp_handle inherited;
        CHECK_INT_EQ(tp_attribute(P, sports, "speed", &inherited), TP_OK);
        CHECK_INT_EQ(inherited, speed); /* one handle across the subclass tree */
        CHECK_INT_EQ(tp_parameter(P, alarm_ic, "text", &inherited), TP_OK);
        CHECK_INT_EQ(inherited, text);
    }
    rp.speed = r1.speed = r2.speed = r3.speed = r4.speed = speed;
    r1.text = r2.text = r3.text = r4.text = text;
    return 1;
}

/* Local validation (nothing sent). */
static void t_local_validation(void)
{
    tp_handle h;
    CHECK_INT_EQ(tp_object_class(P, "Bicycle", &h), TP_ENAME);
    CHECK_STR_HAS(tp_last_error(P), "Bicycle");
    CHECK_INT_EQ(tp_attribute(P, truck, "turbo", &h), TP_ENAME);
    CHECK_STR_HAS(tp_last_error(P), "turbo");
    CHECK_INT_EQ(tp_attribute(P, 999, "speed", &h), TP_EHANDLE);
    CHECK_INT_EQ(tp_parameter(P, step, "text", &h), TP_ENAME);
    tp_object obj;
    CHECK_INT_EQ(tp_register_object(P, sports, "early", &obj), TP_ENOTPUB);
    CHECK_STR_HAS(tp_last_error(P), "SportsCar");
    CHECK_INT_EQ(tp_publish_object_class(P, truck, &turbo, 1), TP_EHANDLE);
    CHECK_INT_EQ(tp_send_interaction(P, message, NULL, 0, TP_NO_TIME), TP_ENOTPUB);
    CHECK_INT_EQ(tp_unpublish_interaction_class(P, message), TP_ENOTPUB);
}

/* Declarations. */
static void t_declarations(void)
{
    tp_handle vattrs[] = {position, speed, name};
    tp_handle sattrs[] = {position, speed, name, passengers, turbo};
    tp_handle tattrs[] = {speed, load};
    CHECK_INT_EQ(tp_publish_object_class(P, vehicle, vattrs, 3), TP_OK);
    CHECK_INT_EQ(tp_publish_object_class(P, sports, sattrs, 5), TP_OK);
    CHECK_INT_EQ(tp_publish_object_class(P, truck, tattrs, 2), TP_OK);
    CHECK_INT_EQ(tp_publish_interaction_class(P, message), TP_OK);
    CHECK_INT_EQ(tp_publish_interaction_class(P, alarm_ic), TP_OK);
    CHECK_INT_EQ(tp_subscribe_object_class(S1, vehicle, &speed, 1), TP_OK);
    tp_handle s2attrs[] = {speed, passengers};
    CHECK_INT_EQ(tp_subscribe_object_class(S2, car, s2attrs, 2), TP_OK);
    CHECK_INT_EQ(tp_subscribe_interaction_class(S3, message), TP_OK);
    CHECK_INT_EQ(tp_subscribe_interaction_class(S1, alarm_ic), TP_OK);
    barrier();
}

/* Register: discovery by subclass matching. */
static void t_register(void)
{
    tp_object obj;
    CHECK_INT_EQ(tp_register_object(P, sports, "sc1", &sc1), TP_OK);
    CHECK_INT_EQ(tp_register_object(P, truck, "t1", &t1), TP_OK);
    CHECK_INT_EQ(tp_register_object(P, vehicle, "v1", &v1), TP_OK);
    CHECK(sc1 && t1 && v1 && sc1 != t1 && t1 != v1, "three distinct object handles");
    /* name clash */
    CHECK_INT_EQ(tp_register_object(P, sports, "sc1", &obj), TP_EEXISTS);
    CHECK_STR_HAS(tp_last_error(P), "sc1");
    barrier();
    CHECK_INT_EQ(r1.discovers, 3); /* Vehicle subscriber sees all three */
    int k = find_disc(&r1, "sc1");
    CHECK(k >= 0 && r1.disc[k].cls == vehicle, "S1 discovers sc1 as Vehicle");
    k = find_disc(&r1, "t1");
    CHECK(k >= 0 && r1.disc[k].cls == vehicle && r1.disc[k].obj == t1, "S1 discovers t1");
    CHECK_INT_EQ(r2.discovers, 1); /* Car subscriber: only the SportsCar */
    k = find_disc(&r2, "sc1");
    CHECK(k >= 0 && r2.disc[k].cls == car && r2.disc[k].obj == sc1,
          "S2 discovers sc1 as Car (most derived subscribed class)");
    CHECK_INT_EQ(r3.discovers, 0);
    CHECK_INT_EQ(rp.discovers, 0);
}

/* Updates: only subscribed attributes are reflected. */
static void t_updates(void)
{
    double pos[2] = {1, 2};
    tp_encode_float64(12.5, sb);
    tp_encode_int32(3, pb);
    tp_encode_boolean(1, tb);
    tp_encode_float64_array(pos, 2, posb, sizeof posb);
    const tp_value all_attrs[] = {{speed, sb, 8},
                                  {passengers, pb, 4},
                                  {name, "zoom", 4},
                                  {turbo, tb, 1},
                                  {position, posb, 16}};
    memcpy(upd, all_attrs, sizeof upd);
    CHECK_INT_EQ(tp_update(P, sc1, upd, 5, TP_NO_TIME), TP_OK);
    /* local checks: wrong size, unpublished attribute, not our object */
    tp_value badsize = {speed, sb, 4};
    CHECK_INT_EQ(tp_update(P, sc1, &badsize, 1, TP_NO_TIME), TP_ESIZE);
    CHECK_STR_HAS(tp_last_error(P), "speed");
    tp_value unpub = {load, sb, 8};
    CHECK_INT_EQ(tp_update(P, sc1, &unpub, 1, TP_NO_TIME), TP_EHANDLE); /* not of SportsCar */
    tp_value vpass = {passengers, pb, 4};
    CHECK_INT_EQ(tp_update(P, v1, &vpass, 1, TP_NO_TIME), TP_EHANDLE); /* not of Vehicle */
    tp_handle laps;
    CHECK_INT_EQ(tp_attribute(P, sports, "lapTimes", &laps), TP_OK);
    tp_value lapv = {laps, posb, 16};
    CHECK_INT_EQ(tp_update(P, sc1, &lapv, 1, TP_NO_TIME), TP_ENOTPUB);
    CHECK_STR_HAS(tp_last_error(P), "lapTimes");
    CHECK_INT_EQ(tp_update(S1, sc1, upd, 1, TP_NO_TIME), TP_EHANDLE);
    CHECK_STR_HAS(tp_last_error(S1), "not owned");
    barrier();
    CHECK_INT_EQ(r1.reflects, 1);
    CHECK(r1.reflects >= 1 && r1.refl_obj[0] == sc1 && r1.refl_n[0] == 1 && has_attr(&r1, 0, speed),
          "S1 reflects only speed (got %zu values)", r1.refl_n[0]);
    CHECK_NEAR(r1.refl_speed[0], 12.5, 0.0);
    CHECK_INT_EQ(r2.reflects, 1);
    CHECK(r2.reflects >= 1 && r2.refl_n[0] == 2 && has_attr(&r2, 0, speed) &&
              has_attr(&r2, 0, passengers) && !has_attr(&r2, 0, name),
          "S2 reflects speed and passengers only (got %zu values)", r2.refl_n[0]);
    CHECK_INT_EQ(r3.reflects, 0);

    /* an update of the Truck reaches S1 only */
    tp_value tu = {load, sb, 8};
    CHECK_INT_EQ(tp_update(P, t1, &tu, 1, TP_NO_TIME), TP_OK); /* S1 does not subscribe load */
    tp_value ts = {speed, sb, 8};
    CHECK_INT_EQ(tp_update(P, t1, &ts, 1, TP_NO_TIME), TP_OK);
    barrier();
    CHECK_INT_EQ(r1.reflects, 2); /* the load-only update reflects nothing to S1 */
    CHECK_INT_EQ(r2.reflects, 1);
}

/* Interactions: only to subscribers, subclasses match. */
static void t_interactions(void)
{
    uint8_t lb[8];
    tp_encode_int64(7, lb);
    tp_value ap[] = {{text, "fire", 4}, {level, lb, 8}};
    CHECK_INT_EQ(tp_send_interaction(P, alarm_ic, ap, 2, TP_NO_TIME), TP_OK);
    mp[0] = (tp_value){text, "hello", 5};
    CHECK_INT_EQ(tp_send_interaction(P, message, mp, 1, TP_NO_TIME), TP_OK);
    tp_value badp[] = {{level, lb, 8}};
    CHECK_INT_EQ(tp_send_interaction(P, message, badp, 1, TP_NO_TIME), TP_EHANDLE);
    barrier();
    CHECK_INT_EQ(r3.receives, 2); /* Message subscriber gets Message and Alarm */
    CHECK(r3.receives >= 2 && strcmp(r3.recv_text[0], "fire") == 0 &&
              strcmp(r3.recv_text[1], "hello") == 0,
          "S3 got fire then hello in send order");
    CHECK_INT_EQ(r1.receives, 1); /* Alarm subscriber: the Alarm only */
    CHECK(r1.receives >= 1 && r1.recv_cls[0] == alarm_ic, "S1 received the Alarm");
    CHECK_INT_EQ(r2.receives, 0);
    CHECK_INT_EQ(rp.receives, 0);
}

/* Late joiner discovers existing objects. */
static void t_late_joiner(void)
{
    tp_handle vattrs[] = {position, speed, name};
    S4 = harness_join(addr, "fedA", "S4", fom, &CB, &r4);
    if (S4) {
        all[nall++] = S4;
        CHECK_INT_EQ(tp_subscribe_object_class(S4, vehicle, vattrs, 3), TP_OK);
        barrier();
        CHECK_INT_EQ(r4.discovers, 3);
        CHECK(find_disc(&r4, "sc1") >= 0 && find_disc(&r4, "t1") >= 0 && find_disc(&r4, "v1") >= 0,
              "late joiner S4 discovers sc1, t1 and v1");
    }
}

/* Request attribute update -> provide -> reflect. */
static void t_request_update_provide(void)
{
    int before = r2.reflects;
    CHECK_INT_EQ(tp_request_update(S2, sc1, &speed, 1), TP_OK);
    CHECK_INT_EQ(tp_request_update(S3, sc1, &speed, 1), TP_EHANDLE); /* S3 never discovered */
    barrier();
    barrier(); /* P's answer, sent from its provide callback, travels on */
    CHECK_INT_EQ(rp.provides, 1);
    CHECK(rp.prov_obj == sc1 && rp.prov_attr == speed, "P asked to provide speed of sc1");
    CHECK_INT_EQ(r2.reflects, before + 1);
    CHECK(r2.reflects > before && r2.refl_speed[before] == 99.0, "S2 got the provided value");
    /* by class: every instance of Car and its subclasses (here only sc1) */
    CHECK_INT_EQ(tp_request_class_update(S2, car, &speed, 1), TP_OK);
    CHECK_INT_EQ(tp_request_class_update(S2, car, &load, 1), TP_EHANDLE); /* not of Car */
    CHECK_INT_EQ(tp_request_class_update(S2, car, NULL, 0), TP_EINVAL);
    barrier();
    barrier();
    CHECK_INT_EQ(rp.provides, 2);
    CHECK(rp.prov_obj == sc1, "P asked again for sc1");
    CHECK_INT_EQ(r2.reflects, before + 2);
}

/* Unsubscribe stops delivery. */
static void t_unsubscribe_stops_delivery(void)
{
    CHECK_INT_EQ(tp_unsubscribe_object_class(S1, vehicle), TP_OK);
    CHECK_INT_EQ(tp_unsubscribe_interaction_class(S3, message), TP_OK);
    barrier();
    int r1_before = r1.reflects, r2_before = r2.reflects;
    CHECK_INT_EQ(tp_update(P, sc1, upd, 1, TP_NO_TIME), TP_OK);
    CHECK_INT_EQ(tp_send_interaction(P, message, mp, 1, TP_NO_TIME), TP_OK);
    barrier();
    CHECK_INT_EQ(r1.reflects, r1_before);
    CHECK_INT_EQ(r2.reflects, r2_before + 1);
    CHECK_INT_EQ(r3.receives, 2);
}

/* Delete -> remove. */
static void t_delete_remove(void)
{
    CHECK_INT_EQ(tp_delete_object(P, v1, TP_NO_TIME), TP_OK);
    CHECK_INT_EQ(tp_delete_object(P, v1, TP_NO_TIME), TP_EHANDLE); /* gone locally */
    size_t nq;
    CHECK_INT_EQ(tp_query_time_status(P, NULL, 0, &nq), TP_OK); /* the RTI has deleted it */
    if (S4) { /* S4 has not evoked the removal yet: the RTI refuses, asynchronously */
        CHECK_INT_EQ(tp_request_update(S4, v1, &speed, 1), TP_OK);
        /* the next blocking call returns the refusal (doc/api.md, "No silent loss"), once */
        size_t n4 = 0;
        CHECK_INT_EQ(tp_query_time_status(S4, NULL, 0, &n4), TP_EHANDLE);
        CHECK_STR_HAS(tp_last_error(S4), "the RTI refused an earlier REQUEST_UPDATE");
    }
    barrier();
    CHECK_INT_EQ(r4.errors, 1);
    CHECK_STR_HAS(tp_last_error(S4), "REQUEST_UPDATE");
    r4.errors = 0;
    CHECK(S4 && r4.removes == 1 && r4.removed[0] == v1, "S4 was told v1 is removed");
    CHECK_INT_EQ(r2.removes, 0); /* S2 never discovered v1 */
}

/* A second federation on the same RTI sees nothing of the first. */
static void t_two_federations(void)
{
    tp_handle vattrs[] = {position, speed, name};
    tp_handle tattrs[] = {speed, load};
    static struct rec rq = {.who = "Q"}, rr = {.who = "R"}; /* ctx outlives this function */
    tp_federate *Q = harness_join(addr, "fedB", "Q", fom, &CB, &rq);
    tp_federate *R = harness_join(addr, "fedB", "P", fom, &CB, &rr); /* same name, other fed */
    if (Q && R) {
        all[nall++] = Q;
        all[nall++] = R;
        rr.speed = speed;
        CHECK_INT_EQ(tp_subscribe_object_class(R, vehicle, vattrs, 3), TP_OK);
        CHECK_INT_EQ(tp_subscribe_interaction_class(R, message), TP_OK);
        CHECK_INT_EQ(tp_publish_object_class(Q, truck, tattrs, 2), TP_OK);
        barrier();
        CHECK_INT_EQ(rr.discovers, 0); /* fedA's objects are not fedB's */
        tp_object q1;
        CHECK_INT_EQ(tp_register_object(Q, truck, "sc1", &q1), TP_OK); /* names per federation */
        CHECK_INT_EQ(tp_update(P, sc1, upd, 1, TP_NO_TIME), TP_OK);
        CHECK_INT_EQ(tp_send_interaction(P, message, mp, 1, TP_NO_TIME), TP_OK);
        int s4_before = S4 ? r4.discovers : 0;
        barrier();
        CHECK_INT_EQ(rr.discovers, 1);
        CHECK_INT_EQ(rr.reflects, 0);
        CHECK_INT_EQ(rr.receives, 0);
        if (S4) /* fedA does not see fedB's object */
            CHECK_INT_EQ(r4.discovers, s4_before);
        /* n = 0 publishes / subscribes every attribute of the class (inherited included) */
        tp_handle axles;
        CHECK_INT_EQ(tp_attribute(Q, truck, "axles", &axles), TP_OK);
        tp_value av = {axles, sb, 8};
        CHECK_INT_EQ(tp_update(Q, q1, &av, 1, TP_NO_TIME), TP_ENOTPUB);
        CHECK_INT_EQ(tp_publish_object_class(Q, truck, NULL, 0), TP_OK);
        CHECK_INT_EQ(tp_subscribe_object_class(R, truck, NULL, 0), TP_OK);
        barrier();
        tp_value qv[] = {{axles, sb, 8}, {name, "big", 3}};
        CHECK_INT_EQ(tp_update(Q, q1, qv, 2, TP_NO_TIME), TP_OK);
        barrier();
        CHECK_INT_EQ(rr.reflects, 1);
        CHECK(rr.reflects == 1 && rr.refl_n[0] == 2 && has_attr(&rr, 0, axles) &&
                  has_attr(&rr, 0, name),
              "R reflects axles and the inherited name");
        CHECK_INT_EQ(rq.errors + rr.errors, 0);
        /* unpublish: updates are refused locally, a second unpublish too */
        CHECK_INT_EQ(tp_unpublish_object_class(Q, truck), TP_OK);
        CHECK_INT_EQ(tp_update(Q, q1, qv, 2, TP_NO_TIME), TP_ENOTPUB);
        CHECK_INT_EQ(tp_unpublish_object_class(Q, truck), TP_ENOTPUB);
        CHECK_INT_EQ(tp_unpublish_object_class(Q, 999), TP_EHANDLE);
    }
}

/* Bulk: 20 000 receive-order updates of Sample.x from P to S3 cross many output batches
 * (flushes at 64 KiB), many reads and frames split across reads; all arrive, in send order.
 * Also: a value larger than the frame limit is refused locally. */
#define BULK_N 20000
static long bulk_seen, bulk_bad; /* reflections of "bulk" counted / out of order */
static double bulk_next;         /* the value expected next */

static void bulk_reflect(void *ctx, const tp_reflection *x)
{
    double v = -1;
    if (x->n_values == 1 && tp_decode_float64(x->values[0].data, x->values[0].size, &v) == 0 &&
        v == bulk_next)
        bulk_next += 1;
    else
        bulk_bad++;
    bulk_seen++;
}

static int bulk_done(void *arg)
{
    return bulk_seen >= BULK_N;
}

static void t_bulk(void)
{
    static struct rec rb = {.who = "B"};
    tp_callbacks cb = CB;
    cb.reflect = bulk_reflect;
    tp_federate *B = harness_join(addr, "fedA", "bulk-sub", fom, &cb, &rb);
    if (!B) return;
    all[nall++] = B;
    tp_handle sample, x, raw;
    CHECK_INT_EQ(tp_object_class(P, "Sample", &sample), TP_OK);
    CHECK_INT_EQ(tp_attribute(P, sample, "x", &x), TP_OK);
    CHECK_INT_EQ(tp_attribute(P, sample, "raw", &raw), TP_OK);
    CHECK_INT_EQ(tp_subscribe_object_class(B, sample, &x, 1), TP_OK);
    tp_handle both[] = {x, raw};
    CHECK_INT_EQ(tp_publish_object_class(P, sample, both, 2), TP_OK);
    barrier();
    tp_object obj = 0;
    CHECK_INT_EQ(tp_register_object(P, sample, "bulk", &obj), TP_OK);
    /* 2 MiB of bytes does not fit a 1 MiB frame: refused before anything is sent */
    size_t big = 2u << 20;
    void *mem = calloc(1, big);
    tp_value bv = {raw, mem, big};
    CHECK_INT_EQ(tp_update(P, obj, &bv, 1, TP_NO_TIME), TP_ESIZE);
    CHECK_STR_HAS(tp_last_error(P), "too large");
    free(mem);
    int fails = 0;
    for (long i = 0; i < BULK_N; i++) {
        uint8_t b[8];
        tp_encode_float64((double)i, b);
        tp_value v = {x, b, 8};
        if (tp_update(P, obj, &v, 1, TP_NO_TIME) != TP_OK) fails++;
    }
    CHECK_INT_EQ(fails, 0);
    CHECK_INT_EQ(tp_flush(P), TP_OK);
    tp_federate *pair[2] = {P, B};
    CHECK(harness_pump(pair, 2, bulk_done, NULL, 20000), "all %d updates reflected (got %ld)",
          BULK_N, bulk_seen);
    CHECK_INT_EQ(bulk_seen, BULK_N);
    CHECK_INT_EQ(bulk_bad, 0);
}

/* Resign with TP_KEEP_OBJECTS: the object stays (no remove; later subscribers discover it);
 * with TP_DELETE_OBJECTS (tp_federate_free's default) subscribers get remove. */
static void t_resign_actions(void)
{
    static struct rec rk = {.who = "K"}, rd = {.who = "D"}; /* ctx outlives this function */
    tp_federate *K = harness_join(addr, "fedA", "keeper", fom, &CB, &rk);
    tp_federate *D = harness_join(addr, "fedA", "deleter", fom, &CB, &rd);
    if (!K || !D) return;
    tp_object ko = 0, dobj = 0;
    int removes = r4.removes, discovers = r4.discovers;
    CHECK_INT_EQ(tp_publish_object_class(K, truck, NULL, 0), TP_OK);
    CHECK_INT_EQ(tp_publish_object_class(D, truck, NULL, 0), TP_OK);
    CHECK_INT_EQ(tp_register_object(K, truck, "kept", &ko), TP_OK);
    CHECK_INT_EQ(tp_register_object(D, truck, "dropped", &dobj), TP_OK);
    barrier();
    CHECK_INT_EQ(r4.discovers, discovers + 2); /* S4 subscribes Vehicle: sees both trucks */
    CHECK_INT_EQ(tp_resign(K, TP_KEEP_OBJECTS), TP_OK);
    tp_federate_free(K);
    tp_federate_free(D); /* not resigned: freed with the join-time action, delete */
    barrier();
    CHECK_INT_EQ(r4.removes, removes + 1); /* "dropped" only */
    CHECK(r4.removes > removes && r4.removed[r4.removes - 1] == dobj, "\"dropped\" removed");
    static struct rec rl = {.who = "L"};
    tp_federate *L = harness_join(addr, "fedA", "later", fom, &CB, &rl);
    if (!L) return;
    all[nall++] = L;
    CHECK_INT_EQ(tp_subscribe_object_class(L, truck, NULL, 0), TP_OK);
    barrier();
    CHECK(find_disc(&rl, "kept") >= 0, "a later subscriber discovers the kept object");
    CHECK(find_disc(&rl, "dropped") < 0, "the deleted object is gone");
}

int main(void)
{
    if (setup()) {
        t_local_validation();
        t_declarations();
        t_register();
        t_updates();
        t_interactions();
        t_late_joiner();
        t_request_update_provide();
        t_unsubscribe_stops_delivery();
        t_delete_remove();
        t_two_federations();
        t_bulk();
        t_resign_actions();
    }
    CHECK_INT_EQ(rp.errors + r1.errors + r2.errors + r3.errors + r4.errors, 0);
    for (int i = nall - 1; i >= 0; i--) {
        CHECK_INT_EQ(tp_resign(all[i], TP_DELETE_OBJECTS), TP_OK);
        CHECK_INT_EQ(tp_evoke(all[i], 0), TP_ESTATE); /* resigned */
        tp_federate_free(all[i]);
    }
    harness_stop_rti();
    return check_summary();
}
