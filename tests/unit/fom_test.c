/* Unit tests of the FOM reader (fom/fom.h, doc/fom.md): handles in document order,
 * inheritance, lookups, the fingerprint (same for reformatted text, different for any
 * semantic change), and every bad FOM fixture in tests/fom/ with its exact file, line and
 * reason. Also checks that libxml2 writes nothing to stderr. Read fom/fom.c next. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/globals.h>
#include <libxml/parser.h>

#include "fom/fom.h"
#include "tests/check.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf) buf[n] = '\0';
    *len = n;
    return buf;
}

static struct fom *load(const char *path)
{
    struct fom *f = NULL;
    char err[FOM_ERRLEN] = "";
    int rc = fom_parse_file(path, &f, err, sizeof err);
    CHECK(rc == FOM_OK && f, "parse %s: %d %s", path, rc, err);
    return f;
}

/* fom/test.xml: Vehicle{position,speed,name} > Car{passengers,electric} > SportsCar{turbo,
 * lapTimes}; Vehicle > Truck{load,axles}; Sample{x,raw}. Message{text,priority} > Alarm{level};
 * Step{dt}. Handles follow document order. */
static void test_handles(void)
{
    struct fom *f = load("fom/test.xml");
    if (!f) return;
    CHECK_STR_EQ(fom_name(f), "test");
    CHECK_NEAR(fom_resolution(f), 1e-9, 0.0);
    CHECK_INT_EQ(fom_class_count(f), 5);
    CHECK_INT_EQ(fom_attr_count(f), 11);
    CHECK_INT_EQ(fom_inter_count(f), 3);
    CHECK_INT_EQ(fom_param_count(f), 4);

    fom_handle veh = fom_class_find(f, "Vehicle"), car = fom_class_find(f, "Car");
    fom_handle sc = fom_class_find(f, "SportsCar"), truck = fom_class_find(f, "Truck");
    fom_handle sample = fom_class_find(f, "Sample");
    CHECK_INT_EQ(veh, 1);
    CHECK_INT_EQ(car, 2);
    CHECK_INT_EQ(sc, 3);
    CHECK_INT_EQ(truck, 4);
    CHECK_INT_EQ(sample, 5);
    CHECK_INT_EQ(fom_class_find(f, "Vehicle.Car.SportsCar"), sc);
    CHECK_INT_EQ(fom_class_find(f, "Vehicle.Car"), car);
    CHECK_INT_EQ(fom_class_find(f, "Car.SportsCar"), FOM_NONE); /* qualified from a root */
    CHECK_INT_EQ(fom_class_find(f, "Vehicle.SportsCar"), FOM_NONE);
    CHECK_INT_EQ(fom_class_find(f, "vehicle"), FOM_NONE); /* case matters */
    CHECK_INT_EQ(fom_class_find(f, NULL), FOM_NONE);
    CHECK_STR_EQ(fom_class_qname(f, sc), "Vehicle.Car.SportsCar");
    CHECK_STR_EQ(fom_class_name(f, sc), "SportsCar");
    CHECK(fom_class_name(f, 6) == NULL && fom_class_name(f, 0) == NULL, "bad class handle");

    CHECK_INT_EQ(fom_class_parent(f, sc), car);
    CHECK_INT_EQ(fom_class_parent(f, car), veh);
    CHECK_INT_EQ(fom_class_parent(f, veh), FOM_NONE);
    CHECK_INT_EQ(fom_class_parent(f, truck), veh);
    CHECK_INT_EQ(fom_class_is_a(f, sc, veh), 1);
    CHECK_INT_EQ(fom_class_is_a(f, sc, sc), 1);
    CHECK_INT_EQ(fom_class_is_a(f, veh, car), 0);
    CHECK_INT_EQ(fom_class_is_a(f, truck, car), 0);
    CHECK_INT_EQ(fom_class_is_a(f, sample, veh), 0);
    CHECK_INT_EQ(fom_class_is_a(f, 99, veh), 0);

    /* An inherited attribute keeps the handle of its declaration. */
    fom_handle speed = fom_attr_find(f, veh, "speed");
    CHECK_INT_EQ(speed, 2);
    CHECK_INT_EQ(fom_attr_find(f, sc, "speed"), speed);
    CHECK_INT_EQ(fom_attr_find(f, truck, "speed"), speed);
    CHECK_INT_EQ(fom_attr_find(f, sc, "turbo"), 6);
    CHECK_INT_EQ(fom_attr_find(f, car, "turbo"), FOM_NONE);
    CHECK_INT_EQ(fom_attr_find(f, truck, "passengers"), FOM_NONE);
    CHECK_INT_EQ(fom_attr_find(f, 0, "speed"), FOM_NONE);
    CHECK_INT_EQ(fom_attr_find(f, sample, "raw"), 11);

    fom_handle all[16];
    CHECK_INT_EQ(fom_class_attrs(f, sc, all, 16), 7);
    for (unsigned i = 0; i < 7; i++)
        CHECK(all[i] == i + 1, "SportsCar attr %u = %u", i, all[i]);
    CHECK_INT_EQ(fom_class_attrs(f, truck, all, 16), 5);
    CHECK(all[0] == 1 && all[1] == 2 && all[2] == 3 && all[3] == 8 && all[4] == 9,
          "Truck attrs %u %u %u %u %u", all[0], all[1], all[2], all[3], all[4]);
    fom_handle two[2] = {0, 0};
    CHECK_INT_EQ(fom_class_attrs(f, sc, two, 2), 7);
    CHECK(two[0] == 1 && two[1] == 2, "truncated list");
    CHECK_INT_EQ(fom_class_attrs(f, sc, NULL, 0), 7);
    CHECK_INT_EQ(fom_class_attrs(f, 42, all, 16), 0);
    CHECK_INT_EQ(fom_class_has_attr(f, sc, speed), 1);
    CHECK_INT_EQ(fom_class_has_attr(f, car, 6), 0);
    CHECK_INT_EQ(fom_class_has_attr(f, sample, speed), 0);

    CHECK_INT_EQ(fom_attr_type(f, 1), FOM_T_FLOAT64_ARRAY);
    CHECK_INT_EQ(fom_attr_length(f, 1), 2);
    CHECK_INT_EQ(fom_attr_type(f, 7), FOM_T_FLOAT64_ARRAY);
    CHECK_INT_EQ(fom_attr_length(f, 7), 0);
    CHECK_INT_EQ(fom_attr_type(f, speed), FOM_T_FLOAT64);
    CHECK_INT_EQ(fom_attr_type(f, 3), FOM_T_STRING);
    CHECK_INT_EQ(fom_attr_type(f, 4), FOM_T_INT32);
    CHECK_INT_EQ(fom_attr_type(f, 5), FOM_T_BOOLEAN);
    CHECK_INT_EQ(fom_attr_type(f, 9), FOM_T_INT64);
    CHECK_INT_EQ(fom_attr_type(f, 11), FOM_T_BYTES);
    CHECK_INT_EQ(fom_attr_type(f, 12), FOM_T_NONE);
    CHECK_INT_EQ(fom_attr_class(f, speed), veh);
    CHECK_INT_EQ(fom_attr_class(f, 6), sc);
    CHECK_STR_EQ(fom_attr_name(f, 7), "lapTimes");
    CHECK(fom_attr_name(f, 0) == NULL && fom_attr_name(f, 12) == NULL, "bad attr handle");

    fom_handle msg = fom_inter_find(f, "Message"), alarm = fom_inter_find(f, "Alarm");
    fom_handle step = fom_inter_find(f, "Step");
    CHECK(msg == 1 && alarm == 2 && step == 3, "interactions %u %u %u", msg, alarm, step);
    CHECK_INT_EQ(fom_inter_find(f, "Message.Alarm"), alarm);
    CHECK_INT_EQ(fom_inter_find(f, "Vehicle"), FOM_NONE); /* separate name spaces */
    CHECK_INT_EQ(fom_class_find(f, "Step"), FOM_NONE);
    CHECK_STR_EQ(fom_inter_qname(f, alarm), "Message.Alarm");
    CHECK_STR_EQ(fom_inter_name(f, step), "Step");
    CHECK_INT_EQ(fom_inter_parent(f, alarm), msg);
    CHECK_INT_EQ(fom_inter_parent(f, step), FOM_NONE);
    CHECK_INT_EQ(fom_inter_is_a(f, alarm, msg), 1);
    CHECK_INT_EQ(fom_inter_is_a(f, msg, alarm), 0);
    CHECK_INT_EQ(fom_inter_is_a(f, step, msg), 0);
    CHECK_INT_EQ(fom_param_find(f, alarm, "text"), 1);
    CHECK_INT_EQ(fom_param_find(f, alarm, "level"), 3);
    CHECK_INT_EQ(fom_param_find(f, msg, "level"), FOM_NONE);
    CHECK_INT_EQ(fom_param_find(f, step, "dt"), 4);
    CHECK_INT_EQ(fom_inter_params(f, alarm, all, 16), 3);
    CHECK(all[0] == 1 && all[1] == 2 && all[2] == 3, "Alarm params");
    CHECK_INT_EQ(fom_inter_has_param(f, alarm, 2), 1);
    CHECK_INT_EQ(fom_inter_has_param(f, step, 2), 0);
    CHECK_INT_EQ(fom_param_type(f, 2), FOM_T_INT32);
    CHECK_INT_EQ(fom_param_type(f, 3), FOM_T_INT64);
    CHECK_INT_EQ(fom_param_length(f, 4), 0);
    CHECK_INT_EQ(fom_param_inter(f, 3), alarm);
    CHECK_STR_EQ(fom_param_name(f, 4), "dt");
    CHECK(fom_param_name(f, 5) == NULL, "bad param handle");
    fom_free(f);

    /* The demo FOM and the minimal one. */
    f = load("fom/demo.xml");
    if (f) {
        CHECK_NEAR(fom_resolution(f), 1e-6, 0.0);
        fom_handle sensor = fom_class_find(f, "Signal.Sensor");
        CHECK_INT_EQ(sensor, 2);
        CHECK_INT_EQ(fom_attr_length(f, fom_attr_find(f, sensor, "calibration")), 3);
        CHECK_INT_EQ(fom_attr_type(f, fom_attr_find(f, sensor, "history")), FOM_T_FLOAT64_ARRAY);
        CHECK_INT_EQ(fom_param_type(f, fom_param_find(f, fom_inter_find(f, "Command"), "enabled")),
                     FOM_T_BOOLEAN);
        fom_free(f);
    }
    f = load("tests/fom/good_minimal.xml");
    if (f) {
        CHECK_STR_EQ(fom_name(f), "empty");
        CHECK_NEAR(fom_resolution(f), FOM_DEFAULT_RESOLUTION, 0.0);
        CHECK(fom_class_count(f) == 0 && fom_inter_count(f) == 0, "empty FOM");
        fom_free(f);
    }
    fom_free(NULL);
}

