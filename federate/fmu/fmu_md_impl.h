/* Private helpers of the modelDescription.xml decoder, shared by fmu_md.c (FMI 2.0 and the
 * whole-file checks) and fmu_md3.c (the FMI 3.0 elements). Serves doc/fmu.md.
 * Read next: federate/fmu/fmu_md3.c. */
#ifndef TEMPO_FEDERATE_FMU_MD_IMPL_H
#define TEMPO_FEDERATE_FMU_MD_IMPL_H

#include <libxml/tree.h>

#include "federate/fmu/fmu_md.h"

/* Bounds on counts, so that a hostile file cannot make us allocate without limit. */
#define MD_MAX_VARS       1000000 /* variables, array elements counted one by one */
#define MD_MAX_DEPS       1000000 /* dependencies of one Unknown */
#define MD_MAX_INDICATORS 1000000
#define MD_MAX_DIM_WORK   50000000 /* variables visited in all to find dimension sizes */

typedef struct {
    fmu_md *md;
    char *err;
    size_t errlen;
    int oom;                  /* an allocation failed: the result is -2 whatever else happened */
    const xmlNode *typedefs;  /* FMI 3.0 TypeDefinitions, NULL when absent */
    size_t dim_work;          /* FMI 3.0: variables visited to size dimensions (bounded) */
    const fmu_md_size *sizes; /* FMI 3.0: structural parameters' values other than their */
    size_t n_sizes;           /* starts (fmu_md_parse_sized); NULL, 0: the starts */
} md_ctx;

/* Writes "modelDescription.xml:LINE: <element>: message" into c->err; returns -1. */
int md_fail(md_ctx *c, const xmlNode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* n is an element called name. */
int md_is_el(const xmlNode *n, const char *name);
/* strdup that records an allocation failure in c->oom (NULL in, NULL out). */
char *md_dupstr(md_ctx *c, const char *s);
/* Attribute as a malloc'd string; NULL when absent or on OOM (check c->oom). */
char *md_attr(md_ctx *c, const xmlNode *n, const char *name);
/* Typed attributes: 0, -1 (c->err says why) or -2 (out of memory). */
int md_attr_bool(md_ctx *c, const xmlNode *n, const char *name, int def, int *out);
int md_attr_real(md_ctx *c, const xmlNode *n, const char *name, int *present, double *out);
int md_attr_long(md_ctx *c, const xmlNode *n, const char *name, long lo, long hi, int *present,
                 long *out);
int md_attr_enum(md_ctx *c, const xmlNode *n, const char *name, const char *const *names, int count,
                 int def, int *out);
/* The modelIdentifier attribute of a capability element (FMI 2.0 and 3.0 alike) into
 * k->model_identifier: present, not empty, and a safe file name (it names the binary). */
int md_model_identifier(md_ctx *c, const xmlNode *n, fmu_caps *k);

/* FMI 3.0: the capability elements, type definitions, variables (arrays expanded element by
 * element) and model structure of root (fmu_md3.c). Same return convention. */
int fmu_md3_children(md_ctx *c, const xmlNode *root);

#endif /* TEMPO_FEDERATE_FMU_MD_IMPL_H */
