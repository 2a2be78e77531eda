/* SSP reader: a System Structure and Parameterization system (an .ssp archive or an unpacked
 * SystemStructure.ssd) translated into the JSON document of a federation file (a jansson
 * object), which fedfile.c then parses like any other. The mapping and every refusal are
 * doc/ssp.md. Read federate/config/ssp.c next.
 */
#ifndef TEMPO_FEDERATE_CONFIG_SSP_H
#define TEMPO_FEDERATE_CONFIG_SSP_H

#include <stddef.h>

/** A path names an SSP: it ends in ".ssp" or ".ssd" (case-insensitive). */
int ssp_is_ssp_path(const char *path);

/**
 * Read an SSP and build the federation document: "federation" (the system's name),
 * "algorithm" {"method": "jacobi", "start", "end", "step"} from the DefaultExperiment (step:
 * the Tempo annotation, else (stop - start) / 1000 rounded to whole nanoseconds), and
 * "federates" (one per component, dotted paths of nested systems joined with "-", with
 * "fmu", "parameters", "outputs", "inputs", and the Tempo annotation's settings).
 * @param path    the .ssp archive or the .ssd file, not NULL
 * @param need_end 1: a missing stopTime is refused (no federation file supplies "end")
 * @param doc     out: a json_t * object, owned by the caller (json_decref)
 * @param tmpdir  out: the folder an archive was unpacked into (the FMU paths point inside it;
 *                remove it with fmu_zip_remove_tree once the FMUs are loaded), or NULL for an
 *                .ssd; malloc'd, caller frees
 * @param err     on failure "FILE:LINE: /ssd:System/...: what" naming the element at fault
 * @param errlen  its size
 * @return 0; -1 refused (err says why), -2 out of memory or system error.
 */
int ssp_load(const char *path, int need_end, void **doc, char **tmpdir, char *err, size_t errlen);

/**
 * The document of a federation file that names a system ("system": "plant.ssp"): the SSP's
 * document (ssp_load) with the file's own keys laid over it (doc/ssp.md): "algorithm" keeps
 * the SSP's start, end and step unless it gives them; the keys an SSP defines ("federates",
 * "fom") are refused.
 * @param user    the federation file's JSON object (json_t *), not NULL
 * @param dir     its folder ("system" resolves against it)
 * @param doc, tmpdir, err, errlen as for ssp_load
 * @return 0; -1 refused; -2 out of memory.
 */
int ssp_merge_system(void *user, const char *dir, void **doc, char **tmpdir, char *err,
                     size_t errlen);

/**
 * Write a federation file's system as an SSP archive (doc/ssp.md, "Export"):
 * SystemStructure.ssd with one component per FMU federate (its FMU copied to
 * resources/NAME.fmu), connectors for its inputs, outputs and parameters, one connection per
 * wired input, the parameters inline, the DefaultExperiment from algorithm.start and end, and
 * the Tempo annotation (algorithm, solver, resolution; per federate solver, record, quantum,
 * role) that makes the archive run the same. The caller checks the file first (fedfile_load).
 * @param path   the federation file (JSON), not NULL
 * @param out    the .ssp to write (replaced)
 * @param err    on failure "PATH: what"; errlen its size
 * @return 0; -1 refused (a program federate, a file naming a system, not JSON); -2 system
 *         error (writing the archive, an FMU that cannot be read, memory).
 */
int ssp_export(const char *path, const char *out, char *err, size_t errlen);

#endif
