/* tempo-fmu-fed: one FMU of a federation file as a federate (seed 004 chapter 4 algorithms).
 * Serves DESIGN.md §1 (item 3); everything is in federate/fmufed.h (fmufed_main). The lead
 * merges it into tempo-fmu as --federation FILE --name X [--rti HOST:PORT].
 */
#include "federate/fmufed.h"

int main(int argc, char **argv)
{
    return fmufed_main(argc, argv);
}
