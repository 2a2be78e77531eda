"""tempo.Federate against a real tempo-rti (TCP and Unix socket) and the in-process RTI:
joining and its errors, declarations by name, every FOM type through an update and an
interaction, time management (TAR, TARA, NER, NERA, FQR, lookahead, bounds), sync points,
callbacks, the event iterator, and errors as exceptions with the code and the message."""
import ctypes
import math

import pytest

import tempo
from tempo import errors
from conftest import Thread, pump


def fed(rti, federation, name, fom, **kw):
    return tempo.Federate(federation, name, fom=fom, rti=kw.pop("addr", rti.address), **kw)


# ---- joining -----------------------------------------------------------------------------


def test_join_errors_carry_code_and_message(rti, federation, demo_fom, tmp_path):
    with pytest.raises(tempo.TempoError) as e:
        fed(rti, federation, "a", demo_fom, create=False)
    assert e.value.code == errors.TP_ENOTFOUND == -32
    assert e.value.name == "TP_ENOTFOUND"
    assert federation in e.value.message  # the library names the federation
    with fed(rti, federation, "a", demo_fom) as a:
        with pytest.raises(tempo.TempoError) as e:
            fed(rti, federation, "a", demo_fom)
        assert e.value.code == errors.TP_EEXISTS
        assert a.handle > 0
    bad = tmp_path / "bad.xml"
    bad.write_text("<fom name='x'><objects><class/></objects></fom>")
    with pytest.raises(tempo.TempoError) as e:
        fed(rti, federation + "b", "a", str(bad))
    assert e.value.code == errors.TP_EFOM and "bad.xml" in e.value.message
    with pytest.raises(tempo.TempoError) as e:
        tempo.Federate(federation, "a", fom=demo_fom, rti="127.0.0.1:1", timeout=2)
    assert e.value.code == errors.TP_ESYS


def test_create_and_destroy_federation(rti, federation, demo_fom):
    tempo.create_federation(federation, fom=demo_fom, rti=rti.address)
    with pytest.raises(tempo.TempoError) as e:
        tempo.create_federation(federation, fom=demo_fom, rti=rti.address)
    assert e.value.code == errors.TP_EEXISTS
    tempo.destroy_federation(federation, rti=rti.address)  # empty: destroyed
    with pytest.raises(tempo.TempoError) as e:
        tempo.destroy_federation(federation, rti=rti.address)
    assert e.value.code == errors.TP_ENOTFOUND
    tempo.create_federation(federation, fom=demo_fom, rti=rti.address)
    with fed(rti, federation, "a", demo_fom, create=False):  # it exists: joined as it is
        with pytest.raises(tempo.TempoError) as e:
            tempo.destroy_federation(federation, rti=rti.address)
        assert e.value.code == errors.TP_EREFUSED  # a is joined


def test_names_and_handles(rti, federation, test_fom):
    with fed(rti, federation, "a", test_fom) as a:
        # doc/fom.md §4 lists the handles of fom/test.xml
        assert a.object_class("Vehicle.Car.SportsCar") == a.object_class("SportsCar") == 3
        assert a.attribute("Truck", "speed") == a.attribute("Vehicle", "speed") == 2
        assert a.interaction_class("Message.Alarm") == 2
        assert a.parameter("Alarm", "text") == 1
        assert a.handle_name("o", 3) == "Vehicle.Car.SportsCar"
        with pytest.raises(tempo.TempoError) as e:
            a.object_class("Bicycle")
        assert e.value.code == errors.TP_ENAME and "Bicycle" in e.value.message


# ---- objects and interactions --------------------------------------------------------------


def test_every_type_through_update_and_interaction_tcp(rti, federation, test_fom):
    run_types(rti.address, federation, test_fom)


def test_every_type_over_unix_socket(rti, federation, test_fom):
    run_types(rti.unix, federation, test_fom)


