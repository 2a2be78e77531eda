"""Python federates in a coordinated save and its restore (doc/checkpoint.md, doc/python.md
"Checkpoints"): save_state gives each federate's part inside the grant of the save time, the
"saved" event brings the outcome and the folder, restore_federation recreates the federation
and a restoring join hands each federate its bytes and its logical time back; a federate
without save_state, or whose save_state raises, fails the save naming it."""
import json
import os
import pickle
import subprocess

import pytest

import tempo
from conftest import SOURCE

FOM = str(SOURCE / "fom" / "demo.xml")


def saved_events(f):
    return [e for e in f.poll_events() if e.kind == "saved"]


def test_save_and_restore(tmp_path, federation):
    ck = tmp_path / "ck"
    ck.mkdir()
    state = {"x": 1.5, "rows": [1, 2, 3]}
    with tempo.InprocRTI(federation + "-a", checkpoint_dir=ck) as rti:
        with tempo.Federate(federation, "p", fom=FOM, rti=rti.address,
                            save_state=lambda label, t: pickle.dumps((label, t, state))) as f:
            f.enable_regulation(f.ticks(0.1))
            f.enable_constrained()
            t_save = f.ticks(1.0)
            f.request_save("one", t_save)
            assert f.tar(t_save) == t_save  # the save runs inside the call that got the grant
            ev = saved_events(f)
            assert len(ev) == 1 and ev[0].name == "one" and ev[0].code == 0, ev
            folder = ev[0].message
            assert os.path.isdir(folder) and os.path.samefile(folder, ck / "one")
            f.tar(f.ticks(2.0))  # the run goes on after the save
    got = {}
    with tempo.InprocRTI(federation + "-b") as rti:
        tempo.restore_federation(folder, rti=rti.address)
        with tempo.Federate(federation, "p", fom=FOM, rti=rti.address, restore=True,
                            restore_state=lambda label, t, b: got.update(
                                label=label, t=t, part=pickle.loads(b))) as f:
            assert got == {"label": "one", "t": t_save, "part": ("one", t_save, state)}
            assert f.restored[0] == "one" and f.logical_time == t_save
            assert f.tar(f.ticks(1.5)) == f.ticks(1.5)  # regulation and constraint came back


def test_save_fails_naming_the_federate(tmp_path, federation):
    """A federate without save_state cannot save (the library's NULL callback); one whose
    save_state raises fails the save with the exception's words. Both learn the outcome."""
    ck = tmp_path / "ck"
    ck.mkdir()

    def broken(label, t):
        raise ValueError("model state too large")

    with tempo.InprocRTI(federation, checkpoint_dir=ck) as rti:
        with tempo.Federate(federation, "plain", fom=FOM, rti=rti.address) as f:
            f.enable_regulation(0)
            f.enable_constrained()
            f.request_save("s1", f.ticks(1.0))
            f.tar(f.ticks(1.0))
            ev = saved_events(f)
            assert len(ev) == 1 and ev[0].code == tempo.errors.TP_ECKPT, ev
            assert "plain" in ev[0].message
        with tempo.Federate(federation, "bad", fom=FOM, rti=rti.address, save_state=broken) as f:
            f.enable_regulation(0)
            f.enable_constrained()
            f.request_save("s2", f.ticks(1.0))
            f.tar(f.ticks(1.0))
            ev = saved_events(f)
            assert len(ev) == 1 and ev[0].code < 0, ev
            assert "bad" in ev[0].message and "ValueError: model state too large" in ev[0].message
    assert not (ck / "s1").exists() and not (ck / "s2").exists()


def test_restore_of_a_damaged_checkpoint_names_the_file(tmp_path, federation):
    bad = tmp_path / "nockpt"
    bad.mkdir()
    (bad / "MANIFEST").write_text("not a manifest\n")
    with tempo.InprocRTI(federation) as rti:
        with pytest.raises(tempo.TempoError) as e:
            tempo.restore_federation(bad, rti=rti.address)
    assert e.value.code == tempo.errors.TP_ECKPT and "MANIFEST" in e.value.message


# ---- a model in Python in a checkpointed run (tempo-run --checkpoint-at, --resume) ----------

def _file(tmp_path, model, method="jacobi"):
    alg = {"method": method, "end": 2, "step": 0.25}
    if method == "jacobi-de":
        alg = {"method": method, "end": 2, "quantum": 0.05, "h_min": 0.01, "h_max": 0.5}
    f = {"federation": "pyckpt",
         "algorithm": alg,
         "federates": [
             {"name": "src", "fmu": str(SOURCE / "build/fmus/dahlquist_cs.fmu"),
              "parameters": {"k": -0.5, "x0": 1}, "outputs": {"x": "Src.x"}, "record": ["x"]},
             {"name": "integ", "python": model, "parameters": {"k": 2},
              "inputs": {"u": "Src.x"}, "outputs": {"z": "Integ.z"}}],
         "output": "out"}
    p = tmp_path / "f.json"
    p.write_text(json.dumps(f))
    return p


