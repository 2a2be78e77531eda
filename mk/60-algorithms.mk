# mk/60-algorithms.mk: coupling algorithms in plain C (libc + libm only), owned by H7.
# See the Makefile header for the variables this fragment fills in.
ALGO_SRCS += algorithms/port.c algorithms/quantize.c algorithms/extrap.c algorithms/topology.c \
             algorithms/peer.c algorithms/jacobi.c algorithms/jacobi_de.c algorithms/gauss_seidel.c

UNIT_TESTS += tests/unit/quantize_test tests/unit/extrap_test tests/unit/topology_test
quantize_test_LIBS := algo
extrap_test_LIBS := algo
topology_test_LIBS := algo
UNIT_TESTS += tests/unit/port_test
port_test_LIBS := algo
UNIT_TESTS += tests/unit/peer_algos_test
peer_algos_test_LIBS := algo
