/* modelDescription.xml of an FMI 2.0 or 3.0 FMU: the parsed, checked description, one shape
 * for both versions (an FMI 3.0 array is one fmu_var per element).
 * Serves doc/fmu.md (and doc/contributing.md §7: a pure decoder from bytes to a struct or an
 * error). Read next: federate/fmu/fmu_md.c (the checks), then federate/fmu/fmu_load.h (who calls
 * it). */
#ifndef TEMPO_FEDERATE_FMU_MD_H
#define TEMPO_FEDERATE_FMU_MD_H

#include <stddef.h>

/** Largest modelDescription.xml fmu_md_parse accepts (bytes). */
#define FMU_MD_MAX_BYTES (64u * 1024u * 1024u)

/** Variable types. The first five are FMI 2.0's (FMI 3.0's Float64 is FMU_T_REAL, Int32
 * FMU_T_INTEGER, its Enumeration, an Int64, FMU_T_ENUM); the others exist in FMI 3.0 only. */
typedef enum {
    FMU_T_REAL,
    FMU_T_INTEGER,
    FMU_T_BOOLEAN,
    FMU_T_STRING,
    FMU_T_ENUM,
    FMU_T_FLOAT32,
    FMU_T_INT8,
    FMU_T_UINT8,
    FMU_T_INT16,
    FMU_T_UINT16,
    FMU_T_UINT32,
    FMU_T_INT64,
    FMU_T_UINT64,
    FMU_T_BINARY,
    FMU_T_CLOCK,
    FMU_T_NTYPES
} fmu_vtype;

/** FMI 3.0 clock kinds (the intervalVariability attribute of a Clock). */
typedef enum {
    FMU_CLOCK_NONE = 0, /* not a clock */
    FMU_CLOCK_CONSTANT,
    FMU_CLOCK_FIXED,
    FMU_CLOCK_TUNABLE,
    FMU_CLOCK_CHANGING,
    FMU_CLOCK_COUNTDOWN,
    FMU_CLOCK_TRIGGERED
} fmu_clock_kind;

typedef enum {
    FMU_C_PARAMETER,
    FMU_C_CALCULATED_PARAMETER,
    FMU_C_INPUT,
    FMU_C_OUTPUT,
    FMU_C_LOCAL,
    FMU_C_INDEPENDENT
} fmu_causality;

typedef enum {
    FMU_V_CONSTANT,
    FMU_V_FIXED,
    FMU_V_TUNABLE,
    FMU_V_DISCRETE,
    FMU_V_CONTINUOUS
} fmu_variability;

typedef enum { FMU_I_NONE, FMU_I_EXACT, FMU_I_APPROX, FMU_I_CALCULATED } fmu_initial;

/** One ScalarVariable (FMI 2.0), or one scalar or one array element (FMI 3.0). Strings are
 * owned by the fmu_md (each element has its own copies). */
typedef struct {
    char *name;                  /* unique within the FMU */
    char *description;           /* NULL when absent */
    unsigned vr;                 /* valueReference */
    fmu_vtype type;              /* the type element */
    fmu_causality causality;     /* default local */
    fmu_variability variability; /* default continuous */
    fmu_initial initial;         /* FMU_I_NONE when the attribute is absent */
    char *declared_type;         /* declaredType, NULL when absent */
    int has_start;               /* start attribute present */
    double start_real;           /* Real start */
    long start_int;              /* Integer/Enumeration start; Boolean start as 0/1 */
    char *start_str;             /* String start; FMI 3.0: the start value's text for every type (an
                                    array's element alone, Binary in hex); NULL when absent */
    char *unit;                  /* Real unit attribute, NULL when absent */
    int has_min, has_max;        /* min/max attributes present (Real, Integer, Enumeration) */
    double min, max;             /* the bounds (Integer and Enumeration as exact doubles) */
    int derivative; /* 1-based index of the variable this is the derivative of, 0 none */
    int line;       /* line of the ScalarVariable element */
    /* FMI 3.0 arrays: the variable with value reference vr has n_elems values in row-major
     * order; this one is element elem (0-based) and its name carries the indices ("v[2,3]",
     * 1-based). A scalar has n_elems 0 and elem 0. */
    size_t elem, n_elems;
    fmu_clock_kind clock;    /* Clock variables: their kind; else FMU_CLOCK_NONE */
    int has_interval;        /* Clock: intervalDecimal given */
    double interval, shift;  /* Clock: intervalDecimal, shiftDecimal (s) */
    int intermediate_update; /* FMI 3.0 intermediateUpdate="true" */
    int structural;          /* FMI 3.0 causality="structuralParameter" (causality is
                                FMU_C_PARAMETER): set in configuration mode, may size arrays */
} fmu_var;

