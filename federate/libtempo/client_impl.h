/* Private state of a libtempo federate and the helpers the client_*.c files share.
 * Serves doc/protocol.md (evoked model, batched frames) and doc/api.md. The public contract is
 * federate/libtempo/tempo.h; read federate/libtempo/client_conn.c next (connection, batching,
 * replies). Internal symbols carry the prefix tpi_ (hidden by -fvisibility=hidden). */
#ifndef TEMPO_FEDERATE_CLIENT_IMPL_H
#define TEMPO_FEDERATE_CLIENT_IMPL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "federate/libtempo/tempo.h"
#include "fom/fom.h"
#include "rti/proto/buf.h"
#include "rti/proto/secret.h"
#include "rti/proto/wire.h"

struct embed_link;

#define TPI_ERRLEN              512          /* bytes of the detailed error message */
#define TPI_FLUSH_THRESHOLD     (64u << 10)  /* bytes buffered before a send writes them out */
#define TPI_READ_CHUNK          (256u << 10) /* bytes asked from read() at a time */
#define TPI_DEFAULT_TIMEOUT_MS  10000        /* connect / reply timeout when the options give 0 */
#define TPI_DEFAULT_RTI         "127.0.0.1:7470"
#define TPI_DEFAULT_LIVENESS_MS 60000    /* RTI liveness deadline without TEMPO_LIVENESS_MS */
#define TPI_LIVENESS_MIN_MS     100      /* shortest deadline tp_set_liveness accepts */
#define TPI_LIVENESS_MAX_MS     86400000 /* longest one (a day) */

/* State of regulation or constrained. */
enum tpi_enable { TPI_OFF = 0, TPI_ENABLING = 1, TPI_ON = 2 };

/* A synchronization point this federate has heard of. */
struct tpi_sync {
    char *label;   /* owned */
    int announced; /* 1 after ANNOUNCE_SYNC */
    int achieved;  /* 1 after tp_achieve_sync */
    int synced;    /* 1 after FEDERATION_SYNCED */
};

/* An object known to this federate: registered by it or discovered (open-addressing table,
 * linear probing; key 0 = empty slot, TPI_OBJ_TOMB = deleted slot). */
#define TPI_OBJ_TOMB UINT64_MAX
struct tpi_obj {
    tp_object obj; /* object handle, 0 = free slot, TPI_OBJ_TOMB = deleted slot */
    tp_handle cls; /* its class (as discovered, or as registered) */
    int owned;     /* 1 when this federate registered it */
};

