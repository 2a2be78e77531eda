/* Loading an FMI 2.0 FMU: unpack (fmu_zip), read modelDescription.xml (fmu_md), dlopen the
 * binary for this platform and resolve the functions the chosen kind needs.
 * Serves doc/fmu.md. Read next: federate/fmu/fmu_step.h (what runs a loaded FMU). */
#ifndef TEMPO_FEDERATE_FMU_LOAD_H
#define TEMPO_FEDERATE_FMU_LOAD_H

#include <limits.h>
#include <stddef.h>

#include "federate/fmu/fmi2.h"
#include "federate/fmu/fmi3.h"
#include "federate/fmu/fmu_md.h"
#include "federate/fmu/fmu_zip.h"

/** Size of every error buffer in the FMU modules. */
#define FMU_ERR_LEN 512

/** Which interface of the FMU to use. */
typedef enum {
    FMU_KIND_AUTO = 0, /* CoSimulation if the FMU has it, else ModelExchange */
    FMU_KIND_ME = 1,
    FMU_KIND_CS = 2
} fmu_kind;

/** Log levels of FMU messages (mapped from fmi2Status). */
enum { FMU_LOG_ERROR = 0, FMU_LOG_WARN = 1, FMU_LOG_INFO = 2, FMU_LOG_DEBUG = 3 };

/** Receives one formatted FMU log line; category is the FMU's (may be ""), never NULL. */
typedef void fmu_log_fn(void *ctx, int level, const char *instance, const char *category,
                        const char *msg);

/** Where an instance's fmi2 logger lands; passed as the fmi2ComponentEnvironment. */
typedef struct {
    fmu_log_fn *fn;       /* NULL: messages are dropped (the last error is still kept) */
    void *ctx;            /* handed to fn */
    char last_error[256]; /* last message logged with fmi2Error/fmi2Fatal, "" if none */
} fmu_log_sink;

/** The functions of FMI 2.0; NULL when not needed by the kind/capabilities and absent. */
typedef struct {
    fmi2GetTypesPlatformTYPE *GetTypesPlatform;
    fmi2GetVersionTYPE *GetVersion;
    fmi2SetDebugLoggingTYPE *SetDebugLogging;
    fmi2InstantiateTYPE *Instantiate;
    fmi2FreeInstanceTYPE *FreeInstance;
    fmi2SetupExperimentTYPE *SetupExperiment;
    fmi2EnterInitializationModeTYPE *EnterInitializationMode;
    fmi2ExitInitializationModeTYPE *ExitInitializationMode;
    fmi2TerminateTYPE *Terminate;
    fmi2ResetTYPE *Reset;
    fmi2GetRealTYPE *GetReal;
    fmi2GetIntegerTYPE *GetInteger;
    fmi2GetBooleanTYPE *GetBoolean;
    fmi2GetStringTYPE *GetString;
    fmi2SetRealTYPE *SetReal;
    fmi2SetIntegerTYPE *SetInteger;
    fmi2SetBooleanTYPE *SetBoolean;
    fmi2SetStringTYPE *SetString;
    fmi2GetFMUstateTYPE *GetFMUstate;
    fmi2SetFMUstateTYPE *SetFMUstate;
    fmi2FreeFMUstateTYPE *FreeFMUstate;
    fmi2SerializedFMUstateSizeTYPE *SerializedFMUstateSize;
    fmi2SerializeFMUstateTYPE *SerializeFMUstate;
    fmi2DeSerializeFMUstateTYPE *DeSerializeFMUstate;
    fmi2GetDirectionalDerivativeTYPE *GetDirectionalDerivative;
    fmi2EnterEventModeTYPE *EnterEventMode;
    fmi2NewDiscreteStatesTYPE *NewDiscreteStates;
    fmi2EnterContinuousTimeModeTYPE *EnterContinuousTimeMode;
    fmi2CompletedIntegratorStepTYPE *CompletedIntegratorStep;
    fmi2SetTimeTYPE *SetTime;
    fmi2SetContinuousStatesTYPE *SetContinuousStates;
    fmi2GetDerivativesTYPE *GetDerivatives;
    fmi2GetEventIndicatorsTYPE *GetEventIndicators;
    fmi2GetContinuousStatesTYPE *GetContinuousStates;
    fmi2GetNominalsOfContinuousStatesTYPE *GetNominalsOfContinuousStates;
    fmi2SetRealInputDerivativesTYPE *SetRealInputDerivatives;
    fmi2GetRealOutputDerivativesTYPE *GetRealOutputDerivatives;
    fmi2DoStepTYPE *DoStep;
    fmi2CancelStepTYPE *CancelStep;
    fmi2GetStatusTYPE *GetStatus;
    fmi2GetRealStatusTYPE *GetRealStatus;
    fmi2GetIntegerStatusTYPE *GetIntegerStatus;
    fmi2GetBooleanStatusTYPE *GetBooleanStatus;
    fmi2GetStringStatusTYPE *GetStringStatus;
} fmu_fns;