/** One ModelStructure Unknown (Outputs, Derivatives or InitialUnknowns). */
typedef struct {
    int index;     /* 1-based ScalarVariable index */
    int has_deps;  /* dependencies attribute present (absent = depends on everything) */
    size_t n_deps; /* entries in deps */
    int *deps;     /* 1-based indices of knowns */
} fmu_unknown;

/** The capability flags of one interface kind (ModelExchange or CoSimulation element). */
typedef struct {
    int present;            /* element exists */
    char *model_identifier; /* names the binary */
    int needs_execution_tool;
    int can_be_instantiated_only_once_per_process;
    int can_not_use_memory_management_functions;
    int can_get_and_set_fmu_state;
    int can_serialize_fmu_state;
    int provides_directional_derivative;
    int completed_integrator_step_not_needed;        /* ME only */
    int can_handle_variable_communication_step_size; /* CS only */
    int can_interpolate_inputs;                      /* CS only */
    int max_output_derivative_order;                 /* CS only, 0 when absent */
    int can_run_asynchronuously;                     /* CS only (spelled as in the standard) */
    /* FMI 3.0 only (0 for FMI 2.0). */
    int has_event_mode;                    /* CS hasEventMode */
    int provides_intermediate_update;      /* CS providesIntermediateUpdate */
    int can_return_early;                  /* CS canReturnEarlyAfterIntermediateUpdate */
    int has_fixed_internal_step;           /* CS fixedInternalStepSize given */
    double fixed_internal_step;            /* its value (s) */
    int provides_evaluate_discrete_states; /* ME/CS providesEvaluateDiscreteStates */
} fmu_caps;

/** The whole description. Free with fmu_md_free. */
typedef struct {
    char *fmi_version; /* "2.0" or "3.0" */
    int fmi3;          /* fmiVersion is 3.0: the FMU is called through fmi3* functions */
    int se_present;    /* FMI 3.0: a ScheduledExecution element exists (not supported) */
    char *model_name;
    char *guid;             /* guid (2.0) or instantiationToken (3.0) */
    char *description;      /* NULL when absent */
    char *generation_tool;  /* NULL when absent */
    int n_event_indicators; /* numberOfEventIndicators */
    fmu_caps me, cs;
    int has_start, has_stop, has_tolerance, has_step;   /* DefaultExperiment attributes present */
    double start_time, stop_time, tolerance, step_size; /* DefaultExperiment values (s, -, s) */
    size_t n_log_categories;
    char **log_categories; /* names */
    size_t n_types;
    char **type_names; /* TypeDefinitions/SimpleType names */
    size_t n_vars;
    fmu_var *vars;
    size_t n_outputs, n_derivatives, n_initial_unknowns;
    fmu_unknown *outputs, *derivatives, *initial_unknowns;
    size_t n_states;       /* = n_derivatives */
    int *state_index;      /* 0-based var index of state i (the var derivatives[i] is der of) */
    size_t n_clocks;       /* FMI 3.0 Clock variables */
    int *clocks;           /* their 0-based var indices */
    unsigned elem_vr_base; /* FMI 3.0 with arrays: the handle of array element k is
                              elem_vr_base + k (above every value reference of the FMU;
                              fmu_md_wire_vr); 0: no handles (no array, or no room) */
} fmu_md;

