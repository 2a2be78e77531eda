/* Minimal assertion helpers shared by every C test (tests/, doc/contributing.md §12).
 *
 * A test binary counts its checks and ends with the line "N passed, N failed" that
 * tests/run.sh sums; its exit status is 0 only when nothing failed. A check that fails prints
 * the file, line and the values involved, then the test goes on, so one run shows every
 * failure. Read tests/run.sh next. */
#ifndef TEMPO_TESTS_CHECK_H
#define TEMPO_TESTS_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_passed_; /* checks that held */
static int check_failed_; /* checks that did not */

/* CHECK(cond, fmt, ...): one assertion; the message says what was expected. */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            check_passed_++;                                                                       \
        } else {                                                                                   \
            check_failed_++;                                                                       \
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

/* Print the summary line and return the exit status for main(). */
static inline int check_summary(void)
{
    printf("%d passed, %d failed\n", check_passed_, check_failed_);
    fflush(stdout);
    return check_failed_ ? 1 : 0;
}

#endif
