/* Process supervision (federate/run/supervise.h): fork/exec with captured pipes, one poll(2) loop
 * that reads lines and reaps exits, and the stop sequence SIGTERM -> grace -> SIGKILL.
 * doc/run.md. Divisions: time and errors, signals, output
 * lines, reaping, the loop, start, public calls. Read tests/unit/supervise_test.c next.
 */
#include "federate/run/supervise.h"
#include "federate/run/run_check.h"
#include "federate/run/run_err.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

extern char **environ;

enum {
    DEFAULT_GRACE_MS = 2000, /* SIGTERM -> SIGKILL when opts.grace_ms is 0 */
    SETTLE_MS = 300,         /* wait for a signalled peer before naming a failed child */
    POLL_CAP_MS = 50,        /* longest poll without a SIGCHLD wake-up: exit-detection latency */
    POLL_CAP_SIG_MS = 250,   /* the same when SIGCHLD wakes the loop (catch_signals) */
    MSG_TAIL_LINES = 4,      /* stderr lines quoted in a failure message */
};

/* One captured pipe: the read end and the bytes of the line not finished yet. */
typedef struct lbuf {
    int fd;                 /* read end, -1 once closed */
    size_t len;             /* bytes in buf */
    char buf[SUP_LINE_MAX]; /* pending partial line, never NUL-terminated until delivery */
} lbuf;

/* One child. */
typedef struct child {
    char *name;
    pid_t pid;
    sup_state state;
    int code, sig;     /* exit status / signal once reaped; -1 / 0 before */
    int service;       /* spec.service */
    int stopped;       /* the supervisor sent it SIGTERM */
    int failed;        /* its end counted as a failure */
    lbuf out, err;     /* stdout, stderr */
    size_t tail_first; /* ring index of the oldest kept stderr line */
    size_t n_tail;     /* kept stderr lines */
    char tail[SUP_TAIL_LINES][SUP_TAIL_LEN];
    char ordered[SUP_TAIL_LINES][SUP_TAIL_LEN]; /* tail oldest-first, for sup_child */
    size_t out_first, n_out;                    /* ring of the last stdout lines, as tail */
    size_t out_unseen; /* newest lines of that ring no sup_wait_line has examined */
    char out_tail[SUP_TAIL_LINES][SUP_TAIL_LEN];
} child;

/* Signal dispositions replaced while a catch_signals supervisor exists. */
typedef struct sigsave {
    int active;
    struct sigaction old_int, old_term, old_chld;
} sigsave;

struct sup {
    sup_opts o;
    sigsave sv; /* catch_signals: the dispositions to restore in sup_free */
    child **c;  /* started children, in start order */
    size_t n;
    long long t0_ms; /* monotonic time of sup_new */
    int wake[2];     /* self-pipe written by the signal handler; -1 without catch_signals */
    int finished;    /* a failure, timeout, signal or the end of sup_wait: no more starts */
    int final_rc;    /* status to repeat when sup_wait is called after the end */
    char final_err[SUP_ERRLEN];
    /* sup_wait_line state */
    int match_idx;          /* child whose stdout is searched, -1 when none */
    const char *match_need; /* substring searched */
    int matched;            /* set by deliver() */
    char match_line[SUP_LINE_MAX];
    /* the first failure, reported once the others had fail_grace_ms to end */
    child *first_bad; /* NULL: none yet */
    const char *first_why;
    long long bad_ms; /* monotonic time it was seen */
    struct pollfd pfd[2 * SUP_MAX_CHILDREN + 1];
    lbuf *pbuf[2 * SUP_MAX_CHILDREN + 1]; /* pipe of each pfd entry (NULL: wake pipe) */
    child *pchild[2 * SUP_MAX_CHILDREN + 1];
};

