/* Unit tests of the SSP reader (federate/config/ssp.c, doc/ssp.md): the hand-made system of
 * tests/ssp/lv translates into the documented federation document (names of nested
 * components, wiring through system connectors, parameters inline and through .ssv and .ssm,
 * default algorithm and step); small SSDs written here are refused with the element's line
 * and path. Runs under the sanitizers (the integration test tests/integration/ssp_test.sh
 * runs the systems). Files are written to a private temporary folder. */
#include "federate/config/ssp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <zip.h>

#include "federate/fmu/fmu_zip.h"

#include "tests/check.h"

static char tmp[64];
static char err[1024];

static const char *head =
    "<?xml version=\"1.0\"?>\n"
    "<ssd:SystemStructureDescription version=\"1.0\" name=\"t\"\n"
    " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n"
    " xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\"\n"
    " xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\">\n";

/* Write tmp/t.ssd = head + body, load it; returns ssp_load's status, *doc the document. */
static int load_text(const char *body, json_t **doc)
{
    char p[128];
    snprintf(p, sizeof p, "%s/t.ssd", tmp);
    FILE *f = fopen(p, "w");
    if (!f) return -3;
    fprintf(f, "%s%s", head, body);
    fclose(f);
    char *td = NULL;
    void *d = NULL;
    int rc = ssp_load(p, 1, &d, &td, err, sizeof err);
    free(td);
    *doc = d;
    return rc;
}

static json_t *fed(json_t *doc, size_t i)
{
    return json_array_get(json_object_get(doc, "federates"), i);
}
static double num(json_t *o, const char *a, const char *b)
{
    return json_number_value(json_object_get(json_object_get(o, a), b));
}
static const char *str(json_t *o, const char *a, const char *b)
{
    json_t *x = b ? json_object_get(json_object_get(o, a), b) : json_object_get(o, a);
    return json_is_string(x) ? json_string_value(x) : "(none)";
}

static void test_lv(void)
{
    void *d = NULL;
    char *td = NULL;
    int rc = ssp_load("tests/ssp/lv/SystemStructure.ssd", 1, &d, &td, err, sizeof err);
    CHECK(rc == 0, "lv: %s", err);
    CHECK(td == NULL, "an .ssd is not unpacked");
    json_t *doc = d;
    if (rc) return;
    CHECK_STR_EQ(str(doc, "federation", NULL), "lv");
    CHECK_STR_EQ(str(doc, "algorithm", "method"), "jacobi");
    CHECK_NEAR(num(doc, "algorithm", "start"), 0, 0);
    CHECK_NEAR(num(doc, "algorithm", "end"), 100, 0);
    CHECK_NEAR(num(doc, "algorithm", "step"), 0.1, 1e-15); /* (100 - 0) / 1000 */
    CHECK_INT_EQ((long)json_array_size(json_object_get(doc, "federates")), 2);
    json_t *prey = fed(doc, 0), *pred = fed(doc, 1);
    CHECK_STR_EQ(str(prey, "name", NULL), "prey");
    CHECK_STR_EQ(str(pred, "name", NULL), "pred-predator");
    CHECK_STR_HAS(str(pred, "fmu", NULL), "/tests/ssp/lv/resources/lv_predator_me.fmu");
    /* the wiring through the nested system's connectors x_in and y_out */
    CHECK_STR_EQ(str(prey, "outputs", "x"), "prey.x");
    CHECK_STR_EQ(str(pred, "inputs", "x"), "prey.x");
    CHECK_STR_EQ(str(pred, "outputs", "y"), "pred_predator.y");
    CHECK_STR_EQ(str(prey, "inputs", "y"), "pred_predator.y");
    /* inline values; .ssv through .ssm (gamma_ -> gamma); unmapped y0 by name */
    CHECK_NEAR(num(prey, "parameters", "alpha"), 0.5, 0);
    CHECK_NEAR(num(prey, "parameters", "x0"), 1, 0);
    CHECK_NEAR(num(pred, "parameters", "gamma"), 0.27, 0);
    CHECK_NEAR(num(pred, "parameters", "delta"), 0.6, 0);
    CHECK_NEAR(num(pred, "parameters", "y0"), 1, 0);
    CHECK(!json_object_get(json_object_get(pred, "parameters"), "gamma_"), "mapped away");
    CHECK(json_is_real(json_object_get(json_object_get(prey, "parameters"), "x0")),
          "a Real parameter stays a JSON real");
    json_decref(doc);
}

/* A mapping with a linear transformation, typed values and a unit conversion. */
static void test_values(void)
{
    json_t *doc = NULL;
    int rc = load_text(
        "<ssd:System name=\"s\"><ssd:Elements>\n"
        "<ssd:Component name=\"a\" source=\"a.fmu\"><ssd:Connectors>\n"
        "<ssd:Connector name=\"len\" kind=\"parameter\"><ssc:Real unit=\"m\"/></ssd:Connector>\n"
        "</ssd:Connectors></ssd:Component></ssd:Elements>\n"
        "<ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>\n"
        "<ssv:ParameterSet version=\"1.0\" name=\"p\"><ssv:Parameters>\n"
        "<ssv:Parameter name=\"a.len\"><ssv:Real value=\"2\" unit=\"km\"/></ssv:Parameter>\n"
        "<ssv:Parameter name=\"a.n\"><ssv:Integer value=\"-3\"/></ssv:Parameter>\n"
        "<ssv:Parameter name=\"a.on\"><ssv:Boolean value=\"true\"/></ssv:Parameter>\n"
        "<ssv:Parameter name=\"a.s\"><ssv:String value=\"hi\"/></ssv:Parameter>\n"
        "<ssv:Parameter name=\"a.g\"><ssv:Real value=\"3\"/></ssv:Parameter>\n"
        "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues>\n"
        "<ssd:ParameterMapping><ssm:ParameterMapping "
        "xmlns:ssm=\"http://ssp-standard.org/SSP1/SystemStructureParameterMapping\">\n"
        "<ssm:MappingEntry source=\"a.g\" target=\"a.gain\">"
        "<ssc:LinearTransformation factor=\"2\" offset=\"1\"/></ssm:MappingEntry>\n"
        "</ssm:ParameterMapping></ssd:ParameterMapping>\n"
        "</ssd:ParameterBinding></ssd:ParameterBindings></ssd:System>\n"
        "<ssd:Units><ssc:Unit name=\"m\"><ssc:BaseUnit m=\"1\"/></ssc:Unit>\n"
        "<ssc:Unit name=\"km\"><ssc:BaseUnit m=\"1\" factor=\"1000\"/></ssc:Unit></ssd:Units>\n"
        "<ssd:DefaultExperiment startTime=\"1\" stopTime=\"3\"/>\n"
        "</ssd:SystemStructureDescription>\n",
        &doc);
    CHECK(rc == 0, "values: %s", err);
    if (rc) return;
    json_t *a = fed(doc, 0), *p = json_object_get(a, "parameters");
    CHECK_NEAR(json_real_value(json_object_get(p, "len")), 2000, 0);
    CHECK(json_is_integer(json_object_get(p, "n")) &&
              json_integer_value(json_object_get(p, "n")) == -3,
          "integer -3");
    CHECK(json_is_true(json_object_get(p, "on")), "boolean true");
    CHECK_STR_EQ(str(p, "s", NULL), "hi");
    CHECK_NEAR(json_real_value(json_object_get(p, "gain")), 7, 0); /* 3 * 2 + 1 */
    CHECK_NEAR(num(doc, "algorithm", "step"), 0.002, 1e-15);
    json_decref(doc);
}

/* The layout OMSimulator writes (ssd:Annotations with its org.openmodelica step, geometry)
 * and the Open Simulation Platform's step in the DefaultExperiment's annotations: written by
 * hand after their documented form, since neither tool is installed here (doc/ssp.md). */
