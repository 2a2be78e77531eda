/* Unit tests of federate/config/fedfile.c: the fixtures in tests/fedfile/ (the documented examples
 * of doc/federation.md) load into the expected structs; every refused file fails with the JSON path
 * and what was expected; the generated FOM parses with fom/fom.c; the FOM and FMU checks. The
 * fixtures are copied into a private temporary folder next to empty stand-in .fmu files, since
 * fedfile_load stats the FMU files; nothing is written inside the repository. */
#include "algorithms/defect_master.h"
#include "algorithms/semi.h"
#include "algorithms/wr.h"
#include "federate/config/algo_f3ornits.h"
#include "federate/config/algo_hybrid.h"
#include "federate/config/algo_jacobi_de.h"
#include "federate/config/fedfile.h"
#include "federate/config/fedfile_algo.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fom/fom.h"
#include "tests/check.h"

/* The hybrid settings of a loaded file (federate/config/algo_hybrid.h). */
#define HY(ff) ((const fedfile_hybrid *)fedfile_settings((ff), "hybrid"))

static char tmp[64]; /* the private folder */
static char err[FEDFILE_ERRLEN];
static char made[64][128]; /* files and folders created, removed at the end in reverse */
static int n_made;

static void note(const char *path)
{
    if (n_made < 64 && strlen(path) < sizeof made[0])
        memcpy(made[n_made++], path, strlen(path) + 1);
}

static void write_file(const char *name, const char *text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", tmp, name);
    FILE *f = fopen(p, "wb");
    CHECK(f != NULL, "cannot write %s: %s", p, strerror(errno));
    if (!f) return;
    fputs(text, f);
    fclose(f);
    int seen = 0;
    for (int i = 0; i < n_made; i++)
        seen |= strcmp(made[i], p) == 0;
    if (!seen) note(p);
}

/* Copy tests/fedfile/NAME into the private folder. */
static void copy_fixture(const char *name)
{
    char src[256], buf[8192];
    snprintf(src, sizeof src, "tests/fedfile/%s", name);
    FILE *f = fopen(src, "rb");
    CHECK(f != NULL, "fixture %s: %s", src, strerror(errno));
    if (!f) return;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    write_file(name, buf);
}

static int setup(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/fedfile_test.XXXXXX");
    if (!mkdtemp(tmp)) return -1;
    note(tmp);
    char p[256];
    snprintf(p, sizeof p, "%s/fmus", tmp);
    mkdir(p, 0700);
    note(p);
    static const char *const fmus[] = {"prey", "predator", "s", "a", "b", "k", "env", "house"};
    for (size_t i = 0; i < sizeof fmus / sizeof fmus[0]; i++) {
        char n[64];
        snprintf(n, sizeof n, "fmus/%s.fmu", fmus[i]);
        write_file(n, "not really a zip: fedfile_load only stats it\n");
    }
    snprintf(p, sizeof p, "%s/fmus/dir.fmu", tmp);
    mkdir(p, 0700);
    note(p);
    return 0;
}

static void teardown(void)
{
    for (int i = n_made - 1; i >= 0; i--)
        if (remove(made[i]) != 0)
            fprintf(stderr, "warning: cannot remove %s: %s\n", made[i], strerror(errno));
}

/* Load tmp/NAME. */
static int load(const char *name, fedfile **ff)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", tmp, name);
    return fedfile_load(p, ff, err, sizeof err);
}

/* Write text as tmp/case.json and expect it refused with rc, the message holding has1 and
 * has2 (NULL: not checked). */
static void expect_bad(const char *text, int rc, const char *has1, const char *has2)
{
    write_file("case.json", text);
    fedfile *ff = (fedfile *)1;
    int got = load("case.json", &ff);
    CHECK(got == rc, "got %d, want %d for %s (message: %s)", got, rc, text, err);
    CHECK(ff == NULL, "no object on error");
    CHECK_STR_HAS(err, "case.json");
    if (has1) CHECK_STR_HAS(err, has1);
    if (has2) CHECK_STR_HAS(err, has2);
    if (got == FEDFILE_OK) fedfile_free(ff);
}

/* The common start of the small cases: a valid header, then federates. */
#define HEAD                                                                                       \
    "{\"federation\": \"f\", \"algorithm\": {\"method\": \"jacobi\", \"end\": 1, \"step\": 0.1}, "
#define FA "{\"name\": \"a\", \"fmu\": \"fmus/a.fmu\", \"outputs\": {\"y\": \"A.y\"}}"
#define FB "{\"name\": \"b\", \"fmu\": \"fmus/b.fmu\", \"inputs\": {\"u\": \"A.y\"}}"

static void test_lv_jacobi(void)
{
    copy_fixture("lv-jacobi.json");
    fedfile *ff = NULL;
    int rc = load("lv-jacobi.json", &ff);
    CHECK(rc == FEDFILE_OK, "lv-jacobi.json: %s", err);
    if (!ff) return;
    char want[256];
    CHECK_STR_EQ(ff->federation, "lotka-volterra");
    CHECK_STR_EQ(ff->rti_host, "127.0.0.1");
    CHECK_INT_EQ(ff->rti_port, 7470);
    CHECK(ff->rti_unix == NULL, "no unix socket");
    CHECK(ff->fom == NULL, "FOM to be generated");
    CHECK_NEAR(ff->resolution, 1e-9, 0);
    CHECK_STR_EQ(fedfile_method_name(ff), "jacobi");
    CHECK_INT_EQ(ff->algo.t_start, 0);
    CHECK_INT_EQ(ff->algo.t_end, 100000000000LL);
    CHECK_INT_EQ(ff->algo.t_step, 500000000LL);
    CHECK_INT_EQ(ff->algo.t_lookahead, 0);
    CHECK_INT_EQ(ff->algo.extrapolation, 0);
    snprintf(want, sizeof want, "%s/out", tmp);
    CHECK_STR_EQ(ff->output, want);
    CHECK_INT_EQ(ff->n_feds, 2);
    CHECK(ff->gs_plan == NULL, "no plan for jacobi");
    const fedfile_fed *prey = &ff->feds[0], *pred = &ff->feds[1];
    CHECK_STR_EQ(prey->name, "prey");
    snprintf(want, sizeof want, "%s/fmus/prey.fmu", tmp);
    CHECK_STR_EQ(prey->fmu, want);
    CHECK_INT_EQ(prey->n_params, 3);
    CHECK_STR_EQ(prey->params[0].name, "alpha");
    CHECK_INT_EQ(prey->params[0].kind, FEDFILE_REAL);
    CHECK_NEAR(prey->params[0].real, 0.5, 0);
    CHECK_STR_EQ(prey->params[2].name, "x0");
    CHECK_INT_EQ(prey->params[2].kind, FEDFILE_INTEGER);
    CHECK_INT_EQ(prey->params[2].integer, 1);
    CHECK_NEAR(prey->params[2].real, 1.0, 0);
    CHECK_INT_EQ(pred->params[2].kind, FEDFILE_BOOLEAN);
    CHECK_INT_EQ(pred->params[2].integer, 0);
    CHECK_INT_EQ(pred->params[3].kind, FEDFILE_STRING);
    CHECK_STR_EQ(pred->params[3].string, "Y");
    CHECK_INT_EQ(prey->n_outputs, 1);
    CHECK_STR_EQ(prey->outputs[0].var, "x");
    CHECK_STR_EQ(prey->outputs[0].cls, "Prey");
    CHECK_STR_EQ(prey->outputs[0].attr, "x");
    CHECK_INT_EQ(prey->n_inputs, 1);
    CHECK_STR_EQ(prey->inputs[0].var, "y");
    CHECK_STR_EQ(prey->inputs[0].cls, "Predator");
    CHECK_INT_EQ(prey->inputs[0].source, 1);
    CHECK_INT_EQ(pred->inputs[0].source, 0);
    /* solver: file-level defaults, overridden field by field */
    CHECK_INT_EQ(prey->solver.method, FEDFILE_METHOD_BDF);
    CHECK_NEAR(prey->solver.rtol, 1e-8, 0);
    CHECK_NEAR(prey->solver.atol, 1e-10, 0);
    CHECK_NEAR(prey->solver.max_step, 0, 0);
    CHECK_INT_EQ(pred->solver.method, FEDFILE_METHOD_ADAMS);
    CHECK_NEAR(pred->solver.rtol, 1e-8, 0);
    CHECK_NEAR(pred->solver.max_step, 0.05, 0);
    /* record: given, or the outputs by default */
    CHECK_INT_EQ(prey->n_record, 2);
    CHECK_STR_EQ(prey->record[1], "y");
    CHECK_INT_EQ(pred->n_record, 1);
    CHECK_STR_EQ(pred->record[0], "y");
    CHECK_INT_EQ(fedfile_find(ff, "predator"), 1);
    CHECK_INT_EQ(fedfile_find(ff, "wolf"), -1);
    CHECK_INT_EQ(fedfile_find(ff, NULL), -1);

    /* The generated FOM parses with the FOM reader and has what the wiring needs. */
    char *xml = NULL;
    CHECK_INT_EQ(fedfile_fom_xml(ff, &xml, err, sizeof err), FEDFILE_OK);
    struct fom *f = NULL;
    char ferr[FOM_ERRLEN];
    int frc = xml ? fom_parse_mem(xml, strlen(xml), "generated", &f, ferr, sizeof ferr) : -99;
    CHECK(frc == FOM_OK, "generated FOM does not parse: %s\n%s", frc == -99 ? "" : ferr,
          xml ? xml : "");
    if (f) {
        fom_handle prey_c = fom_class_find(f, "Prey");
        CHECK(prey_c != FOM_NONE, "class Prey");
        fom_handle x = fom_attr_find(f, prey_c, "x");
        CHECK(x != FOM_NONE, "Prey.x");
        CHECK_INT_EQ(fom_attr_type(f, x), FOM_T_FLOAT64);
        CHECK_INT_EQ(fom_class_count(f), 2);
        CHECK(fom_inter_find(f, "StepForward") != FOM_NONE, "StepForward interaction");
        CHECK_NEAR(fom_resolution(f), 1e-9, 0);
        CHECK_STR_EQ(fom_name(f), "lotka_volterra");
        CHECK_INT_EQ(fedfile_check_fom(ff, f, err, sizeof err), FEDFILE_OK);
        fom_free(f);
    }
    /* The same file reached by another path gives the same text (and so the same FOM). */
    char other[256], *xml2 = NULL;
    snprintf(other, sizeof other, "%s/fmus/../lv-jacobi.json", tmp);
    fedfile *ff2 = NULL;
    CHECK_INT_EQ(fedfile_load(other, &ff2, err, sizeof err), FEDFILE_OK);
    if (ff2) {
        CHECK_INT_EQ(fedfile_fom_xml(ff2, &xml2, err, sizeof err), FEDFILE_OK);
        CHECK(xml && xml2 && strcmp(xml, xml2) == 0, "generated FOM differs by path");
        free(xml2);
        fedfile_free(ff2);
    }
    free(xml);

    /* A FOM that lacks an attribute, or has it with another type or resolution. */
    static const char *const foms[][2] = {
        {"<fom name=\"x\"><objects><class name=\"Prey\"><attribute name=\"x\" type=\"float64\"/>"
         "</class></objects></fom>",
         "federates[0].inputs[\"y\"]: the FOM"},
        {"<fom name=\"x\"><objects><class name=\"Prey\"><attribute name=\"x\" type=\"int64\"/>"
         "</class><class name=\"Predator\"><attribute name=\"y\" type=\"float64\"/></class>"
         "</objects></fom>",
         "federates[0].outputs[\"x\"]: attribute \"Prey.x\" has type int64"},
        {"<fom name=\"x\"><objects><class name=\"Prey\"><attribute name=\"z\" type=\"float64\"/>"
         "</class></objects></fom>",
         "class \"Prey\" of the FOM has no attribute \"x\""},
        {"<fom name=\"x\"><time resolution=\"1e-6\"/></fom>", "resolution 1e-06"},
    };
    for (size_t i = 0; i < sizeof foms / sizeof foms[0]; i++) {
        f = NULL;
        frc = fom_parse_mem(foms[i][0], strlen(foms[i][0]), "t", &f, ferr, sizeof ferr);
        CHECK(frc == FOM_OK, "test FOM %zu: %s", i, ferr);
        if (!f) continue;
        CHECK_INT_EQ(fedfile_check_fom(ff, f, err, sizeof err), FEDFILE_ESCHEMA);
        CHECK_STR_HAS(err, foms[i][1]);
        fom_free(f);
    }
    fedfile_free(ff);
}

