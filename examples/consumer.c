/* Example federate "consumer": subscribes the Signal of examples/producer.c under time
 * constraint, so it sees each sample in time-stamp order at the logical time it was sent for,
 * and answers the first large sample with a Command interaction. Serves doc/guide.md.
 * doc/guide.md walks through this file after examples/producer.c.
 *
 * usage: tempo-example-consumer [--rti ADDR] [--federation NAME] [--name NAME] [--fom PATH]
 *        [--resume]   (--help describes each option; checkpoints: doc/checkpoint.md) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tempo/tempo.h>

struct app {
    tp_federate *f; /* for calls made from callbacks */
    tp_handle value, label, history, cmd, gain, enabled, note;
    int removed;     /* 1 once the producer's object is gone */
    int commanded;   /* 1 once we sent our Command */
    int reflections; /* updates seen */
};

/* A checkpoint (doc/checkpoint.md): our part is these three counters; the library keeps the
 * rest (time, subscriptions, the discovered object). Made inside tp_wait_grant. */
static int on_save(void *ctx, const char *label, tp_time time, void **bytes, size_t *n, char *why,
                   size_t why_size)
{
    struct app *a = ctx;
    int32_t *p = malloc(3 * sizeof *p);
    if (!p) return snprintf(why, why_size, "out of memory"), TP_ENOMEM;
    p[0] = a->removed;
    p[1] = a->commanded;
    p[2] = a->reflections;
    *bytes = p;
    *n = 3 * sizeof *p;
    return TP_OK;
}

static int on_restore(void *ctx, const char *label, tp_time time, const void *bytes, size_t n,
                      char *why, size_t why_size)
{
    struct app *a = ctx;
    int32_t p[3];
    if (n != sizeof p)
        return snprintf(why, why_size, "a part of %zu bytes, not ours", n), TP_EINVAL;
    memcpy(p, bytes, sizeof p);
    a->removed = p[0];
    a->commanded = p[1];
    a->reflections = p[2];
    return TP_OK;
}

static void on_saved(void *ctx, const char *label, int status, const char *detail)
{
    printf("consumer: save '%s': %s\n", label, status == TP_OK ? detail : tp_strerror(status));
}

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

static const char usage_text[] =
    "usage: tempo-example-consumer [options]\n"
    "Joins a federation of the Tempo RTI (creating it if needed) as a time-constrained\n"
    "federate, prints the Signal samples it receives in time-stamp order, and answers the\n"
    "first sample above 0.5 with a Command interaction. Run tempo-example-producer beside it.\n"
    "  --rti ADDR         the RTI: HOST:PORT or unix:PATH (default 127.0.0.1:7470)\n"
    "  --federation NAME  the federation to join or create (default demo)\n"
    "  --name NAME        this federate's name (default consumer)\n"
    "  --fom PATH         the FOM that declares Signal and Command (default fom/demo.xml in\n"
    "                     the current folder, else share/tempo/fom/demo.xml of the installation)\n"
    "  --resume           rejoin, as the federate saved in it, the federation the producer\n"
    "                     restores from a checkpoint (producer --resume; waits up to 30 s)\n"
    "  --help             print this text and exit\n"
    "  --version          print the version and exit\n"
    "Exit status: 0 done, 1 the RTI refused or failed, 2 a bad command line.\n";

/* What the command line sets. */
struct options {
    const char *rti, *federation, *name, *fom;
    int resume;
};

/* Reads the command line into o. Returns 0 to run, 1 when --help or --version answered,
 * 2 on a usage error (its message, naming the argument, is printed). */
static int parse_args(int argc, char **argv, struct options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_text, stdout);
            return 1;
        }
        if (strcmp(a, "--version") == 0) {
            printf("tempo-example-consumer %s\n", TP_VERSION);
            return 1;
        }
        if (strcmp(a, "--resume") == 0) {
            o->resume = 1;
            continue;
        }
        const char **text = strcmp(a, "--rti") == 0          ? &o->rti
                            : strcmp(a, "--federation") == 0 ? &o->federation
                            : strcmp(a, "--name") == 0       ? &o->name
                            : strcmp(a, "--fom") == 0        ? &o->fom
                                                             : NULL;
        if (!text) {
            fprintf(stderr, "tempo-example-consumer: unknown option %s (see --help)\n", a);
            return 2;
        }
        if (i + 1 == argc) {
            fprintf(stderr, "tempo-example-consumer: %s needs a value (see --help)\n", a);
            return 2;
        }
        *text = argv[++i];
    }
    return 0;
}