struct tp_federate {
    /* connection */
    int fd;                /* socket, -1 when closed or in process */
    struct embed_link *ip; /* link to an embedded RTI ("inproc:NAME", rti/server/embed.h),
                              NULL over a socket or when closed */
    int joined;            /* 1 between a successful join and resign/close */
    int closed;            /* 1 once the connection is gone (EOF, error, resign) */
    uint32_t max_frame;    /* largest frame accepted/sent, header included */
    int timeout_ms;        /* reply timeout (< 0 = forever) */
    int rcvtimeo_ms;       /* SO_RCVTIMEO now set on fd: < 0 = none (blocking forever) */
    int liveness_ms;       /* RTI liveness deadline (tp_set_liveness): a socket read that has
                              seen nothing for this long closes the connection; 0 = off */
    int64_t last_rx_ms;    /* monotonic ms when bytes last came from the RTI */
    int64_t ping_ms;       /* monotonic ms of the last liveness PING sent (0 = none) */
    int64_t read_end_ms;   /* monotonic ms when the last socket read returned: time since then
                              was spent away from libtempo, not waiting on the RTI */
    int flushing;          /* 1 inside tpi_flush: the liveness check sends no PING there */
    uint32_t next_req;     /* next request id (never 0) */
    struct buf out;        /* encoded frames not yet written */
    struct buf in;         /* received bytes; frames [in_off, in.len) not yet dispatched */
    size_t in_off;         /* bytes of in already dispatched */
    /* identity */
    tp_fed handle;                  /* our federate handle */
    char name[128];                 /* our federate name (for log lines) */
    tp_resign_action resign_action; /* join-time action */
    /* FOM */
    struct fom *fom;                       /* parsed FOM, owned */
    double resolution;                     /* seconds per tick */
    uint32_t n_classes, n_attrs, n_inters; /* handle counts (handles are 1..count) */
    uint8_t *pub_attr;  /* [(n_attrs+1) * cls + attr] = 1 when published; [.. + 0] =
                           class published at all */
    uint8_t *pub_inter; /* [ic] = 1 when published */
    /* objects registered or discovered: class lookup for updates and reflections */
    struct tpi_obj *objs;       /* table of objs_cap slots (power of two), or NULL */
    size_t objs_cap, objs_used; /* slots, slots not free (live + deleted) */
    /* decode scratch for callbacks (grows, never shrinks: no allocation once warm) */
    struct wire_value *wv;     /* decoded wire values */
    tp_value *tv;              /* the same as tp_value */
    tp_handle *th;             /* handle list scratch */
    uint32_t scratch_cap;      /* entries in each of wv, tv, th */
    struct wire_value *out_wv; /* values of an outgoing update or interaction: apart from wv
                                  and tv, so that a callback that sends cannot move the values
                                  it was given */
    uint32_t out_cap;          /* entries in out_wv */
    struct buf cur;            /* copy of the frame being dispatched: callback arguments stay
                                  valid even if the callback makes f->in grow or move */
    char *str[2];              /* NUL-terminated copies of string fields for callbacks */
    size_t str_cap[2];         /* bytes allocated in str[i] */
    int dispatching;           /* 1 inside a callback: tp_evoke and tp_wait_* refuse to nest */
    /* callbacks */
    tp_callbacks cb;        /* user callbacks (copied) */
    void *ctx;              /* user context */
    tp_log_level log_level; /* most verbose level passed to the log callback */
    /* time management (mirror of doc/time.md for local checks; the RTI decides) */
    tp_time now;       /* logical time (last grant) */
    tp_time lookahead; /* lookahead when regulating (or being enabled) */
    enum tpi_enable regulation, constrained;
    tp_request_kind pending; /* pending request, TP_REQ_NONE in the granted state */
    tp_time pending_time;    /* its time */
    int granted_strict;      /* L = 0 bound after the last grant: 1 after TAR/NER/FQR */
    tp_time promised;        /* highest bound announced so far (a promise never goes down) */
    int promised_strict;     /* its strictness */
    tp_time promised_before; /* promise before the pending request (restored if refused) */
    int promised_before_strict;
    int grants; /* grants received (tp_wait_grant watches it) */
    /* synchronization points */
    struct tpi_sync *syncs; /* heard-of points */
    size_t n_syncs, cap_syncs;
    /* errors */
    char err[TPI_ERRLEN]; /* detailed message of the last failure */
    /* a refusal of an asynchronous request (UPDATE, SEND_INTERACTION, ...) that the RTI sent
     * later: returned by the next blocking call (tpi_take_late) so that it is never lost */
    int late_code;             /* TP_E* of the first one not yet returned, 0 none */
    char late_msg[TPI_ERRLEN]; /* its message */
    uint64_t in_base;          /* bytes received and dropped from `in` before in.data[0] */
    uint64_t late_pos;         /* 1 + stream offset of the last ERROR frame noted (0 none) */
    uint64_t cur_pos;          /* stream offset of the frame being dispatched */
    /* checkpoints (client_ckpt.c, doc/checkpoint.md "The cut") */
    int save_asked;       /* 1 from an INITIATE_SAVE until this federate saved its part */
    int save_armed;       /* 1: asked while a time request was pending: save after its grant */
    uint32_t save_id;     /* the save's id (req of its frames) */
    uint32_t save_chunk;  /* bytes of part one SAVE_DONE may carry (the RTI says) */
    char save_label[72];  /* its label */
    uint64_t save_frames; /* state frames (wire_type_state) dispatched since INITIATE_SAVE */
    uint64_t fingerprint; /* the FOM's fingerprint (a part names it) */
};

/* ---- errors and logging (client_err.c) ------------------------------------------------ */

/** Record a failure on @p f (printf-style message) and return @p code, so that call sites
 *  read `return tpi_fail(f, TP_EHANDLE, "unknown object %llu", ...)`. */
