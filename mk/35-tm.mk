# mk/35-tm.mk: time management engine (rti/tm/, doc/time.md), its conformance, unit and
# integration tests and its benchmarks. See the Makefile header for the variables.
# The engine's own tests link libtm.a, the objects tempo-rti links, and see its insides through
# rti/tm/tm_test.h (doc/contributing.md §15), never by including tm.c.
TM_SRCS += rti/tm/tm.c rti/tm/tm_reason.c rti/tm/tm_wait.c

CONF_TESTS += tests/conformance/tm_scenarios_test
tm_scenarios_test_LIBS := tm proto
CONF_TESTS += tests/conformance/tm_random_test
tm_random_test_LIBS := tm proto
UNIT_TESTS += tests/unit/tm_bound_test
tm_bound_test_LIBS := tm proto
UNIT_TESTS += tests/unit/tm_fault_test
tm_fault_test_LIBS := tm proto
UNIT_TESTS += tests/unit/tm_stall_test
tm_stall_test_LIBS := tm proto

INTEG_TESTS += tests/integration/tm_patterns_test
tm_patterns_test_LIBS := client proto fom
CHECK_TESTS += tests/integration/tm_patterns_test

BENCHES += tests/bench/bench_tm
bench_tm_LIBS := tm client proto fom
UNIT_TESTS += tests/unit/tm_ckpt_test
tm_ckpt_test_LIBS := tm proto
