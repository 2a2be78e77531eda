/* FMU loading: unpack, parse modelDescription.xml, dlopen the linux64 binary, resolve the
 * FMI 2.0 functions the chosen kind needs, report a missing one by name; the fmi2 logger.
 * One load per FMU file and kind in a process, shared by every instance of it (doc/fmu.md
 * "One load per process"). Serves doc/fmu.md. Read next: federate/fmu/fmu_step.c. */
#include "federate/fmu/fmu_load.h"
#include "federate/fmu/fmu_v3.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* When a function must be present. */
enum {
    NEED_ALL, /* both kinds */
    NEED_ME,
    NEED_CS,
    NEED_STATE,  /* canGetAndSetFMUstate */
    NEED_SER,    /* canSerializeFMUstate */
    NEED_DIR,    /* providesDirectionalDerivative */
    NEED_INTERP, /* CS canInterpolateInputs */
    NEED_OUTDER, /* CS maxOutputDerivativeOrder > 0 */
    NEED_CS_OPT  /* looked up for CS, optional */
};

#define FN(name, need)                                                                             \
    {                                                                                              \
        "fmi2" #name, offsetof(fmu_fns, name), need                                                \
    }
static const struct {
    const char *name;
    size_t off;
    int need;
} fn_table[] = {
    FN(GetTypesPlatform, NEED_ALL),
    FN(GetVersion, NEED_ALL),
    FN(SetDebugLogging, NEED_ALL),
    FN(Instantiate, NEED_ALL),
    FN(FreeInstance, NEED_ALL),
    FN(SetupExperiment, NEED_ALL),
    FN(EnterInitializationMode, NEED_ALL),
    FN(ExitInitializationMode, NEED_ALL),
    FN(Terminate, NEED_ALL),
    FN(Reset, NEED_ALL),
    FN(GetReal, NEED_ALL),
    FN(GetInteger, NEED_ALL),
    FN(GetBoolean, NEED_ALL),
    FN(GetString, NEED_ALL),
    FN(SetReal, NEED_ALL),
    FN(SetInteger, NEED_ALL),
    FN(SetBoolean, NEED_ALL),
    FN(SetString, NEED_ALL),
    FN(GetFMUstate, NEED_STATE),
    FN(SetFMUstate, NEED_STATE),
    FN(FreeFMUstate, NEED_STATE),
    FN(SerializedFMUstateSize, NEED_SER),
    FN(SerializeFMUstate, NEED_SER),
    FN(DeSerializeFMUstate, NEED_SER),
    FN(GetDirectionalDerivative, NEED_DIR),
    FN(EnterEventMode, NEED_ME),
    FN(NewDiscreteStates, NEED_ME),
    FN(EnterContinuousTimeMode, NEED_ME),
    FN(CompletedIntegratorStep, NEED_ME),
    FN(SetTime, NEED_ME),
    FN(SetContinuousStates, NEED_ME),
    FN(GetDerivatives, NEED_ME),
    FN(GetEventIndicators, NEED_ME),
    FN(GetContinuousStates, NEED_ME),
    FN(GetNominalsOfContinuousStates, NEED_ME),
    FN(SetRealInputDerivatives, NEED_INTERP),
    FN(GetRealOutputDerivatives, NEED_OUTDER),
    FN(DoStep, NEED_CS),
    FN(CancelStep, NEED_CS_OPT),
    FN(GetStatus, NEED_CS_OPT),
    FN(GetRealStatus, NEED_CS_OPT),
    FN(GetIntegerStatus, NEED_CS_OPT),
    FN(GetBooleanStatus, NEED_CS_OPT),
    FN(GetStringStatus, NEED_CS_OPT),
};

/* 0 = not looked up, 1 = required, 2 = optional. */
static int requirement(int need, fmu_kind kind, const fmu_caps *k)
{
    int cs = kind == FMU_KIND_CS;
    switch (need) {
    case NEED_ALL:
        return 1;
    case NEED_ME:
        return cs ? 0 : 1;
    case NEED_CS:
        return cs ? 1 : 0;
    case NEED_STATE:
        return k->can_get_and_set_fmu_state ? 1 : 2;
    case NEED_SER:
        return k->can_serialize_fmu_state ? 1 : 2;
    case NEED_DIR:
        return k->provides_directional_derivative ? 1 : 2;
    case NEED_INTERP:
        return cs ? (k->can_interpolate_inputs ? 1 : 2) : 0;
    case NEED_OUTDER:
        return cs ? (k->max_output_derivative_order > 0 ? 1 : 2) : 0;
    default:
        return cs ? 2 : 0;
    }
}

