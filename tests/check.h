/* Minimal assertion helpers shared by every C test (tests/, doc/contributing.md §12).
 *
 * A test binary ends with the line "N passed, N failed (M checks)" that tests/run.sh sums.
 * N counts test cases, not assertions: by default each function that holds CHECKs is one case
 * (it fails when any of its checks failed), so a check inside a loop of 10 000 iterations
 * counts once; a test that runs scenarios or randomized runs from one function marks each as
 * its own case with check_case_begin() / check_case_end(). M is the number of assertions
 * evaluated, for information. A check that fails prints the file, line and the values
 * involved, then the test goes on, so one run shows every failure; the exit status is 0 only
 * when nothing failed. Read tests/run.sh next. */
#ifndef TEMPO_TESTS_CHECK_H
#define TEMPO_TESTS_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_passed_; /* assertions that held */
static int check_failed_; /* assertions that did not (a test may add a child's failures) */

/* The cases: functions seen (by __func__, one static array per function) and explicit ones. */
#define CHECK_MAX_FUNCS 1024
static struct {
    const char *func; /* __func__ of a function that ran checks */
    int failed;
} check_funcs_[CHECK_MAX_FUNCS];
static int check_n_funcs_, check_last_func_;
static int check_unit_failures_; /* failures recorded in a case */
static int check_case_open_;     /* inside check_case_begin() .. check_case_end() */
static int check_case_failed_;   /* that case had a failure */
static long check_cases_passed_, check_cases_failed_; /* explicit cases */

/* Records one assertion of function func (or of the open explicit case). */
static inline void check_record_(const char *func, int ok)
{
    if (ok)
        check_passed_++;
    else
        check_failed_++, check_unit_failures_++;
    if (check_case_open_) {
        check_case_failed_ |= !ok;
        return;
    }
    int i = check_last_func_;
    if (i >= check_n_funcs_ || check_funcs_[i].func != func) {
        for (i = 0; i < check_n_funcs_ && check_funcs_[i].func != func; i++) {
        }
        if (i == check_n_funcs_ && i < CHECK_MAX_FUNCS) check_funcs_[check_n_funcs_++].func = func;
        if (i == CHECK_MAX_FUNCS) i = CHECK_MAX_FUNCS - 1; /* beyond: shares the last case */
        check_last_func_ = i;
    }
    check_funcs_[i].failed |= !ok;
}

/* One scenario or randomized run counted as one case: the CHECKs until check_case_end count
 * toward it instead of toward their functions. check_case_end(ok) closes it; it fails when a
 * check inside failed or ok is 0. Cases do not nest. */
static inline void check_case_begin(void)
{
    check_case_open_ = 1;
    check_case_failed_ = 0;
}

static inline void check_case_end(int ok)
{
    if (!check_case_open_) return;
    check_case_open_ = 0;
    if (ok && !check_case_failed_)
        check_cases_passed_++;
    else
        check_cases_failed_++;
}

/* CHECK(cond, fmt, ...): one assertion; the message says what was expected. */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        int ok_ = (cond) ? 1 : 0;                                                                  \
        check_record_(__func__, ok_);                                                              \
        if (!ok_) {                                                                                \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

#define CHECK_INT_EQ(got, want)                                                                    \
    do {                                                                                           \
        long long g_ = (long long)(got), w_ = (long long)(want);                                   \
        CHECK(g_ == w_, "got %lld, want %lld", g_, w_);                                            \
    } while (0)

#define CHECK_STR_EQ(got, want)                                                                    \
    do {                                                                                           \
        const char *g_ = (got), *w_ = (want);                                                      \
        CHECK(g_ &&w_ &&strcmp(g_, w_) == 0, "got \"%s\", want \"%s\"", g_ ? g_ : "(null)",        \
              w_ ? w_ : "(null)");                                                                 \
    } while (0)

/* Substring check: error messages must name the file, line or field at fault. */
#define CHECK_STR_HAS(got, needle)                                                                 \
    do {                                                                                           \
        const char *g_ = (got), *n_ = (needle);                                                    \
        CHECK(g_ &&strstr(g_, n_) != NULL, "\"%s\" does not contain \"%s\"", g_ ? g_ : "(null)",   \
              n_);                                                                                 \
    } while (0)

/* |got - want| <= tol, with the tolerance stated at the call site. */
#define CHECK_NEAR(got, want, tol)                                                                 \
    do {                                                                                           \
        double g_ = (got), w_ = (want), t_ = (tol);                                                \
        CHECK(fabs(g_ - w_) <= t_, "got %.17g, want %.17g (tolerance %g, error %g)", g_, w_, t_,   \
              fabs(g_ - w_));                                                                      \
    } while (0)

/* Print the summary line and return the exit status for main(). Failures added to
 * check_failed_ by hand (a child process's, say) count as one more failed case. */
static inline int check_summary(void)
{
    check_case_end(1);
    long passed = check_cases_passed_, failed = check_cases_failed_;
    for (int i = 0; i < check_n_funcs_; i++) {
        if (check_funcs_[i].failed)
            failed++;
        else
            passed++;
    }
    if (check_failed_ > check_unit_failures_) failed++;
    printf("%ld passed, %ld failed (%ld checks)\n", passed, failed,
           (long)check_passed_ + check_failed_);
    fflush(stdout);
    return failed || check_failed_ ? 1 : 0;
}

#endif
