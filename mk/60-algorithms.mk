# mk/60-algorithms.mk: see the Makefile header for the variables this fragment fills in.
