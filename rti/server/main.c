/* tempo-rti: command-line entry of the RTI server. Parses options, starts the server,
 * prints the bound address as one flushed line on stdout, runs until SIGINT/SIGTERM.
 * Serves doc/guide.md (start an RTI) and doc/rti.md (options, explicit limits). Read
 * rti/server/server.h next; doc/rti.md documents every option. */
#include "rti/proto/outfile.h"
#include "rti/proto/secret.h"
#include "rti/server/conn.h"
#include "rti/server/log.h"
#include "rti/server/server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: tempo-rti [options]\n"
        "  --listen HOST:PORT      TCP address (default %s; port 0 = any free port;\n"
        "                          'none' = no TCP)\n"
        "  --unix PATH             also listen on a Unix socket\n"
        "  --allow-remote          allow --listen on an address that is not loopback\n"
        "  --max-frame BYTES       largest frame accepted (default %u)\n"
        "  --max-queued-bytes BYTES  output queued per client before it is dropped\n"
        "                          (default %u; senders pause at half of it)\n"
        "  --stall-ms MS           a client that stays congested this long while others\n"
        "                          wait on it is dropped (default %d)\n"
        "  --handshake-ms MS       a new connection must be joined (HELLO, then a JOIN\n"
        "                          accepted) within this (default %d)\n"
        "  --frame-ms MS           a frame must arrive whole within this once its first\n"
        "                          byte is in (default %d)\n"
        "  --max-connections N     connections at once; more are refused (default %d)\n"
        "  --peer-timeout-ms MS    a TCP peer that acknowledges nothing for about this\n"
        "                          long (link cut, host gone) is dropped (default %d; 0 off)\n"
        "  --max-federates N       federates per federation (default %u)\n"
        "  --max-federations N     federations per RTI (default %u)\n"
        "  --max-fom-bytes BYTES   largest FOM text of a federation (default %u)\n"
        "  --max-objects N         objects one connection holds, kept ones included\n"
        "                          (default %u); also the default of the two below\n"
        "  --max-address-objects N  objects of every connection from one address\n"
        "  --max-federation-objects N  objects of one federation, kept ones included\n"
        "  --max-sync-points N     pending synchronization points one connection\n"
        "                          registered (default %u; per address:\n"
        "                          --max-address-sync-points, default %u)\n"
        "  --max-sync-bytes BYTES  their label and tag bytes (default %llu; per address:\n"
        "                          --max-address-sync-bytes, default %llu)\n"
        "  --max-unjoined-federations N  federations one connection created that nobody\n"
        "                          joined yet (default %u; per address:\n"
        "                          --max-address-unjoined-federations, default %u)\n"
        "  --unjoined-federation-ms MS  such a federation is destroyed after this\n"
        "                          (default %d)\n"
        "  --max-pending-messages N  time-stamped messages one connection sent that wait\n"
        "                          at the RTI (default %u; per address:\n"
        "                          --max-address-pending-messages, default %u)\n"
        "  --max-total-queued-bytes BYTES  output queued for all clients together;\n"
        "                          a send past it drops its receiver (default %zu)\n"
        "  --shuffle-ties SEED     test mode: deliver equal time stamps from different\n"
        "                          senders in an order drawn from SEED (doc/master.md)\n"
        "  --spin-us US            poll this long after traffic before sleeping: lower\n"
        "                          latency for one busy core (default 0: never spin)\n"
        "  --secret TEXT           shared secret every JOIN must carry (visible to other\n"
        "                          users in ps: prefer --secret-file or TEMPO_SECRET)\n"
        "  --secret-file PATH      read the secret from PATH (mode 600, 1..256 bytes)\n"
        "                          Without either: TEMPO_SECRET, else TEMPO_SECRET_FILE\n"
        "  --log DIR               write a federation log per federation into DIR\n"
        "                          (read it with tempo-log; doc/log.md); DIR is made\n"
        "                          when missing and refused when anyone may write it\n"
        "  --file-mode MODE        permission bits of the logs it writes (default 600,\n"
        "                          folders 700; e.g. 644), also TEMPO_FILE_MODE\n"
        "  --log-only PATTERNS     with --log: only federations whose name matches one\n"
        "                          of these comma-separated glob patterns (\"demo*,lv\")\n"
        "  --checkpoint-dir DIR    write the saves federates request (tp_request_save)\n"
        "                          as folders DIR/LABEL (doc/checkpoint.md); DIR is made\n"
        "                          when missing; without it saves are refused\n"
        "  --keep-federations      keep a federation after its last federate resigned\n"
        "                          (default: destroy it, so each run gets its own log)\n"
        "  --http HOST:PORT        serve the live view (a page, JSON and a stream of the\n"
        "                          federations' state; doc/live.md) on this address;\n"
        "                          loopback unless --allow-remote, and then only with\n"
        "                          the shared secret\n"
        "  --log-level LEVEL       error, warn, info (default), debug, trace\n"
        "  --help                  print this text and exit\n"
        "  --version               print the version and exit\n"
        "Prints \"tempo-rti listening on HOST:PORT\" when ready. SIGINT/SIGTERM stop it\n"
        "cleanly; SIGUSR1 logs every federate's time state (who blocks whom).\n",
        SERVER_DEFAULT_LISTEN, CONN_DEFAULT_MAX_FRAME, CONN_DEFAULT_MAX_QUEUED,
        CONN_DEFAULT_STALL_MS, CONN_DEFAULT_HELLO_MS, CONN_DEFAULT_FRAME_MS, CONN_DEFAULT_MAX_CONNS,
        CONN_DEFAULT_PEER_MS, SERVER_MAX_FEDERATES_DEFAULT, SERVER_MAX_FEDERATIONS_DEFAULT,
        SERVER_MAX_FOM_BYTES_DEFAULT, SERVER_MAX_OBJECTS_DEFAULT, SERVER_MAX_SYNC_POINTS_DEFAULT,
        SERVER_MAX_ADDRESS_SYNC_POINTS_DEFAULT, (unsigned long long)SERVER_MAX_SYNC_BYTES_DEFAULT,
        (unsigned long long)SERVER_MAX_ADDRESS_SYNC_BYTES_DEFAULT, SERVER_MAX_UNJOINED_DEFAULT,
        SERVER_MAX_ADDRESS_UNJOINED_DEFAULT, SERVER_UNJOINED_MS_DEFAULT, SERVER_MAX_PENDING_DEFAULT,
        SERVER_MAX_ADDRESS_PENDING_DEFAULT, SERVER_MAX_TOTAL_QUEUED_DEFAULT);
}

