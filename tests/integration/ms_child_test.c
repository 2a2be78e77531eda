/* A slave in a child process (federate/msproto/msproto_child.h) against scripted children:
 * /bin/sh plays back replies prepared here (each framed by its length) while it swallows the
 * commands, so the C side is checked without Python: a session's values, a slave's failure,
 * the state frames, and every way a child can let the run down (missing program, exit, signal,
 * an oversized, malformed or misnumbered reply, a hello that does not fit the wiring), each
 * named. tests/python/test_inprocess.py runs the real tempo-slave --pipe. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "federate/msproto/msproto.h"
#include "federate/msproto/msproto_child.h"
#include "tests/check.h"

static char tmp[256];

/* Append reply r to the file, framed by its length. */
static void put_reply(FILE *f, const msproto_reply *r)
{
    unsigned char b[4096];
    size_t n = 0;
    char e[MSPROTO_ERRLEN];
    if (msproto_reply_encode(r, b, sizeof b, &n, e, sizeof e) != MSPROTO_OK) {
        fprintf(stderr, "ms_child_test: encode: %s\n", e);
        exit(2);
    }
    unsigned char h[4] = {(unsigned char)n, (unsigned char)(n >> 8), (unsigned char)(n >> 16),
                          (unsigned char)(n >> 24)};
    fwrite(h, 1, 4, f);
    fwrite(b, 1, n, f);
}

static void put_frame(FILE *f, const void *p, size_t n)
{
    unsigned char h[4] = {(unsigned char)n, (unsigned char)(n >> 8), (unsigned char)(n >> 16),
                          (unsigned char)(n >> 24)};
    fwrite(h, 1, 4, f);
    fwrite(p, 1, n, f);
}

/* A hello reply: n_in inputs, n_out outputs, one state, can save; the output map after it. */
static void put_hello(FILE *f, uint32_t seq, size_t n_in, size_t n_out)
{
    port_slave_info in = {.n_in = n_in, .n_out = n_out, .n_state = 1, .can_save = 1};
    double v[MSPROTO_INFO_N + 8];
    msproto_info_encode(&in, v);
    size_t n = MSPROTO_INFO_N + msproto_info_map_encode(&in, v + MSPROTO_INFO_N);
    put_reply(f, &(msproto_reply){.kind = MSP_HELLO, .seq = seq, .n_v = n, .v = v});
}

/* A child that plays back the file at path and then reads its input to the end. */
static int start(const char *path, const char *script, msproto_child **c, port_slave *ps, char *err,
                 size_t errlen)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, script, path);
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    msproto_child_opts o = {.name = "py", .argv = argv, .t_start = 0, .n_in = 1, .n_out = 1};
    return msproto_child_new(&o, c, ps, err, errlen);
}

