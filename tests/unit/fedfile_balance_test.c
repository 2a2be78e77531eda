/* The per-connection settings of the methods "balance" and "energy"
 * (federate/config/fedfile_balance.h, doc/federation.md): the example files resolve to the
 * connections their text says ("*" first, then the entry; names to output indices; the power
 * inputs appended after the wired ones; the boundary's two halves paired), and bad settings
 * are refused at load with their JSON path. Runs from the repository root (the example files
 * name the FMUs under build/fmus/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "federate/config/fedfile.h"
#include "federate/config/fedfile_balance.h"
#include "federate/config/fedfile_master.h"
#include "tests/check.h"

static fedfile *load(const char *path)
{
    fedfile *ff = NULL;
    char err[FEDFILE_ERRLEN] = "";
    CHECK(fedfile_load(path, &ff, err, sizeof err) == FEDFILE_OK, "%s: %s", path, err);
    return ff;
}

static void test_balance_file(void)
{
    fedfile *ff = load("examples/springmass_balance.json");
    if (!ff) return;
    CHECK(fedfile_is_master(ff), "balance is run by tempo-master");
    const fedfile_balance *b = fedfile_balance_of(ff);
    CHECK_INT_EQ((long)b->n_conn, 2);
    /* spring.v (federate 0, input 0) from mass.v: slope a (output 1), amount x (output 2). */
    const fedfile_bal_conn *c = &b->conn[0];
    CHECK(c->to == 0 && c->input == 0 && c->from == 1 && c->output == 0, "spring.v from mass.v");
    CHECK_INT_EQ(c->slope, 1);
    CHECK_INT_EQ(c->amount, 2);
    CHECK(c->layer.extrap == BAL_EXTRAP_LINEAR && c->layer.bc == BAL_BC_CLASSIC &&
              c->layer.hat == BAL_HAT_CONST && c->layer.span == 1 && !c->layer.smooth,
          "the \"*\" settings");
    c = &b->conn[1]; /* mass.f from spring.f: fdot (1), impulse (2) */
    CHECK(c->to == 1 && c->from == 0 && c->slope == 1 && c->amount == 2, "mass.f from spring.f");
    const char *const *names;
    CHECK_INT_EQ((long)fedfile_balance_extra_inputs(ff, 0, &names), 0);
    fedfile_free(ff);
}

static void test_energy_file(void)
{
    fedfile *ff = load("examples/springmass_energy.json");
    if (!ff) return;
    const fedfile_balance *b = fedfile_balance_of(ff);
    CHECK_INT_EQ(b->p_order, 1);
    CHECK_INT_EQ((long)b->n_conn, 2);
    for (size_t k = 0; k < 2; k++) {
        const fedfile_bal_conn *c = &b->conn[k];
        CHECK_INT_EQ((long)c->partner, (long)(1 - k));
        CHECK_INT_EQ(c->power_input, 1); /* after the one wired input */
        CHECK_INT_EQ(c->power, 2);       /* P, the third output of each */
        CHECK_INT_EQ(c->energy, 3);      /* W */
        CHECK_INT_EQ(c->slope, 1);
        const char *const *names;
        CHECK_INT_EQ((long)fedfile_balance_extra_inputs(ff, k, &names), 1);
        CHECK_STR_EQ(names[0], "p");
    }
    fedfile_free(ff);
}

/* s with the first `from` replaced by `to`, into out. */
static int replace(const char *s, const char *from, const char *to, char *out, size_t len)
{
    const char *at = strstr(s, from);
    if (!at) return -1;
    snprintf(out, len, "%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
    return 0;
}

/* The energy file with one or two substitutions (from2 NULL: one), written to a temporary
 * folder with the FMU paths made absolute; must be refused naming want. */
static void refused2(const char *from, const char *to, const char *from2, const char *to2,
                     const char *want)
{
    FILE *f = fopen("examples/springmass_energy.json", "rb");
    static char b0[9000], b1[9000];
    char *src = b0, *dst = b1;
    char cwd[512], fmus[600];
    size_t n = f ? fread(b0, 1, sizeof b0 - 1, f) : 0;
    if (f) fclose(f);
    b0[n] = '\0';
    if (!getcwd(cwd, sizeof cwd)) cwd[0] = '\0';
    snprintf(fmus, sizeof fmus, "\"%s/build/fmus/", cwd);
    const char *subs[4][2] = {
        {from, to}, {from2, to2}, {"\"../build/fmus/", fmus}, {"\"../build/fmus/", fmus}};
    int bad = 0;
    for (int i = 0; i < 4 && !bad; i++) {
        if (!subs[i][0]) continue;
        bad = replace(src, subs[i][0], subs[i][1], dst, sizeof b0);
        char *t = src;
        src = dst, dst = t;
    }
    CHECK(!bad, "the example has no \"%s\"", from);
    if (bad) return;
    char dir[] = "/tmp/fedfile_balance_test.XXXXXX", path[64];
    if (!mkdtemp(dir)) return;
    snprintf(path, sizeof path, "%s/f.json", dir);
    f = fopen(path, "wb");
    CHECK(f != NULL, "cannot write %s", path);
    if (f) {
        fputs(src, f);
        fclose(f);
        fedfile *ff = NULL;
        char err[FEDFILE_ERRLEN] = "";
        CHECK_INT_EQ(fedfile_load(path, &ff, err, sizeof err), FEDFILE_ESCHEMA);
        CHECK_STR_HAS(err, want);
        fedfile_free(ff);
        remove(path);
    }
    rmdir(dir);
}

static void refused(const char *from, const char *to, const char *want)
{
    refused2(from, to, NULL, NULL, want);
}

static void test_refusals(void)
{
    refused2(", \"energy\": \"W\" },", " },", "\"power_input\": \"p\" }",
             "\"power_input\": \"p\", \"energy\": \"W\" }", "\"energy\" is given for");
    refused("\"slope\": \"fdot\", \"power_input\": \"p\" }",
            "\"slope\": \"fdot\", \"power_input\": \"p\", \"energy\": \"E\" }",
            "energy: \"E\" is not an output of federate \"mass\"");
    refused("\"power_extrapolation\": \"linear\"", "\"power_extrapolation\": \"cubic\"",
            "algorithm.power_extrapolation: expected \"constant\" or \"linear\"");
    refused("\"*\": {", "\"mass.q\": { \"slope\": \"a\" }, \"*\": {",
            "\"mass.q\" is not a wired input");
    refused("\"slope\": \"fdot\"", "\"slope\": 3", "slope: expected a variable name");
    refused("\"power\": \"P\"", "\"power\": \"P\", \"hat\": \"constant\"",
            "hat: not a setting of method \"energy\"");
    refused("\"method\": \"energy\",", "\"method\": \"energy\", \"extrapolation\": 1,",
            "algorithm.extrapolation: unknown key for method \"energy\"");
    refused("\"slope\": \"fdot\", \"power_input\": \"p\"",
            "\"slope\": \"fdot\", \"power_input\": \"f\"", "power_input: \"f\" is wired");
}

int main(void)
{
    test_balance_file();
    test_energy_file();
    test_refusals();
    return check_summary();
}
