/* Process supervision for tempo-run: start child processes (the RTI, one per federate), read
 * their stdout/stderr line by line without blocking, detect exits, and on any failure, timeout
 * or SIGINT/SIGTERM stop every other child (SIGTERM, then SIGKILL) and reap them all.
 * Usage in doc/run.md. Read federate/run/supervise.c next.
 */
#ifndef TEMPO_FEDERATE_SUPERVISE_H
#define TEMPO_FEDERATE_SUPERVISE_H

#include <stddef.h>
#include <sys/types.h>

#define SUP_ERRLEN 1024 /* a buffer this size holds any message of this module */
#define SUP_MAX_CHILDREN                                                                           \
    1024                    /* children one supervisor can hold (a federation of 1000 federates) */
#define SUP_LINE_MAX   4096 /* bytes of one delivered line; longer lines arrive in pieces */
#define SUP_TAIL_LINES 8    /* last stderr lines kept per child for failure reports */
#define SUP_TAIL_LEN   256  /* bytes kept of each of those lines */

/* Status codes: 0 success, negative errors. */
enum {
    SUP_OK = 0,
    SUP_EUSAGE = -1,   /* NULL or inconsistent arguments, too many children, bad index */
    SUP_ESYS = -2,     /* a system call failed (message names it, with strerror) */
    SUP_EEXEC = -3,    /* a child could not be started (exec, chdir): message names the child */
    SUP_ECHILD = -4,   /* a child failed (exit status, signal, early exit): message names it */
    SUP_ETIMEOUT = -5, /* the global timeout or a sup_wait_line timeout expired */
    SUP_EINTR = -6,    /* SIGINT or SIGTERM reached the supervising process */
    SUP_ENOMEM = -7,   /* out of memory */
};

/* Which output stream a line came from. */
typedef enum sup_stream {
    SUP_STDOUT = 1,
    SUP_STDERR = 2,
} sup_stream;

/* State of one child. */
typedef enum sup_state {
    SUP_RUNNING = 1, /* started, not reaped yet */
    SUP_EXITED,      /* reaped after exit(); code holds the status */
    SUP_SIGNALED,    /* reaped after a signal; sig holds it */
} sup_state;

/**
 * Receives every output line of every child, in the order each child wrote them per stream
 * (lines of stdout and stderr of one child are interleaved as they are read, which is not
 * necessarily the order the child wrote them across the two pipes).
 * @param ctx    the opts.ctx pointer
 * @param child  the child's name (owned by the supervisor, valid during the call)
 * @param stream SUP_STDOUT or SUP_STDERR
 * @param line   the line without its newline, NUL-terminated, valid during the call; a line
 *               longer than SUP_LINE_MAX - 1 bytes arrives as several calls
 * The callback must not call sup_* functions on the same supervisor.
 */
typedef void (*sup_line_fn)(void *ctx, const char *child, sup_stream stream, const char *line);

/* Options of a supervisor; zero fields take the defaults. */
typedef struct sup_opts {
    int grace_ms;               /* ms between SIGTERM and SIGKILL when stopping; 0 = 2000 */
    long timeout_ms;            /* global timeout from sup_new, ms; 0 = none */
    int catch_signals;          /* 1: from sup_new to sup_free, SIGINT and SIGTERM are caught; the
                                   next sup_start/sup_wait/sup_wait_line (or the one running) stops
                                   every child and returns SUP_EINTR. SIGCHLD wakes the loop. The
                                   previous handlers are restored by sup_free. Only one supervisor
                                   per process may set this. */
    sup_line_fn on_line;        /* output lines; NULL = discard (the stderr tail is kept anyway) */
    void *ctx;                  /* passed to on_line and on_tick */
    void (*on_tick)(void *ctx); /* called at least every 250 ms while sup_wait runs (for a
                            watchdog); it must not call sup_* functions; NULL = none */
    int fail_grace_ms;          /* after the first failure, let the other children end on their own
                                   for up to this long before stopping them (their exits and last
                                   lines then show which failed first and why); 0 = stop at once */
} sup_opts;

