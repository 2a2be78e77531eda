# mk/78-master.mk: the master-slave protocol (federate/msproto/, one codec and FOM for both
# programs), the master federate tempo-master (federate/master/) and their tests
# (doc/master.md). See the Makefile header for the variables this fragment fills in.
MSPROTO_SRCS += federate/msproto/msproto.c federate/msproto/msproto_peers.c \
                federate/msproto/msproto_child.c
CONFIG_SRCS += federate/config/fedfile_master.c

UNIT_TESTS += tests/unit/msproto_test
msproto_test_LIBS := msproto config fmu algo fom
UNIT_TESTS += tests/unit/msproto_peers_test
msproto_peers_test_LIBS := msproto
MASTER_SRCS += federate/master/ms_remote.c

PROGS += tempo-master
# rti/server/live_embed.c: the live view of its embedded RTI (--http, doc/live.md)
tempo-master_SRCS := federate/master/tempo_master_main.c rti/server/live_embed.c
tempo-master_LIBS := master fmufed msproto run config fmu algo client proto fom
INTEG_SCRIPTS += tests/integration/master_test.sh tests/integration/defect_master_test.sh \
                 tests/integration/f3ornits_master_test.sh
# Every master method, sanitized, over both sides of the port (build/san/bin/, made by
# `make BUILD=san test-build`); and long runs of small steps ending on the stop time.
INTEG_SCRIPTS += tests/integration/san_masters.sh tests/integration/ticks_end.sh \
                 tests/integration/ticks_long.sh
CHECK_TESTS += tests/integration/defect_master_test.sh tests/integration/f3ornits_master_test.sh
UNIT_TESTS += tests/unit/fedfile_master_test
fedfile_master_test_LIBS := config fmu algo fom
UNIT_TESTS += tests/unit/msjacobi_test
msjacobi_test_LIBS := algo
# The protocol's fuzz target. Its decoders live in libmsproto (they share msproto.c with the FOM
# generator), which the generic fuzz rules of the Makefile do not link, so the two targets of
# this one have their own rules (explicit rules take precedence over the pattern rules).
FUZZ_TARGETS += tests/fuzz/msproto_fuzz
build/fuzz/msproto_fuzz: tests/fuzz/msproto_fuzz.c federate/msproto/msproto.c
	@mkdir -p $(@D)
	clang $(CFLAGS_BASE) -O1 -fsanitize=fuzzer,address,undefined -o $@ $^
$(O)/tests/fuzz/msproto_fuzz_replay: $(O)/tests/fuzz/msproto_fuzz.o $(O)/tests/fuzz/replay_main.o \
                                     $(O)/federate/msproto/msproto.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(ALL_LDLIBS) $(LDFLAGS)
# The RTI's tie-shuffling test mode (check C10 of doc/master.md).
UNIT_TESTS += tests/unit/tm_shuffle_test
tm_shuffle_test_LIBS := tm proto
# Commands only from the master (doc/master.md): a rogue federate (a helper the script runs,
# built with everything) sends every command kind to the slaves and forges a reply.
# A slave in a child process (msproto_child.h) against scripted /bin/sh children: quick.
INTEG_TESTS += tests/integration/ms_child_test
ms_child_test_LIBS := msproto config fmu algo fom
CHECK_TESTS += tests/integration/ms_child_test
EXTRA_ALL += $(O)/tests/integration/ms_rogue
ms_rogue_LIBS := msproto config fmu algo client proto fom
INTEG_SCRIPTS += tests/integration/ms_rogue.sh
