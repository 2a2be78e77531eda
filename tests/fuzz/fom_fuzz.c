/* libFuzzer target for the FOM reader (fom/fom.h, doc/fom.md, doc/contributing.md §7).
 * Parses arbitrary bytes as FOM text. Beyond "no crash, no leak", an accepted FOM must be
 * self-consistent, else it traps: every class/attribute/interaction/parameter is found again
 * by its name and qualified name, a class's attribute list holds exactly the attributes it
 * has, and parsing the same text twice gives the same fingerprint; a refusal always explains
 * itself. Corpus: tests/fuzz/corpus/fom_fuzz/. Read fom/fom.c next. */
#include <stdint.h>
#include <string.h>

#include "fom/fom.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_classes(const struct fom *f)
{
    fom_handle list[64];
    for (fom_handle c = 1; c <= fom_class_count(f); c++) {
        if (fom_class_find(f, fom_class_name(f, c)) != c) __builtin_trap();
        if (fom_class_find(f, fom_class_qname(f, c)) != c) __builtin_trap();
        fom_handle p = fom_class_parent(f, c);
        if (p >= c || (p && !fom_class_is_a(f, c, p)) || !fom_class_is_a(f, c, c)) __builtin_trap();
        uint32_t n = fom_class_attrs(f, c, list, 64);
        for (uint32_t i = 0; i < n && i < 64; i++) {
            if (!fom_class_has_attr(f, c, list[i])) __builtin_trap();
            if (fom_attr_find(f, c, fom_attr_name(f, list[i])) != list[i]) __builtin_trap();
            if (fom_attr_type(f, list[i]) == FOM_T_NONE) __builtin_trap();
        }
    }
    for (fom_handle a = 1; a <= fom_attr_count(f); a++)
        if (!fom_class_has_attr(f, fom_attr_class(f, a), a)) __builtin_trap();
}

static void check_interactions(const struct fom *f)
{
    fom_handle list[64];
    for (fom_handle c = 1; c <= fom_inter_count(f); c++) {
        if (fom_inter_find(f, fom_inter_name(f, c)) != c) __builtin_trap();
        if (fom_inter_find(f, fom_inter_qname(f, c)) != c) __builtin_trap();
        uint32_t n = fom_inter_params(f, c, list, 64);
        for (uint32_t i = 0; i < n && i < 64; i++)
            if (fom_param_find(f, c, fom_param_name(f, list[i])) != list[i]) __builtin_trap();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fom *f = NULL, *g = NULL;
    char err[FOM_ERRLEN] = "";
    int rc = fom_parse_mem((const char *)data, size, "fuzz", &f, err, sizeof err);
    if (rc != FOM_OK) {
        if (f || strncmp(err, "fuzz:", 5) != 0) __builtin_trap();
        return 0;
    }
    if (!(fom_resolution(f) > 0.0)) __builtin_trap();
    check_classes(f);
    check_interactions(f);
    if (fom_parse_mem((const char *)data, size, "again", &g, err, sizeof err) != FOM_OK ||
        fom_fingerprint(g) != fom_fingerprint(f))
        __builtin_trap();
    fom_free(g);
    fom_free(f);
    return 0;
}
