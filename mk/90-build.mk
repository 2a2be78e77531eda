# mk/90-build.mk: the build and installation themselves (the top-level Makefile): a fresh
# machine simulated, make install into a temporary prefix, every program's command line.
# See the Makefile header for the variables this fragment fills in.
INTEG_SCRIPTS += tests/integration/build_fresh.sh

# The examples include <tempo/tempo.h>, as a program built against an installed libtempo does
# (doc/guide.md): in the tree that header comes from a copy under build/include.
TEMPO_INC := build/include
$(TEMPO_INC)/tempo/tempo.h: federate/libtempo/tempo.h
	@mkdir -p $(@D)
	cp $< $@
EXAMPLE_OBJS := $(O)/examples/producer.o $(O)/examples/consumer.o
$(EXAMPLE_OBJS): $(TEMPO_INC)/tempo/tempo.h
$(EXAMPLE_OBJS): private ALL_CFLAGS += -I$(TEMPO_INC)
INTEG_SCRIPTS += tests/integration/install.sh
INTEG_SCRIPTS += tests/integration/cli_help.sh
CHECK_TESTS += tests/integration/cli_help.sh
INTEG_SCRIPTS += tests/integration/plot_render.sh
