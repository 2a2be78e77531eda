/* Fuzz target for the modelDescription.xml decoder (federate/fmu/fmu_md.c, doc/contributing.md §7):
 * any bytes must give either a description or an error message, never a crash, leak or hang. Built
 * by `make fuzz` (libFuzzer) and replayed over tests/fuzz/corpus/md_fuzz/ by make test. Read next:
 * tests/unit/fmu_md_test.c. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "federate/fmu/fmu_md.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    fmu_md *md = NULL;
    int rc = fmu_md_parse((const char *)data, size, &md, err, sizeof err);
    if (rc == 0) {
        /* Exercise what users of a description rely on: indices within range. */
        for (size_t i = 0; i < md->n_states; i++)
            if (md->state_index[i] < 0 || (size_t)md->state_index[i] >= md->n_vars)
                __builtin_trap();
        for (size_t i = 0; i < md->n_outputs; i++)
            if (md->outputs[i].index < 1 || (size_t)md->outputs[i].index > md->n_vars)
                __builtin_trap();
        if (md->n_vars) (void)fmu_md_find(md, md->vars[md->n_vars - 1].name);
    } else if (md != NULL || strlen(err) == 0) {
        __builtin_trap(); /* a failure must explain itself and hand back nothing */
    }
    fmu_md_free(md);
    return 0;
}
