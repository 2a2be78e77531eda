# mk/50-fmu.mk: see the Makefile header for the variables this fragment fills in.