def run_types(addr, federation, test_fom):
    a = tempo.Federate(federation, "pub", fom=test_fom, rti=addr)
    b = tempo.Federate(federation, "sub", fom=test_fom, rti=addr)
    try:
        b.subscribe_object_class("SportsCar")
        b.subscribe_object_class("Sample", ["raw"])
        b.subscribe_interaction_class("Message")
        b.subscribe_interaction_class("Step")
        b.time_status()  # a round trip: the RTI has b's subscriptions (they are batched)
        a.publish_object_class("SportsCar")
        a.publish_object_class("Sample")
        a.publish_interaction_class("Alarm")
        car = a.register_object("SportsCar", "car1")
        smp = a.register_object("Sample")
        vals = {
            "position": [1.5, -2.25],
            "speed": 33.0,
            "name": "zoé",
            "passengers": -3,
            "electric": True,
            "turbo": False,
            "lapTimes": [61.5, 60.25, 59.0],
        }
        a.update(car, vals, tag=b"t\x00ag")
        a.update(smp, {"raw": b"\x00\xff\x10", "x": 1.0})
        a.send_interaction("Alarm", {"text": "fire", "priority": 7, "level": 2**40})
        a.publish_interaction_class("Step")
        a.send_interaction("Step", {"dt": 0.125}, tag=b"s")
        got = {}

        def collect():
            for e in b.poll_events():
                got.setdefault(e.kind, []).append(e)
            return len(got.get("reflect", [])) == 2 and len(got.get("receive", [])) == 2

        pump(a, b, until=collect)
        assert [d.name for d in got["discover"]] == ["car1", b.objects[smp][1]]
        assert got["discover"][0].object_class == "Vehicle.Car.SportsCar"
        r = got["reflect"][0]
        assert r.object == car and r.name == "car1" and r.values == vals
        assert r.time is None and r.order == tempo.RECEIVE_ORDER and r.sender == a.handle
        assert r.tag == b"t\x00ag"
        assert got["reflect"][1].values == {"raw": b"\x00\xff\x10"}  # only what b subscribes
        i = got["receive"][0]
        # b subscribes Message: the Alarm reaches it as a Message, with Message's parameters
        assert i.interaction == "Message"
        assert i.values == {"text": "fire", "priority": 7}
        i = got["receive"][1]
        assert (i.interaction, i.values, i.tag) == ("Step", {"dt": 0.125}, b"s")
        # A value that does not fit its type is refused before anything is sent.
        with pytest.raises(tempo.TempoError) as e:
            a.update(car, {"position": b"\x00" * 3})
        assert e.value.code == errors.TP_ESIZE
        with pytest.raises(ValueError):
            a.update(car, {"position": [1.0, 2.0, 3.0]})
        a.delete_object(car)
        pump(a, b, until=lambda: any(e.kind == "remove" for e in b.poll_events()))
    finally:
        a.close()
        b.close()


def test_provide_and_request_update(rti, federation, demo_fom):
    with fed(rti, federation, "owner", demo_fom) as a, fed(rti, federation, "asker", demo_fom) as b:
        asked = []

        a.publish_object_class("Signal")
        obj = a.register_object("Signal", "s")
        b.subscribe_object_class("Signal", ["value"])
        pump(a, b, until=lambda: obj in b.objects)
        b.request_update(obj, ["value"])

        def provided():
            for e in a.poll_events():
                if e.kind == "provide":
                    asked.append(e)
                    a.update(e.object, {"value": 4.5})
            return any(e.kind == "reflect" and e.values == {"value": 4.5} for e in b.poll_events())

        pump(a, b, until=provided)
        assert asked[0].object == obj and asked[0].attributes == ["value"]


# ---- time management -----------------------------------------------------------------------


def pair(rti, federation, fom, lookahead):
    """a regulates with lookahead (ticks) and publishes Signal; b is constrained and
    subscribes it."""
    a = fed(rti, federation, "a", fom)
    b = fed(rti, federation, "b", fom)
    a.publish_object_class("Signal", ["value"])
    obj = a.register_object("Signal", "s")
    b.subscribe_object_class("Signal", ["value"])
    a.enable_regulation(lookahead)
    b.enable_constrained()
    return a, b, obj


def kinds(events):
    return [(e.kind, e.time) for e in events if e.kind in ("reflect", "grant")]


def test_tar_waits_for_the_regulator_and_delivers_first(rti, federation, demo_fom):
    a, b, obj = pair(rti, federation, demo_fom, 10)
    try:
        assert a.lookahead == 10 and a.send_bound() == (10, False)
        a.update(obj, {"value": 1.0}, time=50)
        b.tar(200, wait=False)
        assert b.wait_grant(timeout=0.2) is None  # a's bound is 10: no grant yet
        st = {s["federate"]: s for s in b.time_status()}
        assert st[b.handle]["pending"] == "TAR" and st[b.handle]["pending_time"] == 200
        assert st[b.handle]["galt_holder"] == a.handle
        assert a.tar(195) == 195  # a is not constrained: granted at once; bound 205 > 200
        assert b.wait_grant(timeout=5) == 200
        assert kinds(b.poll_events()) == [("reflect", 50), ("grant", 200)]
        assert b.logical_time == 200
        with pytest.raises(tempo.TempoError) as e:
            b.tar(100)
        assert e.value.code == errors.TP_ETIME
        with pytest.raises(tempo.TempoError) as e:
            a.update(obj, {"value": 2.0}, time=200)  # a at 195, lookahead 10: bound 205
        assert e.value.code == errors.TP_EBOUND == -22 and e.value.message
        with pytest.raises(TypeError):
            b.tar(1.5)  # seconds must be converted: ticks are ints
    finally:
        a.close()
        b.close()


