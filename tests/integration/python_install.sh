#!/usr/bin/env bash
# The Python package's suite on an installed copy (make install into a temporary prefix) and
# `pip install ./python` offline: the second half of tests/integration/python_test.sh, which
# runs the build tree's (doc/python.md "Tests and figures"). Prints "N passed, N failed" last.
PYTHON_TEST_PART=installed exec "$(dirname "$0")/python_test.sh"
