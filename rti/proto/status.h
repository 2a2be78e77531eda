/* Status codes the RTI puts in the code field of REPLY, ERROR and SYNC_REGISTERED frames
 * (doc/rti.md, doc/protocol.md). Each is the magnitude of the matching TP_E* code of
 * federate/libtempo/tempo.h, so a client maps a status s to -(int)s. Serves doc/protocol.md (clear
 * refusals). Read rti/server/server.h next. */
#ifndef TEMPO_RTI_STATUS_H
#define TEMPO_RTI_STATUS_H

enum status_code {
    STATUS_OK = 0,
    STATUS_EINVAL = 1,       /* bad argument: empty name, negative lookahead, bad action */
    STATUS_ESTATE = 2,       /* not allowed now: not joined, already joined, resigned */
    STATUS_EHANDLE = 3,      /* unknown class, attribute, interaction, parameter or object */
    STATUS_ENOTPUB = 4,      /* class or attribute not published by the sender, not owner */
    STATUS_ESIZE = 5,        /* a value has the wrong size for its FOM data type */
    STATUS_EFOM = 10,        /* the FOM text does not parse (message has line and reason) */
    STATUS_ETIME = 20,       /* time request below the federate's logical time */
    STATUS_EPENDING = 21,    /* a time request is already pending */
    STATUS_EBOUND = 22,      /* a time stamp below the sender's bound */
    STATUS_EENABLED = 23,    /* regulation / constrained already enabled or being enabled */
    STATUS_ENOTENABLED = 24, /* regulation / constrained not enabled */
    STATUS_EREFUSED = 30,    /* refused for another stated reason (federates still joined...) */
    STATUS_EEXISTS = 31,     /* name in use: federation, federate, object, sync label */
    STATUS_ENOTFOUND = 32,   /* no such federation or synchronization point */
    STATUS_EFOMDIFF = 33,    /* the FOM differs from the federation's */
    STATUS_EAUTH = 34,       /* shared secret missing or wrong */
    STATUS_ECKPT = 35,       /* a checkpoint foreign, damaged or not of this federation, or a
                                save that failed (doc/checkpoint.md) */
    STATUS_EPROTO = 40,      /* unexpected message, bad handshake, version mismatch */
    STATUS_ESYS = 50,        /* a system call of the RTI failed (writing a checkpoint) */
};

#endif
