/* tempo-run's checkpoints (run_ckpt.h): options, checks before the start, the federates'
 * options, the restore at the RTI, the cost at the end. doc/run.md ("Checkpoints"),
 * doc/checkpoint.md. Read federate/fmufed/fmufed_tp.c next.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "federate/config/fedfile_algo.h"
#include "federate/config/fedfile_master.h"
#include "federate/fmu/fmu_load.h"
#include "federate/libtempo/tempo.h"
#include "federate/run/run_ckpt.h"
#include "rti/proto/outfile.h"

static int bad(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
    snprintf(err, errlen, fmt, a, b);
    return -1;
}

int run_ckpt_arg(run_ckpt *c, const char *opt, const char *val, char *err, size_t errlen)
{
    if (!strcmp(opt, "--resume")) {
        c->resume = val;
        return 1;
    }
    if (!strcmp(opt, "--set")) {
        const char *dot = strchr(val, '.'), *eq = strchr(val, '=');
        if (!dot || !eq || dot > eq || dot == val || eq == dot + 1)
            return bad(err, errlen, "--set %s: expected FEDERATE.VARIABLE=VALUE%s", val, "");
        if (c->n_set == RUN_CKPT_MAX) return bad(err, errlen, "more than 64 --set%s%s", "", "");
        c->set[c->n_set++] = (char *)val;
        return 1;
    }
    int every = !strcmp(opt, "--checkpoint-every");
    if (!every && strcmp(opt, "--checkpoint-at")) return 0;
    char *end;
    double s = strtod(val, &end);
    if (*end || end == val || !(s > 0) || !isfinite(s))
        return bad(err, errlen, "%s %s: expected seconds > 0", opt, val);
    if (every) {
        c->every = s;
        snprintf(c->every_s, sizeof c->every_s, "%.17g", s);
    } else {
        if (c->n_at == RUN_CKPT_MAX)
            return bad(err, errlen, "more than 64 --checkpoint-at%s%s", "", "");
        snprintf(c->at_s[c->n_at], sizeof c->at_s[0], "%.17g", s);
        c->at[c->n_at++] = s;
    }
    return 1;
}

int run_ckpt_asked(const run_ckpt *c)
{
    return c->every > 0 || c->n_at > 0 || c->resume;
}

/* The FMU of federate i must serialize its state (the kind tempo-fmu will use: co-simulation
 * when the FMU has it, else model exchange). A program federate saves through its own save
 * callback, which nothing can check beforehand. */
static int check_fmu(const fedfile *ff, size_t i, char *err, size_t errlen)
{
    const fedfile_fed *fd = &ff->feds[i];
    if (!fd->fmu) return 0; /* a program: its save callback answers (or the save fails) */
    fmu_md *md = NULL;
    char e[1024];
    if (fmu_load_md(fd->fmu, NULL, &md, e, sizeof e) != 0) {
        snprintf(err, errlen, "federate %s: %s", fd->name, e);
        return -1;
    }
    const fmu_caps *k = md->cs.present ? &md->cs : &md->me;
    int ok = k->can_get_and_set_fmu_state && k->can_serialize_fmu_state;
    fmu_md_free(md);
    if (ok) return 0;
    snprintf(err, errlen,
             "federate %s: checkpoints are asked for, but its FMU %s cannot save its state (its "
             "modelDescription.xml lacks canGetAndSetFMUstate or canSerializeFMUstate)",
             fd->name, fd->fmu);
    return -1;
}

/* The time (ticks) a checkpoint folder's MANIFEST gives ("time N" on its third line); the
 * whole folder is verified by the RTI that restores it. */
static int manifest_time(const char *dir, long long *t, char *err, size_t errlen)
{
    char path[PATH_MAX + 16], line[256];
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    FILE *f = fopen(path, "r");
    if (!f) return bad(err, errlen, "--resume %s: not a Tempo checkpoint (no %s)", dir, path);
    int ok = fgets(line, sizeof line, f) && !strncmp(line, "tempo-checkpoint ", 17);
    for (int n = 0; ok && fgets(line, sizeof line, f);)
        if (sscanf(line, "time %lld", t) == 1) {
            n = 1;
            break;
        } else if (++n > 4) {
            ok = 0;
        }
    fclose(f);
    if (!ok) return bad(err, errlen, "--resume %s: %s is not a checkpoint's manifest", dir, path);
    return 0;
}

/* A folder this run would write again: "ckpt-<ticks>" with ticks past `after` (-1: any). */
static int check_folder(const run_ckpt *c, long long after, char *err, size_t errlen)
{
    DIR *d = opendir(c->dir);
    if (!d) return 0;
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        long long t;
        char tail;
        if (sscanf(e->d_name, "ckpt-%lld%c", &t, &tail) != 1 || t <= after) continue;
        snprintf(err, errlen,
                 "%s/%s exists: this run would write that checkpoint again (%s); move it away "
                 "or choose another --output",
                 c->dir, e->d_name,
                 after < 0 ? "it is of an earlier run" : "it is later than the one resumed");
        rc = -1;
    }
    closedir(d);
    return rc;
}

