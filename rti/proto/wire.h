/* Wire protocol codec shared by the RTI and libtempo: frame splitting, encoding and
 * non-allocating decoding of every message type (doc/protocol.md, doc/contributing.md §7).
 * Byte format and fields per message: doc/protocol.md; the catalogue table: rti/proto/wire.c.
 * Read rti/proto/buf.h first. */

/* Frame = 8-byte header + body, all integers little-endian:
 *     u32 body_length   bytes after the header (frame size = 8 + body_length)
 *     u16 type          enum wire_type
 *     u16 flags         must be 0 in protocol version 1 (reserved)
 * The body holds, in this fixed order, only the fields the type's layout carries:
 *     req u32, code u32, a u64, b u64, c u64, time i64, time2 i64,
 *     str[0..nstr) each "u32 len, bytes",
 *     values "u32 count, count x (u32 handle, u32 len, bytes)",
 *     handles "u32 count, count x u32".
 * A frame whose body is not consumed exactly, or holds anything the layout forbids, is
 * rejected: decoding is strict so that both sides agree on every byte. */
#ifndef TEMPO_RTI_WIRE_H
#define TEMPO_RTI_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "rti/proto/buf.h"

#define WIRE_VERSION           1u     /* protocol version sent in HELLO / HELLO_OK */
#define WIRE_MAGIC             "TMPO" /* HELLO str[0], exactly these 4 bytes */
#define WIRE_MAGIC_LEN         4u
#define WIRE_HEADER_SIZE       8u         /* u32 body_length, u16 type, u16 flags */
#define WIRE_MAX_FRAME_DEFAULT (1u << 20) /* bytes, whole frame including the header */
#define WIRE_MAX_FRAME_MIN     64u        /* the smallest limit wire_split accepts */
#define WIRE_TIME_NONE         INT64_MIN  /* "no time stamp": receive-order / not applicable */
#define WIRE_MAX_STRS          4          /* string/blob slots in a message */
#define WIRE_TSTAT_SIZE        82u        /* bytes of one packed struct wire_tstat record */
#define WIRE_TSTAT_SIZE_OLD    70u        /* the record before polls/waits_for (still read) */
#define WIRE_HEX_MAX           64u        /* bytes shown at most by wire_hex_sample() */
#define WIRE_HEX_BUFSZ         352u       /* a buffer this big always holds the sample */

/* Status codes. Decoders and encoders return 0 or one of these negative values and fill
 * the caller's error buffer with the field and byte offset at fault. */
enum wire_status {
    WIRE_OK = 0,
    WIRE_ETRUNC = -1,  /* the frame or a field inside it is shorter than declared */
    WIRE_ETOOBIG = -2, /* frame length over the configured maximum */
    WIRE_ETYPE = -3,   /* unknown message type */
    WIRE_EFLAGS = -4,  /* reserved header flag bits set */
    WIRE_EFIELD = -5,  /* a field value is invalid (code out of range, NUL in a text, magic,
                          record size, a field the layout does not carry was supplied) */
    WIRE_ETRAIL = -6,  /* bytes left after the last field of the body */
    WIRE_ENOMEM = -7,  /* output buffer could not grow */
    WIRE_EUSAGE = -8   /* bad arguments (NULL pointer, count/length over UINT32_MAX) */
};

/* Message types. Values are part of the protocol: never renumber, only append.
 * Fields per type ("a=object" means the u64 field a holds the object handle); every
 * client request carries req, a client-chosen id echoed in the REPLY/ERROR it causes
 * (0 = the client expects no REPLY; a refusal still comes as ERROR). */
