# mk/90-tests.mk: see the Makefile header for the variables this fragment fills in.
# (Each component lists its own tests in its fragment; nothing project-wide here yet.)
