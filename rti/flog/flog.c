/* Federation log writer: appends compact binary records to an in-memory buffer and hands it,
 * as one checksummed block, to a writer thread that writes it with one write(2) (doc/log.md;
 * cost model on the RTI's thread: one memcpy per record, one buffer swap per FLOG_FLUSH_BYTES
 * or per timer tick; the disk never stalls the event loop unless the writer is a whole block
 * behind). A write error stops
 * logging for this federation and is reported once; the RTI carries on. Byte format:
 * doc/log.md. Read rti/flog/flog.h first; the reader is rti/flog/flog_read.c. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rti/flog/flog.h"
#include "rti/proto/buf.h"
#include "rti/proto/outfile.h"
#include "rti/proto/wire.h"

#define TOKEN_BITS                                                                                 \
    10u /* the token table has 2^TOKEN_BITS entries: few collisions among the                      \
           messages in flight (a collision only costs a frame stored again) */
#define TOKEN_SLOTS (1u << TOKEN_BITS)

struct flog {
    int fd;                 /* the log file, -1 once closed */
    int64_t last_wall;      /* stamp of the last record (the header's start before): records
                               store the difference to it */
    struct buf out;         /* records not yet written; storage reused (only grows) */
    uint64_t seq;           /* records appended so far, as a reader counts them */
    int block_open;         /* 1: out holds an open block (all of out, prefix first) */
    int stopped;            /* 1: an error stopped logging; calls return FLOG_STOPPED */
    int status;             /* the negative status that stopped it */
    flog_clock clock;       /* record stamps; NULL = CLOCK_REALTIME */
    void *clock_ctx;        /* passed to clock */
    char path[512];         /* for messages (truncated when longer) */
    char err[FLOG_ERR_LEN]; /* why logging stopped, "" while it runs */
    int hold;               /* > 0: records take held_wall (flog_hold_stamp) */
    int64_t held_wall;
    size_t rec_at; /* offset in out of the last record appended */
    size_t run_at; /* offset in out of the DELIVERED_AGAIN record that a delivery to
                      run_fed with the same stamp extends by one pair; 0: none (it
                      must be the last record of the open block) */
    uint32_t run_fed;
    /* The ring (doc/log.md): the last FLOG_AGAIN_RING frames stored in full by SENT or
     * DELIVERED records (of at most FLOG_AGAIN_MAX bytes), newest at
     * (ring_n - 1) % FLOG_AGAIN_RING. A SENT frame equal to one of them is logged as
     * SENT_AGAIN naming it, a delivery of the same message with the same bytes as
     * DELIVERED_AGAIN (the fan-out of one update). Candidates are picked by the CRC-32C of a
     * SENT frame, by the message token of a delivery. */
    uint32_t ring_n; /* frames pushed so far */
    struct ring_slot {
        uint32_t len;    /* bytes of the frame */
        uint32_t crc;    /* flog_crc32c of it, when has_crc */
        uint8_t has_crc; /* stored by SENT (a DELIVERED frame is not hashed) */
        uint8_t has_msg; /* stored by DELIVERED: the message fields below are set */
        int64_t time;
        uint32_t sender;
        uint64_t seq, token;
    } slot[FLOG_AGAIN_RING];
    uint8_t ring[FLOG_AGAIN_RING][FLOG_AGAIN_MAX]; /* the frames */
    /* Where the last DELIVERED frame of a message token went: a direct-mapped table, so
     * that a delivery finds its candidate without scanning the ring (its entry may be stale
     * or overwritten: the slot's own fields decide). */
    uint64_t tok_key[TOKEN_SLOTS];
    uint32_t tok_at[TOKEN_SLOTS]; /* ring_n after the push */
    /* The writer thread and what it shares with the RTI's thread (under mu). Only the RTI's
     * thread touches everything above (err included); the writer touches wbuf while wfull
     * and fd. */
    int threaded; /* 1: the writer thread runs; 0: blocks are written inline */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* both ways: a block to write, a block written */
    struct buf wbuf;   /* the block handed to the writer (swapped with out) */
    int wfull;         /* 1: wbuf holds a block not written yet */
    int wquit;         /* 1: flog_close asked the writer to end */
    int werrno;        /* errno of the writer's first failed write; 0: none */
};

