/* The master-slave protocol: the commands a master federate (tempo-master) sends to slave FMU
 * federates (tempo-fmu in the slave role), their replies, their byte encodings, and the FOM
 * generated from a federation file. One module used by both programs; doc/master.md describes
 * it with the slave's state machine. Every port operation (algorithms/port.h) is one command.
 * Read federate/msproto/msproto.c next, then federate/master/ms_remote.c (the master's side)
 * and federate/fmufed/fmufed_slave.c (the slave's side).
 */
#ifndef TEMPO_FEDERATE_MSPROTO_MSPROTO_H
#define TEMPO_FEDERATE_MSPROTO_MSPROTO_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/port.h"

#define MSPROTO_VERSION    1     /* first byte of every command and reply */
#define MSPROTO_ERRLEN     256   /* a buffer this size holds any message of this module */
#define MSPROTO_MAX_VALUES 65536 /* doubles (or times) one command or reply may carry */
#define MSPROTO_MAX_MSG    400   /* bytes of a reply's error message, at most */

/* Status codes of the codec: 0 success, negative errors. */
enum {
    MSPROTO_OK = 0,
    MSPROTO_EMALFORMED = -1, /* a payload that is not a valid command or reply (err says why) */
    MSPROTO_ESPACE = -2,     /* a caller buffer is too small */
    MSPROTO_EUSAGE = -3,     /* bad argument */
    MSPROTO_ENOMEM = -4,     /* out of memory */
};

/* The command kinds: one per port operation, plus the two that end an instant and the run. */
typedef enum msproto_kind {
    MSP_SET_INPUTS = 1,    /* t = t0, arg = order, v = n_in * (order + 1) coefficients */
    MSP_STEP,              /* t = t_to, arg = n_sub; reply: t, event, n_sub_done, v = y_sub */
    MSP_GET_OUTPUTS,       /* reply: v = n_out outputs */
    MSP_GET_OUTPUT_DERIVS, /* arg = order >= 1; reply: v = n_out derivatives */
    MSP_GET_DISCRETE,      /* reply: v = values, tv = their event times */
    MSP_SET_DISCRETE,      /* v = values, tv = event times (as many of each) */
    MSP_GET_STATES,        /* reply: v = n_state states */
    MSP_SET_STATES,        /* t = the states' time, v = n_state states */
    MSP_GET_DERIVATIVES,   /* reply: v = n_state state derivatives */
    MSP_GET_DIRECTIONAL,   /* v = du (n_in); reply: v = dy (n_out) */
    MSP_SAVE,              /* arg = slot */
    MSP_RESTORE,           /* arg = slot; reply: t = the slave's time after the restore */
    MSP_RECORD,            /* write the slave's results row at its current time */
    MSP_CLOSE,             /* end of the instant: the slave commits it, TAR(t) */
    MSP_END,               /* end of the simulation: the slave writes its results and resigns */
    MSP_HELLO,             /* first command: reply v = the slave's port_slave_info numbers
                              (msproto_info_encode) */
    MSP_SHARE,             /* t = the round (the commit time): the slave sends its discrete
                              outputs to the other slaves (an update of Share<i>.discrete, as a
                              reply body: t, v = values, tv = event times) and takes theirs */
} msproto_kind;
#define MSP_KIND_MAX   MSP_SHARE
#define MSPROTO_INFO_N 9 /* doubles of a hello reply */

/** The numbers of a port_slave_info as the MSPROTO_INFO_N doubles of a hello reply: n_in,
 *  n_out, n_state, n_discrete, can_save, max_output_deriv, has_state_derivs,
 *  has_directional, is_me. */
void msproto_info_encode(const port_slave_info *in, double *v);
/** The reverse (name untouched). @return MSPROTO_OK or MSPROTO_EMALFORMED (a count that is
 *  not a whole number 0..MSPROTO_MAX_VALUES, a flag not 0/1). */
int msproto_info_decode(const double *v, port_slave_info *out, char *err, size_t errlen);
/** The output-to-state map (port_slave_info.out_state) as the n_out doubles that follow the
 *  MSPROTO_INFO_N of a hello reply: 1 + the state output k is, 0 when it is not a state (every
 *  entry 0 when out_state is NULL). @return the number written, in->n_out. */
