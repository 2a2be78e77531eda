# mk/80-flog.mk: the federation log rti/flog/ (writer and reader, doc/log.md), the tempo-log
# tool rti/tlog/, their tests and the reader's fuzz target.
# See the Makefile header for the variables this fragment fills in.
FLOG_SRCS += rti/flog/flog.c rti/flog/flog_read.c
TLOG_SRCS += rti/tlog/tlog_util.c rti/tlog/tlog_show.c rti/tlog/tlog_json.c rti/tlog/tlog_stats.c \
             rti/tlog/tlog_trace.c rti/tlog/tlog_csv.c rti/tlog/tlog_explain.c rti/tlog/tlog_replay.c

PROGS += tempo-log
tempo-log_SRCS := rti/tlog/tlog_main.c
tempo-log_LIBS := tlog flog tm proto fom

UNIT_TESTS += tests/unit/flog_test
flog_test_LIBS := flog tm proto

# tempo-log's first pass (tlog_load) on logs written with the writer.
UNIT_TESTS += tests/unit/tlog_load_test
tlog_load_test_LIBS := tlog flog tm proto fom

# The tool's test writes logs with the writer and runs the tempo-log of the same build on
# them (the sanitized test runs the sanitized tool).
UNIT_TESTS += tests/unit/tlog_cli_test
tlog_cli_test_LIBS := flog tm proto
# (BINDIR is set after the fragments are read, so the same rule is spelled out here.)
TLOG_BIN := $(if $(filter release,$(BUILD)),bin,$(O)/bin)/tempo-log
$(O)/tests/unit/tlog_cli_test: $(TLOG_BIN)
$(O)/tests/unit/tlog_cli_test.o: private ALL_CFLAGS += -DTLOG_BIN='"$(TLOG_BIN)"'

# The fuzz builds link the FOM, proto and FMU sources; the log reader (libc only) is added here.
FUZZ_TARGETS += tests/fuzz/flog_fuzz
build/fuzz/flog_fuzz: private PROTO_SRCS += rti/flog/flog_read.c
# (a target-specific variable does not reach the prerequisites: name the reader there too)
build/fuzz/flog_fuzz: rti/flog/flog_read.c rti/flog/flog.h rti/tm/tm.h
$(O)/tests/fuzz/flog_fuzz_replay: $(O)/rti/flog/flog_read.o
# (linked after the archives: libproto again for the delivery rules it names)
$(O)/tests/fuzz/flog_fuzz_replay: private LDFLAGS += $(O)/libproto.a

# tempo-log against a log written by the real RTI, with the example federates and replay.
INTEG_SCRIPTS += tests/integration/tlog_e2e.sh
CHECK_TESTS += tests/integration/tlog_e2e.sh
INTEG_SCRIPTS += tests/integration/tlog_fanout.sh
# tempo-log refusing devices, FIFOs, folders and a wrong magic without reading them.
INTEG_SCRIPTS += tests/integration/tlog_hostile.sh
# stamps, wait spans, filters, explain in seconds, stalls under polling, an RTI killed
INTEG_SCRIPTS += tests/integration/tlog_stall.sh