/* Parse text from memory; returns the fingerprint or 0 after a failed CHECK. */
static uint64_t fp_of(const char *text, const char *what)
{
    struct fom *f = NULL;
    char err[FOM_ERRLEN] = "";
    int rc = fom_parse_mem(text, strlen(text), what, &f, err, sizeof err);
    CHECK(rc == FOM_OK, "%s: %s", what, err);
    uint64_t fp = fom_fingerprint(f);
    fom_free(f);
    return fp;
}

/* Replace the first occurrence of `from` in `text` by `to` (new malloc'd string). */
static char *edit(const char *text, const char *from, const char *to)
{
    const char *p = strstr(text, from);
    CHECK(p != NULL, "edit: \"%s\" not found", from);
    if (!p) return NULL;
    size_t n = strlen(text), a = (size_t)(p - text), lf = strlen(from), lt = strlen(to);
    char *out = malloc(n - lf + lt + 1);
    memcpy(out, text, a);
    memcpy(out + a, to, lt);
    memcpy(out + a + lt, p + lf, n - a - lf + 1);
    return out;
}

static void test_fingerprint(void)
{
    size_t len = 0;
    char *text = slurp("fom/test.xml", &len);
    CHECK(text != NULL, "read fom/test.xml");
    if (!text) return;
    struct fom *a = load("fom/test.xml"), *b = load("tests/fom/good_test_reformatted.xml");
    uint64_t base = fom_fingerprint(a);
    CHECK(a && b && base == fom_fingerprint(b), "reformatted FOM keeps the fingerprint");
    CHECK_INT_EQ(fp_of(text, "mem"), base); /* file and memory agree */
    fom_free(a);
    fom_free(b);

    /* Not NUL-terminated: only len bytes are read. */
    char *padded = malloc(len + 8);
    memcpy(padded, text, len);
    memcpy(padded + len, "<junk", 5);
    struct fom *f = NULL;
    char err[FOM_ERRLEN];
    CHECK_INT_EQ(fom_parse_mem(padded, len, "padded", &f, err, sizeof err), FOM_OK);
    CHECK(fom_fingerprint(f) == base, "explicit length");
    fom_free(f);
    free(padded);

    /* Each semantic change gives a different fingerprint, and all differ from each other. */
    static const char *const edits[][2] = {
        {"resolution=\"1e-9\"", "resolution=\"1e-6\""},
        {"name=\"test\"", "name=\"test2\""},
        {"name=\"speed\"", "name=\"velocity\""},
        {"name=\"speed\" type=\"float64\"", "name=\"speed\" type=\"int64\""},
        {"float64[2]", "float64[3]"},
        {"float64[2]", "float64[]"},
        {"name=\"lapTimes\" type=\"float64[]\"", "name=\"lapTimes\" type=\"bytes\""},
        {"<attribute name=\"speed\" type=\"float64\"/>\n      <attribute name=\"name\" "
         "type=\"string\"/>",
         "<attribute name=\"name\" type=\"string\"/>\n      <attribute name=\"speed\" "
         "type=\"float64\"/>"}, /* swapped order = different handles */
        {"<parameter name=\"dt\" type=\"float64\"/>",
         "<parameter name=\"dt\" type=\"float64\"/><parameter name=\"n\" type=\"int32\"/>"},
        {"<class name=\"Sample\">", "<class name=\"Sample2\">"},
        {"</class>\n      <class name=\"Truck\">", "<class name=\"Truck\">"}, /* Truck under Car */
        {"<interaction name=\"Alarm\">", "<interaction name=\"Alert\">"},
    };
    enum { NE = sizeof edits / sizeof edits[0] };
    uint64_t fps[NE + 1];
    fps[NE] = base;
    for (int i = 0; i < NE; i++) {
        char *t = edit(text, edits[i][0], edits[i][1]);
        char *t2 = t;
        if (t && i == NE - 2) {
            /* Moving Truck under Car: close Car after Truck instead. */
            t2 = edit(t, "</class>\n    </class>\n    <class name=\"Sample\">",
                      "</class>\n    </class>\n    </class>\n    <class name=\"Sample\">");
            free(t);
        }
        fps[i] = t2 ? fp_of(t2, edits[i][1]) : 0;
        free(t2);
    }
    for (int i = 0; i <= NE; i++)
        for (int j = i + 1; j <= NE; j++)
            CHECK(fps[i] != fps[j], "edits %d and %d give the same fingerprint", i, j);
    free(text);
}

