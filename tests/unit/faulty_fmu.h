/* The FMU of the fault fixture (tests/unit/fmu_fixture_faulty.c, built by mk/50-fmu.mk into
 * build/fmu-fixtures/faulty.so): its modelDescription.xml (x' = -x, the fault parameters, and
 * outputs of every type: Integer "tenths", Boolean "late", String "phase") and the zip that
 * makes it an FMU. Shared by tests/unit/fmu_fault_test.c and
 * tests/integration/inproc_same_test.c (every type recorded by the federates).
 */
#ifndef TEMPO_TESTS_UNIT_FAULTY_FMU_H
#define TEMPO_TESTS_UNIT_FAULTY_FMU_H

#include <string.h>

#include <zip.h>

static const char faulty_fmu_md[] =
    "<?xml version=\"1.0\"?>\n"
    "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"faulty\" guid=\"{f}\" "
    "numberOfEventIndicators=\"0\">\n"
    "<ModelExchange modelIdentifier=\"faulty\" canGetAndSetFMUstate=\"true\"/>\n"
    "<CoSimulation modelIdentifier=\"faulty\" canGetAndSetFMUstate=\"true\" "
    "canHandleVariableCommunicationStepSize=\"true\"/>\n"
    "<ModelVariables>\n"
    "<ScalarVariable name=\"x\" valueReference=\"0\" causality=\"output\" initial=\"exact\">"
    "<Real start=\"1\"/></ScalarVariable>\n"
    "<ScalarVariable name=\"der(x)\" valueReference=\"1\"><Real derivative=\"1\"/>"
    "</ScalarVariable>\n"
    "<ScalarVariable name=\"discard_t\" valueReference=\"2\" causality=\"parameter\" "
    "variability=\"tunable\"><Real start=\"1e300\" min=\"0\" max=\"1e300\" unit=\"s\"/>"
    "</ScalarVariable>\n"
    "<ScalarVariable name=\"error_t\" valueReference=\"3\" causality=\"parameter\" "
    "variability=\"tunable\"><Real start=\"1e300\"/></ScalarVariable>\n"
    "<ScalarVariable name=\"tenths\" valueReference=\"0\" causality=\"output\" "
    "variability=\"discrete\"><Integer/></ScalarVariable>\n"
    "<ScalarVariable name=\"late\" valueReference=\"0\" causality=\"output\" "
    "variability=\"discrete\"><Boolean/></ScalarVariable>\n"
    "<ScalarVariable name=\"phase\" valueReference=\"0\" causality=\"output\" "
    "variability=\"discrete\"><String/></ScalarVariable>\n"
    "</ModelVariables>\n"
    "<ModelStructure><Outputs><Unknown index=\"1\"/><Unknown index=\"5\"/>"
    "<Unknown index=\"6\"/><Unknown index=\"7\"/></Outputs>"
    "<Derivatives><Unknown index=\"2\"/></Derivatives></ModelStructure>\n"
    "</fmiModelDescription>\n";

/* Zip desc (faulty_fmu_md, or a variant of it) as modelDescription.xml and
 * build/fmu-fixtures/faulty.so into path. Returns 0 or -1. */
static int faulty_fmu_build(const char *path, const char *desc)
{
    int err;
    zip_t *za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &err);
    if (!za) return -1;
    zip_source_t *a = zip_source_buffer(za, desc, strlen(desc), 0);
    zip_source_t *b = zip_source_file(za, "build/fmu-fixtures/faulty.so", 0, -1);
    if (!a || !b || zip_file_add(za, "modelDescription.xml", a, 0) < 0 ||
        zip_file_add(za, "binaries/linux64/faulty.so", b, 0) < 0) {
        zip_discard(za);
        return -1;
    }
    return zip_close(za);
}

#endif
