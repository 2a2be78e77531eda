/* What the framework derives from a model's table for both the FMU binary and the XML
 * generator: the GUID that ties a binary to its modelDescription.xml. doc/fmu.md.
 * Read fw_mdgen.c (the XML) and fw_fmi.c (the FMI functions) next. */
#include <stdint.h>
#include <stdio.h>

#include "examples/fmus/framework/fw.h"

/* FNV-1a, 64 bits, over a NUL-terminated string. */
static uint64_t fnv(uint64_t h, const char *s)
{
    for (; s && *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h ^ 0xff; /* mark the end so that "ab"+"c" differs from "a"+"bc" */
}

void fw_guid(const fw_model *m, char buf[39])
{
    /* Two hashes with different offset bases give 128 bits. */
    uint64_t h[2] = {14695981039346656037ull, 0x9e3779b97f4a7c15ull};
    char num[96];
    for (int k = 0; k < 2; k++) {
        h[k] = fnv(h[k], m->id);
        snprintf(num, sizeof num, "%d %d %d %d %d", m->nvars, m->nz, m->max_output_order, m->has_me,
                 m->has_cs);
        h[k] = fnv(h[k], num);
        for (int i = 0; i < m->nvars; i++) {
            const fw_var *v = &m->vars[i];
            h[k] = fnv(h[k], v->name);
            snprintf(num, sizeof num, "%d %d %d %.17g", (int)v->causality, v->discrete,
                     v->derivative_of, v->start);
            h[k] = fnv(h[k], num);
        }
    }
    snprintf(buf, 39, "{%08x-%04x-%04x-%04x-%012llx}", (unsigned)(h[0] >> 32),
             (unsigned)((h[0] >> 16) & 0xffff), (unsigned)(h[0] & 0xffff), (unsigned)(h[1] >> 48),
             (unsigned long long)(h[1] & 0xffffffffffffull));
}
