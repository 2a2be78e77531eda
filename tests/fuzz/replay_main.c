/* Runs a libFuzzer target without libFuzzer: every file of its corpus folder, then a fixed
 * number of pseudo-random inputs (mutated corpus entries and plain noise), so that `make test`
 * exercises each decoder's fuzz target under the sanitizers. The target's name is taken from
 * argv[0] ("<name>_replay"); its corpus is tests/fuzz/corpus/<name>/. Crashes are the failure
 * signal: the sanitizers abort the process. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { RANDOM_RUNS = 20000, REPLAY_MAX_INPUT = 1 << 16 };

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng_next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static size_t read_file(const char *path, uint8_t *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

int main(int argc, char **argv)
{
    (void)argc;
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    char name[256];
    snprintf(name, sizeof name, "%s", base);
    char *suffix = strstr(name, "_replay");
    if (suffix) *suffix = '\0';

    static uint8_t corpus[64][4096];
    static size_t corpus_len[64];
    int ncorpus = 0, files = 0;
    char dir[512];
    snprintf(dir, sizeof dir, "tests/fuzz/corpus/%s", name);
    DIR *d = opendir(dir);
    static uint8_t buf[REPLAY_MAX_INPUT];
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue;
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            size_t n = read_file(path, buf, sizeof buf);
            LLVMFuzzerTestOneInput(buf, n);
            files++;
            if (ncorpus < 64 && n <= sizeof corpus[0]) {
                memcpy(corpus[ncorpus], buf, n);
                corpus_len[ncorpus++] = n;
            }
        }
        closedir(d);
    }
    for (int i = 0; i < RANDOM_RUNS; i++) {
        size_t n;
        if (ncorpus > 0 && (i & 1)) {
            int k = (int)(rng_next() % (uint64_t)ncorpus);
            n = corpus_len[k];
            memcpy(buf, corpus[k], n);
            int flips = 1 + (int)(rng_next() % 8);
            for (int j = 0; j < flips && n > 0; j++)
                buf[rng_next() % n] = (uint8_t)rng_next();
            if (rng_next() % 4 == 0) n = (size_t)(rng_next() % (n + 1)); /* truncate */
        } else {
            n = (size_t)(rng_next() % 512);
            for (size_t j = 0; j < n; j++)
                buf[j] = (uint8_t)rng_next();
        }
        LLVMFuzzerTestOneInput(buf, n);
    }
    printf("%s: %d corpus files and %d random inputs ran without a crash\n", name, files,
           RANDOM_RUNS);
    printf("1 passed, 0 failed\n");
    return 0;
}
