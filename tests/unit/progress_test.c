/* Tests of federate/run/progress.h: threshold lines for logs, the rewritten TTY line (with
 * padding over a longer previous line), clamping, monotonicity and argument errors.
 * doc/run.md. Read federate/run/progress.h first.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/run/progress.h"
#include "tests/check.h"

/* Run fn with a display writing to memory; return what it printed (caller frees). */
static char *capture(int tty, int every, size_t n, const char *const *names, void (*fn)(prog *))
{
    char *buf = NULL, err[PROG_ERRLEN];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    prog_opts o = {.out = f, .tty = tty, .every_pct = every, .t_start = 10, .t_end = 20};
    prog *p = NULL;
    CHECK_INT_EQ(prog_new(&p, &o, n, names, err, sizeof err), PROG_OK);
    if (p) fn(p);
    prog_free(p);
    fclose(f);
    return buf;
}

static void steps_two(prog *p)
{
    prog_update(p, 0, 10.0);  /* 0%: first line */
    prog_update(p, 0, 10.5);  /* 5%: below the next multiple of 25 */
    prog_update(p, 1, 13.0);  /* B 30% */
    prog_update(p, 0, 16.0);  /* A 60%: crossed 25 and 50, one line */
    prog_update(p, 0, 15.0);  /* backwards: ignored */
    prog_update(p, 0, NAN);   /* ignored */
    prog_update(p, 7, 15.0);  /* bad index: ignored */
    prog_update(p, 0, 99.0);  /* clamped to the end: 100% */
    prog_update(p, 0, 100.0); /* still 100%: nothing */
    CHECK_INT_EQ(prog_percent(p, 0), 100);
    CHECK_INT_EQ(prog_percent(p, 1), 30);
    CHECK_INT_EQ(prog_percent(p, 2), -1);
}

static void test_lines(void)
{
    const char *names[2] = {"A", "B"};
    char *out = capture(0, 25, 2, names, steps_two);
    CHECK_STR_EQ(out, "progress: A 0% (t = 10 of 20 s)\n"
                      "progress: B 30% (t = 13 of 20 s)\n"
                      "progress: A 60% (t = 16 of 20 s)\n"
                      "progress: A 100% (t = 20 of 20 s)\n");
    free(out);
}

static void steps_tty(prog *p)
{
    prog_update(p, 0, 15.0);
    prog_update(p, 0, 15.01); /* same whole percent: no rewrite */
    prog_update(p, 1, 20.0);
    prog_finish(p);
    prog_finish(p); /* once only */
}

static void test_tty(void)
{
    const char *names[2] = {"prey", "predator"};
    char *out = capture(1, 0, 2, names, steps_tty);
    CHECK_STR_EQ(out, "\rprey  50%  predator   0%"
                      "\rprey  50%  predator 100%"
                      "\n");
    free(out);
}

static void steps_many(prog *p)
{
    for (size_t i = 0; i < 8; i++)
        prog_update(p, i, 10.0 + (double)(i + 1)); /* 10% .. 80% */
    prog_update(p, 0, 20.0);                       /* f0 100%, slowest becomes f1 20% */
}

static void test_tty_many(void)
{
    const char *names[8] = {"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7"};
    char *out = capture(1, 0, 8, names, steps_many);
    const char *last = out ? strrchr(out, '\r') : NULL;
    CHECK_STR_EQ(last, "\r8 federates: slowest f1 20%, fastest f0 100%\n");
    free(out);
}

static void steps_shrink(prog *p)
{
    prog_update(p, 1, 20.0); /* b 100%: the long name is the slowest */
    prog_update(p, 0, 15.0); /* 50%: c becomes the slowest, the line gets shorter */
}

static void test_padding(void)
{
    /* a shorter line is padded with spaces over the end of the longer one */
    const char *names[7] = {"long-federate-name", "b", "c", "d", "e", "f", "g"};
    char *out = capture(1, 0, 7, names, steps_shrink);
    CHECK_STR_EQ(out, "\r7 federates: slowest long-federate-name 0%, fastest b 100%"
                      "\r7 federates: slowest c 0%, fastest b 100%                 "
                      "\n");
    free(out);
}

static void test_errors(void)
{
    char err[PROG_ERRLEN];
    prog *p = NULL;
    const char *names[1] = {"A"};
    prog_opts o = {.out = stderr, .t_start = 1, .t_end = 1};
    CHECK_INT_EQ(prog_new(&p, &o, 1, names, err, sizeof err), PROG_EUSAGE);
    CHECK_STR_HAS(err, "end time 1 is not after start 1");
    o.t_end = 2;
    o.every_pct = 101;
    CHECK_INT_EQ(prog_new(&p, &o, 1, names, err, sizeof err), PROG_EUSAGE);
    o.every_pct = 0;
    CHECK_INT_EQ(prog_new(&p, &o, 0, names, err, sizeof err), PROG_EUSAGE);
    CHECK_INT_EQ(prog_new(NULL, &o, 1, names, err, sizeof err), PROG_EUSAGE);
    CHECK(p == NULL, "no display on error");
    prog_update(NULL, 0, 1);
    prog_free(NULL);
}

int main(void)
{
    test_lines();
    test_tty();
    test_tty_many();
    test_padding();
    test_errors();
    return check_summary();
}