/* Reads the whole file (at most max bytes) into a malloc'd buffer. */
static int slurp(const char *path, size_t max, char **buf, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        snprintf(err, errlen, "%s", e == ENOENT ? "not in the archive" : strerror(e));
        return -1;
    }
    size_t cap = 65536, n = 0;
    char *b = malloc(cap);
    int rc = 0;
    while (b) {
        if (n == cap) {
            if (cap > max) break;
            char *nb = realloc(b, cap * 2);
            if (!nb) break;
            b = nb, cap *= 2;
        }
        size_t r = fread(b + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    if (!b)
        rc = -2, snprintf(err, errlen, "out of memory");
    else if (n > max)
        rc = -1, snprintf(err, errlen, "larger than %zu bytes", max);
    else if (ferror(f))
        rc = -2, snprintf(err, errlen, "read error");
    fclose(f);
    if (rc) return free(b), rc;
    *buf = b, *len = n;
    return 0;
}

/* Names the platform folders an FMU has, for the "no binary" message. */
static void list_platforms(const char *dir, char *out, size_t outlen)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/binaries", dir);
    out[0] = '\0';
    DIR *d = opendir(path);
    if (!d) {
        snprintf(out, outlen, "no binaries folder");
        return;
    }
    struct dirent *e;
    size_t used = 0;
    while ((e = readdir(d)) && used + 1 < outlen) {
        if (e->d_name[0] == '.') continue;
        int w = snprintf(out + used, outlen - used, "%s%s", used ? ", " : "has: ", e->d_name);
        if (w < 0) break;
        used += (size_t)w;
    }
    closedir(d);
    if (!used) snprintf(out, outlen, "binaries folder is empty");
}

/* A dlopen failure in words a user can act on: the library or symbol that is missing and
 * what to do (doc/fmu.md §3 "Binary and functions"), then the loader's own text. */
static void dlopen_advice(const char *id, const char *e, char *err, size_t errlen)
{
    const char *miss = strstr(e, ": cannot open shared object file");
    const char *sym = strstr(e, "undefined symbol: ");
    if (miss) {
        const char *start = miss;
        while (start > e && start[-1] != ' ')
            start--;
        snprintf(err, errlen,
                 "binaries/linux64/%s.so needs the library %.*s, which the dynamic loader "
                 "cannot find: install it, or add the folder that holds it to LD_LIBRARY_PATH "
                 "(`ldd` on the .so lists every missing library) [dlopen: %s]",
                 id, (int)(miss - start), start, e);
    } else if (sym) {
        sym += strlen("undefined symbol: ");
        size_t n = strcspn(sym, " ,(");
        snprintf(err, errlen,
                 "binaries/linux64/%s.so uses the symbol %.*s, which no library of this process "
                 "defines: the FMU expects its host to have loaded a library it does not link "
                 "itself; load that library first (LD_PRELOAD=/path/to/lib.so; an FMU that "
                 "embeds Python, for one, needs libpython3.X.so), or ask its vendor "
                 "(`ldd -r` on the .so lists the unresolved symbols) [dlopen: %s]",
                 id, (int)n, sym, e);
    } else {
        snprintf(err, errlen, "binaries/linux64/%s.so: dlopen failed: %s", id, e);
    }
}

static int open_binary(fmu_file *f, char *err, size_t errlen)
{
    char so[PATH_MAX + 300];
    snprintf(so, sizeof so, "%s/binaries/linux64/%s.so", f->dir, f->caps->model_identifier);
    struct stat st;
    if (stat(so, &st) != 0) {
        char plat[200];
        list_platforms(f->dir, plat, sizeof plat);
        snprintf(err, errlen,
                 "no binary for this platform: binaries/linux64/%s.so is missing "
                 "(%s)",
                 f->caps->model_identifier, plat);
        return -1;
    }
    dlerror();
    f->so = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!f->so) {
        const char *e = dlerror();
        dlopen_advice(f->caps->model_identifier, e ? e : "?", err, errlen);
        return -1;
    }
    for (size_t i = 0; i < sizeof fn_table / sizeof fn_table[0]; i++) {
        int req = requirement(fn_table[i].need, f->kind, f->caps);
        if (!req) continue;
        void *p = dlsym(f->so, fn_table[i].name);
        if (!p && req == 1) {
            snprintf(err, errlen, "binaries/linux64/%s.so: missing function %s (needed for %s)",
                     f->caps->model_identifier, fn_table[i].name,
                     f->kind == FMU_KIND_CS ? "CoSimulation" : "ModelExchange");
            return -1;
        }
        /* POSIX guarantees a data pointer from dlsym can hold a function address. */
        memcpy((char *)&f->fn + fn_table[i].off, &p, sizeof p);
    }
    const char *v = f->fn.GetVersion();
    if (!v || strcmp(v, fmi2Version) != 0) {
        snprintf(err, errlen,
                 "binaries/linux64/%s.so: fmi2GetVersion() returned \"%.20s\", "
                 "expected \"2.0\"",
                 f->caps->model_identifier, v ? v : "(null)");
        return -1;
    }
    return 0;
}

