/* Example federate "consumer": subscribes the Signal of examples/producer.c under time
 * constraint, so it sees each sample in time-stamp order at the logical time it was sent for,
 * and answers the first large sample with a Command interaction. Serves doc/guide.md.
 * doc/guide.md walks through this file after examples/producer.c.
 *
 * usage: tempo-example-consumer [--rti ADDR] [--federation NAME] [--name NAME] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/libtempo/tempo.h"

struct app {
    tp_federate *f; /* for calls made from callbacks */
    tp_handle value, label, history, cmd, gain, enabled, note;
    int removed;     /* 1 once the producer's object is gone */
    int commanded;   /* 1 once we sent our Command */
    int reflections; /* updates seen */
};

static void on_discover(void *ctx, tp_object obj, tp_handle cls, const char *name, tp_fed owner)
{
    struct app *a = ctx;
    printf("consumer: discovered %s \"%s\" (object %llu, owner %u)\n",
           tp_handle_name(a->f, 'o', cls), name, (unsigned long long)obj, owner);
}

/* Values are valid only during the callback: decode them here. */
static void on_reflect(void *ctx, const tp_reflection *r)
{
    struct app *a = ctx;
    double x = 0, hist[8];
    size_t nh = 0;
    char label[64] = "";
    for (size_t i = 0; i < r->n_values; i++) {
        const tp_value *v = &r->values[i];
        if (v->handle == a->value)
            tp_decode_float64(v->data, v->size, &x);
        else if (v->handle == a->label)
            tp_decode_string(v->data, v->size, label, sizeof label);
        else if (v->handle == a->history)
            tp_decode_float64_array(v->data, v->size, hist, 8, &nh);
    }
    a->reflections++;
    tp_time now = 0;
    tp_query_logical_time(a->f, &now);
    printf("consumer: t=%.1f s (%s, my time %.1f s) %s: value=%.4f, %zu in history\n",
           tp_time_to_seconds(a->f, r->time), r->order == TP_TIMESTAMP_ORDER ? "TSO" : "RO",
           tp_time_to_seconds(a->f, now), label, x, nh);
    if (x > 0.5 && !a->commanded) {
        /* Receive-order interaction: delivered at once, no time stamp. */
        uint8_t gb[TP_FLOAT64_SIZE], eb[TP_BOOLEAN_SIZE];
        const char *note = "value above 0.5";
        tp_encode_float64(0.5, gb);
        tp_encode_boolean(1, eb);
        tp_value p[] = {
            {a->gain, gb, sizeof gb}, {a->enabled, eb, sizeof eb}, {a->note, note, strlen(note)}};
        if (tp_send_interaction(a->f, a->cmd, p, 3, TP_NO_TIME) == TP_OK)
            a->commanded = 1;
        else
            fprintf(stderr, "consumer: send Command: %s\n", tp_last_error(a->f));
    }
}

static void on_remove(void *ctx, tp_object obj, tp_time t, tp_order order, tp_fed sender)
{
    struct app *a = ctx;
    a->removed = 1;
    printf("consumer: object %llu removed by federate %u\n", (unsigned long long)obj, sender);
}

static void check(tp_federate *f, int rc, const char *what)
{
    if (rc < 0) {
        fprintf(stderr, "consumer: %s: %s (%s)\n", what, tp_strerror(rc), tp_last_error(f));
        tp_federate_free(f);
        exit(1);
    }
}

/* Command line: --rti ADDR, --federation NAME, --name NAME. */
static int parse_args(int argc, char **argv, const char **rti, const char **federation,
                      const char **name)
{
    if (argc % 2 == 0) return -1; /* a flag without its value (e.g. --help) */
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--rti") == 0)
            *rti = argv[i + 1];
        else if (strcmp(argv[i], "--federation") == 0)
            *federation = argv[i + 1];
        else if (strcmp(argv[i], "--name") == 0)
            *name = argv[i + 1];
        else
            return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *rti = "127.0.0.1:7470", *federation = "demo", *name = "consumer";
    if (parse_args(argc, argv, &rti, &federation, &name) < 0) {
        fprintf(stderr, "usage: %s [--rti ADDR] [--federation NAME] [--name NAME]\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);

    /* 1. Join (the producer created the federation; create = 1 makes the order free). */
    struct app a = {0};
    tp_callbacks cb = {.discover = on_discover, .reflect = on_reflect, .remove = on_remove};
    tp_join_options opt = {.rti = rti,
                           .federation = federation,
                           .federate = name,
                           .fom_path = "fom/demo.xml",
                           .create = 1};
    char err[512];
    int rc = tp_join(&opt, &cb, &a, &a.f, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "consumer: join: %s (%s)\n", tp_strerror(rc), err);
        return 1;
    }
    tp_federate *f = a.f;

    /* 2. Handles, then declarations: we read Signal and send Command. */
    tp_handle signal;
    check(f, tp_object_class(f, "Signal", &signal), "Signal");
    check(f, tp_attribute(f, signal, "value", &a.value), "value");
    check(f, tp_attribute(f, signal, "label", &a.label), "label");
    check(f, tp_attribute(f, signal, "history", &a.history), "history");
    check(f, tp_interaction_class(f, "Command", &a.cmd), "Command");
    check(f, tp_parameter(f, a.cmd, "gain", &a.gain), "gain");
    check(f, tp_parameter(f, a.cmd, "enabled", &a.enabled), "enabled");
    check(f, tp_parameter(f, a.cmd, "note", &a.note), "note");
    tp_handle attrs[] = {a.value, a.label, a.history};
    check(f, tp_subscribe_object_class(f, signal, attrs, 3), "subscribe Signal");
    check(f, tp_publish_interaction_class(f, a.cmd), "publish Command");

    /* 3. Time-constrained: updates arrive in time-stamp order, never in our past. */
    check(f, tp_enable_constrained(f), "enable constrained");
    check(f, tp_wait_constrained_enabled(f, -1), "wait constrained");

    /* 4. Meet the producer at "start". */
    check(f, tp_sync(f, "start", -1), "sync start");

    /* 5. Advance in steps of 0.1 s until the producer deletes its object. Each TAR(t) is
     *    granted only once no update stamped <= t can still come. */
    tp_time step = tp_time_from_seconds(f, 0.1), now = 0;
    while (!a.removed) {
        check(f, tp_time_advance_request(f, tp_time_add(now, step)), "time advance request");
        check(f, tp_wait_grant(f, &now, -1), "wait grant");
    }
    check(f, tp_resign(f, TP_DELETE_OBJECTS), "resign");
    tp_federate_free(f);
    printf("consumer: done, %d updates reflected\n", a.reflections);
    return 0;
}
