# mk/55-fmus.mk: see the Makefile header for the variables this fragment fills in.
