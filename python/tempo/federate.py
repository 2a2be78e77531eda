"""A federate in Python: join, declare by name, objects and interactions, time management,
synchronization points, over libtempo through ctypes (doc/python.md, "Federates").

Every method maps onto one function of federate/libtempo/tempo.h and keeps its rules
(doc/api.md): callbacks run only inside the evoking calls (evoke, wait_*, sync and the
advance helpers), in the calling thread; a negative status raises TempoError. Times are
ticks (int) of the FOM's resolution, as in C; ticks() and seconds() convert. Read run.py next.
"""

import collections
import ctypes
import struct
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any, Dict, Optional

from . import _lib as L
from . import values as V
from .errors import CODES, TempoError

TIME_MAX = L.TP_TIME_MAX
NO_TIME = L.TP_NO_TIME
RECEIVE_ORDER = 0
TIMESTAMP_ORDER = 1
_REQ_NAMES = {0: None, 1: "TAR", 2: "TARA", 3: "NER", 4: "NERA", 5: "FQR"}
_LEVELS = {"error": 0, "warn": 1, "info": 2, "debug": 3, "trace": 4}
_ACTIONS = {"delete": 0, "keep": 1}


def _ms(timeout):
    """Seconds (None = forever) to the library's milliseconds (< 0 = forever)."""
    if timeout is None:
        return -1
    return max(0, int(round(timeout * 1000)))


def _tick(t, what="time"):
    """A time argument: ticks (int), or None for "no time stamp" (receive order)."""
    if t is None:
        return NO_TIME
    if isinstance(t, float):
        raise TypeError(
            "%s: times are ticks (int); convert seconds with Federate.ticks(%r)" % (what, t)
        )
    v = int(t)
    if not NO_TIME <= v <= TIME_MAX:  # ctypes would wrap it silently (2**64 + 5 passes as 5)
        raise OverflowError("%s: %d ticks is outside int64, the range of tp_time" % (what, v))
    return v


def _opt_time(t):
    return None if t == NO_TIME else t


# ---- events ------------------------------------------------------------------------------


@dataclass
class Event:
    """One callback of libtempo as a value. kind is the tp_callbacks member ("reflect",
    "receive", "discover", "remove", "provide", "sync_registered", "sync_announced",
    "synchronized", "federate_joined", "federate_resigned", "regulation_enabled",
    "constrained_enabled", "grant", "error"); the other fields are those that kind has, None
    otherwise. Times are ticks, None for "no time stamp"."""

    kind: str
    object: Optional[int] = None  # object instance handle
    object_class: Optional[str] = None  # qualified class name as known here
    name: Optional[str] = None  # object name, federate name or sync label
    interaction: Optional[str] = None  # qualified interaction class name
    values: Dict[str, Any] = field(default_factory=dict)  # attributes or parameters by name
    time: Optional[int] = None
    order: Optional[int] = None  # RECEIVE_ORDER or TIMESTAMP_ORDER
    sender: Optional[int] = None  # federate handle (owner for discover)
    tag: Optional[bytes] = None
    attributes: Optional[list] = None  # provide: the attribute names asked for
    code: Optional[int] = None  # error, sync_registered: status
    message: Optional[str] = None  # error message, resign reason, refusal reason


_KINDS = (
    "discover",
    "reflect",
    "remove",
    "receive",
    "provide",
    "sync_registered",
    "sync_announced",
    "synchronized",
    "federate_joined",
    "federate_resigned",
    "regulation_enabled",
    "constrained_enabled",
    "grant",
    "error",
    "saved",
)


class _Fom:
    """Names and FOM types of the FOM a federate joined with: handle -> (name, type) for
    attributes and parameters (the library has the handles, the types are read here from the
    same XML; doc/fom.md)."""

    def __init__(self, fed, text):
        self.attr_type = {}
        self.param_type = {}
        root = ET.fromstring(text)

        def walk(el, prefix, kind):
            for c in el:
                tag = c.tag
                if kind == "o" and tag == "class":
                    q = prefix + c.get("name")
                    h = fed.object_class(q)
                    for a in c:
                        if a.tag == "attribute":
                            self.attr_type[fed.attribute(h, a.get("name"))] = a.get("type")
                    walk(c, q + ".", kind)
                elif kind == "i" and tag == "interaction":
                    q = prefix + c.get("name")
                    h = fed.interaction_class(q)
                    for p in c:
                        if p.tag == "parameter":
                            self.param_type[fed.parameter(h, p.get("name"))] = p.get("type")
                    walk(c, q + ".", kind)

        for sec in root:
            if sec.tag == "objects":
                walk(sec, "", "o")
            elif sec.tag == "interactions":
                walk(sec, "", "i")


