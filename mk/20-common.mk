# mk/20-common.mk: see the Makefile header for the variables this fragment fills in.
