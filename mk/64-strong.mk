# mk/64-strong.mk: strong coupling run by tempo-master (federate/config/algo_strong.c,
# doc/algorithms/strong-coupling.md) over FMU slaves, and its tests. The algorithm itself and
# its fake-slave test are in mk/63-semi.mk. See the Makefile header for the variables.
# One process, distributed and tempo-run give the same bits; eq. 5.19 over the RTI; a slave
# killed mid-solve; a co-simulation-only FMU refused.
INTEG_SCRIPTS += tests/integration/strong_run.sh
CHECK_TESTS += tests/integration/strong_run.sh
# The FMU slave as an evaluator, the "strong" settings, the Lorenz, Lotka-Volterra and Van der
# Pol cases against the monolithic FMUs.
UNIT_TESTS += tests/unit/strong_fmu_test
strong_fmu_test_LIBS := run config fmu algo fom
$(O)/tests/unit/strong_fmu_test: build/fmus/lorenz_me.fmu build/fmus/lorenz_x_me.fmu \
  build/fmus/lorenz_yz_me.fmu build/fmus/lorenz_yz_cs.fmu build/fmus/lv_me.fmu \
  build/fmus/lv_prey_me.fmu build/fmus/lv_predator_me.fmu build/fmus/vanderpol_me.fmu \
  build/fmus/vdp_x_me.fmu build/fmus/vdp_y_me.fmu
# make bench: RHS rounds per second over 2 and 8 slaves beside the RO round trip.
BENCHES += tests/bench/strong_bench
strong_bench_LIBS := client proto fom
