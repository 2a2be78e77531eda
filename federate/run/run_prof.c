/* tempo-run --profile (run_prof.h): the federates' profile lines into a table and a trace.
 * doc/run.md "Where the time goes". */
#include "federate/run/run_prof.h"

#include <stdlib.h>
#include <string.h>

#include "rti/proto/outfile.h"

static const char *const part_names[RUN_PROF_PARTS] = {"model", "wait", "messaging", "recording",
                                                       "other"};

int run_prof_line(run_prof_fed *feds, const char *const *names, size_t n, const char *line)
{
    char name[128];
    int at = 0;
    if (strncmp(line, "profile ", 8) != 0 || sscanf(line + 8, "%127s%n", name, &at) != 1) return 0;
    run_prof_fed f = {0};
    const char *p = line + 8 + at;
    int got = 0;
    while (*p == ' ') {
        char key[32];
        double w = 0, c = 0;
        int used = 0;
        p++;
        if (sscanf(p, "%31[a-z]=%n", key, &used) != 1 || !used) break;
        p += used;
        if (!strcmp(key, "steps")) {
            if (sscanf(p, "%ld%n", &f.steps, &used) != 1) break;
        } else if (!strcmp(key, "waited")) {
            if (sscanf(p, "%lf%n", &f.waited, &used) != 1) break;
        } else {
            int k = 0;
            while (k < RUN_PROF_PARTS && strcmp(key, part_names[k]))
                k++;
            if (k == RUN_PROF_PARTS || sscanf(p, "%lf/%lf%n", &w, &c, &used) != 2) break;
            f.wall[k] = w, f.cpu[k] = c, got |= 1 << k;
        }
        p += used;
    }
    f.have = got == (1 << RUN_PROF_PARTS) - 1;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], name) && f.have) feds[i] = f;
    return 1;
}

void run_prof_print(FILE *out, const run_prof_fed *feds, const char *const *names, size_t n)
{
    fprintf(out, "tempo-run: profile, ms of wall / CPU time per federate (CPU: its share of the "
                 "thread's, doc/run.md \"Where the time goes\"):\n");
    fprintf(out, "tempo-run:   %-14s %9s", "federate", "instants");
    for (int k = 0; k < RUN_PROF_PARTS; k++)
        fprintf(out, " %19s", part_names[k]);
    fprintf(out, " %19s %11s %10s\n", "total", "waited ms", "us/instant");
    for (size_t i = 0; i < n; i++) {
        const run_prof_fed *f = &feds[i];
        if (!f->have) {
            fprintf(out, "tempo-run:   %-14s (no profile: not a tempo-fmu peer)\n", names[i]);
            continue;
        }
        double tw = 0, tc = 0;
        fprintf(out, "tempo-run:   %-14s %9ld", names[i], f->steps);
        for (int k = 0; k < RUN_PROF_PARTS; k++) {
            char cell[40];
            snprintf(cell, sizeof cell, "%.1f / %.1f", 1e3 * f->wall[k], 1e3 * f->cpu[k]);
            fprintf(out, " %19s", cell);
            tw += f->wall[k], tc += f->cpu[k];
        }
        char cell[40];
        snprintf(cell, sizeof cell, "%.1f / %.1f", 1e3 * tw, 1e3 * tc);
        fprintf(out, " %19s %11.1f %10.2f\n", cell, 1e3 * f->waited,
                f->steps > 0 ? 1e6 * tw / (double)f->steps : 0.0);
    }
}

/* A federate's name as a JSON string body (names are checked at load: printable, no quotes
 * expected, but escaped anyway). */
static void json_str(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
}

int run_prof_trace(const char *path, const run_prof_fed *feds, const char *const *names, size_t n,
                   char *err, size_t errlen)
{
    FILE *f = outfile_fopen(path, err, errlen);
    if (!f) return -1;
    fputs("{\"traceEvents\":[\n", f);
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        fprintf(
            f,
            "%s{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":%zu,\"args\":{\"name\":\"",
            first ? "" : ",\n", i + 1);
        json_str(f, names[i]);
        fputs("\"}}", f);
        first = 0;
        const run_prof_fed *p = &feds[i];
        double ts = 0;
        for (int k = 0; p->have && k < RUN_PROF_PARTS; k++) {
            fprintf(
                f,
                ",\n{\"ph\":\"X\",\"name\":\"%s\",\"pid\":1,\"tid\":%zu,\"ts\":%.3f,"
                "\"dur\":%.3f,\"args\":{\"wall_s\":%.6f,\"cpu_s\":%.6f,\"us_per_instant\":%.3f}}",
                part_names[k], i + 1, ts, 1e6 * p->wall[k], p->wall[k], p->cpu[k],
                p->steps > 0 ? 1e6 * p->wall[k] / (double)p->steps : 0.0);
            ts += 1e6 * p->wall[k];
        }
    }
    fputs("\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"what\":\"tempo-run --profile: each "
          "federate's parts laid end to end, not a timeline\"}}\n",
          f);
    if (fclose(f) != 0) return snprintf(err, errlen, "%s: write failed", path), -1;
    return 0;
}