/* Parse a positive size with an optional K/M/G suffix (powers of 1024). */
static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-') return -1;
    unsigned long long mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1024ull, end++;
    else if (*end == 'M' || *end == 'm')
        mul = 1024ull * 1024, end++;
    else if (*end == 'G' || *end == 'g')
        mul = 1024ull * 1024 * 1024, end++;
    if (*end || v == 0 || v > (unsigned long long)SIZE_MAX / mul) return -1;
    *out = (size_t)(v * mul);
    return 0;
}

/* Parse an integer option value in [lo, hi] into *out. Returns 0, or -1 (message printed). */
static int parse_long(const char *opt, const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < lo || n > hi) {
        fprintf(stderr, "tempo-rti: %s '%s': expected %ld .. %ld\n", opt, v, lo, hi);
        return -1;
    }
    *out = n;
    return 0;
}

/* The quota options (rti/server/limits.h, doc/rti.md "Memory quotas"): what one connection
 * or one address may hold, counts or bytes. */
static const struct quota_option {
    const char *name;
    int res, scope; /* enum quota_res, enum quota_scope */
} quota_options[] = {
    {"--max-objects", QR_OBJECTS, QS_CONN},
    {"--max-address-objects", QR_OBJECTS, QS_ADDR},
    {"--max-sync-points", QR_SYNCS, QS_CONN},
    {"--max-address-sync-points", QR_SYNCS, QS_ADDR},
    {"--max-sync-bytes", QR_SYNC_BYTES, QS_CONN},
    {"--max-address-sync-bytes", QR_SYNC_BYTES, QS_ADDR},
    {"--max-unjoined-federations", QR_UNJOINED, QS_CONN},
    {"--max-address-unjoined-federations", QR_UNJOINED, QS_ADDR},
    {"--max-pending-messages", QR_PENDING, QS_CONN},
    {"--max-address-pending-messages", QR_PENDING, QS_ADDR},
};
#define N_QUOTA_OPTIONS (sizeof quota_options / sizeof quota_options[0])

