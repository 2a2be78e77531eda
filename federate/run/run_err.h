/* The one error helper of federate/run/ (doc/contributing.md §6): a failing function fills
 * its caller's error buffer and returns its status in one statement,
 *     return run_fail(err, errlen, SUP_ESYS, "fork: %s", strerror(errno));
 * Used by supervise.c, results.c, plot_svg.c and progress.c. */
#ifndef TEMPO_FEDERATE_RUN_RUN_ERR_H
#define TEMPO_FEDERATE_RUN_RUN_ERR_H

#include <stddef.h>

/* Format the message (printf style) into err, truncated to errlen bytes and always
 * terminated; nothing is written when err is NULL or errlen is 0. @return rc, unchanged. */
int run_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
