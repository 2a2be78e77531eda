/* Safe unpacking of an .fmu (zip) archive into a private temporary folder, and its removal.
 * Serves doc/fmu.md (untrusted input, doc/contributing.md §7). Read next: federate/fmu/fmu_zip.c,
 * then federate/fmu/fmu_load.h. */
#ifndef TEMPO_FEDERATE_FMU_ZIP_H
#define TEMPO_FEDERATE_FMU_ZIP_H

#include <stddef.h>
#include <stdint.h>

/** Limits on what an archive may hold; a zero field means the default in brackets. */
typedef struct {
    uint64_t max_entry_bytes; /* uncompressed size of one entry [256 MiB] */
    uint64_t max_total_bytes; /* uncompressed size of all entries [1 GiB] */
    uint64_t max_entries;     /* number of entries [10000] */
} fmu_zip_limits;

#define FMU_ZIP_DEFAULT_ENTRY_BYTES (256ull << 20)
#define FMU_ZIP_DEFAULT_TOTAL_BYTES (1ull << 30)
#define FMU_ZIP_DEFAULT_ENTRIES     10000ull

/**
 * Unpack the archive at path into a new folder made with mkdtemp under $TMPDIR (else /tmp),
 * named tempo-fmu-<pid>-XXXXXX. The first call of a process also removes the folders that
 * processes no longer alive left there (fmu_zip_sweep). The folder is registered for
 * fmu_zip_remove_on_signals until fmu_zip_remove_tree removes it.
 * Entries with an absolute path, a ".." component, a backslash, a symbolic link (zip external
 * attributes), a size past the limits, or more entries than allowed are refused; the actual
 * decompressed byte count is checked, not only the size the archive declares.
 * @param path    the .fmu file
 * @param limits  NULL for the defaults
 * @param dir     receives the folder path (caller buffer of dirlen bytes)
 * @param err     receives "<path>: <entry>: reason" on failure; errlen its size
 * @return 0 on success; -1 if the file is not a readable zip or an entry is refused (the
 *         partly filled folder is removed); -2 on a system error (mkdtemp, write, ...).
 */
int fmu_zip_extract(const char *path, const fmu_zip_limits *limits, char *dir, size_t dirlen,
                    char *err, size_t errlen);

/**
 * Remove a folder and everything below it without following symbolic links.
 * @return 0 on success, -1 if something could not be removed (err says what).
 */
int fmu_zip_remove_tree(const char *dir, char *err, size_t errlen);

/**
 * Remove the folders tempo-fmu-<pid>-* in tmpdir (NULL: $TMPDIR, else /tmp) owned by this
 * user whose process <pid> no longer exists (left by a SIGKILL or a crash). A folder of a
 * live process is never touched; errors are ignored (another process may sweep too).
 * @return the number of folders removed.
 */
int fmu_zip_sweep(const char *tmpdir);

/**
 * Install handlers for SIGINT, SIGTERM and SIGHUP that remove every folder this process has
 * unpacked and not removed yet, then end the process by the same signal (default action).
 * Signals whose disposition is not the default are left alone. The removal uses only
 * async-signal-safe calls. For programs (tempo-fmu); a library never installs handlers.
 * Folders are registered by the thread that unpacks; the registry holds 64 of them (more
 * are still removed by fmu_unload, or later by fmu_zip_sweep).
 */
void fmu_zip_remove_on_signals(void);

/**
 * Remove every unpacked folder still registered (the ones fmu_zip_remove_on_signals would
 * remove), with async-signal-safe calls only: for a process that ends without unloading its
 * FMUs (federate/fmu/fmu_guard.c, an FMU that called exit() or crashed).
 */
void fmu_zip_remove_live(void);

#endif /* TEMPO_FEDERATE_FMU_ZIP_H */
