# mk/80-flog.mk: the federation log (doc/log.md, doc/log.md): writer and reader in the
# server library, the tempo-log tool, tests and the reader's fuzz target.
# See the Makefile header for the variables this fragment fills in.
RTISRV_SRCS += rti/flog/flog.c rti/flog/flog_read.c

PROGS += tempo-log
# The tool links the log and time-management objects directly instead of librtisrv.a, so
# that it builds while the rest of the server is being written (it needs nothing else).
tempo-log_SRCS := rti/tlog/tlog_main.c rti/tlog/tlog_util.c rti/tlog/tlog_show.c rti/tlog/tlog_json.c \
                  rti/tlog/tlog_stats.c rti/tlog/tlog_trace.c rti/tlog/tlog_csv.c rti/tlog/tlog_explain.c \
                  rti/tlog/tlog_replay.c \
                  rti/flog/flog.c rti/flog/flog_read.c rti/tm/tm.c rti/tm/tm_reason.c
tempo-log_LIBS := common fom

# Same reason: the writer/reader objects are linked directly (then libcommon.a again,
# which they use), with the time management whose wording flog_grant_text borrows.
UNIT_TESTS += tests/unit/flog_test
flog_test_LIBS := common fom
FLOG_OBJS = $(O)/rti/flog/flog.o $(O)/rti/flog/flog_read.o $(O)/rti/tm/tm.o $(O)/rti/tm/tm_reason.o
$(O)/tests/unit/flog_test: $(FLOG_OBJS)
$(O)/tests/unit/flog_test: private LDFLAGS += $(FLOG_OBJS) $(O)/libcommon.a

# The tool's test writes logs with the writer and runs the tempo-log of the same build on
# them (the sanitized test runs the sanitized tool).
UNIT_TESTS += tests/unit/tlog_cli_test
tlog_cli_test_LIBS := common fom
$(O)/tests/unit/tlog_cli_test: $(FLOG_OBJS)
$(O)/tests/unit/tlog_cli_test: private LDFLAGS += $(FLOG_OBJS) $(O)/libcommon.a
# (BINDIR is set after the fragments are read, so the same rule is spelled out here.)
TLOG_BIN := $(if $(filter release,$(BUILD)),bin,$(O)/bin)/tempo-log
$(O)/tests/unit/tlog_cli_test: $(TLOG_BIN)
$(O)/tests/unit/tlog_cli_test.o: private ALL_CFLAGS += -DTLOG_BIN='"$(TLOG_BIN)"'

# The reader uses only libc and rti/proto (libcommon): the fuzz builds (which link FOM/COMMON/FMU sources only) get it
# added here.
FUZZ_TARGETS += tests/fuzz/flog_fuzz
build/fuzz/flog_fuzz: private COMMON_SRCS += rti/flog/flog_read.c
# (a target-specific variable does not reach the prerequisites: name the reader there too)
build/fuzz/flog_fuzz: rti/flog/flog_read.c rti/flog/flog.h rti/tm/tm.h
$(O)/tests/fuzz/flog_fuzz_replay: $(O)/rti/flog/flog_read.o
# (linked after the archives: libcommon again for the delivery rules it names)
$(O)/tests/fuzz/flog_fuzz_replay: private LDFLAGS += $(O)/libcommon.a

# tempo-log against a log written by the real RTI, with the example federates and replay.
INTEG_SCRIPTS += tests/integration/tlog_e2e.sh
INTEG_SCRIPTS += tests/integration/tlog_fanout.sh
