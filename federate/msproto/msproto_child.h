/* A slave in a child process: a port slave (algorithms/port.h) whose every operation is one
 * command of the master-slave protocol (msproto.h) written to a child program over a socket
 * pair, and whose reply is read back before the post returns. It is how a model in Python runs
 * inside a one-process run (tempo-master --local and --in-process, tempo-fmu --all): the child
 * is `tempo-slave --pipe`, the interpreter stays in its own process (doc/python.md "In one
 * process"). Read federate/msproto/msproto_child.c next. */
#ifndef TEMPO_FEDERATE_MSPROTO_MSPROTO_CHILD_H
#define TEMPO_FEDERATE_MSPROTO_MSPROTO_CHILD_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/port.h"

/* The frames on the socket: a u32 little-endian length, then that many bytes of one command
 * (to the child) or one reply (from it), encoded as msproto.h says. */
#define MSPROTO_CHILD_MAX_FRAME (16u * 1024u * 1024u) /* bytes of one reply, at most */

typedef struct msproto_child msproto_child; /* opaque */

typedef struct msproto_child_opts {
    const char *name;   /* the federate's name, for messages; not NULL */
    char *const *argv;  /* the child's program (argv[0]: a path, or a name looked up on PATH)
                           and arguments, NULL-ended */
    int64_t t_start;    /* ticks: the slave's time before its first step */
    size_t n_in, n_out; /* the wiring's inputs and outputs: the child's hello must say these */
    double tick;        /* seconds per tick (the file's resolution), for on_record */
    /* Called after each record the child accepted, with the slave's time (ticks, and seconds
     * by port_seconds): the rows are the child's, the caller's progress and final time follow
     * them. Returns 0, else the record fails. NULL: nothing. */
    int (*on_record)(void *ctx, int64_t t, double seconds);
    void *on_record_ctx;
} msproto_child_opts;

/**
 * Start the child with its stdin and stdout on one end of a socket pair, send it hello and
 * check its answer against the wiring.
 * @param o   options, not NULL
 * @param out out: the slave's state, owned by the caller (msproto_child_free)
 * @param ps  out: the port slave over it, valid while *out is
 * @param err caller buffer for the reason of a failure ("federate NAME: ...")
 * @return PORT_OK; PORT_EFAIL (the child did not start, died, or answered hello wrongly);
 *         PORT_ENOMEM; PORT_EUSAGE (bad options). On failure nothing is left running.
 * Blocks until the child answers hello.
 */
int msproto_child_new(const msproto_child_opts *o, msproto_child **out, port_slave *ps, char *err,
                      size_t errlen);

/* Checkpoints (doc/checkpoint.md; doc/python.md "Checkpoints"). Beside the commands, two
 * frames of this socket only, told apart by their first bytes (a command starts with
 * MSPROTO_VERSION): "TPSG" asks for the slave's whole state as bytes, "TPSS" followed by such
 * bytes sets it. Each is answered by the same four bytes, a status byte (0 done, 1 refused)
 * and the state, or the reason of the refusal. */

/**
 * The slave's whole state as bytes (the child's own format: its time, inputs, model and rows).
 * @param bytes out: malloc'd, the caller frees; @param n out: its length
 * @return PORT_OK; PORT_EFAIL (the child refused: the model cannot be written; the reason in
 *         msproto_child_errmsg); PORT_ELOST; PORT_ENOMEM.
 */
int msproto_child_state_save(msproto_child *c, unsigned char **bytes, size_t *n);

/**
 * Set the slave's whole state from bytes msproto_child_state_save gave (of the same model).
 * @return PORT_OK; PORT_EUSAGE (the child refused them: the reason in msproto_child_errmsg);
 *         PORT_ELOST; PORT_ENOMEM.
 */
int msproto_child_state_restore(msproto_child *c, const void *bytes, size_t n);

/** The slave's time as its last reply said (ticks). */
int64_t msproto_child_time(const msproto_child *c);

/** The message of the slave's last failure ("" when none); valid while c is. */
const char *msproto_child_errmsg(const msproto_child *c);

/**
 * Send end (the child writes its results and exits), wait for it and free everything.
 * Accepts NULL. A child that does not exit within a few seconds of end is killed.
 * @return PORT_OK; PORT_EFAIL when the child failed at the end (its exit status in err).
 */
int msproto_child_free(msproto_child *c, char *err, size_t errlen);

#endif