/* ======================================================================================
 * Time and errors
 * ====================================================================================== */

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *sup_signal_name(int sig, char *buf, size_t len)
{
    static const struct {
        int sig;
        const char *name;
    } tab[] = {
        {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
        {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
        {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
        {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"}, {SIGCHLD, "SIGCHLD"},
        {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {SIGSYS, "SIGSYS"},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (tab[i].sig == sig) return tab[i].name;
    if (buf && len > 0) {
        snprintf(buf, len, "signal %d", sig);
        return buf;
    }
    return "unknown signal";
}

/* "child 'B' (pid 42) exited with status 3; last stderr: a | b" into err. */
static void describe_end(const child *c, const char *what, char *err, size_t errlen)
{
    char sb[32];
    size_t off = 0;
    int w;
    if (!err || errlen == 0) return;
    if (c->state == SUP_SIGNALED)
        w = snprintf(err, errlen, "child '%s' (pid %ld) was killed by %s", c->name, (long)c->pid,
                     sup_signal_name(c->sig, sb, sizeof sb));
    else
        w = snprintf(err, errlen, "child '%s' (pid %ld) exited with status %d%s", c->name,
                     (long)c->pid, c->code, what ? what : "");
    off = w < 0 ? 0 : (size_t)w;
    size_t first = c->n_tail > MSG_TAIL_LINES ? c->n_tail - MSG_TAIL_LINES : 0;
    for (size_t i = first; i < c->n_tail && off + 1 < errlen; i++) {
        const char *ln = c->tail[(c->tail_first + i) % SUP_TAIL_LINES];
        w = snprintf(err + off, errlen - off, "%s%s", i == first ? "; last stderr: " : " | ", ln);
        off += w < 0 ? 0 : (size_t)w;
    }
}

/* ======================================================================================
 * Signals: from sup_new to sup_free of a catch_signals supervisor, SIGINT/SIGTERM set a flag
 * (acted on by the next sup_start, sup_wait or sup_wait_line) and SIGCHLD/SIGINT/SIGTERM
 * write one byte to its self-pipe to wake poll. Only one such supervisor may exist (the
 * handler has no context); g_owner enforces it.
 * ====================================================================================== */

static volatile sig_atomic_t g_sig;       /* SIGINT/SIGTERM received, 0 when none */
static volatile sig_atomic_t g_wake = -1; /* write end of the active self-pipe */
static const sup *g_owner;                /* the supervisor that owns the handlers */

static void on_signal(int sig)
{
    int saved = errno;
    if (sig == SIGINT || sig == SIGTERM) g_sig = sig;
    if (g_wake >= 0) {
        char b = 1;
        ssize_t r = write(g_wake, &b, 1);
        (void)r; /* a full pipe already wakes poll */
    }
    errno = saved;
}

static void signals_on(sup *s, sigsave *sv)
{
    struct sigaction sa;
    sv->active = 0;
    if (!s->o.catch_signals) return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    g_sig = 0;
    g_wake = s->wake[1];
    sigaction(SIGINT, &sa, &sv->old_int);
    sigaction(SIGTERM, &sa, &sv->old_term);
    sigaction(SIGCHLD, &sa, &sv->old_chld);
    sv->active = 1;
}

static void signals_off(sigsave *sv)
{
    if (!sv->active) return;
    sigaction(SIGINT, &sv->old_int, NULL);
    sigaction(SIGTERM, &sv->old_term, NULL);
    sigaction(SIGCHLD, &sv->old_chld, NULL);
    g_wake = -1;
    sv->active = 0;
}

/* ======================================================================================
 * Output lines
 * ====================================================================================== */

/* Append line to a ring of SUP_TAIL_LINES lines (first, n: oldest slot and count). */
static void ring_push(char ring[][SUP_TAIL_LEN], size_t *first, size_t *n, const char *line)
{
    size_t slot;
    if (*n < SUP_TAIL_LINES) {
        slot = (*first + *n) % SUP_TAIL_LINES;
        (*n)++;
    } else {
        slot = *first;
        *first = (*first + 1) % SUP_TAIL_LINES;
    }
    snprintf(ring[slot], SUP_TAIL_LEN, "%s", line);
}

static void deliver(sup *s, child *c, sup_stream st, char *line)
{
    size_t n = strlen(line);
    if (n > 0 && line[n - 1] == '\r') line[n - 1] = '\0';
    if (st == SUP_STDERR) {
        ring_push(c->tail, &c->tail_first, &c->n_tail, line);
    } else {
        ring_push(c->out_tail, &c->out_first, &c->n_out, line);
        if (c->out_unseen < c->n_out) c->out_unseen++;
        if (s->match_idx >= 0 && !s->matched && s->c[s->match_idx] == c &&
            strstr(line, s->match_need)) {
            snprintf(s->match_line, sizeof s->match_line, "%s", line);
            s->matched = 1;
            c->out_unseen = 0;
        }
    }
    if (s->o.on_line) s->o.on_line(s->o.ctx, c->name, st, line);
}

/* Hand every complete line in b to deliver(); a full buffer goes out as one piece. */
static void split_lines(sup *s, child *c, sup_stream st, lbuf *b)
{
    size_t start = 0;
    for (size_t i = 0; i < b->len; i++) {
        if (b->buf[i] == '\n') {
            b->buf[i] = '\0';
            deliver(s, c, st, b->buf + start);
            start = i + 1;
        }
    }
    if (start > 0) {
        memmove(b->buf, b->buf + start, b->len - start);
        b->len -= start;
    }
    if (b->len == sizeof b->buf - 1) { /* no newline in a full buffer: a piece of a long line */
        b->buf[b->len] = '\0';
        deliver(s, c, st, b->buf);
        b->len = 0;
    }
}

static void close_pipe(sup *s, child *c, sup_stream st, lbuf *b)
{
    if (b->fd < 0) return;
    if (b->len > 0) { /* last line without a newline */
        b->buf[b->len] = '\0';
        deliver(s, c, st, b->buf);
        b->len = 0;
    }
    close(b->fd);
    b->fd = -1;
}

/* Read what is there (one read, or until EAGAIN/EOF when drain is set); closes on EOF. */
static void read_pipe(sup *s, child *c, sup_stream st, lbuf *b, int drain)
{
    while (b->fd >= 0) {
        ssize_t r = read(b->fd, b->buf + b->len, sizeof b->buf - 1 - b->len);
        if (r > 0) {
            b->len += (size_t)r;
            split_lines(s, c, st, b);
            if (!drain) return;
        } else if (r == 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
            close_pipe(s, c, st, b);
            return;
        } else if (errno != EINTR) {
            return; /* EAGAIN: nothing more now */
        }
    }
}

/* pipe(2) with both ends close-on-exec (and non-blocking when asked); pipe2 is a GNU extension. */
static int cx_pipe(int fds[2], int nonblock)
{
    if (pipe(fds) != 0) return -1;
    for (int i = 0; i < 2; i++) {
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
        if (nonblock) fcntl(fds[i], F_SETFL, O_NONBLOCK);
    }
    return 0;
}

/* ======================================================================================
 * Reaping
 * ====================================================================================== */

/* Reap child c if it has ended (block: wait for it). Returns 1 when reaped. Before reaping,
 * kills what is left of its process group (the zombie leader keeps the group id from being
 * reused), then drains and closes its pipes so its last lines are seen before its end. */
static int reap(sup *s, child *c, int block)
{
    siginfo_t si;
    int st;
    if (c->state != SUP_RUNNING) return 0;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOWAIT | (block ? 0 : WNOHANG)) != 0 ||
        si.si_pid != c->pid)
        return 0;
    kill(-c->pid, SIGKILL);
    while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR) {
    }
    read_pipe(s, c, SUP_STDOUT, &c->out, 1);
    read_pipe(s, c, SUP_STDERR, &c->err, 1);
    close_pipe(s, c, SUP_STDOUT, &c->out);
    close_pipe(s, c, SUP_STDERR, &c->err);
    if (WIFSIGNALED(st)) {
        c->state = SUP_SIGNALED;
        c->sig = WTERMSIG(st);
    } else {
        c->state = SUP_EXITED;
        c->code = WEXITSTATUS(st);
    }
    return 1;
}

/* Poll once (at most wait_ms) and read what is ready. Returns 0 or -errno of poll. */
static int poll_once(sup *s, long wait_ms)
{
    nfds_t n = 0;
    for (size_t i = 0; i < s->n; i++) {
        child *c = s->c[i];
        lbuf *bs[2] = {&c->out, &c->err};
        for (int k = 0; k < 2; k++) {
            if (bs[k]->fd < 0) continue;
            s->pfd[n].fd = bs[k]->fd;
            s->pfd[n].events = POLLIN;
            s->pfd[n].revents = 0;
            s->pbuf[n] = bs[k];
            s->pchild[n] = c;
            n++;
        }
    }
    if (s->wake[0] >= 0) {
        s->pfd[n].fd = s->wake[0];
        s->pfd[n].events = POLLIN;
        s->pfd[n].revents = 0;
        s->pbuf[n] = NULL;
        s->pchild[n] = NULL;
        n++;
    }
    long cap = s->wake[0] >= 0 ? POLL_CAP_SIG_MS : POLL_CAP_MS;
    int r = poll(s->pfd, n, (int)(wait_ms < 0 ? 0 : wait_ms > cap ? cap : wait_ms));
    if (r < 0) return errno == EINTR ? 0 : -errno;
    for (nfds_t i = 0; i < n; i++) {
        if (!s->pfd[i].revents) continue;
        if (!s->pbuf[i]) {
            char junk[64];
            while (read(s->wake[0], junk, sizeof junk) > 0) {
            }
            continue;
        }
        child *c = s->pchild[i];
        read_pipe(s, c, s->pbuf[i] == &c->out ? SUP_STDOUT : SUP_STDERR, s->pbuf[i], 0);
    }
    return 0;
}

/* ======================================================================================
 * Stopping
 * ====================================================================================== */

static int stop_all(sup *s)
{
    int killed = 0, any = 0;
    for (size_t i = 0; i < s->n; i++) {
        child *c = s->c[i];
        if (c->state != SUP_RUNNING) continue;
        c->stopped = 1;
        any = 1;
        if (kill(-c->pid, SIGTERM) != 0)
            kill(c->pid, SIGTERM); /* not yet its own group leader (setpgid race) */
        /* A stopped child (SIGSTOP) acts on SIGTERM only once continued. */
        if (kill(-c->pid, SIGCONT) != 0) kill(c->pid, SIGCONT);
    }
    long long deadline = now_ms() + (s->o.grace_ms > 0 ? s->o.grace_ms : DEFAULT_GRACE_MS);
    while (any) {
        any = 0;
        for (size_t i = 0; i < s->n; i++) {
            reap(s, s->c[i], 0);
            any |= s->c[i]->state == SUP_RUNNING;
        }
        long long left = deadline - now_ms();
        if (!any || left <= 0) break;
        poll_once(s, left < 10 ? left : 10); /* short: no SIGCHLD wake-up is certain here */
    }
    for (size_t i = 0; i < s->n; i++) {
        child *c = s->c[i];
        if (c->state != SUP_RUNNING) continue;
        killed++;
        if (kill(-c->pid, SIGKILL) != 0) kill(c->pid, SIGKILL);
        reap(s, c, 1);
    }
    s->finished = 1;
    return killed;
}

/* ======================================================================================
 * The loop shared by sup_wait and sup_wait_line
 * ====================================================================================== */

static int finish(sup *s, int rc, const char *msg, char *err, size_t errlen)
{
    s->finished = 1;
    s->final_rc = rc;
    snprintf(s->final_err, sizeof s->final_err, "%s", msg);
    return run_fail(err, errlen, rc, "%s", msg);
}

static int interrupted(const sup *s)
{
    return s->sv.active && g_sig;
}

/* SIGINT/SIGTERM reached us: stop everything and say which signal. */
static int finish_intr(sup *s, char *err, size_t errlen)
{
    char msg[128], sb[32];
    snprintf(msg, sizeof msg, "interrupted by %s: stopped every child",
             sup_signal_name((int)g_sig, sb, sizeof sb));
    stop_all(s);
    return finish(s, SUP_EINTR, msg, err, errlen);
}

/* A worker exited with a failure code: before naming it, give the others up to SETTLE_MS to
 * end, since a peer killed by a signal (the cause) may take a moment longer to be reaped than
 * the federate that saw it leave and exited at once. Waits no longer than some worker is still
 * running (a federation in one process is one worker: nobody to wait for). Returns the child
 * to name. */
static child *settle(sup *s, child *bad)
{
    long long until = now_ms() + SETTLE_MS;
    while (now_ms() < until) {
        int running = 0;
        for (size_t i = 0; i < s->n; i++) {
            child *c = s->c[i];
            if (reap(s, c, 0) && !c->stopped &&
                (c->service || c->state == SUP_SIGNALED || c->code != 0)) {
                c->failed = 1; /* reaped here: the run loop will not see it again */
                if (c->state == SUP_SIGNALED) return c;
            }
            running += c->state == SUP_RUNNING && !c->service && !c->stopped;
        }
        if (!running) break;
        poll_once(s, 10);
    }
    return bad;
}

/* Run until: line mode (match_idx >= 0) the line is found; wait mode every non-service child
 * has exited 0. line_deadline is an absolute monotonic time in ms, or 0. */
static int run(sup *s, long long line_deadline, char *err, size_t errlen)
{
    char msg[SUP_ERRLEN];
    long long gdeadline = s->o.timeout_ms > 0 ? s->t0_ms + s->o.timeout_ms : 0;
    int rc = SUP_OK;
    for (;;) {
        /* reap, and find the first failure */
        child *bad = NULL;
        const char *why = NULL;
        int workers_left = 0;
        for (size_t i = 0; i < s->n; i++) {
            child *c = s->c[i];
            if (reap(s, c, 0) && !c->stopped) {
                int is_target = s->match_idx >= 0 && s->c[s->match_idx] == c && !s->matched;
                if (c->service || is_target || c->state == SUP_SIGNALED || c->code != 0) {
                    c->failed = 1;
                    /* A child killed by a signal is the cause rather than a peer that exited
                     * because it left: name it when both are seen in one scan. */
                    if (!bad || (c->state == SUP_SIGNALED && bad->state != SUP_SIGNALED)) {
                        bad = c;
                        why = is_target    ? " before printing the expected line"
                              : c->service ? " while it should keep serving"
                                           : NULL;
                    }
                }
            }
            workers_left += c->state == SUP_RUNNING && !c->service;
        }
        if (bad && !s->first_bad) {
            /* a child that exited with a failure code may be a peer of one being signalled */
            if (bad->state != SUP_SIGNALED && !why) bad = settle(s, bad);
            s->first_bad = bad;
            s->first_why = why;
            s->bad_ms = now_ms();
        }
        /* the first failure, once the others had fail_grace_ms to end on their own */
        if (s->first_bad && (workers_left == 0 || now_ms() - s->bad_ms >= s->o.fail_grace_ms)) {
            describe_end(s->first_bad, s->first_why, msg, sizeof msg);
            stop_all(s);
            return finish(s, SUP_ECHILD, msg, err, errlen);
        }
        if (interrupted(s)) return finish_intr(s, err, errlen);
        if (s->match_idx >= 0 && s->matched) break;
        if (s->match_idx < 0 && workers_left == 0) {
            stop_all(s); /* the services */
            s->final_rc = SUP_OK;
            s->final_err[0] = '\0';
            return SUP_OK;
        }
        if (s->o.on_tick) s->o.on_tick(s->o.ctx);
        long long now = now_ms(), wait = POLL_CAP_SIG_MS;
        if (s->first_bad && s->bad_ms + s->o.fail_grace_ms - now < wait)
            wait =
                s->bad_ms + s->o.fail_grace_ms - now > 0 ? s->bad_ms + s->o.fail_grace_ms - now : 0;
        if (gdeadline && now >= gdeadline) {
            size_t off = (size_t)snprintf(msg, sizeof msg,
                                          "timeout after %ld ms; still running:", s->o.timeout_ms);
            for (size_t i = 0; i < s->n && off + 1 < sizeof msg; i++)
                if (s->c[i]->state == SUP_RUNNING)
                    off += (size_t)snprintf(msg + off, sizeof msg - off, " '%s'%s", s->c[i]->name,
                                            run_proc_stopped(s->c[i]->pid) ? " (stopped)" : "");
            stop_all(s);
            return finish(s, SUP_ETIMEOUT, msg, err, errlen);
        }
        if (line_deadline && now >= line_deadline) {
            rc = run_fail(err, errlen, SUP_ETIMEOUT,
                          "child '%s': no stdout line containing '%s' within the timeout",
                          s->c[s->match_idx]->name, s->match_need);
            break;
        }
        if (gdeadline && gdeadline - now < wait) wait = gdeadline - now;
        if (line_deadline && line_deadline - now < wait) wait = line_deadline - now;
        int pr = poll_once(s, wait);
        if (pr < 0) {
            snprintf(msg, sizeof msg, "poll: %s", strerror(-pr));
            stop_all(s);
            return finish(s, SUP_ESYS, msg, err, errlen);
        }
    }
    return rc;
}

/* ======================================================================================
 * Starting a child
 * ====================================================================================== */

/* The parent's environment with env_add merged in (pointers only; NULL-terminated). */
static char **merged_env(char *const *add)
{
    size_t ne = 0, na = 0;
    while (environ && environ[ne])
        ne++;
    while (add && add[na])
        na++;
    char **e = calloc(ne + na + 1, sizeof *e);
    if (!e) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < ne; i++)
        e[n++] = environ[i];
    for (size_t j = 0; j < na; j++) {
        const char *eq = strchr(add[j], '=');
        size_t klen = eq ? (size_t)(eq - add[j]) + 1 : strlen(add[j]);
        size_t k;
        for (k = 0; k < n; k++)
            if (strncmp(e[k], add[j], klen) == 0) break;
        e[k] = add[j];
        if (k == n) n++;
    }
    e[n] = NULL;
    return e;
}

/* In the child, after fork: never returns. Reports a failure as (stage, errno) on ep. */
static void child_exec(const sup_spec *sp, char **envp, int out_w, int err_w, int ep, pid_t parent)
{
    int rep[2];
    sigset_t none;
    setpgid(0, 0);
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
#else
    (void)parent;
#endif
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int dn = open("/dev/null", O_RDONLY);
    if (dn < 0 || dup2(dn, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0) {
        rep[0] = 1;
        goto report;
    }
    if (sp->cwd && chdir(sp->cwd) != 0) {
        rep[0] = 2;
        goto report;
    }
    environ = envp;
    execvp(sp->argv[0], sp->argv);
    rep[0] = 3;
report:
    rep[1] = errno;
    if (write(ep, rep, sizeof rep) < 0) _exit(126);
    _exit(127);
}

static void child_free(child *c)
{
    if (!c) return;
    if (c->out.fd >= 0) close(c->out.fd);
    if (c->err.fd >= 0) close(c->err.fd);
    free(c->name);
    free(c);
}

/* Fork and exec sp into c (pid, pipes). Waits for the close-on-exec report pipe: EOF means
 * the exec succeeded; (stage, errno) means it failed, and the child is reaped here. */
static int spawn(child *c, const sup_spec *sp, char **envp, char *err, size_t errlen)
{
    int po[2] = {-1, -1}, pe[2] = {-1, -1}, ep[2] = {-1, -1}, rep[2], st, rc = SUP_OK;
    if (cx_pipe(po, 0) || cx_pipe(pe, 0) || cx_pipe(ep, 0)) {
        rc = run_fail(err, errlen, SUP_ESYS, "child '%s': pipe: %s", sp->name, strerror(errno));
        goto out;
    }
    fflush(NULL); /* the child must not write our buffered output again */
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        rc = run_fail(err, errlen, SUP_ESYS, "child '%s': fork: %s", sp->name, strerror(errno));
        goto out;
    }
    if (pid == 0) child_exec(sp, envp, po[1], pe[1], ep[1], parent);
    setpgid(pid, pid); /* also done in the child; whichever runs first wins, both are fine */
    close(ep[1]);
    ep[1] = -1;
    ssize_t r;
    while ((r = read(ep[0], rep, sizeof rep)) < 0 && errno == EINTR) {
    }
    if (r == (ssize_t)sizeof rep) {
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
        const char *stage = rep[0] == 1   ? "cannot redirect stdio"
                            : rep[0] == 2 ? "cannot change directory to"
                                          : "cannot execute";
        const char *what = rep[0] == 2 ? sp->cwd : rep[0] == 3 ? sp->argv[0] : "";
        rc = run_fail(err, errlen, SUP_EEXEC, "child '%s': %s '%s': %s", sp->name, stage, what,
                      strerror(rep[1]));
        goto out;
    }
    c->pid = pid;
    c->state = SUP_RUNNING;
    c->out.fd = po[0];
    c->err.fd = pe[0];
    po[0] = pe[0] = -1;
    fcntl(c->out.fd, F_SETFL, O_NONBLOCK);
    fcntl(c->err.fd, F_SETFL, O_NONBLOCK);
out:
    for (int i = 0; i < 2; i++) {
        if (po[i] >= 0) close(po[i]);
        if (pe[i] >= 0) close(pe[i]);
        if (ep[i] >= 0) close(ep[i]);
    }
    return rc;
}

int sup_start(sup *s, const sup_spec *sp, char *err, size_t errlen)
{
    if (!s || !sp || !sp->name || !sp->argv || !sp->argv[0])
        return run_fail(err, errlen, SUP_EUSAGE, "sup_start: NULL supervisor, spec, name or argv");
    if (s->finished)
        return run_fail(err, errlen, SUP_EUSAGE, "child '%s': the supervisor has already finished",
                        sp->name);
    if (interrupted(s)) return finish_intr(s, err, errlen);
    if (s->n >= SUP_MAX_CHILDREN)
        return run_fail(err, errlen, SUP_EUSAGE, "child '%s': more than %d children", sp->name,
                        SUP_MAX_CHILDREN);
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->c[i]->name, sp->name) == 0)
            return run_fail(err, errlen, SUP_EUSAGE, "child '%s': name used twice", sp->name);
    /* Grow the list first, so that nothing can fail once the process runs. */
    child **nc = realloc(s->c, (s->n + 1) * sizeof *nc);
    if (!nc) return run_fail(err, errlen, SUP_ENOMEM, "child '%s': out of memory", sp->name);
    s->c = nc;
    char **envp = NULL;
    child *c = calloc(1, sizeof *c);
    if (!c || !(c->name = strdup(sp->name)) || !(envp = merged_env(sp->env_add))) {
        child_free(c);
        return run_fail(err, errlen, SUP_ENOMEM, "child '%s': out of memory", sp->name);
    }
    c->out.fd = c->err.fd = -1;
    c->code = -1;
    c->service = sp->service ? 1 : 0;
    int rc = spawn(c, sp, envp, err, errlen);
    free(envp);
    if (rc != SUP_OK) {
        child_free(c);
        return rc;
    }
    s->c[s->n] = c;
    return (int)s->n++;
}

