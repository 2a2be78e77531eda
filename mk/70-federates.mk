# mk/70-federates.mk: see the Makefile header for the variables this fragment fills in.
