# mk/77-fmufed.mk: the FMU federate federate/fmufed/ (doc/fmu.md): set-up, wiring and
# recording (fmufed.c), the algorithms (fmufed_jacobi.c, fmufed_de.c, fmufed_gs.c), its command
# line (tempo-fmu --federation, fmufed_cli.c; the program is in mk/50-fmu.mk), and integration
# tests running real federations on the example FMUs.
# See the Makefile header for the variables this fragment fills in.
FMUFED_SRCS += federate/fmufed/fmufed.c federate/fmufed/fmufed_jacobi.c federate/fmufed/fmufed_de.c \
               federate/fmufed/fmufed_gs.c federate/fmufed/fmufed_cli.c federate/fmufed/fmufed_slave.c

INTEG_TESTS += tests/integration/fmufed_lv_test
fmufed_lv_test_LIBS := run fmu client proto fom
INTEG_SCRIPTS += tests/integration/fmufed_errors.sh
BENCHES += tests/bench/fmufed_bench
fmufed_bench_LIBS := fmu client proto fom
INTEG_TESTS += tests/integration/fmufed_osc_test
fmufed_osc_test_LIBS := run fmu client proto fom