/* Each bad fixture: status, "file:line: reason". */
static void test_bad_files(void)
{
    static const struct {
        const char *file;
        int status;
        const char *where; /* "file:line:" or "file:" */
        const char *reason;
    } cases[] = {
        {"bad_syntax.xml", FOM_ESYNTAX, "bad_syntax.xml:5:",
         "XML syntax error: Opening and ending tag mismatch: class line 4 and objects"},
        {"bad_unknown_element.xml", FOM_ESCHEMA,
         "bad_unknown_element.xml:5:", "unknown element <property> inside <class>"},
        {"bad_missing_name.xml", FOM_ESCHEMA, "bad_missing_name.xml:4:", "<class> without name"},
        {"bad_duplicate_class.xml", FOM_ESCHEMA,
         "bad_duplicate_class.xml:7:", "duplicate class name \"B\" (first as A.B)"},
        {"bad_duplicate_attribute.xml", FOM_ESCHEMA, "bad_duplicate_attribute.xml:7:",
         "duplicate attribute \"speed\" in class Base.Derived (declared in Base)"},
        {"bad_duplicate_parameter.xml", FOM_ESCHEMA, "bad_duplicate_parameter.xml:6:",
         "duplicate parameter \"p\" in interaction I.J (declared in I)"},
        {"bad_unknown_type.xml", FOM_ESCHEMA,
         "bad_unknown_type.xml:5:", "unknown type \"float128\" for attribute \"b\""},
        {"bad_array_length.xml", FOM_ESCHEMA,
         "bad_array_length.xml:4:", "unknown type \"float64[0]\" for attribute \"v\""},
        {"bad_missing_type.xml", FOM_ESCHEMA,
         "bad_missing_type.xml:4:", "attribute \"a\" without type"},
        {"bad_resolution.xml", FOM_ESCHEMA, "bad_resolution.xml:3:", "bad resolution \"-1e-9\""},
        {"bad_second_time.xml", FOM_ESCHEMA, "bad_second_time.xml:3:", "second <time> in <fom>"},
        {"bad_attribute_order.xml", FOM_ESCHEMA,
         "bad_attribute_order.xml:5:", "<attribute> after a nested <class> in class \"A\""},
        {"bad_root.xml", FOM_ESCHEMA,
         "bad_root.xml:2:", "root element is <objectModel>, expected <fom>"},
        {"bad_doctype.xml", FOM_ESCHEMA, "bad_doctype.xml:2:", "DOCTYPE is not allowed"},
        {"bad_xml_attribute.xml", FOM_ESCHEMA,
         "bad_xml_attribute.xml:3:", "unknown attribute 'parent' on <interaction>"},
        {"bad_text.xml", FOM_ESCHEMA, "bad_text.xml:3:", "unexpected text inside <objects>"},
        {"bad_name.xml", FOM_ESCHEMA, "bad_name.xml:3:", "invalid name \"Vehicle.Car\" on <class>"},
        {"does_not_exist.xml", FOM_EIO, "does_not_exist.xml:", "cannot open: No such file"},
        {".", FOM_EIO, ".:", "read error: Is a directory"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[256], want[320], err[FOM_ERRLEN] = "";
        snprintf(path, sizeof path, "tests/fom/%s", cases[i].file);
        snprintf(want, sizeof want, "tests/fom/%s %s", cases[i].where, cases[i].reason);
        struct fom *f = (struct fom *)&err; /* must be reset to NULL */
        int rc = fom_parse_file(path, &f, err, sizeof err);
        CHECK(rc == cases[i].status, "%s: status %d, want %d (%s)", cases[i].file, rc,
              cases[i].status, err);
        CHECK(f == NULL, "%s: no FOM on error", cases[i].file);
        CHECK(strncmp(err, want, strlen(want)) == 0, "%s: got \"%s\", want \"%s...\"",
              cases[i].file, err, want);
    }
}

/* Errors from memory text, the depth limit, entity tricks, and a silent stderr. */
static void test_mem_errors(void)
{
    struct fom *f = NULL;
    char err[FOM_ERRLEN];
    CHECK_INT_EQ(fom_parse_mem("<fom/>", 6, NULL, &f, err, sizeof err), FOM_ESCHEMA);
    CHECK_STR_EQ(err, "<memory>:1: <fom> without name");
    CHECK_INT_EQ(fom_parse_mem("", 0, "join", &f, err, sizeof err), FOM_ESYNTAX);
    CHECK_STR_HAS(err, "join:1: empty document");
    CHECK_INT_EQ(fom_parse_mem(NULL, 3, "x", &f, err, sizeof err), FOM_EUSAGE);
    CHECK_INT_EQ(fom_parse_mem("<fom name='a'/>", 15, "x", NULL, err, sizeof err), FOM_EUSAGE);
    CHECK_INT_EQ(fom_parse_file(NULL, &f, err, sizeof err), FOM_EUSAGE);
    /* A small error buffer is truncated, not overrun. */
    char tiny[8];
    CHECK_INT_EQ(fom_parse_mem("<fom/>", 6, NULL, &f, tiny, sizeof tiny), FOM_ESCHEMA);
    CHECK_STR_EQ(tiny, "<memory");
    CHECK_INT_EQ(fom_parse_mem("<fom/>", 6, NULL, &f, NULL, 0), FOM_ESCHEMA);

    /* External entity / DTD fetch attempts are refused without any network access. */
    const char *xxe = "<?xml version='1.0'?>\n<!DOCTYPE fom SYSTEM 'http://192.0.2.1/x.dtd'>\n"
                      "<fom name='a'/>";
    CHECK_INT_EQ(fom_parse_mem(xxe, strlen(xxe), "xxe", &f, err, sizeof err), FOM_ESCHEMA);
    CHECK_STR_EQ(err, "xxe:2: DOCTYPE is not allowed in a FOM");
    const char *ent = "<fom name='a'><objects><class name='&x;'/></objects></fom>";
    CHECK_INT_EQ(fom_parse_mem(ent, strlen(ent), "ent", &f, err, sizeof err), FOM_ESYNTAX);
    CHECK_STR_HAS(err, "Entity 'x' not defined");
    const char *res = "<fom name='a'><time resolution='1e-9x'/></fom>";
    CHECK_INT_EQ(fom_parse_mem(res, strlen(res), "r", &f, err, sizeof err), FOM_ESCHEMA);
    CHECK_STR_HAS(err, "r:1: bad resolution \"1e-9x\"");
    res = "<fom name='a'><time resolution='inf'/></fom>";
    CHECK_INT_EQ(fom_parse_mem(res, strlen(res), "r", &f, err, sizeof err), FOM_ESCHEMA);
    res = "<fom name='a'><time/></fom>";
    CHECK_INT_EQ(fom_parse_mem(res, strlen(res), "r", &f, err, sizeof err), FOM_ESCHEMA);
    CHECK_STR_HAS(err, "<time> without resolution");
    const char *ns = "<fom xmlns='urn:x' name='a'/>";
    CHECK_INT_EQ(fom_parse_mem(ns, strlen(ns), "ns", &f, err, sizeof err), FOM_ESCHEMA);
    CHECK_STR_EQ(err, "ns:1: element <fom> is in a namespace (urn:x); FOM elements take none");
    ns = "<fom name='a'><objects xmlns:x='urn:y'>\n<x:class name='A'/></objects></fom>";
    CHECK_INT_EQ(fom_parse_mem(ns, strlen(ns), "ns", &f, err, sizeof err), FOM_ESCHEMA);
    CHECK_STR_EQ(err, "ns:2: element <class> is in a namespace (urn:y); FOM elements take none");

    /* 65 nested classes: over the depth limit. */
    char deep[65 * 40 + 64];
    size_t k = (size_t)snprintf(deep, sizeof deep, "<fom name='d'><objects>");
    for (int i = 0; i < 65; i++)
        k += (size_t)snprintf(deep + k, sizeof deep - k, "<class name='c%d'>", i);
    for (int i = 0; i < 65; i++)
        k += (size_t)snprintf(deep + k, sizeof deep - k, "</class>");
    snprintf(deep + k, sizeof deep - k, "</objects></fom>");
    CHECK_INT_EQ(fom_parse_mem(deep, strlen(deep), "deep", &f, err, sizeof err), FOM_ESCHEMA);
    CHECK_STR_HAS(err, "nested deeper than 64 levels");

    /* libxml2 must not print: run bad parses with stderr redirected to a file. */
    char tmpl[] = "/tmp/fom_test_stderrXXXXXX";
    int fd = mkstemp(tmpl);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0) return;
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    const char *broken = "<fom name='a'><objects></fom>";
    int rc1 = fom_parse_mem(broken, strlen(broken), "b", &f, err, sizeof err);
    int rc2 = fom_parse_file("tests/fom/bad_syntax.xml", &f, err, sizeof err);
    int rc3 = fom_parse_mem(xxe, strlen(xxe), "xxe", &f, err, sizeof err);
    int rc4 = fom_parse_mem("\xff\xfe<", 3, "enc", &f, err, sizeof err);
    /* An encoding conversion error: libxml2 reports it without a parser context. */
    const char *conv = "<?xml version='1.0' encoding='EUC-JP'?><fom name='a\xff\xff\xff\xff'/>";
    int rc5 = fom_parse_mem(conv, strlen(conv), "conv", &f, err, sizeof err);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    struct stat st;
    fstat(fd, &st);
    close(fd);
    unlink(tmpl);
    CHECK(rc1 == FOM_ESYNTAX && rc2 == FOM_ESYNTAX && rc3 == FOM_ESCHEMA && rc4 == FOM_ESYNTAX &&
              rc5 == FOM_ESYNTAX,
          "bad parses %d %d %d %d %d", rc1, rc2, rc3, rc4, rc5);
    CHECK_STR_HAS(err, "conv: XML syntax error: input conversion failed");
    CHECK_INT_EQ(st.st_size, 0);
    /* The process-wide libxml2 handlers are restored after a parse. */
    CHECK(xmlGenericError != NULL && xmlStructuredError == NULL, "handlers restored");
    /* Multi-line libxml2 reasons are folded into one line. */
    const char *bad8 = "<fom name='a\xff\xff'/>";
    CHECK_INT_EQ(fom_parse_mem(bad8, strlen(bad8), "u8", &f, err, sizeof err), FOM_ESYNTAX);
    CHECK(strchr(err, '\n') == NULL, "one line: %s", err);
    CHECK_STR_HAS(err, "u8:1: XML syntax error: Input is not proper UTF-8");
}

