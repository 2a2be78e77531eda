# Tempo: one non-recursive build (doc/architecture.md). `make help` lists the targets:
#
#   make            build everything `make all` builds: programs in bin/, lib/libtempo.{a,so},
#                   tests, benchmarks, example FMUs (release flags)
#   make check      the quick tier: unit and conformance tests and the integration tests of
#                   CHECK_TESTS (doc/contributing.md §16); same table and closing line
#   make test       every test, plus one ASan+UBSan pass of the unit and conformance tests;
#                   ends with a per-program table and one line "N passed, N failed"
#                   (both tiers run TEST_JOBS programs at once, twice the machine's cores by
#                   default)
#   make demo       an RTI and a federation of example federates, results summarised
#   make bench      benchmarks; they print figures and never fail on timing
#   make deps       install the Debian packages the build needs when pkg-config lacks them
#   make install PREFIX=/usr/local    (and make uninstall PREFIX=...)
#   make clean
#
# Each component owns one fragment (*.mk) that appends its sources, programs and tests to the
# variables below; this file holds only the rules. Objects go to build/$(BUILD)/, where BUILD is
# "release" (the default) or "san" (AddressSanitizer + UndefinedBehaviorSanitizer).
#
# Packages on a fresh machine: the compiler and linker flags of the packages come from
# build/config.mk, which this file includes. GNU make builds an included makefile before
# anything else and then reads every makefile again, so the rule that writes build/config.mk
# first installs the missing packages (make deps) and only then asks pkg-config: one `make`
# works on a machine without them (tests/integration/build_fresh.sh proves it).

BUILD   ?= release
O       := build/$(BUILD)
PREFIX  ?= /usr/local
CC      ?= cc

.DEFAULT_GOAL := all
# The release (TP_VERSION of the public header): every program's --version prints it.
# libtempo.so.$(SOVERSION) is the soname: raise SOVERSION when a change breaks programs linked
# against an older libtempo.so.
VERSION   := $(shell sed -n 's/^\#define TP_VERSION "\(.*\)"$$/\1/p' federate/libtempo/tempo.h)
SOVERSION := 0

PKGS      := libevent libxml-2.0 libzip jansson
# Debian packages `make deps` installs, and the check that says they are there.
DEPS_DEBS := libevent-dev libxml2-dev libzip-dev libsundials-dev libjansson-dev pkg-config \
             zip unzip clang clang-format librsvg2-bin libarchive-tools python3-pytest
# The Python that the package python/ is tested and installed for: the system's (Debian's
# /usr/bin/python3, whatever python3 comes first on PATH), else python3 from PATH.
PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)
DEPS_CHECK := pkg-config --exists $(PKGS) && test -f /usr/include/cvode/cvode.h && \
              command -v zip >/dev/null && command -v rsvg-convert >/dev/null && \
              command -v clang-format >/dev/null && command -v bsdtar >/dev/null && \
              $(PYTHON) -c 'import pytest' 2>/dev/null
define DEPS_INSTALL
if ! ( $(DEPS_CHECK) ) 2>/dev/null; then \
  echo "make deps: installing Debian packages: $(DEPS_DEBS)"; \
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    $(DEPS_DEBS) >/dev/null || { echo "make deps: apt-get failed (are you root?)"; exit 1; }; \
fi
endef
# The browser the live view's test drives (tests/integration/live_test.sh, doc/live.md): about
# 300 MB with its libraries, so a plain `make` does not install it; `make deps` and `make test` do.
TEST_DEBS := chromium
define TEST_DEPS_INSTALL
if ! command -v chromium >/dev/null 2>&1; then \
  echo "make: installing the tests' Debian packages: $(TEST_DEBS)"; \
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    $(TEST_DEBS) >/dev/null || { echo "make: apt-get failed (are you root?)"; exit 1; }; \
fi
endef
# Goals that need no package: they neither install nor read build/config.mk.
NO_CONFIG_GOALS := clean help uninstall deps
CONFIG_MK := build/config.mk
ifneq ($(if $(MAKECMDGOALS),$(filter-out $(NO_CONFIG_GOALS),$(MAKECMDGOALS)),all),)
include $(CONFIG_MK)
endif
# Written once per checkout (again when this file changes), after the packages are in place.
$(CONFIG_MK): Makefile
	@$(DEPS_INSTALL)
	@mkdir -p $(@D)
	@cf=$$(pkg-config --cflags $(PKGS)) && lb=$$(pkg-config --libs $(PKGS)) || { \
	  echo "make: pkg-config does not know $(PKGS) (run make deps as root)"; exit 1; }; \
	printf '# Written by the Makefile from pkg-config (make clean forgets it).\nPKG_CFLAGS := %s\nPKG_LIBS := %s\n' \
	  "$$cf" "$$lb" >$@.tmp && mv -f $@.tmp $@
