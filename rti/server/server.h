/* The RTI server: options, start, run until SIGINT/SIGTERM, stop. rti/server/main.c parses the
 * command line into a struct server_config and calls these. Serves doc/guide.md and doc/rti.md.
 * Read rti/server/server_impl.h next for the state, then rti/server/server.c. */
#ifndef TEMPO_RTI_SERVER_H
#define TEMPO_RTI_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "rti/server/limits.h"

#define SERVER_DEFAULT_LISTEN          "127.0.0.1:7470"
#define SERVER_MAX_FEDERATES_DEFAULT   1024         /* federates per federation */
#define SERVER_MAX_FEDERATIONS_DEFAULT 256          /* federations per server */
#define SERVER_MAX_FOM_BYTES_DEFAULT   (256u << 10) /* bytes of one FOM text */
/* Quotas per connection and per address (rti/server/limits.h; doc/rti.md "Memory quotas"). */
/* objects one connection holds; also, unless set apart, what one address and one federation
 * hold (kept objects included): no client gets past it by reconnecting or rejoining */
#define SERVER_MAX_OBJECTS_DEFAULT             100000
#define SERVER_MAX_SYNC_POINTS_DEFAULT         1024 /* pending sync points of one connection */
#define SERVER_MAX_ADDRESS_SYNC_POINTS_DEFAULT 4096 /* ... of one address */
#define SERVER_MAX_SYNC_BYTES_DEFAULT          ((uint64_t)16 << 20) /* their label + tag bytes */
#define SERVER_MAX_ADDRESS_SYNC_BYTES_DEFAULT  ((uint64_t)64 << 20)
#define SERVER_MAX_UNJOINED_DEFAULT            8 /* federations created, nobody joined */
#define SERVER_MAX_ADDRESS_UNJOINED_DEFAULT    32
#define SERVER_UNJOINED_MS_DEFAULT             60000  /* such a federation expires after this */
#define SERVER_MAX_PENDING_DEFAULT             100000 /* time-stamped messages held for delivery */
#define SERVER_MAX_ADDRESS_PENDING_DEFAULT     400000
#define SERVER_MAX_TOTAL_QUEUED_DEFAULT        ((size_t)1 << 30) /* output bytes, all connections */

/* Options. Zero / NULL fields mean the default. Strings are not owned (they must outlive
 * the server: main() passes argv). */
struct server_config {
    const char *listen;       /* TCP "HOST:PORT" (default SERVER_DEFAULT_LISTEN); "" = no TCP */
    const char *unix_path;    /* Unix socket path, NULL = none */
    int allow_remote;         /* 1: --listen may name a non-loopback address */
    size_t max_frame;         /* bytes per frame, header included (default 1 MiB) */
    size_t max_queued;        /* bytes queued per connection (default 64 MiB) */
    int stall_ms;             /* ms a congested client may stall its senders (default 10 s) */
    int hello_ms;             /* ms a new connection has to be joined (default 10 s) */
    int frame_ms;             /* ms a partial frame may stay incomplete (default 10 s) */
    size_t max_conns;         /* live connections (default CONN_DEFAULT_MAX_CONNS) */
    int peer_ms;              /* TCP peer deadline (default CONN_DEFAULT_PEER_MS), -1 = off */
    uint32_t max_federates;   /* per federation (default SERVER_MAX_FEDERATES_DEFAULT) */
    uint32_t max_federations; /* per server (default SERVER_MAX_FEDERATIONS_DEFAULT) */
    size_t max_fom_bytes;     /* bytes of a FOM text (default SERVER_MAX_FOM_BYTES_DEFAULT) */
    uint64_t quota[QR_COUNT][QS_COUNT]; /* [resource][scope] limits (limits.h): what one
                                           connection / one address may hold; 0 = default
                                           (SERVER_MAX_*_DEFAULT) */
    uint32_t max_federation_objects;    /* objects of one federation, kept ones included */
    int unjoined_ms;                    /* a federation created and not joined within this is
                                           destroyed (at the next CREATE); 0 = default */
    size_t max_total_queued;    /* output bytes queued over all connections (default 1 GiB) */
    const char *secret;         /* shared secret every JOIN must carry, NULL = none */
    const char *flog_dir;       /* directory for federation logs (doc/log.md), NULL = none */
    const char *flog_only;      /* comma-separated fnmatch(3) patterns: with flog_dir, log only
                                   the federations whose name matches one; NULL = all */
    int spin_us;                /* after handling events, poll this many µs before sleeping
                                   (lower latency, one busy core); 0 = never spin (default) */
    uint64_t shuffle_ties;      /* test mode: seed of tm_set_tie_shuffle for every federation
                                   (ties between senders in a hashed order); 0 = off */
    const char *http_listen;    /* the live view's "HOST:PORT" (doc/live.md), NULL = none */
    const char *checkpoint_dir; /* folder where saves are written as DIR/LABEL
                                   (doc/checkpoint.md); NULL = REQUEST_SAVE is refused */
    int keep_federations;       /* 1: a federation outlives its last federate (until
                                   DESTROY_FEDERATION); 0: it is destroyed when the last one
                                   leaves, unless objects kept without owner remain (default) */
};

struct server;

/**
 * Create the server: event loop, listeners, signal handlers. Prints nothing; the caller
 * prints the bound address (server_address()).
 * @param cfg   options (copied; its strings must outlive the server).
 * @param out   receives the server (free with server_free).
 * @param err   receives the reason on failure (names the option and the failing call).
 * @return 0, or -1 (nothing left allocated).
 */
int server_new(const struct server_config *cfg, struct server **out, char *err, size_t errlen);

/** The TCP address actually bound ("127.0.0.1:40123"), or "" when there is no TCP listener. */
const char *server_address(const struct server *s);

/** The live view's bound address ("127.0.0.1:8080"), or "" without --http (doc/live.md). */
const char *server_http_address(const struct server *s);

/**
 * Run the loop until SIGINT or SIGTERM (or server_stop). Every connection is then closed
 * and every federation freed.
 * @return 0 after a clean stop, -1 when the event loop failed.
 */
int server_run(struct server *s);

/** Ask the loop to stop at the end of the current event (async-signal-unsafe: loop only). */
void server_stop(struct server *s);

/** Free everything (accepts NULL). */
void server_free(struct server *s);

#endif