/**
 * Parse and check a modelDescription.xml held in memory. No network access, nothing printed.
 * @param buf  the bytes (need not be NUL-terminated); @param len their count
 * @param out  receives a new fmu_md owned by the caller (fmu_md_free), NULL on failure
 * @param err  caller buffer receiving, on failure, "modelDescription.xml:LINE: <element>: reason"
 * @param errlen its size
 * @return 0 on success; -1 when the XML is malformed, the FMI version is not 2.0, or the
 *         description is incomplete or inconsistent (see doc/fmu.md for every check);
 *         -2 when out of memory.
 */
int fmu_md_parse(const char *buf, size_t len, fmu_md **out, char *err, size_t errlen);

/** A structural parameter's value other than its start, for fmu_md_parse_sized. */
typedef struct {
    unsigned vr;         /* value reference of the structural parameter */
    unsigned long value; /* the size it gives the dimensions that name it */
} fmu_md_size;

/**
 * fmu_md_parse, with the dimensions that name one of the n structural parameters of sizes
 * sized by the value given there instead of the parameter's start (FMI 3.0 §2.4.7.6: a
 * structural parameter set in configuration mode resizes the arrays it sizes), and that
 * parameter's start value replaced too. @return as fmu_md_parse.
 */
int fmu_md_parse_sized(const char *buf, size_t len, const fmu_md_size *sizes, size_t n,
                       fmu_md **out, char *err, size_t errlen);

/** Free a description; accepts NULL. */
void fmu_md_free(fmu_md *md);

/** 0-based index of the variable called name, or -1. O(n). */
long fmu_md_find(const fmu_md *md, const char *name);

/** 0-based index of the first element of the FMI 3.0 array called name ("v" finds "v[1]" or
 * "v[1,1]"), or -1. O(n). */
long fmu_md_find_array(const fmu_md *md, const char *name);

/** 0-based index of the first variable with this type and value reference, or -1. O(n). */
long fmu_md_find_vr(const fmu_md *md, fmu_vtype type, unsigned vr);

/** The initial attribute in effect: the variable's own, else the standard's default for its
 * causality and variability (FMI 2.0 §2.2.7: parameters and constants exact, outputs and
 * locals calculated; inputs and the independent variable FMU_I_NONE). */
fmu_initial fmu_md_initial(const fmu_var *v);

/** Names for messages ("Real", "output", "continuous", ...). */
const char *fmu_md_type_name(fmu_vtype t);
/** The type's name as the FMU's version spells it: "Float64" and "Int32" for FMI 3.0's
 * FMU_T_REAL and FMU_T_INTEGER, else fmu_md_type_name. */
const char *fmu_md_type_name_of(const fmu_md *md, fmu_vtype t);
/** The 0-based index of the first element of the variable with value reference vr (FMI 3.0
 * value references are unique across types), or -1. O(n). */
long fmu_md_find_any_vr(const fmu_md *md, unsigned vr);
/** The value reference by which the stepping interface (fmu_step_get_real, fmu_step_set_real,
 * the inputs of a step) reaches variable k: its own for a scalar; for an FMI 3.0 array
 * element a handle above the FMU's value references (elem_vr_base + k), which the FMI 3.0
 * adapters turn into a read or write of that element. @return 0; -1 when k is an array
 * element and the FMU left no room for handles. */
int fmu_md_wire_vr(const fmu_md *md, long k, unsigned *vr);
/** The variable index an element handle names, or -1 (not a handle). */
long fmu_md_elem_of_vr(const fmu_md *md, unsigned vr);
const char *fmu_md_causality_name(fmu_causality c);
const char *fmu_md_variability_name(fmu_variability v);
const char *fmu_md_initial_name(fmu_initial i); /* "" for FMU_I_NONE */

#endif /* TEMPO_FEDERATE_FMU_MD_H */
