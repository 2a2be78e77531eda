/* Fuzz target for FMU unpacking (federate/fmu/fmu_zip.c, doc/contributing.md §7): any bytes,
 * written to a file and unpacked with small limits, must be refused with a message or unpacked into
 * a private folder that is then removed completely; never a crash, leak or write elsewhere. Corpus:
 * tests/fuzz/corpus/zip_fuzz/ (small valid and hostile archives). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "federate/fmu/fmu_zip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* beside the folders it is unpacked into: $TMPDIR, else /tmp */
    const char *tmp = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tempo-zip-fuzz-%ld.zip", tmp && tmp[0] ? tmp : "/tmp",
             (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    fmu_zip_limits lim = {
        .max_entry_bytes = 1 << 20, .max_total_bytes = 4 << 20, .max_entries = 64};
    char dir[4096], err[512] = "";
    int rc = fmu_zip_extract(path, &lim, dir, sizeof dir, err, sizeof err);
    if (rc == 0) {
        if (fmu_zip_remove_tree(dir, err, sizeof err) != 0) __builtin_trap();
        if (access(dir, F_OK) == 0) __builtin_trap(); /* the folder must be gone */
    } else if (err[0] == '\0') {
        __builtin_trap(); /* a refusal must say why */
    }
    unlink(path);
    return 0;
}