/* Names that may repeat: the same attribute name in sibling classes (distinct handles), and a
 * class and an interaction with one name (separate name spaces). */
static void test_allowed_repeats(void)
{
    const char *t = "<fom name='r'><objects>\n"
                    "<class name='A'><class name='B'><attribute name='v' type='int64'/></class>\n"
                    "<class name='C'><attribute name='v' type='float64[4]'/></class></class>\n"
                    "</objects><interactions><interaction name='A'>"
                    "<parameter name='v' type='bytes'/></interaction></interactions></fom>";
    struct fom *f = NULL;
    char err[FOM_ERRLEN] = "";
    CHECK_INT_EQ(fom_parse_mem(t, strlen(t), "rep", &f, err, sizeof err), FOM_OK);
    if (!f) return;
    fom_handle b = fom_class_find(f, "A.B"), c = fom_class_find(f, "A.C");
    CHECK(b == 2 && c == 3, "classes %u %u", b, c);
    CHECK_INT_EQ(fom_attr_find(f, b, "v"), 1);
    CHECK_INT_EQ(fom_attr_find(f, c, "v"), 2);
    CHECK_INT_EQ(fom_attr_length(f, 2), 4);
    CHECK_INT_EQ(fom_attr_find(f, fom_class_find(f, "A"), "v"), FOM_NONE);
    CHECK_INT_EQ(fom_inter_find(f, "A"), 1);
    CHECK_INT_EQ(fom_param_type(f, fom_param_find(f, 1, "v")), FOM_T_BYTES);
    CHECK_INT_EQ(fom_class_find(f, "A."), FOM_NONE);
    CHECK_INT_EQ(fom_class_find(f, ""), FOM_NONE);
    fom_free(f);
}

