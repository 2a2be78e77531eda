/* FOM reader (fom/fom.h): libxml2 DOM → handle tables for object classes/attributes and
 * interaction classes/parameters, plus name lookups and the canonical fingerprint.
 * doc/fom.md; the schema is doc/fom.md. Divisions: storage, XML helpers, schema walk,
 * fingerprint, libxml2 error capture, entry points, queries, data types and values.
 * Read tests/unit/fom_test.c next. */
#include "fom/fom.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

enum {
    MAX_DEPTH = 64,              /* class nesting levels accepted */
    MAX_FILE = 16 * 1024 * 1024, /* bytes of FOM text accepted (files and memory) */
    MAX_NAME = 256               /* bytes of one name */
};

/* ======================================================================================
 * Storage. Object classes and interaction classes share one representation: a tree of
 * nodes (classes) each declaring members (attributes / parameters).
 * ====================================================================================== */

/* Name index: open addressing over (owner, name) → handle. Makes every lookup and duplicate
 * check O(1) (times the depth for inherited members), so parsing is linear in the input;
 * a quadratic scan would let one JOIN carrying a large FOM stall the RTI. */
struct hent {
    const char *name; /* key, points to the name owned by the node/member table */
    uint32_t owner;   /* key: 0 for class names, the declaring node for members */
    fom_handle h;     /* value; FOM_NONE marks an empty slot */
};

struct htab {
    struct hent *e; /* cap entries */
    uint32_t cap;   /* power of two, or 0 */
    uint32_t n;     /* used entries; kept <= cap / 2 */
};

struct member {
    char *name;         /* simple name, unique within the node's full member set */
    enum fom_type type; /* data type */
    uint32_t length;    /* fixed float64 array length, 0 = scalar or variable */
    fom_handle owner;   /* declaring node */
};

struct node {
    char *name;           /* simple name, unique in the tree */
    char *qname;          /* "Root.Sub.Leaf" */
    fom_handle parent;    /* FOM_NONE for a root */
    uint32_t depth;       /* 1 for a root */
    fom_handle mem_first; /* first declared member; declared members are contiguous because
                            they precede the node's subclasses (schema rule) */
    uint32_t mem_count;   /* members declared here (inherited ones not counted) */
};

struct tree {
    struct node *nodes; /* handle h is nodes[h - 1] */
    uint32_t nnodes, capn;
    struct member *mems; /* handle h is mems[h - 1] */
    uint32_t nmems, capm;
    struct htab node_ix; /* (0, name) → node */
    struct htab mem_ix;  /* (declaring node, name) → member */
};

struct fom {
    char *name;        /* root name= */
    double resolution; /* seconds per tick */
    uint64_t fp;       /* canonical fingerprint */
    struct tree obj;   /* object classes and attributes */
    struct tree inter; /* interaction classes and parameters */
};

/* Parse state: where we are and where errors go. */
struct pctx {
    struct fom *f;
    const char *src; /* file name or memory name for messages */
    char *err;
    size_t errlen;
    size_t qbudget; /* bytes of qualified names still allowed (memory stays linear) */
};

/* Words used in messages, per tree. */
struct vocab {
    const char *node_el;   /* "class" / "interaction" */
    const char *member_el; /* "attribute" / "parameter" */
};

static const struct vocab OBJ_WORDS = {"class", "attribute"};
static const struct vocab INTER_WORDS = {"interaction", "parameter"};

static int fail_at(struct pctx *c, int status, long line, const char *fmt, ...)
{
    if (c->err && c->errlen > 0) {
        int k = line > 0 ? snprintf(c->err, c->errlen, "%s:%ld: ", c->src, line)
                         : snprintf(c->err, c->errlen, "%s: ", c->src);
        if (k >= 0 && (size_t)k < c->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(c->err + k, c->errlen - (size_t)k, fmt, ap);
            va_end(ap);
        }
    }
    return status;
}

static void tree_free(struct tree *t)
{
    for (uint32_t i = 0; i < t->nnodes; i++) {
        free(t->nodes[i].name);
        free(t->nodes[i].qname);
    }
    for (uint32_t i = 0; i < t->nmems; i++)
        free(t->mems[i].name);
    free(t->nodes);
    free(t->mems);
    free(t->node_ix.e);
    free(t->mem_ix.e);
}

static uint32_t h_hash(uint32_t owner, const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull ^ owner;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ull;
    }
    return (uint32_t)(h ^ (h >> 32));
}

static fom_handle h_get(const struct htab *t, uint32_t owner, const char *name)
{
    if (t->cap == 0) return FOM_NONE;
    for (uint32_t i = h_hash(owner, name) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        const struct hent *e = &t->e[i];
        if (e->h == FOM_NONE) return FOM_NONE;
        if (e->owner == owner && strcmp(e->name, name) == 0) return e->h;
    }
}

static void h_insert(struct htab *t, struct hent v)
{
    uint32_t i = h_hash(v.owner, v.name) & (t->cap - 1);
    while (t->e[i].h != FOM_NONE)
        i = (i + 1) & (t->cap - 1);
    t->e[i] = v;
    t->n++;
}