static void test_chain_gs(void)
{
    copy_fixture("chain-gs.json");
    fedfile *ff = NULL;
    int rc = load("chain-gs.json", &ff);
    CHECK(rc == FEDFILE_OK, "chain-gs.json: %s", err);
    if (!ff) return;
    CHECK_STR_EQ(ff->rti_unix, "/tmp/tempo-chain.sock");
    CHECK(ff->rti_host == NULL, "no TCP host with a unix socket");
    CHECK_NEAR(ff->resolution, 1e-6, 0);
    CHECK_INT_EQ(ff->algo.t_step, 100000);
    CHECK_INT_EQ(ff->algo.t_end, 10000000);
    CHECK_INT_EQ(ff->algo.extrapolation, 1);
    CHECK(ff->gs_plan != NULL, "plan");
    if (ff->gs_plan) {
        CHECK_INT_EQ(ff->gs_plan->source, 0);
        CHECK_INT_EQ(ff->gs_plan->sink, 3);
        CHECK_INT_EQ(ff->gs_plan->order[1], 1); /* A before B: A -> B */
        CHECK_INT_EQ(ff->gs_plan->order[2], 2);
        CHECK_INT_EQ(ff->gs_plan->inputs[2], 2);
    }
    CHECK_INT_EQ(ff->feds[1].role, TOPO_ROLE_COMMON); /* "A" had no role: common */
    CHECK_INT_EQ(ff->feds[3].role, TOPO_ROLE_SINK);
    /* a FOM file for Gauss-Seidel must declare the StepForward interaction */
    static const char gs_fom[] =
        "<fom name=\"chain\"><time resolution=\"1e-6\"/><objects>"
        "<class name=\"S\"><attribute name=\"y\" type=\"float64\"/></class>"
        "<class name=\"A\"><attribute name=\"y\" type=\"float64\"/></class>"
        "<class name=\"B\"><attribute name=\"y\" type=\"float64\"/></class>"
        "<class name=\"K\"><attribute name=\"y\" type=\"float64\"/></class>"
        "</objects>%s</fom>";
    char xml[1024];
    char ferr[FOM_ERRLEN];
    for (int with = 0; with < 2; with++) {
        snprintf(xml, sizeof xml, gs_fom,
                 with ? "<interactions><interaction name=\"StepForward\"/></interactions>" : "");
        struct fom *f = NULL;
        CHECK_INT_EQ(fom_parse_mem(xml, strlen(xml), "gs", &f, ferr, sizeof ferr), FOM_OK);
        if (!f) continue;
        CHECK_INT_EQ(fedfile_check_fom(ff, f, err, sizeof err),
                     with ? FEDFILE_OK : FEDFILE_ESCHEMA);
        if (!with) CHECK_STR_HAS(err, "interactions: no interaction class \"StepForward\"");
        fom_free(f);
    }
    fedfile_free(ff);

    copy_fixture("bad-gs-cycle.json");
    ff = (fedfile *)1;
    CHECK_INT_EQ(load("bad-gs-cycle.json", &ff), FEDFILE_ESCHEMA);
    CHECK(ff == NULL, "refused");
    CHECK_STR_HAS(err, "algorithm.method: \"gauss-seidel\" cannot run this wiring");
    CHECK_STR_HAS(err, "cycle \"A\" -> \"B\" -> \"A\"");

    /* Gauss-Seidel with roles left out: inferred from the wiring. */
    write_file("gs2.json",
               "{\"federation\": \"g\", \"algorithm\": {\"method\": \"gauss-seidel\", \"end\": 1,"
               " \"step\": 0.5}, \"federates\": ["
               "{\"name\": \"x\", \"fmu\": \"fmus/a.fmu\", \"outputs\": {\"x\": \"X.x\"},"
               " \"inputs\": {\"y\": \"Y.y\"}},"
               "{\"name\": \"y\", \"fmu\": \"fmus/b.fmu\", \"outputs\": {\"y\": \"Y.y\"},"
               " \"inputs\": {\"x\": \"X.x\"}}]}");
    rc = load("gs2.json", &ff);
    CHECK(rc == FEDFILE_OK, "gs2.json: %s", err);
    if (rc == FEDFILE_OK) {
        CHECK_INT_EQ(ff->feds[0].role, TOPO_ROLE_SOURCE);
        CHECK_INT_EQ(ff->feds[1].role, TOPO_ROLE_SINK);
        CHECK_INT_EQ(ff->gs_plan->inferred, 1);
        fedfile_free(ff);
    }
}

static void test_houses_de(void)
{
    copy_fixture("houses-de.json");
    fedfile *ff = NULL;
    int rc = load("houses-de.json", &ff);
    CHECK(rc == FEDFILE_OK, "houses-de.json: %s", err);
    if (!ff) return;
    CHECK_STR_EQ(fedfile_method_name(ff), "jacobi-de");
    const fedfile_de *de = fedfile_de_of(ff);
    CHECK(de != NULL, "jacobi-de settings");
    if (!de) return;
    CHECK_NEAR(de->quantum, 0.1, 0);
    CHECK_INT_EQ(de->t_h_min, 1000000000LL);
    CHECK_INT_EQ(de->t_h_max, 900000000000LL);
    CHECK_INT_EQ(ff->algo.t_step, 0);
    CHECK_INT_EQ(ff->rti_port, 0); /* not given: tempo-run picks one */
    CHECK_INT_EQ(ff->feds[0].n_quanta, 1);
    CHECK_STR_EQ(ff->feds[0].quanta[0].var, "T_amb");
    CHECK_NEAR(ff->feds[0].quanta[0].q, 0.05, 0);
    CHECK_NEAR(fedfile_quantum_of(ff, &ff->feds[0], "T_amb"), 0.05, 0);
    CHECK_NEAR(fedfile_quantum_of(ff, &ff->feds[1], "T_in"), 0.1, 0);
    CHECK_INT_EQ(ff->feds[1].n_record, 3);
    char want[256];
    snprintf(want, sizeof want, "%s/results", tmp);
    CHECK_STR_EQ(ff->output, want);
    fedfile_free(ff);
}

/* A program federate (doc/federation.md, "Program federates"): its executable, its args and
 * its wiring are read; the FMU keys and the methods it cannot follow are refused. */
static void test_program(void)
{
    char p[256];
    snprintf(p, sizeof p, "%s/market.sh", tmp);
    write_file("market.sh", "#!/bin/sh\n");
    chmod(p, 0700);
    write_file("plain.txt", "not executable\n");
#define PM "{\"name\": \"m\", \"program\": \"market.sh\", "
    write_file("prog.json",
               HEAD "\"federates\": [" FA ", " PM "\"args\": [\"--period\", \"900\"], "
                    "\"inputs\": {\"E1\": \"A.y\"}, \"outputs\": {\"price\": \"M.p\"}}]}");
    fedfile *ff = NULL;
    CHECK(load("prog.json", &ff) == FEDFILE_OK, "prog.json: %s", err);
    if (ff) {
        CHECK_STR_EQ(ff->feds[1].program, p);
        CHECK(ff->feds[1].fmu == NULL, "a program federate has no FMU");
        CHECK_INT_EQ(ff->feds[1].n_args, 2);
        CHECK_STR_EQ(ff->feds[1].args[1], "900");
        CHECK_STR_EQ(ff->feds[1].inputs[0].cls, "A");
        CHECK(ff->feds[0].program == NULL, "an FMU federate has no program");
        fedfile_free(ff);
    }
    expect_bad(HEAD "\"federates\": [" PM "\"parameters\": {\"k\": 1}}]}", FEDFILE_ESCHEMA,
               "federates[0].parameters: applies to an \"fmu\" federate only", NULL);
    expect_bad(HEAD "\"federates\": [{\"name\": \"m\", \"fmu\": \"fmus/a.fmu\", \"program\": "
                    "\"market.sh\"}]}",
               FEDFILE_ESCHEMA, "federates[0].program: a federate is an \"fmu\" or a \"program\"",
               NULL);
    expect_bad(HEAD "\"federates\": [{\"name\": \"m\"}]}", FEDFILE_ESCHEMA,
               "federates[0]: missing \"fmu\" (or \"program\"", NULL);
    expect_bad(HEAD "\"federates\": [{\"name\": \"m\", \"program\": \"plain.txt\"}]}",
               FEDFILE_ESCHEMA, "federates[0].program:", "is not an executable file");
    expect_bad(HEAD "\"federates\": [" PM "\"args\": [1]}]}", FEDFILE_ESCHEMA,
               "federates[0].args[0]: expected a string", NULL);
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"gauss-seidel\", \"end\": 1, "
               "\"step\": 0.1}, \"federates\": [" PM "\"outputs\": {\"p\": \"M.p\"}}]}",
               FEDFILE_ESCHEMA, "federates[0].program: a program federate needs method", NULL);
    /* A master method takes one: a slave that answers the master's commands (doc/python.md). */
    write_file("prog_master.json",
               "{\"federation\": \"f\", \"algorithm\": {\"method\": \"master-jacobi\", "
               "\"end\": 1, \"step\": 0.1}, \"federates\": [" PM
               "\"args\": [\"m:C\"], \"outputs\": {\"p\": \"M.p\"}}]}");
    ff = NULL;
    CHECK(load("prog_master.json", &ff) == FEDFILE_OK, "prog_master.json: %s", err);
    if (ff) CHECK(ff->feds[0].program != NULL, "a program slave of a master method");
    fedfile_free(ff);