/* Large FOMs: many classes and members (the name index grows many times), the deepest
 * allowed chain of the longest allowed names, and lookups in all of them. */
static void test_large(void)
{
    enum { FLAT = 3000, ATTRS = 1500, SUBS = 1500 };
    size_t cap = 1u << 20, k = 0;
    char *t = malloc(cap);
    k += (size_t)snprintf(t + k, cap - k, "<fom name='big'><objects><class name='R'>");
    for (int i = 0; i < ATTRS; i++)
        k += (size_t)snprintf(t + k, cap - k, "<attribute name='a%d' type='int32'/>", i);
    for (int i = 0; i < SUBS; i++)
        k += (size_t)snprintf(t + k, cap - k,
                              "<class name='s%d'><attribute name='own' "
                              "type='bytes'/></class>",
                              i);
    k += (size_t)snprintf(t + k, cap - k, "</class>");
    for (int i = 0; i < FLAT; i++)
        k += (size_t)snprintf(t + k, cap - k, "<class name='f%d'/>", i);
    k += (size_t)snprintf(t + k, cap - k, "</objects></fom>");
    struct fom *f = NULL;
    char err[FOM_ERRLEN] = "";
    CHECK_INT_EQ(fom_parse_mem(t, k, "big", &f, err, sizeof err), FOM_OK);
    if (f) {
        CHECK_INT_EQ(fom_class_count(f), 1 + SUBS + FLAT);
        CHECK_INT_EQ(fom_attr_count(f), ATTRS + SUBS);
        int bad = 0;
        char nm[32];
        for (int i = 0; i < FLAT; i++) {
            snprintf(nm, sizeof nm, "f%d", i);
            bad += fom_class_find(f, nm) != (fom_handle)(2 + SUBS + i);
        }
        for (int i = 0; i < SUBS; i++) {
            snprintf(nm, sizeof nm, "R.s%d", i);
            fom_handle c = fom_class_find(f, nm);
            bad += c != (fom_handle)(2 + i);
            bad += fom_attr_find(f, c, "a1499") != ATTRS;                     /* inherited */
            bad += fom_attr_find(f, c, "own") != (fom_handle)(ATTRS + 1 + i); /* its own */
        }
        CHECK_INT_EQ(bad, 0);
        fom_handle last = fom_class_find(f, "s1499"), list[ATTRS + 1];
        CHECK_INT_EQ(fom_class_attrs(f, last, list, ATTRS + 1), ATTRS + 1);
        CHECK(list[0] == 1 && list[ATTRS - 1] == ATTRS && list[ATTRS] == ATTRS + SUBS,
              "inherited first, own last");
        CHECK_INT_EQ(fom_attr_find(f, fom_class_find(f, "s0"), "own"), ATTRS + 1);
        CHECK_INT_EQ(fom_class_has_attr(f, fom_class_find(f, "s0"), ATTRS + 2), 0);
        fom_free(f);
    }
    /* 64 nested classes with 256-byte names: the deepest, longest legal chain. */
    k = (size_t)snprintf(t, cap, "<fom name='deep'><objects>");
    for (int d = 0; d < 64; d++) {
        k += (size_t)snprintf(t + k, cap - k, "<class name='");
        memset(t + k, 'a' + d % 26, 250);
        k += 250;
        k += (size_t)snprintf(t + k, cap - k, "%06d'>", d);
    }
    for (int d = 0; d < 64; d++)
        k += (size_t)snprintf(t + k, cap - k, "</class>");
    k += (size_t)snprintf(t + k, cap - k, "</objects></fom>");
    CHECK_INT_EQ(fom_parse_mem(t, k, "deep", &f, err, sizeof err), FOM_OK);
    if (f) {
        CHECK_INT_EQ(strlen(fom_class_qname(f, 64)), 64 * 256 + 63);
        CHECK_INT_EQ(fom_class_find(f, fom_class_qname(f, 64)), 64);
        CHECK_INT_EQ(fom_class_is_a(f, 64, 1), 1);
        fom_free(f);
    }
    free(t);
}