/* ======================================================================================
 * Public calls
 * ====================================================================================== */

int sup_new(sup **out, const sup_opts *opts, char *err, size_t errlen)
{
    if (!out) return run_fail(err, errlen, SUP_EUSAGE, "sup_new: NULL out");
    *out = NULL;
    if (opts && (opts->grace_ms < 0 || opts->timeout_ms < 0))
        return run_fail(err, errlen, SUP_EUSAGE, "sup_new: negative grace_ms or timeout_ms");
    if (opts && opts->catch_signals && g_owner)
        return run_fail(err, errlen, SUP_EUSAGE,
                        "sup_new: another supervisor already catches signals");
    sup *s = calloc(1, sizeof *s);
    if (!s) return run_fail(err, errlen, SUP_ENOMEM, "sup_new: out of memory");
    if (opts) s->o = *opts;
    s->wake[0] = s->wake[1] = -1;
    s->match_idx = -1;
    s->t0_ms = now_ms();
    if (s->o.catch_signals) {
        if (cx_pipe(s->wake, 1) != 0) {
            free(s);
            return run_fail(err, errlen, SUP_ESYS, "sup_new: pipe: %s", strerror(errno));
        }
        g_owner = s;
        signals_on(s, &s->sv);
    }
    *out = s;
    return SUP_OK;
}

