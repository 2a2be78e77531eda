/* Tests of tempo-log's first pass (tlog_load in rti/tlog/tlog_util.c, doc/log.md): a log
 * written with the real writer in which one federate registers more objects than any fixed
 * table would hold (3000) before the RTI's replies arrive, in reverse order; every object must
 * come out of the first pass with its own name and class. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rti/flog/flog.h"
#include "rti/proto/wire.h"
#include "rti/tlog/tlog_impl.h"
#include "tests/check.h"

enum { NOBJ = 3000 }; /* registrations waiting at once: past the 1024 the tool once kept */

static const char *fom_xml = "<fom name=\"many\"><time resolution=\"0.001\"/><objects>"
                             "<class name=\"Ball\"><attribute name=\"x\" type=\"float64\"/>"
                             "</class></objects></fom>";

static struct buf fb;

/* Log one frame made from m; 1 when it was written. */
static int put(struct flog *l, enum flog_kind k, uint32_t fed, const struct wire_msg *m)
{
    char err[256];
    buf_clear(&fb);
    return wire_encode(&fb, m, 0, err, sizeof err) == WIRE_OK &&
           flog_frame(l, k, fed, fb.data, fb.len) == FLOG_OK;
}

/* Federate 1 registers NOBJ objects "obj<i>" (request i+1), then the RTI replies to each,
 * last request first, with object handle 100 + i. */
static void write_many(const char *path)
{
    char err[FLOG_ERR_LEN];
    struct flog_info info = {"many", fom_xml, strlen(fom_xml), "0.001", 1700000000000000000LL};
    struct flog *l = NULL;
    CHECK_INT_EQ(flog_open(&l, path, &info, err, sizeof err), FLOG_OK);
    if (!l) return;
    CHECK_INT_EQ(flog_joined(l, 1, "A"), FLOG_OK);
    struct wire_msg m;
    char name[32];
    int written = 0;
    for (uint32_t i = 0; i < NOBJ; i++) {
        wire_msg_init(&m, WIRE_REGISTER_OBJECT);
        m.req = i + 1;
        m.a = 1; /* class Ball */
        snprintf(name, sizeof name, "obj%u", i);
        wire_str_set(&m.str[0], name);
        written += put(l, FLOG_K_RECV, 1, &m);
    }
    for (uint32_t i = NOBJ; i-- > 0;) {
        wire_msg_init(&m, WIRE_REPLY);
        m.req = i + 1;
        m.a = 100 + i;
        written += put(l, FLOG_K_SENT, 1, &m);
    }
    CHECK_INT_EQ(written, 2 * NOBJ);
    CHECK_INT_EQ(flog_close(l, err, sizeof err), FLOG_OK);
}

int main(void)
{
    char dir[] = "/tmp/tlog_load_test.XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char path[128];
    snprintf(path, sizeof path, "%s/many.tlog", dir);
    write_many(path);

    struct tlog t;
    char err[256];
    CHECK_INT_EQ(tlog_load(&t, path, err, sizeof err), 0);
    CHECK_INT_EQ(t.records, 1 + 2 * NOBJ);
    CHECK_STR_EQ(t.names[1], "A");
    int named = 0;
    char want[32];
    for (uint32_t i = 0; i < NOBJ; i++) {
        uint64_t h = 100 + i;
        snprintf(want, sizeof want, "obj%u", i);
        if (h < t.objs_cap && strcmp(t.objs[h].name, want) == 0 && t.objs[h].cls == 1) named++;
    }
    CHECK_INT_EQ(named, NOBJ);
    tlog_fini(&t);

    buf_fini(&fb);
    unlink(path);
    rmdir(dir);
    return check_summary();
}
