#!/usr/bin/env bash
# The long half of the integer-tick test (tests/integration/ticks_end.sh --long: the 10^6-step
# runs, balance and energy), a program of its own so that tests/run.sh runs it beside the
# other half (doc/contributing.md §16). Prints "N passed, N failed".
exec "$(dirname "$0")/ticks_end.sh" --long
