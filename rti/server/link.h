/* A link: what the server core sees of one client, whatever carries its frames. The core
 * (server.c and the modules it dispatches to) hands frames in through server_on_frame() and
 * sends through link_send(); conn.c implements links over sockets (libevent), embed_link.c over
 * in-memory queues for an RTI embedded in a federate process (doc/inproc.md).
 * Read rti/server/server_impl.h next. */
#ifndef TEMPO_RTI_LINK_H
#define TEMPO_RTI_LINK_H

#include <stddef.h>

struct link;

/* What a transport does for the core. Every call runs inside the core (one thread at a time:
 * the event loop, or the embedded RTI's lock). */
struct link_ops {
    /* Queue bytes (one or more whole frames) for the client. Returns 0, or -1 when the link is
     * closing or was dropped now (output limit). Must not call back into the core. */
    int (*send)(struct link *l, const void *bytes, size_t n);
    /* Close the link for the server, deferred to the end of the current frame: the transport
     * then calls server_on_close() once. flush = 1: an orderly close (queued output is still
     * delivered). A second call keeps the first reason. */
    void (*close)(struct link *l, const char *reason, int flush);
    /* Set the name used in log lines (the federate's tag after its join). */
    void (*set_label)(struct link *l, const char *label);
    /* A join was accepted on the link (the handshake is over: a transport with a handshake
     * deadline stops it). May be NULL. */
    void (*joined)(struct link *l);
};

struct link {
    const struct link_ops *ops; /* the transport's functions */
    void *user;                 /* the core's per-client state (struct client), or NULL */
    const char *label;          /* names the client in log lines; owned by the transport */
    int closed;                 /* 1 once closed for the server: nothing more is sent */
    char addr[48];              /* the peer's address without its port ("127.0.0.1", "::1", "unix",
                                   "inproc"): the key of the per-address quotas (rti/server/limits.c) */
};

static inline int link_send(struct link *l, const void *bytes, size_t n)
{
    return l->ops->send(l, bytes, n);
}

static inline void link_close(struct link *l, const char *reason, int flush)
{
    l->ops->close(l, reason, flush);
}

static inline void link_set_label(struct link *l, const char *label)
{
    l->ops->set_label(l, label);
}

static inline void link_joined(struct link *l)
{
    if (l->ops->joined) l->ops->joined(l);
}

#endif
