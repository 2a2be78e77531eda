"""A model in Python inside a one-process run (doc/python.md "In one process"): tempo-run
--in-process, tempo-master --local and tempo-fmu --all drive it in a tempo-slave --pipe child
(federate/msproto/msproto_child.c). Every method runs it in process to the bytes of the
distributed run, and its numbers against references: examples/python/models.py's Integrator
(z' = k u, k = 2) fed by the dahlquist FMU (x' = -x/2, x(0) = 1), so that z = 4 (1 - e^(-t/2));
the peer with input extrapolation against its recursion over the FMU's recorded outputs; the
energy method handing the model its power input by name."""
import json
import math
import subprocess

import pytest

import tempo
from conftest import SOURCE

MODELS = str(SOURCE / "examples/python")


def federation(tmp_path, algorithm, name="f.json"):
    f = {
        "federation": "pyinproc",
        "algorithm": algorithm,
        "federates": [
            {"name": "src", "fmu": str(SOURCE / "build/fmus/dahlquist_cs.fmu"),
             "parameters": {"k": -0.5, "x0": 1}, "outputs": {"x": "Src.x"}, "record": ["x"]},
            {"name": "integ", "python": MODELS + "/models.py:Integrator", "parameters": {"k": 2},
             "inputs": {"u": "Src.x"}, "outputs": {"z": "Integ.z"}},
        ],
        "output": str(tmp_path / "out"),
    }
    p = tmp_path / name
    p.write_text(json.dumps(f))
    return p


def both(tmp_path, algorithm):
    """The file run distributed and in process: (result in process, {federate: (bytes
    distributed, bytes in process)})."""
    f = federation(tmp_path, algorithm)
    tempo.run(f, output=tmp_path / "d", timeout=120)
    r = tempo.run(f, in_process=True, output=tmp_path / "i", timeout=120)
    return r, {n: ((tmp_path / "d" / (n + ".csv")).read_bytes(),
                   (tmp_path / "i" / (n + ".csv")).read_bytes()) for n in ("src", "integ")}


def exact(t):
    return 4 * (1 - math.exp(-0.5 * t))


def test_master_jacobi_in_process_and_local(tmp_path):
    h = 0.25
    r, b = both(tmp_path, {"method": "master-jacobi", "end": 2, "step": h})
    for n, (d, i) in b.items():
        assert d == i, n
    x, z = r["src"]["x"], r["integ"]["z"]
    want = 0.0
    for n in range(9):  # the Jacobi recursion over the FMU's own outputs
        assert z[n] == pytest.approx(want, rel=1e-13, abs=1e-15)
        want += 2 * h * x[n]
    # tempo-master --local: no RTI at all, the same bytes
    p = subprocess.run([tempo.program("tempo-master"), "--federation",
                        str(tmp_path / "f.json"), "--local", "--quiet", "--output",
                        str(tmp_path / "l")], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "l" / "integ.csv").read_bytes() == b["integ"][1]


@pytest.mark.parametrize("method", ["jacobi", "jacobi-naive", "gauss-seidel"])
def test_peer_in_process_equals_distributed(tmp_path, method):
    r, b = both(tmp_path, {"method": method, "end": 2, "step": 0.25})
    for n, (d, i) in b.items():
        assert d == i, n
    assert r.summary["instants"] == (8, 8)


def test_jacobi_de_in_process_equals_distributed(tmp_path):
    """Discrete-event Jacobi: distributed, tempo-slave's own loop predicts the steps
    (python/tempo/slave.py run_de); in process, tempo-fmu's (algorithms/jacobi_de.c) over the
    child: the same steps and values, bit for bit."""
    r, b = both(tmp_path, {"method": "jacobi-de", "end": 2, "quantum": 0.05, "h_min": 0.01,
                           "h_max": 0.5})
    for n, (d, i) in b.items():
        assert d == i, n
    assert len(r["integ"].time) > 20


def test_peer_with_extrapolation(tmp_path):
    """algorithm.extrapolation = 1 (algorithms/extrap.c, doc/algorithms/jacobi.md): the
    model's input over [t_n, t_n+1] is the line through the FMU's outputs at t_n-1 and t_n
    (held over the first step), integrated exactly: z(n+1) = z(n) + k (h x_n + h/2 (x_n -
    x_n-1)). Distributed (tempo-fmu drives the model) and in process alike."""
    h = 0.25
    r, b = both(tmp_path, {"method": "jacobi", "end": 2, "step": h, "extrapolation": 1})
    for n, (d, i) in b.items():
        assert d == i, n
    x, z = r["src"]["x"], r["integ"]["z"]
    want = 0.0
    for n in range(8):
        assert z[n] == pytest.approx(want, rel=1e-13, abs=1e-15)
        want += 2 * (h * x[n] + (0.5 * h * (x[n] - x[n - 1]) if n else 0.0))
    assert z[8] == pytest.approx(want, rel=1e-13)


