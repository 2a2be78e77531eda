#define _GNU_SOURCE /* struct ucred (SO_PEERCRED) */
/* The RTI's defences at the door: accepting under descriptor exhaustion (listeners paused
 * with backoff, one report line per interval with counts), the connection limit, and the
 * claim of a Unix socket path (a live socket is never taken over). Serves doc/rti.md
 * ("Limits and what the RTI refuses"). Read rti/server/conn.c next. */
#include "rti/proto/buf.h"
#include "rti/proto/status.h"
#include "rti/proto/wire.h"
#include "rti/server/conn.h"
#include "rti/server/log.h"

#include <errno.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static long long mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One line for everything counted since the last one, at most once per CONN_GUARD_REPORT_MS
 * (force: now, if anything is counted). */
static void report(struct conn_hub *hub, int force)
{
    struct conn_guard *g = &hub->guard;
    long long now = mono_ms();
    if (!g->fails && !g->refused) return;
    if (!force && g->last_report_ms && now - g->last_report_ms < CONN_GUARD_REPORT_MS) return;
    if (g->fails)
        LOGW("conn", "-",
             "accept failed %llu time(s) (%s; %llu since start, %zu connection(s) open): "
             "listeners paused, next pause %d ms",
             (unsigned long long)g->fails, strerror(g->last_errno),
             (unsigned long long)g->fails_total, hub->n_conns, g->backoff_ms);
    if (g->refused)
        LOGW("conn", "-",
             "refused %llu connection(s) over --max-connections %zu (%llu since start)",
             (unsigned long long)g->refused, hub->lim.max_conns,
             (unsigned long long)g->refused_total);
    g->fails = g->refused = 0;
    g->last_report_ms = now;
}

static void set_listeners(struct conn_hub *hub, int on)
{
    for (int i = 0; i < hub->n_lst; i++) {
        if (on)
            evconnlistener_enable(hub->lst[i]);
        else
            evconnlistener_disable(hub->lst[i]);
    }
}

static void resume_cb(evutil_socket_t fd, short what, void *arg)
{
    struct conn_hub *hub = arg;
    set_listeners(hub, 1);
    report(hub, 0);
}

void conn_guard_accept_failed(struct conn_hub *hub, int e)
{
    struct conn_guard *g = &hub->guard;
    g->fails++;
    g->fails_total++;
    g->last_errno = e;
    if (g->backoff_ms < CONN_GUARD_BACKOFF_MIN_MS) g->backoff_ms = CONN_GUARD_BACKOFF_MIN_MS;
    int pause = g->backoff_ms;
    if (g->backoff_ms < CONN_GUARD_BACKOFF_MAX_MS) g->backoff_ms *= 2;
    if (g->backoff_ms > CONN_GUARD_BACKOFF_MAX_MS) g->backoff_ms = CONN_GUARD_BACKOFF_MAX_MS;
    report(hub, 0);
    /* Level-triggered: an enabled listener with a pending connection it cannot accept would
     * wake the loop at once, forever. Disabled, it costs nothing until the timer. */
    if (!g->resume) g->resume = event_new(hub->base, -1, 0, resume_cb, hub);
    if (!g->resume) return; /* cannot pause: the failure is still counted and rate-limited */
    set_listeners(hub, 0);
    struct timeval tv = {pause / 1000, (pause % 1000) * 1000};
    event_add(g->resume, &tv);
}

/* An ERROR frame saying why, written without waiting (the socket is new: it has room). */
static void refuse_fd(struct conn_hub *hub, int fd)
{
    struct buf b = {0};
    struct wire_msg m;
    char text[160], err[120];
    snprintf(text, sizeof text, "RTI connection limit reached (--max-connections %zu)",
             hub->lim.max_conns);
    wire_msg_init(&m, WIRE_ERROR);
    m.code = STATUS_EREFUSED;
    wire_str_set(&m.str[0], text);
    if (wire_encode(&b, &m, 0, err, sizeof err) == WIRE_OK) {
        ssize_t w = send(fd, b.data, b.len, MSG_NOSIGNAL | MSG_DONTWAIT);
        (void)w; /* best effort: the close says the rest */
    }
    buf_fini(&b);
    evutil_closesocket(fd);
}

int conn_guard_admit(struct conn_hub *hub, int fd)
{
    struct conn_guard *g = &hub->guard;
    if (hub->lim.max_conns && hub->n_conns >= hub->lim.max_conns) {
        g->refused++;
        g->refused_total++;
        refuse_fd(hub, fd);
        report(hub, 0);
        return -1;
    }
    if (g->backoff_ms > CONN_GUARD_BACKOFF_MIN_MS || g->fails) {
        report(hub, 1);
        LOGI("conn", "-", "accepting again (%zu connection(s) open)", hub->n_conns);
        g->backoff_ms = CONN_GUARD_BACKOFF_MIN_MS;
    }
    return 0;
}

void conn_guard_fini(struct conn_hub *hub)
{
    report(hub, 1);
    if (hub->guard.resume) event_free(hub->guard.resume);
    hub->guard.resume = NULL;
}

/* ---- Unix socket path ------------------------------------------------------------------ */

/* Is a server accepting on the socket file at path? 1 with its pid in *pid (0 when unknown),
 * 0 when stale (connection refused), -1 when it cannot tell (errno kept). */
static int unix_live(const char *path, pid_t *pid)
{
    struct sockaddr_un sun;
    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    memcpy(sun.sun_path, path, strlen(path) + 1);
    *pid = 0;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int rc = connect(fd, (struct sockaddr *)&sun, sizeof sun);
    int e = errno;
    if (rc == 0) {
        struct ucred cr;
        socklen_t len = sizeof cr;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0) *pid = cr.pid;
        close(fd);
        return 1;
    }
    close(fd);
    errno = e;
    if (e == ECONNREFUSED) return 0;
    if (e == EAGAIN) return 1; /* its backlog is full: very much alive */
    return -1;
}

int conn_guard_unix_claim(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT) return 0;
        snprintf(err, errlen, "--unix '%s': lstat: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISSOCK(st.st_mode)) {
        snprintf(err, errlen, "--unix '%s': exists and is not a socket; not replacing it", path);
        return -1;
    }
    pid_t pid;
    int live = unix_live(path, &pid);
    if (live == 1) {
        if (pid > 0)
            snprintf(err, errlen, "--unix '%s': in use by pid %ld (a server accepts on it)", path,
                     (long)pid);
        else
            snprintf(err, errlen, "--unix '%s': in use (a server accepts on it)", path);
        return -1;
    }
    if (live < 0) {
        snprintf(err, errlen, "--unix '%s': cannot tell whether it is in use (connect: %s)", path,
                 strerror(errno));
        return -1;
    }
    if (unlink(path) != 0 && errno != ENOENT) {
        snprintf(err, errlen, "--unix '%s': removing the stale socket: %s", path, strerror(errno));
        return -1;
    }
    LOGI("conn", "-", "--unix '%s': replaced a stale socket file (nobody accepted on it)", path);
    return 0;
}