SUNDIALS_LIBS := -lsundials_cvode -lsundials_kinsol -lsundials_nvecserial \
                 -lsundials_sunlinsoldense -lsundials_sunlinsolspgmr -lsundials_sunmatrixdense

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
CFLAGS_BASE := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -g -I. $(WARN) $(PKG_CFLAGS) \
               -DTEMPO_VERSION='"$(VERSION)"'
ifeq ($(BUILD),san)
# -g1 (line tables, all a sanitizer's report names) after the base's -g: about 15 % less
# compile time than full debugging information.
SAN_CFLAGS := -g1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
CFLAGS_OPT := -O1 $(SAN_CFLAGS)
LDFLAGS_SAN := -fsanitize=address,undefined
# The test drivers themselves (tests/*/NAME.c) at -O0: gcc takes about six times as long over
# their long functions of checks at -O1 with the sanitizers (two thirds of the sanitized
# build's CPU time), while the code they drive, where the tests spend their time, stays at
# -O1. Both are instrumented alike (doc/contributing.md §16).
$(O)/tests/%.o: private CFLAGS_OPT := -O0 $(SAN_CFLAGS)
# Except the drivers whose own code (fakes with closed-form solutions, random schedules) is
# where their test spends its time: -O0 cost f3ornits_test 18 s and tm_random_test 5 s more
# CPU per run than it saved in their compile (measured 2026-11-28).
SAN_O1_TESTS := tests/unit/f3ornits_test tests/conformance/tm_random_test
$(patsubst tests/%,$(O)/tests/%.o,$(SAN_O1_TESTS)): private CFLAGS_OPT := -O1 $(SAN_CFLAGS)
else
CFLAGS_OPT := -O2
LDFLAGS_SAN :=
endif
# Recursive (=), so that a pattern's own CFLAGS_OPT (above) takes effect.
ALL_CFLAGS = $(CFLAGS_BASE) $(CFLAGS_OPT) -fPIC -fvisibility=hidden $(CFLAGS)
ALL_LDLIBS := $(PKG_LIBS) $(SUNDIALS_LIBS) -ldl -lm -lpthread $(LDLIBS)

