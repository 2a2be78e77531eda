# mk/30-rti.mk: the RTI server (rti/, DESIGN.md §3, §6, §10). Owner: H2.
# Server modules go to librtisrv.a (rti/tm.* is added by mk/35-tm.mk); rti/main.c is only
# the program's entry. Integration tests start bin/tempo-rti on an ephemeral port.
RTISRV_SRCS += rti/log.c rti/conn.c rti/server.c rti/federation.c rti/dm.c rti/om.c \
               rti/sync.c rti/timesvc.c
PROGS += tempo-rti
tempo-rti_SRCS := rti/main.c
tempo-rti_LIBS := rtisrv common fom
INTEG_TESTS += tests/integration/rti_robust_test
rti_robust_test_LIBS := common fom
INTEG_TESTS += tests/integration/rti_fed_test
rti_fed_test_LIBS := common fom
