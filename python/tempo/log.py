"""A federation log (doc/log.md) as Python objects: tempo.Log(path) reads it through
`tempo-log json` (one JSON object per record) and gives its timeline, grants and per-federate
statistics as values, and `tempo-log explain` as text with its parts picked out
(doc/python.md, "Reading a federation log"). The format itself is tempo-log's to decode: this
module never reads the binary file.
"""

import json
import re
import subprocess
from dataclasses import dataclass
from typing import Optional

from . import _lib as L
from .fedfile import seconds as _seconds


class LogError(Exception):
    """tempo-log could not read the file: status is its exit status, message its words."""

    def __init__(self, status, message):
        self.status = status
        super().__init__(message)


def _tempo_log(*args):
    p = subprocess.run([L.program("tempo-log")] + list(args), capture_output=True, text=True)
    if p.returncode != 0:
        raise LogError(p.returncode, (p.stderr or p.stdout).strip())
    return p.stdout, p.stderr


@dataclass
class Grant:
    """One grant decision of the RTI (a DECISION record of kind GRANT)."""

    seq: int  # record sequence number
    federate: str
    time: int  # granted time, ticks
    seconds: float
    request: str  # the request it answers: TAR, TARA, NER, NERA, FQR
    reason: str  # the engine's own words (ticks)
    wall_s: float  # seconds since the log began
    holder: Optional[int] = None  # the federate holding the GALT it was decided on


class Log:
    """Log(path): a federation log.

    header    {version, federation, resolution (str), start_wall_ns, fom}
    records   every record as tempo-log json prints it (doc/log.md "json"), in order
    end       the closing line: {"kind": "END", ...} or {"kind": "CUT", "error": ...}
    cut       True when the log was cut or damaged (records are those before the cut)
    """

    def __init__(self, path):
        self.path = str(path)
        out, self.warnings = _tempo_log("json", self.path)
        lines = [json.loads(l) for l in out.splitlines() if l.strip()]
        if not lines or lines[0].get("kind") != "HEADER":
            raise LogError(1, "%s: tempo-log json printed no header" % self.path)
        self.header = lines[0]
        self.end = lines[-1] if lines[-1].get("kind") in ("END", "CUT") else None
        self.records = [r for r in lines[1:] if "record" in r]
        self.cut = bool(self.end and self.end["kind"] == "CUT")
        self.federation = self.header.get("federation")
        self.resolution = float(self.header.get("resolution", "1e-9"))

    def __len__(self):
        return len(self.records)

    def seconds(self, ticks):
        return None if ticks is None else _seconds(ticks, self.resolution)

    def timeline(self, federate=None, kind=None, type=None, start=None, stop=None):
        """The records, filtered: federate (name), kind (RECV, SENT, DECISION, ...), type (a
        message type, UPDATE, TIME_GRANT, ..., or a decision kind, GRANT, DELIVER, ...),
        start/stop (logical time window in seconds, inclusive; records without a logical
        time are left out when a window is given)."""
        out = []
        for r in self.records:
            if federate is not None and r.get("federate") != federate:
                continue
            if kind is not None and r.get("kind") != kind:
                continue
            if type is not None:
                t = (r.get("msg") or {}).get("type") or (r.get("decision") or {}).get("kind")
                if t != type:
                    continue
            if start is not None or stop is not None:
                lt = r.get("ltime")
                if lt is None:
                    continue
                s = _seconds(lt, self.resolution)
                if (start is not None and s < start) or (stop is not None and s > stop):
                    continue
            out.append(r)
        return out

    def grants(self, federate=None):
        """Every grant decision, in log order (Grant values)."""
        out = []
        for r in self.timeline(federate=federate, kind="DECISION", type="GRANT"):
            d = r["decision"]
            out.append(
                Grant(
                    seq=r["seq"],
                    federate=r["federate"],
                    time=d["time"],
                    seconds=_seconds(d["time"], self.resolution),
                    request=d.get("req"),
                    reason=d.get("reason", ""),
                    wall_s=r["wall_s"],
                    holder=(d.get("grant") or {}).get("holder"),
                )
            )
        return out

    def stats(self):
        """Per federate (by name, in order of joining): recv and sent frames, requests
        (TIME_REQUEST received), grants (TIME_GRANT sent), updates (UPDATE received),
        reflections (REFLECT sent), interactions (SEND_INTERACTION received), and the wall
        time waiting for grants (wait_total_s, wait_max_s), from each TIME_REQUEST received to
        the next TIME_GRANT sent to that federate, as `tempo-log stats` counts them (over the
        whole file: it holds one run unless the RTI kept federations)."""
        st = {}
        pending = {}
        for r in self.records:
            name = r.get("federate")
            if r.get("kind") not in ("RECV", "SENT") or name in (None, "-"):
                continue
            s = st.setdefault(
                name,
                dict(
                    recv=0,
                    sent=0,
                    requests=0,
                    grants=0,
                    updates=0,
                    reflections=0,
                    interactions=0,
                    wait_total_s=0.0,
                    wait_max_s=0.0,
                    last_grant=None,
                ),
            )
            t = (r.get("msg") or {}).get("type")
            if r["kind"] == "RECV":
                s["recv"] += 1
                if t == "TIME_REQUEST":
                    s["requests"] += 1
                    pending[name] = r["wall_s"]
                elif t == "UPDATE":
                    s["updates"] += 1
                elif t == "SEND_INTERACTION":
                    s["interactions"] += 1
            else:
                s["sent"] += 1
                if t == "TIME_GRANT":
                    s["grants"] += 1
                    s["last_grant"] = r["msg"].get("time")
                    if name in pending:
                        w = r["wall_s"] - pending.pop(name)
                        s["wait_total_s"] += w
                        s["wait_max_s"] = max(s["wait_max_s"], w)
                elif t == "REFLECT":
                    s["reflections"] += 1
        return st

    def stats_text(self, run=None):
        """`tempo-log stats` as it prints it."""
        return _tempo_log("stats", self.path, *(["--run", str(run)] if run else []))[0]

    def explain(self, at=None, run=None):
        """`tempo-log explain` (the state of time management at the end of the log, of run
        N, or just after record `at`) as an Explanation."""
        args = ["explain", self.path]
        if at is not None:
            args += ["--at", str(at)]
        if run is not None:
            args += ["--run", str(run)]
        return Explanation(_tempo_log(*args)[0])


class Explanation:
    """The text of `tempo-log explain` (str() gives it whole) and its parts:
    federates  {name: the federate's state line}
    waits      the lines of "who waits for whom" (a chain per waiting federate)
    root_causes  the "root cause:" lines, without the prefix
    nobody_waits True when it says nobody waits
    """

    def __init__(self, text):
        self.text = text
        self.federates = {}
        self.waits = []
        section = None
        for line in text.splitlines():
            if line.startswith("federates ("):
                section = "feds"
                continue
            if line.startswith("who waits for whom"):
                section = "waits"
                continue
            if line.startswith("last recorded grant reasons") or line.startswith("re-run check"):
                section = None
                continue
            if section == "feds":
                m = re.match(r"  (\S+) (t=.*)$", line)
                if m and m.group(1) != "none":
                    self.federates[m.group(1)] = m.group(2)
            elif section == "waits" and line.strip():
                self.waits.append(line.strip())
        self.root_causes = [
            w[len("root cause: ") :] for w in self.waits if w.startswith("root cause: ")
        ]
        self.nobody_waits = any(w.startswith("nobody") for w in self.waits)

    def __str__(self):
        return self.text