# method, its keys, the bound on |z - exact| (the method's own error at these settings, with
# a margin of about 3: measured 2.7e-4, 6.9e-4, 2.0e-4, 3.0e-2)
METHODS = [
    ("defect-control", {"defect-control": {"m": 1, "n": 1, "h1": 0.05}}, 1e-3),
    ("hybrid", {"step": 0.25, "hybrid": {"h_min": 0.001, "h_max": 1, "delta": 0.001,
                                         "tol": 1e-10, "tol_d": 0.001, "tau0": 0.1,
                                         "grow": 1.1, "shrink": 0.5}}, 2e-3),
    ("f3ornits", {"f3ornits": {"dt_init": 0.01, "dt_max": 0.1, "norm": "magnitude",
                               "rtol": 1e-3, "atol": 1e-6}}, 1e-3),
    ("balance", {"step": 0.25, "coupling": {"*": {"extrapolation": "linear",
                                                  "correction": "none"}}}, 0.1),
]


@pytest.mark.parametrize("method,keys,tol", METHODS, ids=[m[0] for m in METHODS])
def test_master_methods_with_a_python_slave(tmp_path, method, keys, tol):
    alg = {"method": method, "end": 2}
    alg.update(keys)
    r, b = both(tmp_path, alg)
    for n, (d, i) in b.items():
        assert d == i, n
    t, z = r["integ"].time, r["integ"]["z"]
    assert t[-1] == pytest.approx(2.0, abs=1e-12) and len(t) > 4
    assert max(abs(zi - exact(ti)) for ti, zi in zip(t, z)) < tol


def test_energy_hands_the_power_input(tmp_path):
    """energy: the master sets each boundary's agreed power on the receiver's "power_input",
    an input the file does not wire: the model is given it by name after its wired inputs,
    and receives the values the master sets (distributed and in process alike)."""
    (tmp_path / "pm.py").write_text(
        "class Stor:\n"
        "    def __init__(self, params, inputs, outputs):\n"
        "        assert inputs == ['u', 'p'], inputs\n"
        "        self.z, self.p, self.k = float(params['z0']), 0.0, float(params['k'])\n"
        "    def outputs_now(self): return [self.z, self.z]\n"
        "    def record(self): return {'z': self.z, 'p': self.p}\n"
        "    def advance(self, t, t_to, u):\n"
        "        self.p = u(t)[1]\n"
        "        self.z += self.k * (t_to - t) * u(t)[0]\n")
    f = {"federation": "pyenergy",
         "algorithm": {"method": "energy", "end": 1, "step": 0.25,
                       "coupling": {"*": {"extrapolation": "linear", "power_input": "p",
                                          "power": "P"}}},
         "federates": [
             {"name": "a", "python": "pm:Stor", "parameters": {"z0": 1, "k": 1},
              "inputs": {"u": "B.z"}, "outputs": {"z": "A.z", "P": "A.P"}},
             {"name": "b", "python": "pm:Stor", "parameters": {"z0": 0, "k": -1},
              "inputs": {"u": "A.z"}, "outputs": {"z": "B.z", "P": "B.P"}}],
         "output": "out"}
    p = tmp_path / "e.json"
    p.write_text(json.dumps(f))
    d = tempo.run(p, output=tmp_path / "d", timeout=120)
    i = tempo.run(p, in_process=True, output=tmp_path / "i", timeout=120)
    for n in ("a", "b"):
        assert (tmp_path / "d" / (n + ".csv")).read_bytes() == \
            (tmp_path / "i" / (n + ".csv")).read_bytes()
    # the column p is the power the master set on each model's input p: it moves
    assert len(d["a"].time) == 5
    assert any(abs(v) > 0 for v in i["a"]["p"]) and any(abs(v) > 0 for v in i["b"]["p"])


def test_a_model_that_fails_in_process(tmp_path):
    bad = tmp_path / "badmodel.py"
    bad.write_text("class Bad:\n    def __init__(self, p, i, o): pass\n"
                   "    def outputs_now(self): return [0.0]\n"
                   "    def advance(self, t, t_to, u): raise ArithmeticError('diverged at %g' % t)\n")
    f = federation(tmp_path, {"method": "master-jacobi", "end": 1, "step": 0.5})
    d = json.loads(f.read_text())
    d["federates"][1]["python"] = str(bad) + ":Bad"
    f.write_text(json.dumps(d))
    with pytest.raises(tempo.RunError) as e:
        tempo.run(f, in_process=True, timeout=60)
    assert e.value.status == 1
    assert "slave integ: step: ArithmeticError: diverged at 0" in str(e.value)