static void test_other_layouts(void)
{
    json_t *doc = NULL;
    int rc = load_text(
        "<ssd:System name=\"root\">\n"
        "<ssd:Annotations><ssc:Annotation type=\"org.openmodelica\">\n"
        "<oms:Annotations xmlns:oms=\"https://example.org/oms.xsd\"><oms:SimulationInformation>\n"
        "<oms:FixedStepMaster description=\"oms-ma\" stepSize=\"0.010000\"/>\n"
        "</oms:SimulationInformation></oms:Annotations></ssc:Annotation></ssd:Annotations>\n"
        "<ssd:Elements>\n"
        "<ssd:Component name=\"A\" type=\"application/x-fmu-sharedlibrary\" "
        "source=\"resources/0001_A.fmu\"><ssd:Connectors>\n"
        "<ssd:Connector name=\"y\" kind=\"output\"><ssc:Real/>"
        "<ssd:ConnectorGeometry x=\"1\" y=\"0.5\"/></ssd:Connector>\n"
        "</ssd:Connectors><ssd:ElementGeometry x1=\"0\" y1=\"0\" x2=\"1\" y2=\"1\"/>\n"
        "<ssd:Annotations><ssc:Annotation type=\"x\"><foo/></ssc:Annotation></ssd:Annotations>\n"
        "</ssd:Component>\n"
        "<ssd:Component name=\"B\" source=\"resources/0002_B.fmu\"><ssd:Connectors>\n"
        "<ssd:Connector name=\"u\" kind=\"input\"><ssc:Real/></ssd:Connector>\n"
        "</ssd:Connectors></ssd:Component></ssd:Elements>\n"
        "<ssd:Connections><ssd:Connection startElement=\"A\" startConnector=\"y\" "
        "endElement=\"B\" endConnector=\"u\"><ssd:ConnectionGeometry pointsX=\"1\" "
        "pointsY=\"1\"/></ssd:Connection></ssd:Connections>\n"
        "<ssd:SystemGeometry x1=\"0\" y1=\"0\" x2=\"1\" y2=\"1\"/></ssd:System>\n"
        "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"2\"/>\n"
        "</ssd:SystemStructureDescription>\n",
        &doc);
    CHECK(rc == 0, "OMSimulator layout: %s", err);
    if (rc) return;
    CHECK_NEAR(num(doc, "algorithm", "step"), 0.01, 0);
    CHECK_STR_EQ(str(fed(doc, 1), "inputs", "u"), "A.y");
    json_decref(doc);
    rc = load_text("<ssd:System name=\"s\"><ssd:Elements>\n"
                   "<ssd:Component name=\"a\" source=\"a.fmu\"/></ssd:Elements></ssd:System>\n"
                   "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"1\"><ssd:Annotations>\n"
                   "<ssc:Annotation type=\"com.opensimulationplatform\"><osp:Algorithm "
                   "xmlns:osp=\"https://example.org/osp\"><osp:FixedStepAlgorithm "
                   "baseStepSize=\"1e-4\"/></osp:Algorithm></ssc:Annotation>\n"
                   "</ssd:Annotations></ssd:DefaultExperiment></ssd:SystemStructureDescription>\n",
                   &doc);
    CHECK(rc == 0, "OSP step: %s", err);
    if (rc) return;
    CHECK_NEAR(num(doc, "algorithm", "step"), 1e-4, 0);
    json_decref(doc);
}

/* A binding higher in the hierarchy overrides one nearer to the component (SSP 1.0, the
 * ParameterBinding rules; doc/ssp.md, binding order), and long variable names still give
 * distinct attributes. */
static void test_order(void)
{
    char body[4096], lng[301];
    memset(lng, 'v', 300);
    lng[300] = '\0';
    snprintf(body, sizeof body,
             "<ssd:System name=\"s\"><ssd:Elements>\n"
             "<ssd:Component name=\"a\" source=\"a.fmu\"><ssd:Connectors>\n"
             "<ssd:Connector name=\"%s1\" kind=\"output\"><ssc:Real/></ssd:Connector>\n"
             "<ssd:Connector name=\"%s2\" kind=\"output\"><ssc:Real/></ssd:Connector>\n"
             "</ssd:Connectors><ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>\n"
             "<ssv:ParameterSet version=\"1.0\" name=\"in\"><ssv:Parameters>\n"
             "<ssv:Parameter name=\"k\"><ssv:Real value=\"2\"/></ssv:Parameter>\n"
             "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues></ssd:ParameterBinding>\n"
             "</ssd:ParameterBindings></ssd:Component></ssd:Elements>\n"
             "<ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>\n"
             "<ssv:ParameterSet version=\"1.0\" name=\"out\"><ssv:Parameters>\n"
             "<ssv:Parameter name=\"a.k\"><ssv:Real value=\"1\"/></ssv:Parameter>\n"
             "<ssv:Parameter name=\"a.m\"><ssv:Real value=\"5\"/></ssv:Parameter>\n"
             "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues></ssd:ParameterBinding>\n"
             "</ssd:ParameterBindings></ssd:System><ssd:DefaultExperiment stopTime=\"1\"/>\n"
             "</ssd:SystemStructureDescription>\n",
             lng, lng);
    json_t *doc = NULL;
    int rc = load_text(body, &doc);
    CHECK(rc == 0, "order: %s", err);
    if (rc) return;
    json_t *p = json_object_get(fed(doc, 0), "parameters");
    CHECK_NEAR(json_real_value(json_object_get(p, "k")), 1, 0); /* the system's */
    CHECK_NEAR(json_real_value(json_object_get(p, "m")), 5, 0);
    json_t *outs = json_object_get(fed(doc, 0), "outputs");
    CHECK_INT_EQ((long)json_object_size(outs), 2);
    const char *k;
    json_t *v, *seen = json_object();
    json_object_foreach(outs, k, v) json_object_set(seen, json_string_value(v), v);
    CHECK_INT_EQ((long)json_object_size(seen), 2); /* distinct attributes */
    json_decref(seen);
    json_decref(doc);
}

/* tests/ssp/shapes: the shapes other tools write (doc/ssp.md, "Tested"): connections turned
 * round, a root parameter connector bound through a mapping and passed on by a parameter
 * connection over the prey's own value, a prefix, the OMSimulator step. */
static void test_shapes(void)
{
    void *d = NULL;
    char *td = NULL;
    int rc = ssp_load("tests/ssp/shapes/SystemStructure.ssd", 1, &d, &td, err, sizeof err);
    CHECK(rc == 0, "shapes: %s", err);
    json_t *doc = d;
    if (rc) return;
    CHECK_STR_EQ(str(doc, "federation", NULL), "LV_shapes");
    CHECK_NEAR(num(doc, "algorithm", "step"), 0.5, 0);
    json_t *prey = fed(doc, 0), *pred = fed(doc, 1);
    CHECK_STR_EQ(str(pred, "name", NULL), "pred-predator");
    CHECK_STR_EQ(str(pred, "inputs", "x"), "prey.x");
    CHECK_STR_EQ(str(prey, "inputs", "y"), "pred_predator.y");
    CHECK_NEAR(num(prey, "parameters", "alpha"), 0.5, 0); /* the root's, not 9 */
    CHECK_NEAR(num(prey, "parameters", "beta"), 0.7, 0);
    CHECK_NEAR(num(pred, "parameters", "gamma"), 0.27, 0); /* prefix "predator." */
    CHECK_NEAR(num(pred, "parameters", "y0"), 1, 0);
    CHECK(!json_object_get(prey, "transform") && !json_object_get(pred, "transform"),
          "no transformation");
    json_decref(doc);
}

/* Linear transformations composed along a chain through a subsystem (y = 2 (10 x + 1) + 3
 * = 20 x + 5), a unit conversion after them; a system input bound by a parameter gives the
 * input it feeds a start value through the connection's transformation; an Enumeration
 * parameter takes its item's value. */
