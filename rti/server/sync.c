/* Synchronization points: register (with a federate set, or all joined federates including
 * later joiners), announce to the set, achieve, and "federation synchronized" once every
 * member achieved; a resigning member is taken out of the set, so nobody waits on it.
 * Serves doc/fom.md. Read rti/server/timesvc.c next. */
#include "rti/server/server_impl.h"

#include "rti/server/limits.h"
#include "rti/server/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct syncpt *find(struct federation *fx, const struct wire_str *label)
{
    for (struct syncpt *p = fx->syncs; p; p = p->next)
        if (wire_str_eq(label, p->label)) return p;
    return NULL;
}

static void point_free(struct server *s, struct syncpt *p)
{
    /* two charges on the registrant's accounts (do_register), each with its own reference */
    limits_uncharge(s, &p->charge, QR_SYNC_BYTES, p->bytes);
    limits_uncharge(s, &p->charge_n, QR_SYNCS, 1);
    free(p->label);
    free(p->tag);
    free(p->members);
    free(p->achieved);
    free(p);
}

static void unlink_point(struct federation *fx, struct syncpt *p)
{
    struct server *s = fx->srv;
    for (struct syncpt **q = &fx->syncs; *q; q = &(*q)->next)
        if (*q == p) {
            *q = p->next;
            break;
        }
    point_free(s, p);
}

static int add_member(struct syncpt *p, uint64_t handle)
{
    if (p->n == p->cap) {
        uint32_t cap = p->cap ? 2 * p->cap : 8;
        uint64_t *m = realloc(p->members, cap * sizeof *m);
        if (!m) return -1;
        p->members = m;
        uint8_t *a = realloc(p->achieved, cap);
        if (!a) return -1;
        p->achieved = a;
        p->cap = cap;
    }
    p->members[p->n] = handle;
    p->achieved[p->n] = 0;
    p->n++;
    return 0;
}

static void announce(struct server *s, struct federate *to, const struct syncpt *p)
{
    struct wire_msg a;
    wire_msg_init(&a, WIRE_ANNOUNCE_SYNC);
    wire_str_set(&a.str[0], p->label);
    a.str[1].ptr = (const char *)p->tag;
    a.str[1].len = p->tag_len;
    server_send(s, to->conn, &a);
}

/* Everyone in the set achieved: tell them, forget the point. */
static void check_done(struct server *s, struct federation *fx, struct syncpt *p)
{
    for (uint32_t i = 0; i < p->n; i++)
        if (!p->achieved[i]) return;
    LOGI("sync", "-", "federation '%s' synchronized at '%s' (%u federate(s))", fx->name, p->label,
         p->n);
    struct wire_msg m;
    wire_msg_init(&m, WIRE_FEDERATION_SYNCED);
    wire_str_set(&m.str[0], p->label);
    for (uint32_t i = 0; i < p->n; i++) {
        struct federate *f = federation_federate(fx, p->members[i]);
        if (f) server_send(s, f->conn, &m);
    }
    unlink_point(fx, p);
}

static void registered(struct server *s, struct federate *f, const struct wire_msg *m,
                       uint32_t code, const char *why)
{
    struct wire_msg r;
    wire_msg_init(&r, WIRE_SYNC_REGISTERED);
    r.req = m->req;
    r.code = code;
    r.str[0] = m->str[0];
    wire_str_set(&r.str[1], why);
    if (code) LOGD("sync", f->tag, "registration refused: %s", why);
    server_send(s, f->conn, &r);
}

static void do_register(struct server *s, struct federate *f, const struct wire_msg *m)
{
    struct federation *fx = f->fx;
    char err[RTI_ERR_MAX], label[RTI_NAME_MAX];
    if (m->str[0].len == 0 || wire_str_copy(&m->str[0], label, sizeof label) != 0) {
        registered(s, f, m, STATUS_EINVAL, "synchronization label must be 1..127 bytes");
        return;
    }
    if (find(fx, &m->str[0])) {
        snprintf(err, sizeof err, "synchronization point '%s' is already registered", label);
        registered(s, f, m, STATUS_EEXISTS, err);
        return;
    }
    for (uint32_t i = 0; i < m->nhandles; i++) {
        if (!federation_federate(fx, wire_msg_handle(m, i))) {
            snprintf(err, sizeof err,
                     "synchronization point '%s': federate handle %u is not joined", label,
                     wire_msg_handle(m, i));
            registered(s, f, m, STATUS_ENOTFOUND, err);
            return;
        }
    }
    /* Counted against the registrant's connection and address while pending, label and tag
     * bytes too (doc/rti.md "Memory quotas"). */
    uint64_t bytes = (uint64_t)m->str[0].len + m->str[1].len;
    struct charge cn, cb;
    int st = limits_charge(s, federate_accts(f), &cn, QR_SYNCS, 1, "REGISTER_SYNC", f->name, err,
                           sizeof err);
    if (st == STATUS_OK) {
        st = limits_charge(s, federate_accts(f), &cb, QR_SYNC_BYTES, bytes, "REGISTER_SYNC",
                           f->name, err, sizeof err);
        if (st != STATUS_OK) limits_uncharge(s, &cn, QR_SYNCS, 1);
    }
    if (st != STATUS_OK) {
        registered(s, f, m, (uint32_t)st, err);
        return;
    }
    struct syncpt *p = calloc(1, sizeof *p);
    if (p) {
        p->charge_n = cn;
        p->charge = cb;
        p->bytes = bytes;
    }
    if (!p || !(p->label = strdup(label)) || (m->str[1].len && !(p->tag = malloc(m->str[1].len)))) {
        if (p) {
            point_free(s, p);
        } else {
            limits_uncharge(s, &cn, QR_SYNCS, 1);
            limits_uncharge(s, &cb, QR_SYNC_BYTES, bytes);
        }
        registered(s, f, m, STATUS_EREFUSED, "out of memory");
        return;
    }
    if (m->str[1].len) memcpy(p->tag, m->str[1].ptr, m->str[1].len);
    p->tag_len = m->str[1].len;
    p->all = m->nhandles == 0;
    int fail = 0;
    if (p->all) {
        for (uint32_t i = 0; i < fx->slot_cap; i++)
            if (fx->slots[i]) fail |= add_member(p, fx->slots[i]->handle);
    } else {
        for (uint32_t i = 0; i < m->nhandles; i++) {
            uint64_t h = wire_msg_handle(m, i);
            int dup = 0;
            for (uint32_t k = 0; k < p->n; k++)
                dup |= p->members[k] == h;
            if (!dup) fail |= add_member(p, h);
        }
    }
    if (fail) {
        point_free(s, p);
        registered(s, f, m, STATUS_EREFUSED, "out of memory");
        return;
    }
    p->next = fx->syncs;
    fx->syncs = p;
    LOGI("sync", f->tag, "registered synchronization point '%s' for %s (%u federate(s))", label,
         p->all ? "all" : "a set", p->n);
    registered(s, f, m, STATUS_OK, "");
    for (uint32_t i = 0; i < p->n; i++) {
        struct federate *to = federation_federate(fx, p->members[i]);
        if (to) announce(s, to, p);
    }
}

