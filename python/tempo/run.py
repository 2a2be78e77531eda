"""Scripted runs of federation files: tempo.run() runs one through the tempo-run program and
returns its results and summary; tempo.study() runs a grid of parameter values and returns a
table (doc/python.md, "Scripting runs").

The choice: a run is `tempo-run FILE` as a subprocess (in process with in_process=True: one
child holding every federate on an embedded RTI, doc/inproc.md), not the library. tempo-run
already checks the file, supervises the federates, names the first failure and writes the
CSVs; a Python copy of that would drift from it. What the package adds is the file's
overrides (written to a copy whose relative paths are made absolute), a private output
folder, and the CSVs and summary read back as Python values. Read log.py next.
"""

import concurrent.futures
import copy
import csv
import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
from array import array

from . import _lib as L

try:
    import numpy as _np
except ImportError:  # NumPy is optional: arrays are array('d') without it
    _np = None

# Keys of a federation file that hold paths relative to its folder (doc/federation.md).
_PATH_KEYS_TOP = ("fom", "output", "log", "secret_file")
_PATH_KEYS_FED = ("fmu", "program")


class RunError(Exception):
    """tempo-run failed: status is its exit status (1 a federate or the RTI failed, 2 a bad
    file or usage, 130 interrupted), output its stdout and stderr; the message quotes the
    report's last lines (which name the federate that failed first)."""

    def __init__(self, status, path, stdout, stderr):
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        tail = [l for l in (stderr + stdout).splitlines() if l.strip()][-6:]
        super().__init__(
            "tempo-run %s: exit status %d%s" % (path, status, (":\n  " + "\n  ".join(tail)) if tail else "")
        )


def _column(values):
    if _np is not None:
        return _np.asarray(values, dtype=float)
    return array("d", values)


class Table(dict):
    """One federate's results: {column name: array} ("time" first, then the recorded
    variables, as in its CSV). Arrays are numpy arrays when NumPy is present, else
    array('d'); a cell that is not a number (a String variable) is NaN."""

    @property
    def time(self):
        return self["time"]

    def final(self):
        """{column: last value}."""
        return {k: v[-1] for k, v in self.items() if len(v)}


def read_csv(path):
    """A results CSV of tempo-run (doc/run.md) as a Table."""
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    if not rows:
        return Table()
    head, body = rows[0], rows[1:]
    cols = [[] for _ in head]
    for r in body:
        for i, c in enumerate(r[: len(head)]):
            try:
                cols[i].append(float(c))
            except ValueError:
                cols[i].append(float("nan"))
    return Table((h, _column(c)) for h, c in zip(head, cols))


class Result:
    """What tempo.run() returns.

    results   {federate name: Table} from <output>/<federate>.csv
    summary   the summary lines of tempo-run as values: federation, federates (count),
              method, start, end (s), wall_time (s), instants (min, max), updates, reflections,
              time_requests (those tempo-run printed; a key is absent when it printed none),
              results (the CSV paths), plot, log (the federation log file, with log=DIR)
    stdout, stderr   tempo-run's output as text
    output    the results folder (None once a temporary one was removed)
    """

    def __init__(self, results, summary, stdout, stderr, output):
        self.results = results
        self.summary = summary
        self.stdout = stdout
        self.stderr = stderr
        self.output = output

    def __getitem__(self, federate):
        return self.results[federate]

    def __repr__(self):
        return "Result(%s, federates=%s)" % (self.summary.get("federation"), sorted(self.results))


_NUM = r"([-+0-9.eE]+|inf)"


