/* The shared secret of an RTI (doc/rti.md "Shared secret"): read from a file or from the
 * environment (TEMPO_SECRET, TEMPO_SECRET_FILE), the same way by tempo-rti and libtempo, so
 * that every program takes it alike. Read rti/proto/secret.c next. */
#ifndef TEMPO_RTI_PROTO_SECRET_H
#define TEMPO_RTI_PROTO_SECRET_H

#include <stddef.h>

#define SECRET_MAX      256 /* bytes of a secret, NUL excluded */
#define SECRET_ENV      "TEMPO_SECRET"
#define SECRET_ENV_FILE "TEMPO_SECRET_FILE"

/**
 * Read a secret file: a regular file of 1..SECRET_MAX bytes (one trailing "\n" or "\r\n" is
 * dropped), without NUL bytes, that neither the group nor others may read or write (as ssh
 * demands of a key: chmod 600).
 * @param out receives the secret, NUL-terminated; cap >= SECRET_MAX + 1.
 * @return 0, or -1 with err naming the path and what is wrong.
 */
int secret_read_file(const char *path, char *out, size_t cap, char *err, size_t errlen);

/**
 * The secret from the environment: TEMPO_SECRET when set and not empty, else the file named by
 * TEMPO_SECRET_FILE (secret_read_file).
 * @return 1 with the secret in out, 0 when neither variable is set, -1 with err filled (the
 *         file named is unusable, or TEMPO_SECRET is longer than SECRET_MAX).
 */
int secret_from_env(char *out, size_t cap, char *err, size_t errlen);

#endif