enum wire_type {
    WIRE_HELLO = 1,                  /* C→R code=protocol version, str0=magic "TMPO",
                                        str1=client software name */
    WIRE_HELLO_OK = 2,               /* R→C code=server protocol version, str0=server name */
    WIRE_REPLY = 3,                  /* R→C req, code=status (0 ok, else a WIRE_ERR_*-style
                                        code defined by the RTI), a=value (e.g. object
                                        handle), str0=message text */
    WIRE_ERROR = 4,                  /* R→C req (of the refused request, 0 if none),
                                        code=error code, a=refused request type (0 if none),
                                        str0=text. After a handshake error the RTI closes. */
    WIRE_CREATE_FEDERATION = 5,      /* C→R req, str0=federation name, str1=FOM XML text,
                                        str2=shared secret blob (may be empty) */
    WIRE_DESTROY_FEDERATION = 6,     /* C→R req, str0=federation name, str1=shared secret blob
                                        (may be empty) */
    WIRE_JOIN = 7,                   /* C→R req, code=WIRE_JOIN_* flags, str0=federation,
                                        str1=federate name, str2=FOM XML text (may be empty
                                        when the federation exists), str3=shared secret blob */
    WIRE_JOIN_OK = 8,                /* R→C req, a=federate handle, b=FOM fingerprint
                                        (fom_fingerprint), time=federation's current least
                                        logical time or WIRE_TIME_NONE, str0=federation name,
                                        str1=time resolution text (seconds per tick) */
    WIRE_RESIGN = 9,                 /* C→R req, code=enum wire_resign_action */
    WIRE_FEDERATE_JOINED = 10,       /* R→C a=federate handle, str0=federate name */
    WIRE_FEDERATE_RESIGNED = 11,     /* R→C a=federate handle, code=enum wire_resign_reason,
                                        str0=federate name, str1=reason text */
    WIRE_PUBLISH_OBJECT = 12,        /* C→R req, a=object class, handles=attributes (empty=all) */
    WIRE_UNPUBLISH_OBJECT = 13,      /* C→R req, a=object class, handles=attributes (empty=all) */
    WIRE_SUBSCRIBE_OBJECT = 14,      /* C→R req, a=object class, handles=attributes (empty=all) */
    WIRE_UNSUBSCRIBE_OBJECT = 15,    /* C→R req, a=object class, handles=attributes (empty=all) */
    WIRE_PUBLISH_INTERACTION = 16,   /* C→R req, a=interaction class */
    WIRE_UNPUBLISH_INTERACTION = 17, /* C→R req, a=interaction class */
    WIRE_SUBSCRIBE_INTERACTION = 18, /* C→R req, a=interaction class */
    WIRE_UNSUBSCRIBE_INTERACTION = 19, /* C→R req, a=interaction class */
    WIRE_REGISTER_OBJECT = 20,         /* C→R req, a=object class, str0=unique name (empty=let
                                          the RTI choose); answered by REPLY a=object handle */
    WIRE_DISCOVER = 21,                /* R→C a=object, b=object class, c=owner federate,
                                          str0=object name */
    WIRE_UPDATE = 22,                  /* C→R req, a=object, time (WIRE_TIME_NONE = receive
                                          order), values=attribute values, str0=user tag blob */
    WIRE_REFLECT = 23,                 /* R→C a=object, code=enum wire_order, c=sender federate,
                                          time, values, str0=tag */
    WIRE_DELETE_OBJECT = 24,           /* C→R req, a=object, time (or NONE), str0=tag */
    WIRE_REMOVE_OBJECT = 25,           /* R→C a=object, code=order, c=sender, time, str0=tag */
    WIRE_SEND_INTERACTION = 26,        /* C→R req, a=interaction class, time (or NONE),
                                          values=parameter values, str0=tag */
    WIRE_RECEIVE_INTERACTION = 27,     /* R→C a=interaction class, code=order, c=sender,
                                          time, values, str0=tag */
    WIRE_REQUEST_UPDATE = 28,          /* C→R req, code=enum wire_ru_target, a=object or object
                                          class, handles=attributes (empty = all) */
    WIRE_PROVIDE_UPDATE = 29,      /* R→C a=object, c=requesting federate, handles=attributes */
    WIRE_REGISTER_SYNC = 30,       /* C→R req, str0=label, str1=tag blob,
                                      handles=federates (empty = all joined) */
    WIRE_SYNC_REGISTERED = 31,     /* R→C req, code=0 success / nonzero failure code,
                                      str0=label, str1=reason text (empty on success) */
    WIRE_ANNOUNCE_SYNC = 32,       /* R→C str0=label, str1=tag blob */
    WIRE_ACHIEVE_SYNC = 33,        /* C→R req, str0=label */
    WIRE_FEDERATION_SYNCED = 34,   /* R→C str0=label */
    WIRE_ENABLE_REGULATION = 35,   /* C→R req, time2=lookahead (ticks, >= 0) */
    WIRE_REGULATION_ENABLED = 36,  /* R→C time=federate's logical time, time2=its send bound
                                      (ticks), code=1 when that bound is strict */
    WIRE_DISABLE_REGULATION = 37,  /* C→R req */
    WIRE_ENABLE_CONSTRAINED = 38,  /* C→R req */
    WIRE_CONSTRAINED_ENABLED = 39, /* R→C time=federate's logical time */
    WIRE_DISABLE_CONSTRAINED = 40, /* C→R req */
    WIRE_MODIFY_LOOKAHEAD = 41,    /* C→R req, time2=new lookahead (ticks, >= 0) */
    WIRE_TIME_REQUEST = 42,        /* C→R req, code=enum wire_time_kind, time=requested */
    WIRE_TIME_GRANT = 43,          /* R→C code=kind of the request granted, time=granted */
    WIRE_QUERY_TIME = 44,          /* C→R req */
    WIRE_TIME_STATUS = 45,         /* R→C req, time=federation's least logical time or NONE,
                                      values=one packed struct wire_tstat per federate (value
                                      handle = federate handle, len = WIRE_TSTAT_SIZE) */
    WIRE_PING = 46,                /* both ways: req, str0=payload blob */
    WIRE_PONG = 47,                /* both ways: req (of the PING), str0=the PING's payload */
    /* checkpoints (doc/checkpoint.md "The coordinated save", doc/protocol.md §checkpoints) */
    WIRE_REQUEST_SAVE = 48,       /* C→R req, time=save time T, str0=label */
    WIRE_INITIATE_SAVE = 49,      /* R→C req=save id, a=largest part chunk (bytes) one
                                     SAVE_DONE may carry, time=the federate's logical time,
                                     time2=T, str0=label */
    WIRE_SAVE_DONE = 50,          /* C→R req=save id, code=enum wire_save_done, a=state frames
                                     (wire_type_state) the federate dispatched after the
                                     INITIATE_SAVE up to its snapshot, str0=label,
                                     str1=a chunk of the federate's part (blob), str2=reason
                                     (FAILED only) */
    WIRE_FEDERATION_SAVED = 51,   /* R→C req=save id, code=status (0 saved, else a STATUS_*),
                                     time=T, str0=label, str1=the folder, or what failed */
    WIRE_RESTORE_FEDERATION = 52, /* C→R req, str0=federation name (empty = the saved one),
                                     str1=checkpoint folder as the RTI reads it, str2=shared
                                     secret blob; answered by REPLY (a = FOM fingerprint) */
    WIRE_RESTORE_PART = 53,       /* R→C req (of the restoring JOIN), code=1 more chunks
                                     follow / 0 last, time=the federate's logical time when
                                     saved, str0=label, str1=a chunk of its part (blob);
                                     precedes the JOIN_OK */
    WIRE_TYPE_END                 /* one past the last type; not a type */
};

