/**
 * @file tempo.h
 * @brief libtempo: the C client library of the Tempo RTI (the public contract).
 *
 * Serves doc/guide.md and doc/api.md (evoked model, time management, API shape).
 * Read doc/guide.md for a walk through examples/producer.c and examples/consumer.c, and
 * doc/api.md for the same reference grouped by service. Implementation:
 * federate/libtempo/client_*.c.
 *
 * Conventions, valid for every function below unless its comment says otherwise:
 * - Status returns are `int`: TP_OK (0), a positive informative code (TP_TIMEOUT) or a
 *   negative TP_E* code. tp_strerror() names a code; tp_last_error() gives the detailed
 *   message of the last failure on that federate (it names the handle, name or time at fault).
 * - A `tp_federate *` argument must not be NULL unless stated.
 * - "Runs no callbacks": the call never invokes a tp_callbacks function. Callbacks run only
 *   inside tp_evoke() and the tp_wait_*() helpers built on it (the HLA "evoked" model); the
 *   library starts no threads, so callback code needs no locks. A callback may call any tp_
 *   function on the same federate except tp_federate_free() and tp_resign(); the evoking
 *   ones (tp_evoke, tp_wait_*, tp_sync) return TP_ESTATE there instead of nesting.
 * - Pointers passed into a call are only read during the call; the library keeps no reference
 *   (except tp_join's ctx, which it hands back to every callback).
 *   Pointers passed to a callback (names, values, tags) are valid only during that callback.
 * - Outgoing messages are batched: calls that "send" append a frame to an output buffer that is
 *   written when it grows past an internal threshold, on tp_flush(), and on every call that
 *   blocks or evokes. A send error (connection lost) may therefore surface on a later call.
 * - The library never writes to stdout or stderr itself: log lines go to the `log` callback,
 *   whose default (when NULL) prints warnings and errors to stderr.
 * - Threads: a federate must be used by one thread at a time (callbacks run in the thread that
 *   evokes); different federates may be used from different threads at once, each by its own
 *   thread. Over TCP and Unix sockets libtempo keeps no mutable global state of its own. The
 *   in-process transport ("inproc:NAME", doc/inproc.md) keeps one: the registry of embedded
 *   RTIs, guarded by a lock, so tp_inproc_start(), tp_inproc_stop(), tp_join() and
 *   tp_create_federation() may be called from any thread. An embedded RTI runs in the threads
 *   of its federates (whichever sends a frame runs the RTI on it, under the RTI's lock); it
 *   starts no thread either. tp_inproc_stop() must not run while one of its federates is
 *   inside a call (their next call fails with TP_ECLOSED). With tp_inproc_options.tasks the
 *   federates of that RTI are tasks instead: they join and make every call from a task
 *   (tp_inproc_spawn), all on the one thread inside tp_inproc_run, which switches between
 *   them only where a task waits for a message or calls tp_inproc_yield(); a task must not
 *   block that thread otherwise, and tp_inproc_stop() comes after tp_inproc_run() returns.
 *   tp_strerror() and the time-conversion functions are pure and may be called from anywhere.
 */
#ifndef TEMPO_FEDERATE_TEMPO_H
#define TEMPO_FEDERATE_TEMPO_H

#include <stddef.h>
#include <stdint.h>

/** The Tempo release this header belongs to (the Makefile reads it from here; every program
 *  prints it for --version). */
#define TP_VERSION "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TP_API __attribute__((visibility("default")))
#else
#define TP_API
#endif

/* ---- basic types ------------------------------------------------------------------------ */

/** Opaque federate: one joined connection to an RTI. Created by tp_join(). */
typedef struct tp_federate tp_federate;

/** Logical time in ticks of the federation's resolution (doc/time.md). */
typedef int64_t tp_time;
/** Positive infinity of logical time (requests and bounds saturate here). No time-stamped
 *  send is ever accepted at TP_TIME_MAX from a regulating federate (TP_EBOUND; doc/time.md §2). */
#define TP_TIME_MAX INT64_MAX
/** "No time stamp": a receive-order send, or a time-less callback argument. */
#define TP_NO_TIME INT64_MIN

/** FOM handle: object class, attribute, interaction class or parameter (0 = invalid). Every
 *  federate that parses the same FOM gets the same handles, so they are resolved locally. */
typedef uint32_t tp_handle;
/** Object instance handle, assigned by the RTI (0 = invalid). */
typedef uint64_t tp_object;
/** Federate handle within a federation, assigned by the RTI at join (0 = invalid). */
typedef uint32_t tp_fed;

/** Delivery order of a reflected update, removal or received interaction. */
typedef enum tp_order {
    TP_RECEIVE_ORDER = 0,   /**< RO: delivered as received; its time argument is TP_NO_TIME
                                 unless the sender stamped it (then the stamp is passed on) */
    TP_TIMESTAMP_ORDER = 1, /**< TSO: delivered in time-stamp order per doc/time.md */
} tp_order;

/** What the RTI does with a federate's objects when it resigns or its connection drops. */
typedef enum tp_resign_action {
    TP_DELETE_OBJECTS = 0, /**< delete them; subscribers get `remove` (the default) */
    TP_KEEP_OBJECTS = 1,   /**< keep them (orphaned: nobody updates them any more) */
} tp_resign_action;

/** Log levels, most severe first. */
typedef enum tp_log_level {
    TP_LOG_ERROR = 0,
    TP_LOG_WARN = 1,
    TP_LOG_INFO = 2,
    TP_LOG_DEBUG = 3,
    TP_LOG_TRACE = 4,
} tp_log_level;

/** Kind of a time-advance request (for tp_time_status). */
typedef enum tp_request_kind {
    TP_REQ_NONE = 0, /**< no request pending (the federate is in the granted state) */
    TP_REQ_TAR = 1,  /**< time advance request */
    TP_REQ_TARA = 2, /**< time advance request available */
    TP_REQ_NER = 3,  /**< next event request */
    TP_REQ_NERA = 4, /**< next event request available */
    TP_REQ_FQR = 5,  /**< flush queue request */
} tp_request_kind;

/* ---- status codes ----------------------------------------------------------------------- */

enum {
    TP_OK = 0,      /**< success */
    TP_TIMEOUT = 1, /**< informative: a wait ended by its timeout before its event */

    /* usage: the call is wrong, nothing was sent */
    TP_EINVAL = -1,  /**< bad argument (NULL, negative lookahead, empty name, ...) */
    TP_ESTATE = -2,  /**< not allowed in the current state (resigned, ...) */
    TP_EHANDLE = -3, /**< unknown or wrong-kind handle (class, attribute, object, ...) */
    TP_ENOTPUB = -4, /**< the class or attribute is not published by this federate */
    TP_ESIZE = -5,   /**< a value has the wrong size for its data type, or a caller buffer is
                          too small */
    /* FOM */
    TP_EFOM = -10,  /**< the FOM could not be read or parsed */
    TP_ENAME = -11, /**< no class, attribute, interaction or parameter of that name */
    /* time management (doc/time.md) */
    TP_ETIME = -20,       /**< requested time below the federate's logical time */
    TP_EPENDING = -21,    /**< a time-advance request is already pending */
    TP_EBOUND = -22,      /**< a time stamp below the sender's bound (time + lookahead) */
    TP_EENABLED = -23,    /**< regulation/constrained already enabled (or being enabled) */
    TP_ENOTENABLED = -24, /**< regulation/constrained not enabled */
    /* the RTI said no */
    TP_EREFUSED = -30,  /**< the RTI refused the request (see tp_last_error for its reason) */
    TP_EEXISTS = -31,   /**< a name already in use (federation, federate, object, sync label) */
    TP_ENOTFOUND = -32, /**< no such federation (or sync label) at the RTI */
    TP_EFOMDIFF = -33,  /**< the FOM differs from the federation's */
    TP_EAUTH = -34,     /**< the shared secret was refused */
    TP_ECKPT = -35,     /**< a checkpoint is foreign, damaged, or does not belong here
                             (doc/checkpoint.md; the message names the file and the fault) */
    /* protocol and connection */
    TP_EPROTO = -40,  /**< malformed frame, unexpected message or version mismatch */
    TP_ECLOSED = -41, /**< the RTI closed the connection */
    /* system */
    TP_ESYS = -50,   /**< a system call failed (the message names it and its errno) */
    TP_ENOMEM = -51, /**< out of memory */
};

/**
 * Name a status code.
 * @param code any int returned by a tp_ function.
 * @return a static string such as "TP_EBOUND: time stamp below the sender's bound"; never
 *         NULL ("unknown status code" for a code not listed above). Runs no callbacks.
 * @see tp_last_error
 */
