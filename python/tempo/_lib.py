"""The ctypes view of libtempo: where the library and the programs are, the structs of
federate/libtempo/tempo.h and the prototypes of every function the package calls.

doc/python.md describes the package; the header federate/libtempo/tempo.h is the contract
these declarations mirror (read it beside this file). Read federate.py next.
"""

import ctypes
import os
import shutil
from pathlib import Path

# ---- where things are --------------------------------------------------------------------

_HERE = Path(__file__).resolve().parent
# In the source tree the package is REPO/python/tempo: the build puts the library in REPO/lib
# and the programs in REPO/bin.
_TREE = _HERE.parent.parent

try:  # written by `make install` (the prefix the package was installed with)
    from . import _paths  # type: ignore
except ImportError:  # the source tree, or pip install
    _paths = None


def _candidates_lib():
    env = os.environ.get("TEMPO_LIBRARY")
    if env:
        yield Path(env)
        return
    if _paths is not None:
        yield Path(_paths.LIBDIR) / "libtempo.so.0"
    yield _TREE / "lib" / "libtempo.so"
    run = shutil.which("tempo-run")
    if run:
        top = Path(run).resolve().parent.parent
        yield top / "lib" / "libtempo.so.0"  # an installed prefix
        yield top / "lib" / "libtempo.so"  # a build tree


def library_path():
    """The libtempo.so this package loads: $TEMPO_LIBRARY, else the library of the prefix
    `make install` put the package in, else REPO/lib/libtempo.so beside the source tree,
    else PREFIX/lib of the tempo-run found on PATH, else "libtempo.so.0" for the loader."""
    for p in _candidates_lib():
        if p.exists():
            return str(p)
    return "libtempo.so.0"


def program(name):
    """Path of a Tempo program (tempo-run, tempo-log, ...): $TEMPO_BINDIR, the installed
    prefix, REPO/bin, then PATH. Raises FileNotFoundError naming where it looked."""
    dirs = []
    if os.environ.get("TEMPO_BINDIR"):
        dirs.append(Path(os.environ["TEMPO_BINDIR"]))
    if _paths is not None:
        dirs.append(Path(_paths.BINDIR))
    dirs.append(_TREE / "bin")
    for d in dirs:
        if (d / name).is_file() and os.access(d / name, os.X_OK):
            return str(d / name)
    found = shutil.which(name)
    if found:
        return found
    raise FileNotFoundError(
        "%s: not found in %s nor on PATH (build with make, or set TEMPO_BINDIR)"
        % (name, ", ".join(str(d) for d in dirs))
    )


# ---- types of tempo.h --------------------------------------------------------------------

tp_time = ctypes.c_int64
tp_handle = ctypes.c_uint32
tp_object = ctypes.c_uint64
tp_fed = ctypes.c_uint32
TP_TIME_MAX = 2**63 - 1
TP_NO_TIME = -(2**63)


class tp_value(ctypes.Structure):
    _fields_ = [("handle", tp_handle), ("data", ctypes.c_void_p), ("size", ctypes.c_size_t)]


class tp_value_in(ctypes.Structure):
    """tp_value as passed into a call: data as char *, so that assigning bytes keeps them
    alive with the struct (same layout as tp_value)."""

    _fields_ = [("handle", tp_handle), ("data", ctypes.c_char_p), ("size", ctypes.c_size_t)]


class tp_reflection(ctypes.Structure):
    _fields_ = [
        ("object", tp_object),
        ("object_class", tp_handle),
        ("values", ctypes.POINTER(tp_value)),
        ("n_values", ctypes.c_size_t),
        ("time", tp_time),
        ("order", ctypes.c_int),
        ("sender", tp_fed),
        ("tag", ctypes.c_void_p),
        ("tag_size", ctypes.c_size_t),
    ]


class tp_interaction(ctypes.Structure):
    _fields_ = [
        ("interaction_class", tp_handle),
        ("params", ctypes.POINTER(tp_value)),
        ("n_params", ctypes.c_size_t),
        ("time", tp_time),
        ("order", ctypes.c_int),
        ("sender", tp_fed),
        ("tag", ctypes.c_void_p),
        ("tag_size", ctypes.c_size_t),
    ]