#undef PM
}

/* A model in Python named like an FMU (doc/python.md): "python": "module:Class" is a program
 * federate run by tempo-slave, with its parameters and wiring; misuse is named. */
static void test_python_model(void)
{
#define PY "{\"name\": \"m\", \"python\": \"models:Integrator\", "
#define MJ                                                                                         \
    "{\"federation\": \"f\", \"algorithm\": {\"method\": \"master-jacobi\", \"end\": 1, "          \
    "\"step\": 0.1}, \"federates\": ["
    write_file("py.json", MJ PY "\"parameters\": {\"k\": 2}, \"outputs\": {\"z\": \"M.z\"}}]}");
    fedfile *ff = NULL;
    CHECK(load("py.json", &ff) == FEDFILE_OK, "py.json: %s", err);
    if (ff) {
        CHECK_STR_EQ(ff->feds[0].python, "models:Integrator");
        CHECK_STR_EQ(ff->feds[0].program, FEDFILE_PYTHON_RUNNER);
        CHECK(ff->feds[0].fmu == NULL && ff->feds[0].n_args == 0, "no FMU, no args");
        CHECK_INT_EQ(ff->feds[0].n_params, 1);
        CHECK_STR_EQ(ff->feds[0].outputs[0].attr, "z");
        fedfile_free(ff);
    }
    expect_bad(MJ PY "\"fmu\": \"fmus/a.fmu\"}]}", FEDFILE_ESCHEMA,
               "federates[0].fmu: does not apply to a \"python\" federate", NULL);
    expect_bad(MJ PY "\"args\": []}]}", FEDFILE_ESCHEMA,
               "federates[0].args: does not apply to a \"python\" federate", NULL);
    expect_bad(MJ "{\"name\": \"m\", \"python\": \"models\"}]}", FEDFILE_ESCHEMA,
               "federates[0].python: \"models\": expected \"module:Class\"", NULL);
    write_file(
        "py_gs.json",
        "{\"federation\": \"f\", \"algorithm\": {\"method\": "
        "\"gauss-seidel\", \"end\": 1, \"step\": 0.1}, \"federates\": [" PY
        "\"role\": \"source\", \"inputs\": {\"u\": \"B.y\"}, \"outputs\": "
        "{\"z\": \"A.z\"}}, {\"name\": \"b\", \"python\": \"m:B\", \"role\": \"sink\", \"inputs\": "
        "{\"u\": \"A.z\"}, \"outputs\": {\"y\": \"B.y\"}}]}");
    ff = NULL; /* gauss-seidel takes a Python model (tempo-slave follows its token) */
    CHECK(load("py_gs.json", &ff) == FEDFILE_OK, "py_gs.json: %s", err);
    if (ff) CHECK(ff->feds[0].role == TOPO_ROLE_SOURCE && ff->gs_plan, "a Python source");
    fedfile_free(ff);
#undef PY
#undef MJ
}

/* Every refusal names the JSON path and what is expected. */
static void test_refusals(void)
{
    copy_fixture("bad-published-twice.json");
    fedfile *ff = (fedfile *)1;
    CHECK_INT_EQ(load("bad-published-twice.json", &ff), FEDFILE_ESCHEMA);
    CHECK_STR_HAS(err, "federates[0].outputs[\"z\"]: attribute \"A.y\" is published twice");
    copy_fixture("bad-missing-fmu.json");
    CHECK_INT_EQ(load("bad-missing-fmu.json", &ff), FEDFILE_ESCHEMA);
    CHECK_STR_HAS(err, "federates[1].fmu: \"");
    CHECK_STR_HAS(err, "does-not-exist.fmu\": No such file or directory");

    /* file and syntax level */
    CHECK_INT_EQ(load("no-such.json", &ff), FEDFILE_EIO);
    CHECK_STR_HAS(err, "no-such.json: cannot open");
    expect_bad("{\"federation\": \"f\",\n \"rti\": }", FEDFILE_ESYNTAX, "case.json:2:", NULL);
    /* an input wired twice is a duplicate JSON key */
    expect_bad(HEAD "\"federates\": [" FA ", {\"name\": \"b\", \"fmu\": \"fmus/b.fmu\", "
                    "\"inputs\": {\"u\": \"A.y\",\n \"u\": \"A.y\"}}]}",
               FEDFILE_ESYNTAX, "duplicate", "case.json:2:");
    expect_bad("[1, 2]", FEDFILE_ESCHEMA, "(top level): expected an object", NULL);
    /* unknown keys, at every level */
    expect_bad(HEAD "\"federaton\": \"x\", \"federates\": [" FA "]}", FEDFILE_ESCHEMA,
               "case.json: federaton: unknown key (expected one of: federation,", NULL);
    expect_bad(HEAD "\"federates\": [{\"name\": \"a\", \"fmu\": \"fmus/a.fmu\", "
                    "\"ouputs\": {}}]}",
               FEDFILE_ESCHEMA, "federates[0].ouputs: unknown key", NULL);
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"jacobi\", \"end\": 1, "
               "\"step\": 0.1, \"stpe\": 1}, \"federates\": [" FA "]}",
               FEDFILE_ESCHEMA, "algorithm.stpe: unknown key", NULL);
    expect_bad(HEAD "\"solver\": {\"rtoll\": 1}, \"federates\": [" FA "]}", FEDFILE_ESCHEMA,
               "solver.rtoll: unknown key", NULL);
    /* wrong types and values */
    expect_bad(HEAD "\"federates\": [{\"name\": \"a\", \"fmu\": \"fmus/a.fmu\", "
                    "\"outputs\": {\"y\": 5}}]}",
               FEDFILE_ESCHEMA,
               "federates[0].outputs[\"y\"]: expected a string \"Class.attribute\"",
               "got an integer");
    expect_bad(HEAD "\"federates\": [{\"name\": \"a\", \"fmu\": \"fmus/a.fmu\", "
                    "\"outputs\": {\"y\": \"Ay\"}}]}",
               FEDFILE_ESCHEMA, "\"Ay\" is not \"Class.attribute\"", NULL);
    static const char *const bad_attrs[] = {".y", "A..y", "A.", "1A.y", "A.y.", "A b.y"};
    for (size_t i = 0; i < sizeof bad_attrs / sizeof bad_attrs[0]; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 HEAD "\"federates\": [{\"name\": \"a\", \"fmu\": \"fmus/a.fmu\", "
                      "\"outputs\": {\"y\": \"%s\"}}]}",
                 bad_attrs[i]);
        expect_bad(text, FEDFILE_ESCHEMA, "federates[0].outputs[\"y\"]",
                   "is not \"Class.attribute\"");
    }
    expect_bad(HEAD "\"federates\": [{\"name\": \"a\", \"fmu\": \"fmus/a.fmu\", "
                    "\"outputs\": {\"y\": \"A.y-z\"}}]}",
               FEDFILE_ESCHEMA, "is not \"Class.attribute\"", NULL);
    expect_bad(HEAD "\"federates\": [{\"name\": \"a\", \"fmu\": \"fmus/a.fmu\", "
                    "\"parameters\": {\"k\": null}}]}",
               FEDFILE_ESCHEMA,
               "federates[0].parameters[\"k\"]: expected a number, boolean or "
               "string, got null",
               NULL);
    expect_bad(HEAD "\"federates\": [{\"name\": \"a b\", \"fmu\": \"fmus/a.fmu\"}]}",
               FEDFILE_ESCHEMA, "federates[0].name: \"a b\" is not a valid name", NULL);
    expect_bad(HEAD "\"federates\": [{\"fmu\": \"fmus/a.fmu\"}]}", FEDFILE_ESCHEMA,
               "federates[0].name: missing", NULL);
    expect_bad(HEAD "\"federates\": []}", FEDFILE_ESCHEMA, "federates: expected a non-empty array",
               NULL);
    expect_bad(HEAD "\"federates\": [" FA "], \"resolution\": -1}", FEDFILE_ESCHEMA,
               "resolution: expected a number > 0", NULL);
    expect_bad(HEAD "\"federates\": [{\"name\": \"a\", \"fmu\": \"fmus/a.fmu\", "
                    "\"solver\": {\"method\": \"rk4\"}}]}",
               FEDFILE_ESCHEMA, "federates[0].solver.method: expected \"bdf\" or \"adams\"", NULL);
    expect_bad(HEAD "\"federates\": [{\"name\": \"a\", \"fmu\": \"fmus/a.fmu\", "
                    "\"solver\": {\"rtol\": 0}}]}",
               FEDFILE_ESCHEMA, "federates[0].solver.rtol: expected a number > 0", NULL);
    expect_bad(HEAD "\"federates\": [{\"name\": \"a\", \"fmu\": \"fmus/a.fmu\", "
                    "\"outputs\": {\"y\": \"A.y\"}, \"record\": [\"y\", \"y\"]}]}",
               FEDFILE_ESCHEMA, "federates[0].record[1]: \"y\" is listed twice", NULL);
    /* cross-federate */
    expect_bad(HEAD "\"federates\": [" FA ", {\"name\": \"a\", \"fmu\": \"fmus/b.fmu\"}]}",
               FEDFILE_ESCHEMA,
               "federates[1].name: federate name \"a\" is already used by federates[0]", NULL);
    expect_bad(HEAD "\"federates\": [" FA ", {\"name\": \"b\", \"fmu\": \"fmus/b.fmu\", "
                    "\"outputs\": {\"w\": \"A.y\"}}]}",
               FEDFILE_ESCHEMA, "federates[1].outputs[\"w\"]: attribute \"A.y\" is published twice",
               "federate \"a\", output \"y\"");
    expect_bad(HEAD "\"federates\": [" FA ", {\"name\": \"b\", \"fmu\": \"fmus/b.fmu\", "
                    "\"outputs\": {\"w\": \"A.w\"}}]}",
               FEDFILE_ESCHEMA, "class \"A\" is already published by federate \"a\"", NULL);
    expect_bad(HEAD "\"federates\": [" FA ", {\"name\": \"b\", \"fmu\": \"fmus/b.fmu\", "
                    "\"inputs\": {\"u\": \"A.q\"}}]}",
               FEDFILE_ESCHEMA, "federates[1].inputs[\"u\"]: no federate publishes \"A.q\"",
               "class \"A\" is published by federate \"a\"");
    expect_bad(HEAD "\"federates\": [" FA ", {\"name\": \"b\", \"fmu\": \"fmus/b.fmu\", "
                    "\"inputs\": {\"u\": \"Ghost.y\"}}]}",
               FEDFILE_ESCHEMA, "no federate publishes \"Ghost.y\"", NULL);
    /* FMU files */
    expect_bad(HEAD "\"federates\": [{\"name\": \"a\", \"fmu\": \"fmus/dir.fmu\"}]}",
               FEDFILE_ESCHEMA, "federates[0].fmu:", "is not a regular file");
    /* algorithm */
    expect_bad("{\"federation\": \"f\", \"federates\": [" FA "]}", FEDFILE_ESCHEMA,
               "algorithm: missing", NULL);
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"jacobbi\", \"end\": 1, "
               "\"step\": 0.1}, \"federates\": [" FA "]}",
               FEDFILE_ESCHEMA, "algorithm.method: \"jacobbi\" is not one of", NULL);
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"jacobi\", \"start\": 2, "
               "\"end\": 1, \"step\": 0.1}, \"federates\": [" FA "]}",
               FEDFILE_ESCHEMA, "algorithm.end: end 1 must be > start 2", NULL);
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"jacobi\", \"start\": 1, "
               "\"end\": 1, \"step\": 0.1}, \"federates\": [" FA "]}",
               FEDFILE_ESCHEMA, "algorithm.end", NULL);
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"jacobi\", \"start\": -1, "
               "\"end\": 1, \"step\": 0.1}, \"federates\": [" FA "]}",
               FEDFILE_ESCHEMA, "algorithm.start: expected a number of seconds >= 0", NULL);
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"jacobi\", \"end\": 1, "
               "\"step\": 0}, \"federates\": [" FA "]}",
               FEDFILE_ESCHEMA, "algorithm.step: expected a number of seconds > 0, got 0", NULL);
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"jacobi\", \"end\": 1, "
               "\"step\": -0.5}, \"federates\": [" FA "]}",
               FEDFILE_ESCHEMA, "algorithm.step", NULL);
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"jacobi\", \"end\": 1}, "
               "\"federates\": [" FA "]}",
               FEDFILE_ESCHEMA, "algorithm.step: missing", NULL);
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"jacobi\", \"end\": 1, "
               "\"step\": 2.5e-10}, \"federates\": [" FA "]}",
               FEDFILE_ESCHEMA, "algorithm.step: 2.5e-10 s is not a whole number of ticks", NULL);
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"jacobi\", \"end\": 1, "
               "\"step\": 0.1, \"lookahead\": 0.1}, \"federates\": [" FA "]}",
               FEDFILE_ESCHEMA, "algorithm.lookahead: unknown key for method \"jacobi\"", NULL);
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"jacobi\", \"end\": 1, "
               "\"step\": 0.1, \"quantum\": 0.1}, \"federates\": [" FA "]}",
               FEDFILE_ESCHEMA, "algorithm.quantum: unknown key for method \"jacobi\"", NULL);
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"jacobi\", \"end\": 1, "
               "\"step\": 0.1, \"extrapolation\": 3}, \"federates\": [" FA "]}",
               FEDFILE_ESCHEMA, "algorithm.extrapolation: expected 0 (hold), 1 (linear) or 2",
               NULL);
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"jacobi-de\", \"end\": 1, "
               "\"quantum\": 0.1, \"h_min\": 0.1, \"h_max\": 1, \"step\": 0.1}, \"federates\": [" FA
               "]}",
               FEDFILE_ESCHEMA, "algorithm.step: unknown key for method \"jacobi-de\"", NULL);
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"jacobi-de\", \"end\": 1, "
               "\"quantum\": 0.1, \"h_min\": 0.1}, \"federates\": [" FA "]}",
               FEDFILE_ESCHEMA, "algorithm.h_max: missing", NULL);
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"jacobi-de\", \"end\": 1, "
               "\"quantum\": 0.1, \"h_min\": 0.5, \"h_max\": 0.1}, \"federates\": [" FA "]}",
               FEDFILE_ESCHEMA, "algorithm.h_max: 0.1 must be >= h_min 0.5", NULL);
    expect_bad(HEAD "\"federates\": [{\"name\": \"a\", \"fmu\": \"fmus/a.fmu\", "
                    "\"role\": \"source\"}]}",
               FEDFILE_ESCHEMA, "federates[0].role: method \"jacobi\" takes no roles", NULL);
    expect_bad(HEAD "\"federates\": [{\"name\": \"a\", \"fmu\": \"fmus/a.fmu\", "
                    "\"quantum\": {\"y\": 1}}]}",
               FEDFILE_ESCHEMA, "federates[0].quantum: method \"jacobi\" takes no quanta", NULL);
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"jacobi-de\", \"end\": 1, "
               "\"quantum\": 0.1, \"h_min\": 0.1, \"h_max\": 1}, \"federates\": ["
               "{\"name\": \"a\", \"fmu\": \"fmus/a.fmu\", \"outputs\": {\"y\": \"A.y\"}, "
               "\"quantum\": {\"z\": 1}}]}",
               FEDFILE_ESCHEMA,
               "federates[0].quantum[\"z\"]: \"z\" is not one of this "
               "federate's outputs",
               NULL);
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"gauss-seidel\", \"end\": 1, "
               "\"step\": 0.1}, \"federates\": [" FA "]}",
               FEDFILE_ESCHEMA, "needs at least two federates", "\"a\"");
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"gauss-seidel\", \"end\": 1, "
               "\"step\": 0.1}, \"federates\": [" FA ", {\"name\": \"b\", \"fmu\": "
               "\"fmus/b.fmu\", \"role\": \"boss\"}]}",
               FEDFILE_ESCHEMA, "federates[1].role: expected \"source\", \"common\" or \"sink\"",
               NULL);
    /* rti */
    expect_bad(HEAD "\"rti\": \"localhost\", \"federates\": [" FA "]}", FEDFILE_ESCHEMA,
               "rti: \"localhost\": expected \"HOST:PORT\"", NULL);
    expect_bad(HEAD "\"rti\": \"localhost:70000\", \"federates\": [" FA "]}", FEDFILE_ESCHEMA,
               "rti: \"localhost:70000\": the port must be a number 1..65535", NULL);
    expect_bad(HEAD "\"rti\": \"localhost:\", \"federates\": [" FA "]}", FEDFILE_ESCHEMA,
               "the port must be", NULL);
    expect_bad(HEAD "\"rti\": \":7000\", \"federates\": [" FA "]}", FEDFILE_ESCHEMA,
               "expected \"HOST:PORT\"", NULL);
    expect_bad(HEAD "\"rti\": \"unix:\", \"federates\": [" FA "]}", FEDFILE_ESCHEMA,
               "needs a socket path", NULL);
}