def _run(*args):
    p = subprocess.run([tempo.program("tempo-run"), "--quiet", *map(str, args)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout + p.stderr


@pytest.mark.parametrize("first,second", [("distributed", "distributed"),
                                          ("in-process", "in-process"),
                                          ("in-process", "distributed")])
def test_python_peer_resumes_to_the_same_bytes(tmp_path, first, second):
    """A run with a checkpoint at 1 s, its Python model's CSV removed, then resumed from the
    checkpoint: the same bytes as the uninterrupted run in both CSVs. The Python slave's part
    (its time, inputs, model and the rows so far) is what rebuilds z and its rows before the
    save; placements crossed too."""
    f = _file(tmp_path, str(SOURCE / "examples/python/models.py") + ":Integrator")
    _run(f, "--output", tmp_path / "a")
    _run(f, "--" + first, "--output", tmp_path / "b", "--checkpoint-at", "1.0")
    ck = tmp_path / "b" / "checkpoints" / "ckpt-1000000000"
    assert ck.is_dir()
    (tmp_path / "b" / "integ.csv").unlink()
    _run(f, "--" + second, "--output", tmp_path / "b", "--resume", ck)
    for n in ("src", "integ"):
        assert (tmp_path / "a" / (n + ".csv")).read_bytes() == \
            (tmp_path / "b" / (n + ".csv")).read_bytes(), n


@pytest.mark.parametrize("method", ["gauss-seidel", "jacobi-de"])
def test_python_peer_resumes_under_the_other_peer_methods(tmp_path, method):
    """The same under Gauss-Seidel (the Python model the sink of the file's plan) and
    discrete-event Jacobi; the uninterrupted run is tempo-slave's own loop, the checkpointed
    one tempo-fmu's over the child: the same bytes."""
    f = _file(tmp_path, str(SOURCE / "examples/python/models.py") + ":Integrator", method)
    _run(f, "--output", tmp_path / "a")
    _run(f, "--output", tmp_path / "b", "--checkpoint-at", "1.0")
    (tmp_path / "b" / "integ.csv").unlink()
    _run(f, "--output", tmp_path / "b", "--resume", tmp_path / "b/checkpoints/ckpt-1000000000")
    for n in ("src", "integ"):
        assert (tmp_path / "a" / (n + ".csv")).read_bytes() == \
            (tmp_path / "b" / (n + ".csv")).read_bytes(), n


def test_python_model_first_asks_for_the_saves(tmp_path):
    """The file's first federate asks for the saves: a "python" model may be it (tempo-fmu
    drives it then); saved distributed, resumed in process."""
    f = _file(tmp_path, str(SOURCE / "examples/python/models.py") + ":Integrator")
    d = json.loads(f.read_text())
    d["federates"].reverse()
    f.write_text(json.dumps(d))
    _run(f, "--output", tmp_path / "a")
    _run(f, "--output", tmp_path / "b", "--checkpoint-at", "1.0")
    (tmp_path / "b" / "integ.csv").unlink()
    _run(f, "--in-process", "--output", tmp_path / "b", "--resume",
         tmp_path / "b/checkpoints/ckpt-1000000000")
    for n in ("src", "integ"):
        assert (tmp_path / "a" / (n + ".csv")).read_bytes() == \
            (tmp_path / "b" / (n + ".csv")).read_bytes(), n


def test_python_model_saved_through_its_own_methods(tmp_path):
    """A model holding what pickle refuses (an open file) saves nothing but fails the save,
    naming the federate and the remedy; with save() and restore(state) it resumes."""
    (tmp_path / "m.py").write_text(
        "import os\n"
        "class NoPickle:\n"
        "    def __init__(self, p, i, o): self.z, self.fh = 0.0, open(os.devnull, 'w')\n"
        "    def outputs_now(self): return [self.z]\n"
        "    def advance(self, t, t_to, u): self.z += 2 * (t_to - t) * u(t)[0]\n"
        "class Own(NoPickle):\n"
        "    def save(self): return self.z\n"
        "    def restore(self, z): self.z = z\n")
    f = _file(tmp_path, str(tmp_path / "m.py") + ":NoPickle")
    out = _run(f, "--output", tmp_path / "n", "--checkpoint-at", "1.0")
    assert "checkpoints: 1 failed" in out and "federate integ: saving its state: TypeError: " \
        "the model NoPickle cannot be pickled (give it save() and restore(state))" in out
    f = _file(tmp_path, str(tmp_path / "m.py") + ":Own")
    _run(f, "--output", tmp_path / "a")
    _run(f, "--output", tmp_path / "b", "--checkpoint-at", "1.0")
    (tmp_path / "b" / "integ.csv").unlink()
    _run(f, "--output", tmp_path / "b", "--resume", tmp_path / "b/checkpoints/ckpt-1000000000")
    assert (tmp_path / "a/integ.csv").read_bytes() == (tmp_path / "b/integ.csv").read_bytes()