static void test_session(void)
{
    char path[300];
    snprintf(path, sizeof path, "%s/session", tmp);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "%s", path);
    if (!f) return;
    put_hello(f, 1, 1, 1);
    double y = 2.5;
    put_reply(f, &(msproto_reply){.kind = MSP_SET_INPUTS, .seq = 2});
    put_reply(f, &(msproto_reply){
                     .kind = MSP_STEP, .seq = 3, .t = 100, .n_sub_done = 1, .n_v = 1, .v = &y});
    put_reply(f, &(msproto_reply){.kind = MSP_GET_OUTPUTS, .seq = 4, .t = 100, .n_v = 1, .v = &y});
    put_reply(f, &(msproto_reply){
                     .kind = MSP_STEP, .seq = 5, .t = 100, .status = PORT_EFAIL, .msg = "boom"});
    const char part[] = "TPSG\0model state";
    put_frame(f, part, sizeof part - 1);
    const char refused[] = "TPSS\1not my state";
    put_frame(f, refused, sizeof refused - 1);
    put_reply(f, &(msproto_reply){.kind = MSP_END, .seq = 6, .t = 100});
    fclose(f);
    msproto_child *c;
    port_slave ps;
    char err[512] = "";
    int rc = start(path, "cat %s; cat >/dev/null", &c, &ps, err, sizeof err);
    CHECK_INT_EQ(rc, PORT_OK);
    if (rc != PORT_OK) {
        fprintf(stderr, "ms_child_test: %s\n", err);
        return;
    }
    CHECK(ps.info.n_in == 1 && ps.info.n_out == 1 && ps.info.n_state == 1 && ps.info.can_save,
          "info %zu %zu %zu %d", ps.info.n_in, ps.info.n_out, ps.info.n_state, ps.info.can_save);
    CHECK_STR_EQ(ps.info.name, "py");
    double u = 1.0, out = 0;
    port_step_result res = {0};
    CHECK_INT_EQ(port_set_inputs(&ps, &(port_poly){.t0 = 0, .order = 0, .n = 1, .c = &u}), PORT_OK);
    CHECK_INT_EQ(port_step(&ps, 100, 1, &out, &res), PORT_OK);
    CHECK(out == 2.5 && res.t_reached == 100 && res.n_sub_done == 1, "y %g t %lld", out,
          (long long)res.t_reached);
    out = 0;
    CHECK_INT_EQ(port_get_outputs(&ps, &out), PORT_OK);
    CHECK(out == 2.5, "y %g", out);
    CHECK_INT_EQ(ps.ops->collect(ps.ctx), PORT_OK);
    CHECK_INT_EQ(port_step(&ps, 200, 1, &out, &res), PORT_EFAIL);
    CHECK_INT_EQ(ps.ops->collect(ps.ctx), PORT_EFAIL); /* the failure comes back at collect */
    CHECK_STR_HAS(msproto_child_errmsg(c), "step: boom");
    CHECK_INT_EQ(msproto_child_time(c), 100);
    unsigned char *bytes = NULL;
    size_t n = 0;
    CHECK_INT_EQ(msproto_child_state_save(c, &bytes, &n), PORT_OK);
    CHECK(n == 11 && bytes && memcmp(bytes, "model state", 11) == 0, "state of %zu bytes", n);
    CHECK_INT_EQ(msproto_child_state_restore(c, bytes, n), PORT_EUSAGE);
    CHECK_STR_HAS(msproto_child_errmsg(c), "restoring its state: not my state");
    free(bytes);
    CHECK_INT_EQ(msproto_child_free(c, err, sizeof err), PORT_OK);
}

/* A child that fails the start: the message says how, naming the child. */
static void refused(const char *name, const char *script, const char *says)
{
    char path[300];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    FILE *f = fopen(path, "wb");
    if (!strcmp(name, "seq")) put_hello(f, 2, 1, 1);
    if (!strcmp(name, "wiring")) put_hello(f, 1, 2, 1);
    if (!strcmp(name, "malformed")) put_frame(f, "abcd", 4);
    if (!strcmp(name, "huge")) fwrite("\377\377\377\377", 1, 4, f);
    fclose(f);
    msproto_child *c = (msproto_child *)1;
    port_slave ps;
    char err[512] = "";
    int rc = start(path, script, &c, &ps, err, sizeof err);
    check_case_begin();
    CHECK(rc == PORT_EFAIL && c == NULL, "%s: rc %d", name, rc);
    CHECK_STR_HAS(err, "federate py: ");
    CHECK_STR_HAS(err, says);
    check_case_end(1);
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/ms_child_XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        return 1;
    }
    test_session();
    refused("seq", "cat %s; cat >/dev/null", "hello (seq 1): a reply to hello (seq 2)");
    refused("wiring", "cat %s; cat >/dev/null",
            "the model has 2 inputs and 1 outputs, the file wires 1 and 1");
    refused("malformed", "cat %s; cat >/dev/null", "hello: a malformed reply");
    refused("huge", "cat %s; cat >/dev/null", "a reply of 4294967295 bytes (at most 16777216)");
    refused("exit", ": %s; exit 3", "(it exited with status 3)");
    refused("signal", ": %s; kill -9 $$", "(it was killed by signal 9)");
    char *argv[] = {"/nonexistent/tempo-slave", NULL};
    msproto_child *c;
    port_slave ps;
    char err[512] = "";
    msproto_child_opts o = {.name = "py", .argv = argv, .n_in = 1, .n_out = 1};
    check_case_begin();
    CHECK_INT_EQ(msproto_child_new(&o, &c, &ps, err, sizeof err), PORT_EFAIL);
    CHECK_STR_HAS(err, "federate py: cannot start /nonexistent/tempo-slave");
    check_case_end(1);
    char rm[300];
    snprintf(rm, sizeof rm, "rm -rf '%s'", tmp);
    if (system(rm) != 0) fprintf(stderr, "ms_child_test: could not remove %s\n", tmp);
    return check_summary();
}
