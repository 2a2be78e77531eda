/* The checkpoint folder (doc/checkpoint.md): one directory holding a manifest and one file per
 * part (the RTI's state, each federate's state), with a format version, a label, the logical
 * time of the save and a checksum per part. Shared by the RTI and libtempo, so it lives beside
 * the wire codec and uses only libc and POSIX.
 *
 * Writing is atomic (doc/checkpoint.md, "Atomic write"): parts go into "<dir>.tmp.<pid>", each
 * file is fsync'ed, the manifest is written last, then the folder is renamed to <dir> and its
 * parent fsync'ed. A crash at any point leaves either no <dir> or a complete one. Reading
 * verifies the whole folder before it returns anything: a foreign, damaged, truncated or newer
 * checkpoint is refused with an error naming the file and what is wrong, never half-loaded.
 *
 * Also the byte codec the parts use (little-endian, bounds-checked decoding that records the
 * first overrun instead of reading past the end; doc/contributing.md §6: errors are values).
 * Read doc/checkpoint.md first, then rti/proto/ckpt.c. */
#ifndef TEMPO_RTI_CKPT_H
#define TEMPO_RTI_CKPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rti/proto/buf.h"

#define CKPT_FORMAT       1u                 /* format version this build writes and reads */
#define CKPT_MAGIC        "tempo-checkpoint" /* first word of the manifest */
#define CKPT_MANIFEST     "MANIFEST"         /* the manifest's file name inside the folder */
#define CKPT_NAME_MAX     64u                /* bytes of a part name or label, without NUL */
#define CKPT_MAX_PARTS    4096u              /* parts in one checkpoint at most */
#define CKPT_MANIFEST_MAX (1u << 20)         /* bytes of a manifest at most */
#define CKPT_PART_MAX     ((size_t)1 << 32)  /* bytes of one part at most (4 GiB) */
#define CKPT_ERR_LEN      320u               /* a good size for the err buffers below */

/** Status codes: 0 on success, one of these (negative) otherwise. */
enum ckpt_status {
    CKPT_OK = 0,
    CKPT_EINVAL = -1,   /* bad argument: part name, label, duplicate part, NULL pointer */
    CKPT_EIO = -2,      /* the file system refused (the message carries strerror) */
    CKPT_EEXIST = -3,   /* the target folder exists already (a checkpoint is never overwritten) */
    CKPT_EFOREIGN = -4, /* not a Tempo checkpoint, or a format version this build does not read */
    CKPT_EDAMAGED = -5, /* a manifest line, a size or a checksum does not match */
    CKPT_ENOMEM = -6,
    CKPT_ENOENT = -7 /* ckpt_part: no part of that name */
};

/** True when @p s is a valid part name or label: 1..CKPT_NAME_MAX bytes of [A-Za-z0-9._-],
 *  not starting with '.', and not CKPT_MANIFEST. */
bool ckpt_name_ok(const char *s);

/** 64-bit FNV-1a of @p n bytes (the checksum of doc/checkpoint.md), continuing from @p h
 *  (start with CKPT_FNV_INIT). */
#define CKPT_FNV_INIT 0xcbf29ce484222325ull
uint64_t ckpt_fnv1a(uint64_t h, const void *p, size_t n);

/* ---- writing ----------------------------------------------------------------------------- */

struct ckpt_writer;

/** Start a checkpoint that will become folder @p dir (its parent must exist; @p dir must not).
 *  Creates "<dir>.tmp.<pid>". @p label must satisfy ckpt_name_ok; @p time is the logical time
 *  of the save in ticks.
 *  @return CKPT_OK and *out, or an error with @p err filled (nothing left on disk). */
int ckpt_begin(struct ckpt_writer **out, const char *dir, const char *label, int64_t time,
               char *err, size_t errlen);

/** Write part @p name (ckpt_name_ok, unique within the checkpoint) of @p len bytes, fsync'ed.
 *  On error the writer stays usable for ckpt_abort only. */
int ckpt_add(struct ckpt_writer *w, const char *name, const void *data, size_t len, char *err,
             size_t errlen);

/** Write the manifest, fsync, rename the temporary folder to its final name and fsync the
 *  parent. Frees @p w whatever the outcome; on error the temporary folder is removed and no
 *  folder named dir is created (CKPT_EEXIST if one appeared meanwhile). */
int ckpt_commit(struct ckpt_writer *w, char *err, size_t errlen);

/** Remove the temporary folder and free @p w. Accepts NULL. */
void ckpt_abort(struct ckpt_writer *w);

/* ---- reading ----------------------------------------------------------------------------- */

struct ckpt_reader;

/** Open and verify checkpoint folder @p dir: the manifest's magic, version, syntax and own
 *  checksum, and every part's size and checksum. Parts are loaded in memory.
 *  @return CKPT_OK and *out, or CKPT_EFOREIGN / CKPT_EDAMAGED / CKPT_EIO / CKPT_ENOMEM with
 *  @p err naming the file and the fault. */
int ckpt_open(struct ckpt_reader **out, const char *dir, char *err, size_t errlen);

/** The label, logical time (ticks) and number of parts of an open checkpoint. */
const char *ckpt_label(const struct ckpt_reader *r);
int64_t ckpt_time(const struct ckpt_reader *r);
size_t ckpt_nparts(const struct ckpt_reader *r);

/** Name of part @p i (0 <= i < ckpt_nparts), in the order they were added. */
const char *ckpt_part_name(const struct ckpt_reader *r, size_t i);

/** The bytes of part @p name, valid until ckpt_close. @return CKPT_OK or CKPT_ENOENT. */
int ckpt_part(const struct ckpt_reader *r, const char *name, const uint8_t **data, size_t *len);

/** Free @p r. Accepts NULL. */
void ckpt_close(struct ckpt_reader *r);

/* ---- the byte codec of parts -------------------------------------------------------------- */

/** Append little-endian integers and length-prefixed strings ("u32 len, bytes") to @p b.
 *  @return 0, or -1 when the buffer cannot grow. */
int ckpt_put_u8(struct buf *b, uint8_t v);
int ckpt_put_u32(struct buf *b, uint32_t v);
int ckpt_put_u64(struct buf *b, uint64_t v);
int ckpt_put_i64(struct buf *b, int64_t v);
int ckpt_put_str(struct buf *b, const char *s);

/** A decoder over @p n bytes. A get past the end returns 0 (or "") and sets bad; check bad
 *  once after a group of gets. */
struct ckpt_dec {
    const uint8_t *p;
    size_t n;   /* bytes */
    size_t off; /* next byte to read */
    bool bad;   /* a read overran, or a string was longer than its destination */
};
void ckpt_dec_init(struct ckpt_dec *d, const uint8_t *p, size_t n);
uint8_t ckpt_get_u8(struct ckpt_dec *d);
uint32_t ckpt_get_u32(struct ckpt_dec *d);
uint64_t ckpt_get_u64(struct ckpt_dec *d);
int64_t ckpt_get_i64(struct ckpt_dec *d);
/** Copy a string into @p dst of @p cap bytes (NUL-terminated); longer than cap - 1 or holding
 *  a NUL byte sets bad. */
void ckpt_get_str(struct ckpt_dec *d, char *dst, size_t cap);

#endif
