/* Quotas of the RTI server (rti/server/limits.c): each check returns a status and fills a
 * refusal that names the option setting the limit. What a client makes the RTI hold is
 * charged to two accounts, its connection's and its address's, so that neither one
 * connection nor many connections from one address can grow the RTI without bound
 * (doc/rti.md "Memory quotas" has the bound as a formula). Serves doc/rti.md.
 * Read limits.c next. */
#ifndef TEMPO_RTI_SERVER_LIMITS_H
#define TEMPO_RTI_SERVER_LIMITS_H

#include <stddef.h>
#include <stdint.h>

struct server;
struct federate;
struct federation;
struct link;

#define LIMITS_TRIM_OBJECTS 1024 /* objects freed at once past which memory is trimmed */

/* The resources charged to accounts. */
enum quota_res {
    QR_OBJECTS = 0,    /* objects registered and still existing (kept at resign included) */
    QR_SYNCS = 1,      /* synchronization points registered and still pending */
    QR_SYNC_BYTES = 2, /* label and tag bytes of those points */
    QR_UNJOINED = 3,   /* federations created by CREATE_FEDERATION that nobody joined yet */
    QR_PENDING = 4,    /* time-stamped messages held at the RTI until tm delivers them */
    QR_COUNT = 5
};

/* Who a charge is made against. */
enum quota_scope {
    QS_CONN = 0, /* the connection that asked */
    QS_ADDR = 1, /* every connection from its address, past and present */
    QS_COUNT = 2
};

/* One account: what a connection or an address holds in the RTI. Refcounted: the connection
 * holds a reference, and so does every resource charged to it, so a resource that outlives
 * its connection (an object kept at resign, a pending synchronization point, a message still
 * queued) stays charged until it is freed. */
struct acct {
    uint64_t used[QR_COUNT]; /* per resource, in its unit (count or bytes) */
    uint32_t refs;           /* the connection's reference + one per charged resource */
    int scope;               /* enum quota_scope */
    char addr[48];           /* QS_ADDR: the address (link.addr) */
    struct acct *next;       /* QS_ADDR: the server's list of address accounts */
};

/* The accounts one resource is charged to (both NULL: charged to nobody). */
struct charge {
    struct acct *a[QS_COUNT];
};

/* Fill in the defaults of the quota options left at 0 in s->cfg. */
void limits_defaults(struct server *s);

/* A connection passed its HELLO: its own account and its address's (shared with the other
 * connections from that address), one reference each, into @p out. 0, or -1 (out of memory:
 * nothing held). */
int limits_open(struct server *s, const struct link *c, struct charge *out);
/* The connection is gone: drop its references (the accounts live on while resources charged
 * to them do). */
void limits_close(struct server *s, struct charge *c);

/* Charge @p amount of resource @p res to the accounts of @p from into @p dst (which takes
 * a reference on each), unless one of them would pass its quota: then STATUS_EREFUSED with a
 * refusal naming the option, the account's use and the limit (@p what names the request,
 * @p who the federate or connection), and nothing is charged. @p from NULL charges nobody. */
int limits_charge(struct server *s, const struct charge *from, struct charge *dst,
                  enum quota_res res, uint64_t amount, const char *what, const char *who, char *err,
                  size_t errlen);
/* Give back a charge made by limits_charge (dst emptied; accepts an empty charge). */
void limits_uncharge(struct server *s, struct charge *dst, enum quota_res res, uint64_t amount);

/* STATUS_OK, or STATUS_EREFUSED when fom_len is over --max-fom-bytes (err filled). */
int limits_fom(const struct server *s, const char *fxname, size_t fom_len, char *err,
               size_t errlen);
/* STATUS_OK, or STATUS_EREFUSED when fx already holds --max-federation-objects objects,
 * kept ones included (err filled). */
int limits_federation_objects(const struct server *s, const struct federation *fx, char *err,
                              size_t errlen);
/* n_objects were just freed (a federate resigned deleting them): give memory back. */
void limits_released(const struct server *s, uint32_t n_objects);

/* Milliseconds of a monotonic clock (the age of federations nobody joined). */
int64_t limits_now_ms(void);

#endif
