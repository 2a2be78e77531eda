/* Private state of the RTI server: the server, its federations, federates, objects and
 * synchronization points, shared by server.c, federation.c, dm.c, om.c, sync.c and
 * timesvc.c. Serves doc/protocol.md and doc/time.md. Read rti/server/server.c next for the
 * dispatch. */
#ifndef TEMPO_RTI_SERVER_IMPL_H
#define TEMPO_RTI_SERVER_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "fom/fom.h"
#include "rti/proto/buf.h"
#include "rti/proto/ckpt.h"
#include "rti/proto/status.h"
#include "rti/proto/wire.h"
#include "rti/server/conn.h"
#include "rti/server/limits.h"
#include "rti/server/link.h"
#include "rti/server/server.h"

struct federation;
struct tm_state;

#define RTI_NAME_MAX 128  /* bytes of a federation, federate or object name, NUL included */
#define RTI_ERR_MAX  1024 /* bytes of a refusal message */

/* One (federate, class it knows the object/interaction as) pair of a routing list. */
struct route {
    struct federate *fed; /* subscriber */
    fom_handle known;     /* most derived class it subscribes to that the class is_a */
};

/* Subscribers of one object or interaction class, precomputed (doc/fom.md): routing an
 * update costs O(subscribers of its class). Rebuilt when a subscription or the set of
 * federates changes. */
struct route_list {
    struct route *v; /* entries */
    uint32_t n, cap; /* used, allocated */
};

/* A joined federate. */
struct federate {
    uint64_t handle;            /* 1, 2, ... unique in its federation, never reused */
    uint32_t slot;              /* index in federation->slots (reused after resign) */
    char name[RTI_NAME_MAX];    /* unique in its federation */
    char tag[2 * RTI_NAME_MAX]; /* "name@federation": names it in log lines */
    struct federation *fx;      /* its federation */
    struct link *conn;          /* its connection; NULL once resigned */
    uint32_t resign_action;     /* enum wire_resign_action applied on connection loss */
    uint64_t *pub_attrs;        /* [class * attr_words + w]: attributes published at class */
    uint64_t *sub_attrs;        /* same for subscriptions */
    uint8_t *pub_inter;         /* [interaction]: 1 when published */
    uint8_t *sub_inter;         /* [interaction]: 1 when subscribed */
    uint32_t n_owned;           /* objects it owns */
    size_t tso_bytes;           /* bytes of time-stamped frames held for it until tm delivers
                                   them; capped by --max-queued-bytes (timesvc.c) */
    uint64_t frames_in;         /* frames received from it since its join (the live view) */
    uint64_t progress;          /* deliveries to it and grants that advanced its time */
    int64_t last_req;           /* ticks: the time of its latest time request, -1 before one */
    struct live_hist *hist;     /* its samples for the live view (live.c), NULL without --http */
    /* checkpoints (save.c, restore.c; doc/checkpoint.md) */
    int save_state;        /* enum save_fed_state in the open save of its federation */
    struct buf part;       /* its part of the open save, as SAVE_DONE chunks arrive */
    struct buf window;     /* state frames sent to it since INITIATE_SAVE, until it reports */
    struct buf replay;     /* those it had not dispatched at its snapshot: it has them still,
                              a federate restored from this save gets them again */
    struct buf held;       /* state frames held for it (not sent): after it reported, until
                              the save ends; restored and not rejoined yet: until it rejoins */
    int holding;           /* 1: state frames go to `held` instead of its connection */
    struct park *park;     /* restored, not rejoined yet: the link that parks its frames */
    uint8_t *restore_part; /* restored: its saved part, handed back when it rejoins */
    size_t restore_len;    /* bytes at restore_part */
};

/* Where a federate stands in the open save of its federation (save.c). */
enum save_fed_state {
    SAVE_FED_NONE = 0, /* not asked yet */
    SAVE_FED_TOLD = 1, /* INITIATE_SAVE sent: its part is being made */
    SAVE_FED_DONE = 2, /* reported (saved or failed): held until the save ends */
};

