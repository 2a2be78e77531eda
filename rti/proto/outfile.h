/* Files and folders Tempo's programs write for their user (results CSVs, plots, master.csv,
 * federation logs, the run lock): created private (files 0600, folders 0700) unless the user
 * asks otherwise (TEMPO_FILE_MODE, or --file-mode of tempo-run and tempo-rti), never written
 * through a symbolic link or into a file that was there before, and never in a folder everyone
 * may write without the sticky bit. doc/run.md "Output files" describes it; shared by the RTI
 * side (rti/flog, rti/server) and the federate side (federate/run) so that every program
 * writes alike. Read rti/proto/outfile.c next. */
#ifndef TEMPO_RTI_PROTO_OUTFILE_H
#define TEMPO_RTI_PROTO_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

#define OUTFILE_ENV          "TEMPO_FILE_MODE" /* octal permission bits of new files */
#define OUTFILE_DEFAULT_MODE 0600u             /* files; folders get 0700 */

/**
 * Read a file mode: 1 to 4 octal digits ("600", "0644"), read and write bits only (no
 * execute, set-id or sticky bits: at most 0666), the owner's read and write included.
 * @return 0 with *mode set, or -1 with err saying what is wrong.
 */
int outfile_parse_mode(const char *text, unsigned *mode, char *err, size_t errlen);

/**
 * The mode of new files: TEMPO_FILE_MODE when set and not empty (outfile_parse_mode), else
 * OUTFILE_DEFAULT_MODE. The umask still applies on top.
 * @return 0, or -1 with err naming the variable when its value is invalid.
 */
int outfile_mode(unsigned *mode, char *err, size_t errlen);

/** The mode of new folders for a file mode: each read bit brings its execute bit (0600 gives
 *  0700, 0644 gives 0755, 0640 gives 0750). */
unsigned outfile_dir_mode(unsigned file_mode);

/**
 * Check a folder that output files go into, as ssh checks its files' folders: it must be a
 * folder, and not writable by everyone unless its sticky bit is set (then nobody but a file's
 * owner can rename or remove it). A folder writable by its group, or owned by another user
 * (not root), is accepted with a warning: they can remove our files, but never make us write
 * through a link (outfile_open sees to that).
 * @param warn receives a warning ("" when none); warnlen bytes, may be 0.
 * @return 0, or -1 with err naming the folder and the fault ("chmod o-w").
 */
int outfile_check_dir(const char *dir, char *warn, size_t warnlen, char *err, size_t errlen);

/**
 * mkdir -p with the folder mode (outfile_dir_mode of outfile_mode): every missing component
 * is created; existing ones are left as they are. The last one is then checked
 * (outfile_check_dir, its warning dropped).
 * @return 0, or -1 with err naming the folder.
 */
int outfile_mkdirs(const char *dir, char *err, size_t errlen);

/**
 * Create @p path for writing. Nothing that was there is written to or followed: a symbolic
 * link is refused (its target stays untouched), as is anything but a regular file; a regular
 * file is removed and a new one made with O_CREAT | O_EXCL | O_NOFOLLOW and outfile_mode (so a
 * hard link to another file leaves that file alone, and an old file's mode does not carry
 * over). An entry that reappears between the removal and the creation is refused.
 * @return the open descriptor (O_WRONLY | O_CLOEXEC), or -1 with err naming the file and why
 *         ("PATH: is a symbolic link (to TARGET): refused, not followed; remove it").
 */
int outfile_open(const char *path, char *err, size_t errlen);

/** outfile_open as a stdio stream opened "w"; NULL with err filled. */
FILE *outfile_fopen(const char *path, char *err, size_t errlen);

/**
 * Why @p path could not be one of our output files, without touching it: a symbolic link
 * (naming its target) or something other than a regular file. For checks before a run starts.
 * @return 0 when it is missing or a regular file, else -1 with err filled.
 */
int outfile_check_entry(const char *path, char *err, size_t errlen);

#endif
