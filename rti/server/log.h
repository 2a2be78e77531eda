/* The RTI's text log (doc/contributing.md §9): five levels, one line per event, each naming the
 * component and the federate (and the logical time where the caller has one).
 * Serves doc/rti.md (every refusal and drop is logged with its reason). The binary
 * federation log of doc/log.md is separate. Read rti/server/conn.h next. */
#ifndef TEMPO_RTI_LOG_H
#define TEMPO_RTI_LOG_H

#include <stdio.h>

/* Levels, most severe first: a line is written when its level <= log_threshold. */
enum log_level {
    LOG_LV_ERROR = 0, /* the RTI cannot do what it must (bind failed, out of memory) */
    LOG_LV_WARN = 1,  /* a client misbehaved or was dropped */
    LOG_LV_INFO = 2,  /* lifecycle: listen, join, resign, create/destroy federation */
    LOG_LV_DEBUG = 3, /* every decision: grants with reasons, refusals, back-pressure */
    LOG_LV_TRACE = 4, /* every frame received and sent */
};

/* The process's threshold. Read by the macros (through log_enabled, which prefers the thread's
 * log_scope) before they evaluate any argument, so a disabled level costs one comparison.
 * Written only by log_set_level(). */
extern int log_threshold;

/**
 * Set the threshold: lines of level <= lv are written.
 * @param lv  one of enum log_level; values outside the range are clamped.
 */
void log_set_level(int lv);

/**
 * Parse a level name ("error", "warn", "info", "debug", "trace"; case-insensitive).
 * @param s    the name; may be NULL (then it fails).
 * @param out  receives the level on success.
 * @return 0 on success, -1 when s is not a level name (out untouched).
 */
int log_level_parse(const char *s, int *out);

/**
 * The name of a level ("error", ... "trace"), or "?" for values outside the range.
 * @return a static string.
 */
const char *log_level_name(int lv);

/**
 * Redirect the log (default stderr). The stream is not owned: the caller closes it after
 * the last line. NULL restores stderr.
 */
void log_set_stream(FILE *f);

/* A log of its own, for the code a thread runs on behalf of one RTI embedded in a federate
 * process (embed.c): while the thread has one entered, its lines go to that sink at that
 * threshold instead of the process's, so that two embedded RTIs log apart. */
struct log_scope {
    int threshold; /* lines of level <= threshold are written; -1: none */
    void (*sink)(void *ctx, int lv,
                 const char *line); /* gets every line (no newline); must not log */
    void *ctx;
};

/* The scope of the calling thread, NULL when it logs to the process's log. */
extern _Thread_local const struct log_scope *log_scope_tl;

/** Enter scope s on the calling thread (NULL: back to the process's log). Not owned. */
void log_scope_enter(const struct log_scope *s);

/** 1 when a line of level lv would be written by the calling thread. */
static inline int log_enabled(int lv)
{
    const struct log_scope *s = log_scope_tl;
    return lv <= (s ? s->threshold : log_threshold);
}

/**
 * Write one line: "<UTC time> <LEVEL> [<component>] <federate>: <message>\n", flushed.
 * Prefer the LOG* macros, which skip the call (and argument evaluation) when the level is off.
 * @param lv         the line's level.
 * @param component  short module name ("conn", "fed", "om", "tm"...); NULL prints "-".
 * @param federate   federate name, or a connection label such as "conn#3"; NULL prints "-".
 * @param fmt        printf format of the message; a trailing newline is added.
 */
void log_write(int lv, const char *component, const char *federate, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* LOG(level, component, federate, fmt, ...): check the level, then write. */
#define LOG(lv, comp, fed, ...)                                                                    \
    do {                                                                                           \
        if (log_enabled(lv)) log_write((lv), (comp), (fed), __VA_ARGS__);                          \
    } while (0)
#define LOGE(comp, fed, ...) LOG(LOG_LV_ERROR, comp, fed, __VA_ARGS__)
#define LOGW(comp, fed, ...) LOG(LOG_LV_WARN, comp, fed, __VA_ARGS__)
#define LOGI(comp, fed, ...) LOG(LOG_LV_INFO, comp, fed, __VA_ARGS__)
#define LOGD(comp, fed, ...) LOG(LOG_LV_DEBUG, comp, fed, __VA_ARGS__)
#define LOGT(comp, fed, ...) LOG(LOG_LV_TRACE, comp, fed, __VA_ARGS__)

#endif
