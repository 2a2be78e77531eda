/* The libtempo side of the port (algorithms/port.h): tempo-master's slaves are tempo-fmu
 * processes reached through the master-slave protocol (federate/msproto/msproto.h). A posted
 * operation is one command of the slave's batch, which a collect sends (every slave's, one
 * Command<i> interaction each, stamped with the open instant); collect evokes
 * libtempo until that slave's replies (updates of its Slave<i>.reply attribute) have come;
 * open is TARA(t), close sends the close command and TAR(t); note sends a Note interaction
 * the RTI's federation log keeps. doc/master.md describes it.
 * Read federate/master/ms_remote.c next.
 */
#ifndef TEMPO_FEDERATE_MASTER_MS_REMOTE_H
#define TEMPO_FEDERATE_MASTER_MS_REMOTE_H

#include <stddef.h>

#include "algorithms/port.h"
#include "algorithms/pstate.h"
#include "federate/config/fedfile.h"

#define MS_ERRLEN 1024 /* a buffer this size holds any message of this module */

typedef struct ms_link ms_link;

/**
 * Join the federation as "master", declare the protocol's classes, enable time management at
 * lookahead 0, wait for every federate of the file to join (they are the slaves), synchronise
 * the start ("tempo-start"), open the start instant and ask every slave for its description
 * (the hello command), which fills the port slaves' info.
 * @param ff         loaded file of a master method, not NULL; must outlive the link
 * @param rti        "HOST:PORT" or "unix:PATH", or NULL: the file's
 * @param timeout_ms joins and the start; < 0 none, 0 the default 60000
 * @param reply_timeout_ms longest silence of a slave that owes replies, in ms; <= 0 none. A
 *                   dead slave is resigned by the RTI, which ends the wait anyway; a slave
 *                   that lives but does not answer (stopped, hung) is lost after this long,
 *                   and the failure report names it ("no reply for N ms ... to step ...").
 *                   It must exceed the longest single command (a slave's step)
 * @param out        out: the link (ms_link_free)
 * @param m          out: the port master (ops, slaves, tick, start and end) valid while the
 *                   link lives
 * @return PORT_OK, PORT_EUSAGE (no RTI address), PORT_ELOST (RTI or a slave failed at start),
 *         PORT_ENOMEM; err names the cause.
 */
int ms_link_new(const fedfile *ff, const char *rti, int timeout_ms, int reply_timeout_ms,
                ms_link **out, port_master *m, char *err, size_t errlen);

/* Checkpoints of the master (doc/checkpoint.md "tempo-master's part"). */
typedef struct ms_ckpt_opts {
    /* The checkpoint instants (ticks): every `every` after the start (0: none) and the n_at
     * times at. Before opening the first instant at or past each, the master asks the RTI for
     * a save labelled "ckpt-<ticks>" at it; every federate makes its part in the grant that
     * closes that instant. */
    int64_t every;
    const int64_t *at;
    size_t n_at;
    /* 1: rejoin a federation the RTI restored from a checkpoint as the master and go on after
     * the instant its part was made at: the algorithm gets its state as port_ckpt.resume,
     * the caller its extra bytes (ms_link_restored_extra). */
    int restore;
    /* Called inside the save (in the close's grant): append the caller's own state (its notes'
     * position) to b; return 0, or -1 with why filled (the save fails naming it). NULL: none. */
    int (*save_extra)(void *ctx, pstate_buf *b, char *why, size_t why_size);
    /* The outcome of each save the master asked for: label, time (s), status (TP_OK or the
     * failure's code), detail (the folder, or who failed and why), seconds from the master's
     * part to the outcome. NULL: none. */
    void (*done)(void *ctx, const char *label, double t, int status, const char *detail,
                 double seconds);
    void *ctx; /* handed to save_extra and done */
} ms_ckpt_opts;

/**
 * ms_link_new with checkpoints (ck; NULL: none, as ms_link_new): port_master.ckpt is set, so
 * an algorithm that saves offers its state before each close, which the master's part
 * carries; with ck->restore the link rejoins the restored federation (no declarations, start
 * or hello: they came back with the RTI's part and the master's) and m->ckpt->resume holds
 * the algorithm's saved state. A part another method or another set of slaves wrote is
 * refused (PORT_EUSAGE), naming what differs.
 */
int ms_link_new_ckpt(const fedfile *ff, const char *rti, int timeout_ms, int reply_timeout_ms,
                     const ms_ckpt_opts *ck, ms_link **out, port_master *m, char *err,
                     size_t errlen);

/** After a restoring ms_link_new_ckpt: the instant the master's part was made at (ticks).
 *  At or past the algorithm's end (the close of the run's last instant, which may carry no
 *  state of the algorithm) the run only ends: the caller does not run the algorithm again.
 *  @return 1 when the link was restored, else 0 (*t untouched). */
int ms_link_resumed_at(const ms_link *l, int64_t *t);

/** After a restoring ms_link_new_ckpt: the extra bytes its save_extra wrote (valid while the
 *  link lives). @return 1 when the link was restored, else 0 (*p NULL, *n 0). */
int ms_link_restored_extra(const ms_link *l, const unsigned char **p, size_t *n);

/**
 * After the algorithm: send the end command to every slave (receive order, after the last
 * close) and resign.
 * @return PORT_OK or PORT_ELOST (err set).
 */
int ms_link_finish(ms_link *l, char *err, size_t errlen);

/** Resign (if not done) and free. Accepts NULL. A slave still waiting then sees the master
 *  leave and stops with that reason. */
void ms_link_free(ms_link *l);

/**
 * Why slaves were lost or failed: "slave NAME lost: REASON" for each lost one, and the first
 * failure each other one replied ("slave NAME: COMMAND: ITS MESSAGE"), joined by "; " into out
 * ("" when none), so that a failure report names the slave and its own reason.
 */
void ms_link_lost(const ms_link *l, char *out, size_t len);

/** Commands sent, replies received and notes sent to the federation log so far (for the
 *  summary and the message counts); each pointer may be NULL. */
void ms_link_counts(const ms_link *l, long *commands, long *replies, long *notes);

/** Rounds (sends of the slaves' batches: one per sync that had posted something, and one per
 *  close), the interactions that carried the commands (one per slave and round, plus the
 *  ends) and the updates that carried the replies (one per slave and round); each pointer may
 *  be NULL (doc/master.md "Batches"). */
void ms_link_messages(const ms_link *l, long *rounds, long *out, long *in);

/**
 * Replies refused so far: updates of a slave's class from another federate than that slave
 * (doc/master.md "Commands only from the master"); each is logged on stderr (the first
 * MSPROTO_REFUSALS_LOGGED) and not taken, and the run goes on.
 * @param first out: the first refused sender ("rogue (federate 4)"), "" when none; len bytes.
 * @return the count.
 */
long ms_link_refused(const ms_link *l, char *first, size_t len);

#endif
