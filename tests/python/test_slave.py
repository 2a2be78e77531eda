"""A model written in Python as a slave of the master methods (tempo.slave, doc/python.md):
examples/python/models.py's Integrator (z' = k u) fed by the dahlquist FMU (x' = -x/2) under
master-jacobi, against the Jacobi recursion over the FMU's own recorded outputs, and under
waveform relaxation (rollback, input polynomials, sub-steps), against the exact solution; a
model that fails, and the modes that cannot host a program slave."""
import json
import math
import stat
import subprocess
import sys

import pytest

import tempo
from conftest import SOURCE


def wrapper(tmp_path):
    w = tmp_path / "slave"
    w.write_text('#!/bin/sh\nexec "%s" "%s" "$@"\n'
                 % (sys.executable, SOURCE / "examples/python/tempo_slave.py"))
    w.chmod(w.stat().st_mode | stat.S_IXUSR)
    return str(w)


def federation(tmp_path, algorithm, model="models:Integrator", key=False):
    f = {
        "federation": "pyslave",
        "algorithm": algorithm,
        "federates": [
            {"name": "src", "fmu": str(SOURCE / "build/fmus/dahlquist_cs.fmu"),
             "parameters": {"k": -0.5, "x0": 1}, "outputs": {"x": "Src.x"}, "record": ["x"]},
            {"name": "integ", "program": wrapper(tmp_path), "args": [model, "k=2"],
             "inputs": {"u": "Src.x"}, "outputs": {"z": "Integ.z"}},
        ],
        "output": str(tmp_path / "out"),
    }
    if key:  # named like an FMU: "python": "module:Class" and its "parameters"
        f["federates"][1] = {"name": "integ", "python": model, "parameters": {"k": 2},
                             "inputs": {"u": "Src.x"}, "outputs": {"z": "Integ.z"}}
    p = tmp_path / "f.json"
    p.write_text(json.dumps(f))
    return p


def test_master_jacobi_python_slave(tmp_path):
    h = 0.25
    r = tempo.run(federation(tmp_path, {"method": "master-jacobi", "end": 2, "step": h}))
    x, z = r["src"]["x"], r["integ"]["z"]
    assert list(r["integ"].time) == [k * h for k in range(9)]
    # Jacobi holds the input over a step: z_{n+1} = z_n + k h x_n, x_n the FMU's output at t_n
    want = 0.0
    for n in range(8):
        assert z[n] == pytest.approx(want, rel=1e-13, abs=1e-15)
        want += 2 * h * x[n]
    assert z[8] == pytest.approx(want, rel=1e-13)


def test_waveform_relaxation_python_slave(tmp_path):
    alg = {"method": "wr", "end": 2, "step": 0.25, "tol": 1e-10, "max_iter": 50, "n_sub": 4}
    r = tempo.run(federation(tmp_path, alg))
    t, z = r["integ"].time, r["integ"]["z"]
    assert len(t) == 9
    for ti, zi in zip(t, z):  # z = 4 (1 - exp(-t/2)) once the iterations converge
        assert zi == pytest.approx(4 * (1 - math.exp(-0.5 * ti)), abs=1e-8)


def test_failing_model_is_reported(tmp_path):
    bad = tmp_path / "badmodel.py"
    bad.write_text("class Bad:\n    def __init__(self, p, i, o): pass\n"
                   "    def outputs_now(self): return [0.0]\n"
                   "    def advance(self, t, t_to, u): raise ArithmeticError('diverged at %g' % t)\n")
    f = federation(tmp_path, {"method": "master-jacobi", "end": 1, "step": 0.5},
                   str(bad) + ":Bad")
    with pytest.raises(tempo.RunError) as e:
        tempo.run(f, timeout=30)
    assert e.value.status == 1 and "step at 0.5 s: slave integ: step: ArithmeticError: diverged at 0" in str(e.value)
    # the slave says what its model raised, and tempo-run echoes it (without --quiet)
    p = subprocess.run([tempo.program("tempo-run"), str(f)], capture_output=True, text=True)
    assert p.returncode == 1
    assert "[integ] tempo-slave: integ: command 2 at 0.5 s: ArithmeticError: diverged at 0" in p.stderr