# ---- what the fragments fill in ---------------------------------------------------------
# Sources of each internal library: one library per component of doc/architecture.md, built
# into $(O)/libNAME.a (NAME in lower case: fom, proto, ...).
FOM_SRCS     :=   # fom/               the FOM reader (libxml2 only)
PROTO_SRCS   :=   # rti/proto/         wire codec, byte buffer (shipped inside libtempo too)
TM_SRCS      :=   # rti/tm/            time management, pure code
FLOG_SRCS    :=   # rti/flog/          federation log writer and reader
SERVER_SRCS  :=   # rti/server/        the RTI server (everything but main)
TLOG_SRCS    :=   # rti/tlog/          tempo-log's subcommands (everything but main)
CLIENT_SRCS  :=   # federate/libtempo/ libtempo
FMU_SRCS     :=   # federate/fmu/      the FMI 2.0 host
ALGO_SRCS    :=   # algorithms/        coupling algorithms (libc + libm only)
CONFIG_SRCS  :=   # federate/config/   the federation file
MSPROTO_SRCS :=   # federate/msproto/  the master-slave protocol (codec, generated FOM)
FMUFED_SRCS  :=   # federate/fmufed/   the FMU federate (everything but main)
INPROC_SRCS  :=   # federate/inproc/   every peer of a federation in one process (threads)
MASTER_SRCS  :=   # federate/master/   tempo-master (everything but main)
RUN_SRCS     :=   # federate/run/      tempo-run's supervision, results, plots, progress
# Programs: PROGS += name, with name_SRCS := main sources and name_LIBS := the internal
# libraries it links (see "Linking" below).
PROGS        :=
# Tests: paths of single-file C tests without ".c" (tests/unit/fom_test). Unit and conformance
# tests are also built and run under the sanitizers; integration tests run against bin/.
UNIT_TESTS   :=
CONF_TESTS   :=
INTEG_TESTS  :=
# Integration tests written as shell scripts (run as they are, with bin/ built).
INTEG_SCRIPTS :=
# Those of INTEG_SCRIPTS that also run programs of the sanitized build (build/san/bin/):
# `make test` starts them once `make BUILD=san test-build` is done.
SAN_SCRIPTS  :=
# The integration tests of the quick tier, `make check` (doc/contributing.md §16), named as in
# INTEG_TESTS or INTEG_SCRIPTS: CHECK_TESTS += tests/integration/client_demo.sh. Together they
# run every program at least once; `make check` also runs every unit and conformance test.
CHECK_TESTS  :=
BENCH_SCRIPTS :=
BENCHES      :=
# Fuzz targets (see the fuzz rules below): FUZZ_TARGETS += tests/fuzz/wire_fuzz
FUZZ_TARGETS :=
# Anything else `make all` must build (example FMUs, ...).
EXTRA_ALL    :=

