/* Fixed-step Jacobi written over the port (algorithms/port.h): the simplest master-slave
 * algorithm, run by tempo-master as method "master-jacobi". Each macro step every slave
 * advances with the others' outputs of the step start held (order 0), then the outputs at the
 * step end become the next step's inputs. doc/algorithms/jacobi.md gives the scheme (the Awais
 * thesis §4.2.1, the improved Jacobi, with its exchanges done by a master) and doc/master.md
 * the run over libtempo. Pure C over the port: libc only. Read algorithms/msjacobi.c next.
 */
#ifndef TEMPO_ALGORITHMS_MSJACOBI_H
#define TEMPO_ALGORITHMS_MSJACOBI_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/port.h"

#define MSJ_ERRLEN 512 /* a buffer this size holds any message of this module */

/**
 * Run fixed-step Jacobi from m->t_start to m->t_end at macro step t_step (ticks; the last
 * step is shortened to end exactly at t_end). Per step: open(T+H); step every slave to T+H,
 * outputs at the end; sync; set every slave's inputs to the new outputs (order 0, about
 * T+H); record; sync; close(T+H). The start instant exchanges the initial outputs the same
 * way (open, get_outputs, sync, set_inputs, record, sync, close).
 * Checkpoints (port_ckpt): before each close the state between steps (the instant) is offered
 * to m->ckpt; with m->ckpt->resume the run goes on after the saved instant (the slaves restored
 * by their owners to that instant, their held inputs included), bytes of another writer or an
 * instant outside [t_start, t_end) refused with PORT_EUSAGE.
 * @param m       the master and its slaves, not NULL
 * @param links   n_links couplings (see port_link)
 * @param t_step  macro step, ticks, > 0
 * @param err     caller buffer for the reason, naming the slave and the time at fault
 * @return PORT_OK, or the worst status of the failing sync (PORT_ELOST: a slave is gone;
 *         PORT_EFAIL, PORT_EDISCARD: a slave refused; PORT_EUSAGE: bad links or step;
 *         PORT_ENOMEM).
 */
int msjacobi_run(const port_master *m, const port_link *links, size_t n_links, int64_t t_step,
                 char *err, size_t errlen);

#endif
