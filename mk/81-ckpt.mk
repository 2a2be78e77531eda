# mk/81-ckpt.mk: the checkpoint decoders' fuzz target (tests/fuzz/ckpt_fuzz.c: the manifest
# reader and the RTI's part, doc/checkpoint.md). It restores into a bare server core, so both of
# its builds link the server's core, the federation log and the time-management engine, which
# the generic fuzz rules of the Makefile do not (explicit rules take precedence over them). In a
# file of its own, read after every source list it names.
FUZZ_TARGETS += tests/fuzz/ckpt_fuzz
build/fuzz/ckpt_fuzz: tests/fuzz/ckpt_fuzz.c $(SERVER_CORE_SRCS) $(FLOG_SRCS) $(TM_SRCS) \
                      $(PROTO_SRCS) $(FOM_SRCS)
	@mkdir -p $(@D)
	clang $(CFLAGS_BASE) -O1 -fsanitize=fuzzer,address,undefined -o $@ $^ $(ALL_LDLIBS)
$(O)/tests/fuzz/ckpt_fuzz_replay: $(O)/tests/fuzz/ckpt_fuzz.o $(O)/tests/fuzz/replay_main.o \
                                  $(O)/libserver.a $(O)/libflog.a $(O)/libtm.a $(O)/libproto.a \
                                  $(O)/libfom.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(ALL_LDLIBS) $(LDFLAGS)