static void do_achieve(struct server *s, struct federate *f, const struct wire_msg *m)
{
    struct federation *fx = f->fx;
    char err[RTI_ERR_MAX], label[RTI_NAME_MAX];
    wire_str_copy(&m->str[0], label, sizeof label);
    struct syncpt *p = find(fx, &m->str[0]);
    uint32_t i = 0;
    if (p)
        for (; i < p->n && p->members[i] != f->handle; i++)
            ;
    if (!p || i == p->n) {
        snprintf(err, sizeof err,
                 "ACHIEVE_SYNC: no synchronization point '%s' announced to "
                 "federate '%s'",
                 label, f->name);
        server_refuse(s, f->conn, m->req, m->type, STATUS_ENOTFOUND, err);
        return;
    }
    p->achieved[i] = 1;
    LOGD("sync", f->tag, "achieved '%s'", label);
    if (m->req) server_reply(s, f->conn, m->req, STATUS_OK, 0, "");
    check_done(s, fx, p);
}

void sync_handle(struct server *s, struct federate *f, const struct wire_msg *m)
{
    if (m->type == WIRE_REGISTER_SYNC)
        do_register(s, f, m);
    else
        do_achieve(s, f, m);
}

void sync_federate_joined(struct server *s, struct federate *f)
{
    for (struct syncpt *p = f->fx->syncs; p; p = p->next) {
        if (!p->all) continue;
        if (add_member(p, f->handle) != 0) {
            LOGE("sync", f->tag, "out of memory adding it to point '%s'", p->label);
            continue;
        }
        announce(s, f, p);
    }
}

void sync_federate_gone(struct server *s, struct federate *f)
{
    struct federation *fx = f->fx;
    struct syncpt *p = fx->syncs;
    while (p) {
        struct syncpt *next = p->next;
        for (uint32_t i = 0; i < p->n; i++) {
            if (p->members[i] == f->handle) {
                p->members[i] = p->members[p->n - 1];
                p->achieved[i] = p->achieved[p->n - 1];
                p->n--;
                break;
            }
        }
        if (p->n == 0)
            unlink_point(fx, p);
        else
            check_done(s, fx, p);
        p = next;
    }
}

void sync_fini(struct federation *fx)
{
    while (fx->syncs) {
        struct syncpt *p = fx->syncs;
        fx->syncs = p->next;
        point_free(fx->srv, p);
    }
}

/* ---- restore (rti/server/restore.c) ------------------------------------------------------- */

int sync_restore(struct federation *fx, const char *label, const uint8_t *tag, uint32_t tag_len,
                 int all, const uint64_t *members, const uint8_t *achieved, uint32_t n, char *err,
                 size_t errlen)
{
    struct wire_str key = {label, (uint32_t)strlen(label)};
    if (!label[0] || find(fx, &key)) {
        snprintf(err, errlen, "synchronization point '%s' empty or listed twice", label);
        return -1;
    }
    struct syncpt *p = calloc(1, sizeof *p);
    if (!p || !(p->label = strdup(label)) || (tag_len && !(p->tag = malloc(tag_len)))) {
        if (p) point_free(fx->srv, p);
        snprintf(err, errlen, "out of memory for synchronization point '%s'", label);
        return -1;
    }
    if (tag_len) memcpy(p->tag, tag, tag_len);
    p->tag_len = tag_len;
    p->all = all;
    for (uint32_t i = 0; i < n; i++) {
        if (!federation_federate(fx, members[i]) || achieved[i] > 1 || add_member(p, members[i])) {
            snprintf(err, errlen, "synchronization point '%s': member %llu unknown, or no memory",
                     label, (unsigned long long)members[i]);
            point_free(fx->srv, p);
            return -1;
        }
        p->achieved[i] = achieved[i];
    }
    struct syncpt **end = &fx->syncs;
    while (*end)
        end = &(*end)->next;
    *end = p; /* the saved order */
    return 0;
}