_vp = ctypes.c_void_p
_cp = ctypes.c_char_p
DISCOVER = ctypes.CFUNCTYPE(None, _vp, tp_object, tp_handle, _cp, tp_fed)
REFLECT = ctypes.CFUNCTYPE(None, _vp, ctypes.POINTER(tp_reflection))
REMOVE = ctypes.CFUNCTYPE(None, _vp, tp_object, tp_time, ctypes.c_int, tp_fed)
RECEIVE = ctypes.CFUNCTYPE(None, _vp, ctypes.POINTER(tp_interaction))
PROVIDE = ctypes.CFUNCTYPE(None, _vp, tp_object, ctypes.POINTER(tp_handle), ctypes.c_size_t)
SYNC_REGISTERED = ctypes.CFUNCTYPE(None, _vp, _cp, ctypes.c_int, _cp)
SYNC_ANNOUNCED = ctypes.CFUNCTYPE(None, _vp, _cp, _vp, ctypes.c_size_t)
SYNCHRONIZED = ctypes.CFUNCTYPE(None, _vp, _cp)
JOINED = ctypes.CFUNCTYPE(None, _vp, tp_fed, _cp)
RESIGNED = ctypes.CFUNCTYPE(None, _vp, tp_fed, _cp, _cp)
TIMECB = ctypes.CFUNCTYPE(None, _vp, tp_time)
ERROR = ctypes.CFUNCTYPE(None, _vp, ctypes.c_int, _cp)
LOG = ctypes.CFUNCTYPE(None, _vp, ctypes.c_int, _cp)
# checkpoint callbacks (doc/checkpoint.md): Federate(save_state=, restore_state=), event "saved"
SAVE = ctypes.CFUNCTYPE(ctypes.c_int, _vp, _cp, tp_time, ctypes.POINTER(_vp),
                        ctypes.POINTER(ctypes.c_size_t), _vp, ctypes.c_size_t)
RESTORE = ctypes.CFUNCTYPE(ctypes.c_int, _vp, _cp, tp_time, _vp, ctypes.c_size_t, _vp,
                           ctypes.c_size_t)
SAVED = ctypes.CFUNCTYPE(None, _vp, _cp, ctypes.c_int, _cp)


class tp_callbacks(ctypes.Structure):
    _fields_ = [
        ("discover", DISCOVER),
        ("reflect", REFLECT),
        ("remove", REMOVE),
        ("receive", RECEIVE),
        ("provide", PROVIDE),
        ("sync_registered", SYNC_REGISTERED),
        ("sync_announced", SYNC_ANNOUNCED),
        ("synchronized", SYNCHRONIZED),
        ("federate_joined", JOINED),
        ("federate_resigned", RESIGNED),
        ("regulation_enabled", TIMECB),
        ("constrained_enabled", TIMECB),
        ("grant", TIMECB),
        ("error", ERROR),
        ("log", LOG),
        ("save", SAVE),
        ("restore", RESTORE),
        ("saved", SAVED),
    ]


class tp_join_options(ctypes.Structure):
    _fields_ = [
        ("rti", _cp),
        ("federation", _cp),
        ("federate", _cp),
        ("fom_path", _cp),
        ("fom_text", _cp),
        ("create", ctypes.c_int),
        ("resign_action", ctypes.c_int),
        ("secret", _cp),
        ("timeout_ms", ctypes.c_int),
        ("log_level", ctypes.c_int),
        ("restore", ctypes.c_int),
    ]


class tp_time_status(ctypes.Structure):
    _fields_ = [
        ("federate", tp_fed),
        ("time", tp_time),
        ("pending", ctypes.c_int),
        ("pending_time", tp_time),
        ("bound", tp_time),
        ("bound_strict", ctypes.c_int),
        ("galt", tp_time),
        ("galt_strict", ctypes.c_int),
        ("galt_holder", tp_fed),
        ("galt_root", tp_fed),
        ("lits", tp_time),
    ]


class tp_inproc_options(ctypes.Structure):
    _fields_ = [
        ("log_dir", _cp),
        ("log_only", _cp),
        ("secret", _cp),
        ("spin_us", ctypes.c_int),
        ("log", LOG),
        ("log_ctx", _vp),
        ("log_level", ctypes.c_int),
        ("tasks", ctypes.c_int),
        ("checkpoint_dir", _cp),
        ("http", _cp),  # the live view: only in programs that link it, never libtempo.so
    ]


# ---- prototypes --------------------------------------------------------------------------

_F = ctypes.c_void_p  # tp_federate *
_I = ctypes.c_int
_SZ = ctypes.c_size_t
_P = ctypes.POINTER

