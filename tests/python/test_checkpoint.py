"""Python federates in a coordinated save and its restore (doc/checkpoint.md, doc/python.md
"Checkpoints"): save_state gives each federate's part inside the grant of the save time, the
"saved" event brings the outcome and the folder, restore_federation recreates the federation
and a restoring join hands each federate its bytes and its logical time back; a federate
without save_state, or whose save_state raises, fails the save naming it."""
import os
import pickle

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
