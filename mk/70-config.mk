# mk/70-config.mk: the federation file federate/config/ (doc/federation.md) and its test.
# See the Makefile header for the variables this fragment fills in.
CONFIG_SRCS += federate/config/fedfile.c federate/config/fedfile_algos.c
CONFIG_SRCS += federate/config/ssp.c federate/config/ssp_params.c federate/config/ssp_export.c

UNIT_TESTS += tests/unit/fedfile_test
fedfile_test_LIBS := config fmu algo fom
INTEG_SCRIPTS += tests/integration/ssp_test.sh

UNIT_TESTS += tests/unit/ssp_test
ssp_test_LIBS := config fmu algo fom