static void test_transforms(void)
{
    json_t *doc = NULL;
    int rc = load_text(
        "<ssd:System name=\"s\"><ssd:Connectors>\n"
        "<ssd:Connector name=\"u0\" kind=\"input\"><ssc:Real/></ssd:Connector>\n"
        "</ssd:Connectors><ssd:Elements>\n"
        "<ssd:Component name=\"a\" source=\"a.fmu\"><ssd:Connectors>\n"
        "<ssd:Connector name=\"y\" kind=\"output\"><ssc:Real unit=\"km\"/></ssd:Connector>\n"
        "</ssd:Connectors></ssd:Component>\n"
        "<ssd:System name=\"sub\"><ssd:Connectors>\n"
        "<ssd:Connector name=\"i\" kind=\"input\"><ssc:Real/></ssd:Connector>\n"
        "</ssd:Connectors><ssd:Elements>\n"
        "<ssd:Component name=\"b\" source=\"b.fmu\"><ssd:Connectors>\n"
        "<ssd:Connector name=\"u\" kind=\"input\"><ssc:Real unit=\"m\"/></ssd:Connector>\n"
        "<ssd:Connector name=\"w\" kind=\"input\"><ssc:Real/></ssd:Connector>\n"
        "<ssd:Connector name=\"mode\" kind=\"parameter\"><ssc:Enumeration/></ssd:Connector>\n"
        "</ssd:Connectors></ssd:Component></ssd:Elements>\n"
        "<ssd:Connections><ssd:Connection startConnector=\"i\" endElement=\"b\" "
        "endConnector=\"u\"><ssc:LinearTransformation factor=\"2\" offset=\"3\"/>"
        "</ssd:Connection></ssd:Connections></ssd:System></ssd:Elements>\n"
        "<ssd:Connections><ssd:Connection startElement=\"a\" startConnector=\"y\" "
        "endElement=\"sub\" endConnector=\"i\"><ssc:LinearTransformation factor=\"10\" "
        "offset=\"1\"/></ssd:Connection>\n"
        "<ssd:Connection startConnector=\"u0\" endElement=\"sub.b\" endConnector=\"w\">"
        "<ssc:LinearTransformation factor=\"4\"/></ssd:Connection></ssd:Connections>\n"
        "<ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>\n"
        "<ssv:ParameterSet version=\"1.0\" name=\"p\"><ssv:Parameters>\n"
        "<ssv:Parameter name=\"u0\"><ssv:Real value=\"1.5\"/></ssv:Parameter>\n"
        "<ssv:Parameter name=\"sub.b.mode\"><ssv:Enumeration value=\"fast\"/></ssv:Parameter>\n"
        "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues>\n"
        "</ssd:ParameterBinding></ssd:ParameterBindings></ssd:System>\n"
        "<ssd:Enumerations><ssc:Enumeration name=\"Mode\"><ssc:Item name=\"slow\" value=\"1\"/>"
        "<ssc:Item name=\"fast\" value=\"2\"/></ssc:Enumeration></ssd:Enumerations>\n"
        "<ssd:Units><ssc:Unit name=\"m\"><ssc:BaseUnit m=\"1\"/></ssc:Unit>\n"
        "<ssc:Unit name=\"km\"><ssc:BaseUnit m=\"1\" factor=\"1000\"/></ssc:Unit></ssd:Units>\n"
        "<ssd:DefaultExperiment stopTime=\"1\"/></ssd:SystemStructureDescription>\n",
        &doc);
    CHECK(rc == 0, "transforms: %s", err);
    if (rc) return;
    json_t *b = fed(doc, 1);
    CHECK_STR_EQ(str(b, "name", NULL), "sub-b");
    CHECK_STR_EQ(str(b, "inputs", "u"), "a.y");
    json_t *tf = json_object_get(json_object_get(b, "transform"), "u");
    /* (20 x + 5) km in m: 20000 x + 5000 */
    CHECK_NEAR(json_real_value(json_object_get(tf, "factor")), 20000, 0);
    CHECK_NEAR(json_real_value(json_object_get(tf, "offset")), 5000, 0);
    CHECK(!json_object_get(json_object_get(b, "inputs"), "w"), "w is not wired");
    CHECK_NEAR(num(b, "parameters", "w"), 6, 0); /* 4 * 1.5 */
    CHECK(json_integer_value(json_object_get(json_object_get(b, "parameters"), "mode")) == 2,
          "Enumeration item fast = 2");
    json_decref(doc);
}

/* The first `from` in buf (of capacity cap) replaced by `to`; 0 when absent or too long. */
static int replace_first(char *buf, size_t cap, const char *from, const char *to)
{
    char *at = strstr(buf, from);
    size_t lf = strlen(from), lt = strlen(to), n = strlen(buf);
    if (!at || n - lf + lt + 1 > cap) return 0;
    memmove(at + lt, at + lf, n - (size_t)(at - buf) - lf + 1);
    memcpy(at, to, lt);
    return 1;
}

static void refused(const char *body, const char *want1, const char *want2)
{
    json_t *doc = NULL;
    int rc = load_text(body, &doc);
    CHECK(rc == -1, "refused: status %d for %s", rc, want1);
    CHECK_STR_HAS(err, want1);
    CHECK_STR_HAS(err, want2);
    json_decref(doc);
}

/* .ssm mapping entries with mapping transformations of Integer, Boolean and Enumeration
 * values (SSP 1.0 ssc:*MappingTransformation): the matching ssc:MapEntry's target, an
 * unmatched value unchanged; a transformation of another type refused. */
/* The version: absent is read as 1.0 (hand-written files leave it out); a draft refused. */
static void test_version(void)
{
    static const char *const doc_fmt =
        "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription %s "
        "xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\">\n"
        "<ssd:System name=\"s\"><ssd:Elements><ssd:Component name=\"a\" source=\"a.fmu\"/>"
        "</ssd:Elements></ssd:System><ssd:DefaultExperiment stopTime=\"1\"/>\n"
        "</ssd:SystemStructureDescription>\n";
    static const char *const attrs[] = {"", "version=\"Draft20171219\""};
    for (int k = 0; k < 2; k++) {
        char p[128];
        snprintf(p, sizeof p, "%s/v.ssd", tmp);
        FILE *f = fopen(p, "w");
        if (!f) return;
        fprintf(f, doc_fmt, attrs[k]);
        fclose(f);
        void *d = NULL;
        char *td = NULL;
        int rc = ssp_load(p, 1, &d, &td, err, sizeof err);
        if (k == 0) {
            CHECK(rc == 0, "no version: %s", err);
        } else {
            CHECK(rc == -1, "a draft version refused");
            CHECK_STR_HAS(err, "v.ssd:2: /ssd:SystemStructureDescription: version: expected 1.x");
        }
        json_decref(d);
        free(td);
        unlink(p);
    }
}

/* A mapping beside a linear transformation along one chain has no single form. */
static void test_map_chain(void)
{
    refused("<ssd:System name=\"s\"><ssd:Elements>\n"
            "<ssd:Component name=\"a\" source=\"a.fmu\"><ssd:Connectors>\n"
            "<ssd:Connector name=\"y\" kind=\"output\"><ssc:Integer/></ssd:Connector>\n"
            "</ssd:Connectors></ssd:Component>\n"
            "<ssd:System name=\"sub\"><ssd:Connectors>\n"
            "<ssd:Connector name=\"i\" kind=\"input\"><ssc:Integer/></ssd:Connector>\n"
            "</ssd:Connectors><ssd:Elements>\n"
            "<ssd:Component name=\"b\" source=\"b.fmu\"><ssd:Connectors>\n"
            "<ssd:Connector name=\"u\" kind=\"input\"><ssc:Integer/></ssd:Connector>\n"
            "</ssd:Connectors></ssd:Component></ssd:Elements>\n"
            "<ssd:Connections><ssd:Connection startConnector=\"i\" endElement=\"b\" "
            "endConnector=\"u\"><ssc:LinearTransformation factor=\"2\"/></ssd:Connection>"
            "</ssd:Connections></ssd:System></ssd:Elements>\n"
            "<ssd:Connections><ssd:Connection startElement=\"a\" startConnector=\"y\" "
            "endElement=\"sub\" endConnector=\"i\"><ssc:IntegerMappingTransformation>"
            "<ssc:MapEntry source=\"1\" target=\"2\"/></ssc:IntegerMappingTransformation>"
            "</ssd:Connection></ssd:Connections></ssd:System>\n"
            "<ssd:DefaultExperiment stopTime=\"1\"/></ssd:SystemStructureDescription>\n",
            "ssd:System/ssd:Elements/ssd:System/ssd:Connections/ssd:Connection",
            "a mapping transformation combined with another transformation");
}

/* More refusals, each naming the element: a binding's type and sourceBase, a system
 * connector fed twice, a system referencing itself, a connector declared twice, two
 * transformations on one connection. */