int tpi_fail(tp_federate *f, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/** Pass a log line to the user's log callback or the default (stderr for warn and above). */
void tpi_log(tp_federate *f, tp_log_level lv, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** Map an RTI status code (REPLY/ERROR code, the RTI's TP-compatible codes) to a TP_E*. */
int tpi_rti_code(uint32_t code);
/* The secret a join, create or destroy carries: opt->secret, else TEMPO_SECRET, else the file
 * TEMPO_SECRET_FILE names (rti/proto/secret.h), else none (*out NULL). buf holds a secret read
 * from the environment. TP_OK, or TP_EINVAL with err filled (an unusable file). */
int tpi_secret(const tp_join_options *opt, char *buf, size_t cap, const char **out, char *err,
               size_t errlen);
/** Note an ERROR frame of the RTI at stream offset @p pos (seen while dispatching or while
 *  waiting for a reply; each frame is noted once): the refusal of an asynchronous request
 *  other than a time request (tp_wait_grant reports those) becomes the late error. */
void tpi_note_late(tp_federate *f, const struct wire_msg *m, uint64_t pos);
/** The late error, once: 0 when none; else its code, with f->err saying which request the
 *  RTI refused and why (the error is then cleared). Blocking calls return it. */
int tpi_take_late(tp_federate *f);

/* ---- connection (client_conn.c) ------------------------------------------------------- */

/** Connect to "host:port" or "unix:/path" with TCP_NODELAY, non-blocking afterwards.
 *  @return the fd, or -1 with the reason in err. */
int tpi_connect(const char *addr, int timeout_ms, char *err, size_t errlen);
/** Open the transport named by @p addr on f: an "inproc:" address links f->ip to the
 *  embedded RTI of that name, any other connects f->fd (tpi_connect).
 *  @return TP_OK, or TP_ESYS with the reason in err. */
int tpi_open(tp_federate *f, const char *addr, char *err, size_t errlen);
/** Encode @p m into the output buffer; write it out when the buffer passes the threshold.
 *  @return TP_OK; TP_EINVAL (encoder refused: message in f->err); TP_ESIZE (frame over
 *          max_frame); TP_ENOMEM; TP_ECLOSED; TP_ESYS. */
int tpi_send(tp_federate *f, const struct wire_msg *m);
/** Write all buffered output (reading input meanwhile so that neither side deadlocks). */
int tpi_flush(tp_federate *f);
/** Read available bytes into f->in, waiting up to @p timeout_ms (< 0 forever) for some.
 *  Over a socket with a liveness deadline (f->liveness_ms), a PING goes out once nothing has
 *  come from the RTI for half the deadline, and the connection is closed (TP_ECLOSED, the
 *  cause in f->err) once nothing has come for the whole of it.
 *  @return bytes read (> 0), 0 on timeout, TP_ECLOSED or TP_ESYS. */
int tpi_read(tp_federate *f, int timeout_ms);
/** Handler for a reply found by tpi_wait_reply; the message points into the frame. */
typedef int (*tpi_reply_fn)(tp_federate *f, const struct wire_msg *m, void *arg);
/** Flush, then wait for the frame answering request @p req (REPLY, ERROR, JOIN_OK,
 *  TIME_STATUS, PONG or HELLO_OK with that req) and pass it to @p fn; frames before it
 *  stay queued for tp_evoke(). @return fn's status; TP_ESYS on timeout; TP_ECLOSED;
 *  TP_EPROTO. */
int tpi_wait_reply(tp_federate *f, uint32_t req, tpi_reply_fn fn, void *arg);
/** tpi_wait_reply for a frame of one @p type with that req (any type when 0), waiting up to
 *  @p timeout_ms (< 0 forever, whatever f->timeout_ms says). */
int tpi_wait_frame(tp_federate *f, unsigned type, uint32_t req, int timeout_ms, tpi_reply_fn fn,
                   void *arg);
/** Monotonic clock in milliseconds (CLOCK_MONOTONIC), for deadlines. */
int64_t tpi_now_ms(void);
/** A fresh request id (never 0). */
uint32_t tpi_req(tp_federate *f);
/** Close the socket (idempotent). */
void tpi_close(tp_federate *f);
/** Common entry check: f not NULL, joined and not closed. @return TP_OK or TP_ESTATE. */
int tpi_check_joined(tp_federate *f);

/* ---- dispatch (client_evoke.c) -------------------------------------------------------- */

/** Make the decode scratch arrays hold at least @p n entries. @return TP_OK or TP_ENOMEM. */
int tpi_scratch(tp_federate *f, uint32_t n);
/** Evoke callbacks until @p done(f, arg) is true or @p timeout_ms passes (< 0 = forever).
 *  @return TP_OK; TP_TIMEOUT; TP_ESTATE (called from a callback); an error of tp_evoke(). */
int tpi_wait_until(tp_federate *f, int (*done)(tp_federate *f, const void *arg), const void *arg,
                   int timeout_ms);

/* ---- objects (client_om.c) ------------------------------------------------------------ */

/** Remember object @p obj of class @p cls (owned when we registered it).
 *  @return TP_OK or TP_ENOMEM. O(1) amortised. */
int tpi_obj_add(tp_federate *f, tp_object obj, tp_handle cls, int owned);
/** The record of a known object, or NULL. O(1) expected. */
struct tpi_obj *tpi_obj_find(const tp_federate *f, tp_object obj);
/** Forget an object (removed or deleted). */
void tpi_obj_del(tp_federate *f, tp_object obj);

/* ---- time (client_time.c) ------------------------------------------------------------- */

/** Check a send's time stamp against this federate's bound (doc/time.md bound table).
 *  @param what "update", "interaction" or "delete" for the message.
 *  @return TP_OK or TP_EBOUND (message names the time, the bound and the state). */
int tpi_check_send_time(tp_federate *f, tp_time t, const char *what);
/** Apply a TIME_GRANT / REGULATION_ENABLED / CONSTRAINED_ENABLED to the local mirror. */
void tpi_on_grant(tp_federate *f, uint32_t kind, tp_time t);
void tpi_on_regulation_enabled(tp_federate *f, tp_time t);
/** The bound the RTI says regulation starts with (REGULATION_ENABLED time2 and code): it
 *  joins the promise, so sends below it fail locally with TP_EBOUND. */
void tpi_on_regulation_bound(tp_federate *f, tp_time bound, int strict);
void tpi_on_constrained_enabled(tp_federate *f, tp_time t);
/** An asynchronous ERROR refused a request of type @p type: undo the local state change. */
void tpi_on_time_refused(tp_federate *f, uint32_t type);

/* ---- checkpoints (client_ckpt.c) -------------------------------------------------------- */

/** INITIATE_SAVE arrived: save now (no request pending) or after the next grant. Runs the
 *  save callback, reports and waits for the outcome (doc/checkpoint.md). */
void tpi_on_initiate_save(tp_federate *f, const struct wire_msg *m);
/** After a grant has been applied and its callback run: the save it was armed for, if any. */
void tpi_after_grant(tp_federate *f);
/* A part armed at an open grant (client_ckpt.c) when the federate asks an open request (NERA,
 * TARA) again: no closing grant will come before the next instant, and it has sent everything
 * of this one (a master's slave closing its instant with NERA): the part is made now, with
 * that request pending (doc/checkpoint.md "The cut"). */
void tpi_after_open_request(tp_federate *f);
/** FEDERATION_SAVED outside a hold (a save that failed before this federate was asked). */
void tpi_on_federation_saved(tp_federate *f, const struct wire_msg *m);
/** A restoring join received its part (@p n bytes): rebuild the library's state of this
 *  federate from its head and hand the rest to callbacks.restore.
 *  @return TP_OK; TP_ECKPT (a part not of this federate or FOM, or malformed); what the
 *  callback returned (f->err says why). */
int tpi_restore_part(tp_federate *f, const char *label, const uint8_t *p, size_t n);

/* ---- synchronization (client_sync.c) -------------------------------------------------- */

/** Find (or with @p create, add) a sync point record. @return it or NULL. */
struct tpi_sync *tpi_sync_get(tp_federate *f, const char *label, size_t len, int create);

#endif
