/* libFuzzer target for the master-slave protocol's decoders (federate/msproto/msproto.h,
 * doc/master.md "Encodings", doc/contributing.md §7). Feeds arbitrary bytes to the command and
 * the reply decoder. Beyond "no crash", it traps when a refusal gives no reason, when an
 * accepted command fails its kind's checks, or when an accepted command or reply does not
 * re-encode to exactly the input bytes (the codec is a bijection on valid payloads; a reply's
 * message is kept whole because the decoder refuses one longer than the limit). The same
 * bytes split as a batch of commands and of replies (msproto_cmd_span, msproto_reply_span):
 * every accepted record lies inside what is left and is not empty, every refusal says why.
 * Corpus: tests/fuzz/corpus/msproto_fuzz/. Read federate/msproto/msproto.c next. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "federate/msproto/msproto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { CAP = 1024 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static double v[CAP];
    static int64_t tv[CAP];
    static unsigned char out[MSPROTO_MAX_MSG + 64 + 16 * CAP];
    char err[MSPROTO_ERRLEN], msg[MSPROTO_MAX_MSG + 1];
    size_t len = 0;
    msproto_cmd c;
    err[0] = '\0';
    int rc = msproto_cmd_decode(data, size, &c, v, CAP, tv, CAP, err, sizeof err);
    if (rc != MSPROTO_OK && err[0] == '\0') __builtin_trap();
    if (rc == MSPROTO_OK) {
        if (msproto_cmd_check(&c, err, sizeof err) != MSPROTO_OK) __builtin_trap();
        if (msproto_cmd_encode(&c, out, sizeof out, &len, err, sizeof err) != MSPROTO_OK)
            __builtin_trap();
        if (len != size || memcmp(out, data, size) != 0) __builtin_trap();
    }
    msproto_reply r;
    err[0] = '\0';
    rc = msproto_reply_decode(data, size, &r, v, CAP, tv, CAP, msg, sizeof msg, err, sizeof err);
    if (rc != MSPROTO_OK && err[0] == '\0') __builtin_trap();
    if (rc == MSPROTO_OK) {
        if (strlen(r.msg) > MSPROTO_MAX_MSG) __builtin_trap();
        if (msproto_reply_encode(&r, out, sizeof out, &len, err, sizeof err) != MSPROTO_OK)
            __builtin_trap();
        if (len != size || memcmp(out, data, size) != 0) __builtin_trap();
    }
    for (int replies = 0; replies < 2; replies++) {
        size_t off = 0, n = 0;
        for (;;) {
            err[0] = '\0';
            rc = replies ? msproto_reply_span(data + off, size - off, &n, err, sizeof err)
                         : msproto_cmd_span(data + off, size - off, &n, err, sizeof err);
            if (rc != MSPROTO_OK) {
                if (err[0] == '\0') __builtin_trap();
                break;
            }
            if (n == 0 || n > size - off) __builtin_trap();
            off += n;
            if (off == size) break;
        }
    }
    return 0;
}