TP_API const char *tp_strerror(int code);

/**
 * Detailed message of the last failed call on @p f (it names the handle, name, time or system
 * call at fault), or "" when no call has failed yet. An asynchronous refusal received through
 * the `error` callback also becomes the last error.
 * @param f the federate; NULL gives "".
 * @return a string owned by @p f, valid until the next tp_ call on @p f. Runs no callbacks.
 * @see tp_strerror
 */
TP_API const char *tp_last_error(const tp_federate *f);

/* ---- values ----------------------------------------------------------------------------- */

/** One attribute or parameter value: a handle and its encoded bytes (layout: doc/api.md,
 *  "Value encoding": little-endian IEEE 754 / two's complement). */
typedef struct tp_value {
    tp_handle handle; /**< attribute or parameter handle */
    const void *data; /**< encoded bytes (may be NULL when size is 0) */
    size_t size;      /**< number of bytes at data */
} tp_value;

/** Encoded sizes of the fixed-size types. */
#define TP_FLOAT64_SIZE 8
#define TP_INT64_SIZE   8
#define TP_INT32_SIZE   4
#define TP_BOOLEAN_SIZE 1

/**
 * Encode a float64 (IEEE 754 binary64, little-endian) into @p out.
 * @param v the value; @param out 8 bytes, not NULL.
 * @return TP_FLOAT64_SIZE (8). Pure; runs no callbacks.
 * @see tp_decode_float64
 */
TP_API size_t tp_encode_float64(double v, void *out);
/**
 * Encode an int64 (two's complement, little-endian).
 * @param v the value; @param out 8 bytes, not NULL.
 * @return TP_INT64_SIZE (8). Pure. @see tp_decode_int64
 */
TP_API size_t tp_encode_int64(int64_t v, void *out);
/**
 * Encode an int32 (two's complement, little-endian).
 * @param v the value; @param out 4 bytes, not NULL.
 * @return TP_INT32_SIZE (4). Pure. @see tp_decode_int32
 */
TP_API size_t tp_encode_int32(int32_t v, void *out);
/**
 * Encode a boolean as one byte, 1 for any nonzero @p v, else 0.
 * @param v the value; @param out 1 byte, not NULL.
 * @return TP_BOOLEAN_SIZE (1). Pure. @see tp_decode_boolean
 */
TP_API size_t tp_encode_boolean(int v, void *out);
/**
 * Encode an array of float64 (n × 8 bytes, little-endian, no count prefix: the value's size
 * gives the count).
 * @param v @p n doubles (may be NULL when n is 0); @param n count;
 * @param out buffer of @p cap bytes (may be NULL when cap is 0).
 * @return the encoded size (8n), or TP_ESIZE when @p cap < 8n (nothing written).
 * @see tp_decode_float64_array
 */
TP_API int tp_encode_float64_array(const double *v, size_t n, void *out, size_t cap);
/* Strings are their UTF-8 bytes without a terminating NUL: a tp_value {h, s, strlen(s)}.
 * "bytes" values are passed as they are. */

/**
 * Decode a float64.
 * @param data the value bytes (NULL only when size is 0); @param size their count;
 * @param out where to store the value, not NULL.
 * @return TP_OK, or TP_ESIZE when @p size is not 8 (out untouched). Pure.
 * @see tp_encode_float64
 */
TP_API int tp_decode_float64(const void *data, size_t size, double *out);
/**
 * Decode an int64.
 * @param data the value bytes (NULL only when size is 0); @param size their count;
 * @param out where to store the value, not NULL.
 * @return TP_OK, or TP_ESIZE when @p size is not 8 (out untouched). Pure.
 * @see tp_encode_int64
 */
TP_API int tp_decode_int64(const void *data, size_t size, int64_t *out);
/**
 * Decode an int32.
 * @param data the value bytes (NULL only when size is 0); @param size their count;
 * @param out where to store the value, not NULL.
 * @return TP_OK, or TP_ESIZE when @p size is not 4 (out untouched). Pure.
 * @see tp_encode_int32
 */
TP_API int tp_decode_int32(const void *data, size_t size, int32_t *out);
/**
 * Decode a boolean into 0 or 1.
 * @param data the value bytes (NULL only when size is 0); @param size their count;
 * @param out where to store the value, not NULL.
 * @return TP_OK; TP_ESIZE when @p size is not 1; TP_EINVAL when the byte is neither 0 nor 1
 *         (out untouched on error). Pure.
 * @see tp_encode_boolean
 */
TP_API int tp_decode_boolean(const void *data, size_t size, int *out);
/**
 * Decode a float64 array.
 * @param data the value bytes (NULL only when size is 0); @param size their count;
 * @param out room for @p cap doubles (may be NULL when cap is 0); @param n the element count
 *        is stored here (not NULL), also when TP_ESIZE is returned because cap is too small.
 * @return TP_OK; TP_ESIZE when @p size is not a multiple of 8 or @p cap < count. Pure.
 * @see tp_encode_float64_array
 */
TP_API int tp_decode_float64_array(const void *data, size_t size, double *out, size_t cap,
                                   size_t *n);
/**
 * Copy a string value into @p out with a terminating NUL (there is no encoder: a string value
 * is its bytes, {handle, text, strlen(text)}).
 * @param data the value bytes (NULL only when size is 0); @param size their count;
 * @param out buffer of @p cap ≥ 1 bytes, not NULL.
 * @return TP_OK; TP_ESIZE when @p cap ≤ @p size (out holds the truncated, terminated text);
 *         TP_EINVAL when the bytes contain a NUL or cap is 0. Pure.
 * @see tp_value
 */
TP_API int tp_decode_string(const void *data, size_t size, char *out, size_t cap);

/* ---- callbacks -------------------------------------------------------------------------- */

/** Arguments of a `reflect` callback. All pointers are valid only during the callback. */
typedef struct tp_reflection {
    tp_object object;       /**< the updated object instance */
    tp_handle object_class; /**< its class as known here (0 if never discovered) */
    const tp_value *values; /**< only the attributes this federate subscribes */
    size_t n_values;        /**< number of values */
    tp_time time;           /**< the update's time stamp, or TP_NO_TIME */
    tp_order order;         /**< TSO or RO delivery */
    tp_fed sender;          /**< the updating federate (set by the RTI, as for interactions) */
    const void *tag;        /**< user tag bytes (NULL when tag_size is 0) */
    size_t tag_size;        /**< bytes in tag */
} tp_reflection;

/** Arguments of a `receive` callback (an interaction). Pointers valid during the callback. */
typedef struct tp_interaction {
    tp_handle interaction_class; /**< the class as sent */
    const tp_value *params;      /**< parameter values */
    size_t n_params;             /**< number of parameters */
    tp_time time;                /**< time stamp or TP_NO_TIME */
    tp_order order;              /**< TSO or RO delivery */
    tp_fed sender;               /**< the sending federate: set by the RTI from the sender's
                                      connection, never from its frame (doc/protocol.md §4) */
    const void *tag;             /**< user tag bytes (NULL when tag_size is 0) */
    size_t tag_size;             /**< bytes in tag */
} tp_interaction;

/**
 * Callbacks of one federate. Any member may be NULL (the event is then dropped, except `log`,
 * whose NULL default prints warnings and errors to stderr). Every function gets the `ctx`
 * given to tp_join(). Strings and byte pointers are valid only during the callback.
 */