/** The functions of FMI 3.0 an FMU of that version exports (fmu_v3.c calls them); NULL when
 * absent and not required. */
typedef struct {
    fmi3GetVersionTYPE *GetVersion;
    fmi3SetDebugLoggingTYPE *SetDebugLogging;
    fmi3InstantiateModelExchangeTYPE *InstantiateModelExchange;
    fmi3InstantiateCoSimulationTYPE *InstantiateCoSimulation;
    fmi3FreeInstanceTYPE *FreeInstance;
    fmi3EnterInitializationModeTYPE *EnterInitializationMode;
    fmi3ExitInitializationModeTYPE *ExitInitializationMode;
    fmi3EnterConfigurationModeTYPE *EnterConfigurationMode;
    fmi3ExitConfigurationModeTYPE *ExitConfigurationMode;
    fmi3EnterEventModeTYPE *EnterEventMode;
    fmi3TerminateTYPE *Terminate;
    fmi3ResetTYPE *Reset;
    fmi3GetFloat32TYPE *GetFloat32;
    fmi3GetFloat64TYPE *GetFloat64;
    fmi3GetInt8TYPE *GetInt8;
    fmi3GetUInt8TYPE *GetUInt8;
    fmi3GetInt16TYPE *GetInt16;
    fmi3GetUInt16TYPE *GetUInt16;
    fmi3GetInt32TYPE *GetInt32;
    fmi3GetUInt32TYPE *GetUInt32;
    fmi3GetInt64TYPE *GetInt64;
    fmi3GetUInt64TYPE *GetUInt64;
    fmi3GetBooleanTYPE *GetBoolean;
    fmi3GetStringTYPE *GetString;
    fmi3GetBinaryTYPE *GetBinary;
    fmi3GetClockTYPE *GetClock;
    fmi3SetFloat32TYPE *SetFloat32;
    fmi3SetFloat64TYPE *SetFloat64;
    fmi3SetInt8TYPE *SetInt8;
    fmi3SetUInt8TYPE *SetUInt8;
    fmi3SetInt16TYPE *SetInt16;
    fmi3SetUInt16TYPE *SetUInt16;
    fmi3SetInt32TYPE *SetInt32;
    fmi3SetUInt32TYPE *SetUInt32;
    fmi3SetInt64TYPE *SetInt64;
    fmi3SetUInt64TYPE *SetUInt64;
    fmi3SetBooleanTYPE *SetBoolean;
    fmi3SetStringTYPE *SetString;
    fmi3SetBinaryTYPE *SetBinary;
    fmi3SetClockTYPE *SetClock;
    fmi3GetFMUStateTYPE *GetFMUState;
    fmi3SetFMUStateTYPE *SetFMUState;
    fmi3FreeFMUStateTYPE *FreeFMUState;
    fmi3SerializedFMUStateSizeTYPE *SerializedFMUStateSize;
    fmi3SerializeFMUStateTYPE *SerializeFMUState;
    fmi3DeserializeFMUStateTYPE *DeserializeFMUState;
    fmi3GetDirectionalDerivativeTYPE *GetDirectionalDerivative;
    fmi3GetIntervalDecimalTYPE *GetIntervalDecimal;
    fmi3GetShiftDecimalTYPE *GetShiftDecimal;
    fmi3UpdateDiscreteStatesTYPE *UpdateDiscreteStates;
    fmi3EnterContinuousTimeModeTYPE *EnterContinuousTimeMode;
    fmi3CompletedIntegratorStepTYPE *CompletedIntegratorStep;
    fmi3SetTimeTYPE *SetTime;
    fmi3SetContinuousStatesTYPE *SetContinuousStates;
    fmi3GetContinuousStateDerivativesTYPE *GetContinuousStateDerivatives;
    fmi3GetEventIndicatorsTYPE *GetEventIndicators;
    fmi3GetContinuousStatesTYPE *GetContinuousStates;
    fmi3GetNominalsOfContinuousStatesTYPE *GetNominalsOfContinuousStates;
    fmi3EnterStepModeTYPE *EnterStepMode;
    fmi3GetOutputDerivativesTYPE *GetOutputDerivatives;
    fmi3DoStepTYPE *DoStep;
} fmu_fns3;

