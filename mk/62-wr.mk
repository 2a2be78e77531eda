# mk/62-wr.mk: waveform relaxation (algorithms/wr.c, doc/algorithms/waveform-relaxation.md), its
# unit tests over closed-form fakes, and its in-process runs over the example FMUs.
# See the Makefile header for the variables this fragment fills in.

UNIT_TESTS += tests/unit/wr_test
wr_test_LIBS := algo

# The case studies over real FMUs in one process (examples/*_wr.json) and rollback exactness.
UNIT_TESTS += tests/unit/wr_fmu_test
wr_fmu_test_LIBS := run config fmu algo fom
WR_TEST_FMUS := $(foreach m,lorenz lorenz_x lorenz_yz lv lv_prey lv_predator vanderpol vdp_x vdp_y,\
                  build/fmus/$(m)_me.fmu build/fmus/$(m)_cs.fmu)
$(O)/tests/unit/wr_fmu_test: $(WR_TEST_FMUS)
# WR iterations per second for 2 and 8 slaves in one process, beside the bare port loop.
BENCHES += tests/bench/wr_bench
wr_bench_LIBS := run config fmu algo fom
$(O)/tests/bench/wr_bench: $(WR_TEST_FMUS)
# The same distributed (tempo-master, tempo-fmu slaves, tempo-rti), as a multiple of the
# receive-order round trip measured in the same run.
BENCHES += tests/bench/wr_dist_bench
wr_dist_bench_LIBS := client proto fom