typedef struct tp_callbacks {
    /** A new object instance of a subscribed class (also those registered before this
     *  federate joined or subscribed). @p name is its unique name (never NULL). */
    void (*discover)(void *ctx, tp_object object, tp_handle object_class, const char *name,
                     tp_fed owner);
    /** Attribute values of a discovered object. */
    void (*reflect)(void *ctx, const tp_reflection *r);
    /** The object was deleted (by its owner, or by the RTI when the owner resigned).
     *  @p time is the deletion's time stamp or TP_NO_TIME. */
    void (*remove)(void *ctx, tp_object object, tp_time time, tp_order order, tp_fed sender);
    /** An interaction of a subscribed class (or subclass). */
    void (*receive)(void *ctx, const tp_interaction *i);
    /** Another federate asked for current values of attributes this federate owns: answer
     *  with tp_update(). @p attrs lists @p n attribute handles. */
    void (*provide)(void *ctx, tp_object object, const tp_handle *attrs, size_t n);
    /** Result of this federate's tp_register_sync(): @p status is TP_OK or a TP_E* code with
     *  @p reason (never NULL, "" on success). */
    void (*sync_registered)(void *ctx, const char *label, int status, const char *reason);
    /** A synchronization point this federate belongs to was announced. */
    void (*sync_announced)(void *ctx, const char *label, const void *tag, size_t tag_size);
    /** Every federate of the point's set has achieved it. */
    void (*synchronized)(void *ctx, const char *label);
    /** Another federate joined the federation. */
    void (*federate_joined)(void *ctx, tp_fed fed, const char *name);
    /** A federate resigned or was resigned by the RTI (connection lost): @p reason says which. */
    void (*federate_resigned)(void *ctx, tp_fed fed, const char *name, const char *reason);
    /** tp_enable_regulation() took effect at logical time @p time. */
    void (*regulation_enabled)(void *ctx, tp_time time);
    /** tp_enable_constrained() took effect at logical time @p time. */
    void (*constrained_enabled)(void *ctx, tp_time time);
    /** The pending time-advance request was granted: logical time is now @p time. */
    void (*grant)(void *ctx, tp_time time);
    /** The RTI refused an asynchronous request (publish, update, time request, ...):
     *  @p code is a TP_E* code, @p message its reason (also kept as tp_last_error). A refusal
     *  is never lost: besides this callback, the next blocking call (a tp_wait_* call, or any
     *  call that waits for the RTI's answer: queries, registration, tp_resign, ...) returns
     *  the first such refusal not yet returned (its code; tp_last_error names the refused
     *  request and the RTI's reason), once, even when the call itself succeeded; a refused
     *  time request is reported by tp_wait_grant (TP_EREFUSED) instead. */
    void (*error)(void *ctx, int code, const char *message);
    /** A log line from the library (no trailing newline). NULL: warnings and errors go to
     *  stderr as "tempo[federate]: level: line". */
    void (*log)(void *ctx, tp_log_level level, const char *line);
    /* ---- checkpoints (doc/checkpoint.md "The coordinated save"); appended, so that older
     *      initialisers stay valid ---- */
    /** This federate's part of save @p label. The RTI asks for it in the grant that brings
     *  the federate to or past the requested time T (HLA's timed save), or at once when the
     *  federate is neither regulating nor constrained, or when it waits with a request
     *  pending that cannot be granted while the others are held (then the request is part of
     *  the snapshot and is still pending after a restore: tp_query_time_status shows it);
     *  @p time is the federate's logical time then (>= T, or below T in the last two cases;
     *  doc/checkpoint.md "When the save time is not reached"). Runs inside the libtempo call that
     *  received that grant (tp_wait_grant, tp_evoke, ...), after the `grant` callback and
     *  before the call returns; after it the library reports to the RTI and waits, inside the
     *  same call, for the outcome (`saved`): until then the federate sends nothing and
     *  receives nothing else, so its part and the RTI's describe one instant.
     *  Return TP_OK with *bytes pointing to *n bytes allocated with malloc (the library frees
     *  them; *bytes may stay NULL when *n is 0), or a TP_E* code with a reason written into
     *  @p why (@p why_size bytes): the save then fails naming this federate and the reason.
     *  A NULL callback means the federate cannot save: the save fails naming it. The
     *  callback may call tp_ functions that send nothing (queries of local state); the
     *  evoking ones return TP_ESTATE. */
    int (*save)(void *ctx, const char *label, tp_time time, void **bytes, size_t *n, char *why,
                size_t why_size);
    /** Called inside tp_join when tp_join_options.restore is set: @p bytes (@p n, valid
     *  during the call) are what `save` returned for this federate in checkpoint @p label,
     *  made when it was at logical time @p time. Return TP_OK, or a TP_E* code with a reason
     *  in @p why: tp_join then fails with that code and the reason. When NULL, a restoring
     *  tp_join fails with TP_EINVAL. */
    int (*restore)(void *ctx, const char *label, tp_time time, const void *bytes, size_t n,
                   char *why, size_t why_size);
    /** The outcome of save @p label, at every federate that took part: @p status TP_OK and
     *  @p detail the checkpoint folder as the RTI wrote it, or a TP_E* code (TP_ECKPT: a
     *  federate failed; TP_ESYS: the RTI could not write) and @p detail naming each federate
     *  that failed and why, or the file the RTI could not write. Either way the federation
     *  goes on. Runs inside the same call as `save`, just before that call resumes. */
    void (*saved)(void *ctx, const char *label, int status, const char *detail);
} tp_callbacks;

/* ---- federation and federate ------------------------------------------------------------ */

/** Join options; a zeroed struct means "default" for every member but the three required. */
typedef struct tp_join_options {
    const char *rti;                /**< "host:port", "unix:/path", or "inproc:NAME" (an RTI
                                         embedded in this process, see tp_inproc_start;
                                         "inproc:" is the default one); NULL =
                                         "127.0.0.1:7470" */
    const char *federation;         /**< federation name, required */
    const char *federate;           /**< this federate's name, unique in the federation, required
                                         (ignored by tp_create_federation/tp_destroy_federation) */
    const char *fom_path;           /**< FOM file; one of fom_path / fom_text is required */
    const char *fom_text;           /**< FOM XML text, used when fom_path is NULL */
    int create;                     /**< nonzero: create the federation if it does not exist */
    tp_resign_action resign_action; /**< applied by tp_federate_free() when the federate
                                         did not resign, and sent with the join so that the
                                         RTI applies it too when the connection drops (the
                                         process dies or is killed) */
    const char *secret;             /**< shared secret the RTI may require; NULL = the
                                         environment's TEMPO_SECRET, else the contents of
                                         the file TEMPO_SECRET_FILE names (an unusable file
                                         fails the call with TP_EINVAL), else none */
    int timeout_ms;                 /**< connect and reply timeout; 0 = 10000, < 0 = wait forever */
    tp_log_level log_level;         /**< most verbose level passed to the log callback;
                                         0 = TP_LOG_WARN (to see errors only, filter in the
                                         callback) */
    int restore;                    /**< nonzero: join as the federate of this name in a
                                         federation restored from a checkpoint
                                         (tp_restore_federation): its handle, logical time,
                                         regulation, constraint, lookahead, publications,
                                         subscriptions, objects and sync points come back
                                         from the RTI's part, and its own part is handed to
                                         callbacks.restore before tp_join returns. `create`
                                         is ignored (doc/checkpoint.md "Restore") */
} tp_join_options;

/**
 * Create a federation at the RTI (a short connection of its own, closed before returning).
 * @param opt rti, federation, FOM, secret and timeout_ms are used; not NULL.
 * @param err buffer of @p err_size bytes for the detailed message on failure (may be NULL).
 * @return TP_OK; TP_EINVAL (missing federation or FOM); TP_EFOM (FOM unreadable or invalid);
 *         TP_EEXISTS (federation exists); TP_EAUTH (the RTI requires a shared secret and
 *         opt->secret is missing or wrong); TP_EREFUSED (the RTI is full, or this
 *         address already holds too many federations nobody joined: doc/rti.md "Memory
 *         quotas"; a federation nobody joins is destroyed after the RTI's
 *         --unjoined-federation-ms); TP_EPROTO; TP_ECLOSED;
 *         TP_ESYS (connect failed, or timed out); TP_ENOMEM. Blocks; runs no callbacks.
 * @see tp_destroy_federation, tp_join_options.create
 */
TP_API int tp_create_federation(const tp_join_options *opt, char *err, size_t err_size);

/**
 * Destroy an empty federation.
 * @param opt rti, federation, secret and timeout_ms are used; not NULL.
 * @param err as for tp_create_federation.
 * @return TP_OK; TP_EINVAL; TP_ENOTFOUND; TP_EREFUSED (federates still joined); TP_EAUTH
 *         (the RTI requires a shared secret and opt->secret is missing or wrong);
 *         TP_EPROTO; TP_ECLOSED; TP_ESYS; TP_ENOMEM. Blocks; runs no callbacks.
 * @see tp_create_federation
 */
TP_API int tp_destroy_federation(const tp_join_options *opt, char *err, size_t err_size);

#define TP_SECRET_MAX 256 /**< bytes of a shared secret, NUL excluded */

/**
 * Read a shared secret from a file, as tempo-rti --secret-file does: a regular file of 1 to
 * TP_SECRET_MAX bytes (one trailing newline dropped), without NUL bytes, readable by its owner
 * only (chmod 600).
 * @param path the file, not NULL.
 * @param buf receives the secret, NUL-terminated; owned by the caller; @p cap at least
 *        TP_SECRET_MAX + 1.
 * @param err buffer of @p err_size bytes naming the file and the fault (may be NULL).
 * @return TP_OK; TP_EINVAL (missing, not a regular file, readable by others, empty, too long).
 *         Blocks on the read; runs no callbacks.
 */
