#!/usr/bin/env python3
"""Mutation check of the time management engine (doc/time.md section 9, doc/architecture.md section 5).

Each mutant breaks one rule of rti/tm/tm.c in a copy under a temporary directory (strictness,
fixed-point direction, floors, promises, the tie rule, FQR, the fast-path conditions). The
scenario tables and the randomized test are compiled against the copy; a mutant survives if
both still pass. Run from the repository root: tests/conformance/tm_mutants.py. Exit status
1 if any mutant survives (or no longer applies because tm.c changed). Not part of make test
(it compiles 2 x 19 programs). Read tests/conformance/tm_random_test.c next."""
import os
import subprocess
import sys
import tempfile

MUTANTS = {
   'upward-fixpoint': ('ner_bound(f, f->floor, INF, NULL)', 'ner_bound(f, f->floor, f->floor, NULL)'),
   'TAR uses >=': ('f->req == TM_REQ_TAR ? !above(f->galt, t) : !at_or_above(f->galt, t)', '!at_or_above(f->galt, t)'),
   'NER L=0 non-strict': ('m.strict || (f->req == TM_REQ_NER && f->L == 0)', 'm.strict'),
   'no promise on enable reg': ('f->bound = bmax(own, p);', 'f->bound = own;'),
   'tie ignores sender': ('    if (x->sender != y->sender) return x->sender < y->sender;\n', ''),
   'bound may go down': ('bmax(table_bound(f), f->floor)', 'table_bound(f)'),
   'TARA strict': ('R + L, non-strict */\n        return mk(tm_time_add(f->rt, f->L), false);', 'R + L, non-strict */\n        return mk(tm_time_add(f->rt, f->L), f->L == 0);'),
   'FQR ignores GALT': ('tm_time g = t < f->galt.t ? t : f->galt.t;', 'tm_time g = t;'),
   'no avail delivery': ('} else if (r->req == TM_REQ_NONE && r->avail && ts == r->T) {', '} else if (0) {'),
   'u0 galt = mu': ('        u0->galt = g0;', '        u0->galt = mu;'),
   'con enable strict': ('if (f->con_pending && at_or_above(f->galt, f->T))', 'if (f->con_pending && above(f->galt, f->T))'),
   'cnt counts derived': ('        if (st->f[i]->reg && st->f[i]->myroot == st->f[i]->h &&\n', '        if (st->f[i]->reg &&\n'),
   'one other at mu suffices': ('    } else if (others_at_mu >= 2) {', '    } else if (others_at_mu >= 1) {'),
   'never stale': ('if (f->h == st->u0 || f->h == st->h0) st->stale = true;', 'if (f->h == st->u0 || f->h == st->h0) (void)0;'),
   'no cnt decrement': ('    if (leaves) st->cnt--;', '    (void)leaves;'),
   'case b ignores h0': ('    if (!st->stale && f->h != st->u0 && f->h != st->h0) {', '    if (!st->stale && f->h != st->u0) {'),
   'case b ignores stale': ('    if (!st->stale && f->h != st->u0 && f->h != st->h0) {', '    if (f->h != st->u0 && f->h != st->h0) {'),
   'stale holder = stored': ('    if (!st->stale) {\n        if (root)', '    if (1) {\n        if (root)'),
   'send never evaluates': ('    if (st->nner > 0)\n        evaluate(st); /* a queued', '    if (0)\n        evaluate(st); /* a queued'),
}

CC = ["cc", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-D_DEFAULT_SOURCE", "-I.", "-O2", "-DNDEBUG"]
TESTS = ["tm_scenarios_test", "tm_random_test"]


def main():
    src = open("rti/tm/tm.c").read()
    survivors = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, (old, new) in MUTANTS.items():
            if old not in src:
                print(f"{name:32s} NO LONGER APPLIES (tm.c changed)")
                survivors += 1
                continue
            mut = os.path.join(tmp, "tm_mut.c")
            open(mut, "w").write(src.replace(old, new, 1))
            caught = []
            for t in TESTS:
                test = open(f"tests/conformance/{t}.c").read()
                test = test.replace('#include "rti/tm/tm.c"', f'#include "{mut}"')
                tsrc, exe = os.path.join(tmp, t + ".c"), os.path.join(tmp, t)
                open(tsrc, "w").write(test)
                subprocess.run(CC + [tsrc, "-o", exe], check=True)
                run = subprocess.run([exe], capture_output=True, text=True, timeout=300)
                caught.append(run.returncode != 0)
            verdict = "caught" if any(caught) else "SURVIVED"
            survivors += not any(caught)
            print(f"{name:32s} {verdict} (tables: {caught[0]}, randomized: {caught[1]})")
    print(f"{len(MUTANTS)} mutants, {survivors} survived")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