static void test_values(void)
{
    const double d = 1.0;
    const unsigned char t = 1, two = 2;
    CHECK_INT_EQ(fom_value_ok(FOM_T_FLOAT64, 0, &d, 8), 1);
    CHECK_INT_EQ(fom_value_ok(FOM_T_FLOAT64, 0, &d, 4), 0);
    CHECK_INT_EQ(fom_value_ok(FOM_T_INT64, 0, &d, 8), 1);
    CHECK_INT_EQ(fom_value_ok(FOM_T_INT32, 0, &d, 4), 1);
    CHECK_INT_EQ(fom_value_ok(FOM_T_INT32, 0, &d, 8), 0);
    CHECK_INT_EQ(fom_value_ok(FOM_T_BOOLEAN, 0, &t, 1), 1);
    CHECK_INT_EQ(fom_value_ok(FOM_T_BOOLEAN, 0, &two, 1), 0);
    CHECK_INT_EQ(fom_value_ok(FOM_T_STRING, 0, "abc", 3), 1);
    CHECK_INT_EQ(fom_value_ok(FOM_T_STRING, 0, "a\0c", 3), 0);
    CHECK_INT_EQ(fom_value_ok(FOM_T_STRING, 0, NULL, 0), 1);
    CHECK_INT_EQ(fom_value_ok(FOM_T_BYTES, 0, "a\0c", 3), 1);
    static const double arr[3] = {1, 2, 3};
    CHECK_INT_EQ(fom_value_ok(FOM_T_FLOAT64_ARRAY, 0, arr, 24), 1);
    CHECK_INT_EQ(fom_value_ok(FOM_T_FLOAT64_ARRAY, 0, arr, 0), 1);
    CHECK_INT_EQ(fom_value_ok(FOM_T_FLOAT64_ARRAY, 0, arr, 20), 0);
    CHECK_INT_EQ(fom_value_ok(FOM_T_FLOAT64_ARRAY, 3, arr, 24), 1);
    CHECK_INT_EQ(fom_value_ok(FOM_T_FLOAT64_ARRAY, 2, arr, 24), 0);
    CHECK_INT_EQ(fom_value_ok(FOM_T_NONE, 0, arr, 8), 0);
    CHECK_STR_EQ(fom_type_name(FOM_T_FLOAT64_ARRAY), "float64[]");
    CHECK_STR_EQ(fom_type_name(FOM_T_BOOLEAN), "boolean");
    CHECK_STR_EQ(fom_type_name((enum fom_type)99), "none");
}