def test_ner_nera_fqr_tara(rti, federation, demo_fom):
    a, b, obj = pair(rti, federation, demo_fom, 10)
    try:
        a.update(obj, {"value": 1.0}, time=30)
        a.update(obj, {"value": 2.0}, time=70)
        a.tar(500)
        assert b.ner(1000) == 30  # the first message's stamp
        assert b.nera(1000) == 70
        assert b.next_event_request(1000, wait=False) is None
        assert b.wait_grant(0.2) is None  # a may still send at its bound 510 < 1000
        a.tar(2000)
        assert b.wait_grant(5) == 1000
        assert kinds(b.poll_events()) == [("reflect", 30), ("grant", 30), ("reflect", 70),
                                          ("grant", 70), ("grant", 1000)]
        # FQR: everything queued is delivered now, whatever its stamp, then the grant
        # max(T, min(t, GALT)): GALT is a's bound 2010 (a at 2000, lookahead 10)
        a.update(obj, {"value": 3.0}, time=2500)
        a.flush()
        pump(a, until=lambda: b.lits() == 2500)
        assert b.fqr(3000) == 2010
        assert kinds(b.poll_events()) == [("reflect", 2500), ("grant", 2010)]
        # TARA: granted once nothing stamped below t can come
        assert b.tara(2010) == 2010
        b.tara(2100, wait=False)
        with pytest.raises(tempo.TempoError) as e:
            b.tar(2200)
        assert e.value.code == errors.TP_EPENDING
        a.modify_lookahead(200)
        a.tar(3000)
        assert b.wait_grant(5) == 2100
        galt, strict = b.galt()
        assert galt >= 3010
    finally:
        a.close()
        b.close()


def test_seconds_and_ticks(rti, federation, demo_fom):
    with fed(rti, federation, "a", demo_fom) as a:  # demo.xml: 1 µs per tick
        assert a.ticks(0.1) == 100000
        assert a.seconds(250000) == pytest.approx(0.25, abs=1e-15)
        assert tempo.time_add(tempo.TIME_MAX, 5) == tempo.TIME_MAX
        assert math.isinf(a.seconds(tempo.TIME_MAX))
        # a time outside int64 is refused, never wrapped by ctypes (2**64 + 5 would be 5)
        for bad in (2**64 + 5, tempo.TIME_MAX + 1, -(2**63) - 1):
            with pytest.raises(OverflowError, match="outside int64"):
                tempo.time_add(bad, 1)
            with pytest.raises(OverflowError, match="outside int64"):
                a.tar(bad)
        assert a.time_status()  # nothing was requested
    # closed: the FOM's resolution is gone with it; no conversion by a default one
    with pytest.raises(tempo.TempoError) as e:
        a.ticks(0.1)
    assert e.value.code == errors.TP_ESTATE


# ---- sync points, callbacks, events ----------------------------------------------------------


def test_sync_points_across_threads(rti, federation, demo_fom):
    a = fed(rti, federation, "a", demo_fom)
    b = fed(rti, federation, "b", demo_fom)
    try:
        a.register_sync("go", tag=b"xyz")
        peer = Thread(lambda: b.sync("go", timeout=10))
        peer.start()
        assert a.sync("go", timeout=10)
        assert peer.join() is True
        ev = a.poll_events()
        reg = [e for e in ev if e.kind == "sync_registered"]
        assert reg and reg[0].code == 0 and reg[0].name == "go"
        ann = [e for e in b.poll_events() if e.kind == "sync_announced"]
        assert ann[0].tag == b"xyz"
        assert "go" in a.synchronized_points and "go" in b.synchronized_points
        assert a.wait_announced("never", timeout=0.05) is False
    finally:
        a.close()
        b.close()