static void test_rti_forms(void)
{
    fedfile *ff = NULL;
    write_file("rti6.json", HEAD "\"rti\": \"[::1]:7001\", \"federates\": [" FA ", " FB "]}");
    int rc = load("rti6.json", &ff);
    CHECK(rc == FEDFILE_OK, "rti6.json: %s", err);
    if (ff) {
        CHECK_STR_EQ(ff->rti_host, "::1");
        CHECK_INT_EQ(ff->rti_port, 7001);
        CHECK_INT_EQ(ff->feds[1].inputs[0].source, 0);
        fedfile_free(ff);
    }
    write_file("rtih.json", HEAD "\"rti\": \"sim-host.example:7470\", \"fom\": \"/abs/fom.xml\", "
                                 "\"federates\": [" FA "]}");
    rc = load("rtih.json", &ff);
    CHECK(rc == FEDFILE_OK, "rtih.json: %s", err);
    if (ff) {
        CHECK_STR_EQ(ff->rti_host, "sim-host.example");
        CHECK_STR_EQ(ff->fom, "/abs/fom.xml");
        fedfile_free(ff);
    }
    /* jacobi-naive: lookahead defaults to the step */
    write_file("naive.json",
               "{\"federation\": \"n\", \"algorithm\": {\"method\": "
               "\"jacobi-naive\", \"end\": 1, \"step\": 0.25}, \"federates\": [" FA "]}");
    rc = load("naive.json", &ff);
    CHECK(rc == FEDFILE_OK, "naive.json: %s", err);
    if (ff) {
        CHECK_INT_EQ(ff->algo.t_lookahead, 250000000);
        fedfile_free(ff);
    }
    fedfile_free(NULL);
}

/* "checkpoint": instants read in seconds; bad values refused with their path
 * (doc/federation.md, federate/config/fedfile_ckpt.c). */
static void test_checkpoint_key(void)
{
    fedfile *ff = NULL;
    write_file("ck.json", HEAD "\"checkpoint\": {\"every\": 0.2, \"at\": [0.35, 0.5]}, "
                               "\"federates\": [" FA "]}");
    int rc = load("ck.json", &ff);
    CHECK(rc == FEDFILE_OK, "ck.json: %s", err);
    if (ff) {
        CHECK(ff->ckpt_every == 0.2 && ff->n_ckpt_at == 2 && ff->ckpt_at[0] == 0.35 &&
                  ff->ckpt_at[1] == 0.5,
              "every %g, %zu times", ff->ckpt_every, ff->n_ckpt_at);
        fedfile_free(ff);
    }
    expect_bad(HEAD "\"checkpoint\": {\"at\": [1]}, \"federates\": [" FA "]}", FEDFILE_ESCHEMA,
               "checkpoint.at[0]", "not inside the run");
    expect_bad(HEAD "\"checkpoint\": {\"every\": 0}, \"federates\": [" FA "]}", FEDFILE_ESCHEMA,
               "checkpoint.every", "seconds > 0");
    expect_bad(HEAD "\"checkpoint\": {\"at\": [0.1000000001]}, \"federates\": [" FA "]}",
               FEDFILE_ESCHEMA, "checkpoint.at[0]", "whole number of ticks");
    expect_bad(HEAD "\"checkpoint\": {\"each\": 1}, \"federates\": [" FA "]}", FEDFILE_ESCHEMA,
               "unknown key \"each\"", NULL);
    expect_bad(HEAD "\"checkpoint\": 3, \"federates\": [" FA "]}", FEDFILE_ESCHEMA, "checkpoint",
               "expected an object");
}