def parse_summary(text):
    """The summary tempo-run prints on stdout (doc/run.md) as a dict."""
    s = {"results": []}
    for line in text.splitlines():
        m = re.match(
            r"tempo-run: (\S+): (\d+) federates, (\S+), t = %s \.\. %s s, wall time %s s"
            % (_NUM, _NUM, _NUM),
            line,
        )
        if m:
            s.update(
                federation=m.group(1),
                federates=int(m.group(2)),
                method=m.group(3),
                start=float(m.group(4)),
                end=float(m.group(5)),
                wall_time=float(m.group(6)),
            )
            continue
        m = re.match(r"tempo-run: (\d+)(?: to (\d+))? instants per federate", line)
        if m:
            lo = int(m.group(1))
            s["instants"] = (lo, int(m.group(2)) if m.group(2) else lo)
            for key, pat in (
                ("updates", r"(\d+) attribute updates sent"),
                ("reflections", r"(\d+) reflections received"),
                ("time_requests", r"(\d+) time requests"),
            ):
                mm = re.search(pat, line)
                if mm:
                    s[key] = int(mm.group(1))
            continue
        m = re.match(r"tempo-run: results (.*)$", line)
        if m:
            s["results"].append(m.group(1))
            continue
        m = re.match(r"tempo-run: plot (.*)$", line)
        if m:
            s["plot"] = m.group(1)
            continue
        m = re.match(r"tempo-run: federation log in (\S+)", line)
        if m:  # in process: the folder (run() names the file it got)
            s["log_dir"] = m.group(1)
            continue
        m = re.match(r"tempo-run: federation log (\S+)", line)
        if m:
            s["log"] = m.group(1)
    return s


def _set_path(data, key, value):
    """Apply one override of set={...} to the parsed file (see run())."""
    parts = key.split(".")
    feds = {f.get("name"): f for f in data.get("federates", [])}
    if parts[0] in feds and parts[0] not in data:
        f = feds[parts[0]]
        if len(parts) == 2:  # "prey.alpha": a parameter
            f.setdefault("parameters", {})[parts[1]] = value
            return
        node, parts = f, parts[1:]
    elif parts[0] == "federates" and len(parts) > 2 and parts[1] in feds:
        node, parts = feds[parts[1]], parts[2:]
    else:
        node = data
    for p in parts[:-1]:
        if not isinstance(node, dict):
            raise KeyError("set: %r: %r is not an object" % (key, p))
        node = node.setdefault(p, {})
    node[parts[-1]] = value


def prepare(path, set=None, dest_dir=None):
    """The federation file with the overrides applied, as a new file in dest_dir (its
    relative paths made absolute against the original's folder). Returns the new path."""
    path = os.path.abspath(path)
    base = os.path.dirname(path)
    with open(path, "rb") as fh:
        data = json.load(fh)

    def absolute(p):
        return p if os.path.isabs(p) else os.path.normpath(os.path.join(base, p))

    data = copy.deepcopy(data)
    for k in _PATH_KEYS_TOP:
        if isinstance(data.get(k), str):
            data[k] = absolute(data[k])
    for f in data.get("federates", []):
        for k in _PATH_KEYS_FED:
            if isinstance(f.get(k), str):
                f[k] = absolute(f[k])
        py = f.get("python")
        if isinstance(py, str) and py.rpartition(":")[0].endswith(".py"):  # "FILE.py:Class"
            mod, _, cls = py.rpartition(":")
            f["python"] = absolute(mod) + ":" + cls
    for k, v in (set or {}).items():
        _set_path(data, k, v)
    out = os.path.join(dest_dir, os.path.basename(path))
    with open(out, "w") as fh:
        json.dump(data, fh, indent=1)
    return out