TP_API int tp_secret_load(const char *path, char *buf, size_t cap, char *err, size_t err_size);

/**
 * Connect to an RTI and join a federation.
 *
 * Reads the FOM locally (handles are resolved from it), connects (TCP with TCP_NODELAY, or a
 * Unix socket), performs the version handshake and joins, optionally creating the federation.
 * @param opt options, not NULL; strings are copied.
 * @param cb callbacks (copied; may be NULL for none).
 * @param ctx passed to every callback (may be NULL); owned by the caller.
 * @param out receives the new federate (set to NULL on failure); not NULL. Free it with
 *        tp_federate_free().
 * @param err buffer of @p err_size bytes for the detailed message on failure (may be NULL),
 *        since no federate exists to hold it.
 * @return TP_OK; TP_EINVAL; TP_EFOM; TP_ENOTFOUND (no such federation and create is 0;
 *         with restore: the federation was not restored, or saved no federate of that name);
 *         TP_EEXISTS (federate name in use; with restore: that federate has rejoined
 *         already); TP_EFOMDIFF; TP_EAUTH; TP_EREFUSED; TP_EPROTO; TP_ECLOSED; TP_ESYS;
 *         TP_ENOMEM; with restore also TP_ECKPT (its part is damaged) and whatever
 *         callbacks.restore returned (TP_EINVAL when it is NULL). Blocks until the RTI
 *         answers or timeout_ms passes. Runs no callbacks, except callbacks.restore when
 *         restoring: messages that arrive after the join reply wait for tp_evoke().
 * @see tp_resign, tp_federate_free
 */
TP_API int tp_join(const tp_join_options *opt, const tp_callbacks *cb, void *ctx, tp_federate **out,
                   char *err, size_t err_size);

/* ---- checkpoints (doc/checkpoint.md) ---------------------------------------------------- */

/**
 * Ask the RTI for a save of the whole federation labelled @p label at logical time @p time
 * (HLA's timed save). Asynchronous: the RTI accepts it when no other save of the federation
 * is open and it has a checkpoint folder (tempo-rti --checkpoint-dir DIR,
 * tp_inproc_options.checkpoint_dir); it then asks every federate for its part (the `save`
 * callback) as each one is granted @p time or more, writes its own part, and writes the
 * checkpoint as the folder DIR/@p label (doc/checkpoint.md). Every federate learns the
 * outcome through the `saved` callback. A refusal (another save open, no checkpoint folder,
 * DIR/label exists already, @p time below this federate's logical time) arrives as an
 * asynchronous error (tp_callbacks.error, and the next blocking call returns it).
 * @param label 1..64 bytes of [A-Za-z0-9._-], not starting with '.', not "MANIFEST".
 * @param time  the save time in ticks, >= this federate's logical time, below TP_TIME_MAX.
 * @return TP_OK (sent); TP_EINVAL (bad label or time: nothing sent); TP_ETIME (@p time below
 *         the logical time); TP_ESTATE; TP_ECLOSED; TP_ESYS. Sends; runs no callbacks.
 * @see tp_callbacks.save, tp_restore_federation
 */
TP_API int tp_request_save(tp_federate *f, const char *label, tp_time time);

/**
 * Create a federation at the RTI from a checkpoint folder the RTI can read (a path on the
 * RTI's host, relative to its working directory unless absolute): the RTI verifies the
 * whole folder first (doc/checkpoint.md, "Reading"), then recreates the federation as it
 * was at the save: its FOM, every federate (waiting to rejoin under its saved name with
 * tp_join_options.restore, from any host), their times, requests, lookaheads, declarations,
 * objects, queued time-stamped messages and sync points, and the next handles to hand out.
 * Time management resumes as the federates rejoin: a federate that has not rejoined yet
 * holds the others back as it did when it was saved.
 * @param opt rti, federation (the name of the new federation; NULL or "" = the name it had
 *        when saved), secret and timeout_ms are used; the FOM comes from the checkpoint.
 *        Not NULL.
 * @param checkpoint the folder, not NULL.
 * @param err buffer of @p err_size bytes for the detailed message on failure (may be NULL).
 * @return TP_OK; TP_EINVAL (NULL argument); TP_ECKPT (not a Tempo checkpoint, another format
 *         version, damaged, or its RTI part is invalid: the message names the file and the
 *         fault; nothing is created); TP_EEXISTS (a federation of that name exists);
 *         TP_EAUTH; TP_EREFUSED (the RTI is full); TP_EPROTO; TP_ECLOSED; TP_ESYS;
 *         TP_ENOMEM. Blocks; runs no callbacks.
 * @see tp_request_save, tp_join_options.restore
 */
TP_API int tp_restore_federation(const tp_join_options *opt, const char *checkpoint, char *err,
                                 size_t err_size);

/**
 * Resign from the federation and close the connection. @p f stays valid (for tp_last_error)
 * until tp_federate_free(); every other call then returns TP_ESTATE.
 * @param action what to do with this federate's objects.
 * @return TP_OK; TP_ESTATE (already resigned); TP_EINVAL (bad action); TP_ECLOSED; TP_ESYS;
 *         TP_EPROTO; or, once resigned, the code of an asynchronous request the RTI refused
 *         and no call has returned yet (tp_callbacks.error): the federate is resigned all the
 *         same, and tp_last_error names the refused request. Blocks for the RTI's reply; runs
 *         no callbacks (messages not yet evoked are dropped).
 * @see tp_join
 */
TP_API int tp_resign(tp_federate *f, tp_resign_action action);

/**
 * Free a federate and everything it owns (names and values it handed out become invalid).
 * When it has not resigned, it resigns first with the join-time resign_action (blocking for
 * the RTI's answer at most timeout_ms), then closes the connection.
 * @param f the federate; NULL is accepted and does nothing. Not from inside a callback.
 * Runs no callbacks. @see tp_join, tp_resign
 */
TP_API void tp_federate_free(tp_federate *f);

/**
 * This federate's handle in the federation, as other federates see it as `sender`/`owner`.
 * @param f the federate; NULL gives 0.
 * @return the handle (never 0 for a joined federate). Runs no callbacks. @see tp_join
 */
TP_API tp_fed tp_federate_handle(const tp_federate *f);

/**
 * Set the RTI liveness deadline of a connection (doc/api.md "Liveness"): whenever a call of
 * this library waits on the RTI over a socket (tp_evoke with a timeout, the tp_wait_* calls,
 * every request that waits for its reply, a write blocked on a full socket) and nothing has
 * come from the RTI for half of @p ms, it sends a PING (a live RTI answers at once, whatever
 * its federation does); once nothing has come for the whole of @p ms the connection is closed
 * and the call returns TP_ECLOSED, tp_last_error() naming the deadline and the likely cause
 * (the RTI stopped or hung, or the link to it cut). A join starts with the environment's
 * TEMPO_LIVENESS_MS when set (an invalid value fails the join with TP_EINVAL), else 60000.
 * A program that waits on tp_fileno() itself is checked only when it calls tp_evoke.
 * In process ("inproc:") there is no link to lose: the deadline is ignored.
 * @param f the federate, not NULL.
 * @param ms the deadline in milliseconds, 100 .. 86400000; 0 turns the check off.
 * @return TP_OK; TP_EINVAL (f NULL, or @p ms out of range: nothing changed). Runs no
 *         callbacks; counts from the call.
 */
TP_API int tp_set_liveness(tp_federate *f, int ms);

/**
 * The connection's file descriptor, to wait for input with poll()/select() (for instance over
 * several federates) before calling tp_evoke(f, 0). Do not read, write or close it.
 * @param f the federate; NULL gives -1.
 * @return the descriptor, or -1 when the connection is closed or in process ("inproc:",
 *         which has no descriptor: wait in tp_evoke instead). Runs no callbacks.
 * @see tp_evoke
 */
TP_API int tp_fileno(const tp_federate *f);

/* ---- FOM handles (local, no message) ---------------------------------------------------- */

/**
 * Look up an object class by name, simple ("Car") or qualified ("Vehicle.Car"), in the FOM
 * this federate joined with (every federate gets the same handles).
 * @param f the federate (also valid after resign); @param name not NULL;
 * @param out receives the handle, not NULL.
 * @return TP_OK; TP_ENAME (no such class: the message names it); TP_EINVAL (NULL argument).
 * Runs no callbacks; sends nothing. @see tp_attribute, tp_handle_name
 */
