/* FMI 3.0 types, constants and function signatures (Model Exchange and Co-Simulation; the
 * Scheduled Execution instantiation only so that its absence can be named), written for Tempo
 * from the text of the FMI 3.0 standard (sections 2.2.1-2.2.12, 3.2, 4.2).
 * Serves doc/fmu.md. The host resolves these with dlsym (federate/fmu/fmu_v3.c); FMU sources
 * get exported prototypes (examples/fmus/framework/fw_fmi3.c).
 * Read next: federate/fmu/fmu_v3.c (how the host calls them). */
#ifndef TEMPO_FEDERATE_FMI3_H
#define TEMPO_FEDERATE_FMI3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What fmi3GetVersion() returns for FMI 3.0. */
#define fmi3Version "3.0"

/* ---- platform types (standard 2.2.2) ------------------------------------------------------ */

typedef void *fmi3Instance;            /* an FMU instance, opaque to the host */
typedef void *fmi3InstanceEnvironment; /* host pointer handed back to every callback */
typedef void *fmi3FMUState;            /* a saved FMU state, opaque to the host */
typedef uint32_t fmi3ValueReference;   /* handle of a variable (modelDescription) */
typedef float fmi3Float32;
typedef double fmi3Float64;
typedef int8_t fmi3Int8;
typedef uint8_t fmi3UInt8;
typedef int16_t fmi3Int16;
typedef uint16_t fmi3UInt16;
typedef int32_t fmi3Int32;
typedef uint32_t fmi3UInt32;
typedef int64_t fmi3Int64;
typedef uint64_t fmi3UInt64;
typedef bool fmi3Boolean; /* C99 bool, unlike FMI 2.0's int */
typedef char fmi3Char;
typedef const fmi3Char *fmi3String; /* NUL-terminated UTF-8 */
typedef uint8_t fmi3Byte;
typedef const fmi3Byte *fmi3Binary; /* bytes of one Binary value; its size goes beside it */
typedef bool fmi3Clock;             /* true: the clock ticks now */

#define fmi3True          true
#define fmi3False         false
#define fmi3ClockActive   true
#define fmi3ClockInactive false

/* ---- enumerations (standard 2.2.3, 2.2.10, 2.2.12) ---------------------------------------- */

/** Result of every FMI 3.0 call, in increasing severity (no Pending any more). Its values are
 * those of the same names in FMI 2.0, which the host relies on (fmu_v3.c). */
typedef enum { fmi3OK, fmi3Warning, fmi3Discard, fmi3Error, fmi3Fatal } fmi3Status;

/** Kinds of dependency (fmi3GetVariableDependencies). */
typedef enum {
    fmi3Independent,
    fmi3Constant,
    fmi3Fixed,
    fmi3Tunable,
    fmi3Discrete,
    fmi3Dependent
} fmi3DependencyKind;

/** What fmi3GetInterval* says of a clock's interval. */
typedef enum {
    fmi3IntervalNotYetKnown,
    fmi3IntervalUnchanged,
    fmi3IntervalChanged
} fmi3IntervalQualifier;

/* ---- callbacks (standard 2.3.1, 4.2.2) ---------------------------------------------------- */

/** Log message: already formatted (no printf arguments, unlike FMI 2.0), no instance name. */
typedef void (*fmi3LogMessageCallback)(fmi3InstanceEnvironment instanceEnvironment,
                                       fmi3Status status, fmi3String category, fmi3String message);
/** Co-Simulation: the FMU reached an intermediate point inside fmi3DoStep. The host may read
 * (intermediateVariableGetAllowed) or set (intermediateVariableSetRequested) intermediate
 * variables, and may ask for an early return when canReturnEarly, at *earlyReturnTime. */
typedef void (*fmi3IntermediateUpdateCallback)(
    fmi3InstanceEnvironment instanceEnvironment, fmi3Float64 intermediateUpdateTime,
    fmi3Boolean intermediateVariableSetRequested, fmi3Boolean intermediateVariableGetAllowed,
    fmi3Boolean intermediateStepFinished, fmi3Boolean canReturnEarly,
    fmi3Boolean *earlyReturnRequested, fmi3Float64 *earlyReturnTime);
/** Scheduled Execution only. */
typedef void (*fmi3ClockUpdateCallback)(fmi3InstanceEnvironment instanceEnvironment);
typedef void (*fmi3LockPreemptionCallback)(void);
typedef void (*fmi3UnlockPreemptionCallback)(void);

/* ---- function types (standard 2.3) -------------------------------------------------------- */
/* Every function except fmi3GetVersion and the instantiations takes the instance first.
 * Arrays belong to the caller; nValues counts the scalar values of all the variables named
 * (an array variable contributes all its elements, in row-major order). */

