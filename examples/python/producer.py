#!/usr/bin/env python3
"""Example federate "producer" in Python: examples/producer.c line for line (doc/guide.md walks
through the C; doc/python.md through this one). Publishes a time-stamped sine signal (object
class Signal of fom/demo.xml) under time regulation and prints the Command it receives.

usage: producer.py [--rti ADDR] [--federation NAME] [--fom PATH] [--steps N] [--peers N]
"""
import argparse
import math
import os
import sys

try:
    import tempo
except ImportError:  # run from the source tree without PYTHONPATH=python
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    import tempo


class Producer(tempo.Federate):
    """The callbacks are methods: on_<kind>(event); they run inside the evoking calls."""

    peers = commands = left = 0

    def on_federate_joined(self, ev):
        self.peers += 1
        print("producer: federate %s (handle %d) joined" % (ev.name, ev.sender))

    def on_federate_resigned(self, ev):
        self.left += 1
        print("producer: federate %s left (%s)" % (ev.name, ev.message))

    def on_receive(self, ev):
        p = ev.values
        self.commands += 1
        print('producer: Command from federate %d: gain=%g enabled=%d note="%s"'
              % (ev.sender, p.get("gain", 0), p.get("enabled", False), p.get("note", "")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rti", default="127.0.0.1:7470")
    ap.add_argument("--federation", default="demo")
    ap.add_argument("--fom", default="fom/demo.xml")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--peers", type=int, default=1)
    o = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    try:
        # 1. Join, creating the federation if it does not exist yet.
        f = Producer(o.federation, "producer", fom=o.fom, rti=o.rti, create=True)
        # 2.-3. Declare by name (handles are looked up in the FOM) and register our object.
        f.publish_object_class("Signal", ["value", "label", "history"])
        f.subscribe_interaction_class("Command")
        obj = f.register_object("Signal", "sine")
        # 4. Time: one step is 0.1 s; we promise never to send less than a step ahead.
        step = f.ticks(0.1)
        f.enable_regulation(step)
        # 5. Start together: wait for the consumer, then meet at "start".
        print("producer: joined as federate %d, waiting for %d peer(s)" % (f.handle, o.peers))
        while f.peers < o.peers:
            f.evoke(None)
        f.register_sync("start")
        f.sync("start")
        # 6. The loop: send the value for T + step, stamped T + step, then advance to it.
        hist, max_sent, now = [0.0] * 4, -1.0, 0
        for k in range(1, o.steps + 1):
            t = tempo.time_add(now, step)
            x = math.sin(f.seconds(t))
            hist = [x] + hist[:3]
            max_sent = max(max_sent, x)
            f.update(obj, {"value": x, "label": "sample %d" % k, "history": hist}, time=t)
            print("producer: t=%.1f s sent value=%.4f" % (f.seconds(t), x))
            now = f.tar(t)
        # 7. Wait for the consumer's Command (or for a peer to leave).
        while max_sent > 0.5 and f.commands == 0 and f.left == 0:
            f.evoke(None)
        # 8. Leave: delete our object, stamped like an update, then resign.
        f.delete_object(obj, tempo.time_add(now, step))
        f.resign()
        f.close()
    except tempo.TempoError as e:
        print("producer: %s" % e, file=sys.stderr)
        return 1
    print("producer: done after %d steps" % o.steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