/* Add a key known to be absent. @return 0, or -1 when out of memory (table unchanged). */
static int h_put(struct htab *t, uint32_t owner, const char *name, fom_handle h)
{
    if (2 * (t->n + 1) > t->cap) {
        uint32_t ncap = t->cap ? 2 * t->cap : 64;
        struct hent *ne = calloc(ncap, sizeof *ne);
        if (!ne) return -1;
        struct htab nt = {ne, ncap, 0};
        for (uint32_t i = 0; i < t->cap; i++)
            if (t->e[i].h != FOM_NONE) h_insert(&nt, t->e[i]);
        free(t->e);
        *t = nt;
    }
    h_insert(t, (struct hent){name, owner, h});
    return 0;
}

void fom_free(struct fom *f)
{
    if (!f) return;
    free(f->name);
    tree_free(&f->obj);
    tree_free(&f->inter);
    free(f);
}

static int grow(void **arr, uint32_t *cap, uint32_t n, size_t elem)
{
    if (n < *cap) return 0;
    uint32_t nc = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, (size_t)nc * elem);
    if (!p) return -1;
    *arr = p;
    *cap = nc;
    return 0;
}

/* ======================================================================================
 * XML helpers
 * ====================================================================================== */

static long line_of(const xmlNode *n)
{
    return n ? xmlGetLineNo(n) : 0;
}

static int is_blank(const xmlChar *s)
{
    for (; s && *s; s++)
        if (!isspace(*s)) return 0;
    return 1;
}

/* Refuse any XML attribute on element n that is not in the NULL-terminated list. */
static int check_attrs(struct pctx *c, const xmlNode *n, const char *const *allowed)
{
    for (const xmlAttr *a = n->properties; a; a = a->next) {
        int ok = 0;
        for (const char *const *p = allowed; *p; p++)
            if (strcmp((const char *)a->name, *p) == 0) ok = 1;
        if (!ok || a->ns)
            return fail_at(c, FOM_ESCHEMA, line_of(n), "unknown attribute '%s' on <%s>",
                           (const char *)a->name, (const char *)n->name);
    }
    return FOM_OK;
}

/* Copy attribute `key` of n into a malloc'd string; NULL when missing (*oom set on OOM). */
static char *get_attr(const xmlNode *n, const char *key, int *oom)
{
    xmlChar *v = xmlGetNoNsProp(n, (const xmlChar *)key);
    if (!v) return NULL;
    char *s = strdup((const char *)v);
    xmlFree(v);
    if (!s) *oom = 1;
    return s;
}

/* A name is an identifier: [A-Za-z_][A-Za-z0-9_]*, so that "A.B" qualified names and the
 * fingerprint's serialization are unambiguous. */
static int valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > MAX_NAME) return 0;
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_')) return 0;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return 0;
    return 1;
}

/* Read the required name= of element n into *out (malloc'd, caller frees). */
static int need_name(struct pctx *c, const xmlNode *n, char **out)
{
    int oom = 0;
    char *s = get_attr(n, "name", &oom);
    if (oom) return fail_at(c, FOM_ENOMEM, line_of(n), "out of memory");
    if (!s) return fail_at(c, FOM_ESCHEMA, line_of(n), "<%s> without name", (const char *)n->name);
    if (!valid_name(s)) {
        int rc = fail_at(c, FOM_ESCHEMA, line_of(n),
                         "invalid name \"%.64s\" on <%s> (letters, digits, '_'; not starting "
                         "with a digit; at most %d bytes)",
                         s, (const char *)n->name, MAX_NAME);
        free(s);
        return rc;
    }
    *out = s;
    return FOM_OK;
}

/* Line of the first non-blank character of a text node: libxml2 stamps a text node with the
 * line where the text ends, so step back over the newlines that follow that character. */
static long text_line(const xmlNode *k)
{
    long line = line_of(k);
    const xmlChar *s = k->content;
    while (s && *s && isspace(*s))
        s++;
    for (; s && *s; s++)
        if (*s == '\n' && line > 1) line--;
    return line;
}

/* The schema has no namespaces: an element in one is refused rather than matched by its
 * local name. */
static int check_no_ns(struct pctx *c, const xmlNode *k)
{
    if (!k->ns) return FOM_OK;
    return fail_at(c, FOM_ESCHEMA, line_of(k),
                   "element <%s> is in a namespace (%s); FOM "
                   "elements take none",
                   (const char *)k->name, k->ns->href ? (const char *)k->ns->href : "?");
}

/* Element children are handled by the walkers; text must be blank; comments and
 * processing instructions are ignored; anything else (CDATA, entity refs) is refused. */
static int check_other_child(struct pctx *c, const xmlNode *parent, const xmlNode *k)
{
    switch (k->type) {
    case XML_TEXT_NODE:
        if (is_blank(k->content)) return FOM_OK;
        return fail_at(c, FOM_ESCHEMA, text_line(k), "unexpected text inside <%s>",
                       (const char *)parent->name);
    case XML_COMMENT_NODE:
    case XML_PI_NODE:
        return FOM_OK;
    default:
        return fail_at(c, FOM_ESCHEMA, line_of(k), "unexpected content inside <%s>",
                       (const char *)parent->name);
    }
}

/* ======================================================================================
 * Schema walk
 * ====================================================================================== */