/* A registered object instance. */
struct object {
    uint64_t handle;            /* 1, 2, ... unique in its federation */
    fom_handle cls;             /* registered class */
    char *name;                 /* unique name (owned) */
    struct federate *owner;     /* NULL when orphaned (owner resigned keeping objects) */
    uint64_t owner_handle;      /* handle of the registering federate (kept when orphaned) */
    uint8_t *known;             /* [slot]: 1 when the federate in that slot discovered it */
    struct object *hnext;       /* chain in the handle table */
    struct object *nnext;       /* chain in the name table */
    struct object *prev, *next; /* federation's list of all objects */
    struct charge charge;       /* the accounts it counts against (QR_OBJECTS, 1), until it is
                                   freed, kept or not (limits.h) */
};

/* A synchronization point. */
struct syncpt {
    char *label;  /* owned */
    uint8_t *tag; /* owned copy of the tag blob */
    uint32_t tag_len;
    int all;           /* 1: the set is every joined federate (late joiners too) */
    uint64_t *members; /* federate handles in the set */
    uint8_t *achieved; /* [i]: members[i] achieved */
    uint32_t n, cap;
    struct charge charge_n; /* the registrant's accounts, charged QR_SYNCS 1 ... */
    struct charge charge;   /* ... and QR_SYNC_BYTES `bytes` (limits.h) */
    uint64_t bytes;         /* label + tag bytes charged */
    struct syncpt *next;
};

struct federation {
    char name[RTI_NAME_MAX];
    struct server *srv;   /* owner (the tm decision sink needs it) */
    struct fom *fom;      /* owned; parsed from the creator's FOM text */
    uint64_t fingerprint; /* fom_fingerprint(fom) */
    char resolution[40];  /* seconds per tick, as text for JOIN_OK */
    uint32_t n_classes, n_attrs, n_inters, attr_words; /* FOM sizes; words per attr bitset */
    struct federate **slots; /* [slot_cap]: joined federates, NULL for free slots */
    uint32_t slot_cap, n_feds;
    uint64_t next_fed;           /* next federate handle (< TM_MAX_HANDLE) */
    struct federate **by_handle; /* [handle]: joined federate or NULL, handle_cap entries */
    uint32_t handle_cap;
    struct route_list *cls_routes;   /* [n_classes + 1] */
    struct route_list *inter_routes; /* [n_inters + 1] */
    int routes_dirty;                /* 1: rebuild before the next routing */
    struct object **obj_by_handle;   /* hash buckets */
    struct object **obj_by_name;     /* hash buckets */
    uint32_t obj_buckets;            /* power of two */
    uint32_t n_objects;
    struct object *objects; /* list of all objects */
    uint64_t next_obj;      /* next object handle */
    struct syncpt *syncs;   /* pending synchronization points */
    struct tm_state *tm;    /* time management (rti/tm/tm.h), NULL when none */
    struct tsoq *tsoq;      /* payloads of queued TSO messages (timesvc.c) */
    struct flog *flog;      /* federation log writer (rti/flog/flog.h), NULL when not logging */
    char flog_path[512];    /* the file it writes, "" when not logging (the live view) */
    int flog_warned;        /* 1: the writer's failure has been logged */
    int ever_joined;        /* 1: a federate has joined (federation_reap spares it before) */
    struct charge creator;  /* CREATE_FEDERATION: its creator's accounts (QR_UNJOINED 1) until
                               the first join or the destruction; empty otherwise */
    int64_t created_ms;     /* when it was created (limits_now_ms): a federation nobody joins
                               expires after --unjoined-federation-ms */
    char *fom_text;         /* its FOM as the creator sent it (a checkpoint stores it) */
    size_t fom_len;         /* bytes at fom_text */
    struct save *save;      /* the save under way (save.c), NULL when none */
    uint32_t next_save;     /* id of its next save (the req of the save's frames) */
    char restored_from[CKPT_NAME_MAX + 1]; /* label of the checkpoint it was restored from,
                                               "" when created afresh */
    struct federation *next;               /* server's list */
};

