#!/usr/bin/env python3
"""Mutation check of the time management engine (doc/time.md section 9, doc/architecture.md section 5).

Each mutant breaks one rule of the engine (rti/tm/tm.c, or the bound table rti/proto/bound.h)
in a copy under a temporary directory, found before the original by the include path (strictness, fixed-point direction, floors, promises, the
tie rule, FQR, the fast-path conditions). The scenario tables and the randomized test are linked
against an engine library built from the copy, as make links them against librti_tm; a mutant
survives if both still pass. Run from the repository root: tests/conformance/tm_mutants.py. Exit status
1 if any mutant survives (or no longer applies because its file changed). Not part of make test
(it builds one engine library per mutant). Read tests/conformance/tm_random_test.c next."""
import os
import subprocess
import sys
import tempfile

MUTANTS = {
   'upward-fixpoint': ('rti/tm/tm.c', 'ner_bound(f, f->floor, INF, NULL)', 'ner_bound(f, f->floor, f->floor, NULL)'),
   'TAR uses >=': ('rti/tm/tm.c', 'if (!above(f->galt, t)) return no;', 'if (!at_or_above(f->galt, t)) return no;'),
   'NER L=0 non-strict': ('rti/tm/tm.c', 'm.strict || (f->req == TM_REQ_NER && f->L == 0)', 'm.strict'),
   'no promise on enable reg': ('rti/tm/tm.c', 'f->bound = bmax(own, p);', 'f->bound = own;'),
   'tie ignores sender': ('rti/tm/tm.c', '    if (x->sender != y->sender) return x->sender < y->sender;\n', ''),
   'bound may go down': ('rti/tm/tm.c', 'bmax(table_bound(f), f->floor)', 'table_bound(f)'),
   'TARA strict': ('rti/proto/bound.h', 'R + L, non-strict */\n        return bound_make(bound_time_add(R, L), false);', 'R + L, non-strict */\n        return bound_make(bound_time_add(R, L), L == 0);'),
   'FQR ignores GALT': ('rti/tm/tm.c', 'tm_time g = t < f->galt.t ? t : f->galt.t;', 'tm_time g = t;'),
   'no avail delivery': ('rti/tm/tm.c', '} else if (r->req == TM_REQ_NONE && r->avail && ts == r->T) {', '} else if (0) {'),
   'u0 galt = mu': ('rti/tm/tm.c', '        u0->galt = g0;', '        u0->galt = mu;'),
   'con enable strict': ('rti/tm/tm.c', 'if (f->con_pending && at_or_above(f->galt, f->T))', 'if (f->con_pending && above(f->galt, f->T))'),
   'cnt counts derived': ('rti/tm/tm.c', '        if (st->f[i]->reg && st->f[i]->myroot == st->f[i]->h &&\n', '        if (st->f[i]->reg &&\n'),
   'one other at mu suffices': ('rti/tm/tm.c', '    } else if (others_at_mu >= 2) {', '    } else if (others_at_mu >= 1) {'),
   'never stale': ('rti/tm/tm.c', 'if (f->h == st->u0 || f->h == st->h0) st->stale = true;', 'if (f->h == st->u0 || f->h == st->h0) (void)0;'),
   'no cnt decrement': ('rti/tm/tm.c', '    if (leaves) st->cnt--;', '    (void)leaves;'),
   'case b ignores h0': ('rti/tm/tm.c', '    if (!st->stale && f->h != st->u0 && f->h != st->h0) {', '    if (!st->stale && f->h != st->u0) {'),
   'case b ignores stale': ('rti/tm/tm.c', '    if (!st->stale && f->h != st->u0 && f->h != st->h0) {', '    if (f->h != st->u0 && f->h != st->h0) {'),
   'stale holder = stored': ('rti/tm/tm.c', '    if (!st->stale) {\n        if (root)', '    if (1) {\n        if (root)'),
   'send never evaluates': ('rti/tm/tm.c', '    if (st->nner > 0)\n        evaluate(st); /* a queued', '    if (0)\n        evaluate(st); /* a queued'),
   # promise handling (issue 20): cumulative, strict after TAR/NER, fresh at enabling, only constrained
   'promise = last grant only': ('rti/tm/tm.c', 'if (f->con) f->promise = bmax(f->promise, mk(t, !f->avail));', 'if (f->con) f->promise = mk(t, !f->avail);'),
   'promise never strict': ('rti/tm/tm.c', 'if (f->con) f->promise = bmax(f->promise, mk(t, !f->avail));', 'if (f->con) f->promise = bmax(f->promise, mk(t, false));'),
   'promise always strict': ('rti/tm/tm.c', 'if (f->con) f->promise = bmax(f->promise, mk(t, !f->avail));', 'if (f->con) f->promise = bmax(f->promise, mk(t, true));'),
   'no promise from grants': ('rti/tm/tm.c', 'if (f->con) f->promise = bmax(f->promise, mk(t, !f->avail));', '(void)0;'),
   'promise kept over re-enable': ('rti/tm/tm.c', '                f->promise = mk(f->T, false); /* earlier', '                (void)0; /* earlier'),
   'promise strict at enable': ('rti/tm/tm.c', '                f->promise = mk(f->T, false); /* earlier', '                f->promise = mk(f->T, true); /* earlier'),
   'unconstrained promise counts': ('rti/tm/tm.c', '        if (!f->con) continue;\n        if (*who == TM_NO_FED || tm_bound_cmp(f->promise, p) > 0) {', '        if (*who == TM_NO_FED || tm_bound_cmp(f->promise, p) > 0) {'),
}