size_t msproto_info_map_encode(const port_slave_info *in, double *v);
/** The reverse: v holds n_out doubles; out receives n_out entries, -1 for "not a state".
 *  @return MSPROTO_OK or MSPROTO_EMALFORMED (an entry not a whole number 0..n_state). */
int msproto_info_map_decode(const double *v, size_t n_out, size_t n_state, long *out, char *err,
                            size_t errlen);

/** Name of a kind ("step", "set-inputs", ...); "?" for an unknown one. Never NULL. */
const char *msproto_kind_name(int kind);

/* A command. On decode, v and tv point into caller arrays (msproto_cmd_decode). */
typedef struct msproto_cmd {
    msproto_kind kind;
    uint32_t seq; /* numbers the commands to one slave from 1; the reply echoes it */
    int64_t t;    /* ticks: see the kinds; 0 when unused */
    int32_t arg;  /* see the kinds; 0 when unused */
    size_t n_v;   /* doubles in v */
    const double *v;
    size_t n_tv; /* times in tv (ticks) */
    const int64_t *tv;
} msproto_cmd;

/* A reply: the status of one command and its results. */
typedef struct msproto_reply {
    msproto_kind kind;  /* the command's kind */
    uint32_t seq;       /* the command's seq */
    int32_t status;     /* a port_status */
    int64_t t;          /* step: t_reached; restore: the time restored; else the slave's time */
    int32_t event;      /* step: 1 when an event stopped it */
    int32_t n_sub_done; /* step: sub-steps whose outputs are in v */
    size_t n_v;
    const double *v;
    size_t n_tv;
    const int64_t *tv;
    const char *msg; /* the slave's message when status < 0 (NUL-terminated), else "" */
} msproto_reply;

/**
 * Bytes the encoding of a command or reply with these counts takes (msg of msg_len bytes for
 * replies; 0 for commands).
 */
size_t msproto_cmd_size(size_t n_v, size_t n_tv);
size_t msproto_reply_size(size_t n_v, size_t n_tv, size_t msg_len);

/**
 * Encode a command (little-endian, doc/master.md "Encodings").
 * @param c   the command, not NULL; its counts must fit the kind (msproto_cmd_check)
 * @param out buffer of cap bytes (msproto_cmd_size is enough)
 * @param len out: bytes written
 * @return MSPROTO_OK, MSPROTO_EMALFORMED (counts that do not fit the kind; err says which),
 *         MSPROTO_ESPACE, MSPROTO_EUSAGE. Allocates nothing.
 */
int msproto_cmd_encode(const msproto_cmd *c, unsigned char *out, size_t cap, size_t *len, char *err,
                       size_t errlen);

/**
 * Decode a command. Every length and count is checked against the buffer and against the
 * kind; the doubles are copied (they need not be aligned in buf).
 * @param buf,len the payload (untrusted)
 * @param c       out: the command; c->v and c->tv point into v and tv
 * @param v,cap_v caller array for the doubles; cap_v too small gives MSPROTO_ESPACE
 * @param tv,cap_tv caller array for the times
 * @return MSPROTO_OK, MSPROTO_EMALFORMED (err: what is wrong, at which byte), MSPROTO_ESPACE,
 *         MSPROTO_EUSAGE.
 */
int msproto_cmd_decode(const void *buf, size_t len, msproto_cmd *c, double *v, size_t cap_v,
                       int64_t *tv, size_t cap_tv, char *err, size_t errlen);

/**
 * Check that a command's fields fit its kind (counts, slot range, order range).
 * @return MSPROTO_OK or MSPROTO_EMALFORMED (err names the field).
 */
int msproto_cmd_check(const msproto_cmd *c, char *err, size_t errlen);

/** Encode a reply; r->msg may be NULL (none) and is cut at MSPROTO_MAX_MSG bytes. As
 *  msproto_cmd_encode otherwise. */
int msproto_reply_encode(const msproto_reply *r, unsigned char *out, size_t cap, size_t *len,
                         char *err, size_t errlen);

