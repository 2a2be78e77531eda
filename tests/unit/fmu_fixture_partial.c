/* Test fixture (not a test): an FMU binary that exports only two FMI functions, so that the
 * loader's "missing function" refusal can be checked (tests/unit/fmu_load_test.c). Built
 * without sanitizers into build/fmu-fixtures/partial.so by mk/50-fmu.mk. */
#include "federate/fmu/fmi2.h"

const char *fmi2GetTypesPlatform(void)
{
    return fmi2TypesPlatform;
}
const char *fmi2GetVersion(void)
{
    return fmi2Version;
}
