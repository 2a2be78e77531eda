# mk/35-tm.mk: time management engine (rti/tm/tm.c, doc/time.md), its conformance, unit and
# integration tests and its benchmarks. See the Makefile header for the variables.
# The engine's own tests compile rti/tm/tm.c into themselves (#include); the integration test
# and the benchmark run against bin/tempo-rti through libtempo.
TM_SRCS += rti/tm/tm.c

CONF_TESTS += tests/conformance/tm_scenarios_test
tm_scenarios_test_LIBS := fom
CONF_TESTS += tests/conformance/tm_random_test
tm_random_test_LIBS := fom
UNIT_TESTS += tests/unit/tm_bound_test
tm_bound_test_LIBS := fom
UNIT_TESTS += tests/unit/tm_fault_test
tm_fault_test_LIBS := fom

INTEG_TESTS += tests/integration/tm_patterns_test
tm_patterns_test_LIBS := client proto fom

BENCHES += tests/bench/bench_tm
bench_tm_LIBS := client proto fom