/* Per-connection state, set on HELLO. */
struct client {
    struct federate *fed; /* joined federate, or NULL */
    int authed;           /* 1: passed the shared-secret check (or none is required) */
    struct charge acct;   /* its connection's and its address's accounts (limits.h) */
};

/* The accounts a joined federate's requests are charged to; NULL once it has no connection. */
static inline const struct charge *federate_accts(const struct federate *f)
{
    const struct client *cl = f->conn ? (const struct client *)f->conn->user : NULL;
    return cl ? &cl->acct : NULL;
}

struct server {
    struct event_base *base;  /* the loop (owned); NULL for an embedded RTI (embed.c) */
    struct conn_hub hub;      /* connections; an embedded RTI uses only hub.lim */
    struct server_config cfg; /* copy of the options */
    struct federation *feds;  /* all federations */
    uint32_t n_federations;
    struct acct *addrs;      /* accounts of the addresses that hold something (limits.c) */
    struct buf out;          /* scratch encode buffer, reused for every frame sent */
    struct buf fan;          /* scratch for frames fanned out to subscribers (om.c) */
    struct buf fan_full;     /* the unfiltered variant of a fanned-out frame */
    struct wire_value *vals; /* scratch array of values, vals_cap entries */
    uint32_t vals_cap;
    struct event *sigint, *sigterm, *sigusr1;
    struct event *flog_timer; /* flushes the federation logs every FLOG_FLUSH_MS */
    int stopping;
    int dispatching;                /* > 0 while a received frame is handled (on_frame) */
    char address[80];               /* bound TCP address, "" without TCP */
    uint64_t frames_in, frames_out; /* counters for the shutdown summary */
    struct live *live;              /* the live view's HTTP server (live.c), NULL without --http */
    void *view_lock;    /* pthread_mutex_t *: the embedded RTI's lock, which the live view takes
                           around each read of the state (live_embed.c); NULL in tempo-rti */
    int64_t started_ms; /* limits_now_ms() at start: the uptime the live view shows */
};

/* ---- server.c: the core over links ------------------------------------------------------ */

/* Copy the options and apply their defaults (no listener, no loop: loop.c and embed.c add
 * their transport). */
void server_core_init(struct server *s, const struct server_config *cfg);
/* Destroy every federation (closing their logs) and free the scratch buffers; the links must
 * have been closed (server_on_close) first. */
void server_core_fini(struct server *s);
/* One complete frame (header included) arrived on c; the bytes are valid only during the
 * call. Returns 0 to go on reading, -1 when c has been closed (link_close) and must not be
 * read further. */
int server_on_frame(struct server *s, struct link *c, const uint8_t *frame, size_t len);
/* c is gone for the server: resign its federate (peer_gone = 1: the client left or its
 * transport failed: disconnected; 0: the RTI closed it: expelled) and free c->user. Called
 * exactly once per link that was open. */
void server_on_close(struct server *s, struct link *c, const char *reason, int peer_gone);

/* ---- server.c: sending ------------------------------------------------------------------ */

/* Encode m into the scratch buffer and queue it for c. Returns 0, or -1 (logged) when it
 * cannot be encoded or c is gone. */
int server_send(struct server *s, struct link *c, const struct wire_msg *m);
/* Send a REPLY (req, status, value, text). */
void server_reply(struct server *s, struct link *c, uint32_t req, uint32_t status, uint64_t value,
                  const char *text);
/* Send an ERROR refusing a request of type req_type, and log it at debug level. */
void server_refuse(struct server *s, struct link *c, uint32_t req, uint32_t req_type,
                   uint32_t status, const char *text);