int sup_wait(sup *s, char *err, size_t errlen)
{
    if (!s) return run_fail(err, errlen, SUP_EUSAGE, "sup_wait: NULL supervisor");
    if (s->finished)
        return s->final_rc == SUP_OK ? SUP_OK
                                     : run_fail(err, errlen, s->final_rc, "%s", s->final_err);
    s->match_idx = -1;
    return run(s, 0, err, errlen);
}

int sup_wait_line(sup *s, int idx, const char *needle, long timeout_ms, char *line, size_t linelen,
                  char *err, size_t errlen)
{
    if (!s || !needle || !needle[0] || !line || linelen == 0 || timeout_ms <= 0)
        return run_fail(err, errlen, SUP_EUSAGE,
                        "sup_wait_line: NULL or empty argument, or timeout <= 0");
    if (idx < 0 || (size_t)idx >= s->n)
        return run_fail(err, errlen, SUP_EUSAGE, "sup_wait_line: no child %d", idx);
    if (s->finished)
        return run_fail(err, errlen, s->final_rc ? s->final_rc : SUP_EUSAGE, "%s",
                        s->final_rc ? s->final_err : "the supervisor has already finished");
    /* lines that arrived before this call (while waiting for another child) count too */
    child *c = s->c[idx];
    for (size_t i = c->n_out - c->out_unseen; i < c->n_out; i++) {
        const char *ln = c->out_tail[(c->out_first + i) % SUP_TAIL_LINES];
        if (strstr(ln, needle)) {
            c->out_unseen = c->n_out - i - 1;
            snprintf(line, linelen, "%s", ln);
            return SUP_OK;
        }
    }
    c->out_unseen = 0;
    s->match_idx = idx;
    s->match_need = needle;
    s->matched = 0;
    int rc = run(s, now_ms() + timeout_ms, err, errlen);
    if (rc == SUP_OK) snprintf(line, linelen, "%s", s->match_line);
    s->match_idx = -1;
    s->match_need = NULL;
    return rc;
}

