/* The RTI's text log: level threshold, level names, one formatted line per call.
 * Serves doc/rti.md (logging) and doc/contributing.md §9. Read rti/server/log.h for the contract.
 */
#include "rti/server/log.h"

#include <stdarg.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>

int log_threshold = LOG_LV_INFO;
static FILE *log_stream; /* NULL means stderr (stderr is not a constant initialiser) */

_Thread_local const struct log_scope *log_scope_tl;

void log_scope_enter(const struct log_scope *s)
{
    log_scope_tl = s;
}

static const char *const level_names[] = {"error", "warn", "info", "debug", "trace"};
static const char *const level_tags[] = {"ERROR", "WARN ", "INFO ", "DEBUG", "TRACE"};
#define N_LEVELS ((int)(sizeof level_names / sizeof level_names[0]))

void log_set_level(int lv)
{
    if (lv < LOG_LV_ERROR) lv = LOG_LV_ERROR;
    if (lv > LOG_LV_TRACE) lv = LOG_LV_TRACE;
    log_threshold = lv;
}

int log_level_parse(const char *s, int *out)
{
    if (!s) return -1;
    for (int i = 0; i < N_LEVELS; i++) {
        if (strcasecmp(s, level_names[i]) == 0) {
            *out = i;
            return 0;
        }
    }
    if (strcasecmp(s, "warning") == 0) {
        *out = LOG_LV_WARN;
        return 0;
    }
    return -1;
}

const char *log_level_name(int lv)
{
    return (lv >= 0 && lv < N_LEVELS) ? level_names[lv] : "?";
}

void log_set_stream(FILE *f)
{
    log_stream = f;
}

void log_write(int lv, const char *component, const char *federate, const char *fmt, ...)
{
    FILE *out = log_stream ? log_stream : stderr;
    struct timeval tv;
    struct tm tmv;
    char stamp[32];
    gettimeofday(&tv, NULL);
    gmtime_r(&tv.tv_sec, &tmv);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tmv);
    /* One buffered line per call, so lines from one process never interleave mid-line. */
    char line[2048];
    int n = snprintf(line, sizeof line, "%s.%03dZ %s [%s] %s: ", stamp, (int)(tv.tv_usec / 1000),
                     (lv >= 0 && lv < N_LEVELS) ? level_tags[lv] : "?    ",
                     component ? component : "-", federate ? federate : "-");
    if (n < 0) return;
    if ((size_t)n < sizeof line) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
        va_end(ap);
    }
    const struct log_scope *sc = log_scope_tl;
    if (sc) {
        sc->sink(sc->ctx, lv, line);
        return;
    }
    fprintf(out, "%s\n", line);
    fflush(out);
}
