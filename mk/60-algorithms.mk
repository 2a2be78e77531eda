# mk/60-algorithms.mk: coupling algorithms in plain C (libc + libm only), owned by H7.
# See the Makefile header for the variables this fragment fills in.
ALGO_SRCS += algorithms/balance.c algorithms/explicit.c algorithms/energy.c algorithms/port.c algorithms/quantize.c algorithms/extrap.c algorithms/topology.c

UNIT_TESTS += tests/unit/quantize_test tests/unit/extrap_test tests/unit/topology_test
quantize_test_LIBS := algo
extrap_test_LIBS := algo
topology_test_LIBS := algo
UNIT_TESTS += tests/unit/port_test
port_test_LIBS := algo
UNIT_TESTS += tests/unit/balance_test
balance_test_LIBS := algo
# The explicit master over two example FMUs in one process (needs the FMUs and fmu_slave).
UNIT_TESTS += tests/unit/explicit_test
explicit_test_LIBS := fmu algo
$(O)/tests/unit/explicit_test: build/fmus/spring_me.fmu build/fmus/mass_me.fmu
# Negotiated power exchange over the same FMUs (power mode), beside the explicit scheme.
UNIT_TESTS += tests/unit/energy_test
energy_test_LIBS := fmu algo
$(O)/tests/unit/energy_test: build/fmus/spring_me.fmu build/fmus/mass_me.fmu