/* What to start. */
typedef struct sup_spec {
    const char *name;     /* child's name in messages and callbacks, not NULL, unique */
    char *const *argv;    /* NULL-terminated; argv[0] is looked up in PATH (execvp); a
                             relative path with a '/' is resolved after the chdir to cwd */
    char *const *env_add; /* NULL-terminated "KEY=VALUE" strings added to (or replacing
                             in) the parent's environment, or NULL */
    const char *cwd;      /* working directory of the child, or NULL: the parent's */
    int service;          /* 1: a server (the RTI) expected to run until stopped: its
                             exit before sup_wait has finished is a failure, and sup_wait
                             stops it once every other child has exited with status 0 */
} sup_spec;

/* What is known about one child (sup_child). */
typedef struct sup_child_info {
    const char *name; /* owned by the supervisor */
    pid_t pid;        /* process id; also its process group id */
    sup_state state;  /* running, exited, signaled */
    int code;         /* exit status when SUP_EXITED, else -1 */
    int sig;          /* signal number when SUP_SIGNALED, else 0 */
    int stopped;      /* 1 when the supervisor sent it SIGTERM/SIGKILL (not a failure) */
    int failed;       /* 1 when its end counted as a failure */
    size_t n_tail;    /* stderr lines in tail[] (oldest first), <= SUP_TAIL_LINES */
    const char *tail[SUP_TAIL_LINES]; /* last stderr lines, owned by the supervisor */
} sup_child_info;

typedef struct sup sup; /* opaque; one per tempo-run */

/**
 * Create a supervisor. Every child runs in its own process group (so that a terminal's Ctrl-C
 * reaches only the supervisor, which then stops the children in order) and, on Linux, gets
 * SIGTERM if the supervising process dies.
 * @param out    out: the supervisor, owned by the caller (sup_free); NULL on error
 * @param opts   options, or NULL for the defaults
 * @param err    caller-owned buffer
 * @param errlen its size (SUP_ERRLEN is enough)
 * @return SUP_OK, SUP_EUSAGE (out NULL, negative times), SUP_ENOMEM, SUP_ESYS (pipe).
 */
int sup_new(sup **out, const sup_opts *opts, char *err, size_t errlen);

/**
 * Start one child with its stdout and stderr captured; its stdin is /dev/null. Returns only
 * once the exec has succeeded or failed (a close-on-exec pipe reports the child's errno).
 * @param s      supervisor, not NULL
 * @param spec   what to start; copied, so it may be freed after the call
 * @param err    caller-owned buffer; e.g. "child 'A': cannot execute 'tempo-fmu': No such file
 *               or directory"
 * @param errlen its size
 * @return the child's index (>= 0), or SUP_EUSAGE (NULL fields, duplicate name, more than
 *         SUP_MAX_CHILDREN, called after a failure or stop), SUP_ENOMEM, SUP_ESYS (pipe,
 *         fork), SUP_EEXEC (exec or chdir failed in the child; it has been reaped; the others
 *         keep running), SUP_EINTR (catch_signals: a signal arrived; everything is stopped).
 */
int sup_start(sup *s, const sup_spec *spec, char *err, size_t errlen);

/**
 * Run until every non-service child has exited with status 0, then stop the service children
 * and reap everything. If a child fails (non-zero status, killed by a signal, a service child
 * exiting early), the global timeout expires, or (catch_signals) SIGINT/SIGTERM arrives, every
 * other child is stopped (SIGTERM to its process group, SIGKILL after the grace period) and
 * reaped before the call returns. Output lines go to opts.on_line as they arrive. When a
 * child exits, whatever is left in its process group is killed with SIGKILL.
 * @param s      supervisor, not NULL
 * @param err    caller-owned buffer: which child failed and how, and its last stderr lines,
 *               e.g. "child 'B' (pid 42) exited with status 3; last stderr: bad step | ..."
 * @param errlen its size
 * @return SUP_OK, SUP_ECHILD (the first failure is in err and in sup_child's failed flag),
 *         SUP_ETIMEOUT (err names the children still running), SUP_EINTR (err names the
 *         signal), SUP_ESYS (poll failed; children are stopped anyway), SUP_EUSAGE.
 */
