/* Private state of the live view (live.c: HTTP; live_json.c: samples and JSON; live_page.c:
 * the page). Serves doc/live.md. Read rti/server/live.c next. */
#ifndef TEMPO_RTI_SERVER_LIVE_IMPL_H
#define TEMPO_RTI_SERVER_LIVE_IMPL_H

#include "rti/server/server_impl.h"

#include <stddef.h>
#include <stdint.h>

struct evbuffer;
struct evconnlistener;
struct event;
struct hconn;

#define LIVE_MAX_CONNS       16    /* HTTP connections at once; more are closed at accept */
#define LIVE_HEAD_MAX        8192  /* bytes of a request head (request line and headers) */
#define LIVE_READ_MS         5000  /* a request head must arrive whole within this */
#define LIVE_WRITE_MS        10000 /* a reply or stream that makes no progress this long: dropped */
#define LIVE_OUT_MAX         (1u << 20) /* bytes queued for one stream before it is dropped */
#define LIVE_SAMPLE_MS       1000       /* one sample (and one stream event) per this */
#define LIVE_SAMPLES         180        /* samples kept per federate: the plots' 3 minutes */
#define LIVE_FEDERATES_SHOWN 64 /* federates listed per federation in the JSON (doc/live.md) */
#define LIVE_STATE_MAX                                                                             \
    (256u << 10) /* bytes of federations' JSON past which no further federation is listed:         \
                    with LIVE_FEDERATES_SHOWN a reply stays under LIVE_OUT_MAX */
#define LIVE_STALL_S                                                                               \
    3 /* a federation is stalled when a federate waits and none                                    \
         progressed (federate.progress) for this many samples */

/* One federate's samples, a ring of LIVE_SAMPLES. */
struct live_hist {
    uint32_t n, head;                /* samples held, index of the next one */
    int64_t asked[LIVE_SAMPLES];     /* ticks: its latest requested time (else its logical time)
                                        at each sample: the time its model steps to */
    uint64_t frames[LIVE_SAMPLES];   /* frames received from it to each sample */
    uint64_t progress[LIVE_SAMPLES]; /* federate.progress at each sample */
};

struct live {
    struct server *s;
    struct evconnlistener *lst;
    struct event *tick;    /* the sampler (LIVE_SAMPLE_MS) */
    struct evbuffer *json; /* scratch: the state as JSON, built once per sample for all streams */
    char address[80];      /* bound "HOST:PORT" */
    struct hconn *conns;   /* open HTTP connections */
    size_t n_conns, n_streams;
    uint64_t n_refused, n_dropped, n_timeouts; /* at accept (full) / slow streams / deadlines */
};

/* The page (live_page.c). */
extern const char live_page[];

/* Take one sample of every federate (live_json.c). */
void live_sample(struct live *lv);
/* Append the whole state as one JSON object (no newline) to out (doc/live.md). */
void live_json_state(struct live *lv, struct evbuffer *out);

#endif
