"""Fixtures of the Python package's tests (doc/python.md, "Tests"): an RTI process on an
ephemeral port (and a Unix socket), the source tree's FOMs, and helpers to drive two
federates. Run by tests/integration/python_test.sh on the build tree (PYTHONPATH=python) and
on an installed copy (TEMPO_SOURCE names the source tree for its FOMs and example files)."""
import os
import re
import subprocess
import threading
import time
from pathlib import Path

import pytest

import tempo

SOURCE = Path(os.environ.get("TEMPO_SOURCE") or Path(__file__).resolve().parents[2])


class Rti:
    """A tempo-rti process: address "127.0.0.1:PORT", unix "unix:PATH"."""

    def __init__(self, tmp):
        self.unix_path = str(tmp / "rti.sock")
        self.out = tmp / "rti.out"
        self.fh = open(self.out, "w")
        self.proc = subprocess.Popen(
            [tempo.program("tempo-rti"), "--listen", "127.0.0.1:0", "--unix", self.unix_path],
            stdout=self.fh,
            stderr=subprocess.STDOUT,
        )
        self.address = None
        for _ in range(200):
            m = re.search(r"listening on (127\.0\.0\.1:\d+)", self.out.read_text())
            if m:
                self.address = m.group(1)
                break
            time.sleep(0.025)
        if not self.address:
            self.stop()
            raise RuntimeError("tempo-rti did not start: " + self.out.read_text())
        self.unix = "unix:" + self.unix_path

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.fh.close()


@pytest.fixture(scope="module")
def rti(tmp_path_factory):
    r = Rti(tmp_path_factory.mktemp("rti"))
    yield r
    r.stop()


@pytest.fixture
def demo_fom():
    return str(SOURCE / "fom" / "demo.xml")


@pytest.fixture
def test_fom():
    return str(SOURCE / "fom" / "test.xml")


@pytest.fixture
def federation(request):
    """A federation name of this test's own (tests share the module's RTI)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", request.node.name)[:100]


def pump(*feds, until, timeout=5.0):
    """Evoke each federate in turn until until() holds; fails the test after timeout s."""
    end = time.monotonic() + timeout
    while not until():
        if time.monotonic() > end:
            pytest.fail("condition not reached within %g s" % timeout)
        for f in feds:
            f.evoke(0.005)


class Thread(threading.Thread):
    """A thread whose exception is re-raised by join() (a peer federate's body)."""

    def __init__(self, fn):
        super().__init__(daemon=True)
        self.fn = fn
        self.exc = None
        self.result = None

    def run(self):
        try:
            self.result = self.fn()
        except BaseException as e:
            self.exc = e

    def join(self, timeout=20):
        super().join(timeout)
        if self.is_alive():
            pytest.fail("peer thread still running after %g s" % timeout)
        if self.exc:
            raise self.exc
        return self.result
