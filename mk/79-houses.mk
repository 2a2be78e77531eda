# mk/79-houses.mk: the smart-grid case (doc/cases/houses.md): the market, a custom federate
# written against libtempo that tempo-run starts as a "program" federate, and the case's
# reference and comparison program. The house and environment FMUs are in mk/55-fmus.mk.
PROGS += tempo-example-market
tempo-example-market_SRCS := examples/houses/market.c
tempo-example-market_LIBS := run config fmu algo client proto fom
PROGS += tempo-example-houses
tempo-example-houses_SRCS := examples/houses/houses.c
tempo-example-houses_LIBS := run config fmu algo fom
UNIT_TESTS += tests/unit/houses_fmu_test
houses_fmu_test_LIBS := fmu algo
$(O)/tests/unit/houses_fmu_test: $(FMU_DIR)/house_cs.fmu $(FMU_DIR)/house_me.fmu \
                                 $(FMU_DIR)/environment_cs.fmu
INTEG_SCRIPTS += tests/integration/houses_test.sh
# One checkpoint's time and size: houses at 64 and 256, a 16-federate Jacobi federation.
BENCH_SCRIPTS += tests/bench/ckpt_bench.sh
BENCH_SCRIPTS += tests/bench/houses_bench.sh