TP_API int tp_object_class(tp_federate *f, const char *name, tp_handle *out);
/**
 * Look up an attribute of class @p cls, inherited ones included (an inherited attribute has
 * the handle of its declaration in the parent class).
 * @param cls an object class handle; @param name not NULL; @param out not NULL (0 on error).
 * @return TP_OK; TP_EHANDLE (not a class handle); TP_ENAME (the class has no such attribute);
 *         TP_EINVAL. Local; runs no callbacks. @see tp_object_class
 */
TP_API int tp_attribute(tp_federate *f, tp_handle cls, const char *name, tp_handle *out);
/**
 * Look up an interaction class by simple ("Alarm") or qualified ("Message.Alarm") name.
 * @param name not NULL; @param out receives the handle, not NULL.
 * @return TP_OK; TP_ENAME; TP_EINVAL. Local; runs no callbacks. @see tp_parameter
 */
TP_API int tp_interaction_class(tp_federate *f, const char *name, tp_handle *out);
/**
 * Look up a parameter of interaction class @p ic, inherited ones included.
 * @param ic an interaction class handle; @param name not NULL; @param out not NULL (0 on
 *        error).
 * @return TP_OK; TP_EHANDLE (not an interaction class handle); TP_ENAME; TP_EINVAL. Local.
 * @see tp_interaction_class
 */
TP_API int tp_parameter(tp_federate *f, tp_handle ic, const char *name, tp_handle *out);
/**
 * Name of a FOM handle, for messages and logs.
 * @param f the federate; NULL gives NULL.
 * @param kind 'o' object class, 'a' attribute, 'i' interaction class, 'p' parameter.
 * @param h the handle.
 * @return the qualified name of a class ("Vehicle.Car"), the name of an attribute or
 *         parameter, or NULL for an unknown handle or kind. Owned by @p f, valid until
 *         tp_federate_free(). Local. @see tp_object_class
 */
TP_API const char *tp_handle_name(tp_federate *f, char kind, tp_handle h);

/* ---- declaration management (asynchronous: the RTI reports refusals via `error`) ---------- */

/**
 * Publish attributes of an object class (adds to what is already published).
 * @param attrs @p n attribute handles of @p cls (may be NULL when n is 0: every attribute of
 *        the class, inherited ones included).
 * @return TP_OK; TP_EHANDLE (bad class or an attribute not of the class); TP_EINVAL;
 *         TP_ESTATE; TP_ECLOSED/TP_ESYS (sending failed). Sends; runs no callbacks.
 * @see tp_unpublish_object_class
 */
TP_API int tp_publish_object_class(tp_federate *f, tp_handle cls, const tp_handle *attrs, size_t n);
/**
 * Stop publishing class @p cls (all its attributes); objects already registered stay.
 * @param cls an object class handle.
 * @return TP_OK; TP_EHANDLE; TP_ENOTPUB (not published); TP_ESTATE; TP_ECLOSED; TP_ESYS.
 *         Sends; runs no callbacks. @see tp_publish_object_class
 */
TP_API int tp_unpublish_object_class(tp_federate *f, tp_handle cls);
/**
 * Subscribe attributes of an object class (adds to this class's subscription). Instances of
 * subclasses are discovered as @p cls unless a more derived class is subscribed too, and
 * reflect only the attributes subscribed at the class they are known as. Objects that exist
 * already are discovered too.
 * @param attrs @p n attribute handles of @p cls (may be NULL when n is 0: every attribute).
 * @return TP_OK; TP_EHANDLE; TP_EINVAL; TP_ESTATE; TP_ECLOSED; TP_ESYS. Sends; runs no
 *         callbacks. @see tp_unsubscribe_object_class
 */
TP_API int tp_subscribe_object_class(tp_federate *f, tp_handle cls, const tp_handle *attrs,
                                     size_t n);
/**
 * Drop the whole subscription of class @p cls: no more discover or reflect through it.
 * @param cls an object class handle.
 * @return TP_OK; TP_EHANDLE; TP_ESTATE; TP_ECLOSED; TP_ESYS. Sends; runs no callbacks.
 * @see tp_subscribe_object_class
 */
TP_API int tp_unsubscribe_object_class(tp_federate *f, tp_handle cls);
/**
 * Publish an interaction class (needed before tp_send_interaction).
 * @param ic an interaction class handle.
 * @return TP_OK; TP_EHANDLE; TP_ESTATE; TP_ECLOSED; TP_ESYS. Sends; runs no callbacks.
 * @see tp_unpublish_interaction_class
 */
TP_API int tp_publish_interaction_class(tp_federate *f, tp_handle ic);
/**
 * Stop publishing an interaction class.
 * @param ic an interaction class handle.
 * @return TP_OK; TP_EHANDLE; TP_ENOTPUB (not published); TP_ESTATE; TP_ECLOSED; TP_ESYS.
 *         Sends; runs no callbacks. @see tp_publish_interaction_class
 */
TP_API int tp_unpublish_interaction_class(tp_federate *f, tp_handle ic);
/**
 * Subscribe an interaction class; interactions of its subclasses are received too.
 * @param ic an interaction class handle.
 * @return TP_OK; TP_EHANDLE; TP_ESTATE; TP_ECLOSED; TP_ESYS. Sends; runs no callbacks.
 * @see tp_unsubscribe_interaction_class
 */
TP_API int tp_subscribe_interaction_class(tp_federate *f, tp_handle ic);
/**
 * Stop receiving an interaction class.
 * @param ic an interaction class handle.
 * @return TP_OK; TP_EHANDLE; TP_ESTATE; TP_ECLOSED; TP_ESYS. Sends; runs no callbacks.
 * @see tp_subscribe_interaction_class
 */
TP_API int tp_unsubscribe_interaction_class(tp_federate *f, tp_handle ic);

/* ---- object management ------------------------------------------------------------------ */

/**
 * Register an object instance of a published class and wait for the RTI's answer.
 * @param name unique instance name, or NULL to let the RTI choose one.
 * @param out receives the object handle, not NULL.
 * @return TP_OK; TP_EHANDLE; TP_ENOTPUB (class not published); TP_EEXISTS (name taken);
 *         TP_EREFUSED; TP_ESTATE; TP_ECLOSED; TP_ESYS; TP_EPROTO. Blocks for the reply; runs
 *         no callbacks (messages received meanwhile wait for tp_evoke()).
 * @see tp_delete_object
 */
TP_API int tp_register_object(tp_federate *f, tp_handle cls, const char *name, tp_object *out);

/**
 * Update attribute values of an object this federate registered.
 * @param values @p n ≥ 1 values, each an attribute published for the object's class; a
 *        fixed-size type (float64, int64, boolean) must have its exact size.
 * @param time TSO time stamp (must respect this federate's bound when it is regulating), or
 *        TP_NO_TIME for receive order.
 * @return TP_OK; TP_EHANDLE (unknown object or attribute); TP_ENOTPUB; TP_ESIZE; TP_EINVAL;
 *         TP_EBOUND (time below the bound: the message names both); TP_ESTATE; TP_ECLOSED;
 *         TP_ESYS. Sends (batched, no allocation once warm); runs no callbacks. The value
 *         bytes are copied: the caller may reuse them at once.
 * @see tp_update_tagged, tp_register_object
 */
TP_API int tp_update(tp_federate *f, tp_object obj, const tp_value *values, size_t n, tp_time time);
/**
 * tp_update() with a user tag passed to the subscribers' `reflect` (copied).
 * @param tag @p tag_size bytes (may be NULL when tag_size is 0).
 * @return as tp_update, and TP_EINVAL for a NULL tag with a nonzero size. @see tp_update
 */
TP_API int tp_update_tagged(tp_federate *f, tp_object obj, const tp_value *values, size_t n,
                            tp_time time, const void *tag, size_t tag_size);

/**
 * Delete an object this federate registered; subscribers get `remove`.
 * @param time TSO time stamp or TP_NO_TIME. @return TP_OK; TP_EHANDLE; TP_EBOUND; TP_ESTATE;
 *         TP_ECLOSED; TP_ESYS. Sends; runs no callbacks. @see tp_register_object
 */
TP_API int tp_delete_object(tp_federate *f, tp_object obj, tp_time time);

/**
 * Send an interaction of a published class.
 * @param params @p n parameter values (may be NULL when n is 0).
 * @param time TSO time stamp or TP_NO_TIME.
 * @return TP_OK; TP_EHANDLE; TP_ENOTPUB; TP_ESIZE; TP_EBOUND; TP_EINVAL; TP_ESTATE;
 *         TP_ECLOSED; TP_ESYS. Sends; runs no callbacks. @see tp_send_interaction_tagged
 */
TP_API int tp_send_interaction(tp_federate *f, tp_handle ic, const tp_value *params, size_t n,
                               tp_time time);