/* A generated FOM cannot hold qualified class names. */
static void test_fom_qualified(void)
{
    fedfile *ff = NULL;
    write_file("q.json", HEAD "\"federates\": [{\"name\": \"a\", \"fmu\": \"fmus/a.fmu\", "
                              "\"outputs\": {\"y\": \"Root.A.y\"}}]}");
    int rc = load("q.json", &ff);
    CHECK(rc == FEDFILE_OK, "q.json: %s", err);
    if (!ff) return;
    CHECK_STR_EQ(ff->feds[0].outputs[0].cls, "Root.A");
    char *xml = (char *)1;
    CHECK_INT_EQ(fedfile_fom_xml(ff, &xml, err, sizeof err), FEDFILE_ESCHEMA);
    CHECK(xml == NULL, "no text");
    CHECK_STR_HAS(err, "federates[0].outputs[\"y\"]: class \"Root.A\" is qualified");
    fedfile_free(ff);
}

/* fedfile_check_fmu on a hand-built modelDescription (no FMU library needed). */
/* "transform": an input's factor and offset (doc/federation.md, "Input transformations"). */
static void test_transform(void)
{
    write_file("tf.json", HEAD "\"federates\": [" FA ", {\"name\": \"b\", \"fmu\": "
                               "\"fmus/b.fmu\", \"inputs\": {\"u\": \"A.y\", \"v\": \"A.y\"}, "
                               "\"transform\": {\"u\": {\"factor\": 2.5, \"offset\": -1}}}]}");
    fedfile *ff = NULL;
    CHECK_INT_EQ(load("tf.json", &ff), FEDFILE_OK);
    if (ff) {
        const fedfile_wire *u = &ff->feds[1].inputs[0], *v = &ff->feds[1].inputs[1];
        CHECK_STR_EQ(u->var, "u");
        CHECK(u->transformed && v->transformed == 0, "only u is transformed");
        CHECK_NEAR(u->factor, 2.5, 0);
        CHECK_NEAR(u->offset, -1, 0);
        CHECK_NEAR(v->factor, 1, 0);
        CHECK_NEAR(v->offset, 0, 0);
        CHECK_NEAR(ff->feds[0].outputs[0].factor, 1, 0); /* outputs are never transformed */
        fedfile_free(ff);
    }
    expect_bad(HEAD "\"federates\": [" FA ", {\"name\": \"b\", \"fmu\": \"fmus/b.fmu\", "
                    "\"inputs\": {\"u\": \"A.y\"}, \"transform\": {\"w\": {\"factor\": 2}}}]}",
               FEDFILE_ESCHEMA, "federates[1].transform[\"w\"]",
               "is not one of this federate's inputs");
    expect_bad(HEAD "\"federates\": [" FA ", {\"name\": \"b\", \"fmu\": \"fmus/b.fmu\", "
                    "\"inputs\": {\"u\": \"A.y\"}, \"transform\": {\"u\": {\"factor\": 0}}}]}",
               FEDFILE_ESCHEMA, "transform[\"u\"].factor", "other than 0");
    expect_bad(HEAD "\"federates\": [" FA ", {\"name\": \"b\", \"fmu\": \"fmus/b.fmu\", "
                    "\"inputs\": {\"u\": \"A.y\"}, \"transform\": {\"u\": {\"gain\": 2}}}]}",
               FEDFILE_ESCHEMA, "transform[\"u\"].gain: unknown key", NULL);
    expect_bad(HEAD "\"federates\": [" FA ", {\"name\": \"b\", \"fmu\": \"fmus/b.fmu\", "
                    "\"inputs\": {\"u\": \"A.y\"}, \"transform\": {\"u\": {\"offset\": "
                    "\"x\"}}}]}",
               FEDFILE_ESCHEMA, "transform[\"u\"].offset", "expected a finite number");
    /* "map": integer pairs, each "from" once; only on whole-number inputs */
    write_file("map.json", HEAD "\"federates\": [" FA ", {\"name\": \"b\", \"fmu\": "
                                "\"fmus/b.fmu\", \"inputs\": {\"u\": \"A.y\"}, \"transform\": "
                                "{\"u\": {\"map\": [[1, 0], [0, 1], [7, -7]]}}}]}");
    CHECK_INT_EQ(load("map.json", &ff), FEDFILE_OK);
    if (ff) {
        const fedfile_wire *u = &ff->feds[1].inputs[0];
        CHECK(u->n_map == 3 && u->map[0] == 1 && u->map[1] == 0 && u->map[4] == 7 &&
                  u->map[5] == -7,
              "map pairs");
        fmu_var v = {.name = "u", .type = FMU_T_REAL, .causality = FMU_C_INPUT};
        fmu_md md = {.n_vars = 1, .vars = &v, .elem_vr_base = 1};
        CHECK_INT_EQ(fedfile_check_fmu(ff, 1, &md, err, sizeof err), FEDFILE_ESCHEMA);
        CHECK_STR_HAS(err,
                      "is not an Integer, Boolean or Enumeration: its transform has a \"map\"");
        v.type = FMU_T_BOOLEAN;
        CHECK_INT_EQ(fedfile_check_fmu(ff, 1, &md, err, sizeof err), FEDFILE_OK);
        fedfile_free(ff);
    }
    expect_bad(HEAD "\"federates\": [" FA ", {\"name\": \"b\", \"fmu\": \"fmus/b.fmu\", "
                    "\"inputs\": {\"u\": \"A.y\"}, \"transform\": {\"u\": {\"map\": [[1, 0], "
                    "[1, 2]]}}}]}",
               FEDFILE_ESCHEMA, "transform[\"u\"].map[1]", "1 is mapped twice");
    expect_bad(HEAD
               "\"federates\": [" FA ", {\"name\": \"b\", \"fmu\": \"fmus/b.fmu\", "
               "\"inputs\": {\"u\": \"A.y\"}, \"transform\": {\"u\": {\"map\": [[1.5, 0]]}}}]}",
               FEDFILE_ESCHEMA, "transform[\"u\"].map[0]", "a pair [from, to] of integers");
    /* a master method's slaves exchange whole numbers too (set and read by name); a String
     * output is refused */
    write_file("mj.json",
               "{\"federation\": \"f\", \"algorithm\": {\"method\": "
               "\"master-jacobi\", \"end\": 1, \"step\": 0.1}, \"federates\": [" FA "]}");
    CHECK_INT_EQ(load("mj.json", &ff), FEDFILE_OK);
    if (ff) {
        fmu_var v = {.name = "y", .type = FMU_T_INTEGER, .causality = FMU_C_OUTPUT};
        fmu_md md = {.n_vars = 1, .vars = &v};
        CHECK_INT_EQ(fedfile_check_fmu(ff, 0, &md, err, sizeof err), FEDFILE_OK);
        v.type = FMU_T_STRING;
        CHECK_INT_EQ(fedfile_check_fmu(ff, 0, &md, err, sizeof err), FEDFILE_ESCHEMA);
        CHECK_STR_HAS(err, "variable \"y\" is not a number");
        v.type = FMU_T_INT64;
        CHECK_INT_EQ(fedfile_check_fmu(ff, 0, &md, err, sizeof err), FEDFILE_ESCHEMA);
        CHECK_STR_HAS(err, "variable \"y\" is Int64");
        v.type = FMU_T_REAL;
        CHECK_INT_EQ(fedfile_check_fmu(ff, 0, &md, err, sizeof err), FEDFILE_OK);
        fedfile_free(ff);
    }
}

