/* Private to federate/config: the loader's state and the small JSON readers that fedfile.c and
 * the key readers of the algorithms (fedfile_keys.c, federate/config/fedfile_algo.h) share.
 * Read federate/config/fedfile_algo.h first.
 */
#ifndef TEMPO_FEDERATE_CONFIG_FEDFILE_IMPL_H
#define TEMPO_FEDERATE_CONFIG_FEDFILE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "federate/config/fedfile.h"

/* The loader's state: the file name for messages and the caller's error buffer. */
typedef struct fedfile_reader {
    const char *file; /* path as given */
    char *err;        /* caller's buffer */
    size_t errlen;    /* its size */
} fedfile_reader;

/* "FILE: JPATH: what" into the reader's buffer; returns FEDFILE_ESCHEMA. */
int fedfile_fail(const fedfile_reader *rd, const char *jpath, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Out of memory: the reader's error says so; returns FEDFILE_ENOMEM. */
int fedfile_oom(const fedfile_reader *rd);
/* "a string", "an array", ... for messages. */
const char *fedfile_json_kind(const json_t *v);
/* Seconds -> ticks of res, refusing values that are not whole ticks or are too large; the
 * refusal names jpath. */
int fedfile_to_ticks(const fedfile_reader *rd, const char *jpath, double s, double res,
                     int64_t *out);

/* "checkpoint" (federate/config/fedfile_ckpt.c), read after "algorithm". */
int fedfile_ckpt_parse(const fedfile_reader *rd, const json_t *root, fedfile *ff);

/* balance, energy (federate/config/fedfile_balance.c): "coupling" and "power_extrapolation"
 * read into the balance settings, resolved against the wiring once every federate is read. */
struct fedfile_balance;
struct fedfile_keys;
int fedfile_balance_parse(struct fedfile_keys *k, int energy, struct fedfile_balance **out);
int fedfile_balance_resolve(const fedfile_reader *rd, fedfile *ff);

#endif
