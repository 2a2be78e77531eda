#!/usr/bin/env python3
"""The market of the smart-grid case in Python: examples/houses/market.c step for step
(doc/cases/houses.md; doc/python.md, "A program federate"). A federation file names it as a
"program" federate; tempo-run starts it as

    market.py --federation FILE --name NAME --rti ADDR [--output DIR] [--period S]
              [--p-min X] [--p-max X] [--p-cap W] [--alpha A]

Every `period` seconds it reads every house's energy meter (its inputs "E<i>": "House<i>.E"),
takes the average power per house over the period, smooths it and publishes a price:

    P_s = P_s + alpha (P_avg - P_s),   price = p_min + (p_max - p_min) min(1, P_s / p_cap)

It advances with NER to each reading time; the price is stamped one tick (or the lookahead)
later, since after an NER grant at t nothing may be sent at t itself (doc/time.md).
"""
import argparse
import os
import sys

try:
    import tempo
except ImportError:  # run from the source tree without PYTHONPATH=python
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    import tempo
from tempo.fedfile import FederationFile, program_args

PROG = "market.py"


class Market(tempo.Federate):
    """The meters' readings come through on_reflect; membership through the other two."""

    def setup(self, ff, me):
        self.ff, self.me = ff, me
        self.e = {}  # (class, attribute) -> newest reading, kWh
        self.joined = 0
        self.lost = None
        self.reflections = 0

    def on_reflect(self, ev):
        for attr, v in ev.values.items():
            key = (ev.object_class, attr)
            if key in self.e:
                self.e[key] = v
                self.reflections += 1

    def on_federate_joined(self, ev):
        i = self.ff.index(ev.name)
        if i >= 0 and ev.name != self.me.name:
            self.joined += 1

    def on_federate_resigned(self, ev):
        if self.lost is None:
            self.lost = "%s left: %s" % (ev.name, ev.message)


def price_of(o, p_avg):
    x = p_avg / o.p_cap
    return o.p_min + (o.p_max - o.p_min) * min(1.0, max(0.0, x))


def run(o, ff, me, csv):
    k = Market(ff.federation, me.name, rti=o.rti, create=True, timeout=60.0, **ff.join_args())
    k.setup(ff, me)
    counts = {"steps": 0, "updates": 0, "requests": 0}
    if len(me.outputs) != 1:
        raise SystemExit("%s: %s: expected one output (the price), got %d"
                         % (PROG, me.name, len(me.outputs)))
    out = me.outputs[0]
    k.publish_object_class(out.cls, [out.attr])
    obj = k.register_object(out.cls, me.name)
    meters = [(w.cls, w.attr) for w in me.inputs]
    for cls, attr in meters:
        k.e[(cls, attr)] = 0.0
        k.subscribe_object_class(cls, [attr])
    lookahead = ff.t_lookahead if ff.method == "jacobi-naive" else 0
    k.enable_regulation(lookahead, timeout=60)
    k.enable_constrained(timeout=60)
    # The start point: the file's first federate registers it once everybody has joined.
    first = ff.index(me.name) == 0
    if first:
        while k.joined + 1 < len(ff.federates):
            k.evoke(0.1)
        k.register_sync("tempo-start")
    k.sync("tempo-start")
    if first:
        k.register_sync("tempo-end")

    def advance(ner, t):
        counts["requests"] += 1
        g = k.ner(t) if ner else k.tar(t)
        if k.lost:
            raise SystemExit("%s: %s: %s" % (PROG, me.name, k.lost))
        return g

    def publish(price, ts):
        k.update(obj, {out.attr: price}, time=ts)
        counts["updates"] += 1

    t0 = ff.t_start
    price = price_of(o, 0.0)
    if lookahead == 0:
        publish(price, t0)
    advance(False, t0)
    csv.write("%.15g,%.17g,%.17g,%.17g\n" % (k.seconds(t0), price, 0.0, 0.0))
    last = dict(k.e)
    step = k.ticks(o.period)
    after = lookahead if lookahead > 0 else 1
    p_s = 0.0
    t = t0 + step
    while t <= ff.t_end:
        while advance(True, t) < t:
            pass  # a house's update: recorded by on_reflect
        kwh = 0.0
        for m in meters:
            kwh += k.e[m] - last[m]
            last[m] = k.e[m]
        p_avg = kwh * 3.6e6 / (o.period * len(meters)) if meters else 0.0
        p_s += o.alpha * (p_avg - p_s)
        price = price_of(o, p_s)
        csv.write("%.15g,%.17g,%.17g,%.17g\n" % (k.seconds(t), price, p_avg, p_s))
        if t + after <= ff.t_end:
            publish(price, t + after)
        counts["steps"] += 1
        print("progress %.17g %.17g" % (k.seconds(t), ff.end))
        t += step
    k.sync("tempo-end")
    k.resign()
    counts["reflections"] = k.reflections
    k.close()
    return counts


def main():
    o, rest = program_args(description="the market of the houses case, in Python")
    ap = argparse.ArgumentParser(prog=PROG)
    for opt, d in (("--period", 900.0), ("--p-min", 0.10), ("--p-max", 0.177),
                   ("--p-cap", 3000.0), ("--alpha", 0.25)):
        ap.add_argument(opt, type=float, default=d)
    ap.parse_args(rest, namespace=o)
    if not 0 < o.alpha <= 1:
        print("%s: --alpha %g: expected 0 < alpha <= 1" % (PROG, o.alpha), file=sys.stderr)
        return 2
    sys.stdout.reconfigure(line_buffering=True)
    ff = FederationFile(o.federation)
    me = ff.federate(o.name)
    out_dir = o.output or ff.output
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, me.name + ".csv")
    try:
        with open(path, "w") as csv:
            csv.write("time,price,P_avg,P_smooth\n")
            c = run(o, ff, me, csv)
    except tempo.TempoError as e:
        print("%s: %s: %s" % (PROG, me.name, e), file=sys.stderr)
        return 1
    print("%s: %s: done at t = %.15g s: %d instants, %d updates, %d reflections, %d time requests"
          % (PROG, me.name, ff.end, c["steps"], c["updates"], c["reflections"], c["requests"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
