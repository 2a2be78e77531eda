#!/usr/bin/env python3
"""Example federate "consumer" in Python: examples/consumer.c line for line. Subscribes the
Signal of the producer under time constraint, so it sees each sample in time-stamp order at
the logical time it was sent for, and answers the first sample above 0.5 with a Command.

usage: consumer.py [--rti ADDR] [--federation NAME] [--name NAME] [--fom PATH]
"""
import argparse
import os
import sys

try:
    import tempo
except ImportError:  # run from the source tree without PYTHONPATH=python
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    import tempo


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rti", default="127.0.0.1:7470")
    ap.add_argument("--federation", default="demo")
    ap.add_argument("--name", default="consumer")
    ap.add_argument("--fom", default="fom/demo.xml")
    o = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    state = {"removed": False, "commanded": False, "reflections": 0}

    # Callbacks as plain functions, given at join: they run inside the evoking calls.
    def on_discover(ev):
        print('consumer: discovered %s "%s" (object %d, owner %d)'
              % (ev.object_class, ev.name, ev.object, ev.sender))

    def on_reflect(ev):
        x = ev.values.get("value", 0.0)
        state["reflections"] += 1
        print("consumer: t=%.1f s (%s, my time %.1f s) %s: value=%.4f, %d in history"
              % (f.seconds(ev.time), "TSO" if ev.order == tempo.TIMESTAMP_ORDER else "RO",
                 f.seconds(f.logical_time), ev.values.get("label", ""), x,
                 len(ev.values.get("history", []))))
        if x > 0.5 and not state["commanded"]:
            # Receive-order interaction (no time stamp): delivered at once.
            f.send_interaction("Command", {"gain": 0.5, "enabled": True, "note": "value above 0.5"})
            state["commanded"] = True

    def on_remove(ev):
        state["removed"] = True
        print("consumer: object %d removed by federate %d" % (ev.object, ev.sender))

    try:
        # 1. Join (create=True makes the order of the two programs free).
        f = tempo.Federate(o.federation, o.name, fom=o.fom, rti=o.rti,
                           on={"discover": on_discover, "reflect": on_reflect, "remove": on_remove})
        # 2. Declarations: we read Signal and send Command.
        f.subscribe_object_class("Signal", ["value", "label", "history"])
        f.publish_interaction_class("Command")
        # 3. Time-constrained: updates arrive in time-stamp order, never in our past.
        f.enable_constrained()
        # 4. Meet the producer at "start".
        f.sync("start")
        # 5. Advance in steps of 0.1 s until the producer deletes its object.
        step, now = f.ticks(0.1), 0
        while not state["removed"]:
            now = f.tar(tempo.time_add(now, step))
        f.resign()
        f.close()
    except tempo.TempoError as e:
        print("consumer: %s" % e, file=sys.stderr)
        return 1
    print("consumer: done, %d updates reflected" % state["reflections"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
