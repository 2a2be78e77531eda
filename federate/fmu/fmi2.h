/* FMI 2.0 types, constants and function signatures (Model Exchange and Co-Simulation),
 * written for Tempo from the text of the FMI 2.0 standard (sections 2.1.2-2.1.9, 3.2, 4.2).
 * Serves doc/fmu.md. Hosts use the *TYPE typedefs (see federate/fmu/fmu_load.c); FMU sources get
 * exported prototypes of every fmi2* function (see examples/fmus/README.md).
 * Read next: federate/fmu/fmu_load.c (how the host resolves these symbols). */
#ifndef TEMPO_FEDERATE_FMI2_H
#define TEMPO_FEDERATE_FMI2_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- platform types (standard 2.1.2, "fmi2TypesPlatform") ---------------------------- */

/** Value of fmi2GetTypesPlatform() for these definitions. */
#define fmi2TypesPlatform "default"
/** Value of fmi2GetVersion() for FMI 2.0. */
#define fmi2Version "2.0"

typedef void *fmi2Component;             /* an FMU instance, opaque to the host */
typedef void *fmi2ComponentEnvironment;  /* host pointer handed back to callbacks */
typedef void *fmi2FMUstate;              /* a saved FMU state, opaque to the host */
typedef unsigned int fmi2ValueReference; /* handle of a variable (modelDescription) */
typedef double fmi2Real;
typedef int fmi2Integer;
typedef int fmi2Boolean; /* fmi2True or fmi2False only */
typedef char fmi2Char;
typedef const fmi2Char *fmi2String; /* NUL-terminated UTF-8 */
typedef char fmi2Byte;              /* serialized FMU state bytes */

#define fmi2True  1
#define fmi2False 0

/* ---- enumerations and structs (standard 2.1.3, 2.1.5, 3.2.2, 4.2.3) -------------------- */

/** Result of every FMI call, in increasing severity (Pending: CS asynchronous step only). */
typedef enum { fmi2OK, fmi2Warning, fmi2Discard, fmi2Error, fmi2Fatal, fmi2Pending } fmi2Status;

/** Interface an instance is created for (fmi2Instantiate). */
typedef enum { fmi2ModelExchange, fmi2CoSimulation } fmi2Type;

/** What fmi2Get*Status reports on (Co-Simulation). */
typedef enum {
    fmi2DoStepStatus,       /* status of an asynchronous fmi2DoStep */
    fmi2PendingStatus,      /* string describing a pending step */
    fmi2LastSuccessfulTime, /* time reached by the last (partially) successful step */
    fmi2Terminated          /* fmi2True when the slave wants the simulation to stop */
} fmi2StatusKind;

/** Logger: message may contain "#<type><vr>#" references; variadic args are printf-style. */
typedef void (*fmi2CallbackLogger)(fmi2ComponentEnvironment env, fmi2String instanceName,
                                   fmi2Status status, fmi2String category, fmi2String message, ...);
/** calloc-like allocator the FMU must use (zero-filled nobj*size bytes, or NULL). */
typedef void *(*fmi2CallbackAllocateMemory)(size_t nobj, size_t size);
/** free-like release of memory from fmi2CallbackAllocateMemory. */
typedef void (*fmi2CallbackFreeMemory)(void *obj);
/** CS only: an asynchronous fmi2DoStep finished with status (may be NULL). */
typedef void (*fmi2StepFinished)(fmi2ComponentEnvironment env, fmi2Status status);

/** Callbacks passed to fmi2Instantiate; the FMU may keep the pointer until fmi2FreeInstance. */
typedef struct {
    fmi2CallbackLogger logger;
    fmi2CallbackAllocateMemory allocateMemory;
    fmi2CallbackFreeMemory freeMemory;
    fmi2StepFinished stepFinished;
    fmi2ComponentEnvironment componentEnvironment;
} fmi2CallbackFunctions;

/** Model Exchange: filled by fmi2NewDiscreteStates (event iteration). */
typedef struct {
    fmi2Boolean newDiscreteStatesNeeded;           /* iterate again */
    fmi2Boolean terminateSimulation;               /* model asks to stop */
    fmi2Boolean nominalsOfContinuousStatesChanged; /* re-read nominals */
    fmi2Boolean valuesOfContinuousStatesChanged;   /* re-read states, re-init solver */
    fmi2Boolean nextEventTimeDefined;              /* nextEventTime is valid */
    fmi2Real nextEventTime;                        /* next time event (s) */
} fmi2EventInfo;

