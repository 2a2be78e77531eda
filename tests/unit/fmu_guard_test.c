/* The process guard of an FMU host (federate/fmu/fmu_guard.c, doc/robustness.md "Faults inside
 * an FMU"), each case in a child process whose stderr is a pipe: exit(0) during a marked run
 * ends the process with status 1 and a message naming the run and the status; exit(3) inside
 * a marked FMU call names the federate and the call; exit() after the run is an ordinary end
 * (status kept, nothing said); SIGSEGV and SIGABRT inside an FMU call name them and the process
 * still dies of the signal, a real fault (a store to an unmapped address) as well as a raised
 * one; a signal outside an FMU call is left as it is; the action a signal
 * had before the guard (a sanitizer's) still runs after the guard's words. The child sets the
 * default actions first, so that the sanitized build (whose handlers would report instead)
 * checks the same. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "federate/fmu/fmu_guard.h"
#include "tests/check.h"

/* What the child does once the guard is installed. */
typedef enum {
    EXIT_IN_RUN,
    EXIT_IN_CALL,
    EXIT_AFTER_RUN,
    SEGV_IN_CALL,
    FAULT_IN_CALL,
    ABRT_IN_CALL,
    SEGV_OUT,
    SEGV_CHAINED
} act;

static void before(int sig)
{
    (void)sig;
    _exit(42);
}

static void child(act a)
{
    signal(SIGSEGV, a == SEGV_CHAINED ? before : SIG_DFL);
    signal(SIGABRT, SIG_DFL);
    fmu_guard_install("guard-test");
    fmu_guard_run(1, "fed-run");
    switch (a) {
    case EXIT_IN_RUN:
        exit(0);
    case EXIT_IN_CALL:
        fmu_guard_enter("fed-x", "fmi2DoStep");
        exit(3);
    case EXIT_AFTER_RUN:
        fmu_guard_enter("fed-x", "fmi2DoStep");
        fmu_guard_leave(0);
        fmu_guard_run(0, NULL);
        exit(7);
    case SEGV_IN_CALL:
        fmu_guard_enter("fed-y", "fmi2DoStep");
        raise(SIGSEGV);
        break;
    case FAULT_IN_CALL: { /* a real fault (si_code > 0): it strikes again after the handler */
        volatile int *bad = (volatile int *)(uintptr_t)4096; /* below mmap_min_addr */
        fmu_guard_enter("fed-v", "fmi2DoStep");
        *bad = 1;
        break;
    }
    case ABRT_IN_CALL:
        fmu_guard_enter("fed-z", "loading and instantiating the FMU");
        abort();
    case SEGV_OUT:
        raise(SIGSEGV);
        break;
    case SEGV_CHAINED:
        fmu_guard_enter("fed-w", "fmi2DoStep");
        raise(SIGSEGV);
        break;
    }
    _exit(99);
}

/* Run child(a); its wait status and the first bytes of its stderr. */
static int run(act a, char *out, size_t len)
{
    int fd[2];
    if (pipe(fd) != 0) return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], STDERR_FILENO);
        close(fd[1]);
        child(a);
    }
    close(fd[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < len && (r = read(fd[0], out + n, len - 1 - n)) > 0)
        n += (size_t)r;
    out[n] = '\0';
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

static void test_exit_in_run(void)
{
    char e[1024];
    int st = run(EXIT_IN_RUN, e, sizeof e);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == FMU_GUARD_EXIT_STATUS, "status 1 (got %#x)", st);
    CHECK_STR_HAS(e, "guard-test: fed-run: the process is ending in the middle of the run: exit(0) "
                     "was called (by the FMU or a library it uses), not by guard-test");
}

static void test_exit_in_call(void)
{
    char e[1024];
    int st = run(EXIT_IN_CALL, e, sizeof e);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == FMU_GUARD_EXIT_STATUS, "status 1 (got %#x)", st);
    CHECK_STR_HAS(e, "guard-test: fed-x: the process is ending in the middle of the run: exit(3) "
                     "was called (by the FMU or a library it uses, inside fmi2DoStep)");
}

static void test_exit_after_run(void)
{
    char e[1024];
    int st = run(EXIT_AFTER_RUN, e, sizeof e);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "the program's own status (got %#x)", st);
    CHECK_STR_EQ(e, "");
}

static void test_signals(void)
{
    char e[1024];
    int st = run(SEGV_IN_CALL, e, sizeof e);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "dies of SIGSEGV (got %#x)", st);
    CHECK_STR_HAS(e, "guard-test: fed-y: SIGSEGV (segmentation fault) inside the FMU (fmi2DoStep)");
    st = run(FAULT_IN_CALL, e, sizeof e);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "a real fault: dies of SIGSEGV (got %#x)",
          st);
    CHECK_STR_HAS(e, "guard-test: fed-v: SIGSEGV (segmentation fault) inside the FMU (fmi2DoStep)");
    st = run(ABRT_IN_CALL, e, sizeof e);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "dies of SIGABRT (got %#x)", st);
    CHECK_STR_HAS(e, "guard-test: fed-z: SIGABRT (abort) inside the FMU (loading and "
                     "instantiating the FMU)");
    st = run(SEGV_OUT, e, sizeof e);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "dies of SIGSEGV (got %#x)", st);
    CHECK_STR_EQ(e, "");
    st = run(SEGV_CHAINED, e, sizeof e);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 42, "the previous handler ran (got %#x)", st);
    CHECK_STR_HAS(e, "guard-test: fed-w: SIGSEGV (segmentation fault) inside the FMU");
}

int main(void)
{
    test_exit_in_run();
    test_exit_in_call();
    test_exit_after_run();
    test_signals();
    return check_summary();
}