def test_handlers_subclass_on_dict_and_exceptions(rti, federation, demo_fom):
    class Counting(tempo.Federate):
        n = 0

        def on_reflect(self, ev):
            self.n += 1

    a = fed(rti, federation, "a", demo_fom)
    got = []
    b = Counting(federation, "b", fom=demo_fom, rti=rti.address)
    c = fed(rti, federation, "c", demo_fom, on={"reflect": got.append})

    def boom(ev):
        raise ValueError("from the handler")

    d = fed(rti, federation, "d", demo_fom, on={"reflect": boom})
    try:
        a.publish_object_class("Signal")
        obj = a.register_object("Signal")
        for f in (b, c, d):
            f.subscribe_object_class("Signal")
        for f in (b, c, d):  # subscriptions are in place once a reply came back
            f.time_status()
        a.update(obj, {"value": 2.0})
        a.flush()
        pump(b, c, until=lambda: b.n == 1 and len(got) == 1)
        assert got[0].values["value"] == 2.0
        assert not [e for e in b.poll_events() if e.kind == "reflect"]  # the handler took it
        with pytest.raises(ValueError, match="from the handler"):
            pump(d, until=lambda: False, timeout=5)
    finally:
        for f in (a, b, c, d):
            f.close()


def test_events_iterator(rti, federation, demo_fom):
    with fed(rti, federation, "a", demo_fom) as a, fed(rti, federation, "b", demo_fom) as b:
        a.publish_object_class("Signal")
        obj = a.register_object("Signal", "it")
        b.subscribe_object_class("Signal", ["value"])
        b.time_status()
        for k in range(3):
            a.update(obj, {"value": float(k)})
        a.flush()
        vals = []
        for ev in b.events(timeout=1.0, kinds={"reflect"}):
            vals.append(ev.values["value"])
            if len(vals) == 3:
                break
        assert vals == [0.0, 1.0, 2.0]


def test_unknown_handler_kind_is_refused(rti, federation, demo_fom):
    with pytest.raises(ValueError, match="reflekt"):
        fed(rti, federation, "a", demo_fom, on={"reflekt": print})


def test_resign_and_closed(rti, federation, demo_fom):
    a = fed(rti, federation, "a", demo_fom)
    a.resign()
    with pytest.raises(tempo.TempoError) as e:
        a.tar(10)
    assert e.value.code == errors.TP_ESTATE
    a.close()
    a.close()  # twice is harmless


# ---- in process -----------------------------------------------------------------------------


def test_inproc_threads_and_federation_log(tmp_path, demo_fom):
    """Producer and consumer as two threads on an RTI inside this process, with its federation
    log read back by tempo.Log."""
    steps = 20
    with tempo.InprocRTI("pytest", log_dir=str(tmp_path)) as rti:

        def producer():
            with tempo.Federate("inp", "p", fom=demo_fom, rti=rti.address) as f:
                f.publish_object_class("Signal", ["value"])
                obj = f.register_object("Signal", "s")
                step = f.ticks(0.1)
                f.enable_regulation(step)
                pump(f, until=lambda: len(f.federates) == 1)
                f.register_sync("start")
                f.sync("start")
                now = 0
                for k in range(1, steps + 1):
                    t = now + step
                    f.update(obj, {"value": float(k)}, time=t)
                    now = f.tar(t)
                f.delete_object(obj, now + step)
                f.resign()

        seen = []
        removed = []
        with tempo.Federate("inp", "c", fom=demo_fom, rti=rti.address,
                            on={"reflect": seen.append, "remove": removed.append}) as c:
            c.subscribe_object_class("Signal", ["value"])
            c.enable_constrained()
            p = Thread(producer)
            p.start()
            c.sync("start", timeout=10)
            step, now = c.ticks(0.1), 0
            while not removed:
                now = c.tar(now + step, timeout=10)
                assert now is not None
            c.resign()
            p.join()
        assert [e.values["value"] for e in seen] == [float(k) for k in range(1, steps + 1)]
        assert [e.time for e in seen] == [k * 100000 for k in range(1, steps + 1)]
        assert all(e.order == tempo.TIMESTAMP_ORDER for e in seen)
    logs = list(tmp_path.glob("*.tlog"))
    assert len(logs) == 1
    log = tempo.Log(logs[0])
    st = log.stats()
    assert st["p"]["updates"] == steps and st["c"]["reflections"] == steps
    assert st["c"]["grants"] == len(log.grants("c")) >= steps
    assert [g.time for g in log.grants("p")][-steps:] == [k * 100000 for k in range(1, steps + 1)]


# ---- values against the library's own encoders ---------------------------------------------


