# mk/05-checks.mk: checks of the tree itself, run by `make test`: the formatting of every C
# file (tests/check_format.sh; `make format` rewrites what it would change) and the tests of
# the layer check that `make layers` runs (tests/layers_test.sh, of tests/check_layers.sh).
# See the Makefile header for the variables this fragment fills in.
INTEG_SCRIPTS += tests/check_format.sh tests/layers_test.sh
# The formatting check is quick: `make check` runs it too (CHECK_TESTS, the Makefile header).
CHECK_TESTS += tests/check_format.sh

.PHONY: format
format:
	@tests/check_format.sh --fix
