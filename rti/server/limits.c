/* Quotas of the RTI (doc/rti.md "Limits and what the RTI refuses", "Memory quotas"): FOM text
 * size, the accounts of connections and addresses (objects, synchronization points and their
 * bytes, federations nobody joined, time-stamped messages held), objects per federation, and
 * handing memory back after a federate that owned many objects leaves. The federation count
 * is checked in federation.c, the output queued in conn.c (both at their one place of growth).
 * Each refusal names the option that sets the limit. Charging and uncharging only add and
 * subtract: no allocation on the hot path (doc/contributing.md §8). */
#include "rti/server/limits.h"

#include "rti/server/log.h"
#include "rti/server/server_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* The option that sets each limit, [resource][scope] (rti/server/main.c parses them). */
static const char *const option_of[QR_COUNT][QS_COUNT] = {
    [QR_OBJECTS] = {"--max-objects", "--max-address-objects, by default --max-objects"},
    [QR_SYNCS] = {"--max-sync-points", "--max-address-sync-points"},
    [QR_SYNC_BYTES] = {"--max-sync-bytes", "--max-address-sync-bytes"},
    [QR_UNJOINED] = {"--max-unjoined-federations", "--max-address-unjoined-federations"},
    [QR_PENDING] = {"--max-pending-messages", "--max-address-pending-messages"},
};

/* What each resource is called in a refusal. */
static const char *const unit_of[QR_COUNT] = {
    [QR_OBJECTS] = "object(s), kept ones included",
    [QR_SYNCS] = "pending synchronization point(s)",
    [QR_SYNC_BYTES] = "bytes of synchronization labels and tags",
    [QR_UNJOINED] = "federation(s) created that nobody joined",
    [QR_PENDING] = "time-stamped message(s) waiting for delivery",
};

void limits_defaults(struct server *s)
{
    static const uint64_t def[QR_COUNT][QS_COUNT] = {
        [QR_OBJECTS] = {SERVER_MAX_OBJECTS_DEFAULT, 0}, /* address: as per connection */
        [QR_SYNCS] = {SERVER_MAX_SYNC_POINTS_DEFAULT, SERVER_MAX_ADDRESS_SYNC_POINTS_DEFAULT},
        [QR_SYNC_BYTES] = {SERVER_MAX_SYNC_BYTES_DEFAULT, SERVER_MAX_ADDRESS_SYNC_BYTES_DEFAULT},
        [QR_UNJOINED] = {SERVER_MAX_UNJOINED_DEFAULT, SERVER_MAX_ADDRESS_UNJOINED_DEFAULT},
        [QR_PENDING] = {SERVER_MAX_PENDING_DEFAULT, SERVER_MAX_ADDRESS_PENDING_DEFAULT},
    };
    for (int r = 0; r < QR_COUNT; r++)
        for (int k = 0; k < QS_COUNT; k++)
            if (!s->cfg.quota[r][k]) s->cfg.quota[r][k] = def[r][k];
    /* --max-objects bounds one address and one federation too unless they are set apart:
     * reconnecting, or resigning with "keep" and rejoining under new names, frees no room */
    uint64_t objects = s->cfg.quota[QR_OBJECTS][QS_CONN];
    if (!s->cfg.quota[QR_OBJECTS][QS_ADDR]) s->cfg.quota[QR_OBJECTS][QS_ADDR] = objects;
    if (!s->cfg.max_federation_objects)
        s->cfg.max_federation_objects = objects > UINT32_MAX ? UINT32_MAX : (uint32_t)objects;
    if (!s->cfg.unjoined_ms) s->cfg.unjoined_ms = SERVER_UNJOINED_MS_DEFAULT;
}

int64_t limits_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- accounts ------------------------------------------------------------------------------ */

static void acct_unref(struct server *s, struct acct *a)
{
    if (!a || --a->refs > 0) return;
    if (a->scope == QS_ADDR)
        for (struct acct **p = &s->addrs; *p; p = &(*p)->next)
            if (*p == a) {
                *p = a->next;
                break;
            }
    free(a);
}

/* The account of address @p addr, created on first use; one more reference. */
static struct acct *addr_acct(struct server *s, const char *addr)
{
    for (struct acct *a = s->addrs; a; a = a->next)
        if (strcmp(a->addr, addr) == 0) {
            a->refs++;
            return a;
        }
    struct acct *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->scope = QS_ADDR;
    a->refs = 1;
    snprintf(a->addr, sizeof a->addr, "%s", addr);
    a->next = s->addrs;
    s->addrs = a;
    return a;
}