class Federate:
    """One joined connection to an RTI (tp_join).

    Federate(federation, name, fom=PATH | fom_text=XML, rti=None, create=True, ...)

    rti: "host:port", "unix:/path", "inproc:NAME" (an RTI inside this process, see InprocRTI)
    or None for 127.0.0.1:7470. resign_action: "delete" or "keep" (the objects). timeout:
    connect and reply timeout, seconds (None = forever). secret: the shared secret (None: the
    environment's TEMPO_SECRET / TEMPO_SECRET_FILE). log: a callable (level, line) for the
    library's log lines (None: warnings and errors on stderr); log_level "warn" by default.

    Callbacks: events are handled, in this order of preference, by on={kind: callable}, by a
    method on_<kind>(event) of a subclass, else queued for events() / poll_events(). A
    handler may call any method but resign/close and the evoking ones (evoke, wait_*, sync,
    the advance helpers), as in C; an exception it raises is re-raised by the evoking call.
    """

    def __init__(
        self,
        federation,
        name,
        fom=None,
        fom_text=None,
        rti=None,
        create=True,
        resign_action="delete",
        secret=None,
        timeout=10.0,
        log=None,
        log_level="warn",
        on=None,
        queue_events=True,
        save_state=None,
        restore_state=None,
        restore=False,
    ):
        self._lib = L.lib()
        self._f = None
        self._exc = None
        self._dispatching = 0  # > 0 while a C callback runs (close() is refused then)
        self.name = name
        self.federation = federation
        self._queue = collections.deque() if queue_events else None
        self._handlers = {}
        on = on or {}
        unknown = sorted(set(on) - set(_KINDS))
        if unknown:
            raise ValueError("Federate: on= names unknown event kinds %s (kinds: %s)"
                             % (unknown, ", ".join(_KINDS)))
        for kind in _KINDS:
            if kind in on:
                self._handlers[kind] = on[kind]
            elif getattr(type(self), "on_" + kind, None) is not None:
                self._handlers[kind] = getattr(self, "on_" + kind)
        self._log_fn = log
        # checkpoints (doc/checkpoint.md): the arguments, else methods of a subclass
        self._save_fn = save_state or getattr(self, "save_state", None)
        self._restore_fn = restore_state or getattr(self, "restore_state", None)
        self.restored = None  # (label, time, bytes) the restoring join handed over
        # state kept from callbacks
        self.objects = {}  # discovered: object -> (class name, object name, owner)
        self.federates = {}  # joined federates: handle -> name (as told since our join)
        self.announced = set()
        self.synchronized_points = set()
        self._owned = {}  # registered here: object -> class handle
        self._cls = {}
        self._attrs = {}
        self._ics = {}
        self._params = {}
        self._names = {}
        self._plans = {}
        self._tbuf = L.tp_time()
        self._tref = ctypes.byref(self._tbuf)
        if fom is None and fom_text is None:
            raise ValueError("Federate: give fom (a path) or fom_text")
        self._cbs = self._make_callbacks()
        opt = L.tp_join_options(
            rti=L.cstr(rti),
            federation=L.cstr(federation),
            federate=L.cstr(name),
            fom_path=L.cstr(fom),
            fom_text=None if fom is not None else L.cstr(fom_text),
            create=1 if create else 0,
            resign_action=_ACTIONS[resign_action],
            secret=L.cstr(secret),
            timeout_ms=_ms(timeout) if timeout is not None else -1,
            log_level=_LEVELS[log_level],
            restore=1 if restore else 0,
        )
        err = ctypes.create_string_buffer(1024)
        out = ctypes.c_void_p()
        rc = self._lib.tp_join(
            ctypes.byref(opt), ctypes.byref(self._cbs), None, ctypes.byref(out), err, len(err)
        )
        if rc < 0:
            raise TempoError(rc, L.pystr(err.value), "join")
        self._f = out
        self.handle = self._lib.tp_federate_handle(self._f)
        # The library read the FOM (and would have named the fault); the types come from the
        # same text.
        if fom is not None:
            with open(fom, "rb") as fh:
                text = fh.read()
        else:
            text = L.cstr(fom_text)
        self._fom = _Fom(self, text)

    # ---- life --------------------------------------------------------------------------

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def close(self):
        """tp_federate_free: resigns with the join's resign_action when not resigned yet.
        Refused (TP_ESTATE) from inside a handler, as tp_federate_free is from inside a
        callback: the library is still dispatching and would go on with a freed federate."""
        if getattr(self, "_dispatching", 0):
            raise TempoError(
                CODES["TP_ESTATE"],
                "close called from inside a callback: close the federate after the evoking "
                "call returns",
                "close",
            )
        if self._f is not None:
            self._lib.tp_federate_free(self._f)
            self._f = None

    def resign(self, action="delete"):
        """tp_resign(action: "delete" or "keep" the objects). Blocks for the RTI's answer."""
        self._check(self._lib.tp_resign(self._live(), _ACTIONS[action]), "resign")

    def _live(self):
        if self._f is None:
            raise TempoError(-2, "the federate is closed", "")
        return self._f

    def last_error(self):
        """tp_last_error: the detailed message of the last failed call."""
        return L.pystr(self._lib.tp_last_error(self._f)) if self._f is not None else ""

    def _check(self, rc, call):
        """rc < 0 raises TempoError (after an exception a callback raised, which comes
        first); returns rc otherwise."""
        self._raise_pending()
        if rc < 0:
            raise TempoError(rc, self.last_error(), call)
        return rc

    def _raise_pending(self):
        if self._exc is not None:
            e, self._exc = self._exc, None
            raise e

    # ---- callbacks ---------------------------------------------------------------------

    def _emit(self, ev):
        h = self._handlers.get(ev.kind)
        if h is not None:
            h(ev)
        elif self._queue is not None:
            self._queue.append(ev)

    def _guard(self, fn):
        """A C callback that never lets a Python exception escape into the library: the
        first one is kept and raised by the evoking call when it returns."""

        def run(*args):
            self._dispatching += 1
            try:
                fn(*args)
            except BaseException as e:  # re-raised in the caller's frame
                if self._exc is None:
                    self._exc = e
            finally:
                self._dispatching -= 1

        return run

    def _make_callbacks(self):
        g = self._guard

        def discover(ctx, obj, cls, name, owner):
            cname = self._name("o", cls)
            oname = L.pystr(name)
            self.objects[obj] = (cname, oname, owner)
            self._emit(Event("discover", object=obj, object_class=cname, name=oname, sender=owner))

        def reflect(ctx, rp):
            r = rp.contents
            vals = {}
            types = self._fom.attr_type
            for i in range(r.n_values):
                v = r.values[i]
                data = ctypes.string_at(v.data, v.size) if v.size else b""
                vals[self._name("a", v.handle)] = V.decode(types.get(v.handle, "bytes"), data)
            self._emit(
                Event(
                    "reflect",
                    object=r.object,
                    object_class=self._name("o", r.object_class) if r.object_class else None,
                    name=self.objects.get(r.object, (None, None))[1],
                    values=vals,
                    time=_opt_time(r.time),
                    order=r.order,
                    sender=r.sender,
                    tag=ctypes.string_at(r.tag, r.tag_size) if r.tag_size else b"",
                )
            )

        def remove(ctx, obj, t, order, sender):
            cname, oname, _ = self.objects.pop(obj, (None, None, None))
            self._emit(
                Event(
                    "remove",
                    object=obj,
                    object_class=cname,
                    name=oname,
                    time=_opt_time(t),
                    order=order,
                    sender=sender,
                )
            )

        def receive(ctx, ip):
            it = ip.contents
            vals = {}
            types = self._fom.param_type
            for i in range(it.n_params):
                v = it.params[i]
                data = ctypes.string_at(v.data, v.size) if v.size else b""
                vals[self._name("p", v.handle)] = V.decode(types.get(v.handle, "bytes"), data)
            self._emit(
                Event(
                    "receive",
                    interaction=self._name("i", it.interaction_class),
                    values=vals,
                    time=_opt_time(it.time),
                    order=it.order,
                    sender=it.sender,
                    tag=ctypes.string_at(it.tag, it.tag_size) if it.tag_size else b"",
                )
            )

        def provide(ctx, obj, attrs, n):
            names = [self._name("a", attrs[i]) for i in range(n)]
            self._emit(Event("provide", object=obj, attributes=names))

        def sync_registered(ctx, label, status, reason):
            self._emit(
                Event(
                    "sync_registered", name=L.pystr(label), code=status, message=L.pystr(reason)
                )
            )

        def sync_announced(ctx, label, tag, size):
            lab = L.pystr(label)
            self.announced.add(lab)
            self._emit(
                Event("sync_announced", name=lab, tag=ctypes.string_at(tag, size) if size else b"")
            )

        def synchronized(ctx, label):
            lab = L.pystr(label)
            self.synchronized_points.add(lab)
            self._emit(Event("synchronized", name=lab))

        def joined(ctx, fed, name):
            self.federates[fed] = L.pystr(name)
            self._emit(Event("federate_joined", sender=fed, name=L.pystr(name)))

        def resigned(ctx, fed, name, reason):
            self.federates.pop(fed, None)
            self._emit(
                Event(
                    "federate_resigned", sender=fed, name=L.pystr(name), message=L.pystr(reason)
                )
            )

        def timecb(kind):
            return lambda ctx, t: self._emit(Event(kind, time=t))

        def error(ctx, code, message):
            self._emit(Event("error", code=code, message=L.pystr(message)))

        cbs = L.tp_callbacks(
            discover=L.DISCOVER(g(discover)),
            reflect=L.REFLECT(g(reflect)),
            remove=L.REMOVE(g(remove)),
            receive=L.RECEIVE(g(receive)),
            provide=L.PROVIDE(g(provide)),
            sync_registered=L.SYNC_REGISTERED(g(sync_registered)),
            sync_announced=L.SYNC_ANNOUNCED(g(sync_announced)),
            synchronized=L.SYNCHRONIZED(g(synchronized)),
            federate_joined=L.JOINED(g(joined)),
            federate_resigned=L.RESIGNED(g(resigned)),
            regulation_enabled=L.TIMECB(g(timecb("regulation_enabled"))),
            constrained_enabled=L.TIMECB(g(timecb("constrained_enabled"))),
            grant=L.TIMECB(g(timecb("grant"))),
            error=L.ERROR(g(error)),
        )
        self._checkpoint_callbacks(cbs)
        if self._log_fn is not None:
            fn = self._log_fn
            cbs.log = L.LOG(g(lambda ctx, level, line: fn(level, L.pystr(line))))
        # The library keeps the function pointers as long as the federate lives: so must we
        # (ctypes frees a CFUNCTYPE object's trampoline with the object).
        self._keep = [getattr(cbs, n) for n, _ in L.tp_callbacks._fields_]
        return cbs

    def _checkpoint_callbacks(self, cbs):
        """save, restore and saved (tp_callbacks, doc/checkpoint.md "The coordinated save").
        save_state(label, time) -> bytes is this federate's part: its bytes are copied into
        memory the library frees; an exception it raises fails the save, naming this federate
        and the exception (TempoError: its code; else TP_ECKPT). Without save_state the
        callback stays NULL and a save fails naming the federate, as in C. restore_state(label,
        time, data) gets the part back inside a restoring join."""
        libc = L.libc()

        def why_into(why, size, e):
            msg = ("%s: %s" % (type(e).__name__, e)).encode("utf-8", "replace")[: max(size - 1, 0)]
            if size:
                ctypes.memmove(why, msg + b"\0", len(msg) + 1)
            return e.code if isinstance(e, TempoError) and e.code < 0 else CODES["TP_ECKPT"]

        def save(ctx, label, t, bytes_out, n_out, why, size):
            self._dispatching += 1
            try:
                data = bytes(self._save_fn(L.pystr(label), t) or b"")
                p = libc.malloc(max(len(data), 1)) if data else None
                if data and not p:
                    raise MemoryError("%d bytes for the part" % len(data))
                if data:
                    ctypes.memmove(p, data, len(data))
                bytes_out[0] = p
                n_out[0] = len(data)
                return 0
            except BaseException as e:  # the save fails naming us and why; re-raised later
                if self._exc is None and not isinstance(e, Exception):
                    self._exc = e
                return why_into(why, size, e)
            finally:
                self._dispatching -= 1

        def restore(ctx, label, t, data, n, why, size):
            self._dispatching += 1
            try:
                b = ctypes.string_at(data, n) if n else b""
                self.restored = (L.pystr(label), t, b)
                if self._restore_fn is not None:
                    self._restore_fn(L.pystr(label), t, b)
                return 0
            except BaseException as e:
                return why_into(why, size, e)
            finally:
                self._dispatching -= 1

        def saved(ctx, label, status, detail):
            self._emit(Event("saved", name=L.pystr(label), code=status, message=L.pystr(detail)))

        if self._save_fn is not None:
            cbs.save = L.SAVE(save)
        cbs.restore = L.RESTORE(restore)
        cbs.saved = L.SAVED(self._guard(saved))

    def request_save(self, label, time):
        """tp_request_save: ask the RTI for a save of the whole federation labelled label at
        logical time `time` (ticks). Asynchronous: every federate's save_state runs inside the
        call that receives its grant of `time`, then each gets the "saved" event (code 0 and the
        checkpoint folder as message, or the failure naming who failed). A refusal comes back
        as an "error" event and from the next blocking call."""
        self._check(self._lib.tp_request_save(self._live(), L.cstr(label), _tick(time)),
                    "request_save")

    # ---- events ------------------------------------------------------------------------

    def evoke(self, timeout=0.0):
        """tp_evoke: dispatch what has arrived (timeout 0), or wait up to timeout seconds for
        the first message (None: until one came). Returns the number dispatched."""
        return self._check(self._lib.tp_evoke(self._live(), _ms(timeout)), "evoke")

    def flush(self):
        """tp_flush: write the batched output now."""
        self._check(self._lib.tp_flush(self._live()), "flush")

    def poll_events(self):
        """The queued events (those no handler took), oldest first; the queue is emptied."""
        if self._queue is None:
            return []
        out = list(self._queue)
        self._queue.clear()
        return out

    def events(self, timeout=None, kinds=None):
        """Iterate over the events as they come: yields the queued ones, then evokes (waiting
        up to timeout seconds each time; None = forever) for more. Ends when a wait brings
        nothing within the timeout. kinds: a set of kinds to yield (the others are dropped)."""
        if self._queue is None:
            raise ValueError("events(): this federate was made with queue_events=False")
        while True:
            while self._queue:
                ev = self._queue.popleft()
                if kinds is None or ev.kind in kinds:
                    yield ev
            if self.evoke(timeout) == 0 and not self._queue:
                return

    # ---- handles and names -------------------------------------------------------------

    def _handle(self, fn, cache, key, call, *args):
        h = cache.get(key)
        if h is None:
            out = L.tp_handle()
            self._check(fn(self._live(), *args, ctypes.byref(out)), call)
            h = cache[key] = out.value
        return h

    def object_class(self, name):
        """tp_object_class: the handle of a class, simple or qualified name (an int passes)."""
        if isinstance(name, int):
            return name
        return self._handle(
            self._lib.tp_object_class, self._cls, name, "object_class", L.cstr(name)
        )

    def attribute(self, cls, name):
        """tp_attribute: the handle of attribute name of class cls (name or handle)."""
        if isinstance(name, int):
            return name
        c = self.object_class(cls)
        return self._handle(
            self._lib.tp_attribute, self._attrs, (c, name), "attribute", c, L.cstr(name)
        )

    def interaction_class(self, name):
        """tp_interaction_class: the handle of an interaction class."""
        if isinstance(name, int):
            return name
        return self._handle(
            self._lib.tp_interaction_class, self._ics, name, "interaction_class", L.cstr(name)
        )

    def parameter(self, ic, name):
        """tp_parameter: the handle of parameter name of interaction class ic."""
        if isinstance(name, int):
            return name
        c = self.interaction_class(ic)
        return self._handle(
            self._lib.tp_parameter, self._params, (c, name), "parameter", c, L.cstr(name)
        )

    def _name(self, kind, h):
        key = (kind, h)
        n = self._names.get(key)
        if n is None:
            n = L.pystr(self._lib.tp_handle_name(self._f, kind.encode(), h)) or "#%d" % h
            self._names[key] = n
        return n

    def handle_name(self, kind, h):
        """tp_handle_name: kind "o", "a", "i" or "p"; None for an unknown handle."""
        return L.pystr(self._lib.tp_handle_name(self._live(), kind.encode(), h))

    def _handles(self, cls, attrs):
        if attrs is None:
            return None, 0
        hs = [self.attribute(cls, a) for a in attrs]
        return (L.tp_handle * len(hs))(*hs), len(hs)

    # ---- declarations ------------------------------------------------------------------

    def publish_object_class(self, cls, attributes=None):
        """Publish attributes (names; None = all of the class) of class cls."""
        arr, n = self._handles(cls, attributes)
        self._check(
            self._lib.tp_publish_object_class(self._live(), self.object_class(cls), arr, n),
            "publish_object_class",
        )

    def unpublish_object_class(self, cls):
        self._check(
            self._lib.tp_unpublish_object_class(self._live(), self.object_class(cls)),
            "unpublish_object_class",
        )

    def subscribe_object_class(self, cls, attributes=None):
        """Subscribe attributes (names; None = all) of class cls and its subclasses."""
        arr, n = self._handles(cls, attributes)
        self._check(
            self._lib.tp_subscribe_object_class(self._live(), self.object_class(cls), arr, n),
            "subscribe_object_class",
        )

    def unsubscribe_object_class(self, cls):
        self._check(
            self._lib.tp_unsubscribe_object_class(self._live(), self.object_class(cls)),
            "unsubscribe_object_class",
        )

    def publish_interaction_class(self, ic):
        self._check(
            self._lib.tp_publish_interaction_class(self._live(), self.interaction_class(ic)),
            "publish_interaction_class",
        )

    def unpublish_interaction_class(self, ic):
        self._check(
            self._lib.tp_unpublish_interaction_class(self._live(), self.interaction_class(ic)),
            "unpublish_interaction_class",
        )

    def subscribe_interaction_class(self, ic):
        self._check(
            self._lib.tp_subscribe_interaction_class(self._live(), self.interaction_class(ic)),
            "subscribe_interaction_class",
        )

    def unsubscribe_interaction_class(self, ic):
        self._check(
            self._lib.tp_unsubscribe_interaction_class(self._live(), self.interaction_class(ic)),
            "unsubscribe_interaction_class",
        )

    # ---- objects and interactions ------------------------------------------------------

    def register_object(self, cls, name=None):
        """tp_register_object: an instance of published class cls; returns its handle.
        Blocks for the RTI's answer (no callbacks run meanwhile)."""
        c = self.object_class(cls)
        out = L.tp_object()
        self._check(
            self._lib.tp_register_object(self._live(), c, L.cstr(name), ctypes.byref(out)),
            "register_object",
        )
        self._owned[out.value] = c
        return out.value

    def adopt(self, obj, cls):
        """Take back object obj of class cls as registered here: after a restoring join
        (restore=True) the RTI holds this federate's objects as they were at the save, but
        this Federate is new and knows their handles only from its own saved part."""
        self._owned[int(obj)] = self.object_class(cls)

    def _values(self, kind, cls, values):
        """The tp_value array of values {name: value} of class cls (kind "a": attributes of
        an object class, "p": parameters of an interaction class), as (address, count,
        what keeps it alive). A plan is kept per class and set of names: when every value
        has a fixed-size type, the array is built once, pointing into one scratch buffer
        that struct packs the values into (no allocation per call beyond the pack)."""
        keys = tuple(values)
        plan = self._plans.get((kind, cls, keys))
        if plan is None:
            plan = self._plans[(kind, cls, keys)] = self._plan(kind, cls, keys)
        st, scratch, arr = plan
        if st is not None:
            try:
                st.pack_into(scratch, 0, *values.values())
                return ctypes.addressof(arr), len(keys), plan
            except struct.error:
                pass  # a value the fast path cannot pack (1.5 for an int): encode it below
        types = self._fom.attr_type if kind == "a" else self._fom.param_type
        lookup = self.attribute if kind == "a" else self.parameter
        n = len(keys)
        arr = (L.tp_value_in * n)()
        for i, (k, x) in enumerate(values.items()):
            h = lookup(cls, k)
            t = types.get(h, "bytes")
            b = bytes(x) if isinstance(x, (bytes, bytearray)) and t != "string" else V.encode(t, x)
            arr[i].handle = h
            arr[i].data = b
            arr[i].size = len(b)
        return ctypes.addressof(arr), n, arr

    def _plan(self, kind, cls, keys):
        types = self._fom.attr_type if kind == "a" else self._fom.param_type
        lookup = self.attribute if kind == "a" else self.parameter
        hs = [lookup(cls, k) for k in keys]  # raises TempoError for an unknown name
        fmt = [V.FIXED.get(types.get(h)) for h in hs]
        if not hs or None in fmt:
            return None, None, None
        st = struct.Struct("<" + "".join(fmt))
        scratch = ctypes.create_string_buffer(st.size)
        arr = (L.tp_value * len(hs))()
        off, base = 0, ctypes.addressof(scratch)
        for i, (h, f) in enumerate(zip(hs, fmt)):
            size = struct.calcsize("<" + f)
            arr[i].handle, arr[i].data, arr[i].size = h, base + off, size
            off += size
        return st, scratch, arr

    def update(self, obj, values, time=None, tag=None):
        """tp_update_tagged: values {attribute name: value} of an object registered here,
        encoded by their FOM types (bytes pass as they are); time in ticks or None for
        receive order; tag: bytes for the subscribers."""
        c = self._owned.get(obj)
        if c is None:
            raise TempoError(-3, "object %r was not registered by this federate" % obj, "update")
        addr, n, keep = self._values("a", c, values)
        rc = self._lib.tp_update_tagged(
            self._live(), obj, addr, n, _tick(time, "update"), tag, len(tag) if tag else 0
        )
        if rc or self._exc is not None:
            self._check(rc, "update")

    def delete_object(self, obj, time=None):
        """tp_delete_object; subscribers get a "remove" event."""
        self._check(
            self._lib.tp_delete_object(self._live(), obj, _tick(time, "delete_object")),
            "delete_object",
        )
        self._owned.pop(obj, None)

    def send_interaction(self, ic, params=None, time=None, tag=None):
        """tp_send_interaction_tagged: params {parameter name: value} of a published class."""
        c = self.interaction_class(ic)
        addr, n, keep = self._values("p", c, params or {})
        self._check(
            self._lib.tp_send_interaction_tagged(
                self._live(), c, addr, n, _tick(time, "send_interaction"), tag,
                len(tag) if tag else 0,
            ),
            "send_interaction",
        )

    def request_update(self, obj, attributes):
        """tp_request_update: ask the owner of a discovered object for values."""
        cls = self.objects[obj][0] if obj in self.objects else self._owned[obj]
        arr, n = self._handles(cls, attributes)
        self._check(self._lib.tp_request_update(self._live(), obj, arr, n), "request_update")

    def request_class_update(self, cls, attributes):
        arr, n = self._handles(cls, attributes)
        self._check(
            self._lib.tp_request_class_update(self._live(), self.object_class(cls), arr, n),
            "request_class_update",
        )

    # ---- synchronization points --------------------------------------------------------

    def register_sync(self, label, tag=b"", federates=None):
        """tp_register_sync: federates = handles of its members (None: every one joined)."""
        feds = list(federates or [])
        arr = (L.tp_fed * len(feds))(*feds) if feds else None
        tagb = bytes(tag) if tag else None
        self._check(
            self._lib.tp_register_sync(
                self._live(), L.cstr(label), tagb, len(tagb or b""), arr, len(feds)
            ),
            "register_sync",
        )

    def achieve_sync(self, label):
        self._check(self._lib.tp_achieve_sync(self._live(), L.cstr(label)), "achieve_sync")

    def _wait(self, fn, call, *args, timeout):
        rc = self._check(fn(self._live(), *args, _ms(timeout)), call)
        return rc == 0

    def wait_announced(self, label, timeout=None):
        """Evoke until label is announced; False when the timeout (seconds) passed first."""
        return self._wait(self._lib.tp_wait_announced, "wait_announced", L.cstr(label), timeout=timeout)

    def wait_sync(self, label, timeout=None):
        """Evoke until the federation is synchronized at label; False on timeout."""
        return self._wait(self._lib.tp_wait_sync, "wait_sync", L.cstr(label), timeout=timeout)

    def sync(self, label, timeout=None):
        """tp_sync: wait for the announcement, achieve, wait for the synchronization."""
        return self._wait(self._lib.tp_sync, "sync", L.cstr(label), timeout=timeout)

    # ---- time management ---------------------------------------------------------------

    def ticks(self, seconds):
        """tp_time_from_seconds with the FOM's resolution (rounded to nearest)."""
        return self._lib.tp_time_from_seconds(self._live(), float(seconds))

    def seconds(self, ticks):
        """tp_time_to_seconds with the FOM's resolution."""
        return self._lib.tp_time_to_seconds(self._live(), _tick(ticks, "seconds"))

    def enable_regulation(self, lookahead=0, wait=True, timeout=None):
        """tp_enable_regulation(lookahead ticks), then (wait) tp_wait_regulation_enabled."""
        self._check(
            self._lib.tp_enable_regulation(self._live(), _tick(lookahead, "lookahead")),
            "enable_regulation",
        )
        if wait:
            return self._wait(
                self._lib.tp_wait_regulation_enabled, "wait_regulation_enabled", timeout=timeout
            )
        return True

    def enable_constrained(self, wait=True, timeout=None):
        """tp_enable_constrained, then (wait) tp_wait_constrained_enabled."""
        self._check(self._lib.tp_enable_constrained(self._live()), "enable_constrained")
        if wait:
            return self._wait(
                self._lib.tp_wait_constrained_enabled, "wait_constrained_enabled", timeout=timeout
            )
        return True

    def wait_regulation_enabled(self, timeout=None):
        return self._wait(
            self._lib.tp_wait_regulation_enabled, "wait_regulation_enabled", timeout=timeout
        )

    def wait_constrained_enabled(self, timeout=None):
        return self._wait(
            self._lib.tp_wait_constrained_enabled, "wait_constrained_enabled", timeout=timeout
        )

    def disable_regulation(self):
        self._check(self._lib.tp_disable_regulation(self._live()), "disable_regulation")

    def disable_constrained(self):
        self._check(self._lib.tp_disable_constrained(self._live()), "disable_constrained")

    def modify_lookahead(self, lookahead):
        self._check(
            self._lib.tp_modify_lookahead(self._live(), _tick(lookahead, "lookahead")),
            "modify_lookahead",
        )

    def _query_time(self, fn, call):
        out = L.tp_time()
        self._check(fn(self._live(), ctypes.byref(out)), call)
        return out.value

    @property
    def logical_time(self):
        """tp_query_logical_time (ticks)."""
        return self._query_time(self._lib.tp_query_logical_time, "logical_time")

    @property
    def lookahead(self):
        """tp_query_lookahead (ticks)."""
        return self._query_time(self._lib.tp_query_lookahead, "lookahead")

    def send_bound(self):
        """tp_query_send_bound: (bound in ticks, strict)."""
        b, s = L.tp_time(), ctypes.c_int()
        self._check(
            self._lib.tp_query_send_bound(self._live(), ctypes.byref(b), ctypes.byref(s)),
            "send_bound",
        )
        return b.value, bool(s.value)

    def galt(self):
        """tp_query_galt: (GALT in ticks, strict); TIME_MAX when nobody else regulates."""
        g, s = L.tp_time(), ctypes.c_int()
        self._check(
            self._lib.tp_query_galt(self._live(), ctypes.byref(g), ctypes.byref(s)), "galt"
        )
        return g.value, bool(s.value)

    def lits(self):
        """tp_query_lits (ticks; TIME_MAX when nothing is queued for us)."""
        return self._query_time(self._lib.tp_query_lits, "lits")

    def stall(self, who=0):
        """tp_query_stall: (polls without progress, the federate it waits for or 0)."""
        p, w = ctypes.c_uint(), L.tp_fed()
        self._check(
            self._lib.tp_query_stall(self._live(), who, ctypes.byref(p), ctypes.byref(w)),
            "stall",
        )
        return p.value, w.value

    def time_status(self):
        """tp_query_time_status: one dict per federate (federate, time, pending ("TAR", ...,
        or None), pending_time, bound, bound_strict, galt, galt_strict, galt_holder,
        galt_root, lits), times in ticks (None for no time)."""
        n = ctypes.c_size_t()
        cap = 16
        while True:
            arr = (L.tp_time_status * cap)()
            self._check(
                self._lib.tp_query_time_status(self._live(), arr, cap, ctypes.byref(n)),
                "time_status",
            )
            if n.value <= cap:
                break
            cap = n.value
        out = []
        for s in arr[: n.value]:
            out.append(
                {
                    "federate": s.federate,
                    "time": s.time,
                    "pending": _REQ_NAMES.get(s.pending),
                    "pending_time": _opt_time(s.pending_time),
                    "bound": s.bound,
                    "bound_strict": bool(s.bound_strict),
                    "galt": s.galt,
                    "galt_strict": bool(s.galt_strict),
                    "galt_holder": s.galt_holder,
                    "galt_root": s.galt_root,
                    "lits": s.lits,
                }
            )
        return out

    def _request(self, fn, call, t, wait, timeout):
        self._check(fn(self._live(), _tick(t, call)), call)
        if not wait:
            return None
        return self.wait_grant(timeout)

    def wait_grant(self, timeout=None):
        """tp_wait_grant: evoke until the pending request is granted; returns the granted
        time (ticks), or None when the timeout (seconds) passed first."""
        rc = self._check(
            self._lib.tp_wait_grant(self._live(), self._tref, _ms(timeout)), "wait_grant"
        )
        return self._tbuf.value if rc == 0 else None

    def time_advance_request(self, t, wait=True, timeout=None):
        """TAR(t); with wait (the default) evokes until the grant and returns its time."""
        return self._request(self._lib.tp_time_advance_request, "tar", t, wait, timeout)

    def time_advance_request_available(self, t, wait=True, timeout=None):
        """TARA(t); with wait, the granted time."""
        return self._request(
            self._lib.tp_time_advance_request_available, "tara", t, wait, timeout
        )

    def next_event_request(self, t, wait=True, timeout=None):
        """NER(t); with wait, the granted time (the first message's stamp, or t)."""
        return self._request(self._lib.tp_next_event_request, "ner", t, wait, timeout)

    def next_event_request_available(self, t, wait=True, timeout=None):
        """NERA(t); with wait, the granted time."""
        return self._request(self._lib.tp_next_event_request_available, "nera", t, wait, timeout)

    def flush_queue_request(self, t, wait=True, timeout=None):
        """FQR(t); with wait, the granted time."""
        return self._request(self._lib.tp_flush_queue_request, "fqr", t, wait, timeout)

    tar = time_advance_request
    tara = time_advance_request_available
    ner = next_event_request
    nera = next_event_request_available
    fqr = flush_queue_request

    def set_liveness(self, ms):
        """tp_set_liveness (milliseconds; 0 turns the check off)."""
        self._check(self._lib.tp_set_liveness(self._live(), int(ms)), "set_liveness")

    def fileno(self):
        """tp_fileno: the socket to poll (-1 in process)."""
        return self._lib.tp_fileno(self._live())


