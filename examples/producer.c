/* Example federate "producer": publishes a time-stamped sine signal (object class Signal of
 * fom/demo.xml) under time regulation, and prints the Command interactions it receives.
 * Serves doc/guide.md (use 2: a custom federate against libtempo). doc/guide.md walks
 * through this file line by line; read examples/consumer.c next (its counterpart).
 *
 * usage: tempo-example-producer [--rti ADDR] [--federation NAME] [--fom PATH] [--steps N]
 *                               [--peers N] [--checkpoint-at K] [--resume FOLDER]
 *        (--help describes each option; checkpoints: doc/checkpoint.md) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tempo/tempo.h>

/* What the callbacks need: passed to tp_join() as ctx. */
struct app {
    int peers;      /* federates that joined after us */
    int commands;   /* Command interactions received */
    int left;       /* federates that resigned (or were resigned by the RTI) */
    tp_handle cmd;  /* interaction class Command */
    tp_handle gain; /* its parameters */
    tp_handle enabled;
    tp_handle note;
    /* what a checkpoint keeps of the loop (on_save, on_restore) */
    int k;           /* the step whose grant we wait for, or got */
    double hist[4];  /* the last 4 values sent */
    double max_sent; /* the largest value sent */
    tp_object obj;   /* our object */
};

/* A checkpoint: our part is the loop's state (the library adds its own: doc/checkpoint.md).
 * It is made inside tp_wait_grant, once step k is granted. */
struct part {
    int32_t k, peers, commands, left;
    double hist[4], max_sent;
    uint64_t obj;
};

static int on_save(void *ctx, const char *label, tp_time time, void **bytes, size_t *n, char *why,
                   size_t why_size)
{
    struct app *a = ctx;
    struct part *p = malloc(sizeof *p);
    if (!p) return snprintf(why, why_size, "out of memory"), TP_ENOMEM;
    *p = (struct part){.k = a->k,
                       .peers = a->peers,
                       .commands = a->commands,
                       .left = a->left,
                       .max_sent = a->max_sent,
                       .obj = a->obj};
    memcpy(p->hist, a->hist, sizeof p->hist);
    *bytes = p;
    *n = sizeof *p;
    return TP_OK;
}

static int on_restore(void *ctx, const char *label, tp_time time, const void *bytes, size_t n,
                      char *why, size_t why_size)
{
    struct app *a = ctx;
    struct part p;
    if (n != sizeof p)
        return snprintf(why, why_size, "a part of %zu bytes, not ours", n), TP_EINVAL;
    memcpy(&p, bytes, sizeof p);
    a->k = p.k;
    a->peers = p.peers;
    a->commands = p.commands;
    a->left = p.left;
    a->max_sent = p.max_sent;
    a->obj = p.obj;
    memcpy(a->hist, p.hist, sizeof a->hist);
    return TP_OK;
}

static void on_saved(void *ctx, const char *label, int status, const char *detail)
{
    printf("producer: save '%s': %s\n", label, status == TP_OK ? detail : tp_strerror(status));
}

static void on_joined(void *ctx, tp_fed fed, const char *name)
{
    struct app *a = ctx;
    a->peers++;
    printf("producer: federate %s (handle %u) joined\n", name, fed);
}

static void on_resigned(void *ctx, tp_fed fed, const char *name, const char *reason)
{
    struct app *a = ctx;
    a->left++;
    printf("producer: federate %s left (%s)\n", name, reason);
}

static void on_receive(void *ctx, const tp_interaction *in)
{
    struct app *a = ctx;
    double gain = 0;
    int enabled = 0;
    char note[64] = "";
    for (size_t i = 0; i < in->n_params; i++) {
        const tp_value *p = &in->params[i];
        if (p->handle == a->gain)
            tp_decode_float64(p->data, p->size, &gain);
        else if (p->handle == a->enabled)
            tp_decode_boolean(p->data, p->size, &enabled);
        else if (p->handle == a->note)
            tp_decode_string(p->data, p->size, note, sizeof note);
    }
    a->commands++;
    printf("producer: Command from federate %u: gain=%g enabled=%d note=\"%s\"\n", in->sender, gain,
           enabled, note);
}

/* Exit with the library's detailed message when a call fails. */
static void check(tp_federate *f, int rc, const char *what)
{
    if (rc < 0) {
        fprintf(stderr, "producer: %s: %s (%s)\n", what, tp_strerror(rc), tp_last_error(f));
        tp_federate_free(f);
        exit(1);
    }
}

/* Encode sample k (value x, a label, the last 4 values) and update the object, stamped t.
 * The bytes live in this function's buffers: tp_update copies them into its output batch. */