def test_rollback_through_the_models_own_save_and_restore(tmp_path):
    """Waveform relaxation rolls every slave back each iteration: a model that defines
    save() and restore(state) is saved through them (this one holds an open file, which a deep
    copy refuses), in process as distributed, and z = 4 (1 - e^(-t/2)) once converged."""
    (tmp_path / "own.py").write_text(
        "import os\n"
        "class Own:\n"
        "    def __init__(self, params, inputs, outputs):\n"
        "        self.z, self.log = 0.0, open(os.devnull, 'w')\n"
        "        self.saves = self.restores = 0\n"
        "    def outputs_now(self): return [self.z]\n"
        "    def advance(self, t, t_to, u):\n"
        "        m, r = 0.5 * (t + t_to), 0.5 * (t_to - t)\n"
        "        g = 0.5773502691896258\n"
        "        self.z += 2 * r * (u(m - g * r)[0] + u(m + g * r)[0])\n"
        "    def save(self):\n"
        "        self.saves += 1\n"
        "        return self.z\n"
        "    def restore(self, z):\n"
        "        self.restores += 1\n"
        "        self.z = z\n"
        "    def record(self): return {'z': self.z, 'saves': self.saves,\n"
        "                              'restores': self.restores}\n")
    f = federation(tmp_path, {"method": "wr", "end": 2, "step": 0.25, "tol": 1e-10,
                              "max_iter": 50, "n_sub": 4})
    d = json.loads(f.read_text())
    d["federates"][1]["python"] = str(tmp_path / "own.py") + ":Own"
    f.write_text(json.dumps(d))
    for mode in (False, True):
        r = tempo.run(f, in_process=mode, output=tmp_path / ("i" if mode else "d"), timeout=120)
        t, z = r["integ"].time, r["integ"]["z"]
        assert r["integ"]["restores"][-1] > 0 and r["integ"]["saves"][-1] > 0
        # 2-point Gauss on the 4th-order input polynomial: within the relaxation's 1e-6
        assert max(abs(zi - exact(ti)) for ti, zi in zip(t, z)) < 1e-6


def test_a_model_process_that_dies_in_process(tmp_path):
    """The model's process ends in the middle of a step (os._exit): the one-process run
    fails naming the federate and how its tempo-slave ended, and leaves nothing running."""
    bad = tmp_path / "dies.py"
    bad.write_text("import os\nclass Dies:\n    def __init__(self, p, i, o): pass\n"
                   "    def outputs_now(self): return [0.0]\n"
                   "    def advance(self, t, t_to, u):\n"
                   "        if t_to > 0.6: os._exit(3)\n")
    for method in ("master-jacobi", "jacobi"):
        f = federation(tmp_path, {"method": method, "end": 1, "step": 0.25})
        d = json.loads(f.read_text())
        d["federates"][1]["python"] = str(bad) + ":Dies"
        f.write_text(json.dumps(d))
        with pytest.raises(tempo.RunError) as e:
            tempo.run(f, in_process=True, timeout=60)
        msg = e.value.stderr + str(e.value)
        assert e.value.status == 1 and "integ" in msg, msg
        assert "its process (tempo-slave) ended before its reply (it exited with status 3)" in msg


def test_hybrid_discrete_values_refused_naming_the_variable(tmp_path):
    """The hybrid method's discrete channel: a model in Python has no discrete values, so a
    file wiring one to it is refused before anything runs (exit status 2), naming the
    federate, the variable and the method, distributed and in process alike."""
    d = json.loads((SOURCE / "examples/bball_hybrid.json").read_text())
    d["federates"][0] = {"name": "ball", "python": MODELS + "/models.py:Integrator",
                         "outputs": {"z": "Ball.x"}, "inputs": {"stair": "Steps.stair"}}
    d["federates"][1]["fmu"] = str(SOURCE / "build/fmus/bball_steps_me.fmu")
    d["output"] = str(tmp_path / "out")
    f = tmp_path / "hb.json"
    f.write_text(json.dumps(d))
    for mode in (False, True):
        with pytest.raises(tempo.RunError) as e:
            tempo.run(f, in_process=mode, timeout=60)
        assert e.value.status == 2
        assert ('federates[0].python: federate ball: "stair" (Steps.stair) is a discrete value '
                'of method hybrid, which a model in Python cannot give or take') in \
            e.value.stderr + str(e.value)
