# mk/90-build.mk: the build and installation themselves (the top-level Makefile): a fresh
# machine simulated, make install into a temporary prefix, every program's command line.
# See the Makefile header for the variables this fragment fills in.
INTEG_SCRIPTS += tests/integration/build_fresh.sh
