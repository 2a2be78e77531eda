# mk/60-algorithms.mk: the coupling algorithms algorithms/ (libc + libm only; doc/algorithms/).
# See the Makefile header for the variables this fragment fills in.
ALGO_SRCS += algorithms/port.c algorithms/quantize.c algorithms/extrap.c algorithms/topology.c

UNIT_TESTS += tests/unit/quantize_test tests/unit/extrap_test tests/unit/topology_test
quantize_test_LIBS := algo
extrap_test_LIBS := algo
topology_test_LIBS := algo
