/* Which shared secret a run uses and how it reaches libtempo and the children
 * (federate/run/run_secret.h). A fresh secret is 32 random bytes from getrandom(2) written
 * as 64 hex digits. Serves doc/run.md. */
#include "federate/run/run_secret.h"

#include "federate/libtempo/tempo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

static int fresh_secret(char *out, size_t cap, char *err, size_t errlen)
{
    unsigned char b[32];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t n = getrandom(b + got, sizeof b - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            snprintf(err, errlen, "getrandom: %s", strerror(errno));
            return -1;
        }
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof b && 2 * i + 2 < cap; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    return 0;
}

int run_secret_apply(const char *opt_file, const char *file_key, int fresh, const char **source,
                     char *err, size_t errlen)
{
    char buf[TP_SECRET_MAX + 1];
    const char *env = getenv("TEMPO_SECRET"), *env_file = getenv("TEMPO_SECRET_FILE");
    const char *path = NULL, *src = "none";
    if (opt_file) {
        path = opt_file, src = "--secret-file";
    } else if (env && env[0]) {
        if (source) *source = "TEMPO_SECRET";
        return 0;
    } else if (env_file && env_file[0]) {
        path = env_file, src = "TEMPO_SECRET_FILE";
    } else if (file_key) {
        path = file_key, src = "secret_file";
    }
    if (path) {
        if (tp_secret_load(path, buf, sizeof buf, err, errlen) != TP_OK) return -1;
    } else if (fresh) {
        if (fresh_secret(buf, sizeof buf, err, errlen) != 0) return -1;
        src = "fresh";
    } else {
        if (source) *source = src;
        return 0;
    }
    if (setenv("TEMPO_SECRET", buf, 1) != 0) {
        snprintf(err, errlen, "setenv TEMPO_SECRET: %s", strerror(errno));
        return -1;
    }
    memset(buf, 0, sizeof buf);
    if (source) *source = src;
    return 0;
}
