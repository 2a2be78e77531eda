# mk/78-inproc.mk: the in-process runner (federate/inproc/, its own library): every federate of
# a file in one process over the time-management engine used as a library, and the test that
# runs each peer algorithm both ways and compares the rows bit for bit. See the Makefile header.
INPROC_SRCS += federate/inproc/inproc.c federate/inproc/inproc_tm.c

INTEG_TESTS += tests/integration/inproc_same_test
inproc_same_test_LIBS := inproc fmufed msproto run config fmu algo client tm proto fom
BENCHES += tests/bench/inproc_bench
inproc_bench_LIBS := inproc fmufed msproto run config fmu algo client tm proto fom
# The fault fixture's binary (mk/50-fmu.mk): its FMU is zipped by the test (every type recorded).
$(O)/tests/integration/inproc_same_test: $(FMU_FIXTURES)
