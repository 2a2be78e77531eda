/* The process guard of an FMU host: an FMU (or a library it uses) that calls exit() or
 * crashes in the middle of a run must not pass for a finished run (doc/robustness.md,
 * "Faults inside an FMU"). Programs that host FMUs (tempo-fmu, tempo-master) install it once
 * and mark their run; fmu_step marks each load and step. Read federate/fmu/fmu_guard.c next.
 */
#ifndef TEMPO_FEDERATE_FMU_FMU_GUARD_H
#define TEMPO_FEDERATE_FMU_FMU_GUARD_H

/* Status a guarded process ends with when exit() is called during its run: the run failed. */
#define FMU_GUARD_EXIT_STATUS 1

/**
 * Install the guard, once per process, before anything else is registered with atexit (so
 * that the other exit handlers, the embedded RTI's flush of its federation log included, run
 * before it). From then on:
 *  - exit() called while a run is marked (fmu_guard_run) or inside an FMU call
 *    (fmu_guard_enter) prints "PROGRAM: WHO: the process is ending in the middle of the run:
 *    exit(S) was called (by the FMU or a library it uses), not by PROGRAM", flushes every
 *    stdio stream (the CSVs hold whole rows) and ends the process with FMU_GUARD_EXIT_STATUS;
 *  - SIGSEGV, SIGBUS, SIGILL, SIGFPE or SIGABRT inside an FMU call prints "PROGRAM: WHO:
 *    SIGNAL inside the FMU (CALL)"; then, inside a call or not, the signal goes to the action
 *    it had before (the default: the process dies of it; a sanitizer's: its report).
 * @param program the program's name for the messages (kept, not copied: a literal)
 */
void fmu_guard_install(const char *program);

/** Mark (on = 1) or unmark (on = 0) the run of the whole process: exit() in between is an
 *  early end. who names the run for the message (a federate, a federation); copied. */
void fmu_guard_run(int on, const char *who);

/** The calling thread enters an FMU call: who (the federate or instance, kept, not copied:
 *  it must outlive the call) and call (a literal). Returns the previous marks' depth, to
 *  pass to fmu_guard_leave. Costs two thread-local stores. */
int fmu_guard_enter(const char *who, const char *call);

/** The calling thread leaves the FMU call entered with fmu_guard_enter (depth: its value). */
void fmu_guard_leave(int depth);

#endif