/* Parse a type string: float64 int64 int32 boolean string bytes float64[] float64[N]. */
static int parse_type(const char *s, enum fom_type *t, uint32_t *len)
{
    static const struct {
        const char *name;
        enum fom_type t;
    } names[] = {
        {"float64", FOM_T_FLOAT64},        {"int64", FOM_T_INT64},   {"int32", FOM_T_INT32},
        {"boolean", FOM_T_BOOLEAN},        {"string", FOM_T_STRING}, {"bytes", FOM_T_BYTES},
        {"float64[]", FOM_T_FLOAT64_ARRAY}};
    *len = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0) {
            *t = names[i].t;
            return 0;
        }
    if (strncmp(s, "float64[", 8) != 0) return -1;
    const char *p = s + 8;
    unsigned long v = 0;
    if (*p < '1' || *p > '9') return -1; /* no sign, no leading zero, no blank */
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (unsigned long)(*p - '0');
        if (v > FOM_ARRAY_MAX) return -1;
    }
    if (p[0] != ']' || p[1] != '\0') return -1;
    *t = FOM_T_FLOAT64_ARRAY;
    *len = (uint32_t)v;
    return 0;
}

static struct node *node_at(const struct tree *t, fom_handle h)
{
    return (h >= 1 && h <= t->nnodes) ? &t->nodes[h - 1] : NULL;
}

static struct member *mem_at(const struct tree *t, fom_handle h)
{
    return (h >= 1 && h <= t->nmems) ? &t->mems[h - 1] : NULL;
}

/* <attribute name= type=/> or <parameter .../> declared by node `owner`. */
static int walk_member(struct pctx *c, struct tree *t, const struct vocab *w, const xmlNode *n,
                       fom_handle owner)
{
    static const char *const allowed[] = {"name", "type", NULL};
    int rc = check_attrs(c, n, allowed);
    if (rc) return rc;
    for (const xmlNode *k = n->children; k; k = k->next)
        if (k->type == XML_ELEMENT_NODE)
            return fail_at(c, FOM_ESCHEMA, line_of(k), "unknown element <%s> inside <%s>",
                           (const char *)k->name, w->member_el);
        else if ((rc = check_other_child(c, n, k)))
            return rc;
    char *name = NULL;
    if ((rc = need_name(c, n, &name))) return rc;
    struct node *o = node_at(t, owner);
    /* Unique among the members of the owner and its ancestors: O(depth) lookups. */
    for (fom_handle a = owner; a != FOM_NONE; a = node_at(t, a)->parent)
        if (h_get(&t->mem_ix, a, name) != FOM_NONE) {
            rc =
                fail_at(c, FOM_ESCHEMA, line_of(n), "duplicate %s \"%s\" in %s %s (declared in %s)",
                        w->member_el, name, w->node_el, o->qname, node_at(t, a)->qname);
            free(name);
            return rc;
        }
    int oom = 0;
    char *ty = get_attr(n, "type", &oom);
    enum fom_type type = FOM_T_NONE;
    uint32_t length = 0;
    if (oom)
        rc = fail_at(c, FOM_ENOMEM, line_of(n), "out of memory");
    else if (!ty)
        rc = fail_at(c, FOM_ESCHEMA, line_of(n), "%s \"%s\" without type", w->member_el, name);
    else if (parse_type(ty, &type, &length) != 0)
        rc = fail_at(c, FOM_ESCHEMA, line_of(n),
                     "unknown type \"%.64s\" for %s \"%s\" (float64, int64, int32, boolean, "
                     "string, bytes, float64[], float64[N] with 1 <= N <= %u)",
                     ty, w->member_el, name, FOM_ARRAY_MAX);
    free(ty);
    if (rc) {
        free(name);
        return rc;
    }
    /* Append to the member table; the owner's declared range grows by one (its members are
     * read before anything else is added). */
    if (grow((void **)&t->mems, &t->capm, t->nmems, sizeof *t->mems) ||
        h_put(&t->mem_ix, owner, name, t->nmems + 1)) {
        free(name);
        return fail_at(c, FOM_ENOMEM, line_of(n), "out of memory");
    }
    t->mems[t->nmems] = (struct member){name, type, length, owner};
    t->nmems++;
    if (o->mem_count == 0) o->mem_first = t->nmems;
    o->mem_count++;
    return FOM_OK;
}

/* Add a node named `name` (ownership taken) under `parent`. */
static int add_node(struct pctx *c, struct tree *t, const struct vocab *w, const xmlNode *n,
                    char *name, fom_handle parent, fom_handle *out)
{
    fom_handle dup = h_get(&t->node_ix, 0, name);
    if (dup != FOM_NONE) {
        int rc = fail_at(c, FOM_ESCHEMA, line_of(n), "duplicate %s name \"%s\" (first as %s)",
                         w->node_el, name, node_at(t, dup)->qname);
        free(name);
        return rc;
    }
    /* Grow first: the parent pointer below must not point into the old array. */
    if (grow((void **)&t->nodes, &t->capn, t->nnodes, sizeof *t->nodes)) {
        free(name);
        return fail_at(c, FOM_ENOMEM, line_of(n), "out of memory");
    }
    const struct node *p = node_at(t, parent);
    size_t ql = strlen(name) + (p ? strlen(p->qname) + 1 : 0) + 1;
    if (ql > c->qbudget) {
        free(name);
        return fail_at(c, FOM_ESCHEMA, line_of(n),
                       "qualified names too long in total (deep nesting of long names)");
    }
    c->qbudget -= ql;
    char *qname = malloc(ql);
    if (!qname || h_put(&t->node_ix, 0, name, t->nnodes + 1)) {
        free(qname);
        free(name);
        return fail_at(c, FOM_ENOMEM, line_of(n), "out of memory");
    }
    if (p)
        snprintf(qname, ql, "%s.%s", p->qname, name);
    else
        snprintf(qname, ql, "%s", name);
    t->nodes[t->nnodes] = (struct node){name, qname, parent, p ? p->depth + 1 : 1, FOM_NONE, 0};
    *out = ++t->nnodes;
    return FOM_OK;
}

