/* Tests of the master methods of the federation file (federate/config/fedfile_master.h,
 * doc/federation.md, doc/master.md): "master-jacobi" loads with the keys of "jacobi", the
 * couplings follow the wiring (two inputs from two publishers, in federate and input order),
 * a federate named "master" is refused, the peer methods are not master methods, and the
 * horizon is the end but for defect-control without clip_end. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "federate/config/fedfile.h"
#include "federate/config/fedfile_master.h"
#include "tests/check.h"

static char tmp[64];

static void put(const char *name, const char *text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", tmp, name);
    FILE *f = fopen(p, "wb");
    CHECK(f != NULL, "cannot write %s: %s", p, strerror(errno));
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static int load(const char *name, const char *text, fedfile **ff, char *err, size_t errlen)
{
    put(name, text);
    char p[256];
    snprintf(p, sizeof p, "%s/%s", tmp, name);
    return fedfile_load(p, ff, err, errlen);
}

#define THREE(METHOD, NAME_C)                                                                      \
    "{\"federation\": \"m\", \"algorithm\": {\"method\": \"" METHOD "\", \"end\": 1, "             \
    "\"step\": 0.25}, \"federates\": ["                                                            \
    "{\"name\": \"a\", \"fmu\": \"a.fmu\", \"outputs\": {\"y\": \"A.y\", \"z\": \"A.z\"}, "        \
    "\"inputs\": {\"u\": \"C.w\"}},"                                                               \
    "{\"name\": \"b\", \"fmu\": \"a.fmu\", \"inputs\": {\"p\": \"A.z\", \"q\": \"C.w\"}},"         \
    "{\"name\": \"" NAME_C "\", \"fmu\": \"a.fmu\", \"outputs\": {\"w\": \"C.w\"}, "               \
    "\"inputs\": {\"v\": \"A.y\"}}]}"

int main(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/fedfile_master_test.XXXXXX");
    if (!mkdtemp(tmp)) {
        CHECK(0, "mkdtemp: %s", strerror(errno));
        return check_summary();
    }
    put("a.fmu", "fedfile_load only stats it\n");
    char err[FEDFILE_ERRLEN];
    fedfile *ff = NULL;
    int rc = load("m.json", THREE("master-jacobi", "c"), &ff, err, sizeof err);
    CHECK(rc == FEDFILE_OK, "m.json: %s", err);
    if (ff) {
        CHECK_STR_EQ(fedfile_method_name(ff), "master-jacobi");
        CHECK_INT_EQ(fedfile_is_master(ff), 1);
        CHECK_INT_EQ(ff->algo.t_step, 250000000);
        port_link *c = NULL;
        size_t n = 0;
        CHECK_INT_EQ(fedfile_master_links(ff, &c, &n, err, sizeof err), FEDFILE_OK);
        /* a.u <- c.w (output 0); b.p <- a.z (output 1); b.q <- c.w; c.v <- a.y (output 0) */
        port_link want[4] = {{0, 0, 2, 0}, {1, 0, 0, 1}, {1, 1, 2, 0}, {2, 0, 0, 0}};
        CHECK_INT_EQ(n, 4);
        for (size_t k = 0; c && k < n && k < 4; k++)
            CHECK(c[k].to == want[k].to && c[k].in == want[k].in && c[k].from == want[k].from &&
                      c[k].out == want[k].out,
                  "coupling %zu: %zu.%zu <- %zu.%zu", k, c[k].to, c[k].in, c[k].from, c[k].out);
        free(c);
        fedfile_free(ff);
    }
    /* The master's own name is refused, naming the federate. */
    rc = load("n.json", THREE("master-jacobi", "master"), &ff, err, sizeof err);
    CHECK(rc == FEDFILE_OK, "n.json: %s", err);
    if (ff) {
        port_link *c = (port_link *)1;
        size_t n = 9;
        CHECK_INT_EQ(fedfile_master_links(ff, &c, &n, err, sizeof err), FEDFILE_ESCHEMA);
        CHECK(c == NULL && n == 0, "nothing returned");
        CHECK_STR_HAS(err, "federates[2]: the name \"master\" is the master's own");
        fedfile_free(ff);
    }
    /* A peer method is not a master method; a lookahead is refused for master-jacobi. */
    rc = load("p.json", THREE("jacobi", "c"), &ff, err, sizeof err);
    CHECK(rc == FEDFILE_OK, "p.json: %s", err);
    if (ff) {
        CHECK_INT_EQ(fedfile_is_master(ff), 0);
        fedfile_free(ff);
    }
    CHECK_INT_EQ(fedfile_is_master(NULL), 0);
    rc = load("l.json",
              "{\"federation\": \"m\", \"algorithm\": {\"method\": \"master-jacobi\", \"end\": 1, "
              "\"step\": 0.25, \"lookahead\": 0.25}, \"federates\": [{\"name\": \"a\", "
              "\"fmu\": \"a.fmu\"}]}",
              &ff, err, sizeof err);
    CHECK_INT_EQ(rc, FEDFILE_ESCHEMA);
    CHECK_STR_HAS(err, "algorithm.lookahead");
    /* master-jacobi holds its inputs: "extrapolation" would be ignored, so it is refused, naming
     * the key's path, the method and what the method reads. */
    rc = load("x.json",
              "{\"federation\": \"m\", \"algorithm\": {\"method\": \"master-jacobi\", \"end\": 1, "
              "\"step\": 0.25, \"extrapolation\": 2}, \"federates\": [{\"name\": \"a\", "
              "\"fmu\": \"a.fmu\"}]}",
              &ff, err, sizeof err);
    CHECK_INT_EQ(rc, FEDFILE_ESCHEMA);
    CHECK_STR_HAS(err, "algorithm.extrapolation: unknown key for method \"master-jacobi\" (it "
                       "takes: method, start, end, reply_timeout, step)");
    rc = load("u.json",
              "{\"federation\": \"m\", \"algorithm\": {\"method\": \"master-jacobo\", \"end\": 1, "
              "\"step\": 0.25}, \"federates\": [{\"name\": \"a\", \"fmu\": \"a.fmu\"}]}",
              &ff, err, sizeof err);
    CHECK_INT_EQ(rc, FEDFILE_ESCHEMA);
    CHECK_STR_HAS(err, "\"master-jacobi\"");
    /* The horizon: the end, but unbounded for defect-control whose last step may pass it
       (the paper's rule) unless clip_end. */
    static const char *const dcs[2] = {"", ", \"clip_end\": true"};
    for (int k = 0; k < 2; k++) {
        char text[512];
        snprintf(text, sizeof text,
                 "{\"federation\": \"m\", \"algorithm\": {\"method\": \"defect-control\", "
                 "\"end\": 1, \"defect-control\": {\"h1\": 0.3%s}}, \"federates\": "
                 "[{\"name\": \"a\", \"fmu\": \"a.fmu\"}]}",
                 dcs[k]);
        rc = load("d.json", text, &ff, err, sizeof err);
        CHECK(rc == FEDFILE_OK, "d.json: %s", err);
        if (!ff) continue;
        CHECK_INT_EQ(fedfile_is_master(ff), 1);
        CHECK(fedfile_master_horizon(ff) == (k ? 1000000000LL : INT64_MAX), "clip_end %d: %lld", k,
              (long long)fedfile_master_horizon(ff));
        fedfile_free(ff);
    }
    rc = load("m.json", THREE("master-jacobi", "c"), &ff, err, sizeof err);
    if (ff) {
        CHECK(fedfile_master_horizon(ff) == 1000000000LL, "master-jacobi horizon");
        unsigned char fo[2] = {9, 9}, fi[1] = {9};
        size_t src = 7, k = 7;
        CHECK(fedfile_bus_flags(ff, 0, fo, fi) == 0 && !fo[0] && !fo[1] && !fi[0],
              "no discrete couplings outside the hybrid method");
        CHECK_INT_EQ(fedfile_bus_source(ff, 0, 0, &src, &k), -1);
        fedfile_free(ff);
    }
    /* The hybrid method's discrete couplings: A.z and C.w listed; a.u <- C.w, b.p <- A.z and
       b.q <- C.w are discrete inputs, c.v <- A.y is not; A.z is a's first discrete output. */
    rc =
        load("h.json",
             "{\"federation\": \"m\", \"algorithm\": {\"method\": \"hybrid\", \"end\": 1, "
             "\"step\": 0.25, \"hybrid\": {\"discrete\": [\"A.z\", \"C.w\"]}}, \"federates\": ["
             "{\"name\": \"a\", \"fmu\": \"a.fmu\", \"outputs\": {\"y\": \"A.y\", \"z\": \"A.z\"}, "
             "\"inputs\": {\"u\": \"C.w\"}},"
             "{\"name\": \"b\", \"fmu\": \"a.fmu\", \"inputs\": {\"p\": \"A.z\", \"q\": \"C.w\"}},"
             "{\"name\": \"c\", \"fmu\": \"a.fmu\", \"outputs\": {\"w\": \"C.w\"}, "
             "\"inputs\": {\"v\": \"A.y\"}}]}",
             &ff, err, sizeof err);
    CHECK(rc == FEDFILE_OK, "h.json: %s", err);
    if (ff) {
        unsigned char ao[2], ai[1], bi[2], co[1], ci[1];
        CHECK_INT_EQ(fedfile_bus_flags(ff, 0, ao, ai), 2);
        CHECK_INT_EQ(fedfile_bus_flags(ff, 1, NULL, bi), 2);
        CHECK_INT_EQ(fedfile_bus_flags(ff, 2, co, ci), 1);
        CHECK(!ao[0] && ao[1] && ai[0] && bi[0] && bi[1] && co[0] && !ci[0], "hybrid flags");
        size_t src = 9, k = 9;
        CHECK(fedfile_bus_source(ff, 0, 0, &src, &k) == 0 && src == 2 && k == 0, "a.u");
        CHECK(fedfile_bus_source(ff, 1, 0, &src, &k) == 0 && src == 0 && k == 0, "b.p");
        CHECK(fedfile_bus_source(ff, 1, 1, &src, &k) == 0 && src == 2 && k == 0, "b.q");
        CHECK_INT_EQ(fedfile_bus_source(ff, 2, 0, &src, &k), -1);
        CHECK_INT_EQ(fedfile_bus_source(ff, 2, 5, &src, &k), -1);
        fedfile_free(ff);
    }
    const char *files[] = {"a.fmu",  "m.json", "n.json", "p.json",
                           "l.json", "u.json", "d.json", "h.json"};
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        char p[256];
        snprintf(p, sizeof p, "%s/%s", tmp, files[k]);
        remove(p);
    }
    rmdir(tmp);
    return check_summary();
}
