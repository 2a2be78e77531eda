/* The federation file's "checkpoint" key (doc/federation.md, doc/checkpoint.md): the instants
 * at which tempo-run and tempo-fmu save the federation when their command lines give none.
 *     "checkpoint": { "every": 10, "at": [ 42.25, 77 ] }
 * Both optional; seconds after the start, whole ticks, inside the run. Read fedfile.c next.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "federate/config/fedfile_impl.h"

#define CKPT_AT_MAX 64 /* the "at" list's length at most (tempo-run's --checkpoint-at too) */

int fedfile_ckpt_parse(const fedfile_reader *rd, const json_t *root, fedfile *ff)
{
    const json_t *c = json_object_get(root, "checkpoint");
    if (!c) return FEDFILE_OK;
    if (!json_is_object(c))
        return fedfile_fail(rd, "checkpoint", "expected an object, got %s", fedfile_json_kind(c));
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)c, key, v)
    {
        if (strcmp(key, "every") && strcmp(key, "at"))
            return fedfile_fail(rd, "checkpoint", "unknown key \"%s\" (it takes: every, at)", key);
    }
    int64_t span = ff->algo.t_end - ff->algo.t_start;
    const json_t *e = json_object_get(c, "every");
    if (e) {
        double s = json_is_number(e) ? json_number_value(e) : -1;
        int64_t t;
        if (!(s > 0)) return fedfile_fail(rd, "checkpoint.every", "expected seconds > 0");
        int rc = fedfile_to_ticks(rd, "checkpoint.every", s, ff->resolution, &t);
        if (rc) return rc;
        if (t >= span)
            return fedfile_fail(rd, "checkpoint.every", "%g s is not shorter than the run", s);
        ff->ckpt_every = s;
    }
    const json_t *a = json_object_get(c, "at");
    if (!a) return FEDFILE_OK;
    if (!json_is_array(a) || json_array_size(a) > CKPT_AT_MAX)
        return fedfile_fail(rd, "checkpoint.at", "expected an array of at most %d times",
                            CKPT_AT_MAX);
    ff->ckpt_at = calloc(json_array_size(a) + 1, sizeof *ff->ckpt_at);
    if (!ff->ckpt_at) return fedfile_oom(rd);
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *x = json_array_get(a, i);
        char p[64];
        snprintf(p, sizeof p, "checkpoint.at[%zu]", i);
        double s = json_is_number(x) ? json_number_value(x) : -1;
        int64_t t;
        int rc = fedfile_to_ticks(rd, p, s, ff->resolution, &t);
        if (rc) return rc;
        if (!(t > ff->algo.t_start && t < ff->algo.t_end))
            return fedfile_fail(rd, p, "%g s is not inside the run (%g .. %g s)", s, ff->algo.start,
                                ff->algo.end);
        ff->ckpt_at[ff->n_ckpt_at++] = s;
    }
    return FEDFILE_OK;
}