/** A loaded FMU (one kind chosen). Fields are read-only for users. For an FMI 3.0 FMU, fn
 * holds adapters (fmu_v3.c) that take the wrapper fmu_v3_instantiate returns as their
 * fmi2Component and call fn3, so that the stepping code calls both versions alike. */
typedef struct {
    char dir[PATH_MAX];               /* private unpacked folder, removed by fmu_unload */
    char resource_uri[PATH_MAX + 32]; /* "file://<dir>/resources" for fmi2Instantiate */
    fmu_md *md;                       /* the description, owned */
    fmu_kind kind;                    /* FMU_KIND_ME or FMU_KIND_CS */
    const fmu_caps *caps;             /* &md->me or &md->cs */
    void *so;                         /* dlopen handle */
    fmu_fns fn;                       /* resolved functions (FMI 3.0: adapters) */
    fmu_fns3 fn3;                     /* FMI 3.0: the FMU's own functions */
} fmu_file;

/**
 * Load an FMU: unpack, parse, dlopen binaries/linux64/<modelIdentifier>.so (FMI 3.0:
 * binaries/x86_64-linux/<modelIdentifier>.so), resolve functions.
 * Functions always required: every common and kind-specific function of FMI 2.0 except those
 * whose capability is off (FMU state when !canGetAndSetFMUstate, serialization when
 * !canSerializeFMUstate, directional derivatives when !providesDirectionalDerivative, input
 * derivatives when !canInterpolateInputs, output derivatives when maxOutputDerivativeOrder=0,
 * fmi2CancelStep and fmi2Get*Status which are looked up but optional).
 * @param path    the .fmu file
 * @param kind    which interface to use (AUTO picks CS, else ME)
 * @param limits  unpacking limits, NULL for defaults
 * @param out     receives the loaded FMU (free with fmu_unload), NULL on failure
 * @param err     receives the reason (file, entry, line, element or function name); errlen >= 1
 * @return 0; -1 bad or unsupported FMU (zip, description, kind absent, binary or function
 *         missing); -2 system error or out of memory. Nothing is left on disk on failure.
 */
int fmu_load(const char *path, fmu_kind kind, const fmu_zip_limits *limits, fmu_file **out,
             char *err, size_t errlen);

/**
 * Read only the description of an FMU: unpack (same checks and limits as fmu_load), parse
 * modelDescription.xml, remove the folder. No binary is loaded. For checks that need the
 * variables but not the model (e.g. fedfile_check_fmu in federate/config/fedfile.h).
 * @param out  receives the description (free with fmu_md_free), NULL on failure
 * @return 0; -1 bad FMU (err names file, entry, line, element); -2 system error.
 */
int fmu_load_md(const char *path, const fmu_zip_limits *limits, fmu_md **out, char *err,
                size_t errlen);

/**
 * The description of a loaded FMI 3.0 FMU read again with the arrays sized by structural
 * parameters set to other values than their starts (fmu_md_parse_sized), for one instance.
 * @param out receives it (fmu_md_free), NULL on failure
 * @return 0; -1 (err: the line and reason, as fmu_md_parse); -2 out of memory.
 */
int fmu_load_md_sized(const fmu_file *f, const fmu_md_size *sizes, size_t n, fmu_md **out,
                      char *err, size_t errlen);

/** dlclose, remove the unpacked folder, free. Accepts NULL. Instances must be freed first. */
void fmu_unload(fmu_file *f);

/** The fmi2CallbackLogger Tempo passes to FMUs: env must be an fmu_log_sink. */
void fmu_load_logger(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
                     fmi2String category, fmi2String message, ...);

/** One log line of an FMU (either version) into sink; status as fmi2Status (FMI 3.0's values
 * are the same). */
void fmu_load_log_line(fmu_log_sink *sink, const char *instance, fmi2Status status,
                       const char *category, const char *line);

/** "fmi2OK", "fmi2Discard", ... */
const char *fmu_load_status_name(fmi2Status s);

#endif /* TEMPO_FEDERATE_FMU_LOAD_H */
