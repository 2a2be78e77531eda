"""tempo.run, tempo.study and tempo.Log against the programs they drive: results equal to the
CSVs tempo-run writes, overrides equal to a hand-edited copy of the file run by tempo-run
itself, in process equal to distributed, the study's rows equal to single runs, a bad file as
RunError, and a federation log's statistics, grants and explanation against tempo-log's."""
import csv
import json
import re
import subprocess

import pytest

import tempo
from conftest import SOURCE, Thread

LV = str(SOURCE / "examples" / "lv_gs.json")


def read_csv(path):
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[0], [[float(x) for x in r] for r in rows[1:]]


def test_run_results_and_summary(tmp_path):
    r = tempo.run(LV, output=tmp_path / "out")
    s = r.summary
    assert (s["federation"], s["federates"], s["method"]) == ("lv-gauss-seidel", 2, "gauss-seidel")
    assert (s["start"], s["end"], s["instants"]) == (0.0, 100.0, (200, 200))
    assert s["updates"] > 0 and s["time_requests"] > 0 and s["wall_time"] > 0
    for fed in ("prey", "predator"):
        head, rows = read_csv(tmp_path / "out" / (fed + ".csv"))
        assert list(r[fed]) == head
        for j, col in enumerate(head):
            assert list(r[fed][col]) == [row[j] for row in rows]
    assert r["prey"].time[-1] == 100.0 and len(r["prey"].time) == 201


def test_in_process_equals_distributed():
    a = tempo.run(LV)
    b = tempo.run(LV, in_process=True)
    assert a.output is None  # a temporary results folder, removed
    for fed in ("prey", "predator"):
        for col in a[fed]:
            assert list(a[fed][col]) == list(b[fed][col])


def test_set_equals_a_hand_edited_file(tmp_path):
    data = json.loads(open(LV).read())
    data["federates"][0]["parameters"]["alpha"] = 0.6
    data["algorithm"]["step"] = 0.25
    for f in data["federates"]:
        f["fmu"] = str((SOURCE / "examples" / f["fmu"]).resolve())
    data["output"] = str(tmp_path / "ref")
    (tmp_path / "ref.json").write_text(json.dumps(data))
    subprocess.run([tempo.program("tempo-run"), str(tmp_path / "ref.json"), "--quiet"], check=True,
                   capture_output=True)
    r = tempo.run(LV, set={"prey.alpha": 0.6, "algorithm.step": 0.25}, in_process=True)
    head, rows = read_csv(tmp_path / "ref" / "prey.csv")
    assert list(r["prey"]["x"]) == [row[head.index("x")] for row in rows]
    assert r.summary["instants"] == (400, 400)
    base = tempo.run(LV, in_process=True)
    assert abs(base["prey"]["x"][-1] - r["prey"]["x"][-1]) > 1e-3  # alpha changed the run


def test_bad_file_is_a_run_error():
    with pytest.raises(tempo.RunError) as e:
        tempo.run(LV, set={"algorithm.method": "bogus"})
    assert e.value.status == 2 and "algorithm.method" in str(e.value)


def test_study_rows_equal_single_runs():
    grid = {"prey.alpha": [0.4, 0.6], "predator.delta": [0.6]}
    tab = tempo.study(LV, grid, processes=2)
    assert [(r["prey.alpha"], r["predator.delta"]) for r in tab] == [(0.4, 0.6), (0.6, 0.6)]
    for row in tab:
        one = tempo.run(LV, in_process=True, set={"prey.alpha": row["prey.alpha"]})
        assert row["prey.x"] == one["prey"]["x"][-1]
        assert row["predator.y"] == one["predator"]["y"][-1]
    assert tab.columns()[:2] == ["prey.alpha", "predator.delta"]
    tab2 = tempo.study(LV, {"algorithm.method": ["bogus"]})
    assert "exit status 2" in tab2[0]["error"]


def stats_table(text):
    """tempo-log stats' per-federate rows: name -> (recv, sent, requests, grants, updates,
    reflects)."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s", line)
        if m:
            out[m.group(1)] = tuple(int(m.group(i)) for i in range(2, 8))
    return out


def test_log_of_a_run(tmp_path):
    r = tempo.run(LV, log=tmp_path / "logs", in_process=True)
    log = tempo.Log(r.summary["log"])
    assert log.federation == "lv-gauss-seidel" and log.resolution == 1e-9 and not log.cut
    st = log.stats()
    ref = stats_table(log.stats_text())
    assert set(ref) == {"prey", "predator"}
    for name, row in ref.items():
        s = st[name]
        assert (s["recv"], s["sent"], s["requests"], s["grants"], s["updates"],
                s["reflections"]) == row
    grants = log.grants("prey")
    assert len(grants) == st["prey"]["grants"] == len(log.timeline("prey", "SENT", "TIME_GRANT"))
    assert grants[-1].seconds == grants[-1].time * 1e-9
    assert all(g.request in ("TAR", "TARA", "NER", "NERA", "FQR") for g in grants)
    window = log.timeline(kind="RECV", type="UPDATE", start=10.0, stop=20.0)
    assert window and all(10.0 <= w["ltime"] * 1e-9 <= 20.0 for w in window)
    assert log.explain().nobody_waits


def test_explain_a_wait(tmp_path, demo_fom):
    """b waits in TAR for a, which never advances: explain just after b's request names a
    as the root cause."""
    with tempo.InprocRTI("explain", log_dir=str(tmp_path)) as rti:
        a = tempo.Federate("hang", "a", fom=demo_fom, rti=rti.address)
        b = tempo.Federate("hang", "b", fom=demo_fom, rti=rti.address)
        a.enable_regulation(5)
        b.enable_constrained()
        b.tar(1000, wait=False)
        assert b.wait_grant(0.1) is None
        b.close()
        a.close()
    log = tempo.Log(next(tmp_path.glob("*.tlog")))
    req = log.timeline(federate="b", kind="RECV", type="TIME_REQUEST")[0]
    e = log.explain(at=req["seq"])
    assert set(e.federates) == {"a", "b"}
    assert "TAR(" in e.federates["b"]
    assert e.root_causes and e.root_causes[0].startswith("a is not waiting")
    assert not e.nobody_waits and "who waits for whom" in str(e)
    with pytest.raises(tempo.LogError):
        tempo.Log(tmp_path / "missing.tlog")


def test_result_arrays_are_numpy_when_present(monkeypatch):
    """Columns are numpy arrays when NumPy imports, array('d') otherwise (the package needs
    nothing beyond the standard library)."""
    from array import array

    import sys

    runmod = sys.modules["tempo.run"]  # the module (tempo.run is the function)

    r = tempo.run(LV, in_process=True, set={"algorithm.end": 5})
    try:
        import numpy
    except ImportError:
        numpy = None
    if numpy is not None:
        assert isinstance(r["prey"]["x"], numpy.ndarray) and r["prey"]["x"].dtype == float
    else:
        assert isinstance(r["prey"]["x"], array)
    monkeypatch.setattr(runmod, "_np", None)  # as on a machine without NumPy
    r2 = tempo.run(LV, in_process=True, set={"algorithm.end": 5})
    assert isinstance(r2["prey"]["x"], array) and list(r2["prey"]["x"]) == list(r["prey"]["x"])
