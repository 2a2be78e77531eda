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

Checkpoints (doc/checkpoint.md, "Program federates"; doc/python.md "Checkpoints"): its
save_state writes the C market's part, byte for byte the same layout (where it is in its loop,
its smoothed power and price, its meters, counters, price object and CSV length); with
--restore it rejoins a federation restored from a checkpoint and goes on from that part.
"""
import argparse
import os
import struct
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
        # where the run is, for a save: the request it waits in (0 the start's TAR, 1 an NER
        # of the loop, 2 the NER to an end between two periods) and its time, the smoothed
        # power, the last price (market.c)
        self.site, self.t, self.p_s, self.price = 0, 0, 0.0, 0.0
        self.last, self.meters, self.counts, self.obj, self.csv = {}, [], {}, 0, None

    # The part (market.c on_save): "TMKT", u32 version 1, u32 site, i64 its time, i64 the
    # grant, f64 p_s, f64 price, u32 n meters x (f64 e, f64 e_last), i64 x 4 counters, i64
    # the price object, i64 the CSV's length; little-endian, doubles by their bits.
    def save_state(self, label, grant):
        self.csv.flush()
        c = self.counts
        return (struct.pack("<4sIIqqddI", b"TMKT", 1, self.site, self.t, grant, self.p_s,
                            self.price, len(self.meters))
                + b"".join(struct.pack("<dd", self.e[m], self.last.get(m, 0.0))
                           for m in self.meters)
                + struct.pack("<6q", c["steps"], c["updates"], self.reflections, c["requests"],
                              self.obj, self.csv.tell()))

    def load_part(self, b):
        """Read the part back: everything or nothing. Returns (the saved grant, CSV length)."""
        n = len(self.meters)
        head = struct.calcsize("<4sIIqqddI")
        if len(b) != head + 16 * n + 48 or b[:4] != b"TMKT":
            raise SystemExit("%s: %s: its part is not a market's of %d meters"
                             % (PROG, self.me.name, n))
        _, version, site, t, g, p_s, price, nm = struct.unpack_from("<4sIIqqddI", b)
        if version != 1 or nm != n or site not in (0, 1, 2):
            raise SystemExit("%s: %s: its part is damaged" % (PROG, self.me.name))
        self.site, self.t, self.p_s, self.price = site, t, p_s, price
        for i, m in enumerate(self.meters):
            self.e[m], self.last[m] = struct.unpack_from("<dd", b, head + 16 * i)
        c = self.counts
        (c["steps"], c["updates"], self.reflections, c["requests"], self.obj,
         pos) = struct.unpack_from("<6q", b, head + 16 * n)
        return g, pos

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
    k = Market(ff.federation, me.name, rti=o.rti, create=True, timeout=60.0, restore=o.restore,
               **ff.join_args())
    k.setup(ff, me)
    k.csv = csv
    counts = k.counts
    counts.update(steps=0, updates=0, requests=0)
    if len(me.outputs) != 1:
        raise SystemExit("%s: %s: expected one output (the price), got %d"
                         % (PROG, me.name, len(me.outputs)))
    out = me.outputs[0]
    k.meters = meters = [(w.cls, w.attr) for w in me.inputs]
    for m in meters:
        k.e[m] = 0.0
    lookahead = ff.t_lookahead if ff.method == "jacobi-naive" else 0

    def advance(ner, t):
        counts["requests"] += 1
        g = k.ner(t) if ner else k.tar(t)
        if k.lost:
            raise SystemExit("%s: %s: %s" % (PROG, me.name, k.lost))
        return g

    def publish(price, ts):
        k.update(k.obj, {out.attr: price}, time=ts)
        counts["updates"] += 1

    t0 = ff.t_start
    step = k.ticks(o.period)
    after = lookahead if lookahead > 0 else 1
    resumed = k.restored is not None
    if resumed:  # the RTI gave back the declarations, the object, the times and the request
        g, pos = k.load_part(k.restored[2])
        k.adopt(k.obj, out.cls)
        csv.truncate(pos)
        csv.seek(pos)
    else:
        k.publish_object_class(out.cls, [out.attr])
        k.obj = k.register_object(out.cls, me.name)
        for cls, attr in meters:
            k.subscribe_object_class(cls, [attr])
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
        k.price = price_of(o, 0.0)
        if lookahead == 0:
            publish(k.price, t0)
        k.site, k.t = 0, t0
        g = advance(False, t0)
    if k.site == 0:
        csv.write("%.15g,%.17g,%.17g,%.17g\n" % (k.seconds(t0), k.price, 0.0, 0.0))
        k.last = dict(k.e)
        k.p_s = 0.0
        k.t = t0 + step
        resumed = False
    while k.t <= ff.t_end:
        t = k.t
        k.site = 1
        if not resumed or g < t:
            g = advance(True, t)
            while g < t:
                g = advance(True, t)  # a house's update: recorded by on_reflect
        resumed = False
        kwh = 0.0
        for m in meters:
            kwh += k.e[m] - k.last[m]
            k.last[m] = k.e[m]
        p_avg = kwh * 3.6e6 / (o.period * len(meters)) if meters else 0.0
        k.p_s += o.alpha * (p_avg - k.p_s)
        k.price = price_of(o, k.p_s)
        csv.write("%.15g,%.17g,%.17g,%.17g\n" % (k.seconds(t), k.price, p_avg, k.p_s))
        if t + after <= ff.t_end:
            publish(k.price, t + after)
        counts["steps"] += 1
        print("progress %.17g %.17g" % (k.seconds(t), ff.end))
        k.t += step
    # An end between two periods: every other federate's last request reaches the end, which
    # needs the market's promise past its last period, so it advances there too (site 2; the
    # CSV gets no row: no period ended there)
    if k.t - step < ff.t_end:
        k.site = 2
        if not resumed or g < ff.t_end:
            g = advance(True, ff.t_end)
            while g < ff.t_end:
                g = advance(True, ff.t_end)
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
    ap.add_argument("--restore", action="store_true",
                    help="rejoin a federation restored from a checkpoint (tempo-run --resume)")
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
        # a restored run continues the file at the saved length (run)
        with open(path, "r+" if o.restore else "w") as csv:
            if not o.restore:
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
