# mk/70-config.mk: the federation file federate/config/ (doc/federation.md) and its test.
# See the Makefile header for the variables this fragment fills in.
CONFIG_SRCS += federate/config/fedfile.c federate/config/fedfile_algos.c federate/config/fedfile_ckpt.c \
               federate/config/fedfile_keys.c
CONFIG_SRCS += federate/config/ssp.c federate/config/ssp_wire.c federate/config/ssp_params.c \
               federate/config/ssp_pkg.c \
               federate/config/ssp_export.c
# Every coupling algorithm's value (federate/config/fedfile_algo.h): one file each, found by
# name, so that a new algorithm adds its file and its line of fedfile_algos.c only.
CONFIG_SRCS += $(sort $(wildcard federate/config/algo_*.c))

UNIT_TESTS += tests/unit/fedfile_test
fedfile_test_LIBS := config fmu algo fom
INTEG_SCRIPTS += tests/integration/ssp_test.sh
INTEG_SCRIPTS += tests/integration/ssp_tools_test.sh
# quick (about 10 s), and the first to run SSP systems through tempo-run (the shapes of other
# tools, nested packages, checkpoints)
CHECK_TESTS += tests/integration/ssp_tools_test.sh
# A throwaway algorithm added to a copy of the tree touches only its files and one table line,
# builds, is listed, parses its key and runs the same in process and distributed.
INTEG_SCRIPTS += tests/integration/new_algo.sh

UNIT_TESTS += tests/unit/ssp_test
ssp_test_LIBS := config fmu algo fom
