/* Connections of the RTI: libevent listeners (TCP and Unix), frame reading, batched writes,
 * per-connection output limits with back-pressure and deferred closing.
 * Serves doc/protocol.md (transport, batching) and doc/rti.md (limits, bad frames).
 * Read rti/server/server.h next: it turns frames into federation services. */
#ifndef TEMPO_RTI_CONN_H
#define TEMPO_RTI_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "rti/server/link.h"

struct event_base;
struct evbuffer;
struct event;
struct evconnlistener;
struct conn_hub;

/* Limits of every connection of a hub. Zero fields take the defaults below. */
struct conn_limits {
    size_t max_frame;  /* bytes, header included; a longer frame closes the connection */
    size_t max_queued; /* bytes queued for one client; past it the client is dropped */
    size_t high_water; /* bytes queued above which the sender of the current frame pauses */
    size_t low_water;  /* bytes queued at or below which paused senders resume */
    int stall_ms;      /* ms a congested client may hold paused senders before it is dropped */
    int hello_ms;      /* ms a new connection has from accept to its first JOIN accepted
                          (conn_handshake_done); HELLO alone does not stop the clock */
    int frame_ms;      /* ms a frame may take to arrive once its first byte is in */
    size_t max_conns;  /* live connections; past it a new one gets ERROR and is closed */
    size_t max_total_queued; /* bytes queued over all connections; a send that would pass it
                                drops its destination; 0 = no limit */
    int peer_ms; /* TCP: a peer that acknowledges nothing (unsent data, keepalive probes)
                    for about this long is closed by the kernel (ETIMEDOUT); 0 = off */
};

#define CONN_DEFAULT_MAX_FRAME  (1u << 20)  /* 1 MiB */
#define CONN_DEFAULT_MAX_QUEUED (64u << 20) /* 64 MiB */
#define CONN_DEFAULT_STALL_MS   10000
#define CONN_DEFAULT_HELLO_MS   10000
#define CONN_DEFAULT_FRAME_MS   10000
#define CONN_DEFAULT_MAX_CONNS  4096
#define CONN_DEFAULT_PEER_MS    60000

enum conn_state {
    CONN_OPEN = 0, /* reading and writing */
    CONN_CLOSING,  /* closed for the server (on_close ran or is queued); output may flush */
};

/* One client connection. Fields are read by the server; only conn.c writes them. */
struct conn {
    struct link link;        /* what the server core sees (first: a conn is its link);
                                link.user: the server's per-connection state, or NULL */
    struct conn_hub *hub;    /* owner */
    int fd;                  /* socket (non-blocking), owned */
    struct evbuffer *in;     /* bytes read and not yet handled (read-ahead stops at one
                                maximal frame + 64 KiB; one read may add 64 KiB more) */
    struct evbuffer *out;    /* bytes queued and not yet written */
    struct event *rev;       /* persistent read event; added while reading */
    struct event *wev;       /* persistent write event; added only while a write is partial */
    int reading;             /* 1: rev is added */
    int writing;             /* 1: wev is added (the kernel buffer was full) */
    int dirty;               /* 1: on the hub's flush list */
    int eof;                 /* 1: the peer closed its side; close once input is handled */
    struct conn *dirty_next; /* flush list link */
    struct event *kick;      /* manual event: resume reading buffered input */
    struct event *stall;     /* timer: congested too long while others wait on us */
    struct event *hello;     /* timer: handshake deadline (closes c unless it joined) */
    struct event *frame;     /* timer: partial-frame deadline (armed while part of a frame
                                is buffered) */
    int joined_once;         /* 1: conn_handshake_done ran (a join was accepted); the
                                handshake timer is off */
    uint64_t id;             /* 1, 2, ... in accept order */
    char label[256];         /* "conn#3 (127.0.0.1:5555)", later "federate@federation" */
    enum conn_state state;   /* see enum conn_state */
    int close_flush;         /* 1: keep the socket until output is written (or 1 s) */
    int peer_gone;           /* 1: closed because the peer closed or the socket failed */
    int close_notified;      /* 1: on_close has run */
    char close_reason[600];  /* why it was closed (logged and passed to on_close) */
    struct conn *close_next; /* deferred-close queue link */
    int in_close_queue;      /* 1 while on the deferred-close queue */
    int waiting;             /* count of congested destinations this conn waits for */
    struct conn **blocked;   /* senders paused until this conn drains */
    size_t n_blocked, cap_blocked;
    struct conn *prev, *next; /* the hub's list of connections */
};

