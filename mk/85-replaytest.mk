# mk/85-replaytest.mk: the replay test on a recorded Jacobi federation of FMU federates
# (doc/log.md "replay"): tempo-rti --log, tempo-run, then tempo-log replay of tempo-fmu
# federates, unchanged and changed.
# See the Makefile header for the variables this fragment fills in.
INTEG_SCRIPTS += tests/integration/tlog_jacobi.sh
CHECK_TESTS += tests/integration/tlog_jacobi.sh
