# mk/95-python.mk: the Python package tempo (python/, doc/python.md): pure Python over
# lib/libtempo.so through ctypes, so nothing is compiled here. Its tests (tests/python/, run by
# pytest on the build tree and on an installed copy) and its benchmark against the same calls
# from C; make install puts the package where $(PYTHON) finds it. See the Makefile header for
# the variables this fragment fills in.
# in two halves the runner spreads over the cores: the build tree's, the installed copy's
INTEG_SCRIPTS += tests/integration/python_test.sh tests/integration/python_install.sh
# bench_cycle takes the RTI's address: python_bench.sh runs it (make bench runs BENCHES bare).
EXTRA_ALL += $(O)/tests/bench/bench_cycle
bench_cycle_LIBS := client proto fom
BENCH_SCRIPTS += tests/bench/python_bench.sh
# tempo-slave runs a federation file's "python" federates (doc/python.md); tempo-run finds it
# beside itself.
EXTRA_ALL += bin/tempo-slave
bin/tempo-slave: python/tempo-slave
	@mkdir -p bin
	install -m 755 $< $@

# Where the package goes: Debian's python3 reads /usr/lib/python3/dist-packages for the
# system's packages and PREFIX/lib/python3.X/dist-packages for /usr/local (and any other
# prefix, when it is on PYTHONPATH). Evaluated only when installing.
PYTHON_VERSION = $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])')
PYTHONDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3/dist-packages,$(PREFIX)/lib/python$(PYTHON_VERSION)/dist-packages)
PYTHON_PKG_FILES := $(wildcard python/tempo/*.py)

.PHONY: install-python uninstall-python
install: install-python
uninstall: uninstall-python
# The package, and tempo/_paths.py naming the prefix's bin/ and lib/, so that the installed
# package loads the installed libtempo.so.0 and runs the installed tempo-run (python/tempo/_lib.py);
# the Python examples beside the C ones in share/tempo/examples/python.
install-python:
	install -d $(DESTDIR)$(PYTHONDIR)/tempo $(DESTDIR)$(DATADIR)/examples/python
	install -m 755 $(wildcard examples/python/*.py) $(DESTDIR)$(DATADIR)/examples/python/
	install -m 644 $(filter-out python/tempo/_paths.py,$(PYTHON_PKG_FILES)) $(DESTDIR)$(PYTHONDIR)/tempo/
	install -d $(DESTDIR)$(PREFIX)/bin
	sed 's#@PYTHONDIR@#$(PYTHONDIR)#' python/tempo-slave >$(DESTDIR)$(PREFIX)/bin/tempo-slave
	chmod 755 $(DESTDIR)$(PREFIX)/bin/tempo-slave
	printf '"""Written by make install: where this copy of the package was installed."""\nBINDIR = "%s"\nLIBDIR = "%s"\n' \
	  '$(PREFIX)/bin' '$(PREFIX)/lib' >$(DESTDIR)$(PYTHONDIR)/tempo/_paths.py
uninstall-python:
	rm -rf $(DESTDIR)$(PYTHONDIR)/tempo
	rm -f $(DESTDIR)$(PREFIX)/bin/tempo-slave