static int send_sample(tp_federate *f, tp_object obj, const tp_handle attrs[3], int k, double x,
                       const double hist[4], tp_time t)
{
    uint8_t xb[TP_FLOAT64_SIZE], hb[4 * TP_FLOAT64_SIZE];
    char text[32];
    snprintf(text, sizeof text, "sample %d", k);
    tp_encode_float64(x, xb);
    tp_encode_float64_array(hist, 4, hb, sizeof hb);
    tp_value vals[] = {{attrs[0], xb, sizeof xb},      /* value */
                       {attrs[1], text, strlen(text)}, /* label */
                       {attrs[2], hb, sizeof hb}};     /* history */
    return tp_update(f, obj, vals, 3, t);
}

static const char usage_text[] =
    "usage: tempo-example-producer [options]\n"
    "Joins a federation of the Tempo RTI (creating it if needed), publishes a sine signal\n"
    "(object class Signal) one step of 0.1 s at a time under time regulation, and prints the\n"
    "Command interactions it receives. Run tempo-example-consumer beside it.\n"
    "  --rti ADDR         the RTI: HOST:PORT or unix:PATH (default 127.0.0.1:7470)\n"
    "  --federation NAME  the federation to join or create (default demo)\n"
    "  --fom PATH         the FOM that declares Signal and Command (default fom/demo.xml in\n"
    "                     the current folder, else share/tempo/fom/demo.xml of the installation)\n"
    "  --steps N          how many samples to send (default 10)\n"
    "  --peers N          how many federates to wait for before starting (default 1)\n"
    "  --checkpoint-at K  ask for a save of the federation, labelled stepK, at step K (the\n"
    "                     RTI needs --checkpoint-dir; doc/checkpoint.md)\n"
    "  --resume FOLDER    restore the federation from that checkpoint (unless the RTI did,\n"
    "                     tempo-rti --restore) and go on from it (the consumer rejoins with\n"
    "                     --resume)\n"
    "  --help             print this text and exit\n"
    "  --version          print the version and exit\n"
    "Exit status: 0 done, 1 the RTI refused or failed, 2 a bad command line.\n";

/* What the command line sets. */
struct options {
    const char *rti, *federation, *fom, *resume;
    int steps, peers, checkpoint_at;
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
            printf("tempo-example-producer %s\n", TP_VERSION);
            return 1;
        }
        const char **text = strcmp(a, "--rti") == 0          ? &o->rti
                            : strcmp(a, "--federation") == 0 ? &o->federation
                            : strcmp(a, "--fom") == 0        ? &o->fom
                            : strcmp(a, "--resume") == 0     ? &o->resume
                                                             : NULL;
        int *num = strcmp(a, "--steps") == 0           ? &o->steps
                   : strcmp(a, "--peers") == 0         ? &o->peers
                   : strcmp(a, "--checkpoint-at") == 0 ? &o->checkpoint_at
                                                       : NULL;
        if (!text && !num) {
            fprintf(stderr, "tempo-example-producer: unknown option %s (see --help)\n", a);
            return 2;
        }
        if (i + 1 == argc) {
            fprintf(stderr, "tempo-example-producer: %s needs a value (see --help)\n", a);
            return 2;
        }
        const char *v = argv[++i];
        if (text) {
            *text = v;
            continue;
        }
        char *end;
        long n = strtol(v, &end, 10);
        if (end == v || *end || n < 0 || n > 1000000) {
            fprintf(stderr, "tempo-example-producer: %s %s: expected an integer 0 .. 1000000\n", a,
                    v);
            return 2;
        }
        *num = (int)n;
    }
    return 0;
}