/* Which side sends a type (bit set). */
enum wire_dir {
    WIRE_DIR_C2R = 1, /* client → RTI */
    WIRE_DIR_R2C = 2, /* RTI → client */
    WIRE_DIR_BOTH = 3
};

/* JOIN code bits. */
enum wire_join_flags {
    WIRE_JOIN_CREATE = 1u,       /* create the federation (with str2 as FOM) when it is missing */
    WIRE_JOIN_KEEP_OBJECTS = 2u, /* on connection loss keep its objects (else they are deleted) */
    WIRE_JOIN_RESTORE = 4u       /* rejoin as the saved federate of that name in a federation
                                    restored from a checkpoint (doc/checkpoint.md) */
};
#define WIRE_JOIN_FLAGS_ALL 7u /* every defined JOIN code bit; the decoder refuses others */

/* SAVE_DONE code. */
enum wire_save_done {
    WIRE_SAVE_OK = 0,    /* the last (or only) chunk of the part: this federate has saved */
    WIRE_SAVE_MORE = 1,  /* a chunk; more follow */
    WIRE_SAVE_FAILED = 2 /* this federate cannot save: str2 says why (chunks sent are dropped) */
};

/* RESIGN code: what happens to the objects the federate owns. */
enum wire_resign_action {
    WIRE_RESIGN_DELETE_OBJECTS = 0, /* delete them (subscribers get REMOVE_OBJECT) */
    WIRE_RESIGN_KEEP_OBJECTS = 1    /* leave them registered, without owner */
};

/* FEDERATE_RESIGNED code: why a federate left. */
enum wire_resign_reason {
    WIRE_REASON_RESIGNED = 0,     /* it sent RESIGN */
    WIRE_REASON_DISCONNECTED = 1, /* its connection dropped */
    WIRE_REASON_EXPELLED = 2      /* the RTI closed it (malformed frame, too slow, ...) */
};

/* REFLECT / REMOVE_OBJECT / RECEIVE_INTERACTION code. */
enum wire_order {
    WIRE_ORDER_RO = 0, /* receive order: delivered at once, time is the sender's stamp or NONE */
    WIRE_ORDER_TSO = 1 /* time-stamp order */
};