/* A quota option's value into cfg: a count (1 .. 10^9) or, for bytes, a size. 1 when @p a is
 * not a quota option, 0 when parsed, 2 on a bad value (message printed). */
static int parse_quota(const char *a, const char *v, struct server_config *cfg)
{
    for (size_t k = 0; k < N_QUOTA_OPTIONS; k++) {
        const struct quota_option *q = &quota_options[k];
        if (strcmp(a, q->name) != 0) continue;
        if (q->res == QR_SYNC_BYTES) {
            size_t sz;
            if (parse_size(v, &sz) != 0) {
                fprintf(stderr, "tempo-rti: %s '%s': expected a size in bytes\n", a, v);
                return 2;
            }
            cfg->quota[q->res][q->scope] = sz;
        } else {
            long n;
            if (parse_long(a, v, 1, 1000000000, &n) != 0) return 2;
            cfg->quota[q->res][q->scope] = (uint64_t)n;
        }
        return 0;
    }
    return 1;
}

/* One option with its value. Returns 0, or 2 (usage error, message printed). */
static int parse_valued(const char *a, const char *v, struct server_config *cfg, int *lv)
{
    size_t sz;
    long n;
    int qr = parse_quota(a, v, cfg);
    if (qr != 1) return qr;
    if (strcmp(a, "--listen") == 0) {
        cfg->listen = strcmp(v, "none") == 0 ? "" : v;
    } else if (strcmp(a, "--unix") == 0) {
        cfg->unix_path = v;
    } else if (strcmp(a, "--log") == 0) {
        cfg->flog_dir = v;
    } else if (strcmp(a, "--checkpoint-dir") == 0) {
        cfg->checkpoint_dir = v;
    } else if (strcmp(a, "--file-mode") == 0) {
        unsigned mode;
        char err[200];
        if (outfile_parse_mode(v, &mode, err, sizeof err) != 0) {
            fprintf(stderr, "tempo-rti: --file-mode: %s\n", err);
            return 2;
        }
        setenv(OUTFILE_ENV, v, 1); /* where the federation log writer reads it */
    } else if (strcmp(a, "--http") == 0) {
        cfg->http_listen = v;
    } else if (strcmp(a, "--log-only") == 0) {
        for (const char *p = v; *p;) { /* each pattern must fit rti/server/federation.c's buffer */
            size_t len = strcspn(p, ",");
            if (len == 0 || len > 255) {
                fprintf(stderr,
                        "tempo-rti: --log-only '%s': expected comma-separated "
                        "patterns of 1 to 255 characters\n",
                        v);
                return 2;
            }
            p += len + (p[len] == ',');
        }
        cfg->flog_only = v;
    } else if (strcmp(a, "--secret") == 0) {
        cfg->secret = v;
    } else if (strcmp(a, "--secret-file") == 0) {
        static char from_file[SECRET_MAX + 1];
        char err[400];
        if (secret_read_file(v, from_file, sizeof from_file, err, sizeof err) != 0) {
            fprintf(stderr, "tempo-rti: --secret-file: %s\n", err);
            return 2;
        }
        cfg->secret = from_file;
    } else if (strcmp(a, "--max-frame") == 0) {
        if (parse_size(v, &sz) != 0 || sz < 64 || sz > 0xffffffffu) {
            fprintf(stderr, "tempo-rti: --max-frame '%s': expected 64 bytes .. 4G - 1\n", v);
            return 2;
        }
        cfg->max_frame = sz;
    } else if (strcmp(a, "--max-queued-bytes") == 0) {
        if (parse_size(v, &sz) != 0 || sz < 4096) {
            fprintf(stderr, "tempo-rti: --max-queued-bytes '%s': expected at least 4096\n", v);
            return 2;
        }
        cfg->max_queued = sz;
    } else if (strcmp(a, "--stall-ms") == 0) {
        if (parse_long(a, v, 1, 86400000, &n) != 0) return 2;
        cfg->stall_ms = (int)n;
    } else if (strcmp(a, "--handshake-ms") == 0) {
        if (parse_long(a, v, 1, 86400000, &n) != 0) return 2;
        cfg->hello_ms = (int)n;
    } else if (strcmp(a, "--frame-ms") == 0) {
        if (parse_long(a, v, 1, 86400000, &n) != 0) return 2;
        cfg->frame_ms = (int)n;
    } else if (strcmp(a, "--peer-timeout-ms") == 0) {
        if (parse_long(a, v, 0, 86400000, &n) != 0) return 2;
        cfg->peer_ms = n == 0 ? -1 : (int)n;
    } else if (strcmp(a, "--max-connections") == 0) {
        if (parse_long(a, v, 1, 1000000, &n) != 0) return 2;
        cfg->max_conns = (size_t)n;
    } else if (strcmp(a, "--shuffle-ties") == 0) {
        if (parse_long(a, v, 1, 2147483647, &n) != 0) return 2;
        cfg->shuffle_ties = (uint64_t)n;
    } else if (strcmp(a, "--spin-us") == 0) {
        if (parse_long(a, v, 0, 1000000, &n) != 0) return 2;
        cfg->spin_us = (int)n;
    } else if (strcmp(a, "--max-federations") == 0) {
        if (parse_long(a, v, 1, 1000000, &n) != 0) return 2;
        cfg->max_federations = (uint32_t)n;
    } else if (strcmp(a, "--max-fom-bytes") == 0) {
        if (parse_size(v, &sz) != 0) {
            fprintf(stderr, "tempo-rti: --max-fom-bytes '%s': expected a size in bytes\n", v);
            return 2;
        }
        cfg->max_fom_bytes = sz;
    } else if (strcmp(a, "--max-federation-objects") == 0) {
        if (parse_long(a, v, 1, 1000000000, &n) != 0) return 2;
        cfg->max_federation_objects = (uint32_t)n;
    } else if (strcmp(a, "--unjoined-federation-ms") == 0) {
        if (parse_long(a, v, 1, 86400000, &n) != 0) return 2;
        cfg->unjoined_ms = (int)n;
    } else if (strcmp(a, "--max-total-queued-bytes") == 0) {
        if (parse_size(v, &sz) != 0 || sz < 4096) {
            fprintf(stderr, "tempo-rti: --max-total-queued-bytes '%s': expected at least 4096\n",
                    v);
            return 2;
        }
        cfg->max_total_queued = sz;
    } else if (strcmp(a, "--max-federates") == 0) {
        if (parse_long(a, v, 1, 1000000, &n) != 0) return 2;
        cfg->max_federates = (uint32_t)n;
    } else if (strcmp(a, "--log-level") == 0) {
        if (log_level_parse(v, lv) != 0) {
            fprintf(stderr,
                    "tempo-rti: --log-level '%s': expected error, warn, info, debug or "
                    "trace\n",
                    v);
            return 2;
        }
    } else {
        fprintf(stderr, "tempo-rti: unknown option %s (see --help)\n", a);
        return 2;
    }
    return 0;
}