/* ---- function types (standard 2.1.4 - 2.1.10, 3.2.x, 4.2.x) ---------------------------- */
/* Every function except the first two takes the instance as first argument. Arrays are
 * indexed 0..n-1 and owned by the caller; strings returned by the FMU stay valid until the
 * next call on that instance. */

/* Inquire platform and version; callable before instantiation. */
typedef const char *fmi2GetTypesPlatformTYPE(void);
typedef const char *fmi2GetVersionTYPE(void);
typedef fmi2Status fmi2SetDebugLoggingTYPE(fmi2Component c, fmi2Boolean loggingOn,
                                           size_t nCategories, const fmi2String categories[]);

/* Creation and destruction. fmuResourceLocation is a URI ("file:///.../resources"). */
typedef fmi2Component fmi2InstantiateTYPE(fmi2String instanceName, fmi2Type fmuType,
                                          fmi2String fmuGUID, fmi2String fmuResourceLocation,
                                          const fmi2CallbackFunctions *functions,
                                          fmi2Boolean visible, fmi2Boolean loggingOn);
typedef void fmi2FreeInstanceTYPE(fmi2Component c);

/* Initialization, termination, reset. */
typedef fmi2Status fmi2SetupExperimentTYPE(fmi2Component c, fmi2Boolean toleranceDefined,
                                           fmi2Real tolerance, fmi2Real startTime,
                                           fmi2Boolean stopTimeDefined, fmi2Real stopTime);
typedef fmi2Status fmi2EnterInitializationModeTYPE(fmi2Component c);
typedef fmi2Status fmi2ExitInitializationModeTYPE(fmi2Component c);
typedef fmi2Status fmi2TerminateTYPE(fmi2Component c);
typedef fmi2Status fmi2ResetTYPE(fmi2Component c);

/* Variable access by value reference. */
typedef fmi2Status fmi2GetRealTYPE(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                   fmi2Real value[]);
typedef fmi2Status fmi2GetIntegerTYPE(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                      fmi2Integer value[]);
typedef fmi2Status fmi2GetBooleanTYPE(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                      fmi2Boolean value[]);
typedef fmi2Status fmi2GetStringTYPE(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                     fmi2String value[]);
typedef fmi2Status fmi2SetRealTYPE(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                   const fmi2Real value[]);
typedef fmi2Status fmi2SetIntegerTYPE(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                      const fmi2Integer value[]);
typedef fmi2Status fmi2SetBooleanTYPE(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                      const fmi2Boolean value[]);
typedef fmi2Status fmi2SetStringTYPE(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                     const fmi2String value[]);

/* FMU state: get allocates (or overwrites *state if non-NULL), free sets *state to NULL. */
typedef fmi2Status fmi2GetFMUstateTYPE(fmi2Component c, fmi2FMUstate *state);
typedef fmi2Status fmi2SetFMUstateTYPE(fmi2Component c, fmi2FMUstate state);
typedef fmi2Status fmi2FreeFMUstateTYPE(fmi2Component c, fmi2FMUstate *state);
typedef fmi2Status fmi2SerializedFMUstateSizeTYPE(fmi2Component c, fmi2FMUstate state,
                                                  size_t *size);
typedef fmi2Status fmi2SerializeFMUstateTYPE(fmi2Component c, fmi2FMUstate state,
                                             fmi2Byte serializedState[], size_t size);
typedef fmi2Status fmi2DeSerializeFMUstateTYPE(fmi2Component c, const fmi2Byte serializedState[],
                                               size_t size, fmi2FMUstate *state);

/* Partial derivatives d(unknown)/d(known) times dvKnown. */
typedef fmi2Status
fmi2GetDirectionalDerivativeTYPE(fmi2Component c, const fmi2ValueReference vUnknown_ref[],
                                 size_t nUnknown, const fmi2ValueReference vKnown_ref[],
                                 size_t nKnown, const fmi2Real dvKnown[], fmi2Real dvUnknown[]);