/* fom_read_file: the bytes of the file (size from stat), NUL-terminated, parsing like
 * fom_parse_file; errors leave no text. */
static void test_read_file(void)
{
    char *text = (char *)"x", err[FOM_ERRLEN] = "";
    size_t len = 7;
    struct stat st;
    CHECK_INT_EQ(stat("fom/test.xml", &st), 0);
    CHECK_INT_EQ(fom_read_file("fom/test.xml", &text, &len, err, sizeof err), FOM_OK);
    CHECK(text && len == (size_t)st.st_size, "read %zu bytes, file has %lld", len,
          (long long)st.st_size);
    CHECK(text && text[len] == '\0', "text is NUL-terminated");
    struct fom *a = NULL, *b = NULL;
    CHECK_INT_EQ(fom_parse_mem(text, len, "fom/test.xml", &a, err, sizeof err), FOM_OK);
    CHECK_INT_EQ(fom_parse_file("fom/test.xml", &b, err, sizeof err), FOM_OK);
    CHECK(a && b && fom_fingerprint(a) == fom_fingerprint(b), "same FOM as fom_parse_file");
    fom_free(a);
    fom_free(b);
    free(text);
    text = (char *)"x";
    CHECK_INT_EQ(fom_read_file("tests/fom/does_not_exist.xml", &text, &len, err, sizeof err),
                 FOM_EIO);
    CHECK(text == NULL && len == 0, "no text on error");
    CHECK_STR_HAS(err, "tests/fom/does_not_exist.xml: cannot open");
    CHECK_INT_EQ(fom_read_file("tests/fom", &text, &len, err, sizeof err), FOM_EIO);
    CHECK_STR_HAS(err, "read error");
    CHECK_INT_EQ(fom_read_file("fom/test.xml", NULL, &len, err, sizeof err), FOM_EUSAGE);
    CHECK_INT_EQ(fom_read_file("fom/test.xml", &text, NULL, err, sizeof err), FOM_EUSAGE);
}

int main(void)
{
    test_handles();
    test_fingerprint();
    test_bad_files();
    test_mem_errors();
    test_allowed_repeats();
    test_large();
    test_values();
    test_read_file();
    xmlCleanupParser(); /* tests may; library code does not */
    return check_summary();
}