/* What the server does with connections. */
struct conn_ops {
    /* One complete frame (header included) arrived on c. The bytes are valid only during the
     * call. Return 0 to go on reading, -1 when c has been closed (conn_close) and must not be
     * read further. */
    int (*on_frame)(void *ctx, struct conn *c, const uint8_t *frame, size_t len);
    /* c is gone for the server (deferred: runs at the end of the event that closed it, or at
     * shutdown). Called exactly once per connection; c->link.user is still set. */
    void (*on_close)(void *ctx, struct conn *c, const char *reason);
};

#define CONN_MAX_LISTENERS 4

/* Accepting under pressure (rti/server/conn_guard.c): when accept fails (EMFILE, ENFILE,
 * ENOBUFS, ENOMEM) every listener is disabled for backoff_ms, doubled on each failure up to
 * CONN_GUARD_BACKOFF_MAX_MS and reset by the next successful accept; failures and refusals are
 * counted and logged at most once per CONN_GUARD_REPORT_MS. */
#define CONN_GUARD_BACKOFF_MIN_MS 10
#define CONN_GUARD_BACKOFF_MAX_MS 1000
#define CONN_GUARD_REPORT_MS      1000
struct conn_guard {
    struct event *resume;    /* timer: re-enable the listeners */
    int backoff_ms;          /* pause after the next failure */
    uint64_t fails, refused; /* accept failures / connections over the limit not yet logged */
    uint64_t fails_total, refused_total; /* since start */
    int last_errno;                      /* errno of the last accept failure */
    long long last_report_ms;            /* monotonic ms of the last report line, 0 = none yet */
};

struct conn_hub {
    struct event_base *base; /* not owned */
    struct conn_limits lim;  /* effective limits (defaults applied) */
    struct conn_ops ops;     /* server callbacks */
    void *ctx;               /* server context passed to ops */
    struct conn *head;       /* all live connections */
    size_t n_conns;          /* live connections */
    uint64_t next_id;        /* id of the next accepted connection */
    struct conn *current;    /* connection whose frame is being handled, or NULL */
    struct conn *close_head; /* deferred-close queue */
    struct event *reaper;    /* manual event that drains the deferred-close queue */
    struct conn *dirty_head; /* connections with output to write at the end of this event */
    struct event *flusher;   /* manual event that writes them (one write per batch) */
    struct evconnlistener *lst[CONN_MAX_LISTENERS];
    int n_lst;
    char unix_path[108];                   /* socket file to unlink at shutdown, "" if none */
    unsigned long long unix_dev, unix_ino; /* identity of the socket file this hub bound:
                                              fini unlinks the path only if it is still it */
    struct conn_guard guard; /* accept failures and the connection limit (conn_guard.c) */
    uint64_t n_dropped_slow; /* clients dropped for the output limit or a stall */
    size_t total_queued;     /* bytes queued over all connections (kept by an evbuffer
                                callback on every output buffer) */
};

/**
 * Prepare a hub on an event base. No listener is opened yet.
 * @param hub  caller-owned, zeroed by this call.
 * @param base the event loop (not owned; outlives the hub).
 * @param lim  limits; NULL or zero fields take the defaults. high_water defaults to
 *             max_queued/2, low_water to high_water/2.
 * @param ops  callbacks (copied). @param ctx passed to them.
 * @param err  receives the reason on failure. @param errlen its size.
 * @return 0, or -1 when libevent cannot create an event (err says so).
 */
int conn_hub_init(struct conn_hub *hub, struct event_base *base, const struct conn_limits *lim,
                  const struct conn_ops *ops, void *ctx, char *err, size_t errlen);

