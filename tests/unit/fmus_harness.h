/* Shared helpers of the example-FMU tests (fmus_framework_test.c, fmus_robust_test.c): load
 * one built FMU's binary with dlopen (no Tempo loader), check its zip and XML, and drive it.
 * doc/fmu.md. Read fmus_framework_test.c next. */
#ifndef TEMPO_TESTS_FMUS_HARNESS_H
#define TEMPO_TESTS_FMUS_HARNESS_H

#define FMI2_NO_PROTOTYPES
/* Each test uses some of these helpers. */
#define FMUS_UNUSED __attribute__((unused))

#include <dlfcn.h>
#include <float.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdarg.h>
#include <zip.h>

#include "federate/fmu/fmi2.h"
#include "tests/check.h"

static FMUS_UNUSED const char *const models[] = {
    "dahlquist",   "vanderpol", "bouncingball",  "stair",         "lv_prey",
    "lv_predator", "lv",        "osc_omega2tau", "osc_tau2omega", "osc_twomass",
    "spring",      "mass",      "springmass",    "lorenz_x",      "lorenz_yz",
    "lorenz",      "vdp_x",     "vdp_y",         "house",         "environment"};
#define NMODELS (sizeof models / sizeof models[0])

/* ---- the FMI functions of one binary ------------------------------------------------- */

typedef struct {
    void *dl;
    char guid[64];
    int nvars;
    double start[64]; /* start value of each vr in the XML; NAN when it has none */
    fmi2InstantiateTYPE *instantiate;
    fmi2FreeInstanceTYPE *free_instance;
    fmi2SetDebugLoggingTYPE *set_debug_logging;
    fmi2SetupExperimentTYPE *setup;
    fmi2EnterInitializationModeTYPE *enter_init;
    fmi2ExitInitializationModeTYPE *exit_init;
    fmi2TerminateTYPE *terminate;
    fmi2ResetTYPE *reset;
    fmi2GetRealTYPE *get_real;
    fmi2SetRealTYPE *set_real;
    fmi2GetIntegerTYPE *get_integer;
    fmi2GetFMUstateTYPE *get_state;
    fmi2SetFMUstateTYPE *set_state;
    fmi2FreeFMUstateTYPE *free_state;
    fmi2SerializedFMUstateSizeTYPE *ser_size;
    fmi2SerializeFMUstateTYPE *serialize;
    fmi2DeSerializeFMUstateTYPE *deserialize;
    fmi2EnterEventModeTYPE *enter_event;
    fmi2NewDiscreteStatesTYPE *new_discrete;
    fmi2EnterContinuousTimeModeTYPE *enter_cont;
    fmi2CompletedIntegratorStepTYPE *completed;
    fmi2SetTimeTYPE *set_time;
    fmi2SetContinuousStatesTYPE *set_x;
    fmi2GetContinuousStatesTYPE *get_x;
    fmi2GetDerivativesTYPE *get_dx;
    fmi2GetEventIndicatorsTYPE *get_z;
    fmi2DoStepTYPE *do_step;
    fmi2SetRealInputDerivativesTYPE *set_in_der;
    fmi2GetRealOutputDerivativesTYPE *get_out_der;
    fmi2GetRealStatusTYPE *get_real_status;
    fmi2GetBooleanStatusTYPE *get_bool_status;
} api;

static FMUS_UNUSED char last_log[1024]; /* last message the FMU logged */
static FMUS_UNUSED double located[64];  /* times of "state event located" messages (logEvents) */
static FMUS_UNUSED int nlocated;        /* entries used in located */
static FMUS_UNUSED int npercent;        /* messages whose text kept a lone '%' (must stay 0) */

static FMUS_UNUSED void logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status st,
                               fmi2String category, fmi2String message, ...)
{
    va_list ap;
    va_start(ap, message);
    vsnprintf(last_log, sizeof last_log, message, ap);
    va_end(ap);
    double t;
    if (sscanf(last_log, "state event located at t=%lf", &t) == 1 && nlocated < 64)
        located[nlocated++] = t;
    /* The FMU doubles '%' so that a printf-style logger prints it once. */
    for (const char *p = message; *p; p++)
        if (p[0] == '%' && p[1] != '%' && (p == message || p[-1] != '%')) npercent++;
}

