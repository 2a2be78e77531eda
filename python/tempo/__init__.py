"""tempo: Python over libtempo, the client library of the Tempo RTI (doc/python.md).

    import tempo
    with tempo.Federate("demo", "reader", fom="fom/demo.xml") as f: ...   # a federate
    res = tempo.run("examples/lv_gs.json", set={"prey.alpha": 0.6})       # a whole run
    tab = tempo.study("examples/lv_gs.json", {"prey.alpha": [0.4, 0.5]})  # a parameter study
    log = tempo.Log("run.tlog")                                           # a federation log

Pure Python through ctypes (the standard library only; NumPy for results when present).
Modules: federate.py (Federate, InprocRTI), run.py (run, study), log.py (Log),
fedfile.py (a federation file seen from a program federate), slave.py (a Python model as a
slave of the master methods), errors.py, values.py.
"""

from ._lib import library_path, program
from .errors import TempoError
from .federate import (
    NO_TIME,
    RECEIVE_ORDER,
    TIME_MAX,
    TIMESTAMP_ORDER,
    Event,
    Federate,
    InprocRTI,
    create_federation,
    destroy_federation,
    restore_federation,
    strerror,
    time_add,
)
from .log import Log
from .log import Explanation, Grant, LogError
from .run import Result, RunError, StudyTable, Table, run, study
from . import errors

__version__ = "0.1.0"

__all__ = [
    "Event",
    "Explanation",
    "Grant",
    "LogError",
    "StudyTable",
    "Table",
    "Federate",
    "InprocRTI",
    "Log",
    "NO_TIME",
    "RECEIVE_ORDER",
    "Result",
    "RunError",
    "TIMESTAMP_ORDER",
    "TIME_MAX",
    "TempoError",
    "create_federation",
    "destroy_federation",
    "errors",
    "library_path",
    "program",
    "restore_federation",
    "run",
    "strerror",
    "study",
    "time_add",
]