def _fed_call(fn, call, federation, fom, fom_text, rti, secret, timeout):
    opt = L.tp_join_options(
        rti=L.cstr(rti),
        federation=L.cstr(federation),
        fom_path=L.cstr(fom),
        fom_text=L.cstr(fom_text) if fom is None else None,
        secret=L.cstr(secret),
        timeout_ms=_ms(timeout) if timeout is not None else -1,
    )
    err = ctypes.create_string_buffer(1024)
    rc = fn(ctypes.byref(opt), err, len(err))
    if rc < 0:
        raise TempoError(rc, L.pystr(err.value), call)


def restore_federation(checkpoint, federation=None, rti=None, secret=None, timeout=10.0):
    """tp_restore_federation: recreate at the RTI the federation saved in the checkpoint folder
    (a path the RTI reads); its federates then rejoin with Federate(..., restore=True), which
    hands each its part (restore_state, and Federate.restored). Raises TempoError (TP_ECKPT
    for a folder that is no sound checkpoint, naming the file and the fault)."""
    opt = L.tp_join_options(
        rti=L.cstr(rti),
        federation=L.cstr(federation),
        secret=L.cstr(secret),
        timeout_ms=_ms(timeout) if timeout is not None else -1,
    )
    err = ctypes.create_string_buffer(1024)
    rc = L.lib().tp_restore_federation(ctypes.byref(opt), L.cstr(str(checkpoint)), err, len(err))
    if rc < 0:
        raise TempoError(rc, L.pystr(err.value), "restore_federation")