static const fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};

#define SYM(field, name)                                                                           \
    do {                                                                                           \
        *(void **)&a->field = dlsym(a->dl, name);                                                  \
        CHECK(a->field != NULL, "%s: symbol %s missing", path, name);                              \
        if (!a->field) return -1;                                                                  \
    } while (0)

/* Read the GUID and count the ScalarVariables of an XML file; 0 or -1. */
static FMUS_UNUSED int read_xml(const char *xml, api *a, const char *kind_elem, const char *id)
{
    xmlDoc *doc = xmlReadFile(xml, NULL, XML_PARSE_NONET);
    CHECK(doc != NULL, "%s does not parse", xml);
    if (!doc) return -1;
    xmlNode *root = xmlDocGetRootElement(doc);
    xmlChar *ver = xmlGetProp(root, (const xmlChar *)"fmiVersion");
    xmlChar *guid = xmlGetProp(root, (const xmlChar *)"guid");
    CHECK_STR_EQ((const char *)ver, "2.0");
    snprintf(a->guid, sizeof a->guid, "%s", guid ? (const char *)guid : "");
    xmlFree(ver);
    xmlFree(guid);
    int kinds = 0;
    a->nvars = 0;
    for (xmlNode *n = root->children; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        if (!xmlStrcmp(n->name, (const xmlChar *)"ModelExchange") ||
            !xmlStrcmp(n->name, (const xmlChar *)"CoSimulation")) {
            kinds++;
            CHECK_STR_EQ((const char *)n->name, kind_elem);
            xmlChar *mid = xmlGetProp(n, (const xmlChar *)"modelIdentifier");
            CHECK_STR_EQ((const char *)mid, id);
            xmlFree(mid);
        }
        if (!xmlStrcmp(n->name, (const xmlChar *)"ModelVariables"))
            for (xmlNode *v = n->children; v; v = v->next)
                if (v->type == XML_ELEMENT_NODE) {
                    xmlChar *vr = xmlGetProp(v, (const xmlChar *)"valueReference");
                    CHECK_INT_EQ(atoi((const char *)vr), a->nvars);
                    xmlFree(vr);
                    xmlNode *real = v->children;
                    while (real && real->type != XML_ELEMENT_NODE)
                        real = real->next;
                    xmlChar *st = real ? xmlGetProp(real, (const xmlChar *)"start") : NULL;
                    if (a->nvars < 64) a->start[a->nvars] = st ? strtod((char *)st, NULL) : NAN;
                    xmlFree(st);
                    a->nvars++;
                }
    }
    CHECK_INT_EQ(kinds, 1);
    xmlFreeDoc(doc);
    return 0;
}

/* The zip must hold exactly the staged XML and binary. */
static FMUS_UNUSED void check_zip(const char *fmu, const char *id)
{
    int err = 0;
    zip_t *z = zip_open(fmu, ZIP_RDONLY, &err);
    CHECK(z != NULL, "%s: not a zip (libzip error %d)", fmu, err);
    if (!z) return;
    char bin[256];
    snprintf(bin, sizeof bin, "binaries/linux64/%s.so", id);
    CHECK(zip_name_locate(z, "modelDescription.xml", 0) >= 0, "%s: no modelDescription.xml", fmu);
    CHECK(zip_name_locate(z, bin, 0) >= 0, "%s: no %s", fmu, bin);
    zip_close(z);
}

