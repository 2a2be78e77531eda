/* tempo-log show: the readable timeline, one line per record that passes the filters
 * (doc/log.md). Header first, then records in log order. Read rti/tlog/tlog_util.c for the
 * filters and the line format. */
#include <inttypes.h>
#include <time.h>

#include "rti/tlog/tlog_impl.h"

/* Print the header lines (shared with explain). */
static void show_header(const struct tlog *t, FILE *out)
{
    time_t secs = (time_t)(t->hdr.start_wall_ns / 1000000000);
    struct tm tmv;
    char when[40] = "?";
    if (gmtime_r(&secs, &tmv)) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tmv);
    fprintf(out, "federation %.*s, log format %u, started %s, %gs per tick, FOM %u bytes%s\n",
            (int)t->hdr.federation_len, t->hdr.federation, t->hdr.version, when, t->resolution,
            t->hdr.fom_len, t->fom ? "" : " (not usable: names are not decoded)");
}

int tlog_show(struct tlog *t, const struct tlog_filter *f, FILE *out)
{
    show_header(t, out);
    struct flog_reader r;
    struct tlog_rec x;
    char line[1024];
    uint64_t shown = 0;
    tlog_rewind(t, &r);
    while (tlog_next(t, &r, &x)) {
        if (!tlog_match(t, f, &x)) continue;
        tlog_describe(t, &x, line, sizeof line);
        fprintf(out, "%s\n", line);
        shown++;
    }
    fprintf(out, "%" PRIu64 " of %" PRIu64 " records shown%s\n", shown, t->records,
            t->cut ? "; the log is cut (see below)" : "");
    if (t->cut) fprintf(out, "CUT: %s\n", t->cut_msg);
    tlog_report_end(t, out);
    return 0;
}
