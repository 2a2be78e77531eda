# mk/35-tm.mk: time management engine (rti/tm/, doc/time.md), its conformance, unit and
# integration tests and its benchmarks. See the Makefile header for the variables.
# The engine's objects go into the server library (tempo-rti) and, the same objects, into
# librti_tm.a, which the engine's own tests link (doc/contributing.md §15: they see its insides
# through rti/tm/tm_test.h, never by including tm.c). The engine uses rti/proto (libcommon).
TM_SRCS := rti/tm/tm.c rti/tm/tm_reason.c
RTISRV_SRCS += $(TM_SRCS)

LIB_RTI_TM := $(O)/librti_tm.a
$(LIB_RTI_TM): $(patsubst %.c,$(O)/%.o,$(TM_SRCS))
	@mkdir -p $(@D)
	@rm -f $@.$$$$; ar rcs $@.$$$$ $^ && mv -f $@.$$$$ $@

CONF_TESTS += tests/conformance/tm_scenarios_test
tm_scenarios_test_LIBS := rti_tm common
CONF_TESTS += tests/conformance/tm_random_test
tm_random_test_LIBS := rti_tm common
UNIT_TESTS += tests/unit/tm_bound_test
tm_bound_test_LIBS := rti_tm common
UNIT_TESTS += tests/unit/tm_fault_test
tm_fault_test_LIBS := rti_tm common

INTEG_TESTS += tests/integration/tm_patterns_test
tm_patterns_test_LIBS := client common fom

BENCHES += tests/bench/bench_tm
bench_tm_LIBS := rti_tm client common fom
