# mk/63-semi.mk: semi-implicit coupling with quasi-Newton (algorithms/semi.c,
# doc/algorithms/semi-implicit.md) and its unit tests over closed-form fakes.
# See the Makefile header for the variables this fragment fills in.
ALGO_SRCS += algorithms/semi.c

UNIT_TESTS += tests/unit/semi_test
semi_test_LIBS := algo
