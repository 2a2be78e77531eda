# mk/70-federates.mk: federate glue shared by tempo-fmu, tempo-master, tempo-run (H7 so far:
# the federation file reader). See the Makefile header for the variables this fragment fills in.
FED_SRCS += federate/config/fedfile.c federate/config/fedfile_algos.c

UNIT_TESTS += tests/unit/fedfile_test
fedfile_test_LIBS := fed algo fom