int sup_parse_listen(const char *line, char *host, size_t hostlen, int *port, char *err,
                     size_t errlen)
{
    if (!line || !host || hostlen == 0 || !port)
        return run_fail(err, errlen, SUP_EUSAGE, "sup_parse_listen: NULL argument");
    const char *a = NULL;
    for (const char *p = strstr(line, " on "); p; p = strstr(p + 1, " on "))
        a = p + 4;
    if (!a) return run_fail(err, errlen, SUP_EUSAGE, "'%s': no \" on ADDRESS\"", line);
    size_t len = strcspn(a, " \t\r\n");
    if (strncmp(a, "unix:", 5) == 0 && len > 5) {
        if (len >= hostlen)
            return run_fail(err, errlen, SUP_EUSAGE, "'%s': socket path too long", line);
        memcpy(host, a, len);
        host[len] = '\0';
        *port = 0;
        return SUP_OK;
    }
    const char *colon = NULL;
    for (size_t i = 0; i < len; i++)
        if (a[i] == ':') colon = a + i;
    if (!colon || colon == a)
        return run_fail(err, errlen, SUP_EUSAGE, "'%s': expected HOST:PORT", line);
    char *end;
    long pt = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || end != a + len || pt < 1 || pt > 65535)
        return run_fail(err, errlen, SUP_EUSAGE, "'%s': port is not 1..65535", line);
    const char *h = a, *he = colon;
    if (*h == '[' && he > h + 1 && he[-1] == ']') {
        h++;
        he--;
    }
    if ((size_t)(he - h) >= hostlen)
        return run_fail(err, errlen, SUP_EUSAGE, "'%s': host too long", line);
    memcpy(host, h, (size_t)(he - h));
    host[he - h] = '\0';
    *port = (int)pt;
    return SUP_OK;
}

