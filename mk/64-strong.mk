# mk/64-strong.mk: strong coupling run by tempo-master (federate/master/master_strong.c,
# doc/algorithms/strong-coupling.md) over FMU slaves, and its tests. The algorithm itself and
# its fake-slave test are in mk/63-semi.mk. See the Makefile header for the variables.
MASTER_SRCS += federate/master/master_strong.c
# One process, distributed and tempo-run give the same bits; eq. 5.19 over the RTI; a slave
# killed mid-solve; a co-simulation-only FMU refused.
INTEG_SCRIPTS += tests/integration/strong_run.sh
