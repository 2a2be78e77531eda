/* The shared secret for the programs that run a federation file (tempo-fmu, tempo-master,
 * tempo-run): which secret applies, and handing it to libtempo and to child processes through
 * the environment (TEMPO_SECRET), never on a command line that `ps` shows. Serves doc/run.md
 * and doc/rti.md ("Shared secret"). Read federate/run/run_secret.c next. */
#ifndef TEMPO_FEDERATE_RUN_RUN_SECRET_H
#define TEMPO_FEDERATE_RUN_RUN_SECRET_H

#include <stddef.h>

/**
 * Settle the secret and put it in TEMPO_SECRET (setenv), where libtempo and every child
 * started afterwards read it. In order: the file @p opt_file (a --secret-file option), an
 * existing TEMPO_SECRET, the file TEMPO_SECRET_FILE names, the file @p file_key (the
 * federation file's "secret_file"); none of them: a fresh random secret when @p fresh is 1,
 * else no secret (TEMPO_SECRET stays unset).
 * @param opt_file, file_key  paths or NULL.
 * @param source  receives a static word naming where the secret came from ("--secret-file",
 *                "TEMPO_SECRET", "TEMPO_SECRET_FILE", "secret_file", "fresh", "none"); may be NULL.
 * @return 0, or -1 with err naming the file and the fault (unreadable, readable by others,
 *         empty, too long) or the random source.
 */
int run_secret_apply(const char *opt_file, const char *file_key, int fresh, const char **source,
                     char *err, size_t errlen);

#endif
