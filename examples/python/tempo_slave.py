#!/usr/bin/env python3
"""A model written in Python as a slave of a master method (tempo.slave, doc/python.md): the
program a federation file names, with the model as its first argument:

    { "name": "integ", "program": "../examples/python/tempo_slave.py",
      "args": ["models:Integrator", "k=2"], "inputs": {...}, "outputs": {...} }
"""
import os
import sys

try:
    import tempo.slave
except ImportError:  # run from the source tree without PYTHONPATH=python
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    import tempo.slave
# the example models beside this file
sys.path.append(os.path.dirname(os.path.abspath(__file__)))

if __name__ == "__main__":
    sys.exit(tempo.slave.main())