/* Ensure the scratch value array holds n entries; 0 or -1. */
int server_vals_reserve(struct server *s, uint32_t n);

/* ---- federation.c ------------------------------------------------------------------------ */
/* federation_* functions act on a whole federation, federate_* on one joined federate. */

/* The federation of that name, or NULL. */
struct federation *federation_find(struct server *s, const char *name);
/* Create a federation from FOM text. Returns 0, or a STATUS_* with err filled. */
int federation_create(struct server *s, const char *name, const char *fom_text, size_t fom_len,
                      struct federation **out, char *err, size_t errlen);
/* Destroy every federation created by CREATE_FEDERATION that nobody joined within
 * --unjoined-federation-ms (doc/rti.md "Memory quotas"). Called before each creation. */
void federation_expire(struct server *s);
/* Destroy a federation: resign whoever is still joined (shutdown), unlink and free it. */
void federation_destroy(struct server *s, struct federation *fx);
/* Destroy fx when its last federate has left (doc/rti.md, Federations), unless the RTI keeps
 * federations (--keep-federations), objects kept without an owner remain, or a frame is being
 * handled (s->dispatching: the caller reaps after it). Returns 1 when fx was destroyed. */
int federation_reap(struct server *s, struct federation *fx);
/* Join a federate. Returns STATUS_OK, or STATUS_EEXISTS (name in use) / STATUS_EREFUSED
 * (full, handles used up, out of memory) with err filled. */
int federate_join(struct server *s, struct federation *fx, const char *name, struct link *c,
                  struct federate **out, char *err, size_t errlen);
/* Resign: apply action to owned objects, leave sync points, tell tm and the others, free. */
void federate_resign(struct server *s, struct federate *f, uint32_t action, uint32_t reason,
                     const char *why);
/* Queue encoded frame bytes for a joined federate (and record them in the federation log).
 * Returns 0, or -1 when it has no connection or the connection is gone. */
int federate_send(struct server *s, struct federate *to, const void *bytes, size_t n);
/* federate_send for a frame the caller has logged itself (a delivery: flog_delivered). */
int federate_send_unlogged(struct server *s, struct federate *to, const void *bytes, size_t n);
/* The federation log's writer failed: log why, once. */
void federation_flog_check(struct federation *fx);
/* Send m to every joined federate of fx except skip (may be NULL). */
void federation_broadcast(struct server *s, struct federation *fx, struct federate *skip,
                          const struct wire_msg *m);
/* The joined federate with this handle, or NULL. O(1). */
struct federate *federation_federate(struct federation *fx, uint64_t handle);

/* ---- dm.c -------------------------------------------------------------------------------- */

/* Allocate f's publication/subscription tables for fx's FOM. 0 or -1. */
int dm_federate_init(struct federation *fx, struct federate *f);
/* Free them (accepts a partly initialised f). */
void dm_federate_fini(struct federate *f);
/* Handle PUBLISH_* / UNPUBLISH_* / SUBSCRIBE_* / UNSUBSCRIBE_* from f. */
void dm_handle(struct server *s, struct federate *f, const struct wire_msg *m);
/* Rebuild the routing lists when dirty. */
void dm_routes_update(struct federation *fx);
/* Is attr published by f at class cls? */
int dm_publishes_attr(const struct federate *f, fom_handle cls, fom_handle attr);
/* Does f publish any attribute of class cls? */
int dm_publishes_class(const struct federate *f, fom_handle cls);
/* Is attr subscribed by f at class cls? */
int dm_subscribes_attr(const struct federate *f, fom_handle cls, fom_handle attr);
/* Free the routing lists. */
void dm_routes_fini(struct federation *fx);

/* ---- om.c -------------------------------------------------------------------------------- */

/* Handle REGISTER_OBJECT / UPDATE / DELETE_OBJECT / SEND_INTERACTION / REQUEST_UPDATE. */
void om_handle(struct server *s, struct federate *f, const struct wire_msg *m);
/* Discover to f every object it subscribes to and has not discovered (after a subscription
 * or a join). */
