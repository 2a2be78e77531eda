/* libtempo's in-process RTI: tp_inproc_start and tp_inproc_stop over the embedded server core
 * (rti/server/embed.h); the transport itself is in client_conn.c (tpi_open, tpi_read,
 * tpi_flush). Serves doc/inproc.md and doc/api.md. Read rti/server/embed.c next. */
#include <stdio.h>
#include <string.h>

#include "federate/libtempo/client_impl.h"
#include "rti/server/embed.h"

/* The RTI's log is process-wide (embed.h): the last start with a callback sets it. */
static struct {
    void (*fn)(void *ctx, tp_log_level level, const char *line);
    void *ctx;
} user_log;

/* The RTI's levels and tp_log_level have the same numbers (error 0 .. trace 4). */
static void log_trampoline(void *ctx, int lv, const char *line)
{
    (void)ctx;
    user_log.fn(user_log.ctx, (tp_log_level)lv, line);
}

int tp_inproc_start(const char *name, const tp_inproc_options *opt, char *err, size_t err_size)
{
    static const tp_inproc_options zero;
    char why[300];
    if (!opt) opt = &zero;
    if (!name) name = "";
    if (strlen(name) >= EMBED_NAME_MAX) {
        if (err && err_size)
            snprintf(err, err_size, "in-process RTI name longer than %d bytes", EMBED_NAME_MAX - 1);
        return TP_EINVAL;
    }
    if (opt->log) {
        user_log.fn = opt->log;
        user_log.ctx = opt->log_ctx;
    }
    struct embed_config c = {.flog_dir = opt->log_dir,
                             .flog_only = opt->log_only,
                             .secret = opt->secret,
                             .spin_us = opt->spin_us,
                             .log = opt->log ? log_trampoline : NULL,
                             .log_level = (int)opt->log_level,
                             .tasks = opt->tasks,
                             .http = opt->http};
    if (embed_start(name, &c, why, sizeof why) == 0) return TP_OK;
    if (err && err_size) snprintf(err, err_size, "%s", why);
    return strstr(why, "already running") ? TP_EEXISTS
           : strstr(why, "memory")        ? TP_ENOMEM
                                          : TP_EINVAL;
}

int tp_inproc_http_address(const char *name, char *out, size_t len)
{
    if (!out || !len) return TP_EINVAL;
    return embed_http_address(name, out, len) == 0 ? TP_OK : TP_ENOTFOUND;
}

int tp_inproc_stop(const char *name, char *err, size_t err_size)
{
    char why[300];
    if (embed_stop(name, why, sizeof why) == 0) return TP_OK;
    if (err && err_size) snprintf(err, err_size, "%s", why);
    return TP_ENOTFOUND;
}

int tp_inproc_spawn(const char *name, void (*fn)(void *ctx), void *ctx, char *err, size_t err_size)
{
    char why[300];
    if (!fn) {
        if (err && err_size) snprintf(err, err_size, "tp_inproc_spawn: fn is NULL");
        return TP_EINVAL;
    }
    if (embed_spawn(name, fn, ctx, why, sizeof why) == 0) return TP_OK;
    if (err && err_size) snprintf(err, err_size, "%s", why);
    return strstr(why, "no in-process") ? TP_ENOTFOUND
           : strstr(why, "memory")      ? TP_ENOMEM
                                        : TP_ESTATE;
}

int tp_inproc_run(const char *name, char *err, size_t err_size)
{
    char why[300];
    if (embed_run(name, why, sizeof why) == 0) return TP_OK;
    if (err && err_size) snprintf(err, err_size, "%s", why);
    return strstr(why, "is not running") ? TP_ENOTFOUND : TP_ESTATE;
}

int tp_inproc_yield(void)
{
    return embed_yield();
}
