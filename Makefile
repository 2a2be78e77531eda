# Tempo: one non-recursive build (doc/architecture.md).
#
#   make            build everything into bin/ and lib/ (release flags)
#   make test       every test, plus one ASan+UBSan pass of the unit and conformance tests;
#                   ends with one line "N passed, N failed"
#   make demo       an RTI and a federation of example federates, results summarised
#   make bench      benchmarks; they print figures and never fail on timing
#   make deps       install the Debian packages the build needs when pkg-config lacks them
#   make install PREFIX=/usr/local
#   make clean
#
# Each component owns one fragment (*.mk) that appends its sources, programs and tests to the
# variables below; this file holds only the rules. Objects go to build/$(BUILD)/, where BUILD is
# "release" (the default) or "san" (AddressSanitizer + UndefinedBehaviorSanitizer).

BUILD   ?= release
O       := build/$(BUILD)
PREFIX  ?= /usr/local
CC      ?= cc

PKGS      := libevent libxml-2.0 libzip jansson
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
SUNDIALS_LIBS := -lsundials_cvode -lsundials_kinsol -lsundials_nvecserial \
                 -lsundials_sunlinsoldense -lsundials_sunlinsolspgmr -lsundials_sunmatrixdense

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
CFLAGS_BASE := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -g -I. $(WARN) $(PKG_CFLAGS)
ifeq ($(BUILD),san)
CFLAGS_OPT := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDFLAGS_SAN := -fsanitize=address,undefined
else
CFLAGS_OPT := -O2
LDFLAGS_SAN :=
endif
ALL_CFLAGS := $(CFLAGS_BASE) $(CFLAGS_OPT) -fPIC -fvisibility=hidden $(CFLAGS)
ALL_LDLIBS := $(PKG_LIBS) $(SUNDIALS_LIBS) -ldl -lm -lpthread $(LDLIBS)

# ---- what the fragments fill in ---------------------------------------------------------
# Sources of each internal library (archives under $(O)/):
FOM_SRCS     :=   # fom/        FOM reader (libxml2 only)
COMMON_SRCS  :=   # rti/        wire codec, log, helpers shared by RTI and client
RTISRV_SRCS  :=   # rti/        the server (everything but main)
CLIENT_SRCS  :=   # federate/   libtempo
FMU_SRCS     :=   # federate/   FMU loader, integrators, stepping interface
ALGO_SRCS    :=   # algorithms/ coupling algorithms (libc + libm only)
FED_SRCS     :=   # federate/   federate glue shared by tempo-fmu, tempo-master, tempo-run
# Programs: PROGS += name, with name_SRCS := main sources; linked against every internal lib.
PROGS        :=
# Tests: paths of single-file C tests without ".c" (tests/unit/fom_test). Unit and conformance
# tests are also built and run under the sanitizers; integration tests run against bin/.
UNIT_TESTS   :=
CONF_TESTS   :=
INTEG_TESTS  :=
# Integration tests written as shell scripts (run as they are, with bin/ built).
INTEG_SCRIPTS :=
BENCHES      :=
# Fuzz targets (see the fuzz rules below): FUZZ_TARGETS += tests/fuzz/wire_fuzz
FUZZ_TARGETS :=
# Anything else `make all` must build (example FMUs, ...).
EXTRA_ALL    :=