static void test_more_refusals(void)
{
    static const char *const bind =
        "<ssd:System name=\"s\"><ssd:Elements><ssd:Component name=\"a\" source=\"a.fmu\"/>"
        "</ssd:Elements>\n<ssd:ParameterBindings><ssd:ParameterBinding %s>"
        "<ssd:ParameterValues><ssv:ParameterSet version=\"1.0\" name=\"p\"><ssv:Parameters/>"
        "</ssv:ParameterSet></ssd:ParameterValues></ssd:ParameterBinding></ssd:ParameterBindings>"
        "</ssd:System><ssd:DefaultExperiment stopTime=\"1\"/></ssd:SystemStructureDescription>\n";
    char body[4096];
    snprintf(body, sizeof body, bind, "type=\"text/csv\"");
    refused(body, "t.ssd:7: /ssd:SystemStructureDescription/ssd:System/ssd:ParameterBindings",
            "only type application/x-ssp-parameter-set is supported");
    refused("<ssd:System name=\"s\"><ssd:Elements><ssd:Component name=\"a\" source=\"a.fmu\"/>"
            "</ssd:Elements>\n<ssd:ParameterBindings><ssd:ParameterBinding source=\"p.ssv\" "
            "sourceBase=\"component\"/></ssd:ParameterBindings></ssd:System>"
            "<ssd:DefaultExperiment stopTime=\"1\"/></ssd:SystemStructureDescription>\n",
            "t.ssd:7: /ssd:SystemStructureDescription/ssd:System/ssd:ParameterBindings",
            "sourceBase=\"component\" on a binding of a system");
    refused(
        "<ssd:System name=\"s\"><ssd:Elements><ssd:Component name=\"a\" source=\"a.fmu\">"
        "\n<ssd:ParameterBindings><ssd:ParameterBinding source=\"p.ssv\" "
        "sourceBase=\"FMU\"/></ssd:ParameterBindings></ssd:Component></ssd:Elements>"
        "</ssd:System><ssd:DefaultExperiment stopTime=\"1\"/></ssd:SystemStructureDescription>\n",
        "t.ssd:7: /ssd:SystemStructureDescription/ssd:System/ssd:Elements/ssd:Component/",
        "sourceBase: expected SSD or component");
    refused("<ssd:System name=\"s\"><ssd:Connectors>\n"
            "<ssd:Connector name=\"o\" kind=\"output\"><ssc:Real/></ssd:Connector>\n"
            "</ssd:Connectors><ssd:Elements>\n"
            "<ssd:Component name=\"a\" source=\"a.fmu\"><ssd:Connectors><ssd:Connector name=\"y\" "
            "kind=\"output\"><ssc:Real/></ssd:Connector></ssd:Connectors></ssd:Component>\n"
            "<ssd:Component name=\"b\" source=\"b.fmu\"><ssd:Connectors><ssd:Connector name=\"y\" "
            "kind=\"output\"><ssc:Real/></ssd:Connector></ssd:Connectors></ssd:Component>\n"
            "</ssd:Elements><ssd:Connections>\n"
            "<ssd:Connection startElement=\"a\" startConnector=\"y\" endConnector=\"o\"/>\n"
            "<ssd:Connection startElement=\"b\" startConnector=\"y\" endConnector=\"o\"/>\n"
            "</ssd:Connections></ssd:System><ssd:DefaultExperiment stopTime=\"1\"/>"
            "</ssd:SystemStructureDescription>\n",
            "t.ssd:13: /ssd:SystemStructureDescription/ssd:System/ssd:Connections/"
            "ssd:Connection[2]",
            "connector \"o\" of \"the system\" is fed by two connections (the other at line 12)");
    refused("<ssd:System name=\"s\" id=\"me\"><ssd:Elements>\n"
            "<ssd:Component name=\"again\" type=\"application/x-ssp-definition\" source=\"#me\"/>\n"
            "</ssd:Elements></ssd:System><ssd:DefaultExperiment stopTime=\"1\"/>"
            "</ssd:SystemStructureDescription>\n",
            "t.ssd:7:", "systems referenced more than 16 deep (a cycle?)");
    refused("<ssd:System name=\"s\"><ssd:Elements><ssd:Component name=\"a\" source=\"a.fmu\">"
            "<ssd:Connectors>\n<ssd:Connector name=\"y\" kind=\"output\"/>\n"
            "<ssd:Connector name=\"y\" kind=\"input\"/>\n</ssd:Connectors></ssd:Component>"
            "</ssd:Elements></ssd:System><ssd:DefaultExperiment stopTime=\"1\"/>"
            "</ssd:SystemStructureDescription>\n",
            "t.ssd:8: ", "connector \"y\" declared twice");
    refused("<ssd:System name=\"s\"><ssd:Elements>"
            "<ssd:Component name=\"a\" source=\"a.fmu\"><ssd:Connectors><ssd:Connector name=\"y\" "
            "kind=\"output\"/></ssd:Connectors></ssd:Component>"
            "<ssd:Component name=\"b\" source=\"b.fmu\"><ssd:Connectors><ssd:Connector name=\"u\" "
            "kind=\"input\"/></ssd:Connectors></ssd:Component></ssd:Elements>\n"
            "<ssd:Connections><ssd:Connection startElement=\"a\" startConnector=\"y\" "
            "endElement=\"b\" endConnector=\"u\">\n<ssc:LinearTransformation factor=\"2\"/>\n"
            "<ssc:LinearTransformation factor=\"3\"/></ssd:Connection></ssd:Connections>"
            "</ssd:System><ssd:DefaultExperiment stopTime=\"1\"/>"
            "</ssd:SystemStructureDescription>\n",
            "t.ssd:9: ", "a second transformation");
}

static void test_mappings(void)
{
    static const char *const body =
        "<ssd:System name=\"s\"><ssd:Elements>\n"
        "<ssd:Component name=\"a\" source=\"a.fmu\"><ssd:ParameterBindings>\n"
        "<ssd:ParameterBinding><ssd:ParameterValues>\n"
        "<ssv:ParameterSet version=\"1.0\" name=\"p\"><ssv:Parameters>\n"
        "<ssv:Parameter name=\"n\"><ssv:Integer value=\"%s\"/></ssv:Parameter>\n"
        "<ssv:Parameter name=\"b\"><ssv:Boolean value=\"true\"/></ssv:Parameter>\n"
        "<ssv:Parameter name=\"e\"><ssv:Enumeration value=\"slow\"/></ssv:Parameter>\n"
        "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues>\n"
        "<ssd:ParameterMapping><ssm:ParameterMapping "
        "xmlns:ssm=\"http://ssp-standard.org/SSP1/SystemStructureParameterMapping\">\n"
        "<ssm:MappingEntry source=\"n\" target=\"n\"><ssc:%sMappingTransformation>"
        "<ssc:MapEntry source=\"2\" target=\"20\"/><ssc:MapEntry source=\"3\" target=\"30\"/>"
        "</ssc:%sMappingTransformation></ssm:MappingEntry>\n"
        "<ssm:MappingEntry source=\"b\" target=\"b\"><ssc:BooleanMappingTransformation>"
        "<ssc:MapEntry source=\"true\" target=\"false\"/></ssc:BooleanMappingTransformation>"
        "</ssm:MappingEntry>\n"
        "<ssm:MappingEntry source=\"e\" target=\"e\"><ssc:EnumerationMappingTransformation>"
        "<ssc:MapEntry source=\"slow\" target=\"fast\"/></ssc:EnumerationMappingTransformation>"
        "</ssm:MappingEntry>\n"
        "</ssm:ParameterMapping></ssd:ParameterMapping>\n"
        "</ssd:ParameterBinding></ssd:ParameterBindings></ssd:Component>\n"
        "</ssd:Elements></ssd:System>\n"
        "<ssd:Enumerations><ssc:Enumeration name=\"Mode\"><ssc:Item name=\"slow\" value=\"1\"/>"
        "<ssc:Item name=\"fast\" value=\"2\"/></ssc:Enumeration></ssd:Enumerations>\n"
        "<ssd:DefaultExperiment stopTime=\"1\"/></ssd:SystemStructureDescription>\n";
    char text[4096];
    json_t *doc = NULL;
    long long want[2][2] = {{3, 30}, {7, 7}}; /* mapped; not named by an entry: unchanged */
    for (int k = 0; k < 2; k++) {
        char v[8];
        snprintf(v, sizeof v, "%lld", want[k][0]);
        snprintf(text, sizeof text, body, v, "Integer", "Integer");
        int rc = load_text(text, &doc);
        CHECK(rc == 0, "mappings: %s", err);
        if (rc) return;
        json_t *p = json_object_get(fed(doc, 0), "parameters");
        CHECK(json_integer_value(json_object_get(p, "n")) == want[k][1], "n %lld -> %lld",
              want[k][0], (long long)json_integer_value(json_object_get(p, "n")));
        CHECK(json_is_false(json_object_get(p, "b")), "true mapped to false");
        CHECK(json_integer_value(json_object_get(p, "e")) == 2, "slow mapped to fast = 2");
        json_decref(doc);
    }
    snprintf(text, sizeof text, body, "2", "Boolean", "Boolean");
    refused(text, "ssm:MappingEntry[1]/ssc:BooleanMappingTransformation",
            "does not apply to a value of type Integer");
}