/* REQUEST_UPDATE code: whether a is an object instance or an object class. */
enum wire_ru_target { WIRE_RU_OBJECT = 0, WIRE_RU_CLASS = 1 };

/* TIME_REQUEST / TIME_GRANT code (doc/time.md). */
enum wire_time_kind {
    WIRE_TR_NONE = 0, /* only in struct wire_tstat: no request pending */
    WIRE_TR_TAR = 1,  /* time advance request */
    WIRE_TR_TARA = 2, /* time advance request available */
    WIRE_TR_NER = 3,  /* next event request */
    WIRE_TR_NERA = 4, /* next event request available */
    WIRE_TR_FQR = 5   /* flush queue request */
};

/* A string or blob field: ptr/len, never NUL-terminated on the wire. In a decoded message
 * ptr points into the frame (valid as long as the frame bytes are); len 0 may have any ptr.
 * "Text" slots must not contain a NUL byte; "blob" slots may hold anything. */
struct wire_str {
    const char *ptr; /* first byte, or NULL when len == 0 */
    uint32_t len;    /* bytes */
};

/* One attribute or parameter value: a FOM handle and its encoded bytes (encoding per the
 * FOM data type: doc/fom.md). In a decoded message data points into the frame. */
struct wire_value {
    uint32_t handle;     /* attribute / parameter handle (fom.h), or federate for TIME_STATUS */
    uint32_t len;        /* bytes of data */
    const uint8_t *data; /* value bytes, not owned */
};

/* One generic message. A type uses only the fields its layout lists (see enum wire_type);
 * the encoder refuses a message that sets a field its type does not carry (nonzero number,
 * non-empty string, values or handles) so that nothing is silently dropped; a time field
 * the type does not carry must be WIRE_TIME_NONE (wire_msg_init sets that) or 0. In a
 * decoded message every field the type does not carry is 0, and such times are NONE.
 *
 * Values and handles have two forms:
 *  - to encode, set nvalues + values (an array) and nhandles + handles (an array);
 *  - a decoded message has values == NULL and handles == NULL and carries the raw bytes in
 *    values_raw / handles_raw (unaligned little-endian, checked by the decoder); read them
 *    with wire_value_iter / wire_msg_values() / wire_msg_handle().
 * A decoded message can be re-encoded as it is (e.g. the RTI turns an UPDATE into a REFLECT
 * by changing type and fields): when the arrays are NULL the encoder copies the raw form. */
struct wire_msg {
    uint16_t type;  /* enum wire_type */
    uint16_t flags; /* header flags; 0 in protocol version 1 */
    uint32_t req;   /* request id, echoed by the REPLY/ERROR/PONG/SYNC_REGISTERED it causes */
    uint32_t code;  /* status, kind, action, order or flags, per type */
    uint64_t a;     /* first handle (federate, class or object, per type) */
    uint64_t b;     /* second handle / value (per type) */
    uint64_t c;     /* third handle, usually a federate (owner, sender, requester) */
    int64_t time;   /* logical time in ticks, or WIRE_TIME_NONE */
    int64_t time2;  /* lookahead in ticks, or WIRE_TIME_NONE */
    struct wire_str str[WIRE_MAX_STRS]; /* strings / blobs, per type */

    uint32_t nvalues;                /* number of values (both forms) */
    const struct wire_value *values; /* encode form: array of nvalues, not owned */
    const uint8_t *values_raw;       /* decoded form: the values' bytes after the count */
    size_t values_raw_len;           /* decoded form: bytes at values_raw */

    uint32_t nhandles;          /* number of handles (both forms) */
    const uint32_t *handles;    /* encode form: array of nhandles, not owned */
    const uint8_t *handles_raw; /* decoded form: nhandles x u32 little-endian */
};

/* Iterator over the values of a decoded (or encode-form) message. */
struct wire_value_iter {
    const struct wire_msg *msg; /* message walked */
    uint32_t index;             /* values returned so far */
    size_t off;                 /* decoded form: byte offset into values_raw */
};

/* One federate's time state, carried as a value of TIME_STATUS (packed into
 * WIRE_TSTAT_SIZE bytes by wire_tstat_pack: all fields little-endian, in this order). */