static void test_check_fmu(void)
{
    copy_fixture("lv-jacobi.json");
    fedfile *ff = NULL;
    if (load("lv-jacobi.json", &ff) != FEDFILE_OK) return;
    fmu_var vars[] = {
        {.name = "x", .type = FMU_T_REAL, .causality = FMU_C_OUTPUT},
        {.name = "y", .type = FMU_T_REAL, .causality = FMU_C_INPUT},
        {.name = "alpha", .type = FMU_T_REAL, .causality = FMU_C_PARAMETER},
        {.name = "beta", .type = FMU_T_REAL, .causality = FMU_C_PARAMETER},
        {.name = "x0", .type = FMU_T_REAL, .causality = FMU_C_PARAMETER},
    };
    fmu_md md = {.n_vars = 5, .vars = vars, .elem_vr_base = 100};
    CHECK_INT_EQ(fedfile_check_fmu(ff, 0, &md, err, sizeof err), FEDFILE_OK);
    CHECK_INT_EQ(fedfile_check_fmu(ff, 2, &md, err, sizeof err), FEDFILE_EUSAGE);
    vars[1].causality = FMU_C_LOCAL;
    CHECK_INT_EQ(fedfile_check_fmu(ff, 0, &md, err, sizeof err), FEDFILE_ESCHEMA);
    CHECK_STR_HAS(err, "federates[0].inputs[\"y\"]: variable \"y\" has causality local, "
                       "expected input");
    vars[1].causality = FMU_C_INPUT;
    vars[0].type = FMU_T_STRING;
    CHECK_INT_EQ(fedfile_check_fmu(ff, 0, &md, err, sizeof err), FEDFILE_ESCHEMA);
    CHECK_STR_HAS(err, "federates[0].outputs[\"x\"]: variable \"x\" is not a number");
    /* whole numbers and Float32 are wired by the peer methods (jacobi here) */
    fmu_vtype wired[] = {FMU_T_INTEGER, FMU_T_BOOLEAN, FMU_T_ENUM,
                         FMU_T_INT8,    FMU_T_UINT32,  FMU_T_FLOAT32};
    for (size_t t = 0; t < sizeof wired / sizeof wired[0]; t++) {
        vars[0].type = vars[1].type = wired[t];
        CHECK(fedfile_check_fmu(ff, 0, &md, err, sizeof err) == FEDFILE_OK, "type %d: %s",
              (int)wired[t], err);
    }
    /* ... but not 64-bit integers: a double holds them exactly only to 2^53 */
    vars[0].type = vars[1].type = FMU_T_UINT64;
    CHECK_INT_EQ(fedfile_check_fmu(ff, 0, &md, err, sizeof err), FEDFILE_ESCHEMA);
    CHECK_STR_HAS(err, "variable \"x\" is UInt64: the coupling carries doubles");
    vars[0].type = vars[1].type = FMU_T_REAL;
    vars[0].causality = FMU_C_CALCULATED_PARAMETER; /* published: fixed at initialization */
    CHECK_INT_EQ(fedfile_check_fmu(ff, 0, &md, err, sizeof err), FEDFILE_OK);
    vars[0].causality = FMU_C_PARAMETER; /* not a parameter */
    CHECK_INT_EQ(fedfile_check_fmu(ff, 0, &md, err, sizeof err), FEDFILE_ESCHEMA);
    CHECK_STR_HAS(err, "has causality parameter, expected output");
    vars[0].causality = FMU_C_OUTPUT;
    vars[1].type = FMU_T_BINARY;
    CHECK_INT_EQ(fedfile_check_fmu(ff, 0, &md, err, sizeof err), FEDFILE_ESCHEMA);
    CHECK_STR_HAS(err, "federates[0].inputs[\"y\"]: variable \"y\" is not a number");
    vars[1].type = FMU_T_REAL;
    vars[0].type = FMU_T_REAL;
    vars[4].type = FMU_T_BOOLEAN; /* x0 given as 1 */
    CHECK_INT_EQ(fedfile_check_fmu(ff, 0, &md, err, sizeof err), FEDFILE_ESCHEMA);
    CHECK_STR_HAS(err, "federates[0].parameters[\"x0\"]: parameter \"x0\" needs true or false");
    vars[4].type = FMU_T_INTEGER; /* an integer fits an Integer */
    CHECK_INT_EQ(fedfile_check_fmu(ff, 0, &md, err, sizeof err), FEDFILE_OK);
    vars[2].type = FMU_T_INTEGER; /* 0.5 does not */
    CHECK_INT_EQ(fedfile_check_fmu(ff, 0, &md, err, sizeof err), FEDFILE_ESCHEMA);
    CHECK_STR_HAS(err, "parameters[\"alpha\"]: parameter \"alpha\" needs an integer");
    vars[2].type = FMU_T_REAL;
    vars[3].causality = FMU_C_LOCAL;
    CHECK_INT_EQ(fedfile_check_fmu(ff, 0, &md, err, sizeof err), FEDFILE_ESCHEMA);
    CHECK_STR_HAS(err, "variable \"beta\" has causality local; only parameters");
    vars[3].causality = FMU_C_INPUT; /* an input's start value may be given */
    CHECK_INT_EQ(fedfile_check_fmu(ff, 0, &md, err, sizeof err), FEDFILE_OK);
    vars[3].causality = FMU_C_LOCAL; /* and a local's with initial exact or approx */
    vars[3].initial = FMU_I_APPROX;
    vars[3].variability = FMU_V_CONTINUOUS;
    CHECK_INT_EQ(fedfile_check_fmu(ff, 0, &md, err, sizeof err), FEDFILE_OK);
    vars[3].variability = FMU_V_CONSTANT; /* not a constant's */
    CHECK_INT_EQ(fedfile_check_fmu(ff, 0, &md, err, sizeof err), FEDFILE_ESCHEMA);
    vars[3].variability = FMU_V_CONTINUOUS;
    vars[3].initial = FMU_I_CALCULATED; /* nor a calculated one's */
    CHECK_INT_EQ(fedfile_check_fmu(ff, 0, &md, err, sizeof err), FEDFILE_ESCHEMA);
    CHECK_STR_HAS(err, "start values (inputs, initial exact or approx)");
    vars[3].initial = FMU_I_NONE;
    vars[3].causality = FMU_C_PARAMETER;
    md.n_vars = 4; /* no x0 */
    CHECK_INT_EQ(fedfile_check_fmu(ff, 0, &md, err, sizeof err), FEDFILE_ESCHEMA);
    CHECK_STR_HAS(err, "parameters[\"x0\"]: the FMU has no variable \"x0\"");
    /* the predator's FMU lacks its recorded/output variable */
    fmu_var pv[] = {
        {.name = "x", .type = FMU_T_REAL, .causality = FMU_C_INPUT},
        {.name = "gamma", .type = FMU_T_REAL, .causality = FMU_C_PARAMETER},
        {.name = "delta", .type = FMU_T_REAL, .causality = FMU_C_PARAMETER},
        {.name = "verbose", .type = FMU_T_BOOLEAN, .causality = FMU_C_PARAMETER},
        {.name = "label", .type = FMU_T_STRING, .causality = FMU_C_PARAMETER},
    };
    fmu_md pmd = {.n_vars = 5, .vars = pv};
    CHECK_INT_EQ(fedfile_check_fmu(ff, 1, &pmd, err, sizeof err), FEDFILE_ESCHEMA);
    CHECK_STR_HAS(err, "federates[1].outputs[\"y\"]: the FMU has no variable \"y\"");
    fedfile_free(ff);
}

/* Robustness: 400 deterministic corruptions of a valid file (a byte replaced, dropped or
 * duplicated). Each must load or fail with a status and a message that starts with the file
 * name; under ASan this also proves that no error path leaks or reads out of bounds. */
static void test_corrupted(void)
{
    char src[4096], buf[4200];
    FILE *f = fopen("tests/fedfile/lv-jacobi.json", "rb");
    CHECK(f != NULL, "fixture");
    if (!f) return;
    size_t n = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    src[n] = '\0';
    static const char junk[] = "{}[]\",:0-e.xyz\\ \n";
    unsigned st = 99u;
    int ok = 0, refused = 0, bad = 0;
    char prefix[256];
    snprintf(prefix, sizeof prefix, "%s/case.json", tmp);
    for (int it = 0; it < 400; it++) {
        st = st * 1103515245u + 12345u;
        size_t at = (st >> 8) % n;
        int op = (int)((st >> 4) % 3);
        char ch = junk[(st >> 12) % (sizeof junk - 1)];
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            if (i == at && op == 1) continue;            /* drop */
            buf[m++] = i == at && op == 0 ? ch : src[i]; /* replace */
            if (i == at && op == 2) buf[m++] = ch;       /* insert */
        }
        buf[m] = '\0';
        write_file("case.json", buf);
        fedfile *ff = NULL;
        int rc = load("case.json", &ff);
        if (rc == FEDFILE_OK) {
            ok++;
            fedfile_free(ff);
        } else if ((rc == FEDFILE_ESYNTAX || rc == FEDFILE_ESCHEMA) && ff == NULL &&
                   strncmp(err, prefix, strlen(prefix)) == 0) {
            refused++;
        } else {
            bad++;
            CHECK(0, "corruption %d (op %d at %zu): rc %d, message \"%s\"", it, op, at, rc, err);
        }
    }
    CHECK_INT_EQ(bad, 0);
    CHECK(refused > 200, "most corruptions must be refused (%d refused, %d loaded)", refused, ok);
}

#define DCH(alg)                                                                                   \
    "{\"federation\": \"f\", \"algorithm\": {\"method\": \"defect-control\", \"end\": 1" alg "}, " \
    "\"federates\": [" FA "]}"
/* "f3ornits": its object read into algo.f3 (imposed steps by federate), defaults, refusals. */
#define F3H(alg)                                                                                   \
    "{\"federation\": \"f\", \"algorithm\": {\"method\": \"f3ornits\", \"end\": 1" alg "}, "       \
    "\"federates\": [" FA "]}"
static void test_f3ornits(void)
{
    write_file("f3.json", F3H(", \"f3ornits\": {\"dt_init\": 1e-3, \"dt_max\": 0.5, \"order\": 1, "
                              "\"fit\": \"cls\", \"norm\": \"damped\", \"mu\": 0.25, "
                              "\"smooth\": true, \"imposed\": {\"a\": 0.003}}"));
    fedfile *ff = NULL;
    CHECK_INT_EQ(load("f3.json", &ff), FEDFILE_OK);
    if (ff) {
        const fedfile_f3 *f = fedfile_settings(ff, "f3ornits");
        CHECK_STR_EQ(fedfile_method_name(ff), "f3ornits");
        CHECK(f->order == 1 && f->fit == 1 && f->norm == 2 && f->smooth == 1 && f->variable == 1,
              "choices %d %d %d %d %d", f->order, f->fit, f->norm, f->smooth, f->variable);
        CHECK(f->dt_init == 1e-3 && f->dt_max == 0.5 && f->mu == 0.25 && f->rtol == 1e-3 &&
                  f->atol == 1e-6 && f->rho_min == 0.2 && f->rho_max == 2 && f->safety == 0.9,
              "numbers");
        CHECK(f->n_imposed == 1 && !strcmp(f->imposed_fed[0], "a") && f->imposed_step[0] == 0.003,
              "imposed");
        fedfile_free(ff);
    }
    write_file("f30.json", F3H(", \"f3ornits\": {\"dt_init\": 0.01}"));
    ff = NULL;
    CHECK_INT_EQ(load("f30.json", &ff), FEDFILE_OK);
    if (ff) { /* defaults: flexible order, extrapolation, magnitude, variable, no smoothing */
        const fedfile_f3 *f = fedfile_settings(ff, "f3ornits");
        CHECK(f->order == -1 && f->fit == 0 && f->norm == 0 && f->variable == 1 && !f->smooth &&
                  !f->n_imposed,
              "defaults");
        fedfile_free(ff);
    }
    expect_bad(F3H(""), FEDFILE_ESCHEMA, "algorithm.f3ornits: expected an object", "(missing)");
    expect_bad(F3H(", \"f3ornits\": {}"), FEDFILE_ESCHEMA, "f3ornits.dt_init: missing", NULL);
    expect_bad(F3H(", \"f3ornits\": {\"dt_init\": 0.1, \"order\": 3}"), FEDFILE_ESCHEMA,
               "f3ornits.order: expected \"flexible\" or an order 0..2", NULL);
    expect_bad(F3H(", \"f3ornits\": {\"dt_init\": 0.1, \"norm\": \"size\"}"), FEDFILE_ESCHEMA,
               "f3ornits.norm: expected \"magnitude\", \"amplitude\" or \"damped\"", NULL);
    expect_bad(F3H(", \"f3ornits\": {\"dt_init\": 0.1, \"imposed\": {\"a\": -1}}"), FEDFILE_ESCHEMA,
               "f3ornits.imposed.a: expected a number > 0", NULL);
    expect_bad(F3H(", \"step\": 0.1, \"f3ornits\": {\"dt_init\": 0.1}"), FEDFILE_ESCHEMA,
               "algorithm.step: unknown key for method \"f3ornits\"", NULL);
    expect_bad(DCH(", \"defect-control\": {\"h1\": 0.1}, \"f3ornits\": {\"dt_init\": 0.1}"),
               FEDFILE_ESCHEMA, "algorithm.f3ornits: unknown key for method \"defect-control\"",
               NULL);
}