/* The FOM when --fom is not given: fom/demo.xml under the current folder (the source tree),
 * else the copy beside this program: PREFIX/share/tempo/fom/demo.xml for an installed
 * PREFIX/bin/tempo-example-producer, FOLDER/fom/demo.xml for FOLDER/bin/tempo-example-producer. buf
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
    struct options o = {.rti = "127.0.0.1:7470", .federation = "demo", .steps = 10, .peers = 1};
    int rc = parse_args(argc, argv, &o);
    if (rc != 0) return rc == 1 ? 0 : 2;
    char fom[4096];
    if (!o.fom) o.fom = default_fom(fom, sizeof fom);
    int steps = o.steps, want_peers = o.peers;

    /* 1. Join, creating the federation if it does not exist yet; or, with --resume, restore
     *    it from the checkpoint and rejoin it as the federate we were (doc/checkpoint.md). */
    setvbuf(stdout, NULL, _IOLBF, 0); /* one line at a time, also into a pipe */
    struct app a = {.max_sent = -1};
    tp_callbacks cb = {.federate_joined = on_joined,
                       .federate_resigned = on_resigned,
                       .receive = on_receive,
                       .save = on_save,
                       .restore = on_restore,
                       .saved = on_saved};
    tp_join_options opt = {.rti = o.rti,
                           .federation = o.federation,
                           .federate = "producer",
                           .fom_path = o.fom,
                           .create = 1,
                           .restore = o.resume != NULL};
    char err[512];
    tp_federate *f = NULL;
    /* (TP_EEXISTS: the RTI restored it already, as tempo-rti --restore FOLDER does) */
    if (o.resume && (rc = tp_restore_federation(&opt, o.resume, err, sizeof err)) < 0 &&
        rc != TP_EEXISTS) {
        fprintf(stderr, "producer: restore: %s (%s)\n", tp_strerror(rc), err);
        return 1;
    }
    rc = tp_join(&opt, &cb, &a, &f, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "producer: join: %s (%s)\n", tp_strerror(rc), err);
        return 1;
    }

    /* 2. Resolve handles by name from the FOM (no message is sent). */
    tp_handle signal, value, label, history;
    check(f, tp_object_class(f, "Signal", &signal), "Signal");
    check(f, tp_attribute(f, signal, "value", &value), "value");
    check(f, tp_attribute(f, signal, "label", &label), "label");
    check(f, tp_attribute(f, signal, "history", &history), "history");
    check(f, tp_interaction_class(f, "Command", &a.cmd), "Command");
    check(f, tp_parameter(f, a.cmd, "gain", &a.gain), "gain");
    check(f, tp_parameter(f, a.cmd, "enabled", &a.enabled), "enabled");
    check(f, tp_parameter(f, a.cmd, "note", &a.note), "note");

    /* 3. Declare what we send and receive, and register our object (a restored federate has
     *    its declarations, object, time and regulation back, and met the others already). */
    tp_handle attrs[] = {value, label, history};
    tp_time step = tp_time_from_seconds(f, 0.1), now = 0;
    if (o.resume) {
        check(f, tp_query_logical_time(f, &now), "logical time");
        printf("producer: resumed at t=%.1f s after step %d\n", tp_time_to_seconds(f, now), a.k);
    } else {
        check(f, tp_publish_object_class(f, signal, attrs, 3), "publish Signal");
        check(f, tp_subscribe_interaction_class(f, a.cmd), "subscribe Command");
        check(f, tp_register_object(f, signal, "sine", &a.obj), "register sine");

        /* 4. Time: one step is 0.1 s; we promise never to send less than a step ahead. */
        check(f, tp_enable_regulation(f, step), "enable regulation");
        check(f, tp_wait_regulation_enabled(f, -1), "wait regulation");

        /* 5. Start together: wait for the consumer, then meet at "start". */
        printf("producer: joined as federate %u, waiting for %d peer(s)\n", tp_federate_handle(f),
               want_peers);
        while (a.peers < want_peers)
            check(f, tp_evoke(f, -1), "evoke");
        check(f, tp_register_sync(f, "start", NULL, 0, NULL, 0), "register start");
        check(f, tp_sync(f, "start", -1), "sync start");
        if (o.checkpoint_at > 0) { /* saved inside the grant of that step (doc/checkpoint.md) */
            char ck[32];
            snprintf(ck, sizeof ck, "step%d", o.checkpoint_at);
            check(f, tp_request_save(f, ck, o.checkpoint_at * step), "request save");
        }
    }

    /* 6. The loop: send the value for T + step, stamped T + step, then advance to it. */
    for (int k = a.k + 1; k <= steps; k++) {
        tp_time t = tp_time_add(now, step);
        double x = sin(tp_time_to_seconds(f, t));
        memmove(a.hist + 1, a.hist, 3 * sizeof a.hist[0]);
        a.hist[0] = x;
        a.max_sent = x > a.max_sent ? x : a.max_sent;
        a.k = k;
        check(f, send_sample(f, a.obj, attrs, k, x, a.hist, t), "update");
        printf("producer: t=%.1f s sent value=%.4f\n", tp_time_to_seconds(f, t), x);
        check(f, tp_time_advance_request(f, t), "time advance request");
        check(f, tp_wait_grant(f, &now, -1), "wait grant");
    }

    /* 7. The consumer answers the first sample above 0.5 with a Command. Our time runs ahead
     *    of the consumer's (nothing holds us back), so when we sent such a sample its Command
     *    may still be on its way: evoke callbacks until it came, or until a peer left. */
    while (a.max_sent > 0.5 && a.commands == 0 && a.left == 0)
        check(f, tp_evoke(f, -1), "evoke");

    /* 8. Leave: delete our object, stamped like an update so that subscribers get `remove`
     *    after the last sample, then resign. */
    check(f, tp_delete_object(f, a.obj, tp_time_add(now, step)), "delete");
    check(f, tp_resign(f, TP_DELETE_OBJECTS), "resign");
    tp_federate_free(f);
    printf("producer: done after %d steps\n", steps);
    return 0;
}