struct wire_tstat {
    uint64_t federate;    /* federate handle */
    int64_t time;         /* logical time (ticks) */
    uint32_t req_kind;    /* enum wire_time_kind of the pending request, WIRE_TR_NONE if none */
    int64_t req_time;     /* requested time, WIRE_TIME_NONE if none */
    int64_t bound;        /* bound on what it may still send (ticks), INT64_MAX = none */
    uint8_t bound_strict; /* 1: only ts > bound; 0: ts >= bound */
    int64_t galt;         /* its GALT (ticks), INT64_MAX = unbounded */
    uint8_t galt_strict;  /* 1: strict GALT */
    uint64_t holder;      /* federate whose bound sets the GALT, 0 if none */
    int64_t lits;         /* least time stamp of the TSO messages queued for it, INT64_MAX
                             when none */
    uint64_t root;        /* federate whose fixed bound the GALT is built from (through NER
                             chains; = holder otherwise), 0 if none */
    uint32_t polls;       /* its last grants in a row without progress (tm_status.polls) */
    uint64_t waits_for;   /* when stalled (polls >= TM_STALL_POLLS, nothing pending): the first
                             federate it waits for (tm_stall_waits_for), 0 if none / not
                             stalled. polls and waits_for are absent from a 70-byte record
                             (an older RTI): read as 0 */
};

/* ---- catalogue ------------------------------------------------------------------------ */

/** Name of a message type for logs ("UPDATE"); "UNKNOWN" for any other value.
 *  @return a static string, never NULL. */
const char *wire_type_name(unsigned type);

/** Direction of a type.
 *  @return WIRE_DIR_C2R, WIRE_DIR_R2C or WIRE_DIR_BOTH; 0 for an unknown type. */
int wire_type_dir(unsigned type);

/** Name of a status code ("WIRE_ETRUNC"); "WIRE_E?" for an unknown code.
 *  @return a static string, never NULL. */
const char *wire_strerror(int status);

/** Does an RTI→client frame of this type carry federation state (a delivery, discovery,
 *  grant, announcement, notice or asynchronous refusal), as opposed to an answer to the
 *  client's own request (REPLY, TIME_STATUS, PONG, HELLO_OK, JOIN_OK), a PING or a
 *  checkpoint message? Across a save the RTI holds state frames for a federate that has
 *  saved, and both sides count them (doc/checkpoint.md "The cut").
 *  @return 1 or 0 (0 for client→RTI and unknown types). */
int wire_type_state(unsigned type);

/* ---- messages ------------------------------------------------------------------------- */

/** Zero @p m, set its type, and set time and time2 to WIRE_TIME_NONE.
 *  @param m     message to fill (not NULL)
 *  @param type  enum wire_type (not checked here; the encoder checks it) */
void wire_msg_init(struct wire_msg *m, unsigned type);

/** Append one frame holding @p m to @p out (so many frames can be batched into one write).
 *  Checks the message against its type's layout first; on any error out is left unchanged.
 *  @param out        growable output buffer (not NULL); frames are appended at out->len
 *  @param m          message (not NULL); its pointers are only read
 *  @param max_frame  largest frame allowed, header included (0 = WIRE_MAX_FRAME_DEFAULT;
 *                    values below WIRE_MAX_FRAME_MIN are raised to it, as in wire_split)
 *  @param err        caller-owned buffer for the reason (may be NULL when errlen == 0)
 *  @param errlen     size of err
 *  @return WIRE_OK; WIRE_ETYPE unknown type; WIRE_EFIELD a field the type does not carry is
 *          set, a code out of range, a NUL inside a text slot, bad magic in HELLO or a
 *          TIME_STATUS value that is not WIRE_TSTAT_SIZE bytes; WIRE_ETOOBIG the frame would
 *          exceed max_frame; WIRE_EUSAGE NULL arguments or a count with a NULL array and no
 *          raw form; WIRE_ENOMEM the buffer could not grow. */
int wire_encode(struct buf *out, const struct wire_msg *m, uint32_t max_frame, char *err,
                size_t errlen);

/** Frame splitter: is a complete frame at the start of @p p?
 *  Looks only at the header, so a length over @p max_frame is refused as soon as the
 *  8 header bytes are there, before any of the body is read.
 *  @param p          stream bytes (may be NULL when n == 0)
 *  @param n          bytes available
 *  @param max_frame  largest frame accepted, header included (0 = WIRE_MAX_FRAME_DEFAULT;
 *                    values below WIRE_MAX_FRAME_MIN are raised to it)
 *  @param frame_len  out (may be NULL): the frame's size (header + body), set as soon as the
 *                    header is complete, i.e. also when 0 is returned because the body is not
 *  @param err        caller-owned reason buffer (may be NULL when errlen == 0)
 *  @return 1 a frame of *frame_len bytes is complete; 0 more bytes are needed;
 *          WIRE_ETOOBIG the announced length is over max_frame (close the connection). */
