# mk/80-flog.mk: the federation log (DESIGN.md §9, doc/log.md): writer and reader in the
# server library, the tempo-log tool, tests and the reader's fuzz target. Owner: H8.
# See the Makefile header for the variables this fragment fills in.
RTISRV_SRCS += rti/flog.c rti/flog_read.c

#WIP PROGS += tempo-log
tempo-log_SRCS := rti/tlog_main.c rti/tlog_util.c rti/tlog_show.c rti/tlog_json.c \
                  rti/tlog_stats.c rti/tlog_trace.c rti/tlog_csv.c rti/tlog_explain.c
tempo-log_LIBS := rtisrv common fom

#WIP UNIT_TESTS += tests/unit/flog_test
flog_test_LIBS := rtisrv common fom

# The tool's test writes logs with the writer and runs the tempo-log of the same build on
# them (the sanitized test runs the sanitized tool).
#WIP UNIT_TESTS += tests/unit/tlog_cli_test
tlog_cli_test_LIBS := rtisrv common fom
$(O)/tests/unit/tlog_cli_test: $(BINDIR)/tempo-log
$(O)/tests/unit/tlog_cli_test.o: ALL_CFLAGS += -DTLOG_BIN='"$(BINDIR)/tempo-log"'

# The reader uses only libc: the fuzz builds (which link FOM/COMMON/FMU sources only) get it
# added here.
#WIP FUZZ_TARGETS += tests/fuzz/flog_fuzz
build/fuzz/flog_fuzz: COMMON_SRCS += rti/flog_read.c
$(O)/tests/fuzz/flog_fuzz_replay: $(O)/rti/flog_read.o