/* <class>/<interaction>: name, members, then nested subclasses. Recursion depth is bounded
 * by MAX_DEPTH. */
static int walk_node(struct pctx *c, struct tree *t, const struct vocab *w, const xmlNode *n,
                     fom_handle parent, int depth)
{
    static const char *const allowed[] = {"name", NULL};
    if (depth > MAX_DEPTH)
        return fail_at(c, FOM_ESCHEMA, line_of(n), "<%s> nested deeper than %d levels", w->node_el,
                       MAX_DEPTH);
    int rc = check_attrs(c, n, allowed);
    if (rc) return rc;
    char *name = NULL;
    if ((rc = need_name(c, n, &name))) return rc;
    fom_handle h = FOM_NONE;
    if ((rc = add_node(c, t, w, n, name, parent, &h))) return rc;
    int seen_sub = 0;
    for (const xmlNode *k = n->children; k; k = k->next) {
        if (k->type != XML_ELEMENT_NODE) {
            if ((rc = check_other_child(c, n, k))) return rc;
        } else if ((rc = check_no_ns(c, k))) {
            return rc;
        } else if (strcmp((const char *)k->name, w->member_el) == 0) {
            if (seen_sub)
                return fail_at(c, FOM_ESCHEMA, line_of(k),
                               "<%s> after a nested <%s> in %s \"%s\" (declare %ss first)",
                               w->member_el, w->node_el, w->node_el, node_at(t, h)->qname,
                               w->member_el);
            if ((rc = walk_member(c, t, w, k, h))) return rc;
        } else if (strcmp((const char *)k->name, w->node_el) == 0) {
            seen_sub = 1;
            if ((rc = walk_node(c, t, w, k, h, depth + 1))) return rc;
        } else {
            return fail_at(c, FOM_ESCHEMA, line_of(k), "unknown element <%s> inside <%s>",
                           (const char *)k->name, w->node_el);
        }
    }
    return FOM_OK;
}

/* <objects> or <interactions>: a list of root nodes. */
static int walk_section(struct pctx *c, struct tree *t, const struct vocab *w, const xmlNode *n)
{
    static const char *const allowed[] = {NULL};
    int rc = check_attrs(c, n, allowed);
    if (rc) return rc;
    for (const xmlNode *k = n->children; k; k = k->next) {
        if (k->type != XML_ELEMENT_NODE) {
            if ((rc = check_other_child(c, n, k))) return rc;
        } else if ((rc = check_no_ns(c, k))) {
            return rc;
        } else if (strcmp((const char *)k->name, w->node_el) == 0) {
            if ((rc = walk_node(c, t, w, k, FOM_NONE, 1))) return rc;
        } else {
            return fail_at(c, FOM_ESCHEMA, line_of(k), "unknown element <%s> inside <%s>",
                           (const char *)k->name, (const char *)n->name);
        }
    }
    return FOM_OK;
}

/* <time resolution="1e-9"/>: seconds per tick, finite and > 0. */
static int walk_time(struct pctx *c, const xmlNode *n)
{
    static const char *const allowed[] = {"resolution", NULL};
    int rc = check_attrs(c, n, allowed);
    if (rc) return rc;
    for (const xmlNode *k = n->children; k; k = k->next)
        if (k->type == XML_ELEMENT_NODE)
            return fail_at(c, FOM_ESCHEMA, line_of(k), "unknown element <%s> inside <time>",
                           (const char *)k->name);
        else if ((rc = check_other_child(c, n, k)))
            return rc;
    int oom = 0;
    char *s = get_attr(n, "resolution", &oom);
    if (oom) return fail_at(c, FOM_ENOMEM, line_of(n), "out of memory");
    if (!s) return fail_at(c, FOM_ESCHEMA, line_of(n), "<time> without resolution");
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    int bad = end == s || *end != '\0' || errno != 0 || !isfinite(v) || !(v > 0.0) ||
              isspace((unsigned char)s[0]);
    if (bad) {
        rc = fail_at(c, FOM_ESCHEMA, line_of(n),
                     "bad resolution \"%.64s\" (seconds per tick: a finite number > 0)", s);
        free(s);
        return rc;
    }
    free(s);
    c->f->resolution = v;
    return FOM_OK;
}