/* A component of type application/x-ssp-definition referencing a system of this document by
 * its id: that system instantiated again under the component's name (SSP 1.0); an id that
 * names nothing, a package and a fragment of another file refused. */
static void test_same_document(void)
{
    static const char *const body =
        "<ssd:System name=\"s\"><ssd:Elements>\n"
        "<ssd:System name=\"one\" id=\"tpl\"><ssd:Elements>\n"
        "<ssd:Component name=\"a\" source=\"a.fmu\"/></ssd:Elements></ssd:System>\n"
        "<ssd:Component name=\"two\" type=\"application/x-ssp-definition\" source=\"%s\"/>\n"
        "</ssd:Elements></ssd:System><ssd:DefaultExperiment stopTime=\"1\"/>\n"
        "</ssd:SystemStructureDescription>\n";
    char text[2048];
    json_t *doc = NULL;
    snprintf(text, sizeof text, body, "#tpl");
    int rc = load_text(text, &doc);
    CHECK(rc == 0, "same document: %s", err);
    if (rc) return;
    CHECK_INT_EQ((long)json_array_size(json_object_get(doc, "federates")), 2);
    CHECK_STR_EQ(str(fed(doc, 0), "name", NULL), "one-a");
    CHECK_STR_EQ(str(fed(doc, 1), "name", NULL), "two-a");
    CHECK_STR_HAS(str(fed(doc, 1), "fmu", NULL), "/a.fmu");
    json_decref(doc);
    snprintf(text, sizeof text, body, "#nope");
    refused(text, "t.ssd:9: /ssd:SystemStructureDescription/ssd:System/ssd:Elements/ssd:Component",
            "no ssd:System with id \"nope\"");
    snprintf(text, sizeof text, body, "other.ssd#v");
    refused(text, "t.ssd:9:", "source \"other.ssd#v\": No such file");
    snprintf(text, sizeof text, body, "missing.ssd");
    refused(text, "t.ssd:9:", "source \"missing.ssd\": No such file");
    snprintf(text, sizeof text, body, "#tpl#x");
    refused(text, "t.ssd:9:", "no ssd:System with id \"tpl#x\"");
}

/* A component referencing a system of another SSD by its id ("o.ssd#pick"), or that SSD's
 * root system ("o.ssd"): the components below it named after the component; the other file's
 * parameter set written without declaring its ssv prefix (as some tools do) still read. */
/* One parameter mapped to several targets (OMSimulator's importParameterMappingInline: one
 * value to two inputs and a parameter, each through its own entry, one with a linear
 * transformation); the unmapped one keeps its name. */
static void test_one_to_many(void)
{
    static const char *const body =
        "<ssd:System name=\"s\"><ssd:Elements>\n"
        "<ssd:Component name=\"a\" source=\"a.fmu\"><ssd:ParameterBindings>\n"
        "<ssd:ParameterBinding><ssd:ParameterValues>\n"
        "<ssv:ParameterSet version=\"1.0\" name=\"p\"><ssv:Parameters>\n"
        "<ssv:Parameter name=\"ins\"><ssv:Real value=\"20\"/></ssv:Parameter>\n"
        "<ssv:Parameter name=\"k\"><ssv:Real value=\"-40\"/></ssv:Parameter>\n"
        "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues>\n"
        "<ssd:ParameterMapping><ssm:ParameterMapping version=\"1.0\" "
        "xmlns:ssm=\"http://ssp-standard.org/SSP1/SystemStructureParameterMapping\">\n"
        "<ssm:MappingEntry source=\"ins\" target=\"u1\"/>\n"
        "<ssm:MappingEntry source=\"ins\" target=\"u2\"/>\n"
        "<ssm:MappingEntry source=\"ins\" target=\"gain\"><ssc:LinearTransformation "
        "factor=\"0.5\" offset=\"1\"/></ssm:MappingEntry>\n"
        "</ssm:ParameterMapping></ssd:ParameterMapping>\n"
        "</ssd:ParameterBinding></ssd:ParameterBindings></ssd:Component>\n"
        "</ssd:Elements></ssd:System>\n"
        "<ssd:DefaultExperiment stopTime=\"1\"/></ssd:SystemStructureDescription>\n";
    json_t *doc = NULL;
    int rc = load_text(body, &doc);
    CHECK(rc == 0, "one to many: %s", err);
    if (rc) return;
    json_t *a = fed(doc, 0);
    CHECK_NEAR(num(a, "parameters", "u1"), 20, 0);
    CHECK_NEAR(num(a, "parameters", "u2"), 20, 0);
    CHECK_NEAR(num(a, "parameters", "gain"), 11, 0); /* 0.5 * 20 + 1 */
    CHECK_NEAR(num(a, "parameters", "k"), -40, 0);
    CHECK(!json_object_get(json_object_get(a, "parameters"), "ins"), "ins itself is mapped");
    json_decref(doc);
}

/* A component type with MIME parameters, blanks or capitals is its base type. */
static void test_mime(void)
{
    json_t *doc = NULL;
    int rc = load_text("<ssd:System name=\"s\"><ssd:Elements>\n"
                       "<ssd:Component name=\"a\" source=\"a.fmu\" "
                       "type=\" Application/X-FMU-SharedLibrary; fmiVersion=2.0\"/>\n"
                       "</ssd:Elements></ssd:System><ssd:DefaultExperiment stopTime=\"1\"/>\n"
                       "</ssd:SystemStructureDescription>\n",
                       &doc);
    CHECK(rc == 0, "MIME parameters: %s", err);
    if (!rc) CHECK_STR_EQ(str(fed(doc, 0), "name", NULL), "a");
    json_decref(doc);
}

static void test_other_document(void)
{
    char p[128];
    snprintf(p, sizeof p, "%s/o.ssd", tmp);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL, "write o.ssd");
    if (!f) return;
    fputs("<ssd:SystemStructureDescription version=\"1.0\" name=\"o\"\n"
          " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\">\n"
          "<ssd:System name=\"outer\"><ssd:Elements>\n"
          "<ssd:System name=\"in\" id=\"pick\"><ssd:Elements>\n"
          "<ssd:Component name=\"c\" source=\"c.fmu\"><ssd:ParameterBindings><ssd:ParameterBinding>"
          "<ssd:ParameterValues><ssv:ParameterSet version=\"1.0\" name=\"p\"><ssv:Parameters>"
          "<ssv:Parameter name=\"k\"><ssv:Real value=\"2.5\"/></ssv:Parameter></ssv:Parameters>"
          "</ssv:ParameterSet></ssd:ParameterValues></ssd:ParameterBinding></ssd:ParameterBindings>"
          "</ssd:Component>\n"
          "</ssd:Elements></ssd:System></ssd:Elements></ssd:System>\n"
          "</ssd:SystemStructureDescription>\n",
          f);
    fclose(f);
    static const char *const body =
        "<ssd:System name=\"s\"><ssd:Elements>\n"
        "<ssd:Component name=\"two\" type=\"application/x-ssp-definition\" source=\"%s\"/>\n"
        "</ssd:Elements></ssd:System><ssd:DefaultExperiment stopTime=\"1\"/>\n"
        "</ssd:SystemStructureDescription>\n";
    char text[1024];
    json_t *doc = NULL;
    snprintf(text, sizeof text, body, "o.ssd#pick");
    int rc = load_text(text, &doc);
    CHECK(rc == 0, "o.ssd#pick: %s", err);
    if (!rc) {
        CHECK_INT_EQ((long)json_array_size(json_object_get(doc, "federates")), 1);
        CHECK_STR_EQ(str(fed(doc, 0), "name", NULL), "two-c");
        CHECK_NEAR(num(fed(doc, 0), "parameters", "k"), 2.5, 0);
    }
    json_decref(doc);
    doc = NULL;
    snprintf(text, sizeof text, body, "o.ssd");
    rc = load_text(text, &doc);
    CHECK(rc == 0, "o.ssd: %s", err);
    if (!rc) CHECK_STR_EQ(str(fed(doc, 0), "name", NULL), "two-in-c");
    json_decref(doc);
    snprintf(text, sizeof text, body, "o.ssd#nope");
    refused(text, "t.ssd:7: /ssd:SystemStructureDescription/ssd:System/ssd:Elements/ssd:Component",
            "source \"o.ssd#nope\": no ssd:System with id \"nope\"");
    unlink(p);
}

