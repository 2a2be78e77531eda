#!/usr/bin/env bash
# The second half of tests/integration/inproc_examples.sh (--part 2: the even-numbered example
# files), a program of its own so that tests/run.sh runs it beside the first half
# (doc/contributing.md §16). Prints "N passed, N failed".
exec "$(dirname "$0")/inproc_examples.sh" --part 2