static int walk_root(struct pctx *c, const xmlNode *root)
{
    static const char *const allowed[] = {"name", NULL};
    if (strcmp((const char *)root->name, "fom") != 0)
        return fail_at(c, FOM_ESCHEMA, line_of(root), "root element is <%s>, expected <fom>",
                       (const char *)root->name);
    int rc = check_no_ns(c, root);
    if (rc) return rc;
    rc = check_attrs(c, root, allowed);
    if (rc) return rc;
    if ((rc = need_name(c, root, &c->f->name))) return rc;
    int seen_time = 0, seen_obj = 0, seen_inter = 0;
    for (const xmlNode *k = root->children; k; k = k->next) {
        const char *en = (const char *)k->name;
        int *seen = NULL;
        if (k->type != XML_ELEMENT_NODE) {
            if ((rc = check_other_child(c, root, k))) return rc;
            continue;
        }
        if ((rc = check_no_ns(c, k))) return rc;
        if (strcmp(en, "time") == 0)
            seen = &seen_time;
        else if (strcmp(en, "objects") == 0)
            seen = &seen_obj;
        else if (strcmp(en, "interactions") == 0)
            seen = &seen_inter;
        else
            return fail_at(c, FOM_ESCHEMA, line_of(k), "unknown element <%s> inside <fom>", en);
        if (*seen) return fail_at(c, FOM_ESCHEMA, line_of(k), "second <%s> in <fom>", en);
        *seen = 1;
        if (seen == &seen_time)
            rc = walk_time(c, k);
        else if (seen == &seen_obj)
            rc = walk_section(c, &c->f->obj, &OBJ_WORDS, k);
        else
            rc = walk_section(c, &c->f->inter, &INTER_WORDS, k);
        if (rc) return rc;
    }
    return FOM_OK;
}

/* ======================================================================================
 * Fingerprint: FNV-1a 64 over a canonical serialization. Names are identifiers (no NUL),
 * so "name\0" separates fields unambiguously; numbers go in as fixed 8-byte little-endian.
 * ====================================================================================== */

static uint64_t fnv_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    return fnv_bytes(h, b, 8);
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
    return fnv_bytes(h, s, strlen(s) + 1);
}

static uint64_t fnv_tree(uint64_t h, const struct tree *t)
{
    h = fnv_u64(h, t->nnodes);
    for (uint32_t i = 0; i < t->nnodes; i++) {
        h = fnv_str(h, t->nodes[i].name);
        h = fnv_u64(h, t->nodes[i].parent);
    }
    h = fnv_u64(h, t->nmems);
    for (uint32_t i = 0; i < t->nmems; i++) {
        h = fnv_str(h, t->mems[i].name);
        h = fnv_u64(h, t->mems[i].owner);
        h = fnv_u64(h, (uint64_t)t->mems[i].type);
        h = fnv_u64(h, t->mems[i].length);
    }
    return h;
}

static uint64_t fingerprint(const struct fom *f)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv_str(h, "tempo-fom-1");
    h = fnv_str(h, f->name);
    uint64_t bits;
    double r = f->resolution;
    memcpy(&bits, &r, sizeof bits);
    h = fnv_u64(h, bits);
    h = fnv_tree(h, &f->obj);
    h = fnv_tree(h, &f->inter);
    return h;
}

/* ======================================================================================
 * libxml2 error capture
 * ====================================================================================== */

/* The first error libxml2 reports (later ones are usually consequences of it). */
struct first_error {
    int set;       /* 1 once an error was recorded */
    long line;     /* its line, 0 if unknown */
    char msg[256]; /* its message without the trailing newline */
};

/* Structured error handler installed on our parser context only (not the global one, so
 * other users of libxml2 in the process are not affected); data is the context. */
static void on_xml_error(void *data, xmlErrorPtr e)
{
    xmlParserCtxt *ctxt = data;
    struct first_error *fe = ctxt ? ctxt->_private : NULL;
    if (!fe || fe->set || !e || e->level < XML_ERR_ERROR) return;
    fe->set = 1;
    fe->line = e->line;
    snprintf(fe->msg, sizeof fe->msg, "%s", e->message ? e->message : "not well-formed");
    /* One line per message: libxml2 splits some reasons over lines. */
    size_t k = strlen(fe->msg);
    while (k && (fe->msg[k - 1] == '\n' || fe->msg[k - 1] == '\r'))
        fe->msg[--k] = '\0';
    for (char *q = fe->msg; *q; q++)
        if (*q == '\n' || *q == '\r' || *q == '\t') *q = ' ';
}

/* libxml2 reports some errors (input encoding conversion, I/O) without a parser context,
 * through its per-thread global handlers, which print to stderr by default. For the time of
 * one parse we point those at our handler / a silent one and then restore whatever was
 * there, so other libxml2 users in the process (the FMU reader) keep their own settings. */