typedef const char *fmi3GetVersionTYPE(void);
typedef fmi3Status fmi3SetDebugLoggingTYPE(fmi3Instance instance, fmi3Boolean loggingOn,
                                           size_t nCategories, const fmi3String categories[]);

/* Instantiation. resourcePath is a native folder path ending in '/', or NULL. */
typedef fmi3Instance fmi3InstantiateModelExchangeTYPE(fmi3String instanceName,
                                                      fmi3String instantiationToken,
                                                      fmi3String resourcePath, fmi3Boolean visible,
                                                      fmi3Boolean loggingOn,
                                                      fmi3InstanceEnvironment instanceEnvironment,
                                                      fmi3LogMessageCallback logMessage);
typedef fmi3Instance fmi3InstantiateCoSimulationTYPE(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
    fmi3Boolean earlyReturnAllowed, const fmi3ValueReference requiredIntermediateVariables[],
    size_t nRequiredIntermediateVariables, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3IntermediateUpdateCallback intermediateUpdate);
typedef fmi3Instance fmi3InstantiateScheduledExecutionTYPE(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback clockUpdate,
    fmi3LockPreemptionCallback lockPreemption, fmi3UnlockPreemptionCallback unlockPreemption);
typedef void fmi3FreeInstanceTYPE(fmi3Instance instance);

/* Initialization (the experiment set-up of FMI 2.0 folded in), events, end. */
typedef fmi3Status fmi3EnterInitializationModeTYPE(fmi3Instance instance,
                                                   fmi3Boolean toleranceDefined,
                                                   fmi3Float64 tolerance, fmi3Float64 startTime,
                                                   fmi3Boolean stopTimeDefined,
                                                   fmi3Float64 stopTime);
typedef fmi3Status fmi3ExitInitializationModeTYPE(fmi3Instance instance);
/* Configuration mode: structural parameters are set there, between instantiation and
 * initialization (FMI 3.0 §3.2, state Configuration Mode). */
typedef fmi3Status fmi3EnterConfigurationModeTYPE(fmi3Instance instance);
typedef fmi3Status fmi3ExitConfigurationModeTYPE(fmi3Instance instance);
typedef fmi3Status fmi3EnterEventModeTYPE(fmi3Instance instance);
typedef fmi3Status fmi3TerminateTYPE(fmi3Instance instance);
typedef fmi3Status fmi3ResetTYPE(fmi3Instance instance);

/* Getters and setters, one pair per type. */
#define FMI3_ACCESS_TYPES(T)                                                                       \
    typedef fmi3Status fmi3Get##T##TYPE(fmi3Instance instance, const fmi3ValueReference vr[],      \
                                        size_t nvr, fmi3##T values[], size_t nValues);             \
    typedef fmi3Status fmi3Set##T##TYPE(fmi3Instance instance, const fmi3ValueReference vr[],      \
                                        size_t nvr, const fmi3##T values[], size_t nValues);
FMI3_ACCESS_TYPES(Float32)
FMI3_ACCESS_TYPES(Float64)
FMI3_ACCESS_TYPES(Int8)
FMI3_ACCESS_TYPES(UInt8)
FMI3_ACCESS_TYPES(Int16)
FMI3_ACCESS_TYPES(UInt16)
FMI3_ACCESS_TYPES(Int32)
FMI3_ACCESS_TYPES(UInt32)
FMI3_ACCESS_TYPES(Int64)
FMI3_ACCESS_TYPES(UInt64)
FMI3_ACCESS_TYPES(Boolean)
FMI3_ACCESS_TYPES(String)
#undef FMI3_ACCESS_TYPES
typedef fmi3Status fmi3GetBinaryTYPE(fmi3Instance instance, const fmi3ValueReference vr[],
                                     size_t nvr, size_t valueSizes[], fmi3Binary values[],
                                     size_t nValues);
typedef fmi3Status fmi3SetBinaryTYPE(fmi3Instance instance, const fmi3ValueReference vr[],
                                     size_t nvr, const size_t valueSizes[],
                                     const fmi3Binary values[], size_t nValues);
typedef fmi3Status fmi3GetClockTYPE(fmi3Instance instance, const fmi3ValueReference vr[],
                                    size_t nvr, fmi3Clock values[]);
typedef fmi3Status fmi3SetClockTYPE(fmi3Instance instance, const fmi3ValueReference vr[],
                                    size_t nvr, const fmi3Clock values[]);

/* FMU state and its serialization. */
typedef fmi3Status fmi3GetFMUStateTYPE(fmi3Instance instance, fmi3FMUState *state);
typedef fmi3Status fmi3SetFMUStateTYPE(fmi3Instance instance, fmi3FMUState state);
typedef fmi3Status fmi3FreeFMUStateTYPE(fmi3Instance instance, fmi3FMUState *state);
typedef fmi3Status fmi3SerializedFMUStateSizeTYPE(fmi3Instance instance, fmi3FMUState state,
                                                  size_t *size);
