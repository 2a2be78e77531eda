"""The Python examples against their C originals: the producer/consumer pair of doc/guide.md
mixed both ways with the C programs (each side prints what the C side prints), and the houses
market as a program federate of an FMU federation (every CSV of the run byte for byte the same
as with the C market)."""
import json
import math
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import tempo
from conftest import SOURCE

PY_EX = SOURCE / "examples" / "python"


def env():
    e = dict(os.environ)
    # the package this test imports, for the example scripts too
    e["PYTHONPATH"] = os.pathsep.join(
        [str(Path(tempo.__file__).resolve().parent.parent)] + [p for p in [e.get("PYTHONPATH")] if p]
    )
    return e


def producer_cmd(kind, rti, federation):
    if kind == "c":
        cmd = [tempo.program("tempo-example-producer")]
    else:
        cmd = [sys.executable, str(PY_EX / "producer.py")]
    return cmd + ["--rti", rti, "--federation", federation, "--fom", str(SOURCE / "fom/demo.xml")]


def consumer_cmd(kind, rti, federation):
    if kind == "c":
        cmd = [tempo.program("tempo-example-consumer")]
    else:
        cmd = [sys.executable, str(PY_EX / "consumer.py")]
    return cmd + ["--rti", rti, "--federation", federation, "--fom", str(SOURCE / "fom/demo.xml")]


def run_pair(rti, federation, prod, cons):
    p = subprocess.Popen(producer_cmd(prod, rti, federation), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env())
    # As examples/demo.sh: the consumer starts once the producer has joined (federate 1).
    first = []
    for line in p.stdout:
        first.append(line.rstrip("\n"))
        if "joined as federate" in line:
            break
    c = subprocess.run(consumer_cmd(cons, rti, federation), capture_output=True, text=True,
                       env=env(), timeout=60)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert c.returncode == 0, c.stderr
    return first + out.splitlines(), c.stdout.splitlines()


@pytest.mark.parametrize("prod,cons", [("py", "c"), ("c", "py"), ("py", "py")])
def test_guide_pair_mixed_with_c(rti, prod, cons):
    ref_p, ref_c = run_pair(rti.address, "ref-%s-%s" % (prod, cons), "c", "c")
    got_p, got_c = run_pair(rti.address, "mix-%s-%s" % (prod, cons), prod, cons)
    assert got_c == ref_c  # the consumer's lines: every sample, its time, the removal
    assert len(got_c) == 13 and "t=0.3 s (TSO, my time 0.2 s)" in got_c[3]
    # The producer's lines; the Command lands among them where the timing puts it (doc/guide.md)
    assert sorted(got_p) == sorted(ref_p)
    assert got_p[:2] == ref_p[:2] and len(got_p) == 14


def test_python_market_gives_the_c_market_results(tmp_path):
    """Three houses and the environment (FMUs) with the market in C, then in Python: the same
    bytes in every CSV."""
    fed = tmp_path / "houses.json"
    gen = subprocess.run(
        [str(SOURCE / "examples/houses/gen.sh"), "3", "de", str(SOURCE)], capture_output=True,
        text=True, check=True,
    )
    fed.write_text(gen.stdout.replace('"end": 259200', '"end": 86400'))
    wrapper = tmp_path / "market-py"
    wrapper.write_text('#!/bin/sh\nexec "%s" "%s" "$@"\n' % (sys.executable, PY_EX / "market.py"))
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    c = tempo.run(fed, output=tmp_path / "c",
                  set={"federates.market.program": tempo.program("tempo-example-market")})
    py = tempo.run(fed, output=tmp_path / "py", set={"federates.market.program": str(wrapper)},
                   env=env())
    assert sorted(c.results) == sorted(py.results) == ["env", "house1", "house2", "house3",
                                                       "market"]
    for name in c.results:
        a = (tmp_path / "c" / (name + ".csv")).read_bytes()
        b = (tmp_path / "py" / (name + ".csv")).read_bytes()
        assert a == b, name
    assert len(py["market"].time) == 97  # a price every 900 s over a day, and at 0
    assert py.summary["updates"] == c.summary["updates"]
    assert py.summary["time_requests"] == c.summary["time_requests"]