/* Load build/fmus/NAME_KIND.fmu's staged binary and XML. 0 or -1. */
static FMUS_UNUSED int load(api *a, const char *id, int cs)
{
    char path[512], xml[512], fmu[512];
    memset(a, 0, sizeof *a);
    const char *k = cs ? "cs" : "me";
    snprintf(fmu, sizeof fmu, "build/fmus/%s_%s.fmu", id, k);
    snprintf(xml, sizeof xml, "build/fmus/stage/%s_%s/modelDescription.xml", id, k);
    snprintf(path, sizeof path, "build/fmus/stage/%s_%s/binaries/linux64/%s.so", id, k, id);
#if defined(__SANITIZE_ADDRESS__)
    /* The sanitized test runs the sanitized build of the same sources (mk/55-fmus.mk). */
    snprintf(path, sizeof path, "build/fmus/san/%s.so", id);
#endif
    check_zip(fmu, id);
    if (read_xml(xml, a, cs ? "CoSimulation" : "ModelExchange", id) != 0) return -1;
    a->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    CHECK(a->dl != NULL, "dlopen %s: %s", path, dlerror());
    if (!a->dl) return -1;
    SYM(instantiate, "fmi2Instantiate");
    SYM(free_instance, "fmi2FreeInstance");
    SYM(set_debug_logging, "fmi2SetDebugLogging");
    SYM(setup, "fmi2SetupExperiment");
    SYM(enter_init, "fmi2EnterInitializationMode");
    SYM(exit_init, "fmi2ExitInitializationMode");
    SYM(terminate, "fmi2Terminate");
    SYM(reset, "fmi2Reset");
    SYM(get_real, "fmi2GetReal");
    SYM(set_real, "fmi2SetReal");
    SYM(get_integer, "fmi2GetInteger");
    SYM(get_state, "fmi2GetFMUstate");
    SYM(set_state, "fmi2SetFMUstate");
    SYM(free_state, "fmi2FreeFMUstate");
    SYM(ser_size, "fmi2SerializedFMUstateSize");
    SYM(serialize, "fmi2SerializeFMUstate");
    SYM(deserialize, "fmi2DeSerializeFMUstate");
    SYM(enter_event, "fmi2EnterEventMode");
    SYM(new_discrete, "fmi2NewDiscreteStates");
    SYM(enter_cont, "fmi2EnterContinuousTimeMode");
    SYM(completed, "fmi2CompletedIntegratorStep");
    SYM(set_time, "fmi2SetTime");
    SYM(set_x, "fmi2SetContinuousStates");
    SYM(get_x, "fmi2GetContinuousStates");
    SYM(get_dx, "fmi2GetDerivatives");
    SYM(get_z, "fmi2GetEventIndicators");
    SYM(do_step, "fmi2DoStep");
    SYM(set_in_der, "fmi2SetRealInputDerivatives");
    SYM(get_out_der, "fmi2GetRealOutputDerivatives");
    SYM(get_real_status, "fmi2GetRealStatus");
    SYM(get_bool_status, "fmi2GetBooleanStatus");
    return 0;
}

static FMUS_UNUSED void unload(api *a)
{
    if (a->dl) dlclose(a->dl);
    a->dl = NULL;
}

/* Instantiate, set the given parameters, and initialise at t = 0. */
static FMUS_UNUSED fmi2Component start(api *a, int cs, const fmi2ValueReference *vr,
                                       const double *val, size_t n)
{
    fmi2Component c = a->instantiate("t", cs ? fmi2CoSimulation : fmi2ModelExchange, a->guid, NULL,
                                     &callbacks, fmi2False, fmi2False);
    CHECK(c != NULL, "instantiate failed: %s", last_log);
    if (!c) return NULL;
    CHECK_INT_EQ(a->setup(c, fmi2False, 0, 0.0, fmi2False, 0), fmi2OK);
    if (n) CHECK_INT_EQ(a->set_real(c, vr, n, val), fmi2OK);
    CHECK_INT_EQ(a->enter_init(c), fmi2OK);
    CHECK_INT_EQ(a->exit_init(c), fmi2OK);
    return c;
}

static FMUS_UNUSED double get1(api *a, fmi2Component c, fmi2ValueReference vr)
{
    double v = NAN;
    CHECK_INT_EQ(a->get_real(c, &vr, 1, &v), fmi2OK);
    return v;
}

static FMUS_UNUSED double outder(api *a, fmi2Component c, fmi2ValueReference vr, int order)
{
    double v = NAN;
    CHECK_INT_EQ(a->get_out_der(c, &vr, 1, &order, &v), fmi2OK);
    return v;
}

/* Leave initialisation (ME: event iteration, then continuous-time mode). */
static FMUS_UNUSED void enter_cont(api *a, fmi2Component c)
{
    fmi2EventInfo info;
    CHECK_INT_EQ(a->new_discrete(c, &info), fmi2OK);
    CHECK_INT_EQ(a->enter_cont(c), fmi2OK);
}

#endif