/**
 * tp_send_interaction() with a user tag passed to the receivers (copied).
 * @param tag @p tag_size bytes (may be NULL when tag_size is 0).
 * @return as tp_send_interaction. @see tp_send_interaction
 */
TP_API int tp_send_interaction_tagged(tp_federate *f, tp_handle ic, const tp_value *params,
                                      size_t n, tp_time time, const void *tag, size_t tag_size);

/**
 * Ask the owner of a discovered object for the current values of some attributes; the owner
 * gets `provide` and answers with an update.
 * @param attrs @p n ≥ 1 attribute handles. @return TP_OK; TP_EHANDLE; TP_EINVAL; TP_ESTATE;
 *         TP_ECLOSED; TP_ESYS. Sends; runs no callbacks. @see tp_request_class_update
 */
TP_API int tp_request_update(tp_federate *f, tp_object obj, const tp_handle *attrs, size_t n);
/**
 * Ask the owners of every instance of class @p cls (and its subclasses) for values.
 * @param attrs @p n ≥ 1 attribute handles of @p cls.
 * @return TP_OK; TP_EHANDLE; TP_EINVAL; TP_ESTATE; TP_ECLOSED; TP_ESYS. Sends; runs no
 *         callbacks. @see tp_request_update
 */
TP_API int tp_request_class_update(tp_federate *f, tp_handle cls, const tp_handle *attrs, size_t n);

/* ---- synchronization points ------------------------------------------------------------- */

/**
 * Register a synchronization point; the result comes back as `sync_registered`, then every
 * member gets `sync_announced`.
 * @param label not NULL, not empty. @param tag user bytes given to the announcement (may be
 *        NULL when tag_size is 0). @param feds @p n federate handles, or n = 0 for every
 *        federate joined now.
 * @return TP_OK; TP_EINVAL; TP_ESTATE; TP_ECLOSED; TP_ESYS. Sends; runs no callbacks.
 * @see tp_achieve_sync, tp_wait_sync
 */
TP_API int tp_register_sync(tp_federate *f, const char *label, const void *tag, size_t tag_size,
                            const tp_fed *feds, size_t n);
/**
 * Tell the RTI this federate reached point @p label.
 * @param label not NULL, not empty.
 * @return TP_OK; TP_EINVAL; TP_ENOTFOUND (the point was not announced to this federate, or
 *         its announcement has not been evoked yet); TP_ESTATE; TP_ECLOSED; TP_ESYS. Sends;
 *         runs no callbacks. @see tp_register_sync, tp_wait_sync, tp_sync
 */
TP_API int tp_achieve_sync(tp_federate *f, const char *label);
/**
 * Evoke callbacks until point @p label is announced to this federate.
 * @param label not NULL. @param timeout_ms < 0 waits forever; 0 dispatches only what has arrived.
 * @return TP_OK (also when it was announced before); TP_TIMEOUT; TP_EINVAL; TP_ESTATE (also
 *         from inside a callback); or an error of tp_evoke(). Runs callbacks.
 * @see tp_achieve_sync, tp_sync
 */
TP_API int tp_wait_announced(tp_federate *f, const char *label, int timeout_ms);
/**
 * Evoke callbacks until the federation is synchronized at @p label (does not achieve it).
 * @param label not NULL. @param timeout_ms < 0 waits forever; 0 dispatches only what has arrived.
 * @return TP_OK (also when it happened before); TP_TIMEOUT; TP_EINVAL; TP_ESTATE; or an error
 *         of tp_evoke(). Runs callbacks. @see tp_achieve_sync, tp_sync
 */
TP_API int tp_wait_sync(tp_federate *f, const char *label, int timeout_ms);
/**
 * Wait for the announcement of @p label, achieve it (unless done already), and wait until the
 * federation is synchronized: the usual "everybody starts together" step.
 * @param label not NULL. @param timeout_ms applies to each of the two waits (< 0: forever).
 * @return as tp_wait_announced, tp_achieve_sync and tp_wait_sync. Runs callbacks.
 * @see tp_register_sync
 */
TP_API int tp_sync(tp_federate *f, const char *label, int timeout_ms);

/* ---- time management (doc/time.md; confirmations are callbacks) ----------------------- */

/**
 * Become time-regulating with lookahead @p lookahead ≥ 0 (zero is exact, doc/time.md); the
 * RTI confirms with `regulation_enabled` (tp_wait_regulation_enabled waits for it).
 * @param lookahead ticks, ≥ 0.
 * @return TP_OK; TP_EINVAL (negative lookahead); TP_EENABLED (enabled or being enabled);
 *         TP_EPENDING (a time request is pending); TP_ESTATE; TP_ECLOSED; TP_ESYS. Sends; runs
 *         no callbacks. @see tp_wait_regulation_enabled, tp_disable_regulation
 */
TP_API int tp_enable_regulation(tp_federate *f, tp_time lookahead);
/**
 * Stop being time-regulating: this federate's time stamps no longer hold others back (its
 * later time-stamped sends are delivered in receive order).
 * @param f the federate, not NULL.
 * @return TP_OK; TP_ENOTENABLED (not regulating); TP_ESTATE; TP_ECLOSED; TP_ESYS. Sends; runs
 *         no callbacks. @see tp_enable_regulation
 */
TP_API int tp_disable_regulation(tp_federate *f);
/**
 * Become time-constrained: time-stamped messages arrive in time-stamp order and grants wait
 * until nothing earlier can come. Confirmed by `constrained_enabled`.
 * @param f the federate, not NULL.
 * @return TP_OK; TP_EENABLED (constrained or being enabled); TP_EPENDING (a time request is
 *         pending); TP_ESTATE; TP_ECLOSED; TP_ESYS. Sends; runs no callbacks.
 * @see tp_wait_constrained_enabled, tp_disable_constrained
 */
TP_API int tp_enable_constrained(tp_federate *f);
/**
 * Stop being time-constrained: messages are then delivered in receive order.
 * @param f the federate, not NULL.
 * @return TP_OK; TP_ENOTENABLED (not constrained); TP_ESTATE; TP_ECLOSED; TP_ESYS. Sends; runs
 *         no callbacks. @see tp_enable_constrained
 */
TP_API int tp_disable_constrained(tp_federate *f);
/**
 * Evoke callbacks until regulation is enabled (returns at once when it is).
 * @param timeout_ms < 0 waits forever; 0 dispatches only what has arrived.
 * @return TP_OK; TP_TIMEOUT; TP_ENOTENABLED (never requested); TP_EREFUSED (the RTI refused:
 *         tp_last_error has its reason); TP_ESTATE; an error of tp_evoke(). Runs callbacks.
 * @see tp_enable_regulation
 */
TP_API int tp_wait_regulation_enabled(tp_federate *f, int timeout_ms);
/**
 * Evoke callbacks until constrained is enabled (returns at once when it is).
 * @param timeout_ms < 0 waits forever; 0 dispatches only what has arrived.
 * @return TP_OK; TP_TIMEOUT; TP_ENOTENABLED (never requested); TP_EREFUSED; TP_ESTATE; an
 *         error of tp_evoke(). Runs callbacks. @see tp_enable_constrained
 */
TP_API int tp_wait_constrained_enabled(tp_federate *f, int timeout_ms);

/**
 * Change the lookahead (≥ 0). A smaller lookahead takes effect as the RTI allows: a promise
 * already made is never withdrawn (doc/time.md).
 * @param lookahead the new lookahead in ticks, ≥ 0.
 * @return TP_OK; TP_EINVAL (negative); TP_ENOTENABLED (not regulating); TP_ESTATE;
 *         TP_ECLOSED; TP_ESYS. Sends; runs no callbacks. @see tp_query_lookahead
 */
TP_API int tp_modify_lookahead(tp_federate *f, tp_time lookahead);
/**
 * The lookahead this federate declared (local).
 * @param out not NULL.
 * @return TP_OK; TP_ENOTENABLED (regulation neither enabled nor requested); TP_EINVAL.
 * @see tp_modify_lookahead
 */
TP_API int tp_query_lookahead(tp_federate *f, tp_time *out);
/**
 * The least time stamp this federate may send now (local, no round trip): the bound of
 * doc/time.md for its state, and never below the bound the RTI gave it when regulation was
 * enabled. A federate enabling regulation after others advanced starts with a bound above
 * T + L (what constrained federates were already promised): every tp_update, tp_send and
 * tp_delete_object below it fails at once with TP_EBOUND, and this call says where it is.
 * @param bound not NULL: the bound in ticks.
 * @param strict may be NULL; set to 1 when only time stamps > bound may be sent.
 * @return TP_OK; TP_EINVAL; TP_ENOTENABLED (regulation not enabled yet: wait for the
 *         regulation_enabled callback). Runs no callbacks.
 */