def run(
    path,
    set=None,
    in_process=False,
    threads=False,
    output=None,
    log=None,
    timeout=None,
    rti=None,
    reference=None,
    args=(),
    env=None,
):
    """Run federation file path with tempo-run and return a Result.

    set        overrides {key: value}: "FEDERATE.NAME" sets a parameter of that federate
               ("prey.alpha": 0.6); "FEDERATE.KEY.SUB..." any key of its entry; other keys
               are paths into the file ("algorithm.step": 0.25, "solver.rtol": 1e-8).
    in_process every federate in one process on an embedded RTI (tempo-run --in-process);
               threads: each one a thread (--threads)
    output     the results folder; None: a temporary folder, removed once read
    log        a folder for the federation log (tempo-run --log; summary["log"] names it)
    timeout    seconds before tempo-run stops everything (--timeout)
    rti, reference, args   tempo-run's --rti, --reference and further arguments
    Raises RunError when tempo-run exits non-zero.
    """
    tmp = tempfile.mkdtemp(prefix="tempo-run-")
    try:
        fed = prepare(path, set, tmp)
        out_dir = os.path.abspath(output) if output else os.path.join(tmp, "out")
        cmd = [L.program("tempo-run"), fed, "--quiet", "--output", out_dir]
        if in_process:
            cmd.append("--in-process")
            if threads:
                cmd.append("--threads")
        before = []
        if log:
            log = os.path.abspath(log)
            cmd += ["--log", log]
            if os.path.isdir(log):
                before = os.listdir(log)
        if timeout is not None:
            cmd += ["--timeout", str(int(timeout * 1000))]
        if rti:
            cmd += ["--rti", rti]
        if reference:
            cmd += ["--reference", os.path.abspath(reference)]
        cmd += list(args)
        # a "python": "module:Class" model is imported from the original file's folder too
        # (doc/python.md), which the copy no longer sits in
        penv = dict(os.environ if env is None else env)
        folder = os.path.dirname(os.path.abspath(path))
        penv["PYTHONPATH"] = os.pathsep.join(x for x in (penv.get("PYTHONPATH"), folder) if x)
        p = subprocess.run(cmd, capture_output=True, text=True, env=penv)
        if p.returncode != 0:
            raise RunError(p.returncode, path, p.stdout, p.stderr)
        summary = parse_summary(p.stdout)
        if log and "log" not in summary:
            new = sorted(f for f in os.listdir(log) if f.endswith(".tlog") and f not in before)
            if new:
                summary["log"] = os.path.join(log, new[-1])
        results = {}
        with open(fed) as fh:
            names = [f["name"] for f in json.load(fh)["federates"]]
        for n in names:
            csvp = os.path.join(out_dir, n + ".csv")
            if os.path.exists(csvp):
                results[n] = read_csv(csvp)
        return Result(results, summary, p.stdout, p.stderr, out_dir if output else None)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class StudyTable(list):
    """The rows of a parameter study, one dict per run: the parameter values, then what
    `measure` returned (by default wall_time and the final value of every recorded column,
    named "federate.column"), or "error" for a run that failed."""

    def columns(self):
        cols = []
        for r in self:
            for k in r:
                if k not in cols:
                    cols.append(k)
        return cols

    def column(self, name):
        return [r.get(name) for r in self]

    def to_csv(self, path):
        cols = self.columns()
        with open(path, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(cols)
            for r in self:
                w.writerow([r.get(c, "") for c in cols])


def _default_measure(res):
    row = {"wall_time": res.summary.get("wall_time")}
    for fed, tab in res.results.items():
        for col, v in tab.final().items():
            if col != "time":
                row["%s.%s" % (fed, col)] = float(v)
    return row


def study(path, grid, processes=1, measure=None, in_process=True, keep_going=True, **kw):
    """Run path once per combination of the values in grid {key: [values]} (keys as run()'s
    set) and return a StudyTable, rows in the order of itertools.product over grid.

    processes  how many runs at once (each run is its own tempo-run process)
    measure    function(Result) -> dict of what to keep per run (default: wall time and the
               final values)
    keep_going a failed run becomes a row with "error" (False: the RunError is raised)
    Other keyword arguments go to run() (in_process is True by default here)."""
    keys = list(grid)
    combos = list(itertools.product(*(grid[k] for k in keys)))
    measure = measure or _default_measure

    def one(vals):
        s = dict(zip(keys, vals))
        row = dict(s)
        try:
            row.update(measure(run(path, set=s, in_process=in_process, **kw)))
        except RunError as e:
            if not keep_going:
                raise
            row["error"] = str(e)
        return row

    if processes <= 1:
        return StudyTable(one(c) for c in combos)
    with concurrent.futures.ThreadPoolExecutor(max_workers=processes) as ex:
        return StudyTable(ex.map(one, combos))
