# mk/10-fom.mk: see the Makefile header for the variables this fragment fills in.