TP_API int tp_query_send_bound(tp_federate *f, tp_time *bound, int *strict);
/**
 * This federate's logical time: its last grant (or the time regulation/constrained was
 * enabled at); 0 after joining. Local.
 * @param out not NULL. @return TP_OK; TP_EINVAL. @see tp_wait_grant
 */
TP_API int tp_query_logical_time(tp_federate *f, tp_time *out);

/** One federate's time-management state, as the RTI sees it ("who blocks whom"). */
typedef struct tp_time_status {
    tp_fed federate;         /**< its handle */
    tp_time time;            /**< its logical time */
    tp_request_kind pending; /**< pending request kind, TP_REQ_NONE when granted */
    tp_time pending_time;    /**< requested time, TP_NO_TIME when none */
    tp_time bound;           /**< least time stamp it may still send; TP_TIME_MAX when it
                                  does not regulate */
    int bound_strict;        /**< nonzero: only time stamps > bound */
    tp_time galt;            /**< its GALT; TP_TIME_MAX when no one regulates */
    int galt_strict;         /**< nonzero: GALT excludes galt itself */
    tp_fed galt_holder;      /**< the federate whose bound is its GALT; 0 when none */
    tp_fed galt_root;        /**< the federate whose own bound (request, queued message or
                                  promise) that GALT is built from: differs from galt_holder
                                  when the holder is itself waiting in NER/NERA; 0 when none */
    tp_time lits;            /**< least time stamp of the TSO messages queued for it at the
                                  RTI; TP_TIME_MAX when none are queued */
} tp_time_status;

/**
 * Ask the RTI for every federate's time state (blocking round trip).
 * @param out room for @p cap records (may be NULL when cap is 0).
 * @param n receives the number of federates (not NULL), even when more than @p cap.
 * @return TP_OK (min(n, cap) records filled); TP_EINVAL; TP_ESTATE; TP_ECLOSED; TP_ESYS;
 *         TP_EPROTO. Blocks for one round trip; runs no callbacks (messages received
 *         meanwhile wait for tp_evoke()). Since the RTI handles one federate's messages in
 *         order, its return also shows that everything sent before has been processed.
 * @see tp_query_galt
 */
TP_API int tp_query_time_status(tp_federate *f, tp_time_status *out, size_t cap, size_t *n);
/**
 * This federate's GALT (greatest available logical time) as the RTI computes it.
 * @param galt not NULL: TP_TIME_MAX when no other federate regulates.
 * @param strict may be NULL; set to 1 when the GALT excludes its own time.
 * @return as tp_query_time_status, and TP_EPROTO when the RTI's answer has no record for this
 *         federate. Blocks for one round trip; runs no callbacks. @see tp_query_time_status
 */
TP_API int tp_query_galt(tp_federate *f, tp_time *galt, int *strict);
/**
 * This federate's LITS: the least time stamp of TSO messages queued for it at the RTI, or
 * TP_TIME_MAX when none.
 * @param lits not NULL: TP_TIME_MAX when nothing is queued for this federate.
 * @return as tp_query_time_status, and TP_EPROTO when the RTI's answer has no record for this
 *         federate. Blocks for one round trip; runs no callbacks. @see tp_query_time_status
 */
TP_API int tp_query_lits(tp_federate *f, tp_time *lits);
/**
 * Whether a federate that polls (FQR, or TARA at its own time) makes progress, as the RTI
 * sees it: a grant that leaves its logical time unchanged with no message delivered since the
 * previous grant makes none. Two or more such grants in a row with no request pending mean it
 * waits as surely as a pending request would (doc/time.md, "Stalls under polling").
 * @param who the federate asked about; 0 = this federate.
 * @param polls not NULL: its last grants in a row without progress (0: its last grant
 *        progressed).
 * @param waits_for may be NULL; when *polls >= 2 and it has no request pending: the first
 *        federate it waits for, one with no request pending that has neither sent nor
 *        requested anything since the stall began (0 when none is idle: all act or wait);
 *        0 otherwise.
 * @return as tp_query_time_status; TP_EINVAL (polls NULL); TP_EHANDLE when the RTI's answer
 *         has no record for @p who. Blocks for one round trip; runs no callbacks.
 */
TP_API int tp_query_stall(tp_federate *f, tp_fed who, unsigned *polls, tp_fed *waits_for);

/**
 * Time advance request TAR(@p t): TSO messages with ts ≤ t are delivered, then `grant`(t)
 * once nothing stamped ≤ t can still arrive. A non-constrained federate is granted at once.
 * @param t requested time, ≥ the logical time (equal is legal: it closes an instant opened by
 *        TARA(t)).
 * @return TP_OK; TP_ETIME (t below the logical time: the message names both); TP_EPENDING
 *         (a request, or an enable, is pending); TP_EINVAL (t is TP_NO_TIME); TP_ESTATE;
 *         TP_ECLOSED; TP_ESYS. Sends at once (flushes); runs no callbacks.
 * @see tp_wait_grant, tp_time_advance_request_available
 */
TP_API int tp_time_advance_request(tp_federate *f, tp_time t);
/**
 * Time advance request available TARA(@p t): as TAR, but granted once nothing stamped below t
 * can arrive; messages stamped t that arrive after the grant are delivered at once. With
 * lookahead 0 the federate may still send at t after the grant.
 * @param t requested time, ≥ the logical time.
 * @return as tp_time_advance_request. @see tp_time_advance_request
 */
TP_API int tp_time_advance_request_available(tp_federate *f, tp_time t);
/**
 * Next event request NER(@p t): delivers the TSO messages with the smallest time stamp T ≤ t
 * and grants T, or grants t when none can come before it.
 * @param t requested time, ≥ the logical time.
 * @return as tp_time_advance_request. @see tp_next_event_request_available
 */
TP_API int tp_next_event_request(tp_federate *f, tp_time t);
/**
 * Next event request available NERA(@p t): as NER, with the TARA rule at the granted time
 * (later messages stamped with it are delivered at once).
 * @param t requested time, ≥ the logical time.
 * @return as tp_time_advance_request. @see tp_next_event_request
 */
TP_API int tp_next_event_request_available(tp_federate *f, tp_time t);
/**
 * Flush queue request FQR(@p t): every TSO message queued for this federate is delivered now,
 * whatever its time stamp, then the grant max(T, min(t, GALT)) comes at once (T the logical
 * time).
 * @param t requested time, ≥ the logical time.
 * @return as tp_time_advance_request. @see tp_wait_grant
 */
TP_API int tp_flush_queue_request(tp_federate *f, tp_time t);
/**
 * Evoke callbacks until the pending request is granted.
 * @param t receives the granted time (may be NULL). @param timeout_ms < 0 waits forever; 0
 * dispatches only what has arrived.
 * @return TP_OK; TP_TIMEOUT; TP_ESTATE (no request pending, or called from a callback);
 *         TP_EREFUSED (the RTI refused the request: tp_last_error has its reason); an error of
 *         tp_evoke(); the code of an earlier asynchronous request the RTI refused (an update
 *         below the bound: TP_EBOUND, tp_last_error names it; see tp_callbacks.error), which
 *         ends the wait even if the grant came. Runs callbacks (including `grant`).
 * @see tp_time_advance_request
 */
TP_API int tp_wait_grant(tp_federate *f, tp_time *t, int timeout_ms);

/**
 * Seconds to ticks with the FOM's resolution (doc/time.md: only at the API boundary).
 * @param f the federate; NULL uses the default resolution, 1 ns per tick.
 * @param seconds any double.
 * @return the tick count rounded to nearest, saturated at ±TP_TIME_MAX; TP_NO_TIME for NaN.
 *         Pure. @see tp_time_to_seconds
 */
TP_API tp_time tp_time_from_seconds(const tp_federate *f, double seconds);
/**
 * Ticks to seconds with the FOM's resolution.
 * @param f the federate; NULL uses 1 ns per tick. @param t ticks.
 * @return seconds; +inf for TP_TIME_MAX, NaN for TP_NO_TIME. Pure.
 * @see tp_time_from_seconds
 */
TP_API double tp_time_to_seconds(const tp_federate *f, tp_time t);
/**
 * Tick sum a + b that never overflows (doc/contributing.md §11): TP_TIME_MAX (+∞) when
 * either is TP_TIME_MAX or the sum is above it, -TP_TIME_MAX when it is below that; use it
 * for T + step and T + lookahead.
 * @param a,b ticks. @return the sum as above; TP_NO_TIME when either is TP_NO_TIME. Pure.
 */