/**
 * Decode a reply. As msproto_cmd_decode; the message is copied into msg (msg_cap bytes, at
 * least MSPROTO_MAX_MSG + 1) and r->msg points to it.
 */
int msproto_reply_decode(const void *buf, size_t len, msproto_reply *r, double *v, size_t cap_v,
                         int64_t *tv, size_t cap_tv, char *msg, size_t msg_cap, char *err,
                         size_t errlen);

/* Batches (doc/master.md "Batches"). The commands the master posts to one slave between two
 * syncs travel as one Command<i> interaction whose body is their encodings back to back, in
 * post order; the slave answers them with one update whose value is the replies back to back.
 * A body of one command (or reply) is a batch of one. A batch is cut before a record that
 * would take it past MSPROTO_BATCH_BYTES (a single larger record travels alone), far below
 * the RTI's default frame limit (1 MiB, doc/rti.md). */
#define MSPROTO_BATCH_BYTES (64u * 1024u)

/**
 * Size of the first command of a batch, from its header alone (the version and the counts,
 * checked against MSPROTO_MAX_VALUES and against len). Decode those *n bytes with
 * msproto_cmd_decode and go on at buf + *n until len is used up.
 * @param buf,len what is left of the batch (untrusted)
 * @param n       out: bytes of the first command, header included (<= len)
 * @return MSPROTO_OK, MSPROTO_EMALFORMED (err: shorter than a header, another version, counts
 *         over the limit or past the end), MSPROTO_EUSAGE (n NULL, or buf NULL with len > 0).
 */
int msproto_cmd_span(const void *buf, size_t len, size_t *n, char *err, size_t errlen);
/** The same for a batch of replies (the message length counts too). */
int msproto_reply_span(const void *buf, size_t len, size_t *n, char *err, size_t errlen);

struct fedfile; /* federate/config/fedfile.h */

/* Names of the generated FOM (doc/master.md "The FOM"): slave i (its index in the file)
 * registers one object of class "Slave<i>" whose attribute "reply" (bytes) carries its replies;
 * the master sends "Command<i>" interactions whose parameter "body" (bytes) is one command. */
#define MSPROTO_REPLY_ATTR  "reply"
#define MSPROTO_BODY_PARAM  "body"
#define MSPROTO_MASTER_NAME "master" /* the master's federate name; no slave may take it */
/* The hybrid method's slave-to-slave channel: slave i with discrete outputs registers an
 * object of class "Share<i>" whose attribute "discrete" (bytes) carries them, encoded as an
 * MSP_SHARE reply; the slaves they feed subscribe; the master does not. */
#define MSPROTO_SHARE_ATTR "discrete"
/* The master's notes (port_master_ops.note: iterations, residuals, step decisions) for the
 * federation log: interaction "Note" with "what" (string), "value" and "at" (float64, the
 * note's instant in seconds); nobody subscribes, the RTI logs the send (doc/master.md). */
#define MSPROTO_NOTE_CLASS "Note"
#define MSPROTO_NOTE_WHAT  "what"
#define MSPROTO_NOTE_VALUE "value"
#define MSPROTO_NOTE_AT    "at"

/** Write the object class name of slave i ("Slave3") into out (cap bytes). */
void msproto_slave_class(size_t i, char *out, size_t cap);
/** Write the interaction class name of slave i's commands ("Command3"). */
void msproto_command_class(size_t i, char *out, size_t cap);
/** Write the object class name of slave i's slave-to-slave channel ("Share3"). */
void msproto_share_class(size_t i, char *out, size_t cap);

/**
 * Generate the master-slave FOM of a federation file: per federate i a class Slave<i> with the
 * attribute "reply" and an interaction Command<i> with the parameter "body", the master's
 * interaction Note (what, value, at), and the file's time resolution; for the hybrid method
 * also per federate a class Share<i> with the attribute "discrete".
 * @param ff  loaded file, not NULL
 * @param out out: NUL-terminated XML, owned by the caller (free())
 * @return MSPROTO_OK, MSPROTO_ENOMEM, MSPROTO_EUSAGE.
 */
int msproto_fom_xml(const struct fedfile *ff, char **out, char *err, size_t errlen);

#endif
