"""The cost of one TAR/grant cycle and of one attribute update from Python through the
package tempo (doc/python.md), the same calls as tests/bench/bench_cycle.c makes from C; run
beside it by tests/bench/python_bench.sh.

usage: python_bench.py RTI FOM N_CYCLES N_UPDATES
prints: "Python RTI: TAR/grant cycle X us, update Y us"
"""
import os
import sys
import time

import tempo


def main():
    rti, fom, cycles, updates = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    f = tempo.Federate("bench-py-%d" % os.getpid(), "py", fom=fom, rti=rti)
    f.publish_object_class("Signal", ["value"])
    obj = f.register_object("Signal")
    f.enable_regulation(1)
    f.enable_constrained()
    t = 0
    t0 = time.perf_counter()
    for _ in range(cycles):
        t = f.tar(t + 1)
    cyc = (time.perf_counter() - t0) / cycles
    t0 = time.perf_counter()
    for i in range(updates):
        f.update(obj, {"value": float(i)}, time=t + 1)
    f.flush()
    upd = (time.perf_counter() - t0) / updates
    print("Python %s: TAR/grant cycle %.2f us, update %.3f us" % (rti, cyc * 1e6, upd * 1e6))
    f.resign()
    f.close()


if __name__ == "__main__":
    main()
