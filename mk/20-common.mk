# mk/20-common.mk: rti/ code shared by the RTI and libtempo (wire codec, byte buffer).
# See the Makefile header for the variables this fragment fills in.
COMMON_SRCS += rti/proto/buf.c rti/proto/wire.c rti/proto/delivery.c
UNIT_TESTS += tests/unit/wire_test
wire_test_LIBS := common
FUZZ_TARGETS += tests/fuzz/wire_fuzz
BENCHES += tests/bench/wire_bench
wire_bench_LIBS := common