void om_discover_for(struct server *s, struct federate *f);
/* A federate resigns: delete or orphan its objects, forget its slot in every object. */
void om_federate_gone(struct server *s, struct federate *f, uint32_t action);
/* Grow every object's known[] to the federation's slot_cap. 0 or -1. */
int om_slots_grow(struct federation *fx, uint32_t new_cap);
/* Free every object of fx (federation destroyed). */
void om_fini(struct federation *fx);
/* Restore: add a saved object at the end of fx's list (owner may be NULL: orphaned). 0, or -1
 * with err (bad handle or class, duplicate handle or name, out of memory). */
int om_restore(struct federation *fx, uint64_t handle, fom_handle cls, const char *name,
               struct federate *owner, uint64_t owner_handle, struct object **out, char *err,
               size_t errlen);

/* ---- sync.c ------------------------------------------------------------------------------ */

/* Handle REGISTER_SYNC / ACHIEVE_SYNC. */
void sync_handle(struct server *s, struct federate *f, const struct wire_msg *m);
/* f joined: announce points registered for "all". */
void sync_federate_joined(struct server *s, struct federate *f);
/* f resigned: take it out of every set (may complete a point). */
void sync_federate_gone(struct server *s, struct federate *f);
/* Free every pending point of fx. */
void sync_fini(struct federation *fx);
/* Restore: add a saved point at the end of fx's list (members[i] joined, achieved[i] 0/1). 0,
 * or -1 with err (duplicate label, unknown member, out of memory). */
int sync_restore(struct federation *fx, const char *label, const uint8_t *tag, uint32_t tag_len,
                 int all, const uint64_t *members, const uint8_t *achieved, uint32_t n, char *err,
                 size_t errlen);

/* ---- live.c: the live view (doc/live.md) --------------------------------------------------- */

/* Serve the live view on addr ("HOST:PORT"; loopback unless cfg.allow_remote, and then only
 * with cfg.secret). Needs s->base. 0, or -1 with err naming the option and the failing call. */
int live_start(struct server *s, const char *addr, char *err, size_t errlen);
/* Close every HTTP connection and the listener (accepts s->live == NULL). */
void live_stop(struct server *s);
/* The address the view listens on ("127.0.0.1:8080"), "" without one. */
const char *live_address(const struct server *s);

/* ---- save.c: the coordinated save (doc/checkpoint.md) ------------------------------------- */

/* Handle REQUEST_SAVE and SAVE_DONE from f. */
void save_handle(struct server *s, struct federate *f, const struct wire_msg *m);
/* Called by the tm sink before a GRANT to f at time t: when a save of fx is open and f has
 * not been asked, ask it now (INITIATE_SAVE before the grant: libtempo makes its part right
 * after the grant). */
void save_before_grant(struct server *s, struct federate *f, int64_t t);
/* After a frame of fx was handled: ask the federates that may save now, end the save when
 * all have reported or when the others cannot reach the save time. */
void save_poll(struct server *s, struct federation *fx);
/* f joins or leaves fx while a save is open: the save fails naming it (why). */
void save_federate_event(struct server *s, struct federate *f, const char *why);
/* Is the request m of f refused because f has saved and is held? Refuses it (naming the save)
 * and returns 1; 0 otherwise. */
int save_refuses(struct server *s, struct federate *f, const struct wire_msg *m);
/* A frame for f (federate_send): keep it back while f is held (returns 1: not to be sent),
 * or copy it into f's window while it makes its part (returns 0: send it). */
int save_hold_frame(struct federate *f, const uint8_t *frame, size_t n);
/* fx is destroyed: drop its open save (no outcome is sent). */
void save_fini(struct federation *fx);
/* Free f's checkpoint buffers (federate_resign). */
void save_federate_fini(struct federate *f);
/* Append the RTI's part of fx (doc/checkpoint.md "The RTI's part") to b. 0, or -1 with err. */
int save_rti_part(struct federation *fx, struct buf *b, char *err, size_t errlen);