/* Model Exchange only (standard 3.2). */
typedef fmi2Status fmi2EnterEventModeTYPE(fmi2Component c);
typedef fmi2Status fmi2NewDiscreteStatesTYPE(fmi2Component c, fmi2EventInfo *eventInfo);
typedef fmi2Status fmi2EnterContinuousTimeModeTYPE(fmi2Component c);
typedef fmi2Status fmi2CompletedIntegratorStepTYPE(fmi2Component c,
                                                   fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                                   fmi2Boolean *enterEventMode,
                                                   fmi2Boolean *terminateSimulation);
typedef fmi2Status fmi2SetTimeTYPE(fmi2Component c, fmi2Real time);
typedef fmi2Status fmi2SetContinuousStatesTYPE(fmi2Component c, const fmi2Real x[], size_t nx);
typedef fmi2Status fmi2GetDerivativesTYPE(fmi2Component c, fmi2Real derivatives[], size_t nx);
typedef fmi2Status fmi2GetEventIndicatorsTYPE(fmi2Component c, fmi2Real eventIndicators[],
                                              size_t ni);
typedef fmi2Status fmi2GetContinuousStatesTYPE(fmi2Component c, fmi2Real x[], size_t nx);
typedef fmi2Status fmi2GetNominalsOfContinuousStatesTYPE(fmi2Component c, fmi2Real x_nominal[],
                                                         size_t nx);

/* Co-Simulation only (standard 4.2). order[i] >= 1 is the derivative order of value[i]. */
typedef fmi2Status fmi2SetRealInputDerivativesTYPE(fmi2Component c, const fmi2ValueReference vr[],
                                                   size_t nvr, const fmi2Integer order[],
                                                   const fmi2Real value[]);
typedef fmi2Status fmi2GetRealOutputDerivativesTYPE(fmi2Component c, const fmi2ValueReference vr[],
                                                    size_t nvr, const fmi2Integer order[],
                                                    fmi2Real value[]);
typedef fmi2Status fmi2DoStepTYPE(fmi2Component c, fmi2Real currentCommunicationPoint,
                                  fmi2Real communicationStepSize,
                                  fmi2Boolean noSetFMUStatePriorToCurrentPoint);
typedef fmi2Status fmi2CancelStepTYPE(fmi2Component c);
typedef fmi2Status fmi2GetStatusTYPE(fmi2Component c, const fmi2StatusKind s, fmi2Status *value);
typedef fmi2Status fmi2GetRealStatusTYPE(fmi2Component c, const fmi2StatusKind s, fmi2Real *value);
typedef fmi2Status fmi2GetIntegerStatusTYPE(fmi2Component c, const fmi2StatusKind s,
                                            fmi2Integer *value);
typedef fmi2Status fmi2GetBooleanStatusTYPE(fmi2Component c, const fmi2StatusKind s,
                                            fmi2Boolean *value);
typedef fmi2Status fmi2GetStringStatusTYPE(fmi2Component c, const fmi2StatusKind s,
                                           fmi2String *value);

/* ---- prototypes for FMU implementations ------------------------------------------------ */
/* FMI2_EXPORT gives default visibility: Tempo builds with -fvisibility=hidden, and the host
 * finds these names with dlsym. The prototypes below carry it, so an FMU source that includes
 * this header and defines e.g. `fmi2Status fmi2DoStep(...) { ... }` exports the function with
 * the checked signature. An FMU must define every function of the kinds it declares in its
 * modelDescription.xml (common + ME and/or CS); it may return fmi2Error from ones it does not
 * support (e.g. fmi2GetFMUstate when canGetAndSetFMUstate is false). Define
 * FMI2_NO_PROTOTYPES before including to get only the types. */
#if defined(__GNUC__) || defined(__clang__)
#define FMI2_EXPORT __attribute__((visibility("default")))
#else
#define FMI2_EXPORT
#endif