CC = ["cc", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-D_DEFAULT_SOURCE", "-O2", "-DNDEBUG"]
TESTS = ["tm_scenarios_test", "tm_random_test"]
# What the tests link (mk/35-tm.mk: librti_tm and the rti/proto part of libcommon), as sources.
ENGINE = ["rti/tm/tm.c", "rti/tm/tm_reason.c", "rti/proto/delivery.c"]


def compile_all(mutdir, path):
    """The engine library and the tests, built with the mutated copy of path (a source or a
    header: mutdir comes first in the include path), into mutdir. Returns the test programs."""
    inc = ["-I", mutdir, "-I."]
    objs = []
    for k, src in enumerate(ENGINE):
        obj = os.path.join(mutdir, f"engine-{k}.o")
        use = os.path.join(mutdir, src) if src == path else src
        subprocess.run(CC + inc + ["-c", use, "-o", obj], check=True)
        objs.append(obj)
    lib = os.path.join(mutdir, "librti_tm_mut.a")
    subprocess.run(["ar", "rcs", lib] + objs, check=True)
    exes = []
    for t in TESTS:
        exe = os.path.join(mutdir, t)
        subprocess.run(CC + inc + [f"tests/conformance/{t}.c", lib, "-o", exe], check=True)
        exes.append(exe)
    return exes


def main():
    survivors = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, (name, (path, old, new)) in enumerate(MUTANTS.items()):
            src = open(path).read()
            if old not in src:
                print(f"{name:32s} NO LONGER APPLIES ({path} changed)")
                survivors += 1
                continue
            mutdir = os.path.join(tmp, f"m{n}")
            os.makedirs(os.path.join(mutdir, os.path.dirname(path)))
            open(os.path.join(mutdir, path), "w").write(src.replace(old, new, 1))
            caught = []
            for exe in compile_all(mutdir, path):
                run = subprocess.run([exe], capture_output=True, text=True, timeout=300)
                caught.append(run.returncode != 0)
            verdict = "caught" if any(caught) else "SURVIVED"
            survivors += not any(caught)
            print(f"{name:32s} {verdict} (tables: {caught[0]}, randomized: {caught[1]})")
    print(f"{len(MUTANTS)} mutants, {survivors} survived")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