/* "defect-control": its object read into algo.dc, defaults, and every refusal. */
static void test_defect_control(void)
{
    write_file("dc.json", DCH(", \"defect-control\": {\"m\": 1, \"n\": 2, \"h1\": 1e-4, "
                              "\"tol\": 0.005, \"h_max\": 0.5, \"kp\": 0.2, \"init\": \"zero\", "
                              "\"exchange\": \"jacobi\", \"defect\": \"connection\", "
                              "\"clip_end\": true}"));
    fedfile *ff = NULL;
    CHECK_INT_EQ(load("dc.json", &ff), FEDFILE_OK);
    if (ff) {
        const dc_config *d = fedfile_settings(ff, "defect-control");
        CHECK_STR_EQ(fedfile_method_name(ff), "defect-control");
        CHECK(!(ff->algo.needs & FEDFILE_NEEDS_PAST_END), "clip_end: no instant past the end");
        CHECK_INT_EQ(d->m, 1);
        CHECK_INT_EQ(d->n, 2);
        CHECK_NEAR(d->h1, 1e-4, 0);
        CHECK_NEAR(d->tol, 0.005, 0);
        CHECK_NEAR(d->h_max, 0.5, 0);
        CHECK_NEAR(d->h_min, 0, 0);
        CHECK_NEAR(d->kp, 0.2, 0);
        CHECK_NEAR(d->ki, 0, 0); /* 0: the paper's 1/15 */
        CHECK_INT_EQ(d->init, 1);
        CHECK_INT_EQ(d->exchange, 1);
        CHECK_INT_EQ(d->defect, 2);
        CHECK_INT_EQ(d->clip_end, 1);
        fedfile_free(ff);
    }
    write_file("dc0.json", DCH(", \"defect-control\": {\"h1\": 0.01}"));
    ff = NULL;
    CHECK_INT_EQ(load("dc0.json", &ff), FEDFILE_OK);
    if (ff) { /* defaults: orders 0, fixed step, consistent, sequential, both, no clipping */
        const dc_config *d = fedfile_settings(ff, "defect-control");
        CHECK(ff->algo.needs & FEDFILE_NEEDS_PAST_END, "no clip_end: instants past the end");
        CHECK(d->m == 0 && d->n == 0 && d->tol == 0 && d->init == 0 && d->exchange == 0 &&
                  d->defect == 0 && d->clip_end == 0,
              "defaults %d %d %g %d %d %d %d", d->m, d->n, d->tol, d->init, d->exchange, d->defect,
              d->clip_end);
        fedfile_free(ff);
    }
    expect_bad(DCH(""), FEDFILE_ESCHEMA, "algorithm.defect-control: expected an object",
               "(missing)");
    expect_bad(DCH(", \"defect-control\": {}"), FEDFILE_ESCHEMA, "defect-control.h1: missing",
               NULL);
    expect_bad(DCH(", \"step\": 0.1, \"defect-control\": {\"h1\": 0.1}"), FEDFILE_ESCHEMA,
               "algorithm.step: unknown key for method \"defect-control\"", NULL);
    expect_bad(DCH(", \"defect-control\": {\"h1\": 0.1, \"m\": 5}"), FEDFILE_ESCHEMA,
               "defect-control.m: expected an integer 0..4 (a polynomial order)", NULL);
    expect_bad(DCH(", \"defect-control\": {\"h1\": 0.1, \"toll\": 1}"), FEDFILE_ESCHEMA,
               "defect-control.toll: unknown key", "h1, tol");
    expect_bad(DCH(", \"defect-control\": {\"h1\": 0.1, \"h_max\": 1}"), FEDFILE_ESCHEMA,
               "defect-control.h_max: only with \"tol\"", NULL);
    expect_bad(DCH(", \"defect-control\": {\"h1\": 0.1, \"tol\": 1, \"h_min\": 0.2, "
                   "\"h_max\": 0.1}"),
               FEDFILE_ESCHEMA, "h_max: 0.1 must be >= h_min 0.2", NULL);
    expect_bad(DCH(", \"defect-control\": {\"h1\": 0.1, \"tol\": 1, \"theta_max\": 0.5}"),
               FEDFILE_ESCHEMA, "theta_max: expected a growth limit > 1", NULL);
    expect_bad(DCH(", \"defect-control\": {\"h1\": 0.1, \"init\": \"zeros\"}"), FEDFILE_ESCHEMA,
               "defect-control.init: expected \"consistent\" or \"zero\"", NULL);
    expect_bad(DCH(", \"defect-control\": {\"h1\": 0.1, \"defect\": 1}"), FEDFILE_ESCHEMA,
               "expected \"both\", \"output\" or \"connection\"", NULL);
    expect_bad(DCH(", \"defect-control\": {\"h1\": 0.1, \"clip_end\": 1}"), FEDFILE_ESCHEMA,
               "clip_end: expected true or false", NULL);
    expect_bad(DCH(", \"defect-control\": {\"h1\": 1e-9}"), FEDFILE_ESCHEMA, "less than 2 ticks",
               NULL);
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"jacobi\", \"end\": 1, "
               "\"step\": 0.1, \"defect-control\": {\"h1\": 0.1}}, \"federates\": [" FA "]}",
               FEDFILE_ESCHEMA, "algorithm.defect-control: unknown key for method \"jacobi\"",
               NULL);
}

/* The "wr" section: defaults, every key, and refusals (doc/federation.md). */
#define WRHEAD(keys)                                                                               \
    "{\"federation\": \"f\", \"algorithm\": {\"method\": \"wr\", \"end\": 1, \"step\": 0.1" keys   \
    "}, \"federates\": [" FA "]}"
static void test_wr(void)
{
    fedfile *ff = NULL;
    write_file("wr1.json", WRHEAD(""));
    int rc = load("wr1.json", &ff);
    CHECK(rc == FEDFILE_OK, "wr1.json: %s", err);
    if (ff) {
        CHECK_STR_EQ(fedfile_method_name(ff), "wr");
        CHECK_INT_EQ(((const wr_opts *)fedfile_settings(ff, "wr"))->step, 100000000LL);
        CHECK_NEAR(((const wr_opts *)fedfile_settings(ff, "wr"))->tol, 1e-6, 0);
        CHECK_INT_EQ(((const wr_opts *)fedfile_settings(ff, "wr"))->max_iter, 50);
        CHECK_INT_EQ(((const wr_opts *)fedfile_settings(ff, "wr"))->n_sub, 4);
        CHECK_INT_EQ(((const wr_opts *)fedfile_settings(ff, "wr"))->norm, WR_NORM_MAX);
        CHECK_INT_EQ(((const wr_opts *)fedfile_settings(ff, "wr"))->relative, 0);
        CHECK_INT_EQ(((const wr_opts *)fedfile_settings(ff, "wr"))->on_fail, WR_FAIL);
        fedfile_free(ff);
    }
    write_file("wr2.json",
               WRHEAD(", \"tol\": 1e-9, \"max_iter\": 7, \"norm\": \"2-relative\", "
                      "\"n_sub\": 8, \"on_no_convergence\": \"halve\", \"h_min\": 0.001"));
    rc = load("wr2.json", &ff);
    CHECK(rc == FEDFILE_OK, "wr2.json: %s", err);
    if (ff) {
        CHECK_NEAR(((const wr_opts *)fedfile_settings(ff, "wr"))->tol, 1e-9, 0);
        CHECK_INT_EQ(((const wr_opts *)fedfile_settings(ff, "wr"))->max_iter, 7);
        CHECK_INT_EQ(((const wr_opts *)fedfile_settings(ff, "wr"))->norm, WR_NORM_2);
        CHECK_INT_EQ(((const wr_opts *)fedfile_settings(ff, "wr"))->relative, 1);
        CHECK_INT_EQ(((const wr_opts *)fedfile_settings(ff, "wr"))->n_sub, 8);
        CHECK_INT_EQ(((const wr_opts *)fedfile_settings(ff, "wr"))->on_fail, WR_HALVE);
        CHECK_INT_EQ(((const wr_opts *)fedfile_settings(ff, "wr"))->h_min, 1000000LL);
        CHECK_NEAR(ff->algo.reply_timeout, 0, 0); /* none by default */
        fedfile_free(ff);
    }
    /* tempo-master's reply timeout (doc/master.md): seconds, master methods only. */
    write_file("wr3.json", WRHEAD(", \"reply_timeout\": 2.5"));
    rc = load("wr3.json", &ff);
    CHECK(rc == FEDFILE_OK, "wr3.json: %s", err);
    if (ff) CHECK_NEAR(ff->algo.reply_timeout, 2.5, 0);
    fedfile_free(ff);
    ff = NULL;
    expect_bad(WRHEAD(", \"reply_timeout\": 0"), FEDFILE_ESCHEMA, "algorithm.reply_timeout",
               "0.001 to 86400");
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"jacobi\", \"end\": 1, "
               "\"step\": 0.1, \"reply_timeout\": 1}, \"federates\": [" FA "]}",
               FEDFILE_ESCHEMA, "algorithm.reply_timeout", "unknown key for method \"jacobi\"");
    expect_bad(WRHEAD(", \"n_sub\": 9"), FEDFILE_ESCHEMA, "algorithm.n_sub", "1..8");
    expect_bad(WRHEAD(", \"norm\": \"inf\""), FEDFILE_ESCHEMA, "algorithm.norm", "\"max\"");
    expect_bad(WRHEAD(", \"max_iter\": 0"), FEDFILE_ESCHEMA, "algorithm.max_iter", NULL);
    expect_bad(WRHEAD(", \"tol\": 0"), FEDFILE_ESCHEMA, "algorithm.tol", NULL);
    expect_bad(WRHEAD(", \"on_no_convergence\": \"retry\""), FEDFILE_ESCHEMA,
               "algorithm.on_no_convergence", "\"halve\"");
    expect_bad(WRHEAD(", \"h_min\": 0.01"), FEDFILE_ESCHEMA, "algorithm.h_min", "\"halve\"");
    expect_bad(WRHEAD(", \"extrapolation\": 1"), FEDFILE_ESCHEMA, "algorithm.extrapolation",
               "n_sub");
    expect_bad(HEAD "\"federates\": [" FA "], \"x\": 1}", FEDFILE_ESCHEMA, "x: unknown key", NULL);
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"jacobi\", \"end\": 1, "
               "\"step\": 0.1, \"tol\": 1e-3}, \"federates\": [" FA "]}",
               FEDFILE_ESCHEMA, "algorithm.tol", "unknown key for method");
}

/* The "semi-implicit" section: defaults, every key, and refusals (doc/federation.md). */
#define SEMIHEAD(keys)                                                                             \
    "{\"federation\": \"f\", \"algorithm\": {\"method\": \"semi-implicit\", \"end\": 1, "          \
    "\"step\": 0.1" keys "}, \"federates\": [" FA "]}"
