/* Federation log (doc/log.md): the binary record of one federation execution, its
 * buffered writer (rti/flog/flog.c, used by the RTI server) and its pure reader
 * (rti/flog/flog_read.c, used by tempo-log and the fuzz target). The byte format is specified in
 * doc/log.md; the constants below are that specification's numbers. Read doc/log.md, then
 * rti/flog/flog.c. */
#ifndef TEMPO_RTI_FLOG_H
#define TEMPO_RTI_FLOG_H

#include <stddef.h>
#include <stdint.h>

#include "rti/tm/tm.h"

/* ---- format constants (doc/log.md) ------------------------------------------------------ */

#define FLOG_MAGIC        "TEMPOLOG" /* first 8 bytes of every log file */
#define FLOG_MAGIC_LEN    8u
#define FLOG_VERSION      4u  /* the format version this code writes */
#define FLOG_VERSION_MIN  3u  /* the oldest it reads (version 3 lacks only GRANTED) */
#define FLOG_FILE_PREFIX  20u /* magic, u16 version, u16 flags, u32 header_len, u32 crc */
#define FLOG_BLOCK_PREFIX 8u  /* u32 length of the block's records, u32 crc32c of them */
#define FLOG_REC_MIN      3u  /* smallest body: u8 kind, varint federate, varint wall delta */
#define FLOG_REC_HDR_MAX  16u /* largest body part before the payload: 1 + 5 + 10 bytes */
#define FLOG_MAX_RECORD   (64u << 20) /* largest body a reader accepts (bytes) */
#define FLOG_MAX_HEADER   (64u << 20) /* largest file header a reader accepts (bytes) */
#define FLOG_ERR_LEN      256         /* a buffer this big holds every message of this module */
#define FLOG_FLUSH_BYTES                                                                           \
    (64u << 10) /* the writer ends a block and writes once this much                               \
                   is buffered */
#define FLOG_MAX_BLOCK                                                                             \
    (FLOG_MAX_RECORD + FLOG_FLUSH_BYTES + 64u) /* largest block a                                  \
                   reader accepts: what one flush can hold */
#define FLOG_AGAIN_MAX                                                                             \
    1024u                   /* frames up to this size are kept in the ring that                    \
                               SENT_AGAIN and DELIVERED_AGAIN name */
#define FLOG_AGAIN_RING 32u /* how many recent frames the ring holds */

/* The texts of the NOTE records (fed 0) that tempo-log reads as facts (doc/log.md, 1.4). */
#define FLOG_NOTE_CLOSED "federation destroyed" /* the RTI's closing record: the log is whole */
#define FLOG_NOTE_ALIVE  "rti alive"            /* written when no record came for a second */
/* Notes of checkpoints (doc/log.md "Saves and restores"): each note's text starts with one of
 * these words, then the label in quotes and the save time in ticks. */
#define FLOG_NOTE_SAVE        "save"          /* a save was requested (fed = the requester) */
#define FLOG_NOTE_SAVED       "saved"         /* ... then ": FOLDER" */
#define FLOG_NOTE_SAVE_FAILED "save failed"   /* ... then ": what failed" */
#define FLOG_NOTE_RESTORED    "restored from" /* first note of a restored federation's log */
#define FLOG_NOTE_REJOINED    "rejoined"      /* a saved federate rejoined (fed = it) */
#define FLOG_ALIVE_NS         1000000000 /* quiet time after which the RTI writes FLOG_NOTE_ALIVE */