include $(sort $(wildcard mk/*.mk))

# Every fuzz target also runs as a plain test over its corpus (see the fuzz rules below).
FUZZ_REPLAY_BINS := $(patsubst tests/fuzz/%,$(O)/tests/fuzz/%_replay,$(FUZZ_TARGETS))

# ---- rules -------------------------------------------------------------------------------
.PHONY: all deps test test-build demo bench clean install layers fuzz

all: deps $(O)/.built-all

DEPS_CHECK := pkg-config --exists $(PKGS) && test -f /usr/include/cvode/cvode.h && \
              command -v zip >/dev/null
deps:
	@if ! ( $(DEPS_CHECK) ) 2>/dev/null; then \
	  echo "make deps: installing Debian packages"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    libevent-dev libxml2-dev libzip-dev libsundials-dev libjansson-dev pkg-config zip unzip \
	    clang >/dev/null || { echo "make deps: apt-get failed (are you root?)"; exit 1; }; \
	fi

objs = $(patsubst %.c,$(O)/%.o,$(1))

LIB_FOM    := $(O)/libfom.a
LIB_COMMON := $(O)/libcommon.a
LIB_RTISRV := $(O)/librtisrv.a
LIB_CLIENT := $(O)/libclient.a
LIB_FMU    := $(O)/libfmu.a
LIB_ALGO   := $(O)/libalgo.a
LIB_FED    := $(O)/libfed.a
# Link order: higher layers first.
libs_of = $(if $($(1)_LIBS),$(foreach l,$($(1)_LIBS),$(O)/lib$(l).a),$(INTERNAL_LIBS))
INTERNAL_LIBS := $(LIB_FED) $(LIB_FMU) $(LIB_ALGO) $(LIB_CLIENT) $(LIB_RTISRV) $(LIB_COMMON) $(LIB_FOM)

$(LIB_FOM):    $(call objs,$(FOM_SRCS))
$(LIB_COMMON): $(call objs,$(COMMON_SRCS))
$(LIB_RTISRV): $(call objs,$(RTISRV_SRCS))
$(LIB_CLIENT): $(call objs,$(CLIENT_SRCS))
$(LIB_FMU):    $(call objs,$(FMU_SRCS))
$(LIB_ALGO):   $(call objs,$(ALGO_SRCS))
$(LIB_FED):    $(call objs,$(FED_SRCS))
# Archives are written to a temporary name and renamed, so a concurrent link never sees a
# half-written archive.
$(INTERNAL_LIBS):
	@mkdir -p $(@D)
	@rm -f $@.$$$$; ar rcs $@.$$$$ $^ $(if $^,,$(O)/empty.o) && mv -f $@.$$$$ $@

$(O)/empty.o:
	@mkdir -p $(@D)
	echo 'typedef int tempo_empty_unit;' | $(CC) -x c -c -o $@ -
$(INTERNAL_LIBS): | $(O)/empty.o

$(O)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# Programs: release binaries go to bin/, sanitized ones stay under build/san/bin/.
BINDIR := $(if $(filter release,$(BUILD)),bin,$(O)/bin)
define prog_rule
$(BINDIR)/$(1): $(call objs,$($(1)_SRCS)) $(call libs_of,$(1))
	@mkdir -p $$(@D)
	$$(CC) $(LDFLAGS_SAN) -o $$@ $(call objs,$($(1)_SRCS)) $(call libs_of,$(1)) $(ALL_LDLIBS) $(LDFLAGS)
endef
$(foreach p,$(PROGS),$(eval $(call prog_rule,$(p))))

# Public client library: libtempo = client + common + fom objects.
LIBTEMPO_OBJS := $(call objs,$(CLIENT_SRCS) $(COMMON_SRCS) $(FOM_SRCS))
lib/libtempo.a: $(LIBTEMPO_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	ar rcs $@ $^
lib/libtempo.so: $(LIBTEMPO_OBJS)
	@mkdir -p $(@D)
	$(CC) -shared -o $@ $^ $(PKG_LIBS) -lm

# Tests: one C file each. A test (or program) may name the internal libraries it needs, so that
# a half-finished module elsewhere does not stop it from building:
#     fom_test_LIBS := fom            (names: fed fmu algo client rtisrv common fom)
# Without such a line it links against every internal library.
.SECONDEXPANSION:
$(O)/tests/%: $(O)/tests/%.o $$(call libs_of,$$(notdir $$*))
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_SAN) -o $@ $< $(call libs_of,$(notdir $*)) $(ALL_LDLIBS) $(LDFLAGS)

UNIT_BINS   = $(patsubst tests/%,$(O)/tests/%,$(UNIT_TESTS)) $(FUZZ_REPLAY_BINS)
CONF_BINS  := $(patsubst tests/%,$(O)/tests/%,$(CONF_TESTS))
INTEG_BINS := $(patsubst tests/%,$(O)/tests/%,$(INTEG_TESTS))
BENCH_BINS := $(patsubst tests/%,$(O)/tests/%,$(BENCHES))

ALL_TARGETS = $(addprefix $(BINDIR)/,$(PROGS)) $(UNIT_BINS) $(CONF_BINS) $(INTEG_BINS) \
               $(BENCH_BINS) $(EXTRA_ALL)
ifeq ($(BUILD),release)
ALL_TARGETS += lib/libtempo.a lib/libtempo.so
endif

$(O)/.built-all: $(ALL_TARGETS)
	@mkdir -p $(@D)
	@touch $@

# Only what the sanitized pass needs.
test-build: deps $(UNIT_BINS) $(CONF_BINS)

# make test: release build of everything, sanitized build of unit + conformance, then one run.
test: all layers
	$(MAKE) --no-print-directory BUILD=san test-build
	@tests/run.sh \
	  $(UNIT_BINS) $(CONF_BINS) $(INTEG_BINS) $(INTEG_SCRIPTS) \
	  $(patsubst $(O)/%,build/san/%,$(UNIT_BINS) $(CONF_BINS))

bench: all
	@for b in $(BENCH_BINS); do echo "== $$b"; $$b || echo "benchmark $$b failed"; done

demo: all
	@examples/demo_fmu.sh

# Layer rules (doc/contributing.md §1): algorithms/ uses only libc+libm, fom/ only libxml2, rti/ never
# includes federate/ or algorithms/.
layers:
	@tests/check_layers.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/tempo
	install -m 755 $(addprefix bin/,$(PROGS)) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 lib/libtempo.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 lib/libtempo.so $(DESTDIR)$(PREFIX)/lib/
	install -m 644 federate/libtempo/tempo.h $(DESTDIR)$(PREFIX)/include/tempo/

clean:
	rm -rf build bin lib

# Keep objects between runs (they are intermediate files of the test and program rules).
.PRECIOUS: $(O)/%.o

-include $(shell find build -name '*.d' 2>/dev/null)

# Fuzz targets: FUZZ_TARGETS += tests/fuzz/wire_fuzz (file tests/fuzz/wire_fuzz.c defines
# LLVMFuzzerTestOneInput). `make fuzz` builds them with clang's libFuzzer into build/fuzz/;
# the unit-test pass also links each one with tests/fuzz/replay_main.c and runs it over its
# corpus (tests/fuzz/corpus/<name>/) plus random inputs, so the targets never rot.
FUZZ_SECONDS ?= 60
FUZZ_BINS := $(patsubst tests/fuzz/%,build/fuzz/%,$(FUZZ_TARGETS))
build/fuzz/%: tests/fuzz/%.c $(FOM_SRCS) $(COMMON_SRCS) $(FMU_SRCS)
	@mkdir -p $(@D)
	clang $(CFLAGS_BASE) -O1 -fsanitize=fuzzer,address,undefined -o $@ $< \
	  $(FOM_SRCS) $(COMMON_SRCS) $(FMU_SRCS) $(ALL_LDLIBS)
fuzz: deps $(FUZZ_BINS)
	@for f in $(FUZZ_BINS); do n=$$(basename $$f); mkdir -p build/fuzz/corpus-$$n; \
	  echo "== $$f ($(FUZZ_SECONDS) s)"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) build/fuzz/corpus-$$n tests/fuzz/corpus/$$n || exit 1; done
$(O)/tests/fuzz/%_replay: $(O)/tests/fuzz/%.o $(O)/tests/fuzz/replay_main.o $(LIB_FMU) $(LIB_COMMON) $(LIB_FOM)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(ALL_LDLIBS) $(LDFLAGS)