int sup_wait(sup *s, char *err, size_t errlen);

/**
 * Run the same loop as sup_wait until child `idx` prints a stdout line containing `needle`
 * (e.g. "listening on" from tempo-rti), and copy that line out. Lines before it, and lines of
 * other children, still go to opts.on_line (the matching line too). Lines the child printed
 * before the call count as well when they are among its last SUP_TAIL_LINES stdout lines and
 * no earlier sup_wait_line on this child examined them (such a line is truncated to
 * SUP_TAIL_LEN - 1 bytes), so waiting for two children one after the other loses nothing.
 * @param s       supervisor, not NULL
 * @param idx     child index from sup_start
 * @param needle  substring to look for, not NULL, not empty
 * @param timeout_ms  give up after this many ms (> 0); the global timeout also applies
 * @param line    out: the matching line, NUL-terminated, truncated to linelen - 1
 * @param linelen size of line, > 0
 * @param err     caller-owned buffer
 * @param errlen  its size
 * @return SUP_OK; SUP_ETIMEOUT (children keep running: the caller decides, usually sup_stop);
 *         SUP_ECHILD (a child failed, or child idx exited without printing the line: everything
 *         has been stopped and reaped), SUP_EINTR, SUP_ESYS, SUP_EUSAGE.
 */
int sup_wait_line(sup *s, int idx, const char *needle, long timeout_ms, char *line, size_t linelen,
                  char *err, size_t errlen);

/**
 * Parse the address out of tempo-rti's ready line, "tempo-rti listening on HOST:PORT" or
 * "tempo-rti listening on unix:PATH" (the text after the last " on "). An IPv6 host in
 * brackets ("[::1]:7470") is returned without them.
 * @param line    the line, e.g. from sup_wait_line, not NULL
 * @param host    out: "127.0.0.1", "::1" or "unix:/path/sock", NUL-terminated
 * @param hostlen its size
 * @param port    out: 1..65535, or 0 for a Unix socket
 * @param err     caller-owned buffer quoting the line
 * @param errlen  its size
 * @return SUP_OK, SUP_EUSAGE (NULL arguments; no " on "; no port or a port outside
 *         1..65535; host longer than hostlen - 1).
 */
int sup_parse_listen(const char *line, char *host, size_t hostlen, int *port, char *err,
                     size_t errlen);

/**
 * Stop every running child (SIGTERM to its process group, SIGKILL after the grace period) and
 * reap them all, still delivering their output. Those children are marked stopped, not failed.
 * The supervisor is finished afterwards: sup_start is refused, sup_wait returns the earlier
 * result (SUP_OK when there was none). Safe to call more than once.
 * @param s supervisor, or NULL (no-op)
 * @return the number of children that needed SIGKILL.
 */
int sup_stop(sup *s);

/**
 * Number of children started.
 * @param s supervisor, not NULL
 * @return count of successful sup_start calls.
 */
size_t sup_count(const sup *s);

/**
 * Describe one child. Pointers inside `info` stay valid until the next call on `s`.
 * @param s    supervisor, not NULL
 * @param idx  child index
 * @param info out: filled in
 * @return SUP_OK, SUP_EUSAGE (bad index or NULL).
 */
int sup_child(const sup *s, int idx, sup_child_info *info);

/**
 * Name of a signal ("SIGKILL"), or "signal N" for one not in the table.
 * @param sig signal number
 * @param buf caller-owned buffer used for the "signal N" form, at least 16 bytes
 * @param len its size
 * @return a static name or buf; never NULL.
 */
const char *sup_signal_name(int sig, char *buf, size_t len);

/**
 * Stop and reap every child (as sup_stop), then free the supervisor. Accepts NULL.
 * @param s supervisor or NULL
 */
void sup_free(sup *s);

#endif
