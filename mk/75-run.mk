# mk/75-run.mk: tempo-run, federate/run/ (doc/run.md): process supervision, per-federate CSV
# results, SVG plots, progress display, and the program.
# See the Makefile header for the variables this fragment fills in.
RUN_SRCS += federate/run/supervise.c federate/run/results.c federate/run/plot_svg.c federate/run/progress.c \
            federate/run/run_err.c federate/run/run_secret.c federate/run/run_check.c \
            federate/run/run_params.c federate/run/run_ckpt.c federate/run/run_prof.c

UNIT_TESTS += tests/unit/supervise_test tests/unit/results_test tests/unit/plot_test \
              tests/unit/progress_test tests/unit/run_prof_test
supervise_test_LIBS := run
run_prof_test_LIBS := run proto
results_test_LIBS := run fmu algo
plot_test_LIBS := run fmu algo
progress_test_LIBS := run
# The CSV writer's cost per row and of its time-bounded flush (make bench).
BENCHES += tests/bench/results_bench
results_bench_LIBS := run fmu algo

# The program: assembles the pieces above with the federation file and tempo-fmu.
PROGS += tempo-run
tempo-run_SRCS := federate/run/tempo_run_main.c
tempo-run_LIBS := run config fmu algo client proto fom
# End-to-end tests of tempo-run and the case studies of examples/ (they need bin/ and the
# example FMUs, which `make test` builds first).
INTEG_SCRIPTS += tests/integration/run_errors.sh tests/integration/run_cases.sh
# The shared secret through tempo-rti, tempo-run, tempo-fmu and tempo-master.
INTEG_SCRIPTS += tests/integration/run_secret.sh
# What tempo-run refuses before starting anything, and the lock of its output folder.
INTEG_SCRIPTS += tests/integration/run_preflight.sh
# Federates killed, stopped or slowed at random under tempo-run (bounded: 5 short rounds).
INTEG_SCRIPTS += tests/integration/run_chaos.sh
# Two hosts as network namespaces joined by a veth pair (root; skipped otherwise).
INTEG_SCRIPTS += tests/integration/run_netns.sh
# recording a run, the first failure named, exit() mid-run, the no-progress watchdog
INTEG_SCRIPTS += tests/integration/run_debug.sh
INTEG_SCRIPTS += tests/integration/fault_matrix.sh
# Secrets never stored and output private; output files never through links (doc/log.md
# "Secrets", doc/run.md "Output files").
INTEG_SCRIPTS += tests/integration/run_private.sh tests/integration/run_links.sh
# Recording less: "record": [] and "record_every" (doc/federation.md "Recording less").
INTEG_SCRIPTS += tests/integration/record_less.sh
CHECK_TESTS += tests/integration/record_less.sh
# tempo-run --profile: where each federate's time goes (doc/run.md "Where the time goes").
INTEG_SCRIPTS += tests/integration/run_profile.sh
CHECK_TESTS += tests/integration/run_profile.sh