#ifndef FMI2_NO_PROTOTYPES
FMI2_EXPORT fmi2GetTypesPlatformTYPE fmi2GetTypesPlatform;
FMI2_EXPORT fmi2GetVersionTYPE fmi2GetVersion;
FMI2_EXPORT fmi2SetDebugLoggingTYPE fmi2SetDebugLogging;
FMI2_EXPORT fmi2InstantiateTYPE fmi2Instantiate;
FMI2_EXPORT fmi2FreeInstanceTYPE fmi2FreeInstance;
FMI2_EXPORT fmi2SetupExperimentTYPE fmi2SetupExperiment;
FMI2_EXPORT fmi2EnterInitializationModeTYPE fmi2EnterInitializationMode;
FMI2_EXPORT fmi2ExitInitializationModeTYPE fmi2ExitInitializationMode;
FMI2_EXPORT fmi2TerminateTYPE fmi2Terminate;
FMI2_EXPORT fmi2ResetTYPE fmi2Reset;
FMI2_EXPORT fmi2GetRealTYPE fmi2GetReal;
FMI2_EXPORT fmi2GetIntegerTYPE fmi2GetInteger;
FMI2_EXPORT fmi2GetBooleanTYPE fmi2GetBoolean;
FMI2_EXPORT fmi2GetStringTYPE fmi2GetString;
FMI2_EXPORT fmi2SetRealTYPE fmi2SetReal;
FMI2_EXPORT fmi2SetIntegerTYPE fmi2SetInteger;
FMI2_EXPORT fmi2SetBooleanTYPE fmi2SetBoolean;
FMI2_EXPORT fmi2SetStringTYPE fmi2SetString;
FMI2_EXPORT fmi2GetFMUstateTYPE fmi2GetFMUstate;
FMI2_EXPORT fmi2SetFMUstateTYPE fmi2SetFMUstate;
FMI2_EXPORT fmi2FreeFMUstateTYPE fmi2FreeFMUstate;
FMI2_EXPORT fmi2SerializedFMUstateSizeTYPE fmi2SerializedFMUstateSize;
FMI2_EXPORT fmi2SerializeFMUstateTYPE fmi2SerializeFMUstate;
FMI2_EXPORT fmi2DeSerializeFMUstateTYPE fmi2DeSerializeFMUstate;
FMI2_EXPORT fmi2GetDirectionalDerivativeTYPE fmi2GetDirectionalDerivative;
/* Model Exchange */
FMI2_EXPORT fmi2EnterEventModeTYPE fmi2EnterEventMode;
FMI2_EXPORT fmi2NewDiscreteStatesTYPE fmi2NewDiscreteStates;
FMI2_EXPORT fmi2EnterContinuousTimeModeTYPE fmi2EnterContinuousTimeMode;
FMI2_EXPORT fmi2CompletedIntegratorStepTYPE fmi2CompletedIntegratorStep;
FMI2_EXPORT fmi2SetTimeTYPE fmi2SetTime;
FMI2_EXPORT fmi2SetContinuousStatesTYPE fmi2SetContinuousStates;
FMI2_EXPORT fmi2GetDerivativesTYPE fmi2GetDerivatives;
FMI2_EXPORT fmi2GetEventIndicatorsTYPE fmi2GetEventIndicators;
FMI2_EXPORT fmi2GetContinuousStatesTYPE fmi2GetContinuousStates;
FMI2_EXPORT fmi2GetNominalsOfContinuousStatesTYPE fmi2GetNominalsOfContinuousStates;
/* Co-Simulation */
FMI2_EXPORT fmi2SetRealInputDerivativesTYPE fmi2SetRealInputDerivatives;
FMI2_EXPORT fmi2GetRealOutputDerivativesTYPE fmi2GetRealOutputDerivatives;
FMI2_EXPORT fmi2DoStepTYPE fmi2DoStep;
FMI2_EXPORT fmi2CancelStepTYPE fmi2CancelStep;
FMI2_EXPORT fmi2GetStatusTYPE fmi2GetStatus;
FMI2_EXPORT fmi2GetRealStatusTYPE fmi2GetRealStatus;
FMI2_EXPORT fmi2GetIntegerStatusTYPE fmi2GetIntegerStatus;
FMI2_EXPORT fmi2GetBooleanStatusTYPE fmi2GetBooleanStatus;
FMI2_EXPORT fmi2GetStringStatusTYPE fmi2GetStringStatus;
#endif /* FMI2_NO_PROTOTYPES */

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_FEDERATE_FMI2_H */