/* Reads and parses dir/modelDescription.xml, sized as fmu_md_parse_sized (sz NULL, n 0: the
 * starts); messages are prefixed with path. */
static int read_md_sized(const char *path, const char *dir, const fmu_md_size *sz, size_t n,
                         fmu_md **md, char *err, size_t errlen)
{
    char msg[FMU_ERR_LEN], mdpath[PATH_MAX + 32];
    snprintf(mdpath, sizeof mdpath, "%s/modelDescription.xml", dir);
    char *buf = NULL;
    size_t len = 0;
    int rc = slurp(mdpath, FMU_MD_MAX_BYTES, &buf, &len, msg, sizeof msg);
    const char *sep = *path ? ": " : "";
    if (rc) return snprintf(err, errlen, "%s%smodelDescription.xml: %s", path, sep, msg), rc;
    rc = fmu_md_parse_sized(buf, len, sz, n, md, msg, sizeof msg);
    free(buf);
    if (rc) snprintf(err, errlen, "%s%s%s", path, sep, msg);
    return rc;
}

static int read_md(const char *path, const char *dir, fmu_md **md, char *err, size_t errlen)
{
    return read_md_sized(path, dir, NULL, 0, md, err, errlen);
}

int fmu_load_md_sized(const fmu_file *f, const fmu_md_size *sizes, size_t n, fmu_md **out,
                      char *err, size_t errlen)
{
    int rc = read_md_sized("", f->dir, sizes, n, out, err, errlen);
    if (rc) return rc;
    /* What loading learnt of the binary holds for every description of it (fmu_v3_open). */
    (*out)->cs.has_event_mode = f->md->cs.has_event_mode;
    return 0;
}

int fmu_load_md(const char *path, const fmu_zip_limits *limits, fmu_md **out, char *err,
                size_t errlen)
{
    *out = NULL;
    char dir[PATH_MAX], msg[FMU_ERR_LEN];
    int rc = fmu_zip_extract(path, limits, dir, sizeof dir, err, errlen);
    if (rc) return rc;
    rc = read_md(path, dir, out, err, errlen);
    fmu_zip_remove_tree(dir, msg, sizeof msg);
    return rc;
}

/* ---- one load per FMU file and kind (doc/fmu.md "One load per process") ----------------------
 * Every fmu_load of the same file (device, inode, size, modification time) and the same kind,
 * with the default limits, returns the same fmu_file, counted; the last fmu_unload frees it.
 * So N instances of one FMU run one copy of its code, not N copies at N addresses (the caches
 * hold one: doc/performance.md "In one process"). FMI 2.0 and 3.0 allow several instances of
 * one loaded binary unless canBeInstantiatedOnlyOncePerProcess says otherwise; such an FMU is
 * never shared (and a file with two of them does not run in process anyway, doc/inproc.md).
 * An fmu_file is read-only once loaded. The list is short (one entry per distinct FMU). */
typedef struct shared_load {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    fmu_kind kind; /* as asked (FMU_KIND_AUTO included) */
    fmu_file *f;
    int refs; /* fmu_load calls not yet unloaded */
    struct shared_load *next;
} shared_load;

static shared_load *g_shared;
static pthread_mutex_t g_shared_lock = PTHREAD_MUTEX_INITIALIZER;

static shared_load *shared_find(const struct stat *st, fmu_kind kind)
{
    for (shared_load *e = g_shared; e; e = e->next)
        if (e->dev == st->st_dev && e->ino == st->st_ino && e->size == st->st_size &&
            e->mtime.tv_sec == st->st_mtim.tv_sec && e->mtime.tv_nsec == st->st_mtim.tv_nsec &&
            e->kind == kind)
            return e;
    return NULL;
}

static int load_new(const char *path, fmu_kind kind, const fmu_zip_limits *limits, fmu_file **out,
                    char *err, size_t errlen);
static void free_load(fmu_file *f);