def create_federation(federation, fom=None, fom_text=None, rti=None, secret=None, timeout=10.0):
    """tp_create_federation: create it at the RTI with this FOM (a short connection of its
    own). Raises TempoError (TP_EEXISTS when it exists)."""
    _fed_call(L.lib().tp_create_federation, "create_federation", federation, fom, fom_text, rti,
              secret, timeout)


def destroy_federation(federation, rti=None, secret=None, timeout=10.0):
    """tp_destroy_federation: destroy an empty federation (TP_EREFUSED while federates are
    joined, TP_ENOTFOUND when there is none)."""
    _fed_call(L.lib().tp_destroy_federation, "destroy_federation", federation, None, None, rti,
              secret, timeout)


def time_add(a, b):
    """tp_time_add: a + b in ticks, saturating at TIME_MAX."""
    return L.lib().tp_time_add(_tick(a), _tick(b))


def strerror(code):
    """tp_strerror: the name and meaning of a status code."""
    return L.pystr(L.lib().tp_strerror(int(code)))


class InprocRTI:
    """An RTI inside this process (tp_inproc_start), reachable as rti="inproc:NAME" by
    Federates of this process; federates are threads (not tasks: a Python federate runs in
    a thread of its own, e.g. threading.Thread). A join to "inproc:NAME" starts one with the
    defaults, so this is needed only for a federation log (log_dir), a secret or a spin.
    Use as a context manager, or call stop() once the federates are done."""

    def __init__(self, name="", log_dir=None, log_only=None, secret=None, spin_us=0,
                 checkpoint_dir=None):
        self.name = name
        self.address = "inproc:" + name
        self._lib = L.lib()
        opt = L.tp_inproc_options(
            log_dir=L.cstr(log_dir),
            log_only=L.cstr(log_only),
            secret=L.cstr(secret),
            spin_us=int(spin_us),
            checkpoint_dir=L.cstr(None if checkpoint_dir is None else str(checkpoint_dir)),
        )
        err = ctypes.create_string_buffer(512)
        rc = self._lib.tp_inproc_start(L.cstr(name), ctypes.byref(opt), err, len(err))
        if rc < 0:
            raise TempoError(rc, L.pystr(err.value), "InprocRTI")
        self._running = True

    def stop(self):
        """tp_inproc_stop: federates still joined lose their connection; logs completed."""
        if self._running:
            self._running = False
            err = ctypes.create_string_buffer(512)
            rc = self._lib.tp_inproc_stop(L.cstr(self.name), err, len(err))
            if rc < 0:
                raise TempoError(rc, L.pystr(err.value), "InprocRTI.stop")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False