static void silent_generic(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

struct saved_handlers {
    xmlGenericErrorFunc generic;
    void *generic_ctx;
    xmlStructuredErrorFunc structured;
    void *structured_ctx;
};

static void handlers_push(struct saved_handlers *sv, xmlParserCtxt *ctxt)
{
    sv->generic = xmlGenericError;
    sv->generic_ctx = xmlGenericErrorContext;
    sv->structured = xmlStructuredError;
    sv->structured_ctx = xmlStructuredErrorContext;
    xmlSetGenericErrorFunc(NULL, silent_generic);
    xmlSetStructuredErrorFunc(ctxt, on_xml_error);
}

static void handlers_pop(const struct saved_handlers *sv)
{
    xmlSetGenericErrorFunc(sv->generic_ctx, sv->generic);
    xmlSetStructuredErrorFunc(sv->structured_ctx, sv->structured);
}

/* Line of the first "<!DOCTYPE" in the text (the DTD node carries no line number). */
static long doctype_line(const char *text, size_t len)
{
    static const char key[] = "<!DOCTYPE";
    long line = 1;
    for (size_t i = 0; i + sizeof key - 1 <= len; i++) {
        if (memcmp(text + i, key, sizeof key - 1) == 0) return line;
        if (text[i] == '\n') line++;
    }
    return 0;
}

/* ======================================================================================
 * Entry points
 * ====================================================================================== */

int fom_parse_mem(const char *text, size_t len, const char *name, struct fom **out, char *err,
                  size_t errlen)
{
    /* Qualified names may take at most 32 bytes per input byte, plus 64 KiB: memory stays
     * linear in the input. A chain of 64 classes with 256-byte names needs about 16. */
    struct pctx c = {NULL, name ? name : "<memory>", err, errlen, 32 * len + 65536};
    if (err && errlen) err[0] = '\0';
    if (!out) return fail_at(&c, FOM_EUSAGE, 0, "fom_parse_mem: NULL out");
    *out = NULL;
    if (!text && len) return fail_at(&c, FOM_EUSAGE, 0, "fom_parse_mem: NULL text");
    if (len > MAX_FILE)
        return fail_at(&c, FOM_ESCHEMA, 0, "FOM of %zu bytes is over the %d-byte limit", len,
                       MAX_FILE);
    if (len == 0) return fail_at(&c, FOM_ESYNTAX, 1, "empty document");

    c.f = calloc(1, sizeof *c.f);
    if (!c.f) return fail_at(&c, FOM_ENOMEM, 0, "out of memory");
    c.f->resolution = FOM_DEFAULT_RESOLUTION;

    int rc = FOM_OK;
    xmlDoc *doc = NULL;
    xmlParserCtxt *ctxt = xmlNewParserCtxt();
    if (!ctxt) {
        rc = fail_at(&c, FOM_ENOMEM, 0, "out of memory (XML parser)");
        goto fail;
    }
    /* NOERROR/NOWARNING: libxml2 prints nothing, we report its last error ourselves. NONET
     * and no DTDLOAD/NOENT: nothing is fetched and no entity is expanded. */
    struct first_error fe = {0, 0, ""};
    ctxt->_private = &fe;
    ctxt->sax->initialized = XML_SAX2_MAGIC;
    ctxt->sax->serror = on_xml_error;
    int opts = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES;
    struct saved_handlers sv;
    handlers_push(&sv, ctxt);
    doc = xmlCtxtReadMemory(ctxt, text, (int)len, NULL, NULL, opts);
    handlers_pop(&sv);
    if (!doc || !ctxt->wellFormed || fe.set) {
        if (!fe.set) {
            const xmlError *e = xmlCtxtGetLastError(ctxt);
            on_xml_error(ctxt, (xmlErrorPtr)e);
        }
        rc = fail_at(&c, FOM_ESYNTAX, fe.line, "XML syntax error: %s",
                     fe.set ? fe.msg : "not well-formed");
        goto fail;
    }
    if (doc->intSubset || doc->extSubset) {
        rc = fail_at(&c, FOM_ESCHEMA, doctype_line(text, len), "DOCTYPE is not allowed in a FOM");
        goto fail;
    }
    const xmlNode *root = xmlDocGetRootElement(doc);
    if (!root) {
        rc = fail_at(&c, FOM_ESCHEMA, 1, "no root element");
        goto fail;
    }
    if ((rc = walk_root(&c, root))) goto fail;
    c.f->fp = fingerprint(c.f);
    xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctxt);
    *out = c.f;
    return FOM_OK;
fail:
    if (doc) xmlFreeDoc(doc);
    if (ctxt) xmlFreeParserCtxt(ctxt);
    fom_free(c.f);
    return rc;
}

int fom_read_file(const char *path, char **text_out, size_t *len, char *err, size_t errlen)
{
    struct pctx c = {NULL, path ? path : "(null)", err, errlen, 0};
    if (!path || !text_out || !len)
        return fail_at(&c, FOM_EUSAGE, 0, "fom_read_file: NULL argument");
    *text_out = NULL;
    *len = 0;
    /* Read the file ourselves: libxml2's file loader would also accept compressed input and
     * URLs, which a FOM never is. */
    FILE *fp = fopen(path, "rb");
    if (!fp) return fail_at(&c, FOM_EIO, 0, "cannot open: %s", strerror(errno));
    /* Read in a buffer that doubles from 64 KiB, up to one byte past the limit. */
    size_t cap = 0, n = 0;
    char *text = NULL;
    int rerr = 0, oom = 0;
    for (;;) {
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 65536;
            if (ncap > (size_t)MAX_FILE + 1) ncap = (size_t)MAX_FILE + 1;
            if (ncap == cap) break; /* over the limit */
            char *t = realloc(text, ncap);
            if (!t) {
                oom = 1;
                break;
            }
            text = t;
            cap = ncap;
        }
        size_t got = fread(text + n, 1, cap - n, fp);
        n += got;
        if (got == 0) {
            rerr = ferror(fp) ? (errno ? errno : EIO) : 0;
            break;
        }
    }
    fclose(fp);
    int rc = FOM_OK;
    if (oom)
        rc = fail_at(&c, FOM_ENOMEM, 0, "out of memory");
    else if (rerr)
        rc = fail_at(&c, FOM_EIO, 0, "read error: %s", strerror(rerr));
    else if (n > MAX_FILE)
        rc = fail_at(&c, FOM_ESCHEMA, 0, "file over the %d-byte limit", MAX_FILE);
    if (rc != FOM_OK) {
        free(text);
        return rc;
    }
    /* n <= MAX_FILE < cap here (the loop stops at n == cap only when over the limit), so the
     * terminator fits. */
    text[n] = '\0';
    *text_out = text;
    *len = n;
    return FOM_OK;
}

