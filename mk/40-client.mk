# mk/40-client.mk: see the Makefile header for the variables this fragment fills in.