_PROTOS = {
    "tp_strerror": (_cp, [_I]),
    "tp_last_error": (_cp, [_F]),
    "tp_create_federation": (_I, [_P(tp_join_options), _cp, _SZ]),
    "tp_request_save": (_I, [_F, _cp, tp_time]),
    "tp_restore_federation": (_I, [_P(tp_join_options), _cp, _cp, _SZ]),
    "tp_destroy_federation": (_I, [_P(tp_join_options), _cp, _SZ]),
    "tp_join": (_I, [_P(tp_join_options), _P(tp_callbacks), _vp, _P(_F), _cp, _SZ]),
    "tp_resign": (_I, [_F, _I]),
    "tp_federate_free": (None, [_F]),
    "tp_federate_handle": (tp_fed, [_F]),
    "tp_set_liveness": (_I, [_F, _I]),
    "tp_fileno": (_I, [_F]),
    "tp_object_class": (_I, [_F, _cp, _P(tp_handle)]),
    "tp_attribute": (_I, [_F, tp_handle, _cp, _P(tp_handle)]),
    "tp_interaction_class": (_I, [_F, _cp, _P(tp_handle)]),
    "tp_parameter": (_I, [_F, tp_handle, _cp, _P(tp_handle)]),
    "tp_handle_name": (_cp, [_F, ctypes.c_char, tp_handle]),
    "tp_publish_object_class": (_I, [_F, tp_handle, _P(tp_handle), _SZ]),
    "tp_unpublish_object_class": (_I, [_F, tp_handle]),
    "tp_subscribe_object_class": (_I, [_F, tp_handle, _P(tp_handle), _SZ]),
    "tp_unsubscribe_object_class": (_I, [_F, tp_handle]),
    "tp_publish_interaction_class": (_I, [_F, tp_handle]),
    "tp_unpublish_interaction_class": (_I, [_F, tp_handle]),
    "tp_subscribe_interaction_class": (_I, [_F, tp_handle]),
    "tp_unsubscribe_interaction_class": (_I, [_F, tp_handle]),
    "tp_register_object": (_I, [_F, tp_handle, _cp, _P(tp_object)]),
    "tp_update_tagged": (_I, [_F, tp_object, _vp, _SZ, tp_time, _cp, _SZ]),
    "tp_delete_object": (_I, [_F, tp_object, tp_time]),
    "tp_send_interaction_tagged": (
        _I,
        [_F, tp_handle, _vp, _SZ, tp_time, _cp, _SZ],
    ),
    "tp_request_update": (_I, [_F, tp_object, _P(tp_handle), _SZ]),
    "tp_request_class_update": (_I, [_F, tp_handle, _P(tp_handle), _SZ]),
    "tp_register_sync": (_I, [_F, _cp, _cp, _SZ, _P(tp_fed), _SZ]),
    "tp_achieve_sync": (_I, [_F, _cp]),
    "tp_wait_announced": (_I, [_F, _cp, _I]),
    "tp_wait_sync": (_I, [_F, _cp, _I]),
    "tp_sync": (_I, [_F, _cp, _I]),
    "tp_enable_regulation": (_I, [_F, tp_time]),
    "tp_disable_regulation": (_I, [_F]),
    "tp_enable_constrained": (_I, [_F]),
    "tp_disable_constrained": (_I, [_F]),
    "tp_wait_regulation_enabled": (_I, [_F, _I]),
    "tp_wait_constrained_enabled": (_I, [_F, _I]),
    "tp_modify_lookahead": (_I, [_F, tp_time]),
    "tp_query_lookahead": (_I, [_F, _P(tp_time)]),
    "tp_query_send_bound": (_I, [_F, _P(tp_time), _P(_I)]),
    "tp_query_logical_time": (_I, [_F, _P(tp_time)]),
    "tp_query_time_status": (_I, [_F, _P(tp_time_status), _SZ, _P(_SZ)]),
    "tp_query_galt": (_I, [_F, _P(tp_time), _P(_I)]),
    "tp_query_lits": (_I, [_F, _P(tp_time)]),
    "tp_query_stall": (_I, [_F, tp_fed, _P(ctypes.c_uint), _P(tp_fed)]),
    "tp_time_advance_request": (_I, [_F, tp_time]),
    "tp_time_advance_request_available": (_I, [_F, tp_time]),
    "tp_next_event_request": (_I, [_F, tp_time]),
    "tp_next_event_request_available": (_I, [_F, tp_time]),
    "tp_flush_queue_request": (_I, [_F, tp_time]),
    "tp_wait_grant": (_I, [_F, _P(tp_time), _I]),
    "tp_time_from_seconds": (tp_time, [_F, ctypes.c_double]),
    "tp_time_to_seconds": (ctypes.c_double, [_F, tp_time]),
    "tp_time_add": (tp_time, [tp_time, tp_time]),
    "tp_evoke": (_I, [_F, _I]),
    "tp_flush": (_I, [_F]),
    "tp_inproc_start": (_I, [_cp, _P(tp_inproc_options), _cp, _SZ]),
    "tp_inproc_stop": (_I, [_cp, _cp, _SZ]),
}

_lib = None


def lib():
    """The loaded library (loaded on first use, with every prototype set)."""
    global _lib
    if _lib is None:
        path = library_path()
        try:
            handle = ctypes.CDLL(path)
        except OSError as e:
            raise OSError(
                "tempo: cannot load libtempo (%s): %s; build it with make, install it with "
                "make install, or set TEMPO_LIBRARY" % (path, e)
            ) from None
        for name, (res, args) in _PROTOS.items():
            fn = getattr(handle, name)
            fn.restype = res
            fn.argtypes = args
        _lib = handle
    return _lib


_libc = None


def libc():
    """The C library's malloc (the memory a save callback hands libtempo, which frees it)."""
    global _libc
    if _libc is None:
        c = ctypes.CDLL(None)
        c.malloc.restype = ctypes.c_void_p
        c.malloc.argtypes = [ctypes.c_size_t]
        _libc = c
    return _libc


def cstr(s):
    """str (or None) to the bytes a char * argument takes."""
    if s is None:
        return None
    if isinstance(s, bytes):
        return s
    return str(s).encode("utf-8")


def pystr(b):
    """char * result (bytes or None) to str."""
    return None if b is None else b.decode("utf-8", "replace")