/* The options that take a value (parse_valued reads each). */
static const char *const valued_options[] = {"--listen",
                                             "--http",
                                             "--unix",
                                             "--log",
                                             "--checkpoint-dir",
                                             "--file-mode",
                                             "--log-only",
                                             "--secret",
                                             "--secret-file",
                                             "--max-frame",
                                             "--max-queued-bytes",
                                             "--stall-ms",
                                             "--handshake-ms",
                                             "--frame-ms",
                                             "--max-connections",
                                             "--peer-timeout-ms",
                                             "--spin-us",
                                             "--max-federations",
                                             "--max-federates",
                                             "--log-level",
                                             "--max-fom-bytes",
                                             "--max-federation-objects",
                                             "--unjoined-federation-ms",
                                             "--max-total-queued-bytes",
                                             "--shuffle-ties"};

static int takes_value(const char *a)
{
    for (size_t k = 0; k < sizeof valued_options / sizeof valued_options[0]; k++)
        if (strcmp(a, valued_options[k]) == 0) return 1;
    for (size_t k = 0; k < N_QUOTA_OPTIONS; k++)
        if (strcmp(a, quota_options[k].name) == 0) return 1;
    return 0;
}

/* The command line into cfg and the log level. Returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, struct server_config *cfg, int *lv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--version") == 0) {
            printf("tempo-rti %s\n", TEMPO_VERSION);
            return 0;
        }
        if (strcmp(a, "--allow-remote") == 0) {
            cfg->allow_remote = 1;
            continue;
        }
        if (strcmp(a, "--keep-federations") == 0) {
            cfg->keep_federations = 1;
            continue;
        }
        if (!takes_value(a)) {
            fprintf(stderr, "tempo-rti: unknown option %s (see --help)\n", a);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "tempo-rti: %s needs a value (see --help)\n", a);
            return 2;
        }
        int rc = parse_valued(a, argv[++i], cfg, lv);
        if (rc != 0) return rc;
    }
    unsigned mode;
    char merr[300];
    if (outfile_mode(&mode, merr, sizeof merr) != 0) {
        fprintf(stderr, "tempo-rti: %s\n", merr);
        return 2;
    }
    /* The federation logs' folder: made private when missing; refused when anyone may
     * replace what is written there (doc/run.md "Output files"). */
    if (cfg->flog_dir && outfile_mkdirs(cfg->flog_dir, merr, sizeof merr) != 0) {
        fprintf(stderr, "tempo-rti: --log: %s\n", merr);
        return 2;
    }
    if (cfg->checkpoint_dir && outfile_mkdirs(cfg->checkpoint_dir, merr, sizeof merr) != 0) {
        fprintf(stderr, "tempo-rti: --checkpoint-dir: %s\n", merr);
        return 2;
    }
    if (!cfg->secret) { /* the environment, as libtempo reads it */
        static char from_env[SECRET_MAX + 1];
        char err[400];
        int r = secret_from_env(from_env, sizeof from_env, err, sizeof err);
        if (r < 0) {
            fprintf(stderr, "tempo-rti: %s\n", err);
            return 2;
        }
        if (r == 1) cfg->secret = from_env;
    }
    size_t frame = cfg->max_frame ? cfg->max_frame : CONN_DEFAULT_MAX_FRAME;
    size_t queued = cfg->max_queued ? cfg->max_queued : CONN_DEFAULT_MAX_QUEUED;
    if (queued < 2 * frame) {
        fprintf(stderr,
                "tempo-rti: --max-queued-bytes (%zu) must be at least twice "
                "--max-frame (%zu)\n",
                queued, frame);
        return 2;
    }
    return -1;
}

int main(int argc, char **argv)
{
    struct server_config cfg = {0};
    int lv = LOG_LV_INFO;
    int rc = parse_args(argc, argv, &cfg, &lv);
    if (rc >= 0) return rc;
    log_set_level(lv);
    struct server *s;
    char err[512];
    if (server_new(&cfg, &s, err, sizeof err) != 0) {
        fprintf(stderr, "tempo-rti: %s\n", err);
        return 1;
    }
    if (server_address(s)[0]) printf("tempo-rti listening on %s\n", server_address(s));
    if (cfg.unix_path) printf("tempo-rti listening on unix:%s\n", cfg.unix_path);
    if (server_http_address(s)[0])
        printf("tempo-rti live view on http://%s/\n", server_http_address(s));
    fflush(stdout);
    LOGI("server", "-", "ready%s%s", cfg.secret ? " (joins need the shared secret)" : "",
         cfg.allow_remote ? " (remote connections allowed)" : "");
    rc = server_run(s);
    server_free(s);
    LOGI("server", "-", "stopped");
    return rc == 0 ? 0 : 1;
}