/* ---- restore.c: a federation from a checkpoint, and the rejoins --------------------------- */

/* Handle RESTORE_FEDERATION on connection c (secret already checked). */
void restore_handle(struct server *s, struct link *c, const struct wire_msg *m);
/* A JOIN with WIRE_JOIN_RESTORE (frame, len: the JOIN, and verdict, what the federation log
 * says of its secret: flog_frame_client): attach c
 * (and cl, its client state) to the saved federate of that name, send its part
 * (RESTORE_PART), the JOIN_OK and the frames held for it. Returns STATUS_OK, or a STATUS_*
 * with err filled (nothing changed). */
int restore_rejoin(struct server *s, struct federation *fx, const char *name, struct link *c,
                   struct client *cl, const struct wire_msg *m, const uint8_t *frame, size_t len,
                   const char *verdict, char *err, size_t errlen);
/* Free a restored federate's parking link (federate_resign). */
void restore_unpark(struct federate *f);

/* ---- timesvc.c: time management glue ------------------------------------------------------ */

/* Set up / tear down fx's time-management state. 0 or -1. */
int timesvc_init(struct federation *fx, char *err, size_t errlen);
void timesvc_fini(struct federation *fx);
/* Tell tm about a join (0, or -1 logged) / a resign or connection loss (may grant others). */
int timesvc_join(struct server *s, struct federate *f);
void timesvc_resign(struct server *s, struct federate *f);
/* Handle ENABLE_* / DISABLE_* / MODIFY_LOOKAHEAD / TIME_REQUEST / QUERY_TIME. */
void timesvc_handle(struct server *s, struct federate *f, const struct wire_msg *m);
/* Log every federate's "who blocks whom" line (SIGUSR1), then the federate to look at. */
void timesvc_dump(struct server *s, struct federation *fx);
/* The same lines handed to emit (tag: the federate's, or "-"); the in-process RTI's status
 * (embed_status). Returns 1 when the last line names a federate to look at, 0 when none. */
int timesvc_status(struct federation *fx,
                   void (*emit)(void *ctx, const char *tag, const char *line), void *ctx);
/* One time-stamped message from f at ts: timesvc_begin, then timesvc_add with the encoded
 * frame (REFLECT / REMOVE_OBJECT / RECEIVE_INTERACTION, order field TSO) for each receiver,
 * then timesvc_commit, which hands the set to tm: tm checks the sender's bound and decides
 * when each receiver gets its frame (at once, as receive order, when the sender is not
 * regulating or the receiver not constrained; doc/time.md). The frames are copied.
 * timesvc_commit returns STATUS_OK, or a STATUS_* with err filled (nothing is sent). */
void timesvc_begin(struct server *s, struct federate *f, int64_t ts);
void timesvc_add(struct server *s, struct federate *to, const uint8_t *frame, size_t len);
int timesvc_commit(struct server *s, struct federate *f, char *err, size_t errlen);
/* Checkpoints (doc/checkpoint.md "The RTI's part"): append the queued time-stamped messages
 * (each record's frames per receiver) and tm_save's bytes to b; 0, or -1 with err. */
int timesvc_save(struct federation *fx, struct buf *b, char *err, size_t errlen);
/* Read what timesvc_save wrote from d into fx (whose tm is fresh and empty): the records,
 * then the engine (tm_restore), its tokens mapped to the new records. 0, or -1 with err
 * naming what is wrong (fx keeps a consistent, empty state then). */
int timesvc_restore(struct federation *fx, struct ckpt_dec *d, char *err, size_t errlen);
/* The tm settings every federation gets (reason texts by log level and federation log). */
void timesvc_settings(struct federation *fx);

#endif
