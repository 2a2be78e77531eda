/* libtempo synchronization points: register, achieve, and blocking helpers that evoke
 * callbacks until a point is announced or the federation is synchronized (doc/fom.md).
 * The client remembers every label it heard of, so a wait that starts after the event
 * returns at once. Read federate/libtempo/client_time.c next. */
#include <stdlib.h>
#include <string.h>

#include "federate/libtempo/client_impl.h"

struct tpi_sync *tpi_sync_get(tp_federate *f, const char *label, size_t len, int create)
{
    if (!label && len) return NULL;
    /* Cost O(points heard of): a federation uses a handful of synchronization points. */
    for (size_t i = 0; i < f->n_syncs; i++)
        if (strlen(f->syncs[i].label) == len &&
            (len == 0 || memcmp(f->syncs[i].label, label, len) == 0))
            return &f->syncs[i];
    if (!create) return NULL;
    if (f->n_syncs == f->cap_syncs) {
        size_t cap = f->cap_syncs ? f->cap_syncs * 2 : 8;
        struct tpi_sync *s = realloc(f->syncs, cap * sizeof *s);
        if (!s) return NULL;
        f->syncs = s;
        f->cap_syncs = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy) return NULL;
    if (len) memcpy(copy, label, len);
    copy[len] = '\0';
    struct tpi_sync *s = &f->syncs[f->n_syncs++];
    *s = (struct tpi_sync){.label = copy};
    return s;
}

int tp_register_sync(tp_federate *f, const char *label, const void *tag, size_t tag_size,
                     const tp_fed *feds, size_t n)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (!label || !*label) return tpi_fail(f, TP_EINVAL, "tp_register_sync: empty label");
    if ((tag_size && !tag) || tag_size > UINT32_MAX || (n && !feds) || n > UINT32_MAX)
        return tpi_fail(f, TP_EINVAL, "tp_register_sync(\"%s\"): bad tag or federate list", label);
    /* tp_fed and the wire's handle list are both uint32_t. */
    struct wire_msg m;
    wire_msg_init(&m, WIRE_REGISTER_SYNC);
    m.req = tpi_req(f);
    wire_str_set(&m.str[0], label);
    m.str[1].ptr = tag;
    m.str[1].len = (uint32_t)tag_size;
    m.nhandles = (uint32_t)n;
    m.handles = n ? feds : NULL;
    return tpi_send(f, &m);
}

int tp_achieve_sync(tp_federate *f, const char *label)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (!label || !*label) return tpi_fail(f, TP_EINVAL, "tp_achieve_sync: empty label");
    struct tpi_sync *s = tpi_sync_get(f, label, strlen(label), 0);
    if (!s || !s->announced)
        return tpi_fail(f, TP_ENOTFOUND,
                        "tp_achieve_sync: synchronization point \"%s\" was "
                        "not announced to federate \"%s\"",
                        label, f->name);
    struct wire_msg m;
    wire_msg_init(&m, WIRE_ACHIEVE_SYNC);
    m.req = 0;
    wire_str_set(&m.str[0], label);
    if ((r = tpi_send(f, &m)) < 0) return r;
    s->achieved = 1;
    return TP_OK;
}

static int is_announced(tp_federate *f, const void *label)
{
    const struct tpi_sync *s = tpi_sync_get(f, label, strlen(label), 0);
    return s && s->announced;
}

static int is_synced(tp_federate *f, const void *label)
{
    const struct tpi_sync *s = tpi_sync_get(f, label, strlen(label), 0);
    return s && s->synced;
}

int tp_wait_announced(tp_federate *f, const char *label, int timeout_ms)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (!label) return tpi_fail(f, TP_EINVAL, "tp_wait_announced: label is NULL");
    return tpi_wait_until(f, is_announced, label, timeout_ms);
}

int tp_wait_sync(tp_federate *f, const char *label, int timeout_ms)
{
    int r = tpi_check_joined(f);
    if (r < 0) return r;
    if (!label) return tpi_fail(f, TP_EINVAL, "tp_wait_sync: label is NULL");
    return tpi_wait_until(f, is_synced, label, timeout_ms);
}

int tp_sync(tp_federate *f, const char *label, int timeout_ms)
{
    int r = tp_wait_announced(f, label, timeout_ms);
    if (r != TP_OK) return r;
    const struct tpi_sync *s = tpi_sync_get(f, label, strlen(label), 0);
    if (!s->achieved && (r = tp_achieve_sync(f, label)) < 0) return r;
    return tp_wait_sync(f, label, timeout_ms);
}