/* Record kinds (u8 on disk). Values are part of the format: never renumber, only append. */
enum flog_kind {
    FLOG_K_RECV = 1,             /* payload: one wire frame the RTI received from `fed` */
    FLOG_K_SENT = 2,             /* payload: one wire frame the RTI queued for `fed` */
    FLOG_K_JOINED = 3,           /* payload: the federate's name (handle <-> name map) */
    FLOG_K_LOST = 4,             /* payload: why the connection of `fed` ended (text) */
    FLOG_K_DECISION = 5,         /* payload: one tm_decision (doc/log.md), then its reason text */
    FLOG_K_TM_SEND = 6,          /* payload: varint ts, varint token, varint n, n x u32 receivers:
                                    the tm_send call the RTI made for a message of `fed` */
    FLOG_K_NOTE = 7,             /* payload: free text from the RTI (e.g. "log closed") */
    FLOG_K_SENT_AGAIN = 8,       /* payload: varint d >= 1. The RTI queued for `fed` the same frame
                                    bytes as the d-th most recent frame of the ring (doc/log.md):
                                    a fan-out, one update reflected to many subscribers. The reader
                                    returns it as a SENT record carrying that frame, so readers
                                    never see this kind. */
    FLOG_K_DELIVERED = 9,        /* payload: a coded DELIVER decision for `fed` and the frame the
                                    RTI queued for it, in one record (deliveries are most records).
                                    The reader returns it as two records: the DECISION, then the
                                    SENT. Readers never see this kind. */
    FLOG_K_DELIVERED_AGAIN = 10, /* payload: one or more pairs (u8 flags, varint d), each a
                              DELIVERED to `fed` whose message and frame are those of the d-th
                              most recent frame of the ring, itself stored by a DELIVERED (the
                              fan-out of one time-stamped update). Each pair is returned as a
                              DECISION and a SENT record too. */
    FLOG_K_GRANTED = 11,         /* payload: a GRANT decision as its facts (tm_grant_facts: row,
                                    asked, prev, galt, holder, queued; doc/log.md), no text: the
                                    reader returns it as a DECISION, and flog_grant_text words its
                                    reason. Version 4 on. */
    FLOG_K_END                   /* one past the last kind; not a kind */
};

/* The delivery reasons the time management gives: the rules of rti/proto/delivery.h, whose
 * text ends a DELIVER decision's reason after "<TSO|RO> message ts <t> from <sender>: ". A
 * DELIVER decision with a rule (or whose reason ends with one's text) is written with its code
 * (DECISION payload byte 3) and no text; the rest of the reason is the record's own fields.
 * The codes are the enum delivery_rule values: part of the format, never renumbered. */
#define FLOG_WHY_COUNT 9u /* codes 1 .. FLOG_WHY_COUNT - 1; 0 = the reason text follows */

/** The delivery reason of code @p code (1 .. FLOG_WHY_COUNT - 1), e.g. "ts <= t for TAR(t)"
 *  (delivery_rule_text); NULL for 0 or an unknown code. Static string. */
const char *flog_why_text(unsigned code);

/** The code of a DELIVER decision's full reason text @p reason (as rti/tm/tm.c formats it:
 *  "TSO message ts 10 from A: ts <= t for TAR(t)"): the table entry that ends it after ": ",
 *  for decisions that carry no rule. @return 1 .. FLOG_WHY_COUNT - 1, or 0 when none does
 *  (NULL or "" too). */
unsigned flog_why_code(const char *reason);

/* Status codes: 0 success, positive informative, negative errors. */
enum flog_status {
    FLOG_OK = 0,
    FLOG_STOPPED = 1,   /* writer: logging stopped after an earlier error; call ignored */
    FLOG_EIO = -1,      /* a system call failed (open, write, fsync, close): err says which */
    FLOG_ENOMEM = -2,   /* the buffer could not grow; logging stopped */
    FLOG_EUSAGE = -3,   /* bad arguments (NULL, kind out of range, text over 4 GiB) */
    FLOG_EMAGIC = -4,   /* reader: not a federation log (magic) */
    FLOG_EVERSION = -5, /* reader: a format version this reader does not know */
    FLOG_ETRUNC = -6,   /* reader: the data ends inside the header or a record */
    FLOG_ECRC = -7,     /* reader: checksum mismatch (header or record) */
    FLOG_ECORRUPT = -8  /* reader: a length or field is impossible */
};

/** Name of a status code ("FLOG_ETRUNC"); "FLOG_E?" otherwise. Static string. */
const char *flog_strerror(int status);

/** Name of a record kind ("RECV", "DECISION"); "?" for an unknown kind. Static string. */
const char *flog_kind_name(unsigned kind);

/** Parse a kind name (case-insensitive) as printed by flog_kind_name.
 *  @return the kind, or 0 when the name is not a kind. */
unsigned flog_kind_parse(const char *name);

/** CRC-32C (Castagnoli: reflected polynomial 0x82F63B78, initial value and final XOR
 *  0xFFFFFFFF; check value of "123456789" is 0xE3069283) of @p n bytes, continuing from
 *  @p crc (0 to start). Uses the SSE4.2 instruction when the CPU has it (about 0.1 ns per
 *  byte), else flog_crc32c_soft. */
uint32_t flog_crc32c(uint32_t crc, const void *p, size_t n);

/** The portable implementation (slicing-by-8 tables, about 0.5 ns per byte); same results as
 *  flog_crc32c. Exposed so that tests can compare both paths. */
