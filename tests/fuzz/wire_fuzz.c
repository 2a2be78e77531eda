/* libFuzzer target for the wire decoder (rti/proto/wire.h, doc/protocol.md, doc/contributing.md
 * §7). Feeds arbitrary bytes to the splitter and the decoder. Beyond "no crash", it checks two
 * properties and traps when they fail: a frame the decoder accepts re-encodes to exactly the
 * same bytes (the codec is a bijection on valid frames), and walking its values and handles
 * stays inside the frame. Corpus: tests/fuzz/corpus/wire_fuzz/. Read rti/proto/wire.c next. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rti/proto/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256], hex[WIRE_HEX_BUFSZ];
    size_t flen = 0;
    /* Split with a small limit, the way a connection would with a tight configuration. */
    int s = wire_split(data, size, 4096, &flen, err, sizeof err);
    if (s == 1 && flen > size) __builtin_trap();
    if (s < 0) wire_hex_sample(data, size, hex, sizeof hex);

    /* Decode the whole input as one frame. */
    struct wire_msg m;
    int rc = wire_decode(data, size, &m, err, sizeof err);
    if (rc != WIRE_OK) {
        if (err[0] == '\0') __builtin_trap(); /* every refusal says why */
        return 0;
    }
    const uint8_t *end = data + size;
    struct wire_value_iter it;
    struct wire_value v;
    uint32_t n = 0;
    wire_value_iter_init(&it, &m);
    while (wire_value_next(&it, &v)) {
        if (v.len && (v.data < data || v.data + v.len > end)) __builtin_trap();
        if (m.type == WIRE_TIME_STATUS) {
            struct wire_tstat t;
            (void)wire_tstat_unpack(v.data, v.len, &t, err, sizeof err);
        }
        n++;
    }
    if (n != m.nvalues) __builtin_trap();
    for (uint32_t i = 0; i < m.nhandles; i++)
        (void)wire_msg_handle(&m, i);
    for (int i = 0; i < WIRE_MAX_STRS; i++)
        if (m.str[i].len && ((const uint8_t *)m.str[i].ptr < data ||
                             (const uint8_t *)m.str[i].ptr + m.str[i].len > end))
            __builtin_trap();

    struct buf out = {0};
    rc = wire_encode(&out, &m, UINT32_MAX, err, sizeof err);
    if (rc != WIRE_OK || out.len != size || memcmp(out.data, data, size) != 0) __builtin_trap();
    buf_fini(&out);
    return 0;
}