include $(sort $(wildcard mk/*.mk))

# Every fuzz target also runs as a plain test over its corpus (see the fuzz rules below).
FUZZ_REPLAY_BINS := $(patsubst tests/fuzz/%,$(O)/tests/fuzz/%_replay,$(FUZZ_TARGETS))

# ---- rules -------------------------------------------------------------------------------
.PHONY: all deps check test test-build demo bench clean install uninstall layers fuzz help

all: $(O)/.built-all

deps:
	@$(DEPS_INSTALL)
	@$(TEST_DEPS_INSTALL)

objs = $(patsubst %.c,$(O)/%.o,$(1))

# ---- linking ----------------------------------------------------------------------------
# Every program and test names the internal libraries it links, and only those its component
# may use (doc/architecture.md; `make layers` checks the includes):
#     tempo-log_LIBS := tlog flog tm proto fom      fom_test_LIBS := fom      foo_test_LIBS :=
# A program or test without such a line, or naming an unknown library, stops the build.
# INTERNAL_LIBS is the link order (a library before the ones it uses); libs_of puts a _LIBS
# line in that order, so fragments may list names in any order.
INTERNAL_LIBS := master inproc fmufed run msproto config fmu algo client tlog server flog tm proto fom
lib_path = $(O)/lib$(1).a
# A library that needs others brings them along (LIB_DEPS_name): libtempo's in-process
# transport embeds the RTI's core (doc/inproc.md), so every link of `client` also gets these.
LIB_DEPS_client := server flog tm
# federate/run writes its output files through rti/proto/outfile.h (doc/run.md "Output files").
LIB_DEPS_run := proto
libs_of = $(foreach l,$(INTERNAL_LIBS),$(if $(filter $(l),$($(1)_LIBS) $(foreach d,$($(1)_LIBS),$(LIB_DEPS_$(d)))),$(call lib_path,$(l))))
LINKED := $(PROGS) $(notdir $(UNIT_TESTS) $(CONF_TESTS) $(INTEG_TESTS) $(BENCHES))
$(foreach n,$(LINKED),$(if $(filter undefined,$(origin $(n)_LIBS)),\
  $(error $(n) has no $(n)_LIBS line: name the internal libraries it links in its mk/*.mk)))
$(foreach n,$(LINKED),$(foreach l,$($(n)_LIBS),$(if $(filter $(l),$(INTERNAL_LIBS)),,\
  $(error $(n)_LIBS names "$(l)", which is not one of: $(INTERNAL_LIBS)))))
ALL_LIB_FILES := $(foreach l,$(INTERNAL_LIBS),$(call lib_path,$(l)))

$(call lib_path,fom):    $(call objs,$(FOM_SRCS))
$(call lib_path,proto):  $(call objs,$(PROTO_SRCS))
$(call lib_path,tm):     $(call objs,$(TM_SRCS))
$(call lib_path,flog):   $(call objs,$(FLOG_SRCS))
$(call lib_path,server): $(call objs,$(SERVER_SRCS))
$(call lib_path,tlog):   $(call objs,$(TLOG_SRCS))
$(call lib_path,client): $(call objs,$(CLIENT_SRCS))
$(call lib_path,fmu):    $(call objs,$(FMU_SRCS))
$(call lib_path,algo):   $(call objs,$(ALGO_SRCS))
$(call lib_path,config): $(call objs,$(CONFIG_SRCS))
$(call lib_path,msproto): $(call objs,$(MSPROTO_SRCS))
$(call lib_path,fmufed): $(call objs,$(FMUFED_SRCS))
$(call lib_path,inproc): $(call objs,$(INPROC_SRCS))
$(call lib_path,master): $(call objs,$(MASTER_SRCS))
$(call lib_path,run):    $(call objs,$(RUN_SRCS))
# Archives are written to a temporary name and renamed, so a concurrent link never sees a
# half-written archive.
$(ALL_LIB_FILES):
	@mkdir -p $(@D)
	@rm -f $@.$$$$; ar rcs $@.$$$$ $^ $(if $^,,$(O)/empty.o) && mv -f $@.$$$$ $@

$(O)/empty.o:
	@mkdir -p $(@D)
	echo 'typedef int tempo_empty_unit;' | $(CC) -x c -c -o $@ -
$(ALL_LIB_FILES): | $(O)/empty.o

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

# Public client library: libtempo = client + proto + fom objects, and the RTI's core with its
# time management and federation log for the in-process transport (no libevent: doc/inproc.md).
LIBTEMPO_OBJS := $(call objs,$(CLIENT_SRCS) $(PROTO_SRCS) $(FOM_SRCS) $(SERVER_CORE_SRCS) \
                   $(TM_SRCS) $(FLOG_SRCS))
lib/libtempo.a: $(LIBTEMPO_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	ar rcs $@ $^
lib/libtempo.so: $(LIBTEMPO_OBJS)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,libtempo.so.$(SOVERSION) -o $@ $^ \
	  $$(pkg-config --libs $(TEMPO_PC_REQUIRES)) $(TEMPO_PC_LIBS)

# Tests: one C file each, linked with the internal libraries of their NAME_LIBS line.
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

# Only what the sanitized pass needs: the unit and conformance tests, and the programs that
# tests/integration/san_masters.sh runs from build/san/bin/ (every master method over the
# in-process and the remote port).
SAN_PROGS := tempo-master tempo-fmu
test-build: $(UNIT_BINS) $(CONF_BINS) $(addprefix $(BINDIR)/,$(SAN_PROGS))

# The two tiers (doc/contributing.md §16). Both run tests/run.sh, TEST_JOBS programs at once
# (twice the machine's cores by default, as a test program keeps a core busy for about 60 %
# of its time and waits the rest; make test TEST_JOBS=1 runs them one after the other).
# make test: release build of everything, then every test program of both builds, the
# sanitized build (unit, conformance, SAN_PROGS) made by tests/run.sh beside the first
# release programs, the sanitized programs and SAN_SCRIPTS started once it is done. make
# check: the release unit and conformance tests and the integration tests of CHECK_TESTS.
NPROC := $(shell nproc 2>/dev/null || echo 2)
TEST_JOBS ?= $(shell expr 2 \* $(NPROC))
# The sanitized build tests/run.sh makes beside the first tests, one compiler per core (it
# holds one of the runner's places). Named through a variable: a recipe line that names
# $(MAKE) itself would run under `make -n` too, the whole suite with it. (So the build gets no
# jobserver: its log opens with make's expected "-jN forced in submake" warning.)
SAN_BUILD = $(MAKE) -j$(NPROC) --no-print-directory BUILD=san test-build
CHECK_INTEG := $(filter $(patsubst tests/%,$(O)/tests/%,$(CHECK_TESTS)),$(INTEG_BINS)) \
               $(filter $(CHECK_TESTS),$(INTEG_SCRIPTS))
$(foreach t,$(CHECK_TESTS),$(if $(filter $(t),$(INTEG_TESTS) $(INTEG_SCRIPTS)),,\
  $(error CHECK_TESTS names "$(t)", which no INTEG_TESTS or INTEG_SCRIPTS line adds)))
$(foreach t,$(SAN_SCRIPTS),$(if $(filter $(t),$(INTEG_SCRIPTS)),,\
  $(error SAN_SCRIPTS names "$(t)", which no INTEG_SCRIPTS line adds)))
test: all layers
	@$(TEST_DEPS_INSTALL)
	@tests/run.sh -j "$(TEST_JOBS)" --tier "make test" \
	  --build "$(SAN_BUILD)" \
	  $(UNIT_BINS) $(CONF_BINS) $(INTEG_BINS) $(filter-out $(SAN_SCRIPTS),$(INTEG_SCRIPTS)) \
	  --after-build $(SAN_SCRIPTS) $(patsubst $(O)/%,build/san/%,$(UNIT_BINS) $(CONF_BINS))

check: all layers
	@tests/run.sh -j "$(TEST_JOBS)" --tier "make check" $(UNIT_BINS) $(CONF_BINS) $(CHECK_INTEG)

bench: all
	@for b in $(BENCH_BINS) $(BENCH_SCRIPTS); do echo "== $$b"; $$b || echo "benchmark $$b failed"; done

demo: all
	@examples/demo_fmu.sh

# Every rule of doc/architecture.md: the component arrows over every #include line and every
# program's NAME_LIBS line (tests/check_layers.sh), and no missing path named by a page or a
# comment (tests/check_paths.sh).
layers:
	@tests/check_layers.sh && tests/check_paths.sh

# make install PREFIX=P [DESTDIR=D]: programs in P/bin; libtempo.a and libtempo.so.$(VERSION)
# (soname libtempo.so.$(SOVERSION), with the two usual links) in P/lib; tempo.h in
# P/include/tempo; tempo.pc in P/lib/pkgconfig; the FOMs, the example federation files (their
# FMU paths rewritten to P/share/tempo/fmus), the example sources and the example FMUs in
# P/share/tempo; README.md and doc/ in P/share/doc/tempo; a man page per program in
# P/share/man/man1, made from its --help; the Python package tempo where $(PYTHON) finds it
# (mk/95-python.mk: PYTHONDIR). Installed programs find their default FOM in
# P/share/tempo/fom (they look beside their own bin/ folder).
# make uninstall removes exactly that list.
DATADIR := $(PREFIX)/share/tempo
DOCDIR  := $(PREFIX)/share/doc/tempo
MANDIR  := $(PREFIX)/share/man/man1
INST_FOMS := $(wildcard fom/*.xml)
INST_FEDFILES := $(wildcard examples/*.json)
INST_DOCS := README.md $(wildcard doc/*.md)
INST_ALGODOCS := $(wildcard doc/algorithms/*.md)
INST_EXAMPLE_SRCS := examples/producer.c examples/consumer.c
# The NAME line of each program's man page.
MAN_SUMMARY_tempo-rti := the Tempo RTI: federations, time management, federation log
MAN_SUMMARY_tempo-fmu := run one FMI 2.0 FMU alone, or as a federate of a federation file
MAN_SUMMARY_tempo-run := run a federation of FMUs described by one JSON file
MAN_SUMMARY_tempo-log := read, explain, export and replay a federation log
MAN_SUMMARY_tempo-example-producer := example federate: publishes a time-stamped sine signal
MAN_SUMMARY_tempo-example-consumer := example federate: receives it in time-stamp order
# libtempo's own dependencies, for static links (pkg-config --static --libs tempo).
TEMPO_PC_REQUIRES := libxml-2.0
TEMPO_PC_LIBS := -lm -lpthread

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/include/tempo $(DESTDIR)$(DATADIR)/fom $(DESTDIR)$(DATADIR)/examples \
	  $(DESTDIR)$(DATADIR)/fmus $(DESTDIR)$(DOCDIR)/algorithms $(DESTDIR)$(MANDIR)
	install -m 755 $(addprefix bin/,$(PROGS)) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 lib/libtempo.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 lib/libtempo.so $(DESTDIR)$(PREFIX)/lib/libtempo.so.$(VERSION)
	ln -sf libtempo.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libtempo.so.$(SOVERSION)
	ln -sf libtempo.so.$(SOVERSION) $(DESTDIR)$(PREFIX)/lib/libtempo.so
	install -m 644 federate/libtempo/tempo.h $(DESTDIR)$(PREFIX)/include/tempo/
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' \
	  'fomdir=$${prefix}/share/tempo/fom' '' 'Name: tempo' \
	  'Description: client library of the Tempo time-managed RTI' 'Version: $(VERSION)' \
	  'Requires.private: $(TEMPO_PC_REQUIRES)' 'Cflags: -I$${includedir}' \
	  'Libs: -L$${libdir} -ltempo' 'Libs.private: $(TEMPO_PC_LIBS)' \
	  >$(DESTDIR)$(PREFIX)/lib/pkgconfig/tempo.pc
	install -m 644 $(INST_FOMS) $(DESTDIR)$(DATADIR)/fom/
	install -m 644 $(EXAMPLE_FMUS) $(DESTDIR)$(DATADIR)/fmus/
	install -d $(DESTDIR)$(DATADIR)/fmus/fmi3
	install -m 644 $(EXAMPLE_FMUS3) $(DESTDIR)$(DATADIR)/fmus/fmi3/
	install -m 644 $(INST_EXAMPLE_SRCS) $(DESTDIR)$(DATADIR)/examples/
	for f in $(INST_FEDFILES); do \
	  sed -e 's|"\.\./build/fmus/|"../fmus/|g' -e 's|build/fmus/|fmus/|g' \
	      -e 's|"\.\./build/run/|"results/|g' $$f \
	    >$(DESTDIR)$(DATADIR)/examples/$$(basename $$f) || exit 1; done
	install -m 644 $(INST_DOCS) $(DESTDIR)$(DOCDIR)/
	install -m 644 $(INST_ALGODOCS) $(DESTDIR)$(DOCDIR)/algorithms/
	$(foreach p,$(PROGS),mk/man1.sh $(p) $(VERSION) $(DOCDIR) \
	  "$(or $(MAN_SUMMARY_$(p)),a program of Tempo)" >$(DESTDIR)$(MANDIR)/$(p).1 &&) true

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(PROGS))
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/lib/,libtempo.a libtempo.so libtempo.so.$(SOVERSION) \
	  libtempo.so.$(VERSION) pkgconfig/tempo.pc)
	rm -f $(DESTDIR)$(PREFIX)/include/tempo/tempo.h
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/,$(addsuffix .1,$(PROGS)))
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)
	-rmdir $(DESTDIR)$(PREFIX)/include/tempo 2>/dev/null

clean:
	rm -rf build bin lib

help:
	@echo 'Targets (BUILD=release by default, BUILD=san for ASan+UBSan objects):'
	@echo '  make, make all   programs in bin/, lib/libtempo.{a,so}, tests, benchmarks, example FMUs'
	@echo '  make check       quick tier: unit, conformance, a few integration tests (TEST_JOBS at once)'
	@echo '  make test        every test and a sanitized pass; a table, then "N passed, N failed"'
	@echo '  make demo        an RTI and example FMU federations (Gauss-Seidel, Jacobi), with errors'
	@echo '  make bench       benchmarks (figures only, never fail on timing)'
	@echo '  make fuzz        libFuzzer on the decoders (FUZZ_SECONDS=$(FUZZ_SECONDS) each), then the'
	@echo '                   hostile client against the RTI (HOSTILE_SECONDS, default FUZZ_SECONDS)'
	@echo '  make layers      check the component rules (includes, links) and the paths docs name'
	@echo '  make cases       rewrite the generated figure tables of doc/cases/ from fresh runs'
	@echo '  make deps        install the Debian packages the build needs (as root)'
	@echo '  make install     PREFIX=$(PREFIX) (and DESTDIR): programs, libtempo, tempo.h, tempo.pc,'
	@echo '                   FOMs, examples and FMUs in PREFIX/share/tempo, docs, the Python package'
	@echo '  make uninstall   remove what make install put under PREFIX'
	@echo '  make clean       remove build/, bin/ and lib/'
	@echo '  make help        this list'

# Keep objects between runs (they are intermediate files of the test and program rules).
.PRECIOUS: $(O)/%.o

-include $(shell find build -name '*.d' 2>/dev/null)

# Fuzz targets: FUZZ_TARGETS += tests/fuzz/wire_fuzz (file tests/fuzz/wire_fuzz.c defines
# LLVMFuzzerTestOneInput). `make fuzz` builds them with clang's libFuzzer into build/fuzz/;
# the unit-test pass also links each one with tests/fuzz/replay_main.c and runs it over its
# corpus (tests/fuzz/corpus/<name>/) plus random inputs, so the targets never rot.
FUZZ_SECONDS ?= 60
FUZZ_BINS := $(patsubst tests/fuzz/%,build/fuzz/%,$(FUZZ_TARGETS))
build/fuzz/%: tests/fuzz/%.c $(FOM_SRCS) $(PROTO_SRCS) $(FMU_SRCS)
	@mkdir -p $(@D)
	clang $(CFLAGS_BASE) -O1 -fsanitize=fuzzer,address,undefined -o $@ $< \
	  $(FOM_SRCS) $(PROTO_SRCS) $(FMU_SRCS) $(ALL_LDLIBS)
# The hostile client (tests/integration/rti_hostile_test, issue 37) runs HOSTILE_SECONDS against
# the release RTI and again against the sanitized one; TEMPO_HOSTILE_SEED=N replays a run.
HOSTILE_SECONDS ?= $(FUZZ_SECONDS)
fuzz: $(FUZZ_BINS) all $(O)/tests/integration/rti_hostile_test
	@for f in $(FUZZ_BINS); do n=$$(basename $$f); mkdir -p build/fuzz/corpus-$$n; \
	  echo "== $$f ($(FUZZ_SECONDS) s)"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) build/fuzz/corpus-$$n tests/fuzz/corpus/$$n || exit 1; done
	@mkdir -p build/test-logs
	@echo "== rti_hostile_test ($(HOSTILE_SECONDS) s, release RTI)"
	HOSTILE_SECONDS=$(HOSTILE_SECONDS) $(O)/tests/integration/rti_hostile_test
	@echo "== rti_hostile_test ($(HOSTILE_SECONDS) s, sanitized RTI)"
	HOSTILE_SECONDS=$(HOSTILE_SECONDS) TEMPO_RTI_BIN=$(RTI_SAN_BIN) $(O)/tests/integration/rti_hostile_test
$(O)/tests/fuzz/%_replay: $(O)/tests/fuzz/%.o $(O)/tests/fuzz/replay_main.o \
                          $(call lib_path,fmu) $(call lib_path,proto) $(call lib_path,fom)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(ALL_LDLIBS) $(LDFLAGS)
