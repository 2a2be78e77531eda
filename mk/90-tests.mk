# mk/90-tests.mk: see the Makefile header for the variables this fragment fills in.
UNIT_TESTS += tests/unit/selftest_test
selftest_test_LIBS := fom