uint32_t flog_crc32c_soft(uint32_t crc, const void *p, size_t n);

/** Format a message into the caller's buffer @p err (when err is not NULL and errlen > 0)
 *  and return @p status: the error helper shared by the writer and the reader (defined in
 *  flog_read.c, which every program linking flog.c links too).
 *  @return status, unchanged. */
int flog_fail(int status, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- writer (rti/flog/flog.c) -------------------------------------------------------------------
 */

/** What the file header holds. Strings are copied into the header at open. */
struct flog_info {
    const char *federation; /* federation name (not NULL) */
    const char *fom_text;   /* the FOM XML the federation was created with (may be NULL) */
    size_t fom_len;         /* bytes of fom_text */
    const char *resolution; /* seconds per tick as text ("1e-09"); NULL = "1e-09" */
    int64_t start_wall_ns;  /* ns since the Unix epoch; 0 = now */
};

/** Clock used for record stamps: ns since the Unix epoch. Tests install a fake one. */
typedef int64_t (*flog_clock)(void *ctx);

struct flog; /* opaque writer */

/** Create a log file at @p path (O_EXCL: an existing file is never overwritten) and write
 *  its header.
 *  @param out   receives the writer (caller frees with flog_close). Not NULL.
 *  @param path  file to create (not NULL).
 *  @param info  header contents (not NULL; info->federation not NULL).
 *  @return FLOG_OK; FLOG_EUSAGE; FLOG_EIO (open/write failed: err names the call, the path
 *          and strerror); FLOG_ENOMEM. Nothing is left allocated on error.
 *  @see flog_close */
int flog_open(struct flog **out, const char *path, const struct flog_info *info, char *err,
              size_t errlen);

/** Same as flog_open, with the file created in directory @p dir under a fresh name
 *  "<federation>-<YYYYMMDDTHHMMSS>Z-<pid>-<n>.tlog" (characters outside [A-Za-z0-9._-] of
 *  the federation name become '_'). The chosen path is copied to @p path_out when not NULL.
 *  @return as flog_open (FLOG_EIO also when the path would not fit path_cap). */
int flog_open_dir(struct flog **out, const char *dir, const struct flog_info *info, char *path_out,
                  size_t path_cap, char *err, size_t errlen);

/** Replace the clock used for record stamps (NULL restores CLOCK_REALTIME). */
void flog_set_clock(struct flog *l, flog_clock clock, void *ctx);

/* Record calls. Each appends one record to the in-memory buffer (the file is written when
 * FLOG_FLUSH_BYTES accumulate, on flog_flush and on flog_close). Each returns FLOG_OK; the
 * negative status of the failure (FLOG_EIO, FLOG_ENOMEM) exactly once, on the call during
 * which logging stopped (flog_error() then says why: log it once and carry on); FLOG_STOPPED
 * on every later call (nothing is done); FLOG_EUSAGE for bad arguments (nothing recorded).
 * @p l may be NULL: then they do nothing and return FLOG_STOPPED, so a server can call them
 * unconditionally. None of them allocates once the buffer has grown to its working size, except
 * flog_tm_send for more than 64 receivers on a big-endian host (a scratch array, freed before
 * it returns). */

/** A frame received from (FLOG_K_RECV) or queued for (FLOG_K_SENT) federate @p fed
 *  (0 = a connection not joined yet). The bytes are copied. */
int flog_frame(struct flog *l, enum flog_kind dir, uint32_t fed, const uint8_t *frame, size_t len);

/* Shared secrets never reach the file (doc/log.md "Secrets"): a frame received from a client
 * that carries one is logged with the secret replaced by one of these notes, which readers
 * show as they are; a log written before they existed holds the bytes, which readers replace
 * by FLOG_SECRET_HIDDEN. */
#define FLOG_SECRET_MATCHED "(secret presented: it matched)"
#define FLOG_SECRET_WRONG   "(secret presented: it did not match)"
#define FLOG_SECRET_UNUSED  "(secret presented: the RTI requires none)"
#define FLOG_SECRET_HIDDEN  "(secret presented: not shown)"

/** The text slot (str index) that carries the shared secret in a client frame of this wire
 *  type: 3 for JOIN, 2 for CREATE_FEDERATION, 1 for DESTROY_FEDERATION; -1 for any other. */
int flog_secret_slot(unsigned type);

/** What a reader shows for the secret slot of a logged frame: the writer's note when it is
 *  one (above), else FLOG_SECRET_HIDDEN (never the bytes). Never NULL. */
const char *flog_secret_text(const char *p, size_t n);

struct wire_msg; /* rti/proto/wire.h */

/**
 * flog_frame(FLOG_K_RECV) for a client frame, with its shared secret (flog_secret_slot, when
 * one was given) replaced by @p verdict: the frame is encoded again without the secret's
 * bytes, so the log records that a secret was presented and whether it matched, never the
 * secret. A frame of another type, or without a secret, is logged as it came.
 * @param m the frame decoded (its text slots point into @p frame); not NULL.
 * @param verdict FLOG_SECRET_MATCHED, FLOG_SECRET_WRONG or FLOG_SECRET_UNUSED.
 * Allocates a scratch buffer for the frames it rewrites (joins, creates, destroys: never
 * the hot path). Returns as flog_frame; FLOG_ENOMEM when it cannot rewrite (nothing logged).
 */
int flog_frame_client(struct flog *l, uint32_t fed, const uint8_t *frame, size_t len,
                      const struct wire_msg *m, const char *verdict);

/** Federate @p fed joined under @p name (not NULL). */
int flog_joined(struct flog *l, uint32_t fed, const char *name);

/** The connection of @p fed ended without a RESIGN; @p reason (may be NULL) says why. */
int flog_lost(struct flog *l, uint32_t fed, const char *reason);

/** A time-management decision, as the tm sink receives it (rti/tm/tm.h); d->fed becomes the
 *  record's federate. Every field is stored as a varint. A DELIVER whose rule
 *  (tm_decision.rule) or, without a rule, whose reason (flog_why_code) is a known delivery
 *  reason is written as that code without the text (about 10 payload bytes instead of about
 *  90: deliveries are most decisions). A DELIVER whose frame is sent goes through flog_delivered
 * instead. A GRANT with facts (tm_decision.grant) is written as FLOG_K_GRANTED: those and no text
 *  (about 8 payload bytes instead of about 60), so the server may turn grant reasons off
 *  (tm_set_grant_reasons) and spare the formatting; its holder must then have been computed
 *  (tm_set_reasons on). */
int flog_decision(struct flog *l, const tm_decision *d);

/** A DELIVER decision @p d and the frame the RTI queues for its receiver because of it (the
 *  @p len bytes at @p frame), as one record: FLOG_K_DELIVERED, or FLOG_K_DELIVERED_AGAIN of
 *  a few bytes when the same message went to another receiver recently with the same bytes
 *  (the fan-out of one time-stamped update). Readers get the same two records as from
 *  flog_decision(d) followed by flog_frame(FLOG_K_SENT, d->fed, frame, len), which is what
 *  this does for a DELIVER without a rule or a known reason. Counts as two records (flog_records).
 *  @return as the other record calls; FLOG_EUSAGE when d is not a DELIVER. */
int flog_delivered(struct flog *l, const tm_decision *d, const uint8_t *frame, size_t len);

/** The tm_send call the RTI makes for a time-stamped or receive-order message: the same
 *  arguments (sender, ts, receivers, token). Lets tempo-log re-run the time management
 *  exactly (doc/log.md, "explain"). */
int flog_tm_send(struct flog *l, uint32_t sender, int64_t ts, const uint32_t *receivers, size_t n,
                 uint64_t token);

/** Free text (e.g. "federation destroyed"); @p fed may be 0. */
int flog_note(struct flog *l, uint32_t fed, const char *text);
/** A note with data: @p text, its NUL, then @p n bytes (a restored federation's first note
 *  carries its time-management state, tm_save's bytes, so that tempo-log explain starts from
 *  it: doc/log.md "Saves and restores"). FLOG_EUSAGE when it exceeds a record. */
int flog_note_data(struct flog *l, uint32_t fed, const char *text, const void *data, size_t n);

/** Give every record appended until the matching flog_release_stamp one stamp, read from the
 *  clock now: the RTI holds it while it handles one received frame, whose records would read
 *  the same cached loop time anyway (one clock call instead of one per record). Holds nest.
 *  NULL l: nothing. */
void flog_hold_stamp(struct flog *l);

/** End one flog_hold_stamp. NULL l, or no hold: nothing. */
void flog_release_stamp(struct flog *l);

/** Stamp of the last record appended (the header's start before any): ns since the epoch.
 *  NULL l gives 0. The RTI compares it with the clock to write FLOG_NOTE_ALIVE. */
int64_t flog_last_stamp(const struct flog *l);

/** Write the buffered records now (call it from a timer, e.g. every 200 ms, so that a crash
 *  loses at most that much). Cost: one write(2) when records are buffered, nothing else.
 *  @return as the record calls. */
int flog_flush(struct flog *l);

/** Why logging stopped ("" while it runs). Valid until flog_close. NULL l gives "". */
const char *flog_error(const struct flog *l);

/** Records appended so far (as a reader counts them: a DELIVERED record is two). */
uint64_t flog_records(const struct flog *l);

/** Flush, close the file and free the writer. Accepts NULL (returns FLOG_OK).
 *  @return FLOG_OK; FLOG_EIO when the final write or close failed (err says which; the
 *          writer is freed anyway); the stored failure when logging had stopped earlier. */
int flog_close(struct flog *l, char *err, size_t errlen);

/* ---- reader (rti/flog/flog_read.c): pure functions over bytes, nothing allocated ------------- */

/** The file header. Strings point into the caller's bytes (not NUL-terminated). */
struct flog_header {
    uint16_t version;       /* FLOG_VERSION */
    uint32_t header_len;    /* bytes of the header, prefix included: records start here */
    int64_t start_wall_ns;  /* ns since the epoch */
    const char *federation; /* federation name */
    uint32_t federation_len;
    const char *resolution; /* seconds per tick as text */
    uint32_t resolution_len;
    const char *fom; /* FOM XML text (fom_len may be 0) */
    uint32_t fom_len;
};

/** A DECISION payload decoded (the fields of tm_decision, rti/tm/tm.h). */
struct flog_decision {
    uint8_t kind;         /* enum tm_kind */
    uint8_t req;          /* enum tm_req (GRANT) */
    uint8_t tso;          /* DELIVER: 1 TSO, 0 RO */
    int32_t code;         /* REFUSED: TM_E* status */
    int64_t time;         /* ticks, or TM_NO_TIME */
    uint32_t sender;      /* DELIVER/DISCARD: sending federate */
    uint64_t seq;         /* DELIVER/DISCARD: the sender's send sequence */
    uint64_t token;       /* DELIVER/DISCARD: the server's message token */
    uint8_t why;          /* DELIVER: the reason's code (flog_why_text), 0 = text recorded */
    tm_grant_facts grant; /* GRANT stored as GRANTED: its facts (reason_len is 0: word them
                           with flog_grant_text); grant.row == TM_GROW_NONE when the reason
                           text was recorded instead. grant.prev is TM_NO_TIME but for an FQR
                           row (the only row whose reason says it) */
    const char *reason;   /* reason text (not NUL-terminated): into the caller's bytes, or for
                             why != 0 the static flog_why_text(why) (the rest of the reason,
                             type, time and sender, are the fields above) */
    uint32_t reason_len;
};

/** A TM_SEND payload decoded. */
struct flog_tm_send {
    int64_t ts;               /* time stamp, TM_NO_TIME for receive order */
    uint64_t token;           /* the server's message token */
    uint32_t n;               /* receivers */
    const uint8_t *receivers; /* n x u32 little-endian, into the caller's bytes */
};

/** One record. Pointers point into the caller's bytes (or, for a frame named by SENT_AGAIN or
 *  DELIVERED_AGAIN, into the earlier record that stored it). */
struct flog_record {
    uint64_t index;         /* 1 for the first record of the file, 2, ... */
    uint64_t offset;        /* byte offset in the file of the stored record (its length
                               varint); the DECISION and SENT a DELIVERED record stands for
                               share it */
    uint8_t kind;           /* enum flog_kind: never SENT_AGAIN, DELIVERED(_AGAIN) */
    uint32_t fed;           /* federate handle (0 = none / not joined yet) */
    uint64_t seq;           /* sequence number: the order the RTI appended the records in
                               (equal to index: the format stores none) */
    int64_t wall_ns;        /* wall-clock stamp, ns since the epoch (stored as the difference
                               to the previous stored record's) */
    const uint8_t *payload; /* kind-specific bytes (doc/log.md); for a DECISION from a
                               DELIVERED record, its coded fields */
    uint32_t payload_len;
    struct flog_decision dec; /* filled for FLOG_K_DECISION */
    struct flog_tm_send send; /* filled for FLOG_K_TM_SEND */
};

/** One frame of the ring that SENT_AGAIN and DELIVERED_AGAIN name (doc/log.md). */
struct flog_ring_entry {
    const uint8_t *frame; /* into the caller's bytes */
    uint32_t len;
    uint8_t has_msg; /* 1: stored by a DELIVERED, whose message fields follow */
    int64_t time;
    uint32_t sender;
    uint64_t seq, token;
};

/** Reading position in a log held in memory. */
struct flog_reader {
    const uint8_t *p;     /* the log bytes (caller-owned, must outlive the reader) */
    size_t n;             /* bytes at p */
    size_t off;           /* next stored record's offset (or the next block's prefix) */
    size_t blk_end;       /* end of the current block's records (== off: at a block start) */
    int blk_cut;          /* 1: the current block is cut short (its records are unchecked) */
    uint64_t count;       /* records returned so far */
    int64_t last_wall_ns; /* stamp of the last record returned (start_wall_ns before) */
    struct flog_ring_entry ring[FLOG_AGAIN_RING]; /* recent frames (SENT_AGAIN, DELIVERED_AGAIN) */
    uint32_t ring_n;    /* frames pushed so far (the newest: (ring_n - 1) % FLOG_AGAIN_RING) */
    int pending;        /* 1: `next` is the SENT half of a delivery, returned next */
    const uint8_t *run; /* the payload of a DELIVERED_AGAIN whose later pairs are still to
                           be returned (from run_at; none once run_at == run_len) */
    uint32_t run_len, run_at;
    struct flog_record run_rec; /* that record as stored: the header of its pairs' records */
    struct flog_record next;
    struct flog_header hdr; /* filled by flog_reader_init */
};

/** Check the magic and version and decode the header. The version is checked before
 *  anything after it, so a newer log is refused as such, not as corrupt.
 *  @param r  reader to set up (not NULL); p/n the whole log (p may be NULL when n == 0)
 *  @return FLOG_OK; FLOG_EMAGIC; FLOG_EVERSION ("log format version 7 is not supported (this
 *          reader knows version 3)"; versions 1 and 2 too);
 *          FLOG_ETRUNC (data ends inside the header: err gives the byte offset);
 *          FLOG_ECRC; FLOG_ECORRUPT (a length inside the header overruns it);
 *          FLOG_EUSAGE (r NULL). */
int flog_reader_init(struct flog_reader *r, const uint8_t *p, size_t n, char *err, size_t errlen);

/** Decode the next record. Every length is checked before use; a block's checksum is checked
 *  before its first record is returned; on any error the reader does not advance (calling
 *  again gives the same error). The records of a block cut short (a crash while writing, a
 *  copy of a log being written) are returned up to the cut without a checksum to check.
 *  @return 1 a record is in *rec; 0 clean end of the log (at a block boundary);
 *          FLOG_ETRUNC the log is cut inside record N (err: "log cut at byte offset X inside
 *          record N ..."); FLOG_ECRC the block holding record N fails its checksum;
 *          FLOG_ECORRUPT an impossible length, kind or field in record N; FLOG_EUSAGE. */
int flog_reader_next(struct flog_reader *r, struct flog_record *rec, char *err, size_t errlen);

/** Word the reason of a GRANT decision stored as GRANTED (dec.grant.row != 0), as the RTI's time
 *  management words it (tm_grant_text): "TAR(10): GALT (12, strict) > 10, held by B".
 *  Defined in rti/flog/flog.c, not in the libc-only reader: it links rti/tm/tm.c for the wording.
 *  @p fed_name names the granted federate, @p holder_name dec.grant.holder (NULL: "nobody").
 *  @return bytes written to buf (NUL excluded, truncated to cap - 1); 0 and "" when dec has
 *          no row. */
size_t flog_grant_text(char *buf, size_t cap, const struct flog_decision *dec, const char *fed_name,
                       const char *holder_name);

/** Receiver number @p i (< s->n) of a TM_SEND record. */
uint32_t flog_tm_send_receiver(const struct flog_tm_send *s, uint32_t i);

/** Read a whole file into memory (for tempo-log). Only a regular file is read (a device,
 *  FIFO, socket or folder is refused without blocking); its first 8 bytes must be the magic
 *  before anything else is read; memory is the file's size at open, whatever it does after.
 *  @param data  receives a malloc'ed copy (caller frees); len its size
 *  @return FLOG_OK; FLOG_EIO (err names the call or "not a regular file", and the path);
 *          FLOG_EMAGIC (not a federation log); FLOG_ENOMEM. */
int flog_load_file(const char *path, uint8_t **data, size_t *len, char *err, size_t errlen);

#endif