typedef fmi3Status fmi3SerializeFMUStateTYPE(fmi3Instance instance, fmi3FMUState state,
                                             fmi3Byte serializedState[], size_t size);
typedef fmi3Status fmi3DeserializeFMUStateTYPE(fmi3Instance instance,
                                               const fmi3Byte serializedState[], size_t size,
                                               fmi3FMUState *state);

/* Partial derivatives: sensitivity = (d unknowns / d knowns) seed. */
typedef fmi3Status
fmi3GetDirectionalDerivativeTYPE(fmi3Instance instance, const fmi3ValueReference unknowns[],
                                 size_t nUnknowns, const fmi3ValueReference knowns[],
                                 size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
                                 fmi3Float64 sensitivity[], size_t nSensitivity);

/* Clocks (time-based ones are read, input clocks set). */
typedef fmi3Status fmi3GetIntervalDecimalTYPE(fmi3Instance instance, const fmi3ValueReference vr[],
                                              size_t nvr, fmi3Float64 intervals[],
                                              fmi3IntervalQualifier qualifiers[]);
typedef fmi3Status fmi3GetShiftDecimalTYPE(fmi3Instance instance, const fmi3ValueReference vr[],
                                           size_t nvr, fmi3Float64 shifts[]);

/* Discrete states (Model Exchange, and Co-Simulation in event mode). */
typedef fmi3Status fmi3UpdateDiscreteStatesTYPE(
    fmi3Instance instance, fmi3Boolean *discreteStatesNeedUpdate, fmi3Boolean *terminateSimulation,
    fmi3Boolean *nominalsOfContinuousStatesChanged, fmi3Boolean *valuesOfContinuousStatesChanged,
    fmi3Boolean *nextEventTimeDefined, fmi3Float64 *nextEventTime);

/* Model Exchange only (standard 3.2). */
typedef fmi3Status fmi3EnterContinuousTimeModeTYPE(fmi3Instance instance);
typedef fmi3Status fmi3CompletedIntegratorStepTYPE(fmi3Instance instance,
                                                   fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                                   fmi3Boolean *enterEventMode,
                                                   fmi3Boolean *terminateSimulation);
typedef fmi3Status fmi3SetTimeTYPE(fmi3Instance instance, fmi3Float64 time);
typedef fmi3Status fmi3SetContinuousStatesTYPE(fmi3Instance instance,
                                               const fmi3Float64 continuousStates[],
                                               size_t nContinuousStates);
typedef fmi3Status fmi3GetContinuousStateDerivativesTYPE(fmi3Instance instance,
                                                         fmi3Float64 derivatives[],
                                                         size_t nContinuousStates);
typedef fmi3Status fmi3GetEventIndicatorsTYPE(fmi3Instance instance, fmi3Float64 eventIndicators[],
                                              size_t nEventIndicators);
typedef fmi3Status fmi3GetContinuousStatesTYPE(fmi3Instance instance,
                                               fmi3Float64 continuousStates[],
                                               size_t nContinuousStates);
typedef fmi3Status fmi3GetNominalsOfContinuousStatesTYPE(fmi3Instance instance,
                                                         fmi3Float64 nominals[],
                                                         size_t nContinuousStates);
typedef fmi3Status fmi3GetNumberOfEventIndicatorsTYPE(fmi3Instance instance,
                                                      size_t *nEventIndicators);
typedef fmi3Status fmi3GetNumberOfContinuousStatesTYPE(fmi3Instance instance,
                                                       size_t *nContinuousStates);

/* Co-Simulation only (standard 4.2). */
typedef fmi3Status fmi3EnterStepModeTYPE(fmi3Instance instance);
typedef fmi3Status fmi3GetOutputDerivativesTYPE(fmi3Instance instance,
                                                const fmi3ValueReference vr[], size_t nvr,
                                                const fmi3Int32 orders[], fmi3Float64 values[],
                                                size_t nValues);
typedef fmi3Status fmi3DoStepTYPE(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                                  fmi3Float64 communicationStepSize,
                                  fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                  fmi3Boolean *eventHandlingNeeded,
                                  fmi3Boolean *terminateSimulation, fmi3Boolean *earlyReturn,
                                  fmi3Float64 *lastSuccessfulTime);

/* FMI3_EXPORT gives an FMU's fmi3* functions default visibility (Tempo builds with
 * -fvisibility=hidden); an FMU source declares each as `FMI3_EXPORT fmi3DoStepTYPE
 * fmi3DoStep;` so that its definition is checked against the type above. */
#if defined(__GNUC__) || defined(__clang__)
#define FMI3_EXPORT __attribute__((visibility("default")))
#else
#define FMI3_EXPORT
#endif

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_FEDERATE_FMI3_H */