def test_one_process_modes_refuse_a_program_slave(tmp_path):
    f = federation(tmp_path, {"method": "master-jacobi", "end": 1, "step": 0.5})
    p = subprocess.run([tempo.program("tempo-master"), "--federation", str(f), "--local"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "federate integ is a program" in p.stderr
    with pytest.raises(tempo.RunError) as e:
        tempo.run(f, in_process=True)
    assert e.value.status == 2 and "integ is a program" in e.value.stderr


def test_jacobi_peer_equals_master_jacobi(tmp_path):
    """The same model as a peer of fixed-step Jacobi gives the bytes of master-jacobi (the
    same scheme, doc/master.md), the FMU's results included."""
    (tmp_path / "m").mkdir()
    (tmp_path / "p").mkdir()
    tempo.run(federation(tmp_path / "m", {"method": "master-jacobi", "end": 2, "step": 0.25}),
              output=tmp_path / "m" / "res")
    peer = tempo.run(federation(tmp_path / "p", {"method": "jacobi", "end": 2, "step": 0.25}),
                     output=tmp_path / "p" / "res")
    for name in ("src", "integ"):
        a = (tmp_path / "m" / "res" / (name + ".csv")).read_bytes()
        assert a == (tmp_path / "p" / "res" / (name + ".csv")).read_bytes(), name
    assert peer.summary["instants"] == (8, 8)


def test_jacobi_naive_peer_lags_one_step(tmp_path):
    """Naive Jacobi (lookahead = the step): the value computed at t_n is stamped t_n + h, so
    z(n+1) = z(n) + k h x(n-1), x(-1) being the input's start value 0 (Fig. 4.4 of the Awais
    thesis, doc/algorithms/jacobi.md)."""
    h = 0.25
    r = tempo.run(federation(tmp_path, {"method": "jacobi-naive", "end": 2, "step": h}))
    x, z = r["src"]["x"], r["integ"]["z"]
    want, prev = 0.0, 0.0
    for n in range(8):
        assert z[n] == pytest.approx(want, rel=1e-13, abs=1e-15)
        want += 2 * h * prev
        prev = x[n]
    assert z[8] == pytest.approx(want, rel=1e-13)


def test_methods_not_offered(tmp_path):
    f = federation(tmp_path, {"method": "jacobi", "end": 2, "step": 0.5, "extrapolation": 1})
    with pytest.raises(tempo.RunError) as e:
        tempo.run(f)
    assert "method jacobi with extrapolation: not offered for a Python model" in \
        e.value.stderr + str(e.value)


def test_python_slave_times_from_ticks_as_the_c_slaves(tmp_path):
    """A Python slave's rows carry the times a C slave writes (doc/time.md "Seconds from
    ticks"): 3e8 ticks of 1 ns are 0.3 s, not 3e8 * 1e-9 = 0.30000000000000004."""
    tempo.run(federation(tmp_path, {"method": "master-jacobi", "end": 1, "step": 0.1}),
              output=tmp_path / "res")

    def times(name):
        rows = (tmp_path / "res" / (name + ".csv")).read_text().splitlines()[1:]
        return [row.split(",")[0] for row in rows]

    c, py = times("src"), times("integ")
    assert len(c) == 11 and c[3] == "0.3" and c[-1] == "1"
    assert py == c


def test_python_key_runs_as_the_program_form(tmp_path, monkeypatch):
    """A federate named with "python": "module:Class" (tempo-run starts tempo-slave beside
    itself, which reads the model and its "parameters" from the file) gives the same bytes as
    the same model named as a program federate, under a master method and as a peer."""
    monkeypatch.setenv("PYTHONPATH", str(SOURCE / "examples/python"))
    for method in ("master-jacobi", "jacobi"):
        for key in (False, True):
            d = tmp_path / ("%s-%d" % (method, key))
            d.mkdir()
            tempo.run(federation(d, {"method": method, "end": 2, "step": 0.25}, key=key),
                      output=d / "res")
        for name in ("src", "integ"):
            a = (tmp_path / (method + "-0") / "res" / (name + ".csv")).read_bytes()
            assert a == (tmp_path / (method + "-1") / "res" / (name + ".csv")).read_bytes()


def test_python_key_under_waveform_relaxation(tmp_path, monkeypatch):
    """The "python" form under wr (rollback through save/restore, input polynomials):
    the exact z = 4 (1 - e^(-t/2)) within 1e-8, as the program form."""
    monkeypatch.setenv("PYTHONPATH", str(SOURCE / "examples/python"))
    alg = {"method": "wr", "end": 2, "step": 0.25, "tol": 1e-10, "max_iter": 50, "n_sub": 4}
    r = tempo.run(federation(tmp_path, alg, key=True))
    for t, z in zip(r["integ"].time, r["integ"]["z"]):
        assert z == pytest.approx(4 * (1 - math.exp(-t / 2)), abs=1e-8)


def test_python_key_refusals(tmp_path):
    """A model named without its class is refused before anything starts. (Input
    extrapolation, which tempo-slave's own loops refuse, runs under tempo-fmu:
    test_inprocess.py test_peer_with_extrapolation.)"""
    f = federation(tmp_path, {"method": "master-jacobi", "end": 1, "step": 0.5}, key=True)
    d = json.loads(f.read_text())
    d["federates"][1]["python"] = "models"
    f.write_text(json.dumps(d))
    p = subprocess.run([tempo.program("tempo-run"), str(f)], capture_output=True, text=True)
    assert p.returncode == 2 and 'federates[1].python: "models": expected "module:Class"' in p.stderr


def test_gauss_seidel_python_sink(tmp_path, monkeypatch):
    """Under gauss-seidel the Python model is the sink after the FMU source (the first
    federate, the file's plan): it waits for the source's x(t_n+1) and integrates with it held,
    z(n+1) = z(n) + k h x(n+1) over the FMU's own recorded outputs (Algorithm 1 of the Awais
    thesis, doc/algorithms/gauss-seidel.md)."""
    monkeypatch.setenv("PYTHONPATH", str(SOURCE / "examples/python"))
    h = 0.25
    r = tempo.run(federation(tmp_path, {"method": "gauss-seidel", "end": 2, "step": h}, key=True))
    x, z = r["src"]["x"], r["integ"]["z"]
    assert list(r["integ"].time) == [k * h for k in range(9)]
    want = 0.0
    for n in range(8):
        assert z[n] == pytest.approx(want, rel=1e-13, abs=1e-15)
        want += 2 * h * x[n + 1]
    assert z[8] == pytest.approx(want, rel=1e-13)


def test_gauss_seidel_two_python_models_pass_the_token(tmp_path, monkeypatch):
    """Two Python models in a loop, a the source and b the sink: a integrates with b's value
    of the step before, b with a's new one, and b passes the StepForward token back to a:
    a(n+1) = a(n) + ka h b(n), b(n+1) = b(n) + kb h a(n+1), exactly."""
    monkeypatch.setenv("PYTHONPATH", str(SOURCE / "examples/python"))
    h, ka, kb = 0.125, -1.0, 0.5
    f = {"federation": "pygs",
         "algorithm": {"method": "gauss-seidel", "end": 1, "step": h},
         "federates": [
             {"name": "a", "python": "models:Integrator", "role": "source",
              "parameters": {"k": ka, "z0": 1}, "inputs": {"u": "B.z"}, "outputs": {"z": "A.z"}},
             {"name": "b", "python": "models:Integrator", "role": "sink",
              "parameters": {"k": kb, "z0": 2}, "inputs": {"u": "A.z"}, "outputs": {"z": "B.z"}}],
         "output": str(tmp_path / "out")}
    p = tmp_path / "gs.json"
    p.write_text(json.dumps(f))
    r = tempo.run(p)
    a, b = r["a"]["z"], r["b"]["z"]
    wa, wb = 1.0, 2.0
    for n in range(9):
        assert a[n] == pytest.approx(wa, rel=1e-13) and b[n] == pytest.approx(wb, rel=1e-13)
        wa = wa + ka * h * wb
        wb = wb + kb * h * wa


def test_jacobi_de_python_peer(tmp_path, monkeypatch):
    """Under jacobi-de (the Awais thesis §4.2.2, doc/algorithms/jacobi-de.md) the Python model
    predicts when its output moves by one quantum (eq. 4.5: the secant of its last two samples,
    h_min with one), asks NERA there, and steps to the grant: its own prediction or the FMU's
    earlier update. Checked against the rule recomputed from the CSVs: every step ends at the
    prediction or at one of the FMU's instants, never past the prediction, and over each step
    z grows by k (t(n+1) - t(n)) x held (the FMU's newest value at t(n))."""
    monkeypatch.setenv("PYTHONPATH", str(SOURCE / "examples/python"))
    alg = {"method": "jacobi-de", "end": 2, "quantum": 0.05, "h_min": 0.01, "h_max": 0.5}
    r = tempo.run(federation(tmp_path, alg, key=True))
    ts, xs = list(r["src"].time), list(r["src"]["x"])
    t, z = list(r["integ"].time), list(r["integ"]["z"])
    assert t[0] == 0 and t[-1] == 2 and len(t) > len(ts) > 3
    interrupted = 0
    for n in range(len(t) - 1):
        if n == 0:
            h = 0.01
        else:
            s = abs((z[n] - z[n - 1]) / (t[n] - t[n - 1]))
            h = 0.5 if s * 0.5 <= 0.05 else min(max(0.05 / s, 0.01), 0.5)
        pred = min(t[n] + h, 2.0)
        assert t[n + 1] <= pred + 1e-9
        if abs(t[n + 1] - pred) > 1e-9:
            assert any(abs(t[n + 1] - u) < 1e-12 for u in ts), t[n + 1]
            interrupted += 1
        held = [x for u, x in zip(ts, xs) if u <= t[n] + 1e-12][-1]
        assert z[n + 1] == pytest.approx(z[n] + 2 * (t[n + 1] - t[n]) * held, rel=1e-12)
    assert interrupted > 0  # the FMU's updates did cut some of its steps


def pair(tmp_path, algorithm, model_a="models:Integrator"):
    """Two Python models in a loop: a' = -b, b' = a, a(0) = 1, b(0) = 0 (a = cos t, b = sin t)."""
    f = {"federation": "pypair", "algorithm": algorithm,
         "federates": [
             {"name": "a", "python": model_a, "parameters": {"k": -1, "z0": 1},
              "inputs": {"u": "B.z"}, "outputs": {"z": "A.z"}},
             {"name": "b", "python": "models:Integrator", "parameters": {"k": 1, "z0": 0},
              "inputs": {"u": "A.z"}, "outputs": {"z": "B.z"}}],
         "output": str(tmp_path / "out")}
    p = tmp_path / "pair.json"
    p.write_text(json.dumps(f))
    return p


def test_strong_coupling_uses_the_models_states_and_derivatives(tmp_path, monkeypatch):
    """strong (one ODE over every slave's states, doc/algorithms/strong-coupling.md) asks the
    Python models for states(), set_states() and derivatives(): a = cos t, b = sin t within
    the solver's tolerance."""
    monkeypatch.setenv("PYTHONPATH", str(SOURCE / "examples/python"))
    alg = {"method": "strong", "end": 1, "step": 0.25,
           "solver": {"method": "bdf", "rtol": 1e-10, "atol": 1e-12}}
    f = pair(tmp_path, alg)
    r = tempo.run(f, output=tmp_path / "d")
    for t, a, b in zip(r["a"].time, r["a"]["z"], r["b"]["z"]):
        assert a == pytest.approx(math.cos(t), abs=1e-7) and b == pytest.approx(math.sin(t), abs=1e-7)
    # in one process (doc/python.md "In one process"): the same bytes
    tempo.run(f, in_process=True, output=tmp_path / "i")
    for n in ("a", "b"):
        assert (tmp_path / "d" / (n + ".csv")).read_bytes() == \
            (tmp_path / "i" / (n + ".csv")).read_bytes()


def test_semi_implicit_python_models(tmp_path, monkeypatch):
    """semi-implicit with Newton and one sub-step over the Integrators (inputs held over the
    step at the iterate) solves implicit Euler: a(n+1) = a(n) - h b(n+1),
    b(n+1) = b(n) + h a(n+1), within the iteration's tolerance."""
    monkeypatch.setenv("PYTHONPATH", str(SOURCE / "examples/python"))
    h = 0.25
    alg = {"method": "semi-implicit", "end": 1, "step": h, "iteration": "newton", "tol": 1e-10,
           "max_iter": 50, "n_sub": 1}
    f = pair(tmp_path, alg)
    r = tempo.run(f, output=tmp_path / "d")
    wa, wb = 1.0, 0.0
    for a, b in zip(r["a"]["z"], r["b"]["z"]):
        assert a == pytest.approx(wa, abs=1e-9) and b == pytest.approx(wb, abs=1e-9)
        wa, wb = (wa - h * wb) / (1 + h * h), (wb + h * wa) / (1 + h * h)
    tempo.run(f, in_process=True, output=tmp_path / "i")  # in one process: the same bytes
    for n in ("a", "b"):
        assert (tmp_path / "d" / (n + ".csv")).read_bytes() == \
            (tmp_path / "i" / (n + ".csv")).read_bytes()


def test_a_missing_operation_is_named(tmp_path, monkeypatch):
    """A model without states() and derivatives() under strong: the run stops and the
    master's report names the slave and what it cannot do."""
    (tmp_path / "plain.py").write_text(
        "class Plain:\n"
        "    def __init__(self, params, inputs, outputs):\n"
        "        self.z = float(params.get('z0', 0))\n"
        "    def outputs_now(self):\n"
        "        return [self.z]\n"
        "    def advance(self, t, t_to, u):\n"
        "        self.z += (t_to - t) * u(t)[0]\n")
    monkeypatch.setenv("PYTHONPATH", str(SOURCE / "examples/python"))
    alg = {"method": "strong", "end": 1, "step": 0.5}
    for mode in (False, True):  # as its own process, and in one process
        with pytest.raises(tempo.RunError) as e:
            tempo.run(pair(tmp_path, alg, model_a="plain.py:Plain"), in_process=mode)
        assert "slave 'a' cannot set its states and give their derivatives" in \
            e.value.stderr + str(e.value)