int wire_split(const uint8_t *p, size_t n, uint32_t max_frame, size_t *frame_len, char *err,
               size_t errlen);

/** Decode exactly one frame (as delimited by wire_split) into @p m WITHOUT allocating.
 *  Every length and count is checked against the body before use; values and handles are
 *  fully validated here, so iterating them later cannot fail. Strings, values and handles
 *  of @p m point into @p frame, which must outlive every use of @p m.
 *  The decoder does not check direction or session state (see wire_type_dir()).
 *  @param frame  the frame bytes, header included (may be NULL when len == 0)
 *  @param len    bytes at frame; must equal 8 + body_length
 *  @param m      out: the message (not NULL); on error it is reset as by wire_msg_init
 *                (keeping the type when the header named a known one)
 *  @param err    caller-owned reason, naming the field and byte offset (e.g.
 *                "UPDATE: values[2].len 4000 overruns the body at offset 52")
 *  @return WIRE_OK; WIRE_ETRUNC frame shorter than its header/body_length or a field past
 *          the end of the body; WIRE_ETRAIL bytes after the last field, or len larger than
 *          the frame; WIRE_ETYPE unknown type; WIRE_EFLAGS nonzero flags; WIRE_EFIELD
 *          an invalid field value (see wire_encode); WIRE_EUSAGE m is NULL. */
int wire_decode(const uint8_t *frame, size_t len, struct wire_msg *m, char *err, size_t errlen);

/** Start iterating the values of @p m (decoded or encode form). */
void wire_value_iter_init(struct wire_value_iter *it, const struct wire_msg *m);

/** Next value into @p out (pointers into the frame for a decoded message).
 *  @return 1 a value was stored; 0 no more values. */
int wire_value_next(struct wire_value_iter *it, struct wire_value *out);

/** Copy up to @p cap values of @p m into the caller's array @p out (no allocation).
 *  @return the number of values in the message (may exceed cap: then only cap stored). */
uint32_t wire_msg_values(const struct wire_msg *m, struct wire_value *out, uint32_t cap);

/** Handle number @p i (< m->nhandles) of a decoded or encode-form message; 0 if out of range. */
uint32_t wire_msg_handle(const struct wire_msg *m, uint32_t i);

/** Copy a string field into a NUL-terminated C string.
 *  @param s    field (not NULL)
 *  @param dst  destination (not NULL), @p cap bytes (cap >= 1)
 *  @return 0 copied whole; -1 truncated to cap - 1 bytes (still terminated). */
int wire_str_copy(const struct wire_str *s, char *dst, size_t cap);

/** Set a string field from a C string (NULL = empty). @return 0, or -1 if over UINT32_MAX. */
int wire_str_set(struct wire_str *s, const char *cstr);

/** Compare a string field with a C string. @return 1 when equal, else 0. */
int wire_str_eq(const struct wire_str *s, const char *cstr);

/* ---- TIME_STATUS records --------------------------------------------------------------- */

/** Pack @p t into exactly WIRE_TSTAT_SIZE bytes at @p out (use as a value's data). */
void wire_tstat_pack(const struct wire_tstat *t, uint8_t out[WIRE_TSTAT_SIZE]);

/** Unpack a TIME_STATUS value (WIRE_TSTAT_SIZE bytes, or WIRE_TSTAT_SIZE_OLD from an older
 *  RTI: polls and waits_for 0).
 *  @return WIRE_OK, or WIRE_EFIELD when len is neither size or a strict flag is not 0/1
 *          (reason in err). */
int wire_tstat_unpack(const uint8_t *p, size_t len, struct wire_tstat *t, char *err, size_t errlen);

/* ---- logging helper ------------------------------------------------------------------- */

/** Render a cleaned-up sample of at most WIRE_HEX_MAX bytes of a bad frame for a log line:
 *  "len=N hex=54 4d 50 4f ... ascii=TMPO.. (+M more)". Non-printable bytes show as '.'.
 *  @param p    bytes (may be NULL when n == 0)
 *  @param n    number of bytes
 *  @param out  destination, always NUL-terminated when cap >= 1 (WIRE_HEX_BUFSZ is enough)
 *  @return out. */
char *wire_hex_sample(const uint8_t *p, size_t n, char *out, size_t cap);

#endif
