/* Names of the port's status codes (algorithms/port.h, doc/algorithms/port.md). */
#include "algorithms/port.h"

const char *port_strerror(int status)
{
    switch ((port_status)status) {
    case PORT_OK: return "ok";
    case PORT_EVENT: return "stopped at an event";
    case PORT_TERMINATED: return "the model terminated";
    case PORT_EDISCARD: return "step discarded (recoverable)";
    case PORT_EUNSUPPORTED: return "not supported by this slave";
    case PORT_EUSAGE: return "bad argument or call order";
    case PORT_EFAIL: return "slave failed";
    case PORT_ELOST: return "slave lost";
    case PORT_ENOCONV: return "no convergence";
    case PORT_ENOMEM: return "out of memory";
    }
    return "unknown port status";
}
