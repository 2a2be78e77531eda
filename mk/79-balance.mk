# mk/79-balance.mk: the methods "balance" (the explicit master with the coupling layer) and
# "energy" (negotiated power exchange) in federation files, run by tempo-master
# (doc/algorithms/balance-correction.md, doc/algorithms/energy-balance.md). The algorithms
# themselves are in mk/60-algorithms.mk. See the Makefile header for the variables.
CONFIG_SRCS += federate/config/fedfile_balance.c
INTEG_SCRIPTS += tests/integration/balance_run.sh
# The case studies (examples/*_balance.json, examples/springmass_energy.json): every variant of
# a file run in one process, figures and plots (tempo-example-balance; doc/algorithms/).
PROGS += tempo-example-balance
tempo-example-balance_SRCS := examples/balance_cases.c
tempo-example-balance_LIBS := run config fmu algo fom
INTEG_SCRIPTS += tests/integration/balance_cases.sh
# The settings' reader over the example files (they name the FMUs, which must exist).
UNIT_TESTS += tests/unit/fedfile_balance_test
fedfile_balance_test_LIBS := config fmu algo fom
$(O)/tests/unit/fedfile_balance_test: build/fmus/spring_me.fmu build/fmus/mass_me.fmu
