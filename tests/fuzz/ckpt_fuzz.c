/* libFuzzer target for the checkpoint decoders (doc/checkpoint.md, doc/contributing.md §7): the
 * manifest reader (ckpt_open, rti/proto/ckpt.c) and the RTI's part decoder (the restore of
 * rti/server/restore.c, through server_restore on a bare server core). The first byte picks
 * what the rest is:
 *   0  a MANIFEST, as it is, in a folder that also holds two parts ("rti", "fed-A");
 *   1  the same with its "end" line replaced by the right checksum of what precedes it, so
 *      that the line syntax, counts, names, sizes and checksums behind it are reached;
 *   2  the "rti" part of a folder whose manifest is right for it: the RTI's part decoder and
 *      every check of the restore (handles, slots, names, classes, objects, sync points,
 *      queued messages, the time-management state).
 * Beyond "no crash", it traps when a refusal gives no reason, when an accepted manifest hands
 * out a label or part name that is not a valid name, a part whose bytes do not have the size
 * the folder holds, or a part that cannot be found by its name; and when a restore that
 * succeeded can be done again under the same name (it must be refused: the federation
 * exists). For 2 the folder also holds a one-byte part for every "fed-NAME" or "fedh-N" the
 * bytes mention (the federates' parts the RTI's part names), so that the decoder goes past
 * them. The files are written per input in a private temporary folder (in /dev/shm when there
 * is one; no fsync: the readers are what is under test); the RTI's log is silenced. Corpus:
 * tests/fuzz/corpus/ckpt_fuzz/ (manifests, and the RTI parts of small real checkpoints of
 * peer, master, Gauss-Seidel and houses federations). Read rti/proto/ckpt.c and
 * rti/server/restore.c next. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rti/proto/ckpt.h"
#include "rti/server/conn.h"
#include "rti/server/log.h"
#include "rti/server/server_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_FEDS = 64 };

static char g_dir[64];                            /* the private folder, made at the first input */
static char g_man[128], g_rti[128];               /* its two checkpoint folders: modes 0-1 and 2 */
static char g_names[MAX_FEDS][CKPT_NAME_MAX + 1]; /* the parts now in g_rti besides "rti" */
static size_t g_n;
static const char part_rti[] = "abc", part_fed[] = "hello";

