# mk/62-wr.mk: waveform relaxation (algorithms/wr.c, doc/algorithms/waveform-relaxation.md), its
# unit tests over closed-form fakes, and its in-process runs over the example FMUs.
# See the Makefile header for the variables this fragment fills in.
ALGO_SRCS += algorithms/wr.c

UNIT_TESTS += tests/unit/wr_test
wr_test_LIBS := algo