int fmu_load(const char *path, fmu_kind kind, const fmu_zip_limits *limits, fmu_file **out,
             char *err, size_t errlen)
{
    *out = NULL;
    struct stat st;
    if (limits || !path || stat(path, &st) != 0)
        return load_new(path, kind, limits, out, err, errlen);
    pthread_mutex_lock(&g_shared_lock);
    shared_load *e = shared_find(&st, kind);
    if (e) {
        e->refs++;
        *out = e->f;
        pthread_mutex_unlock(&g_shared_lock);
        return 0;
    }
    int rc = load_new(path, kind, limits, out, err, errlen);
    if (!rc && !(*out)->caps->can_be_instantiated_only_once_per_process &&
        (e = calloc(1, sizeof *e))) { /* without memory: unshared, still correct */
        *e = (shared_load){.dev = st.st_dev,
                           .ino = st.st_ino,
                           .size = st.st_size,
                           .mtime = st.st_mtim,
                           .kind = kind,
                           .f = *out,
                           .refs = 1,
                           .next = g_shared};
        g_shared = e;
    }
    pthread_mutex_unlock(&g_shared_lock);
    return rc;
}

/* The load itself: a private folder, the description, the binary. */
static int load_new(const char *path, fmu_kind kind, const fmu_zip_limits *limits, fmu_file **out,
                    char *err, size_t errlen)
{
    char msg[FMU_ERR_LEN];
    fmu_file *f = calloc(1, sizeof *f);
    if (!f) return snprintf(err, errlen, "%s: out of memory", path), -2;
    int rc = fmu_zip_extract(path, limits, f->dir, sizeof f->dir, err, errlen);
    if (rc) {
        free(f);
        return rc;
    }
    if ((rc = read_md(path, f->dir, &f->md, err, errlen))) goto fail;
    if (kind == FMU_KIND_AUTO) kind = f->md->cs.present ? FMU_KIND_CS : FMU_KIND_ME;
    f->kind = kind;
    f->caps = kind == FMU_KIND_CS ? &f->md->cs : &f->md->me;
    if (!f->caps->present) {
        rc = -1;
        snprintf(err, errlen, "%s: the FMU has no %s interface", path,
                 kind == FMU_KIND_CS ? "CoSimulation" : "ModelExchange");
        goto fail;
    }
    snprintf(f->resource_uri, sizeof f->resource_uri, "file://%s/resources", f->dir);
    if ((rc = f->md->fmi3 ? fmu_v3_open(f, msg, sizeof msg) : open_binary(f, msg, sizeof msg))) {
        snprintf(err, errlen, "%s: %s", path, msg);
        goto fail;
    }
    *out = f;
    return 0;
fail:
    free_load(f);
    return rc;
}

void fmu_unload(fmu_file *f)
{
    if (!f) return;
    pthread_mutex_lock(&g_shared_lock);
    for (shared_load **p = &g_shared; *p; p = &(*p)->next) {
        if ((*p)->f != f) continue;
        shared_load *e = *p;
        if (--e->refs > 0) {
            pthread_mutex_unlock(&g_shared_lock);
            return; /* another instance still runs this load */
        }
        *p = e->next;
        free(e);
        break;
    }
    pthread_mutex_unlock(&g_shared_lock);
    free_load(f);
}

/* dlclose, the folder, the description: a load no instance uses any more. */
static void free_load(fmu_file *f)
{
    if (f->so) dlclose(f->so);
    char msg[FMU_ERR_LEN];
    fmu_zip_remove_tree(f->dir, msg, sizeof msg);
    fmu_md_free(f->md);
    free(f);
}

const char *fmu_load_status_name(fmi2Status s)
{
    static const char *const names[] = {"fmi2OK",    "fmi2Warning", "fmi2Discard",
                                        "fmi2Error", "fmi2Fatal",   "fmi2Pending"};
    return (unsigned)s < 6 ? names[s] : "fmi2Status(?)";
}

void fmu_load_logger(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
                     fmi2String category, fmi2String message, ...)
{
    fmu_log_sink *sink = env;
    if (!sink || !message) return;
    char line[1024];
    va_list ap;
    va_start(ap, message);
    vsnprintf(line, sizeof line, message, ap);
    va_end(ap);
    fmu_load_log_line(sink, instance, status, category, line);
}

void fmu_load_log_line(fmu_log_sink *sink, const char *instance, fmi2Status status,
                       const char *category, const char *line)
{
    if (!sink || !line) return;
    int level = status == fmi2OK        ? FMU_LOG_INFO
                : status == fmi2Warning ? FMU_LOG_WARN
                : status == fmi2Pending ? FMU_LOG_DEBUG
                : status == fmi2Discard ? FMU_LOG_WARN
                                        : FMU_LOG_ERROR;
    if (status == fmi2Error || status == fmi2Fatal || status == fmi2Discard)
        snprintf(sink->last_error, sizeof sink->last_error, "%.255s", line);
    if (sink->fn)
        sink->fn(sink->ctx, level, instance ? instance : "", category ? category : "", line);
}