/** Split "HOST:PORT" ("[v6]:PORT" for IPv6) into host and port (digits, at most 65535).
 *  @return 0, or -1 when the form is wrong or a part does not fit its buffer. */
int conn_split_addr(const char *addr, char *host, size_t hostlen, char *port, size_t portlen);

/** 1 when @p sa is a loopback address (127/8 or ::1); the RTI's listeners and its live view
 *  refuse other addresses unless told to serve other hosts (doc/rti.md). */
struct sockaddr;
int conn_is_loopback(const struct sockaddr *sa);

/**
 * Listen on TCP. addr is "HOST:PORT" ("[v6]:PORT" for IPv6); port 0 picks a free port.
 * @param allow_remote 0: refuse an address that is not loopback (doc/rti.md).
 * @param bound  receives the address actually bound, "HOST:PORT" (may be NULL).
 * @return 0, or -1 with err naming the address and the failing call (getaddrinfo, bind...).
 */
int conn_hub_listen_tcp(struct conn_hub *hub, const char *addr, int allow_remote, char *bound,
                        size_t boundlen, char *err, size_t errlen);

/**
 * Listen on a Unix stream socket at path. A stale socket file at path (nobody accepts on it)
 * is replaced; a live one is refused ("in use by pid N"), as is any other existing file. The
 * check and the bind happen under an flock(2) of the parent directory, so two RTIs started
 * at once cannot both replace it. conn_hub_fini() removes the file only while it is still the
 * one this hub bound (same device and inode).
 * @return 0, or -1 with err naming the path and the failing call.
 */
int conn_hub_listen_unix(struct conn_hub *hub, const char *path, char *err, size_t errlen);

/**
 * Close every connection (on_close runs for each, reason "RTI shutting down"), the
 * listeners and the hub's events, and remove the Unix socket file. The hub may be zeroed
 * or only partly initialised.
 */
void conn_hub_fini(struct conn_hub *hub);

/**
 * Queue bytes (one or more encoded frames) for c. They are written once the callbacks of the
 * current loop iteration have run (one writev per connection for everything queued during
 * it). When the queue passes high_water the sender of the current frame pauses until c
 * drains; past max_queued c is dropped (closed with a logged reason) and the bytes are
 * discarded. Cost: one memcpy into libevent's buffer chains; Tempo allocates nothing.
 * @return 0 when queued, -1 when c is closing or was dropped now.
 */
int conn_send(struct conn *c, const void *bytes, size_t n);

/** Bytes queued for c and not yet written. */
size_t conn_queued(const struct conn *c);

/**
 * Close c for the server, deferred to the end of the current event: on_close runs once, then
 * the socket is freed (after its output is written when flush is 1, at most 1 s later).
 * Reading stops at once. A second call keeps the first reason.
 * @param reason why (logged at warn level unless it is an orderly close: flush=1).
 */
void conn_close(struct conn *c, const char *reason, int flush);

/** The server accepted c's JOIN: the handshake deadline (hello_ms) no longer applies. */
void conn_handshake_done(struct conn *c);

/* ---- conn_guard.c (used by conn.c only) ---- */

/** accept failed with errno e: pause the listeners with backoff, count, report once per
 * CONN_GUARD_REPORT_MS. */
void conn_guard_accept_failed(struct conn_hub *hub, int e);
/** A connection fd was accepted: 0 to serve it, or -1 when the hub is at lim.max_conns (the
 * fd got an ERROR frame and is closed; counted and reported as above). */
int conn_guard_admit(struct conn_hub *hub, int fd);
/** Claim path for a Unix listener: refuse a live socket or another kind of file, remove a
 * stale socket. 0, or -1 with err filled. */
int conn_guard_unix_claim(const char *path, char *err, size_t errlen);
/** Free the guard's timer. */
void conn_guard_fini(struct conn_hub *hub);

/** Set the label used in log lines (e.g. the federate name after join). */
void conn_set_label(struct conn *c, const char *label);

#endif