def test_values_match_the_c_encoders():
    from tempo import values, _lib

    lib = _lib.lib()
    buf = ctypes.create_string_buffer(64)
    lib.tp_encode_float64.argtypes = [ctypes.c_double, ctypes.c_void_p]
    lib.tp_encode_int64.argtypes = [ctypes.c_int64, ctypes.c_void_p]
    lib.tp_encode_int32.argtypes = [ctypes.c_int32, ctypes.c_void_p]
    lib.tp_encode_boolean.argtypes = [ctypes.c_int, ctypes.c_void_p]
    for v in (0.0, -1.5, 1e300, float("inf"), 2.0**-1074):
        n = lib.tp_encode_float64(v, buf)
        assert values.encode("float64", v) == buf.raw[:n]
        assert values.decode("float64", buf.raw[:n]) == v
    for v in (0, -1, 2**62, -(2**63)):
        n = lib.tp_encode_int64(v, buf)
        assert values.encode("int64", v) == buf.raw[:n]
    for v in (0, -7, 2**31 - 1):
        n = lib.tp_encode_int32(v, buf)
        assert values.encode("int32", v) == buf.raw[:n]
    for v in (0, 1, 5):
        n = lib.tp_encode_boolean(v, buf)
        assert values.encode("boolean", v) == buf.raw[:n]
    arr = (ctypes.c_double * 3)(1.0, -2.0, 0.5)
    lib.tp_encode_float64_array.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                                            ctypes.c_size_t]
    n = lib.tp_encode_float64_array(arr, 3, buf, 64)
    assert values.encode("float64[]", [1.0, -2.0, 0.5]) == buf.raw[:n]
    assert values.decode("float64[3]", buf.raw[:n]) == [1.0, -2.0, 0.5]
    assert tempo.strerror(errors.TP_EBOUND).startswith("TP_EBOUND")


def test_asynchronous_refusal_reaches_the_program(rti, federation, demo_fom):
    """An update sent while regulation is being enabled, below the bound the RTI then gives
    (a constrained federate is already at 1000): the RTI refuses it later; the error event
    says so and the next blocking call raises it (doc/api.md, "No silent loss")."""
    lines = []
    a = fed(rti, federation, "a", demo_fom, log=lambda level, line: lines.append((level, line)))
    b = fed(rti, federation, "b", demo_fom)
    try:
        b.enable_constrained()
        assert b.tar(1000) == 1000  # nobody regulates: granted at once
        a.publish_object_class("Signal", ["value"])
        obj = a.register_object("Signal")
        a.enable_regulation(10, wait=False)
        a.update(obj, {"value": 1.0}, time=5)  # not regulating yet: not checked here
        with pytest.raises(tempo.TempoError) as e:
            a.wait_regulation_enabled(timeout=5)
            a.time_status()
        assert e.value.code == errors.TP_EBOUND and e.value.message
        err = [ev for ev in a.poll_events() if ev.kind == "error"]
        assert err and err[0].code == errors.TP_EBOUND
        assert a.send_bound()[0] >= 1000
        # the library's own log line went to the log callback (level 1: warn), not to stderr
        assert any(level == 1 and "refused UPDATE" in line for level, line in lines)
    finally:
        a.close()
        b.close()


def test_close_inside_a_handler_is_refused(rti, federation, demo_fom):
    """tp_federate_free must not run from inside a callback (federate/libtempo/tempo.h): the
    library is still dispatching and would go on with a freed federate. close() from a handler
    raises TP_ESTATE from the evoking call; the federate stays usable and closes afterwards."""
    a = fed(rti, federation, "a", demo_fom)
    seen = []

    def close_now(ev):
        seen.append(ev.values["value"])
        b.close()

    b = fed(rti, federation, "b", demo_fom, on={"reflect": close_now})
    try:
        a.publish_object_class("Signal")
        obj = a.register_object("Signal")
        b.subscribe_object_class("Signal")
        b.time_status()  # the subscription is in place
        a.update(obj, {"value": 3.0})
        a.flush()
        with pytest.raises(tempo.TempoError) as e:
            pump(b, until=lambda: False, timeout=5)
        assert e.value.code == errors.TP_ESTATE and "callback" in e.value.message
        assert seen == [3.0]
        b.time_status()  # still joined and usable
    finally:
        b.close()
        a.close()
    with pytest.raises(tempo.TempoError) as e:
        b.time_status()
    assert e.value.code == errors.TP_ESTATE  # closed now