/* A zip at path holding n (name, text) pairs; 0 written. */
static int write_zip(const char *path, const char *const (*e)[2], size_t n)
{
    int zerr;
    zip_t *za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
    if (!za) return -1;
    for (size_t i = 0; i < n; i++) {
        zip_source_t *src = zip_source_buffer(za, e[i][1], strlen(e[i][1]), 0);
        if (!src || zip_file_add(za, e[i][0], src, ZIP_FL_ENC_UTF_8) < 0) {
            zip_source_free(src);
            zip_discard(za);
            return -1;
        }
    }
    return zip_close(za);
}

/* An SSP package inside the folder (sub.ssp, type application/x-ssp-package) with its variant
 * V.ssd chosen by the fragment, the default SystemStructure.ssd without one; a binding with
 * sourceBase="component" read from inside the component's FMU (resources/p.ssv of c.fmu):
 * the unpacked .ssd gets a temporary folder holding both archives, which the caller removes;
 * a variant the package lacks refused naming the component. Under the sanitizers, the
 * unpacking and its clean-up. */
static void test_packages(void)
{
    static const char *const head2 =
        "<ssd:SystemStructureDescription version=\"1.0\" name=\"%s\"\n"
        " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\">\n"
        "<ssd:System name=\"%s\"><ssd:Elements>"
        "<ssd:Component name=\"c\" source=\"resources/c.fmu\"><ssd:ParameterBindings>"
        "<ssd:ParameterBinding source=\"resources/p.ssv\" sourceBase=\"component\"/>"
        "</ssd:ParameterBindings></ssd:Component></ssd:Elements></ssd:System>\n"
        "</ssd:SystemStructureDescription>\n";
    static const char *const ssv =
        "<ssv:ParameterSet version=\"1.0\" name=\"p\" "
        "xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\">"
        "<ssv:Parameters><ssv:Parameter name=\"k\"><ssv:Real value=\"%s\"/></ssv:Parameter>"
        "</ssv:Parameters></ssv:ParameterSet>\n";
    char def[1024], var[1024], pv[512], fmu[160], sub[160];
    snprintf(def, sizeof def, head2, "default", "d");
    snprintf(var, sizeof var, head2, "variant", "v");
    snprintf(pv, sizeof pv, ssv, "4.5");
    /* the FMU is only a zip here: the reader reads its resources, the run would load it */
    snprintf(fmu, sizeof fmu, "%s/c.fmu", tmp);
    const char *const fe[][2] = {{"resources/p.ssv", pv}};
    CHECK(write_zip(fmu, fe, 1) == 0, "write c.fmu");
    FILE *f = fopen(fmu, "rb");
    char fbuf[4096];
    size_t fl = f ? fread(fbuf, 1, sizeof fbuf - 1, f) : 0;
    if (f) fclose(f);
    fbuf[fl] = '\0';
    snprintf(sub, sizeof sub, "%s/sub.ssp", tmp);
    /* libzip's buffer source takes bytes: the FMU is binary, so it goes in by its length */
    int zerr;
    zip_t *za = zip_open(sub, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
    int ok = za != NULL;
    static const char *const up =
        "<ssd:SystemStructureDescription version=\"1.0\" name=\"up\"\n"
        " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\">\n"
        "<ssd:System name=\"u\"><ssd:Elements>\n"
        "<ssd:Component name=\"c\" source=\"../c.fmu\"/></ssd:Elements></ssd:System>\n"
        "</ssd:SystemStructureDescription>\n";
    const char *const se[][2] = {{"SystemStructure.ssd", def}, {"V.ssd", var}, {"Up.ssd", up}};
    for (size_t i = 0; ok && i < 3; i++) {
        zip_source_t *src = zip_source_buffer(za, se[i][1], strlen(se[i][1]), 0);
        ok = src && zip_file_add(za, se[i][0], src, 0) >= 0;
    }
    zip_source_t *fs = ok ? zip_source_buffer(za, fbuf, fl, 0) : NULL;
    ok = ok && fs && zip_file_add(za, "resources/c.fmu", fs, 0) >= 0 && zip_close(za) == 0;
    CHECK(ok, "write sub.ssp");
    if (!ok) return;
    static const char *const body =
        "<ssd:System name=\"s\"><ssd:Elements>\n"
        "<ssd:Component name=\"p\" type=\"application/x-ssp-package\" source=\"%s\"/>\n"
        "</ssd:Elements></ssd:System><ssd:DefaultExperiment stopTime=\"1\"/>\n"
        "</ssd:SystemStructureDescription>\n";
    const char *srcs[] = {"sub.ssp#V.ssd", "sub.ssp"}, *names[] = {"p-c", "p-c"};
    for (int k = 0; k < 2; k++) {
        char text[1024], p[128], e2[256];
        snprintf(text, sizeof text, body, srcs[k]);
        snprintf(p, sizeof p, "%s/t.ssd", tmp);
        f = fopen(p, "w");
        if (!f) return;
        fprintf(f, "%s%s", head, text);
        fclose(f);
        char *td = NULL;
        void *d = NULL;
        int rc = ssp_load(p, 1, &d, &td, err, sizeof err);
        CHECK(rc == 0, "%s: %s", srcs[k], err);
        CHECK(td != NULL, "%s: a temporary folder for the archives", srcs[k]);
        json_t *doc = d;
        if (!rc) {
            CHECK_STR_EQ(str(fed(doc, 0), "name", NULL), names[k]);
            CHECK_NEAR(num(fed(doc, 0), "parameters", "k"), 4.5, 0);
            CHECK_STR_HAS(str(fed(doc, 0), "fmu", NULL), td);
            CHECK_STR_HAS(json_string_value(json_object_get(doc, "description")), "t.ssd");
        }
        json_decref(doc);
        if (td) CHECK(fmu_zip_remove_tree(td, e2, sizeof e2) == 0, "remove %s: %s", td, e2);
        free(td);
    }
    char text[1024];
    snprintf(text, sizeof text, body, "sub.ssp#W.ssd");
    refused(text, "t.ssd:7: /ssd:SystemStructureDescription/ssd:System/ssd:Elements/ssd:Component",
            "source \"sub.ssp#W.ssd\": the package has no W.ssd");
    snprintf(text, sizeof text, body, "sub.ssp#Up.ssd"); /* its sources stay inside it */
    refused(text, "sub.ssp/Up.ssd:4: /ssd:SystemStructureDescription/ssd:System/ssd:Elements/",
            "source \"../c.fmu\": an archive's sources may not leave it");
    snprintf(text, sizeof text, body, "sub.ssp#../x.ssd");
    refused(text, "t.ssd:7:", "a package's variant is the name of an .ssd file in it");
    unlink(fmu);
    unlink(sub);
}

static void test_refusals(void)
{
    static const char *const two =
        "<ssd:System name=\"s\"><ssd:Elements>\n"
        "<ssd:Component name=\"a\" source=\"a.fmu\"><ssd:Connectors>\n"
        "<ssd:Connector name=\"y\" kind=\"output\"><ssc:Real unit=\"%s\"/></ssd:Connector>\n"
        "</ssd:Connectors></ssd:Component>\n"
        "<ssd:Component name=\"b\" source=\"b.fmu\"><ssd:Connectors>\n"
        "<ssd:Connector name=\"u\" kind=\"input\"><ssc:Real unit=\"%s\"/></ssd:Connector>\n"
        "</ssd:Connectors></ssd:Component></ssd:Elements>\n"
        "<ssd:Connections><ssd:Connection startElement=\"a\" startConnector=\"y\" "
        "endElement=\"b\" endConnector=\"u\"/></ssd:Connections></ssd:System>\n"
        "<ssd:Units><ssc:Unit name=\"m\"><ssc:BaseUnit m=\"1\"/></ssc:Unit>\n"
        "<ssc:Unit name=\"s\"><ssc:BaseUnit s=\"1\"/></ssc:Unit>\n"
        "<ssc:Unit name=\"degC\"><ssc:BaseUnit K=\"1\" offset=\"273.15\"/></ssc:Unit>\n"
        "<ssc:Unit name=\"K\"><ssc:BaseUnit K=\"1\"/></ssc:Unit></ssd:Units>\n"
        "<ssd:DefaultExperiment stopTime=\"1\"/></ssd:SystemStructureDescription>\n";
    char body[2048];
    snprintf(body, sizeof body, two, "m", "s");
    refused(body,
            "t.ssd:13: /ssd:SystemStructureDescription/ssd:System/ssd:Connections/ssd:Connection",
            "incompatible units \"m\" and \"s\"");
    /* a conversion between units of the same base units is the input's transform:
     * K = degC + 273.15 */
    snprintf(body, sizeof body, two, "degC", "K");
    json_t *doc = NULL;
    CHECK(load_text(body, &doc) == 0, "degC to K: %s", err);
    json_t *tf = json_object_get(json_object_get(fed(doc, 1), "transform"), "u");
    CHECK_NEAR(json_real_value(json_object_get(tf, "factor")), 1, 0);
    CHECK_NEAR(json_real_value(json_object_get(tf, "offset")), 273.15, 0);
    json_decref(doc);
    snprintf(body, sizeof body, two, "m", "m");
    CHECK(load_text(body, &doc) == 0, "same units: %s", err);
    CHECK_STR_EQ(str(fed(doc, 1), "inputs", "u"), "a.y");
    CHECK(!json_object_get(fed(doc, 1), "transform"), "the identity is no transform");
    json_decref(doc);
    /* unit="" (tools write it for a variable without a unit) is no unit: no conversion */
    snprintf(body, sizeof body, two, "", "m");
    CHECK(load_text(body, &doc) == 0, "empty unit: %s", err);
    CHECK_STR_EQ(str(fed(doc, 1), "inputs", "u"), "a.y");
    CHECK(!json_object_get(fed(doc, 1), "transform"), "an empty unit is no transform");
    json_decref(doc);
    snprintf(body, sizeof body, two, "m", "ft");
    refused(body, "unit \"ft\" is not declared in ssd:Units", "t.ssd:13:");
    refused("<ssd:System name=\"s\"><ssd:Elements>\n"
            "<ssd:Component name=\"a\" source=\"a.ssp\" type=\"application/x-ssp-package\"/>\n"
            "</ssd:Elements></ssd:System><ssd:DefaultExperiment stopTime=\"1\"/>\n"
            "</ssd:SystemStructureDescription>\n",
            "t.ssd:7: /ssd:SystemStructureDescription/ssd:System/ssd:Elements/ssd:Component",
            "source \"a.ssp\": No such file");
    refused("<ssd:System name=\"s\"><ssd:Elements>\n"
            "<ssd:Component name=\"a\" source=\"a.fmu\" type=\"text/x-python\"/>\n"
            "</ssd:Elements></ssd:System><ssd:DefaultExperiment stopTime=\"1\"/>\n"
            "</ssd:SystemStructureDescription>\n",
            "t.ssd:7: /ssd:SystemStructureDescription/ssd:System/ssd:Elements/ssd:Component",
            "only FMUs and systems are run");
    refused("<ssd:System name=\"s\"><ssd:Elements>\n"
            "<ssd:Component name=\"a\" source=\"http://x/a.fmu\"/>\n"
            "</ssd:Elements></ssd:System><ssd:DefaultExperiment stopTime=\"1\"/>\n"
            "</ssd:SystemStructureDescription>\n",
            "t.ssd:7:", "only relative paths and file: URIs");
    refused("<ssd:System name=\"s\"><ssd:Elements>\n"
            "<ssd:Component name=\"a.b\" source=\"a.fmu\"/>\n"
            "<ssd:System name=\"a\"><ssd:Elements><ssd:Component name=\"b\" source=\"b.fmu\"/>\n"
            "</ssd:Elements></ssd:System>\n"
            "</ssd:Elements></ssd:System><ssd:DefaultExperiment stopTime=\"1\"/>\n"
            "</ssd:SystemStructureDescription>\n",
            "elements \"a.b\" and \"a.b\" both become federate \"a-b\"", "t.ssd:8:");
    refused("<ssd:System name=\"s\"/><ssd:DefaultExperiment stopTime=\"1\"/>\n"
            "</ssd:SystemStructureDescription>\n",
            "t.ssd:6:", "no component");
    refused("<ssd:System name=\"s\"><ssd:Elements>\n"
            "<ssd:Component name=\"a\" source=\"a.fmu\"><ssd:ParameterBindings>\n"
            "<ssd:ParameterBinding><ssd:ParameterValues>\n"
            "<ssv:ParameterSet version=\"1.0\" name=\"p\"><ssv:Parameters>\n"
            "<ssv:Parameter name=\"e\"><ssv:Enumeration value=\"x\"/></ssv:Parameter>\n"
            "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues>\n"
            "</ssd:ParameterBinding></ssd:ParameterBindings></ssd:Component>\n"
            "</ssd:Elements></ssd:System><ssd:DefaultExperiment stopTime=\"1\"/>\n"
            "</ssd:SystemStructureDescription>\n",
            "t.ssd:10:", "no ssc:Enumeration declares an item \"x\"");
    refused("<ssd:System name=\"s\"><ssd:Elements>\n"
            "<ssd:Component name=\"a\" source=\"a.fmu\"><ssd:ParameterBindings>\n"
            "<ssd:ParameterBinding><ssd:ParameterValues>\n"
            "<ssv:ParameterSet version=\"1.0\" name=\"p\"><ssv:Parameters>\n"
            "<ssv:Parameter name=\"e\"><ssv:Binary value=\"00ff\"/></ssv:Parameter>\n"
            "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues>\n"
            "</ssd:ParameterBinding></ssd:ParameterBindings></ssd:Component>\n"
            "</ssd:Elements></ssd:System><ssd:DefaultExperiment stopTime=\"1\"/>\n"
            "</ssd:SystemStructureDescription>\n",
            "ssv:Parameter/ssv:Binary", "(not Binary)");
    static const char *const pair =
        "<ssd:System name=\"s\"><ssd:Elements>\n"
        "<ssd:Component name=\"a\" source=\"a.fmu\"><ssd:Connectors>\n"
        "<ssd:Connector name=\"y\" kind=\"output\"><ssc:Real/></ssd:Connector>\n"
        "</ssd:Connectors></ssd:Component>\n"
        "<ssd:Component name=\"b\" source=\"b.fmu\"><ssd:Connectors>\n"
        "<ssd:Connector name=\"v\" kind=\"%s\"><ssc:Real/></ssd:Connector>\n"
        "</ssd:Connectors></ssd:Component></ssd:Elements>\n"
        "<ssd:Connections><ssd:Connection startElement=\"a\" startConnector=\"y\" "
        "endElement=\"b\" endConnector=\"v\">%s</ssd:Connection></ssd:Connections>"
        "</ssd:System><ssd:DefaultExperiment stopTime=\"1\"/></ssd:SystemStructureDescription>\n";
    snprintf(body, sizeof body, pair, "input", "");
    /* a calculated parameter feeds an input like an output (its value fixed at the start) */
    json_t *cdoc = NULL;
    CHECK(replace_first(body, sizeof body, "kind=\"output\"", "kind=\"calculatedParameter\""),
          "the output connector");
    CHECK(load_text(body, &cdoc) == 0, "calculatedParameter: %s", err);
    CHECK_STR_EQ(str(fed(cdoc, 1), "inputs", "v"), "a.y");
    json_decref(cdoc);
    snprintf(body, sizeof body, pair, "output", "");
    refused(body, "t.ssd:13: /ssd:SystemStructureDescription/ssd:System/ssd:Connections",
            "(output) and connector \"v\" of \"b\" (output) both give values");
    snprintf(body, sizeof body, pair, "parameter", "");
    refused(body, "parameter \"v\" of \"b\" is fed by connector \"y\" of \"a\"", "not a signal");
    snprintf(body, sizeof body, pair, "input", "<ssc:MappingTransformation/>");
    refused(body, "ssd:Connection/ssc:MappingTransformation",
            "only ssc:LinearTransformation and the Boolean, Integer and Enumeration");
    snprintf(body, sizeof body, pair, "input", "<ssc:LinearTransformation factor=\"0\"/>");
    refused(body, "ssc:LinearTransformation", "factor 0");
    /* an integer mapping on a connection: the input's transform map */
    snprintf(body, sizeof body, pair, "input",
             "<ssc:IntegerMappingTransformation><ssc:MapEntry source=\"2\" target=\"20\"/>"
             "<ssc:MapEntry source=\"3\" target=\"-3\"/></ssc:IntegerMappingTransformation>");
    for (int k = 0; k < 2; k++) /* both connectors Integer */
        replace_first(body, sizeof body, "<ssc:Real/>", "<ssc:Integer/>");
    json_t *mdoc = NULL;
    CHECK(load_text(body, &mdoc) == 0, "integer mapping: %s", err);
    json_t *mp =
        json_object_get(json_object_get(json_object_get(fed(mdoc, 1), "transform"), "v"), "map");
    CHECK(json_array_size(mp) == 2 &&
              json_integer_value(json_array_get(json_array_get(mp, 1), 0)) == 3 &&
              json_integer_value(json_array_get(json_array_get(mp, 1), 1)) == -3,
          "pairs [[2, 20], [3, -3]]");
    json_decref(mdoc);
    snprintf(body, sizeof body, pair, "input",
             "<ssc:IntegerMappingTransformation><ssc:MapEntry source=\"two\" target=\"20\"/>"
             "</ssc:IntegerMappingTransformation>");
    for (int k = 0; k < 2; k++)
        replace_first(body, sizeof body, "<ssc:Real/>", "<ssc:Integer/>");
    refused(body, "ssc:IntegerMappingTransformation/ssc:MapEntry",
            "\"two\" is no value of the transformation's type");
}

/* A federation file naming the system: its algorithm over the SSP's start, end and step. */
static void test_merge(void)
{
    json_error_t je;
    json_t *u = json_loads("{\"system\": \"lv/SystemStructure.ssd\", \"placement\": \"in-process\","
                           " \"algorithm\": {\"method\": \"gauss-seidel\", \"step\": 0.5}}",
                           0, &je);
    void *d = NULL;
    char *td = NULL;
    int rc = ssp_merge_system(u, "tests/ssp", &d, &td, err, sizeof err);
    CHECK(rc == 0, "merge: %s", err);
    json_t *doc = d;
    if (!rc) {
        CHECK_STR_EQ(str(doc, "algorithm", "method"), "gauss-seidel");
        CHECK_NEAR(num(doc, "algorithm", "step"), 0.5, 0);
        CHECK_NEAR(num(doc, "algorithm", "end"), 100, 0);
        CHECK_STR_EQ(str(doc, "placement", NULL), "in-process");
        CHECK_INT_EQ((long)json_array_size(json_object_get(doc, "federates")), 2);
    }
    json_decref(doc);
    json_decref(u);
    /* a variable-step method does not inherit the step */
    u = json_loads("{\"system\": \"lv/SystemStructure.ssd\", \"algorithm\": {\"method\": "
                   "\"jacobi-de\", \"quantum\": 0.01, \"h_min\": 0.01, \"h_max\": 1}}",
                   0, &je);
    rc = ssp_merge_system(u, "tests/ssp", &d, &td, err, sizeof err);
    CHECK(rc == 0, "merge jacobi-de: %s", err);
    if (!rc) CHECK(!json_object_get(json_object_get(d, "algorithm"), "step"), "no step");
    json_decref(d);
    json_decref(u);
    u = json_loads("{\"system\": \"lv/SystemStructure.ssd\", \"federates\": []}", 0, &je);
    rc = ssp_merge_system(u, "tests/ssp", &d, &td, err, sizeof err);
    CHECK(rc == -1, "federates refused");
    CHECK_STR_HAS(err, "\"federates\" comes from the SSP");
    json_decref(u);
    u = json_loads("{\"system\": \"lv.json\"}", 0, &je);
    rc = ssp_merge_system(u, "tests/ssp", &d, &td, err, sizeof err);
    CHECK(rc == -1, "not an SSP refused");
    CHECK_STR_HAS(err, "expected the path of an .ssp or .ssd file");
    json_decref(u);
}

/* Robustness: 300 deterministic corruptions of tests/ssp/shapes (a byte replaced, dropped or
 * duplicated, from a set that breaks names, numbers and markup). Each must load or be
 * refused with a message naming a file of the system; under ASan this also proves that no
 * path of the reader leaks or reads out of bounds. */
static void test_corrupted(void)
{
    char src[16384], buf[16500], p[128];
    FILE *f = fopen("tests/ssp/shapes/SystemStructure.ssd", "rb");
    CHECK(f != NULL, "fixture");
    if (!f) return;
    size_t n = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    src[n] = '\0';
    /* the binding's resources/root.ssv beside the corrupted copies */
    snprintf(p, sizeof p, "%s/resources", tmp);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/resources/root.ssv", tmp);
    FILE *in = fopen("tests/ssp/shapes/resources/root.ssv", "rb"), *out = fopen(p, "wb");
    int c;
    while (in && out && (c = fgetc(in)) != EOF)
        fputc(c, out);
    if (in) fclose(in);
    if (out) fclose(out);
    static const char junk[] = "<>\"/=:.#x0-e \n";
    unsigned st = 7u;
    int ok = 0, refused_n = 0, bad = 0;
    for (int it = 0; it < 300; it++) {
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
        snprintf(p, sizeof p, "%s/c.ssd", tmp);
        FILE *w = fopen(p, "wb");
        if (!w) break;
        fwrite(buf, 1, m, w);
        fclose(w);
        void *d = NULL;
        char *td = NULL;
        int rc = ssp_load(p, 1, &d, &td, err, sizeof err);
        free(td);
        if (rc == 0) {
            ok++;
            json_decref(d);
        } else if (rc == -1 && d == NULL && strncmp(err, tmp, strlen(tmp)) == 0) {
            refused_n++;
        } else {
            bad++;
            CHECK(0, "corruption %d (op %d at %zu): rc %d, message \"%s\"", it, op, at, rc, err);
        }
    }
    CHECK_INT_EQ(bad, 0);
    CHECK(refused_n > 100, "most corruptions must be refused (%d refused, %d loaded)", refused_n,
          ok);
    snprintf(p, sizeof p, "%s/c.ssd", tmp);
    unlink(p);
    snprintf(p, sizeof p, "%s/resources/root.ssv", tmp);
    unlink(p);
    snprintf(p, sizeof p, "%s/resources", tmp);
    rmdir(p);
}

int main(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/ssp_test.XXXXXX");
    if (!mkdtemp(tmp)) {
        CHECK(0, "mkdtemp");
        return check_summary();
    }
    test_lv();
    test_values();
    test_other_layouts();
    test_merge();
    test_order();
    test_shapes();
    test_transforms();
    test_refusals();
    test_mappings();
    test_map_chain();
    test_more_refusals();
    test_version();
    test_same_document();
    test_other_document();
    test_one_to_many();
    test_packages();
    test_mime();
    test_corrupted();
    char p[128];
    snprintf(p, sizeof p, "%s/t.ssd", tmp);
    unlink(p);
    rmdir(tmp);
    return check_summary();
}
