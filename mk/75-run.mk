# mk/75-run.mk: tempo-run, federate/run/ (doc/run.md): process supervision, per-federate CSV
# results, SVG plots, progress display, and the program.
# See the Makefile header for the variables this fragment fills in.
RUN_SRCS += federate/run/supervise.c federate/run/results.c federate/run/plot_svg.c federate/run/progress.c \
            federate/run/run_err.c

UNIT_TESTS += tests/unit/supervise_test tests/unit/results_test tests/unit/plot_test \
              tests/unit/progress_test
supervise_test_LIBS := run
results_test_LIBS := run fmu algo
plot_test_LIBS := run fmu algo
progress_test_LIBS := run

# The program: assembles the pieces above with the federation file and tempo-fmu.
PROGS += tempo-run
tempo-run_SRCS := federate/run/tempo_run_main.c
tempo-run_LIBS := run config fmu algo fom
# End-to-end tests of tempo-run and the case studies of examples/ (they need bin/ and the
# example FMUs, which `make test` builds first).
INTEG_SCRIPTS += tests/integration/run_errors.sh tests/integration/run_cases.sh
# recording a run, the first failure named, exit() mid-run, the no-progress watchdog
INTEG_SCRIPTS += tests/integration/run_debug.sh