def test_doc_python_first_example(rti, tmp_path):
    """The first example of doc/python.md, taken from the page, beside the C producer: it
    prints the ten samples (the page stays true)."""
    text = (SOURCE / "doc" / "python.md").read_text()
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    code = code.replace('rti="127.0.0.1:7470"', 'rti="%s"' % rti.address)
    assert rti.address in code
    (tmp_path / "ex.py").write_text(code)
    p = subprocess.Popen(producer_cmd("c", rti.address, "demo"), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env())
    for line in p.stdout:
        if "joined as federate" in line:
            break
    r = subprocess.run([sys.executable, str(tmp_path / "ex.py")], cwd=str(SOURCE), env=env(),
                       capture_output=True, text=True, timeout=60)
    p.communicate(timeout=60)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert [l.split()[-1] for l in lines] == [str(k) for k in range(1, 11)]
    assert abs(float(lines[2].split()[1]) - math.sin(0.3)) < 1e-12


def market_checkpoint_case(tmp_path, end, at, rows):
    """Two houses with fixed-step Jacobi to `end` (s), the market in Python: saved at `at`
    and resumed, the bytes of the uninterrupted run in every CSV, the Python market's CSV cut
    to its saved length; a checkpoint the C market wrote resumes with the Python market (the
    same part, byte for byte the same layout) to the same bytes. The market's CSV has `rows`
    prices."""
    gen = subprocess.run([str(SOURCE / "examples/houses/gen.sh"), "2", "fts", str(SOURCE)],
                         capture_output=True, text=True, check=True)
    text = gen.stdout.replace('"end": 259200', '"end": %d' % end)
    wrapper = tmp_path / "market-py"
    wrapper.write_text('#!/bin/sh\nexec "%s" "%s" "$@"\n' % (sys.executable, PY_EX / "market.py"))
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    c_file, py_file = tmp_path / "c.json", tmp_path / "py.json"
    c_file.write_text(text)
    d = json.loads(text)
    for f in d["federates"]:
        if f["name"] == "market":
            f["program"] = str(wrapper)
    py_file.write_text(json.dumps(d))
    run = tempo.program("tempo-run")

    def go(f, out, *args):
        p = subprocess.run([run, str(f), "--quiet", "--output", str(tmp_path / out), *args],
                           capture_output=True, text=True, env=env(), timeout=120)
        assert p.returncode == 0, p.stderr

    go(py_file, "a")
    ck = "checkpoints/ckpt-%d000000000" % at
    for first, resumed in ((py_file, "b"), (c_file, "x")):
        go(first, resumed, "--checkpoint-at", str(at))
        assert (tmp_path / resumed / ck).is_dir()
        go(py_file, resumed, "--resume", str(tmp_path / resumed / ck))
        for name in ("market", "house1", "house2", "env"):
            assert (tmp_path / "a" / (name + ".csv")).read_bytes() == \
                (tmp_path / resumed / (name + ".csv")).read_bytes(), (resumed, name)
    assert len((tmp_path / "a" / "market.csv").read_text().splitlines()) == 1 + rows


def test_python_market_checkpoints_as_the_c_market(tmp_path):
    """The market's part of a save (doc/checkpoint.md "Program federates"): two hours, saved
    at 1 h, a price every 900 s."""
    market_checkpoint_case(tmp_path, 7200, 3600, 9)


def test_market_ends_between_two_periods(tmp_path):
    """An end that is not a multiple of the period (7000 s, prices every 900 s up to 6300 s):
    the market advances to the end after its last price (before, every other federate waited
    for it there for ever), and a save while it waits in that last request (at 6500 s)
    resumes to the same bytes, from the C market's checkpoint too."""
    market_checkpoint_case(tmp_path, 7000, 6500, 8)