/* ---- helpers ----------------------------------------------------------------------------- */

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static int64_t now_ns(const struct flog *l)
{
    if (l->clock) return l->clock(l->clock_ctx);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Write all of p[0..n) to fd, retrying short writes and EINTR. 0, or -1 with errno set. */
static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Stop logging with a negative status; returns it (the one-time report). */
static int stop(struct flog *l, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int stop(struct flog *l, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->err, sizeof l->err, fmt, ap);
    va_end(ap);
    l->stopped = 1;
    l->status = status;
    buf_clear(&l->out);
    l->block_open = 0;
    l->run_at = 0;
    return status;
}

/* Fill in the prefix of the block that is all of @p b: the length and the CRC-32C of its
 * records (done by the writer thread: the checksum pass stays off the event loop). */
static void seal_block(struct buf *b)
{
    size_t n = b->len - FLOG_BLOCK_PREFIX;
    put32(b->data, (uint32_t)n);
    put32(b->data + 4, flog_crc32c(0, b->data + FLOG_BLOCK_PREFIX, n));
}

static void *writer_main(void *arg)
{
    struct flog *l = arg;
    pthread_mutex_lock(&l->mu);
    for (;;) {
        while (!l->wfull && !l->wquit)
            pthread_cond_wait(&l->cv, &l->mu);
        if (!l->wfull) break; /* asked to end, nothing left */
        pthread_mutex_unlock(&l->mu);
        seal_block(&l->wbuf);
        int e = write_all(l->fd, l->wbuf.data, l->wbuf.len) != 0 ? errno : 0;
        pthread_mutex_lock(&l->mu);
        if (e && !l->werrno) l->werrno = e;
        buf_clear(&l->wbuf);
        l->wfull = 0;
        pthread_cond_broadcast(&l->cv);
    }
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

/* Start the writer thread; without one (creation failed) blocks are written inline. */
static void writer_start(struct flog *l)
{
    if (pthread_mutex_init(&l->mu, NULL) != 0) return;
    if (pthread_cond_init(&l->cv, NULL) != 0) {
        pthread_mutex_destroy(&l->mu);
        return;
    }
    if (pthread_create(&l->thread, NULL, writer_main, l) != 0) {
        pthread_cond_destroy(&l->cv);
        pthread_mutex_destroy(&l->mu);
        return;
    }
    l->threaded = 1;
}

/* Let the writer finish the block it holds, end it, and say how its writes went (errno). */
static int writer_stop(struct flog *l)
{
    if (!l->threaded) return 0;
    pthread_mutex_lock(&l->mu);
    l->wquit = 1;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
    pthread_join(l->thread, NULL);
    pthread_cond_destroy(&l->cv);
    pthread_mutex_destroy(&l->mu);
    l->threaded = 0;
    return l->werrno;
}

static int write_failed(struct flog *l, int e)
{
    return stop(l, FLOG_EIO, "federation log %s: write failed: %s; logging stopped", l->path,
                strerror(e));
}

/* End the open block and have it written: handed to the writer thread (waiting only while it
 * still writes the previous one), or written here without one. A failure of an earlier write
 * by the thread is reported now. */
static int do_flush(struct flog *l)
{
    if (!l->block_open) return FLOG_OK; /* nothing buffered */
    l->block_open = 0;
    l->run_at = 0;
    if (!l->threaded) {
        seal_block(&l->out);
        if (write_all(l->fd, l->out.data, l->out.len) != 0) return write_failed(l, errno);
        buf_clear(&l->out);
        return FLOG_OK;
    }
    pthread_mutex_lock(&l->mu);
    while (l->wfull)
        pthread_cond_wait(&l->cv, &l->mu);
    int e = l->werrno;
    if (!e) {
        struct buf t = l->wbuf; /* empty, its storage kept: the next block's */
        l->wbuf = l->out;
        l->out = t;
        l->wfull = 1;
        pthread_cond_broadcast(&l->cv);
    }
    pthread_mutex_unlock(&l->mu);
    return e ? write_failed(l, e) : FLOG_OK;
}

/* Unsigned LEB128: 7 bits per byte, low first, high bit = more. @return bytes written. */
static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* Bytes put_varint writes for @p v. */
static size_t varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static uint64_t zigzag(int64_t v)
{
    uint64_t u = (uint64_t)v;
    return (u << 1) ^ (0 - (u >> 63)); /* 0 - 1 = all ones for v < 0 */
}

/* Append one record to the open block (opening one first): varint body length, then the
 * body: kind, varint federate, zigzag varint of the stamp's difference to the previous
 * record's (records of one loop pass share a stamp, so mostly 1 byte: 0), then up to two
 * payload pieces (so that a DECISION's fields and its reason text need no intermediate
 * copy). No checksum here: the block gets one when it is written. @p logical: records a
 * reader will count for it (2 for DELIVERED). */
static int append(struct flog *l, unsigned kind, uint32_t fed, const void *a, size_t alen,
                  const void *b, size_t blen, unsigned logical)
{
    if (!l || l->stopped) return FLOG_STOPPED;
    if (alen > FLOG_MAX_RECORD || blen > FLOG_MAX_RECORD ||
        alen + blen > FLOG_MAX_RECORD - FLOG_REC_HDR_MAX)
        return FLOG_EUSAGE; /* the reader would refuse it: record nothing */
    size_t need = FLOG_BLOCK_PREFIX + 5 + FLOG_REC_HDR_MAX + alen + blen;
    if (l->out.cap - l->out.len < need && buf_reserve(&l->out, need) != 0)
        return stop(l, FLOG_ENOMEM,
                    "federation log %s: out of memory for a %zu-byte record; "
                    "logging stopped",
                    l->path, FLOG_REC_HDR_MAX + alen + blen);
    if (!l->block_open) { /* out is empty: the block's prefix first, filled in at the end */
        l->block_open = 1;
        l->out.len += FLOG_BLOCK_PREFIX;
    }
    int64_t wall = l->hold ? l->held_wall : now_ns(l);
    /* two's complement difference, zigzag-mapped so that small negatives stay short */
    uint64_t zz = zigzag((int64_t)((uint64_t)wall - (uint64_t)l->last_wall));
    /* the header straight into place: its size first, for the body length before it */
    size_t body = 1 + varint_len(fed) + varint_len(zz) + alen + blen;
    uint8_t *p = l->out.data + l->out.len;
    l->rec_at = l->out.len;
    l->run_at = 0; /* a run extends only the last record */
    size_t k = put_varint(p, body);
    p[k++] = (uint8_t)kind;
    k += put_varint(p + k, fed);
    k += put_varint(p + k, zz);
    if (alen) memcpy(p + k, a, alen);
    if (blen) memcpy(p + k + alen, b, blen);
    l->out.len += k + alen + blen;
    l->seq += logical;
    l->last_wall = wall;
    if (l->out.len >= FLOG_FLUSH_BYTES) return do_flush(l);
    return FLOG_OK;
}

/* ---- open -------------------------------------------------------------------------------- */

int flog_open(struct flog **out, const char *path, const struct flog_info *info, char *err,
              size_t errlen)
{
    if (!out || !path || !info || !info->federation)
        return flog_fail(FLOG_EUSAGE, err, errlen, "flog_open: NULL argument");
    *out = NULL;
    const char *res = info->resolution ? info->resolution : "1e-09";
    size_t nlen = strlen(info->federation), rlen = strlen(res);
    size_t flen = info->fom_text ? info->fom_len : 0;
    size_t hlen = FLOG_FILE_PREFIX + 8 + 4 + nlen + 4 + rlen + 4 + flen;
    if (nlen > UINT32_MAX || rlen > UINT32_MAX || flen > FLOG_MAX_HEADER || hlen > FLOG_MAX_HEADER)
        return flog_fail(FLOG_EUSAGE, err, errlen, "flog_open %s: header of %zu bytes is too large",
                         path, hlen);
    struct flog *l = calloc(1, sizeof *l);
    if (!l) return flog_fail(FLOG_ENOMEM, err, errlen, "flog_open %s: out of memory", path);
    l->fd = -1;
    snprintf(l->path, sizeof l->path, "%s", path);
    if (buf_reserve(&l->out, hlen > FLOG_FLUSH_BYTES ? hlen : 2 * FLOG_FLUSH_BYTES) != 0) {
        free(l);
        return flog_fail(FLOG_ENOMEM, err, errlen, "flog_open %s: out of memory", path);
    }
    uint8_t *p = l->out.data;
    memcpy(p, FLOG_MAGIC, FLOG_MAGIC_LEN);
    put16(p + 8, FLOG_VERSION);
    put16(p + 10, 0);
    put32(p + 12, (uint32_t)hlen);
    int64_t start = info->start_wall_ns ? info->start_wall_ns : now_ns(l);
    put64(p + FLOG_FILE_PREFIX, (uint64_t)start);
    l->last_wall = start;
    size_t off = FLOG_FILE_PREFIX + 8;
    put32(p + off, (uint32_t)nlen);
    memcpy(p + off + 4, info->federation, nlen);
    off += 4 + nlen;
    put32(p + off, (uint32_t)rlen);
    memcpy(p + off + 4, res, rlen);
    off += 4 + rlen;
    put32(p + off, (uint32_t)flen);
    if (flen) memcpy(p + off + 4, info->fom_text, flen);
    put32(p + 16, flog_crc32c(0, p + FLOG_FILE_PREFIX, hlen - FLOG_FILE_PREFIX));
    l->out.len = hlen;

    /* Private unless the user asked otherwise (TEMPO_FILE_MODE); O_EXCL never follows a link
     * nor opens what was there (doc/log.md "Secrets", doc/run.md "Output files"). */
    unsigned mode = OUTFILE_DEFAULT_MODE;
    outfile_mode(&mode, NULL, 0); /* an invalid value was refused by the program at start */
    l->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
    if (l->fd < 0) {
        int e = errno;
        buf_fini(&l->out);
        free(l);
        return flog_fail(FLOG_EIO, err, errlen, "open %s: %s", path, strerror(e));
    }
    /* The header is written at once: a log that exists is always identifiable. */
    if (write_all(l->fd, l->out.data, l->out.len) != 0) {
        flog_fail(FLOG_EIO, err, errlen, "write %s: %s", path, strerror(errno));
        close(l->fd);
        unlink(path);
        buf_fini(&l->out);
        free(l);
        return FLOG_EIO;
    }
    buf_clear(&l->out);
    if (buf_reserve(&l->wbuf, 2 * FLOG_FLUSH_BYTES) == 0) writer_start(l);
    *out = l;
    return FLOG_OK;
}

int flog_open_dir(struct flog **out, const char *dir, const struct flog_info *info, char *path_out,
                  size_t path_cap, char *err, size_t errlen)
{
    if (!out || !dir || !info || !info->federation)
        return flog_fail(FLOG_EUSAGE, err, errlen, "flog_open_dir: NULL argument");
    char name[96];
    size_t i = 0;
    for (const char *c = info->federation; *c && i < 64; c++, i++) {
        char ch = *c;
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '.' || ch == '_' || ch == '-';
        name[i] = ok ? ch : '_';
    }
    name[i] = '\0';
    if (i == 0 || name[0] == '.') name[0] = '_', name[1] = '\0';
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tmv);
    char path[1024];
    int rc = FLOG_EIO;
    /* O_EXCL makes each attempt atomic; a counter separates federations created in the same
     * second by the same process. */
    for (unsigned n = 1; n <= 1000; n++) {
        int w = snprintf(path, sizeof path, "%s/%s-%s-%ld-%u.tlog", dir, name, stamp,
                         (long)getpid(), n);
        if (w < 0 || (size_t)w >= sizeof path || (path_out && (size_t)w >= path_cap))
            return flog_fail(FLOG_EIO, err, errlen, "federation log path in %s is too long", dir);
        rc = flog_open(out, path, info, err, errlen);
        if (rc != FLOG_EIO || access(path, F_OK) != 0) break; /* failed, not "exists" */
    }
    if (rc == FLOG_OK && path_out) snprintf(path_out, path_cap, "%s", path);
    return rc;
}

void flog_set_clock(struct flog *l, flog_clock clock, void *ctx)
{
    if (!l) return;
    l->clock = clock;
    l->clock_ctx = ctx;
}

/* ---- records ----------------------------------------------------------------------------- */

/* Push a frame just stored in full into the ring (the reader pushes the same frames). */
static struct ring_slot *ring_push(struct flog *l, const uint8_t *frame, size_t len)
{
    uint32_t k = l->ring_n % FLOG_AGAIN_RING;
    if (len) memcpy(l->ring[k], frame, len);
    struct ring_slot *e = &l->slot[k];
    memset(e, 0, sizeof *e);
    e->len = (uint32_t)len;
    l->ring_n++;
    return e;
}

static uint32_t ring_have(const struct flog *l)
{
    return l->ring_n < FLOG_AGAIN_RING ? l->ring_n : FLOG_AGAIN_RING;
}

int flog_secret_slot(unsigned type)
{
    switch (type) {
    case WIRE_JOIN:
        return 3;
    case WIRE_CREATE_FEDERATION:
        return 2;
    case WIRE_DESTROY_FEDERATION:
        return 1;
    case WIRE_RESTORE_FEDERATION:
        return 2;
    default:
        return -1;
    }
}

const char *flog_secret_text(const char *p, size_t n)
{
    static const char *const notes[] = {FLOG_SECRET_MATCHED, FLOG_SECRET_WRONG, FLOG_SECRET_UNUSED,
                                        FLOG_SECRET_HIDDEN};
    for (size_t i = 0; p && i < sizeof notes / sizeof notes[0]; i++)
        if (n == strlen(notes[i]) && memcmp(p, notes[i], n) == 0) return notes[i];
    return FLOG_SECRET_HIDDEN;
}

int flog_frame_client(struct flog *l, uint32_t fed, const uint8_t *frame, size_t len,
                      const struct wire_msg *m, const char *verdict)
{
    if (!l) return FLOG_STOPPED; /* no log: every frame of the RTI passes here, so at once */
    int slot = m ? flog_secret_slot(m->type) : -1;
    if (!l || slot < 0 || m->str[slot].len == 0) return flog_frame(l, FLOG_K_RECV, fed, frame, len);
    struct wire_msg c = *m;
    struct buf b;
    buf_init(&b);
    wire_str_set(&c.str[slot], verdict ? verdict : FLOG_SECRET_HIDDEN);
    /* No frame limit: the rewritten frame is never longer than one the RTI accepted, but the
     * note may be longer than a short secret. */
    int rc = wire_encode(&b, &c, UINT32_MAX, NULL, 0) == WIRE_OK
                 ? flog_frame(l, FLOG_K_RECV, fed, b.data, b.len)
                 : FLOG_ENOMEM;
    buf_fini(&b);
    return rc;
}

int flog_frame(struct flog *l, enum flog_kind dir, uint32_t fed, const uint8_t *frame, size_t len)
{
    if (dir != FLOG_K_RECV && dir != FLOG_K_SENT) return l ? FLOG_EUSAGE : FLOG_STOPPED;
    if (!frame && len) return FLOG_EUSAGE;
    if (dir == FLOG_K_RECV || !l || len > FLOG_AGAIN_MAX)
        return append(l, dir, fed, frame, len, NULL, 0, 1);
    /* One update reflected to N subscribers queues N identical frames, interleaved with the
     * other receivers' frames: log the first and name it from the others (doc/log.md:
     * SENT_AGAIN). Cost: one CRC of the frame and up to FLOG_AGAIN_RING integer compares. */
    uint32_t crc = flog_crc32c(0, frame, len);
    for (uint32_t d = 1; d <= ring_have(l); d++) {
        uint32_t k = (l->ring_n - d) % FLOG_AGAIN_RING;
        const struct ring_slot *e = &l->slot[k];
        if (e->has_crc && e->crc == crc && e->len == len && memcmp(l->ring[k], frame, len) == 0) {
            uint8_t v[5];
            return append(l, FLOG_K_SENT_AGAIN, fed, v, put_varint(v, d), NULL, 0, 1);
        }
    }
    int rc = append(l, FLOG_K_SENT, fed, frame, len, NULL, 0, 1);
    if (rc == FLOG_OK) {
        struct ring_slot *e = ring_push(l, frame, len);
        e->crc = crc;
        e->has_crc = 1;
    }
    return rc;
}

int flog_joined(struct flog *l, uint32_t fed, const char *name)
{
    if (!name) return l ? FLOG_EUSAGE : FLOG_STOPPED;
    return append(l, FLOG_K_JOINED, fed, name, strlen(name), NULL, 0, 1);
}

int flog_lost(struct flog *l, uint32_t fed, const char *reason)
{
    return append(l, FLOG_K_LOST, fed, reason, reason ? strlen(reason) : 0, NULL, 0, 1);
}

int flog_note(struct flog *l, uint32_t fed, const char *text)
{
    return append(l, FLOG_K_NOTE, fed, text, text ? strlen(text) : 0, NULL, 0, 1);
}

int flog_note_data(struct flog *l, uint32_t fed, const char *text, const void *data, size_t n)
{
    /* the text with its NUL, then the bytes: readers that print notes stop at the NUL */
    return append(l, FLOG_K_NOTE, fed, text, text ? strlen(text) + 1 : 0, data, n, 1);
}

/* The why code of a DELIVER decision (0: none, its text is stored). */
static unsigned deliver_code(struct flog *l, const tm_decision *d)
{
    if (d->kind != TM_D_DELIVER) return 0;
    /* the rule is the code (rti/proto/delivery.h); a decision without one (built by hand) may
     * still end its reason with a rule's words */
    if (d->rule > DELIVERY_NONE && d->rule < DELIVERY_RULE_COUNT) return d->rule;
    return flog_why_code(d->reason);
}

/* The difference b - a of two times as the format stores it: wrapping, zigzag-mapped (small
 * either way; TM_TIME_MAX and TM_NO_TIME wrap around and come back exactly). */
static uint64_t time_delta(int64_t a, int64_t b)
{
    return zigzag((int64_t)((uint64_t)b - (uint64_t)a));
}

/* A GRANT as GRANTED (doc/log.md): u8 req, u8 row | queued << 3 | strict << 4, then varints
 * zigzag(time), and asked, galt and (FQR row only) prev as differences to time, holder. */
static int granted(struct flog *l, const tm_decision *d)
{
    const tm_grant_facts *g = d->grant;
    uint8_t c[2 + 5 * 10];
    c[0] = (uint8_t)d->req;
    c[1] = (uint8_t)((unsigned)g->row | (g->queued ? 8u : 0u) | (g->galt.strict ? 16u : 0u));
    size_t n = 2;
    n += put_varint(c + n, zigzag(d->time));
    n += put_varint(c + n, time_delta(d->time, g->asked));
    n += put_varint(c + n, time_delta(d->time, g->galt.t));
    n += put_varint(c + n, g->holder);
    if (g->row == TM_GROW_FQR) n += put_varint(c + n, time_delta(d->time, g->prev));
    return append(l, FLOG_K_GRANTED, d->fed, c, n, NULL, 0, 1);
}

int flog_decision(struct flog *l, const tm_decision *d)
{
    if (!l) return FLOG_STOPPED; /* the server calls it for every decision, logging or not */
    if (!d) return FLOG_EUSAGE;
    if (d->kind == TM_D_GRANT && d->grant && d->grant->row >= TM_GROW_AT_ONCE &&
        d->grant->row <= TM_GROW_FQR)
        return granted(l, d);
    const char *why = d->reason ? d->reason : "";
    unsigned code = deliver_code(l, d);
    /* Every field as a varint (time and code zigzag-mapped): most are small or zero. A coded
     * DELIVER keeps only the code of its reason, whose start repeats the fields. */
    uint8_t c[4 + 5 * 10];
    c[0] = (uint8_t)d->kind;
    c[1] = (uint8_t)d->req;
    c[2] = d->tso ? 1 : 0;
    c[3] = (uint8_t)code;
    size_t n = 4;
    n += put_varint(c + n, zigzag(d->time));
    n += put_varint(c + n, d->sender);
    n += put_varint(c + n, d->seq);
    n += put_varint(c + n, d->token);
    n += put_varint(c + n, zigzag(d->code));
    if (code) return append(l, FLOG_K_DECISION, d->fed, c, n, NULL, 0, 1);
    return append(l, FLOG_K_DECISION, d->fed, c, n, why, strlen(why), 1);
}

/* A delivery of the ring's frame @p dist back to @p fed: one more (flags, distance) pair on
 * the DELIVERED_AGAIN record just written when it was for the same federate under the same
 * held stamp (a receiver's deliveries at a grant come in a row), else a new record. The pairs
 * of a run all count from the same ring position: DELIVERED_AGAIN pushes nothing. */
static int delivered_again(struct flog *l, uint32_t fed, uint8_t flags, uint32_t dist)
{
    uint8_t v[1 + 5];
    v[0] = flags;
    size_t n = 1 + put_varint(v + 1, dist);
    if (l->run_at && !l->stopped && l->run_fed == fed && l->hold && l->held_wall == l->last_wall &&
        l->out.cap - l->out.len >= n) {
        uint8_t *len = l->out.data + l->run_at; /* the body length: one byte, kept below 128 */
        if (*len + n < 0x80) {
            memcpy(l->out.data + l->out.len, v, n);
            *len = (uint8_t)(*len + n);
            l->out.len += n;
            l->seq += 2;
            return FLOG_OK;
        }
    }
    int rc = append(l, FLOG_K_DELIVERED_AGAIN, fed, v, n, NULL, 0, 2);
    if (rc == FLOG_OK && l->block_open && l->out.data[l->rec_at] < 0x80) {
        l->run_at = l->rec_at; /* still in the open block, its length one byte */
        l->run_fed = fed;
    }
    return rc;
}

int flog_delivered(struct flog *l, const tm_decision *d, const uint8_t *frame, size_t len)
{
    if (!l) return FLOG_STOPPED;
    if (!d || d->kind != TM_D_DELIVER || (!frame && len)) return FLOG_EUSAGE;
    unsigned code = deliver_code(l, d);
    if (!code) { /* its text must be stored: the two records the reader returns anyway */
        int rc = flog_decision(l, d);
        return rc == FLOG_OK ? flog_frame(l, FLOG_K_SENT, d->fed, frame, len) : rc;
    }
    uint8_t flags = (uint8_t)(code << 1 | (d->tso ? 1u : 0u));
    /* The same message delivered to another receiver with the same bytes: name it. The token
     * table picks the candidate; the slot's fields and bytes must match (tokens are reused,
     * and the ring may have moved on). Fibonacci hashing: tokens are pointers, whose low
     * bits say little. */
    uint32_t t = (uint32_t)((d->token * 0x9E3779B97F4A7C15u) >> (64 - TOKEN_BITS));
    uint32_t dist = l->ring_n - l->tok_at[t] + 1;
    if (len <= FLOG_AGAIN_MAX && l->tok_key[t] == d->token && l->tok_at[t] != 0 &&
        dist <= ring_have(l)) {
        uint32_t k = (l->ring_n - dist) % FLOG_AGAIN_RING;
        const struct ring_slot *e = &l->slot[k];
        if (e->has_msg && e->token == d->token && e->time == d->time && e->sender == d->sender &&
            e->seq == d->seq && e->len == len && memcmp(l->ring[k], frame, len) == 0)
            return delivered_again(l, d->fed, flags, dist);
    }
    uint8_t c[1 + 4 * 10];
    size_t n = 1;
    c[0] = flags;
    n += put_varint(c + n, zigzag(d->time));
    n += put_varint(c + n, d->sender);
    n += put_varint(c + n, d->seq);
    n += put_varint(c + n, d->token);
    int rc = append(l, FLOG_K_DELIVERED, d->fed, c, n, frame, len, 2);
    if (rc == FLOG_OK && len <= FLOG_AGAIN_MAX) {
        struct ring_slot *e = ring_push(l, frame, len);
        e->has_msg = 1;
        e->time = d->time;
        e->sender = d->sender;
        e->seq = d->seq;
        e->token = d->token;
        l->tok_key[t] = d->token;
        l->tok_at[t] = l->ring_n;
    }
    return rc;
}

int flog_tm_send(struct flog *l, uint32_t sender, int64_t ts, const uint32_t *receivers, size_t n,
                 uint64_t token)
{
    if (!l) return FLOG_STOPPED; /* no log: at once, before the varints */
    if ((n && !receivers) || n > (FLOG_MAX_RECORD - FLOG_REC_HDR_MAX - 30) / 4) return FLOG_EUSAGE;
    uint8_t fx[30];
    size_t h = put_varint(fx, zigzag(ts));
    h += put_varint(fx + h, token);
    h += put_varint(fx + h, n);
    /* Receivers stay fixed-size so that a reader can index them. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* the array already is the format's bytes (u32 little-endian) */
    return append(l, FLOG_K_TM_SEND, sender, fx, h, receivers, 4 * n, 1);
#else
    /* Up to 64 receivers are encoded on the stack; larger fan-outs (rare) use a heap
     * scratch, the only allocation of this module after open. */
    uint8_t small[4 * 64];
    if (n <= 64) {
        for (size_t i = 0; i < n; i++)
            put32(small + 4 * i, receivers[i]);
        return append(l, FLOG_K_TM_SEND, sender, fx, h, small, 4 * n, 1);
    }
    uint8_t *big = malloc(4 * n);
    if (!big) {
        if (!l || l->stopped) return FLOG_STOPPED;
        return stop(l, FLOG_ENOMEM, "federation log %s: out of memory; logging stopped", l->path);
    }
    for (size_t i = 0; i < n; i++)
        put32(big + 4 * i, receivers[i]);
    int rc = append(l, FLOG_K_TM_SEND, sender, fx, h, big, 4 * n, 1);
    free(big);
    return rc;
#endif
}

size_t flog_grant_text(char *buf, size_t cap, const struct flog_decision *dec, const char *fed_name,
                       const char *holder_name)
{
    if (!buf || cap == 0) return 0;
    buf[0] = '\0';
    if (!dec || dec->kind != TM_D_GRANT || dec->grant.row == TM_GROW_NONE) return 0;
    /* the engine's own wording, from the facts the record kept */
    tm_decision d = {
        .kind = TM_D_GRANT, .time = dec->time, .req = (tm_req)dec->req, .grant = &dec->grant};
    return tm_grant_text(buf, cap, &d, fed_name, holder_name);
}

void flog_hold_stamp(struct flog *l)
{
    if (l && l->hold++ == 0) l->held_wall = now_ns(l);
}

void flog_release_stamp(struct flog *l)
{
    if (l && l->hold > 0) l->hold--;
}

int64_t flog_last_stamp(const struct flog *l)
{
    return l ? l->last_wall : 0;
}

int flog_flush(struct flog *l)
{
    if (!l || l->stopped) return FLOG_STOPPED;
    return do_flush(l);
}

const char *flog_error(const struct flog *l)
{
    return l ? l->err : "";
}
uint64_t flog_records(const struct flog *l)
{
    return l ? l->seq : 0;
}

int flog_close(struct flog *l, char *err, size_t errlen)
{
    if (!l) return FLOG_OK;
    int rc = FLOG_OK;
    if (!l->stopped && do_flush(l) != FLOG_OK) rc = l->status;
    int e = writer_stop(l); /* every block handed over is written (or failed) */
    if (e && !l->stopped) rc = write_failed(l, e);
    if (l->stopped) {
        rc = l->status;
        flog_fail(rc, err, errlen, "%s", l->err);
    }
    if (l->fd >= 0 && close(l->fd) != 0 && rc == FLOG_OK)
        rc = flog_fail(FLOG_EIO, err, errlen, "close %s: %s", l->path, strerror(errno));
    buf_fini(&l->out);
    buf_fini(&l->wbuf);
    free(l);
    return rc;
}