int fom_parse_file(const char *path, struct fom **out, char *err, size_t errlen)
{
    struct pctx c = {NULL, path ? path : "(null)", err, errlen, 0};
    if (!path || !out) return fail_at(&c, FOM_EUSAGE, 0, "fom_parse_file: NULL argument");
    *out = NULL;
    char *text;
    size_t n;
    int rc = fom_read_file(path, &text, &n, err, errlen);
    if (rc != FOM_OK) return rc;
    rc = fom_parse_mem(text, n, path, out, err, errlen);
    free(text);
    return rc;
}

/* ======================================================================================
 * Queries
 * ====================================================================================== */

const char *fom_name(const struct fom *f)
{
    return f ? f->name : NULL;
}

double fom_resolution(const struct fom *f)
{
    return f ? f->resolution : FOM_DEFAULT_RESOLUTION;
}

uint64_t fom_fingerprint(const struct fom *f)
{
    return f ? f->fp : 0;
}

uint32_t fom_class_count(const struct fom *f)
{
    return f ? f->obj.nnodes : 0;
}
uint32_t fom_attr_count(const struct fom *f)
{
    return f ? f->obj.nmems : 0;
}
uint32_t fom_inter_count(const struct fom *f)
{
    return f ? f->inter.nnodes : 0;
}
uint32_t fom_param_count(const struct fom *f)
{
    return f ? f->inter.nmems : 0;
}

/* Generic tree queries shared by the class and interaction functions. */
static fom_handle t_find(const struct tree *t, const char *name)
{
    if (!name) return FOM_NONE;
    /* Simple names are unique: find the last component, then check the whole path. */
    const char *last = strrchr(name, '.');
    fom_handle h = h_get(&t->node_ix, 0, last ? last + 1 : name);
    if (h == FOM_NONE || (last && strcmp(node_at(t, h)->qname, name) != 0)) return FOM_NONE;
    return h;
}

static int t_is_a(const struct tree *t, fom_handle a, fom_handle b)
{
    if (!node_at(t, a) || !node_at(t, b)) return 0;
    /* Parents always have smaller handles (document order), so this terminates. */
    for (fom_handle h = a; h != FOM_NONE; h = node_at(t, h)->parent)
        if (h == b) return 1;
    return 0;
}

/* Cost O(depth). */
static fom_handle t_mem_find(const struct tree *t, fom_handle node, const char *name)
{
    if (!node_at(t, node) || !name) return FOM_NONE;
    for (fom_handle a = node; a != FOM_NONE; a = node_at(t, a)->parent) {
        fom_handle m = h_get(&t->mem_ix, a, name);
        if (m != FOM_NONE) return m;
    }
    return FOM_NONE;
}

/* Members of node and its ancestors, root's first. Cost O(depth + members). */
static uint32_t t_mems(const struct tree *t, fom_handle node, fom_handle *out, uint32_t cap)
{
    const struct node *n = node_at(t, node);
    if (!n) return 0;
    fom_handle chain[MAX_DEPTH];
    uint32_t depth = 0, total = 0;
    for (fom_handle a = node; a != FOM_NONE && depth < MAX_DEPTH; a = node_at(t, a)->parent)
        chain[depth++] = a;
    for (uint32_t d = depth; d-- > 0;) {
        const struct node *x = node_at(t, chain[d]);
        for (uint32_t i = 0; i < x->mem_count; i++, total++)
            if (total < cap) out[total] = x->mem_first + i;
    }
    return total;
}

static int t_has(const struct tree *t, fom_handle node, fom_handle mem)
{
    const struct member *m = mem_at(t, mem);
    return m ? t_is_a(t, node, m->owner) : 0;
}

/* Class / interaction h of the object or interaction tree of f, and attribute / parameter h:
 * NULL when f is NULL or h is not one (the accessors below then return their "none" value). */
static const struct node *obj_node(const struct fom *f, fom_handle h)
{
    return f ? node_at(&f->obj, h) : NULL;
}
static const struct node *inter_node(const struct fom *f, fom_handle h)
{
    return f ? node_at(&f->inter, h) : NULL;
}
static const struct member *obj_mem(const struct fom *f, fom_handle h)
{
    return f ? mem_at(&f->obj, h) : NULL;
}
static const struct member *inter_mem(const struct fom *f, fom_handle h)
{
    return f ? mem_at(&f->inter, h) : NULL;
}

