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

# The server once more, compiled with ASan + UBSan (LeakSanitizer on), so that the integration
# tests above also check the server's own memory and undefined behaviour: `make test` runs
# tests/integration/rti_san.sh, which reruns them against this binary (TEMPO_RTI_BIN). The
# source list is expanded when the recipe runs, after every fragment (rti/tm.c included).
RTI_SAN_BIN := build/rti-san/tempo-rti
RTI_SAN_SRCS = rti/main.c $(RTISRV_SRCS) $(COMMON_SRCS) $(FOM_SRCS)
$(RTI_SAN_BIN): $(wildcard rti/*.c rti/*.h fom/*.c fom/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	  -fno-sanitize-recover=undefined -o $@ $(RTI_SAN_SRCS) $(ALL_LDLIBS)
EXTRA_ALL += $(RTI_SAN_BIN)
INTEG_SCRIPTS += tests/integration/rti_san.sh
UNIT_TESTS += tests/unit/rti_log_test
rti_log_test_LIBS := rtisrv
INTEG_TESTS += tests/integration/rti_flog_test
rti_flog_test_LIBS := rtisrv common fom
