/* libtempo's in-process RTI: tp_inproc_start and tp_inproc_stop over the embedded server core
 * (rti/server/embed.h); the transport itself is in client_conn.c (tpi_open, tpi_read,
 * tpi_flush). Serves doc/inproc.md and doc/api.md. Read rti/server/embed.c next. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/libtempo/client_impl.h"
#include "rti/proto/outfile.h"
#include "rti/server/embed.h"

/* One RTI's log callback as the user gave it (tp_inproc_options.log), owned by that RTI
 * (embed_config.log_free), so that every in-process RTI logs to its own. */
struct user_log {
    void (*fn)(void *ctx, tp_log_level level, const char *line);
    void *ctx;
};

/* The RTI's levels and tp_log_level have the same numbers (error 0 .. trace 4). */
static void log_trampoline(void *ctx, int lv, const char *line)
{
    const struct user_log *u = ctx;
    u->fn(u->ctx, (tp_log_level)lv, line);
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
    struct user_log *u = NULL;
    if (opt->log) {
        if (!(u = malloc(sizeof *u))) {
            if (err && err_size) snprintf(err, err_size, "in-process RTI: out of memory");
            return TP_ENOMEM;
        }
        *u = (struct user_log){.fn = opt->log, .ctx = opt->log_ctx};
    }
    struct embed_config c = {.flog_dir = opt->log_dir,
                             .flog_only = opt->log_only,
                             .secret = opt->secret,
                             .spin_us = opt->spin_us,
                             .log = u ? log_trampoline : NULL,
                             .log_ctx = u,
                             .log_level = (int)opt->log_level,
                             .log_free = free,
                             .tasks = opt->tasks,
                             .checkpoint_dir = opt->checkpoint_dir,
                             .http = opt->http};
    /* The checkpoint folder is made here, as tempo-rti --checkpoint-dir makes it. */
    if (opt->checkpoint_dir && outfile_mkdirs(opt->checkpoint_dir, why, sizeof why) != 0) {
        free(u); /* not started: the RTI owns nothing */
        if (err && err_size) snprintf(err, err_size, "tp_inproc_start: checkpoint_dir: %s", why);
        return TP_EINVAL;
    }
    if (embed_start(name, &c, why, sizeof why) == 0) return TP_OK;
    free(u); /* not started: the RTI owns nothing */
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

int tp_inproc_status(const char *name, void (*emit)(void *ctx, const char *line), void *ctx,
                     char *err, size_t err_size)
{
    char why[300];
    if (!emit) {
        if (err && err_size) snprintf(err, err_size, "tp_inproc_status: emit is NULL");
        return TP_EINVAL;
    }
    if (embed_status(name, emit, ctx, why, sizeof why) == 0) return TP_OK;
    if (err && err_size) snprintf(err, err_size, "%s", why);
    return strstr(why, "no in-process") ? TP_ENOTFOUND : TP_ESTATE;
}
