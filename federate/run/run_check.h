/* What tempo-run checks before it starts any process, beyond the federation file's own checks
 * (the FOM file, the output folder), and the lock that keeps two runs out of one output
 * folder. Serves doc/run.md ("What it does"). Read federate/run/run_check.c next. */
#ifndef TEMPO_FEDERATE_RUN_RUN_CHECK_H
#define TEMPO_FEDERATE_RUN_RUN_CHECK_H

#include <stddef.h>

#include "federate/fmu/fmu_md.h"

#define RUN_LOCK_NAME ".tempo-run.lock" /* file in the output folder that tempo-run locks */

/**
 * Check that the FOM file (NULL: generated, nothing to check) is a readable regular file, and
 * that the output folder is a folder or can be made one (it is created, parents included).
 * @return 0, or -1 with err naming the file or folder and the fault.
 */
int run_check_files(const char *fom, const char *outdir, char *err, size_t errlen);

struct fedfile;

/**
 * Check the names the run will write in the output folder before anything starts: every
 * "<federate>.csv", "plot.svg" and, when @p master (a master method), "master.csv" must not
 * be a symbolic link (refused, naming its target: the run never writes through one;
 * rti/proto/outfile.h; whatever else stands there is refused by the program that writes it). The
 * folder's own warning (writable by its group, owned by another user), when it has one, is written
 * into @p warn ("" when none; warnlen bytes).
 * @return 0, or -1 with err naming the file.
 */
int run_check_outputs(const struct fedfile *ff, const char *outdir, int master, char *warn,
                      size_t warnlen, char *err, size_t errlen);

/** 1 when process pid is stopped (SIGSTOP, a debugger: state T or t in /proc/PID/stat), else 0.
 *  Names the culprit when a run times out. */
int run_proc_stopped(int pid);

#define RUN_RTI_NAME_MAX 127 /* bytes of a name the RTI takes (doc/rti.md "Federations") */

/**
 * Check the names the federates will give the RTI against its limit: "federate.Class", the
 * name of the object a peer federate registers for each class it publishes, must fit in
 * RUN_RTI_NAME_MAX bytes (the federation file itself limits the names alone).
 * @return 0, or -1 with err naming the federate, the object name and its length.
 */
int run_check_names(const struct fedfile *ff, char *err, size_t errlen);

/**
 * Check the parameter values federate i of the file sets against its FMU's modelDescription,
 * beyond their types (fedfile_check_fmu): a Real value must be a normal number or zero (a
 * subnormal, below 2.2e-308 in magnitude, is refused: no model parameter means it, and an FMU's
 * arithmetic on it is slow or flushed to zero), and every Real, Integer or Enumeration value
 * must lie within the variable's min and max when the FMU declares them.
 * @param md the FMU's description (fmu_load_md), not NULL
 * @return 0, or -1 with err naming the file, the JSON path, the value and the bound.
 */
int run_check_params(const struct fedfile *ff, size_t i, const fmu_md *md, char *err,
                     size_t errlen);

/**
 * Lock the output folder for this run: an flock(2) on outdir/RUN_LOCK_NAME, held until *fd is
 * closed (at exit at the latest). The file holds the pid of the run that holds it; it is left
 * in place afterwards (removing it would let two later runs lock two different files).
 * @param fd receives the lock's descriptor.
 * @return 0, or -1 with err saying the folder is in use by another tempo-run (its pid).
 */
int run_lock_output(const char *outdir, int *fd, char *err, size_t errlen);

#endif