int limits_open(struct server *s, const struct link *c, struct charge *out)
{
    out->a[QS_CONN] = calloc(1, sizeof *out->a[QS_CONN]);
    out->a[QS_ADDR] = out->a[QS_CONN] ? addr_acct(s, c->addr) : NULL;
    if (!out->a[QS_ADDR]) {
        free(out->a[QS_CONN]);
        out->a[QS_CONN] = NULL;
        return -1;
    }
    out->a[QS_CONN]->scope = QS_CONN;
    out->a[QS_CONN]->refs = 1;
    return 0;
}

void limits_close(struct server *s, struct charge *c)
{
    for (int k = 0; k < QS_COUNT; k++) {
        acct_unref(s, c->a[k]);
        c->a[k] = NULL;
    }
}

int limits_charge(struct server *s, const struct charge *from, struct charge *dst,
                  enum quota_res res, uint64_t amount, const char *what, const char *who, char *err,
                  size_t errlen)
{
    dst->a[QS_CONN] = dst->a[QS_ADDR] = NULL;
    if (!from) return STATUS_OK;
    for (int k = 0; k < QS_COUNT; k++) {
        const struct acct *a = from->a[k];
        uint64_t lim = s->cfg.quota[res][k];
        if (!a || (a->used[res] <= lim && amount <= lim - a->used[res])) continue;
        if (k == QS_CONN)
            snprintf(err, errlen,
                     "%s: the connection of %s already holds %llu %s; %llu more would pass the "
                     "RTI's limit of %llu (%s)",
                     what, who, (unsigned long long)a->used[res], unit_of[res],
                     (unsigned long long)amount, (unsigned long long)lim, option_of[res][k]);
        else
            snprintf(err, errlen,
                     "%s: the connections from address %s (%s's) already hold %llu %s; %llu "
                     "more would pass the RTI's limit of %llu (%s)",
                     what, a->addr, who, (unsigned long long)a->used[res], unit_of[res],
                     (unsigned long long)amount, (unsigned long long)lim, option_of[res][k]);
        return STATUS_EREFUSED;
    }
    for (int k = 0; k < QS_COUNT; k++) {
        struct acct *a = from->a[k];
        if (!a) continue;
        a->used[res] += amount;
        a->refs++;
        dst->a[k] = a;
    }
    return STATUS_OK;
}

void limits_uncharge(struct server *s, struct charge *dst, enum quota_res res, uint64_t amount)
{
    for (int k = 0; k < QS_COUNT; k++) {
        struct acct *a = dst->a[k];
        if (!a) continue;
        if (a->used[res] < amount) /* our own accounting is wrong: say so, never wrap */
            LOGE("limits", a->addr, "quota account: %llu %s returned, only %llu charged",
                 (unsigned long long)amount, unit_of[res], (unsigned long long)a->used[res]);
        a->used[res] = a->used[res] >= amount ? a->used[res] - amount : 0;
        acct_unref(s, a);
        dst->a[k] = NULL;
    }
}

/* ---- fixed limits -------------------------------------------------------------------------- */

int limits_fom(const struct server *s, const char *fxname, size_t fom_len, char *err, size_t errlen)
{
    if (fom_len <= s->cfg.max_fom_bytes) return STATUS_OK;
    snprintf(err, errlen,
             "federation '%s': FOM text of %zu bytes is over the RTI's limit of %zu "
             "(--max-fom-bytes)",
             fxname, fom_len, s->cfg.max_fom_bytes);
    return STATUS_EREFUSED;
}

int limits_federation_objects(const struct server *s, const struct federation *fx, char *err,
                              size_t errlen)
{
    if (fx->n_objects < s->cfg.max_federation_objects) return STATUS_OK;
    snprintf(err, errlen,
             "REGISTER_OBJECT: federation '%s' already holds %u objects, kept ones included, "
             "the RTI's limit (--max-federation-objects, by default --max-objects)",
             fx->name, fx->n_objects);
    return STATUS_EREFUSED;
}

void limits_released(const struct server *s, uint32_t n_objects)
{
    /* Many small blocks freed at once: without a trim glibc keeps them for reuse by this
     * process, and the RTI's resident size would stay at its peak. */
    if (n_objects < LIMITS_TRIM_OBJECTS) return;
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    LOGD("server", "-", "%u objects freed: memory handed back to the system", n_objects);
}
