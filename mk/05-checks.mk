# mk/05-checks.mk: checks of the tree itself, run by `make test`: the tests of the layer check
# that `make layers` runs (tests/layers_test.sh, of tests/check_layers.sh).
# See the Makefile header for the variables this fragment fills in.
INTEG_SCRIPTS += tests/layers_test.sh
