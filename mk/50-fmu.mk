# mk/50-fmu.mk: the FMI 2.0 and 3.0 host federate/fmu/ (doc/fmu.md): loader, CS and ME (CVODE)
# stepping behind one interface (federate/fmu/fmu_step.h), and the program tempo-fmu
# (--simulate, --info; --federation is the FMU federate of mk/77-fmufed.mk).
# See the Makefile header for the variables this fragment fills in.
FMU_SRCS += federate/fmu/fmu_slave.c federate/fmu/fmu_md.c federate/fmu/fmu_zip.c federate/fmu/fmu_load.c \
            federate/fmu/fmu_step.c federate/fmu/fmu_cs.c federate/fmu/fmu_me.c federate/fmu/fmu_sim.c \
            federate/fmu/fmu_info.c federate/fmu/fmu_guard.c federate/fmu/fmu_md3.c \
            federate/fmu/fmu_v3.c

PROGS += tempo-fmu
# rti/server/live_embed.c: the live view of its embedded RTI (--http, doc/live.md)
tempo-fmu_SRCS := federate/fmufed/tempo_fmu_main.c rti/server/live_embed.c
tempo-fmu_LIBS := fmufed msproto run config fmu algo client proto fom

UNIT_TESTS += tests/unit/fmu_md_test tests/unit/fmu_load_test tests/unit/fmu_step_test \
              tests/unit/fmu_sim_test tests/unit/fmu_fault_test tests/unit/fmu_guard_test \
              tests/unit/fmu_ckpt_test tests/unit/fmu_v3_test
fmu_v3_test_LIBS := fmu
fmu_md_test_LIBS := fmu
fmu_load_test_LIBS := fmu
fmu_step_test_LIBS := fmu
fmu_sim_test_LIBS := fmu
fmu_fault_test_LIBS := fmu
fmu_guard_test_LIBS := fmu
fmu_ckpt_test_LIBS := fmu
INTEG_SCRIPTS += tests/integration/fmu_simulate.sh tests/integration/fmu_zip_writers.sh \
                 tests/integration/fmu_cleanup.sh
CHECK_TESTS += tests/integration/fmu_simulate.sh
FUZZ_TARGETS += tests/fuzz/md_fuzz tests/fuzz/zip_fuzz

# Fixture binaries of our own (never sanitized: they are dlopen'ed): one that exports only
# two functions ("missing function" case), one that fails on demand (discard/error paths).
FMU_FIXTURES := build/fmu-fixtures/partial.so build/fmu-fixtures/faulty.so
build/fmu-fixtures/%.so: tests/unit/fmu_fixture_%.c federate/fmu/fmi2.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -O2 -fPIC -fvisibility=hidden -shared -o $@ $<

# The example FMUs (mk/55-fmus.mk) the tests load; listed by name because EXAMPLE_FMUS is set
# by a later fragment.
FMU_TEST_FMUS := $(foreach m,dahlquist vanderpol bouncingball stair mass lv_prey,\
                   build/fmus/$(m)_me.fmu build/fmus/$(m)_cs.fmu)
$(O)/tests/unit/fmu_load_test: $(FMU_FIXTURES) $(FMU_TEST_FMUS) build/fmus/once_cs.fmu
$(O)/tests/unit/fmu_step_test $(O)/tests/unit/fmu_sim_test $(O)/tests/unit/fmu_ckpt_test: $(FMU_TEST_FMUS)
$(O)/tests/unit/fmu_fault_test: $(FMU_FIXTURES)
$(O)/tests/unit/fmu_v3_test: $(FMU_TEST_FMUS) build/fmus/fmi3/feedthrough3.fmu \
    build/fmus/fmi3/statespace3.fmu build/fmus/fmi3/clocks3.fmu \
    build/fmus/fmi3/bouncingball_me.fmu build/fmus/fmi3/bouncingball_cs.fmu \
    build/fmus/fmi3/vanderpol_me.fmu
EXTRA_ALL += $(FMU_FIXTURES)
BENCHES += tests/bench/fmu_bench
fmu_bench_LIBS := fmu
$(O)/tests/bench/fmu_bench: $(FMU_TEST_FMUS)
# The in-process port slave over an FMU (federate/fmu/fmu_slave.c).
UNIT_TESTS += tests/unit/fmu_slave_test
fmu_slave_test_LIBS := fmu algo
$(O)/tests/unit/fmu_slave_test: $(FMU_TEST_FMUS) build/fmus/fmi3/feedthrough3.fmu \
                                 build/fmus/fmi3/statespace3.fmu
