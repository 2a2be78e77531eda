# mk/30-rti.mk: the RTI server rti/server/ (doc/rti.md, doc/protocol.md) and its tests.
# The server's modules go to libserver.a; rti/server/main.c is only the program's entry. The
# time management it uses is in mk/35-tm.mk, the federation log in mk/80-flog.mk.
SERVER_SRCS += rti/server/log.c rti/server/conn.c rti/server/conn_guard.c rti/server/limits.c rti/server/loop.c \
               rti/server/server.c rti/server/federation.c rti/server/dm.c rti/server/om.c \
               rti/server/sync.c rti/server/timesvc.c rti/server/embed.c rti/server/embed_link.c \
               rti/server/embed_task.c rti/server/embed_ctx.c \
               rti/server/save.c rti/server/restore.c \
               rti/server/live.c rti/server/live_json.c rti/server/live_page.c
# The server core without its socket layer (conn.c, conn_guard.c, loop.c) and its live view
# (live*.c, doc/live.md): what libtempo embeds for the in-process transport
# (rti/server/embed.h, doc/inproc.md); it uses no libevent.
SERVER_CORE_SRCS = $(filter-out rti/server/conn.c rti/server/conn_guard.c rti/server/loop.c \
                     rti/server/live.c rti/server/live_json.c rti/server/live_page.c,$(SERVER_SRCS))
PROGS += tempo-rti
tempo-rti_SRCS := rti/server/main.c
tempo-rti_LIBS := server flog tm proto fom

UNIT_TESTS += tests/unit/rti_log_test
rti_log_test_LIBS := server

# Integration tests: each starts bin/tempo-rti --listen 127.0.0.1:0 (tests/integration/rti_proc.h)
# and speaks the wire protocol over raw sockets (tests/integration/rti_harness.h).
INTEG_TESTS += tests/integration/rti_robust_test tests/integration/rti_fed_test \
               tests/integration/rti_limits_test tests/integration/rti_refusals_test \
               tests/integration/rti_flog_test
rti_robust_test_LIBS := proto fom
rti_fed_test_LIBS := proto fom
rti_limits_test_LIBS := proto fom
rti_refusals_test_LIBS := proto fom
rti_flog_test_LIBS := flog tm proto fom
# The model-based hostile client (issue 37): raw frames and libtempo federates at once, every
# request kind with extreme values; HOSTILE_SECONDS (3 here, longer in `make fuzz`).
INTEG_TESTS += tests/integration/rti_hostile_test
rti_hostile_test_LIBS := client proto fom
# The memory quotas per connection and per address, each driven past its limit, and the RTI's
# resident size against doc/rti.md's formula.
INTEG_TESTS += tests/integration/rti_quota_test
rti_quota_test_LIBS := proto fom
# In the quick tier, `make check`: the refusals and the federation log of a real RTI.
CHECK_TESTS += tests/integration/rti_refusals_test tests/integration/rti_flog_test

# The server once more, compiled with ASan + UBSan (LeakSanitizer on), so that the integration
# tests above also check the server's own memory and undefined behaviour: `make test` runs
# tests/integration/rti_san.sh, which reruns them against this binary (TEMPO_RTI_BIN). The
# same binary counts the allocations of Tempo's own code (-Wl,--wrap, see
# tests/integration/rti_alloc_wrap.c) for tests/integration/rti_alloc_test (doc/contributing.md §8),
# which only rti_san.sh runs. The source list is expanded when the recipe runs, after every
# fragment has added its sources.
RTI_SAN_BIN := build/rti-san/tempo-rti
RTI_SAN_SRCS = rti/server/main.c $(SERVER_SRCS) $(FLOG_SRCS) $(TM_SRCS) $(PROTO_SRCS) $(FOM_SRCS) \
               tests/integration/rti_alloc_wrap.c
RTI_SAN_WRAP := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup
$(RTI_SAN_BIN): $(wildcard rti/*/*.c rti/*/*.h fom/*.c fom/*.h) tests/integration/rti_alloc_wrap.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	  -fno-sanitize-recover=undefined $(RTI_SAN_WRAP) -o $@ $(RTI_SAN_SRCS) $(ALL_LDLIBS)
EXTRA_ALL += $(RTI_SAN_BIN) $(O)/tests/integration/rti_alloc_test
rti_alloc_test_LIBS := proto fom
INTEG_SCRIPTS += tests/integration/rti_san.sh
INTEG_SCRIPTS += tests/integration/live_test.sh
INTEG_SCRIPTS += tests/integration/live_bounds.sh tests/integration/live_inproc.sh
INTEG_SCRIPTS += tests/integration/rti_log_only.sh
# No assert() or abort() on a path the RTI's input reaches (issue 37).
INTEG_SCRIPTS += tests/integration/rti_no_assert.sh
