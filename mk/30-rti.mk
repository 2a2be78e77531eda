# mk/30-rti.mk: see the Makefile header for the variables this fragment fills in.
