# mk/10-fom.mk: the FOM reader fom/ (libxml2 only; doc/fom.md) and its tests.
# See the Makefile header for the variables this fragment fills in.
FOM_SRCS += fom/fom.c
UNIT_TESTS += tests/unit/fom_test
fom_test_LIBS := fom
FUZZ_TARGETS += tests/fuzz/fom_fuzz