int sup_stop(sup *s)
{
    if (!s) return 0;
    return stop_all(s);
}

size_t sup_count(const sup *s)
{
    return s ? s->n : 0;
}

int sup_child(const sup *s, int idx, sup_child_info *info)
{
    if (!s || !info || idx < 0 || (size_t)idx >= s->n) return SUP_EUSAGE;
    child *c = s->c[idx];
    memset(info, 0, sizeof *info);
    info->name = c->name;
    info->pid = c->pid;
    info->state = c->state;
    info->code = c->state == SUP_EXITED ? c->code : -1;
    info->sig = c->state == SUP_SIGNALED ? c->sig : 0;
    info->stopped = c->stopped;
    info->failed = c->failed;
    info->n_tail = c->n_tail;
    for (size_t i = 0; i < c->n_tail; i++) {
        memcpy(c->ordered[i], c->tail[(c->tail_first + i) % SUP_TAIL_LINES], SUP_TAIL_LEN);
        info->tail[i] = c->ordered[i];
    }
    return SUP_OK;
}

void sup_free(sup *s)
{
    if (!s) return;
    stop_all(s);
    signals_off(&s->sv);
    for (size_t i = 0; i < s->n; i++)
        child_free(s->c[i]);
    free(s->c);
    if (s->wake[0] >= 0) {
        close(s->wake[0]);
        close(s->wake[1]);
    }
    if (g_owner == s) g_owner = NULL;
    free(s);
}