TP_API tp_time tp_time_add(tp_time a, tp_time b);

/* ---- evoking and flushing --------------------------------------------------------------- */

/**
 * Flush buffered output, then receive and dispatch messages, running callbacks.
 * @param timeout_ms 0: dispatch what has arrived and return; > 0: wait up to that long for the
 *        first message, then dispatch everything available; < 0: wait until at least one
 *        message was dispatched.
 * @return the number of messages dispatched (≥ 0); TP_ECLOSED (the RTI closed the
 *         connection; messages received before are still dispatched first); TP_EPROTO
 *         (malformed frame: the connection is closed); TP_ESYS; TP_ESTATE (resigned, or
 *         called from inside a callback); TP_EINVAL (f is NULL). Runs every callback.
 * @see tp_fileno, tp_flush
 */
TP_API int tp_evoke(tp_federate *f, int timeout_ms);

/**
 * Write all buffered output now, blocking until the kernel accepted it (meanwhile incoming
 * bytes are read and kept, so that neither side can block the other).
 * @param f the federate, not NULL.
 * @return TP_OK; TP_ECLOSED; TP_ESYS; TP_ESTATE; TP_EINVAL (f is NULL). Runs no callbacks.
 * @see tp_evoke
 */
TP_API int tp_flush(tp_federate *f);

/* ---- in-process RTI (doc/inproc.md) ----------------------------------------------------- */

/** Default spin of an in-process reader, µs: a federate waiting for a message polls its
 *  queue this long before it blocks (tp_inproc_options.spin_us). */
#define TP_INPROC_SPIN_DEFAULT_US 50

/** Options of an RTI embedded in this process; a zeroed struct means the defaults. */
typedef struct tp_inproc_options {
    const char *log_dir;  /**< write a federation log per federation here (doc/log.md), as
                               tempo-rti --flog-dir does; NULL = none */
    const char *log_only; /**< with log_dir: comma-separated fnmatch(3) patterns of the
                               federations to log; NULL = all */
    const char *secret;   /**< shared secret every join must carry; NULL = none */
    int spin_us;          /**< µs a waiting federate polls before it blocks: 0 =
                               TP_INPROC_SPIN_DEFAULT_US, < 0 = never spin (block at once) */
    /** This RTI's own log lines (the format of tempo-rti's log); NULL = none (nothing is
     *  printed). Each in-process RTI has its own: another RTI's lines never reach it. Runs in
     *  the thread of the federate whose message caused the line, under the RTI's lock: it must
     *  not call tp_ functions. */
    void (*log)(void *ctx, tp_log_level level, const char *line);
    void *log_ctx;              /**< passed to log */
    tp_log_level log_level;     /**< most verbose level passed to log; 0 = errors only */
    int tasks;                  /**< 1: the federates are tasks, not threads: functions given to
                                     tp_inproc_spawn, run interleaved on the one thread that calls
                                     tp_inproc_run; a federate that would wait for a message lets the next
                                     one run (no locks taken by two threads, no wake-up system calls;
                                     doc/inproc.md). Joins must then come from those tasks. 0: threads */
    const char *checkpoint_dir; /**< folder where saves are written (DIR/LABEL), as
                                     tempo-rti --checkpoint-dir does; NULL = saves are
                                     refused (doc/checkpoint.md) */
    const char *http; /**< "HOST:PORT" on loopback (port 0: a free one): serve the live view
                           (doc/live.md) from this RTI, on a thread of its own that takes the
                           RTI's lock once a second and per request; NULL = none. Only in
                           programs that link the view (tempo-fmu, tempo-master): libtempo.so
                           alone refuses it (TP_EINVAL, err says so) */
} tp_inproc_options;

/**
 * Start an RTI inside this process, reachable as "inproc:NAME" by tp_join and
 * tp_create_federation from any thread of the process. It runs the same server code, time
 * management and federation log as tempo-rti, with in-memory queues instead of sockets. A
 * join to "inproc:NAME" starts it with the defaults when this was not called; call this
 * first to have a federation log or another spin.
 * @param name the RTI's name (NULL or "" = the default one, "inproc:"); at most 127 bytes.
 * @param opt  options (may be NULL: defaults); strings are copied.
 * @param err  buffer of @p err_size bytes for the reason on failure (may be NULL).
 * @return TP_OK; TP_EEXISTS (an RTI of that name runs already); TP_EINVAL (name too long);
 *         TP_ENOMEM. Runs no callbacks; may be called from any thread.
 * @see tp_inproc_stop
 */
TP_API int tp_inproc_start(const char *name, const tp_inproc_options *opt, char *err,
                           size_t err_size);

/**
 * Stop the RTI of that name: federates still joined lose their connection (their next call
 * fails with TP_ECLOSED; the RTI resigns them as disconnected), every federation is destroyed
 * and its federation log completed. Call it once the federate threads are done so that the
 * logs are complete; a process that exits without it gets its logs flushed at exit.
 * @return TP_OK; TP_ENOTFOUND (no such RTI). Runs no callbacks.
 */
TP_API int tp_inproc_stop(const char *name, char *err, size_t err_size);

/**
 * The address ("HOST:PORT") the live view of the in-process RTI of that name listens on
 * (tp_inproc_options.http), written into @p out (@p len bytes, NUL-terminated).
 * @return TP_OK; TP_ENOTFOUND (no such RTI, or it serves no view). Runs no callbacks.
 */
TP_API int tp_inproc_http_address(const char *name, char *out, size_t len);

/**
 * Add a task to an RTI started with tp_inproc_options.tasks = 1: fn(ctx) runs, on a stack of
 * its own (8 MiB of address space, committed as used), when tp_inproc_run runs the tasks. In
 * it, fn is an ordinary federate: tp_join("inproc:NAME"), tp_time_advance_request, tp_wait_*
 * and so on; where a thread would wait for a message, the task lets the next runnable task
 * run. A task must not block the thread otherwise (sleep, read a pipe, wait on a lock another
 * task holds): the other tasks would not run meanwhile.
 * @param name the RTI's name, as in tp_inproc_start.
 * @param fn   the task; ctx is passed to it and stays the caller's.
 * @return TP_OK; TP_EINVAL (fn is NULL); TP_ENOTFOUND (no such RTI); TP_ESTATE (its
 *         federates are threads); TP_ENOMEM. May be called before tp_inproc_run or from a running
 * task. Runs no callbacks.
 */
TP_API int tp_inproc_spawn(const char *name, void (*fn)(void *ctx), void *ctx, char *err,
                           size_t err_size);

/**
 * Run the tasks of the RTI called name on the calling thread until every one has returned
 * (tasks spawned meanwhile included). When every task left waits for a message with no time
 * limit, none can come: their connections are closed with that reason (their calls fail with
 * TP_ECLOSED) so that they end. Call tp_inproc_stop after it returns.
 * @return TP_OK; TP_ENOTFOUND (no such RTI); TP_ESTATE (threads, not tasks; already running;
 *         called from a task). Blocks until the tasks are done.
 */
TP_API int tp_inproc_run(const char *name, char *err, size_t err_size);

/**
 * Who waits for whom in the RTI called name, as tempo-rti logs it on SIGUSR1: for every
 * federation a line naming it, one line per federate (its time, pending request, bound, GALT
 * and who holds it, queued messages), then "the federate to look at" (the end of the wait
 * chain the most waiting federates reach; doc/time.md "Who waits for whom"). tempo-run's
 * watchdog shows them for an in-process run (doc/inproc.md).
 * @param name the RTI's name, as in tp_inproc_start.
 * @param emit called once per line, on the calling thread, with a NUL-terminated line valid
 *             only during the call; ctx is passed to it.
 * @return TP_OK; TP_EINVAL (emit is NULL); TP_ENOTFOUND (no such RTI); TP_ESTATE (stopped,
 *         or a federate stayed inside the RTI's core for 100 ms). May be called from any
 *         thread while the federates run or are stuck; blocks at most about 100 ms. Runs no
 *         callbacks but emit.
 */
TP_API int tp_inproc_status(const char *name, void (*emit)(void *ctx, const char *line), void *ctx,
                            char *err, size_t err_size);

/**
 * In a task (tp_inproc_spawn): let the other runnable tasks run, then return 1. Anywhere else
 * return 0 at once. A task that polls (a loop that waits for something without waiting on a
 * message, e.g. sleeping between flush queries) must call this where a thread would sleep,
 * or the tasks it waits for never run. Runs no callbacks.
 */
TP_API int tp_inproc_yield(void);

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_FEDERATE_TEMPO_H */
