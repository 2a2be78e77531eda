/* The process guard of an FMU host (federate/fmu/fmu_guard.h): an exit() or a crash inside an
 * FMU in the middle of a run becomes a failed run naming the federate, never a status 0.
 * doc/robustness.md, "Faults inside an FMU". Read federate/fmu/fmu_step.c (the marks) next.
 *
 * Why an on_exit handler and not a check at the end: the FMU's exit() never returns to the
 * host, so the only code that still runs is the exit handlers. on_exit (glibc) gives the
 * status the FMU passed, for the message. The handler ends the process with _exit, after
 * flushing stdio, so the exit status is the host's, not the FMU's.
 */
#include "federate/fmu/fmu_guard.h"
#include "federate/fmu/fmu_zip.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *g_program = "tempo-fmu";
static volatile sig_atomic_t g_running; /* a run is marked */
static char g_who[160];                 /* what fmu_guard_run named */
static int g_installed;

/* The calling thread's FMU call, or NULL (tasks switch only between FMU calls, so a
 * thread-local mark is exact in tasks mode too). */
static _Thread_local const char *t_who;
static _Thread_local const char *t_call;
static _Thread_local int t_depth;

static void on_exit_handler(int status, void *arg)
{
    (void)arg;
    if (!g_running && !t_depth) return; /* an ordinary end */
    const char *who = t_depth && t_who ? t_who : g_who;
    fflush(stdout);
    fprintf(stderr,
            "%s: %s: the process is ending in the middle of the run: exit(%d) was called (by the "
            "FMU or a library it uses%s%s), not by %s\n",
            g_program, who[0] ? who : "?", status, t_depth ? ", inside " : "",
            t_depth && t_call ? t_call : "", g_program);
    fflush(NULL);          /* the CSVs: whole rows (federate/run/results.c writes a row at once) */
    fmu_zip_remove_live(); /* the FMUs are never unloaded: their unpacked folders */
    _exit(FMU_GUARD_EXIT_STATUS);
}

static void put(const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, s, n);
        if (w <= 0) return;
        s += w, n -= (size_t)w;
    }
}

/* The fatal signals watched, and the actions they had before (a sanitizer's, say). */
static const int g_sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define N_SIGS (sizeof g_sigs / sizeof g_sigs[0])
static struct sigaction g_old[N_SIGS];

/* A fatal signal: name the FMU call it struck in (async-signal-safe writes only), then hand
 * it to the action it had before, usually the default: the process dies of it. */
static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (t_depth && t_who) {
        const char *name = sig == SIGSEGV  ? "SIGSEGV (segmentation fault)"
                           : sig == SIGBUS ? "SIGBUS"
                           : sig == SIGILL ? "SIGILL"
                           : sig == SIGFPE ? "SIGFPE"
                                           : "SIGABRT (abort)";
        put(g_program), put(": "), put(t_who), put(": "), put(name);
        put(" inside the FMU (");
        put(t_call ? t_call : "?");
        put("): the process dies of it\n");
    }
    /* The old action first: a fault in the clean-up below (SA_NODEFER lets it in) then ends
     * the process instead of entering this handler again and again. */
    for (size_t i = 0; i < N_SIGS; i++)
        if (g_sigs[i] == sig) sigaction(sig, &g_old[i], NULL);
    fmu_zip_remove_live();
    /* A fault strikes again when the handler returns, now under the old action; a signal
     * sent (raise, abort, kill) is sent again. */
    if (!si || si->si_code <= 0) raise(sig);
}

void fmu_guard_install(const char *program)
{
    if (g_installed) return;
    g_installed = 1;
    if (program) g_program = program;
    on_exit(on_exit_handler, NULL);
    for (size_t i = 0; i < N_SIGS; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_SIGINFO | SA_NODEFER;
        if (sigaction(g_sigs[i], &sa, &g_old[i]) != 0) g_old[i].sa_handler = SIG_DFL;
    }
}

void fmu_guard_run(int on, const char *who)
{
    if (on && who) snprintf(g_who, sizeof g_who, "%s", who);
    g_running = on != 0;
}

int fmu_guard_enter(const char *who, const char *call)
{
    int d = t_depth;
    if (!d) t_who = who, t_call = call; /* the outermost call names the FMU */
    t_depth = d + 1;
    return d;
}

void fmu_guard_leave(int depth)
{
    t_depth = depth;
}
