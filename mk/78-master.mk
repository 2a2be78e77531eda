# mk/78-master.mk: the master-slave protocol (federate/msproto/, one codec and FOM for both
# programs), the master federate tempo-master (federate/master/) and their tests
# (doc/master.md). See the Makefile header for the variables this fragment fills in.
FED_SRCS += federate/msproto/msproto.c federate/config/fedfile_master.c

UNIT_TESTS += tests/unit/msproto_test
msproto_test_LIBS := fed algo fom
ALGO_SRCS += algorithms/msjacobi.c
FED_SRCS += federate/master/ms_remote.c

PROGS += tempo-master
tempo-master_SRCS := federate/master/tempo_master_main.c
tempo-master_LIBS := fed fmu algo client common fom
INTEG_SCRIPTS += tests/integration/master_test.sh
UNIT_TESTS += tests/unit/fedfile_master_test
fedfile_master_test_LIBS := fed algo fom
UNIT_TESTS += tests/unit/msjacobi_test
msjacobi_test_LIBS := algo
