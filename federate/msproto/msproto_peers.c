/* The federates' names by handle (federate/msproto/msproto_peers.h, doc/master.md "Commands
 * only from the master"). A plain array searched linearly: a master-slave federation holds a
 * handful of federates, and the table is read only when a message must be refused or a handle
 * bound, never per accepted message. */
#include "federate/msproto/msproto_peers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct peer {
    uint32_t fed; /* handle, never 0 */
    int joined;   /* 0 once it resigned */
    char *name;   /* owned */
} peer;

struct msproto_peers {
    peer *v;
    size_t n, cap;
};

msproto_peers *msproto_peers_new(void)
{
    return calloc(1, sizeof(msproto_peers));
}

void msproto_peers_free(msproto_peers *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i].name);
    free(p->v);
    free(p);
}

int msproto_peers_joined(msproto_peers *p, uint32_t fed, const char *name)
{
    if (!p || !fed || !name) return -1;
    for (size_t i = 0; i < p->n; i++)
        if (p->v[i].fed == fed) return 0; /* first binding wins */
    if (p->n == MSPROTO_PEERS_MAX) {      /* forget the oldest federate that left, if any */
        size_t k = 0;
        while (k < p->n && p->v[k].joined)
            k++;
        if (k == p->n) return -1;
        free(p->v[k].name);
        memmove(&p->v[k], &p->v[k + 1], (p->n - k - 1) * sizeof *p->v);
        p->n--;
    }
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 8;
        peer *nv = realloc(p->v, cap * sizeof *nv);
        if (!nv) return -1;
        p->v = nv, p->cap = cap;
    }
    char *copy = strdup(name);
    if (!copy) return -1;
    p->v[p->n++] = (peer){fed, 1, copy};
    return 0;
}

void msproto_peers_resigned(msproto_peers *p, uint32_t fed)
{
    for (size_t i = 0; p && i < p->n; i++)
        if (p->v[i].fed == fed) p->v[i].joined = 0;
}

uint32_t msproto_peers_handle(const msproto_peers *p, const char *name)
{
    for (size_t i = 0; p && name && i < p->n; i++)
        if (p->v[i].joined && strcmp(p->v[i].name, name) == 0) return p->v[i].fed;
    return 0;
}

const char *msproto_peers_describe(const msproto_peers *p, uint32_t fed, char *buf, size_t cap)
{
    if (!cap) return buf;
    for (size_t i = 0; p && i < p->n; i++)
        if (p->v[i].fed == fed) {
            snprintf(buf, cap, "%.127s (federate %u)", p->v[i].name, (unsigned)fed);
            return buf;
        }
    snprintf(buf, cap, "federate %u (name unknown)", (unsigned)fed);
    return buf;
}