static void put_file(const char *dir, const char *name, const void *p, size_t n)
{
    char path[256];
    snprintf(path, sizeof path, "%.127s/%.64s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) __builtin_trap(); /* the harness's own folder: not the input's fault */
    if (n && fwrite(p, 1, n, f) != n) __builtin_trap();
    if (fclose(f) != 0) __builtin_trap();
}

static void rm_file(const char *dir, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%.127s/%.64s", dir, name);
    unlink(path);
}

static void cleanup(void)
{
    rm_file(g_man, "MANIFEST"), rm_file(g_man, "rti"), rm_file(g_man, "fed-A");
    rm_file(g_rti, "MANIFEST"), rm_file(g_rti, "rti");
    for (size_t i = 0; i < g_n; i++)
        rm_file(g_rti, g_names[i]);
    rmdir(g_man);
    rmdir(g_rti);
    rmdir(g_dir);
}

/* Everything an accepted reader hands out is what the folder holds. */
static void check_reader(struct ckpt_reader *r)
{
    if (!ckpt_name_ok(ckpt_label(r))) __builtin_trap();
    for (size_t i = 0; i < ckpt_nparts(r); i++) {
        const char *name = ckpt_part_name(r, i);
        const uint8_t *p = NULL;
        size_t n = 0;
        if (!name || !ckpt_name_ok(name)) __builtin_trap();
        if (ckpt_part(r, name, &p, &n) != CKPT_OK) __builtin_trap();
        size_t want = !strcmp(name, "rti")     ? sizeof part_rti - 1
                      : !strcmp(name, "fed-A") ? sizeof part_fed - 1
                                               : (size_t)-1;
        if (n != want || (n && !p)) __builtin_trap();
    }
}

static void manifest_mode(const uint8_t *data, size_t size, int fix_end)
{
    if (!fix_end) {
        put_file(g_man, "MANIFEST", data, size);
    } else {
        /* the text up to its last "end " line (or all of it), then the right end line */
        size_t keep = size;
        for (size_t i = size; i-- > 0;)
            if ((i == 0 || data[i - 1] == '\n') && size - i >= 4 && !memcmp(data + i, "end ", 4)) {
                keep = i;
                break;
            }
        char *m = malloc(keep + 32);
        if (!m) return;
        if (keep) memcpy(m, data, keep);
        int k = snprintf(m + keep, 32, "end %016" PRIx64 "\n", ckpt_fnv1a(CKPT_FNV_INIT, m, keep));
        put_file(g_man, "MANIFEST", m, keep + (size_t)k);
        free(m);
    }
    struct ckpt_reader *r = NULL;
    char err[CKPT_ERR_LEN];
    err[0] = '\0';
    int rc = ckpt_open(&r, g_man, err, sizeof err);
    if (rc != CKPT_OK) {
        if (!err[0] || r) __builtin_trap();
        return;
    }
    check_reader(r);
    ckpt_close(r);
}

/* The part names the bytes mention: "fed-" or "fedh-" and the name characters after it. */
static void find_names(const uint8_t *data, size_t size)
{
    for (size_t i = 0; i < g_n; i++)
        rm_file(g_rti, g_names[i]);
    g_n = 0;
    for (size_t i = 0; i + 4 < size && g_n < MAX_FEDS; i++) {
        if (memcmp(data + i, "fed", 3) != 0) continue;
        size_t j = i;
        char name[CKPT_NAME_MAX + 1];
        size_t n = 0;
        while (j < size && n < CKPT_NAME_MAX &&
               (data[j] == '-' || data[j] == '_' || data[j] == '.' ||
                (data[j] >= '0' && data[j] <= '9') || (data[j] >= 'A' && data[j] <= 'Z') ||
                (data[j] >= 'a' && data[j] <= 'z')))
            name[n++] = (char)data[j++];
        name[n] = '\0';
        if ((strncmp(name, "fed-", 4) && strncmp(name, "fedh-", 5)) || !ckpt_name_ok(name))
            continue;
        int seen = 0;
        for (size_t k = 0; k < g_n; k++)
            seen |= !strcmp(g_names[k], name);
        if (!seen) snprintf(g_names[g_n++], sizeof g_names[0], "%s", name);
        i = j - 1;
    }
}

static void rti_mode(const uint8_t *data, size_t size)
{
    find_names(data, size);
    char m[8192];
    size_t k = (size_t)snprintf(m, sizeof m, "%s %u\nlabel fuzz\ntime 42\nparts %zu\n", CKPT_MAGIC,
                                CKPT_FORMAT, g_n + 1);
    k += (size_t)snprintf(m + k, sizeof m - k, "part rti %zu %016" PRIx64 "\n", size,
                          ckpt_fnv1a(CKPT_FNV_INIT, data, size));
    for (size_t i = 0; i < g_n; i++) {
        put_file(g_rti, g_names[i], "x", 1);
        k += (size_t)snprintf(m + k, sizeof m - k, "part %s 1 %016" PRIx64 "\n", g_names[i],
                              ckpt_fnv1a(CKPT_FNV_INIT, "x", 1));
    }
    uint64_t sum = ckpt_fnv1a(CKPT_FNV_INIT, m, k);
    k += (size_t)snprintf(m + k, sizeof m - k, "end %016" PRIx64 "\n", sum);
    if (k >= sizeof m) __builtin_trap();
    put_file(g_rti, "MANIFEST", m, k);
    put_file(g_rti, "rti", data, size);
    struct server *s = calloc(1, sizeof *s);
    if (!s) return;
    struct server_config cfg = {.listen = ""};
    server_core_init(s, &cfg);
    s->hub.lim.max_frame = CONN_DEFAULT_MAX_FRAME;
    s->hub.lim.max_queued = CONN_DEFAULT_MAX_QUEUED;
    s->hub.lim.high_water = CONN_DEFAULT_MAX_QUEUED / 2;
    s->hub.lim.low_water = CONN_DEFAULT_MAX_QUEUED / 4;
    char err[4 * RTI_ERR_MAX];
    err[0] = '\0';
    if (server_restore(s, g_rti, err, sizeof err) != 0) {
        if (!err[0] || s->feds) __builtin_trap(); /* refused: a reason, nothing created */
    } else {
        if (!s->feds) __builtin_trap();
        err[0] = '\0';
        if (server_restore(s, g_rti, err, sizeof err) == 0 || !err[0]) __builtin_trap();
    }
    server_core_fini(s);
    free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!g_dir[0]) {
        struct stat sb;
        int shm =
            stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode) && access("/dev/shm", W_OK) == 0;
        snprintf(g_dir, sizeof g_dir, "%s/ckpt_fuzz.XXXXXX", shm ? "/dev/shm" : "/tmp");
        if (!mkdtemp(g_dir)) __builtin_trap();
        snprintf(g_man, sizeof g_man, "%s/m", g_dir);
        snprintf(g_rti, sizeof g_rti, "%s/r", g_dir);
        if (mkdir(g_man, 0700) != 0 || mkdir(g_rti, 0700) != 0) __builtin_trap();
        put_file(g_man, "rti", part_rti, sizeof part_rti - 1);
        put_file(g_man, "fed-A", part_fed, sizeof part_fed - 1);
        atexit(cleanup);
        /* the RTI's refusals are what the fuzzer asks for: not printed */
        log_set_level(LOG_LV_ERROR);
        static FILE *devnull;
        if ((devnull = fopen("/dev/null", "w"))) log_set_stream(devnull);
    }
    if (size < 1) return 0;
    switch (data[0] % 3) {
    case 0:
        manifest_mode(data + 1, size - 1, 0);
        break;
    case 1:
        manifest_mode(data + 1, size - 1, 1);
        break;
    default:
        rti_mode(data + 1, size - 1);
        break;
    }
    return 0;
}