fom_handle fom_class_find(const struct fom *f, const char *name)
{
    return f ? t_find(&f->obj, name) : FOM_NONE;
}
const char *fom_class_name(const struct fom *f, fom_handle h)
{
    const struct node *n = obj_node(f, h);
    return n ? n->name : NULL;
}
const char *fom_class_qname(const struct fom *f, fom_handle h)
{
    const struct node *n = obj_node(f, h);
    return n ? n->qname : NULL;
}
fom_handle fom_class_parent(const struct fom *f, fom_handle h)
{
    const struct node *n = obj_node(f, h);
    return n ? n->parent : FOM_NONE;
}
int fom_class_is_a(const struct fom *f, fom_handle a, fom_handle b)
{
    return f ? t_is_a(&f->obj, a, b) : 0;
}
fom_handle fom_attr_find(const struct fom *f, fom_handle cls, const char *name)
{
    return f ? t_mem_find(&f->obj, cls, name) : FOM_NONE;
}
uint32_t fom_class_attrs(const struct fom *f, fom_handle cls, fom_handle *out, uint32_t cap)
{
    return f ? t_mems(&f->obj, cls, out, cap) : 0;
}
int fom_class_has_attr(const struct fom *f, fom_handle cls, fom_handle attr)
{
    return f ? t_has(&f->obj, cls, attr) : 0;
}
const char *fom_attr_name(const struct fom *f, fom_handle h)
{
    const struct member *m = obj_mem(f, h);
    return m ? m->name : NULL;
}
enum fom_type fom_attr_type(const struct fom *f, fom_handle h)
{
    const struct member *m = obj_mem(f, h);
    return m ? m->type : FOM_T_NONE;
}
uint32_t fom_attr_length(const struct fom *f, fom_handle h)
{
    const struct member *m = obj_mem(f, h);
    return m ? m->length : 0;
}
fom_handle fom_attr_class(const struct fom *f, fom_handle h)
{
    const struct member *m = obj_mem(f, h);
    return m ? m->owner : FOM_NONE;
}

fom_handle fom_inter_find(const struct fom *f, const char *name)
{
    return f ? t_find(&f->inter, name) : FOM_NONE;
}
const char *fom_inter_name(const struct fom *f, fom_handle h)
{
    const struct node *n = inter_node(f, h);
    return n ? n->name : NULL;
}
const char *fom_inter_qname(const struct fom *f, fom_handle h)
{
    const struct node *n = inter_node(f, h);
    return n ? n->qname : NULL;
}
fom_handle fom_inter_parent(const struct fom *f, fom_handle h)
{
    const struct node *n = inter_node(f, h);
    return n ? n->parent : FOM_NONE;
}
int fom_inter_is_a(const struct fom *f, fom_handle a, fom_handle b)
{
    return f ? t_is_a(&f->inter, a, b) : 0;
}
fom_handle fom_param_find(const struct fom *f, fom_handle ic, const char *name)
{
    return f ? t_mem_find(&f->inter, ic, name) : FOM_NONE;
}
uint32_t fom_inter_params(const struct fom *f, fom_handle ic, fom_handle *out, uint32_t cap)
{
    return f ? t_mems(&f->inter, ic, out, cap) : 0;
}
int fom_inter_has_param(const struct fom *f, fom_handle ic, fom_handle param)
{
    return f ? t_has(&f->inter, ic, param) : 0;
}
const char *fom_param_name(const struct fom *f, fom_handle h)
{
    const struct member *m = inter_mem(f, h);
    return m ? m->name : NULL;
}
enum fom_type fom_param_type(const struct fom *f, fom_handle h)
{
    const struct member *m = inter_mem(f, h);
    return m ? m->type : FOM_T_NONE;
}
uint32_t fom_param_length(const struct fom *f, fom_handle h)
{
    const struct member *m = inter_mem(f, h);
    return m ? m->length : 0;
}
fom_handle fom_param_inter(const struct fom *f, fom_handle h)
{
    const struct member *m = inter_mem(f, h);
    return m ? m->owner : FOM_NONE;
}

/* ======================================================================================
 * Data types and values
 * ====================================================================================== */

const char *fom_type_name(enum fom_type t)
{
    switch (t) {
    case FOM_T_FLOAT64:
        return "float64";
    case FOM_T_INT64:
        return "int64";
    case FOM_T_INT32:
        return "int32";
    case FOM_T_BOOLEAN:
        return "boolean";
    case FOM_T_STRING:
        return "string";
    case FOM_T_BYTES:
        return "bytes";
    case FOM_T_FLOAT64_ARRAY:
        return "float64[]";
    default:
        return "none";
    }
}

int fom_value_ok(enum fom_type t, uint32_t length, const void *p, size_t n)
{
    const unsigned char *b = p;
    if (n && !p) return 0;
    switch (t) {
    case FOM_T_FLOAT64:
    case FOM_T_INT64:
        return n == 8;
    case FOM_T_INT32:
        return n == 4;
    case FOM_T_BOOLEAN:
        return n == 1 && b[0] <= 1;
    case FOM_T_STRING:
        return n == 0 || memchr(b, 0, n) == NULL;
    case FOM_T_BYTES:
        return 1;
    case FOM_T_FLOAT64_ARRAY:
        return length ? n == 8 * (size_t)length : n % 8 == 0;
    default:
        return 0;
    }
}
