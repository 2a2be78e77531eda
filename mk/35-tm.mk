# mk/35-tm.mk: time management engine (rti/tm.c, DESIGN.md §5), its conformance tests,
# integration tests and benchmarks. Owner: H4. See the Makefile header for the variables.
RTISRV_SRCS += rti/tm.c
CONF_TESTS += tests/conformance/tm_scenarios_test
tm_scenarios_test_LIBS := rtisrv
CONF_TESTS += tests/conformance/tm_random_test
tm_random_test_LIBS := rtisrv
