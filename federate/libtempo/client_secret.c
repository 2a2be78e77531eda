/* The shared secret on the client side: the join options, else the environment
 * (TEMPO_SECRET, TEMPO_SECRET_FILE), and tp_secret_load for programs that take a secret file.
 * Serves doc/api.md and doc/rti.md ("Shared secret"). Read client_join.c next. */
#include <stdio.h>
#include <string.h>

#include "federate/libtempo/client_impl.h"

_Static_assert(TP_SECRET_MAX == SECRET_MAX, "one limit for the public and the wire secret");

int tpi_secret(const tp_join_options *opt, char *buf, size_t cap, const char **out, char *err,
               size_t errlen)
{
    *out = NULL;
    if (opt->secret) {
        *out = opt->secret;
        return TP_OK;
    }
    char why[TPI_ERRLEN];
    int r = secret_from_env(buf, cap, why, sizeof why);
    if (r < 0) {
        if (err && errlen) snprintf(err, errlen, "%s", why);
        return TP_EINVAL;
    }
    if (r == 1) *out = buf;
    return TP_OK;
}

int tp_secret_load(const char *path, char *buf, size_t cap, char *err, size_t err_size)
{
    char why[TPI_ERRLEN];
    if (!buf || cap < TP_SECRET_MAX + 1) {
        if (err && err_size)
            snprintf(err, err_size, "tp_secret_load: buffer smaller than %d", TP_SECRET_MAX + 1);
        return TP_EINVAL;
    }
    if (secret_read_file(path, buf, cap, why, sizeof why) != 0) {
        if (err && err_size) snprintf(err, err_size, "%s", why);
        return TP_EINVAL;
    }
    return TP_OK;
}