/* The FOM when --fom is not given: fom/demo.xml under the current folder (the source tree),
 * else the copy beside this program: PREFIX/share/tempo/fom/demo.xml for an installed
 * PREFIX/bin/tempo-example-consumer, FOLDER/fom/demo.xml for FOLDER/bin/tempo-example-consumer. buf
 * holds the path found; a path that does not exist is left for tp_join's error to name. */
static const char *default_fom(char *buf, size_t len)
{
    static const char here[] = "fom/demo.xml";
    static const char *const beside[] = {"/../share/tempo/fom/demo.xml", "/../fom/demo.xml"};
    if (access(here, R_OK) == 0) return here;
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    char *slash = n > 0 ? (buf[n] = '\0', strrchr(buf, '/')) : NULL;
    for (size_t i = 0; slash && i < sizeof beside / sizeof beside[0]; i++) {
        if ((size_t)(slash - buf) + strlen(beside[i]) >= len) break;
        strcpy(slash, beside[i]);
        if (access(buf, R_OK) == 0) return buf;
    }
    return here;
}

int main(int argc, char **argv)
{
    struct options o = {.rti = "127.0.0.1:7470", .federation = "demo", .name = "consumer"};
    int rc = parse_args(argc, argv, &o);
    if (rc != 0) return rc == 1 ? 0 : 2;
    char fom[4096];
    if (!o.fom) o.fom = default_fom(fom, sizeof fom);
    setvbuf(stdout, NULL, _IOLBF, 0);

    /* 1. Join (the producer created the federation; create = 1 makes the order free). */
    struct app a = {0};
    tp_callbacks cb = {.discover = on_discover,
                       .reflect = on_reflect,
                       .remove = on_remove,
                       .save = on_save,
                       .restore = on_restore,
                       .saved = on_saved};
    tp_join_options opt = {.rti = o.rti,
                           .federation = o.federation,
                           .federate = o.name,
                           .fom_path = o.fom,
                           .create = 1,
                           .restore = o.resume};
    char err[512];
    rc = tp_join(&opt, &cb, &a, &a.f, err, sizeof err);
    /* resuming: the producer may not have restored the federation yet */
    for (int tries = 0; o.resume && rc == TP_ENOTFOUND && tries < 300; tries++) {
        usleep(100000);
        rc = tp_join(&opt, &cb, &a, &a.f, err, sizeof err);
    }
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
    tp_time step = tp_time_from_seconds(f, 0.1), now = 0;
    if (o.resume) { /* declarations, constraint and time came back with the join */
        check(f, tp_query_logical_time(f, &now), "logical time");
        printf("consumer: resumed at t=%.1f s\n", tp_time_to_seconds(f, now));
    } else {
        check(f, tp_subscribe_object_class(f, signal, attrs, 3), "subscribe Signal");
        check(f, tp_publish_interaction_class(f, a.cmd), "publish Command");

        /* 3. Time-constrained: updates arrive in time-stamp order, never in our past. */
        check(f, tp_enable_constrained(f), "enable constrained");
        check(f, tp_wait_constrained_enabled(f, -1), "wait constrained");

        /* 4. Meet the producer at "start". */
        check(f, tp_sync(f, "start", -1), "sync start");
    }

    /* 5. Advance in steps of 0.1 s until the producer deletes its object. Each TAR(t) is
     *    granted only once no update stamped <= t can still come. */
    while (!a.removed) {
        check(f, tp_time_advance_request(f, tp_time_add(now, step)), "time advance request");
        check(f, tp_wait_grant(f, &now, -1), "wait grant");
    }
    check(f, tp_resign(f, TP_DELETE_OBJECTS), "resign");
    tp_federate_free(f);
    printf("consumer: done, %d updates reflected\n", a.reflections);
    return 0;
}