int run_ckpt_prepare(run_ckpt *c, const fedfile *ff, const char *outdir, char *err, size_t errlen)
{
    if (!run_ckpt_asked(c)) {
        if (c->n_set)
            return bad(err, errlen, "--set branches a resumed run: it goes with --resume%s%s", "",
                       "");
        return 0;
    }
    for (size_t k = 0; k < c->n_at; k++)
        if (!(c->at[k] > ff->algo.start && c->at[k] < ff->algo.end))
            return bad(err, errlen, "--checkpoint-at %s: not inside the run (%s)", c->at_s[k],
                       "after its start, before its end");
    if (c->every > 0 && !(c->every < ff->algo.end - ff->algo.start))
        return bad(err, errlen, "--checkpoint-every %s: not shorter than the run%s", c->every_s,
                   "");
    if (fedfile_is_master(ff) && !ff->algo.def->saves) {
        snprintf(err, errlen,
                 "method \"%s\" cannot save its state between steps yet: no checkpoints of it "
                 "(doc/checkpoint.md \"Status\")",
                 fedfile_method_name(ff));
        return -1;
    }
    for (size_t i = 0; i < ff->n_feds; i++)
        if (check_fmu(ff, i, err, errlen)) return -1;
    for (size_t k = 0; k < c->n_set; k++) {
        const char *dot = strchr(c->set[k], '.');
        char fed[128];
        snprintf(fed, sizeof fed, "%.*s", (int)(dot - c->set[k]), c->set[k]);
        if (!c->resume) return bad(err, errlen, "--set %s: it goes with --resume%s", c->set[k], "");
        if (fedfile_find(ff, fed) < 0)
            return bad(err, errlen, "--set %s: no federate \"%s\" in the file", c->set[k], fed);
    }
    long long after = -1;
    if (c->resume && manifest_time(c->resume, &after, err, errlen)) return -1;
    /* The instant a save was asked for is in its label (the manifest holds the logical time,
     * which a Gauss-Seidel federation leaves at its start). */
    const char *base = c->resume ? strrchr(c->resume, '/') : NULL;
    long long at;
    char tail;
    if (c->resume && sscanf(base ? base + 1 : c->resume, "ckpt-%lld%c", &at, &tail) == 1)
        after = at;
    snprintf(c->dir, sizeof c->dir, "%s/checkpoints", outdir);
    if (outfile_mkdirs(c->dir, err, errlen) != 0) return -1;
    if (!fedfile_is_master(ff) && ff->feds[0].program && !ff->feds[0].python &&
        (c->every > 0 || c->n_at > 0))
        return bad(err, errlen,
                   "the file's first federate asks for the saves, and %s is a program federate "
                   "(tempo-run cannot give it the instants): put an FMU federate first%s",
                   ff->feds[0].name, "");
    if ((c->every > 0 || c->n_at > 0) && check_folder(c, after, err, errlen)) return -1;
    return 0;
}

int run_ckpt_child_args(const run_ckpt *c, char **argv, int k, int all)
{
    if (!run_ckpt_asked(c)) return k;
    if (c->every > 0) argv[k++] = "--checkpoint-every", argv[k++] = (char *)c->every_s;
    for (size_t i = 0; i < c->n_at; i++)
        argv[k++] = "--checkpoint-at", argv[k++] = (char *)c->at_s[i];
    if (all) argv[k++] = "--checkpoint-dir", argv[k++] = (char *)c->dir;
    if (c->resume && all) argv[k++] = "--resume", argv[k++] = (char *)c->resume;
    if (c->resume && !all) argv[k++] = "--restore";
    for (size_t i = 0; i < c->n_set; i++)
        argv[k++] = "--set", argv[k++] = c->set[i];
    argv[k] = NULL;
    return k;
}

int run_ckpt_restore(const run_ckpt *c, const fedfile *ff, const char *addr, char *err,
                     size_t errlen)
{
    if (!c->resume) return 0;
    tp_join_options jo = {.rti = addr, .federation = ff->federation, .timeout_ms = 30000};
    char e[1024];
    int rc = tp_restore_federation(&jo, c->resume, e, sizeof e);
    if (rc == TP_OK) return 0;
    snprintf(err, errlen, "restoring %s: %s: %s", c->resume, tp_strerror(rc), e);
    return -1;
}

/* A checkpoint's size: MANIFEST and the parts it lists. */
static unsigned long long folder_bytes(const char *dir)
{
    char path[PATH_MAX + 16], line[512], name[128];
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    struct stat st;
    unsigned long long n = fstat(fileno(f), &st) == 0 ? (unsigned long long)st.st_size : 0, size;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "part %127s %llu", name, &size) == 2) n += size;
    fclose(f);
    return n;
}

int run_ckpt_line(run_ckpt *c, const char *line)
{
    char label[80], status[16];
    double t, s;
    int at = 0;
    if (sscanf(line, "checkpoint %79s %lf %15s %lf %n", label, &t, status, &s, &at) != 4 || !at)
        return 0;
    const char *detail = line + at;
    if (!strcmp(status, "saved")) {
        c->n_saved++;
        c->seconds += s;
        if (s > c->seconds_max) c->seconds_max = s;
        c->bytes += folder_bytes(detail);
        snprintf(c->last, sizeof c->last, "%s", detail);
    } else {
        if (!c->n_failed)
            snprintf(c->failure, sizeof c->failure, "%s at %g s: %s", label, t, detail);
        c->n_failed++;
    }
    return 1;
}

void run_ckpt_report(const run_ckpt *c, FILE *out)
{
    if (c->n_saved)
        fprintf(out,
                "tempo-run: checkpoints: %ld written, %.3f s in all (largest %.3f s), %llu "
                "bytes each on average; last %s\n",
                c->n_saved, c->seconds, c->seconds_max, c->bytes / (unsigned long long)c->n_saved,
                c->last);
    if (c->n_failed)
        fprintf(out, "tempo-run: checkpoints: %ld failed; the first: %s\n", c->n_failed,
                c->failure);
}
