/* Who is who in a master-slave federation (doc/master.md "Commands only from the master"):
 * the federates' names by handle, as the join and resign notices give them. The master and the
 * slaves take commands, replies and shares only from the federate the federation file names for
 * them, found here by name once, at the start, and known by its handle from then on; anyone
 * else is named in their refusals. Read federate/msproto/msproto_peers.c next. */
#ifndef TEMPO_FEDERATE_MSPROTO_MSPROTO_PEERS_H
#define TEMPO_FEDERATE_MSPROTO_MSPROTO_PEERS_H

#include <stddef.h>
#include <stdint.h>

#define MSPROTO_PEERS_MAX 4096 /* handles remembered; past it the oldest that left is forgotten */
#define MSPROTO_REFUSALS_LOGGED                                                                    \
    64 /* refusals a program logs one by one; after that it only counts them (a flood of forged    \
          messages must not flood the log) */

typedef struct msproto_peers msproto_peers;

/** A new empty table, or NULL when out of memory. Free with msproto_peers_free. */
msproto_peers *msproto_peers_new(void);
/** Free the table; NULL is accepted. */
void msproto_peers_free(msproto_peers *p);

/**
 * A federate joined (a federate_joined callback): remember its name. Handles are never reused
 * within a federation (doc/rti.md "Federations"), so a name stays with its handle after the
 * federate resigns: a message it sent before resigning and delivered later is still named.
 * @param p the table (NULL: nothing); @param fed the handle, not 0; @param name its name.
 * @return 0; -1 when MSPROTO_PEERS_MAX federates are joined or out of memory (the federate then
 *         has no name here).
 */
int msproto_peers_joined(msproto_peers *p, uint32_t fed, const char *name);
/** A federate resigned (a federate_resigned callback): it keeps its name, loses its role. */
void msproto_peers_resigned(msproto_peers *p, uint32_t fed);

/**
 * The handle of the federate joined now under @p name (the RTI keeps names unique among the
 * joined federates). Called once at the start to bind a role to a handle: a federate of that
 * name that joined and left before is not it, and one that joins after the binding is not it
 * either. @return the handle, 0 when no federate of that name is joined.
 */
uint32_t msproto_peers_handle(const msproto_peers *p, const char *name);

/**
 * Describe a sender for a message: "rogue (federate 5)", or "federate 5 (name unknown)".
 * @return buf (cap bytes, always NUL-terminated when cap > 0).
 */
const char *msproto_peers_describe(const msproto_peers *p, uint32_t fed, char *buf, size_t cap);

#endif
