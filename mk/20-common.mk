# mk/20-common.mk: rti/ code shared by the RTI and libtempo (wire codec, byte buffer).
# See the Makefile header for the variables this fragment fills in.
COMMON_SRCS += rti/buf.c rti/wire.c
UNIT_TESTS += tests/unit/wire_test
wire_test_LIBS := common
FUZZ_TARGETS += tests/fuzz/wire_fuzz
# Workaround (reported to the lead; remove once tests/fuzz/replay_main.c is fixed): that file
# names an enum constant MAX_INPUT, which <linux/limits.h> (pulled in by <dirent.h>) defines
# as a macro, so it does not compile. Skipping <linux/limits.h> for that one object is
# harmless: it uses none of the limits.
$(O)/tests/fuzz/replay_main.o: ALL_CFLAGS += -D_LINUX_LIMITS_H
BENCHES += tests/bench/wire_bench
wire_bench_LIBS := common