static void test_semi(void)
{
    fedfile *ff = NULL;
    write_file("si1.json", SEMIHEAD(""));
    int rc = load("si1.json", &ff);
    CHECK(rc == FEDFILE_OK, "si1.json: %s", err);
    if (ff) {
        CHECK_STR_EQ(fedfile_method_name(ff), "semi-implicit");
        CHECK_INT_EQ(((const semi_opts *)fedfile_settings(ff, "semi-implicit"))->step, 100000000LL);
        CHECK_NEAR(((const semi_opts *)fedfile_settings(ff, "semi-implicit"))->tol, 1e-8, 0);
        CHECK_INT_EQ(((const semi_opts *)fedfile_settings(ff, "semi-implicit"))->max_iter, 50);
        CHECK_INT_EQ(((const semi_opts *)fedfile_settings(ff, "semi-implicit"))->n_sub, 1);
        CHECK_INT_EQ(((const semi_opts *)fedfile_settings(ff, "semi-implicit"))->iter,
                     SEMI_FIXED_POINT);
        CHECK_INT_EQ(((const semi_opts *)fedfile_settings(ff, "semi-implicit"))->jac0,
                     SEMI_JAC0_IDENTITY);
        fedfile_free(ff);
    }
    write_file("si2.json", SEMIHEAD(", \"tol\": 1e-9, \"max_iter\": 7, \"n_sub\": 10, "
                                    "\"iteration\": \"broyden\", \"jacobian\": \"fd\""));
    rc = load("si2.json", &ff);
    CHECK(rc == FEDFILE_OK, "si2.json: %s", err);
    if (ff) {
        CHECK_NEAR(((const semi_opts *)fedfile_settings(ff, "semi-implicit"))->tol, 1e-9, 0);
        CHECK_INT_EQ(((const semi_opts *)fedfile_settings(ff, "semi-implicit"))->max_iter, 7);
        CHECK_INT_EQ(((const semi_opts *)fedfile_settings(ff, "semi-implicit"))->n_sub, 10);
        CHECK_INT_EQ(((const semi_opts *)fedfile_settings(ff, "semi-implicit"))->iter,
                     SEMI_BROYDEN);
        CHECK_INT_EQ(((const semi_opts *)fedfile_settings(ff, "semi-implicit"))->jac0,
                     SEMI_JAC0_FD);
        fedfile_free(ff);
    }
    expect_bad(SEMIHEAD(", \"iteration\": \"secant\""), FEDFILE_ESCHEMA, "algorithm.iteration",
               "\"newton\"");
    write_file("si3.json", SEMIHEAD(", \"iteration\": \"newton-krylov\""));
    rc = load("si3.json", &ff);
    CHECK(rc == FEDFILE_OK, "si3.json: %s", err);
    if (ff) {
        CHECK_INT_EQ(((const semi_opts *)fedfile_settings(ff, "semi-implicit"))->iter,
                     SEMI_NEWTON_KRYLOV);
        fedfile_free(ff);
    }
    expect_bad(SEMIHEAD(", \"jacobian\": \"fd\""), FEDFILE_ESCHEMA, "algorithm.jacobian",
               "\"broyden\"");
    expect_bad(SEMIHEAD(", \"iteration\": \"broyden\", \"jacobian\": 1"), FEDFILE_ESCHEMA,
               "algorithm.jacobian", "\"identity\"");
    expect_bad(SEMIHEAD(", \"n_sub\": 0"), FEDFILE_ESCHEMA, "algorithm.n_sub", "redone");
    expect_bad(SEMIHEAD(", \"norm\": \"max\""), FEDFILE_ESCHEMA, "algorithm.norm",
               "unknown key for method \"semi-implicit\"");
    expect_bad(SEMIHEAD(", \"h_min\": 0.01"), FEDFILE_ESCHEMA, "algorithm.h_min", NULL);
    expect_bad(SEMIHEAD(", \"extrapolation\": 1"), FEDFILE_ESCHEMA, "algorithm.extrapolation",
               "unknown key for method \"semi-implicit\"");
    expect_bad("{\"federation\": \"f\", \"algorithm\": {\"method\": \"wr\", \"end\": 1, "
               "\"step\": 0.1, \"iteration\": \"newton\"}, \"federates\": [" FA "]}",
               FEDFILE_ESCHEMA, "algorithm.iteration", "unknown key for method \"wr\"");
}

/* The "hybrid" section: defaults from the step, every key, and refusals (doc/federation.md). */
#define HYHEAD(keys)                                                                               \
    "{\"federation\": \"f\", \"algorithm\": {\"method\": \"hybrid\", \"end\": 1, "                 \
    "\"step\": 0.1" keys "}, \"federates\": [" FA "]}"
static void test_hybrid(void)
{
    fedfile *ff = NULL;
    write_file("hy1.json", HYHEAD(""));
    int rc = load("hy1.json", &ff);
    CHECK(rc == FEDFILE_OK, "hy1.json: %s", err);
    if (ff) {
        CHECK_STR_EQ(fedfile_method_name(ff), "hybrid");
        CHECK_INT_EQ(HY(ff)->opts.step, 100000000LL);
        CHECK_INT_EQ(HY(ff)->opts.h_min, 1000000LL); /* step / 100 */
        CHECK_INT_EQ(HY(ff)->opts.h_max, 1000000000LL);
        CHECK_INT_EQ(HY(ff)->opts.delta, 1000000LL);
        CHECK_NEAR(HY(ff)->opts.tol_d, 0, 0);
        CHECK_INT_EQ((long)HY(ff)->n_discrete, 0);
        fedfile_free(ff);
    }
    write_file("hy2.json", HYHEAD(", \"hybrid\": {\"h_min\": 0.002, \"h_max\": 0.5, \"delta\": "
                                  "0.001, \"bisect\": true, \"bisect_tol\": 1e-5, \"tol\": 1e-9, "
                                  "\"max_iter\": 9, \"norm\": \"2\", \"tol_d\": 1e-3, \"tau0\": "
                                  "0.2, \"grow\": 1.2, \"shrink\": 0.3, \"discrete\": [\"A.x\"]}"));
    rc = load("hy2.json", &ff);
    CHECK(rc == FEDFILE_OK, "hy2.json: %s", err);
    if (ff) {
        const hybrid_opts *o = &HY(ff)->opts;
        CHECK(o->h_min == 2000000 && o->h_max == 500000000 && o->delta == 1000000 &&
                  o->bisect == 1 && o->bisect_tol == 10000 && o->max_iter == 9 &&
                  o->norm == HYBRID_NORM_2,
              "hybrid ticks and flags");
        CHECK(o->tol == 1e-9 && o->tol_d == 1e-3 && o->tau0 == 0.2 && o->grow == 1.2 &&
                  o->shrink == 0.3,
              "hybrid numbers");
        CHECK(HY(ff)->n_discrete == 1 && !strcmp(HY(ff)->discrete[0], "A.x"), "discrete");
        fedfile_free(ff);
    }
    expect_bad(HYHEAD(", \"hybrid\": {\"delta\": 1e-12}"), FEDFILE_ESCHEMA,
               "algorithm.hybrid.delta", "whole number of ticks");
    expect_bad(HYHEAD(", \"hybrid\": {\"h_min\": 0.5, \"h_max\": 0.1}"), FEDFILE_ESCHEMA,
               "algorithm.hybrid.h_max", ">= h_min");
    expect_bad(HYHEAD(", \"hybrid\": {\"shrink\": 2}"), FEDFILE_ESCHEMA, "algorithm.hybrid.shrink",
               NULL);
    expect_bad(HYHEAD(", \"hybrid\": {\"norm\": \"1\"}"), FEDFILE_ESCHEMA, "algorithm.hybrid.norm",
               NULL);
    expect_bad(HYHEAD(", \"hybrid\": {\"discrete\": [3]}"), FEDFILE_ESCHEMA,
               "algorithm.hybrid.discrete[0]", NULL);
    expect_bad(HYHEAD(", \"hybrid\": {\"delay\": 1}"), FEDFILE_ESCHEMA, "algorithm.hybrid.delay",
               "unknown key");
    expect_bad(SEMIHEAD(", \"hybrid\": {}"), FEDFILE_ESCHEMA, "algorithm.hybrid",
               "unknown key for method \"semi-implicit\"");
}

/* The algorithm table: every value found by its name, its side's run and nothing of the other
 * side's, a summary line; and a peer's run settings created from a loaded file (per-output
 * quanta for jacobi-de). No count: a new algorithm adds its line and nothing here. */
static void test_registry(void)
{
    size_t n = 0;
    const fedfile_algo_def *const *all = fedfile_algos(&n);
    CHECK(n > 0, "a table");
    for (size_t i = 0; i < n; i++) {
        const fedfile_algo_def *d = all[i];
        CHECK(fedfile_algo_by_name(d->name) == d, "%s by name", d->name);
        CHECK(d->summary && d->summary[0], "%s has a summary line", d->name);
        if (d->side == FEDFILE_SIDE_PEER)
            CHECK(d->run_peer && !d->run_master && d->create && d->destroy,
                  "%s: a complete peer value", d->name);
        else
            CHECK(d->side == FEDFILE_SIDE_MASTER && d->run_master && !d->run_peer && !d->create,
                  "%s: a complete master value", d->name);
    }
    /* The table's order is the method list of the messages and of tempo-master --help. */
    static const char *const order[] = {
        "jacobi-naive",  "jacobi",        "jacobi-de",      "gauss-seidel", "wr",
        "semi-implicit", "master-jacobi", "defect-control", "f3ornits",     "strong",
        "hybrid",        "balance",       "energy"};
    for (size_t i = 0; i < n && i < sizeof order / sizeof order[0]; i++)
        CHECK_STR_EQ(all[i]->name, order[i]);
    CHECK(fedfile_algo_by_name("waveform") == NULL, "unknown name");
    copy_fixture("houses-de.json");
    fedfile *ff = NULL;
    if (load("houses-de.json", &ff) != FEDFILE_OK) return;
    const fedfile_algo_def *de = ff->algo.def;
    void *set = NULL;
    CHECK_INT_EQ(de->create(ff, 0, &set, err, sizeof err), FEDFILE_OK);
    const jacobi_de_settings *s = set;
    if (s) {
        CHECK_NEAR(s->h_min, 1.0, 0);
        CHECK_NEAR(s->h_max, 900.0, 0);
        for (size_t k = 0; k < ff->feds[0].n_outputs; k++)
            CHECK_NEAR(s->q[k], fedfile_quantum_of(ff, &ff->feds[0], ff->feds[0].outputs[k].var),
                       0);
    }
    de->destroy(set);
    CHECK_INT_EQ(de->create(ff, 99, &set, err, sizeof err), FEDFILE_EUSAGE);
    fedfile_free(ff);
}

int main(void)
{
    if (setup() != 0) {
        CHECK(0, "cannot create a temporary folder: %s", strerror(errno));
        return check_summary();
    }
    test_lv_jacobi();
    test_chain_gs();
    test_houses_de();
    test_program();
    test_python_model();
    test_refusals();
    test_defect_control();
    test_f3ornits();
    test_rti_forms();
    test_fom_qualified();
    test_checkpoint_key();
    test_check_fmu();
    test_transform();
    test_corrupted();
    test_wr();
    test_semi();
    test_hybrid();
    test_registry();
    teardown();
    return check_summary();
}
