# mk/20-proto.mk: rti/proto/, the wire codec and byte buffer that the RTI and libtempo share
# (doc/protocol.md). See the Makefile header for the variables this fragment fills in.
PROTO_SRCS += rti/proto/buf.c rti/proto/wire.c rti/proto/delivery.c rti/proto/secret.c \
              rti/proto/outfile.c rti/proto/ckpt.c
UNIT_TESTS += tests/unit/wire_test
wire_test_LIBS := proto
# Output files private and never through links (rti/proto/outfile.h, doc/run.md).
UNIT_TESTS += tests/unit/outfile_test
outfile_test_LIBS := proto
FUZZ_TARGETS += tests/fuzz/wire_fuzz
BENCHES += tests/bench/wire_bench
wire_bench_LIBS := proto
UNIT_TESTS += tests/unit/ckpt_test
ckpt_test_LIBS := proto
