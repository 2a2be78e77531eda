# mk/64-hybrid.mk: the hybrid algorithm with events, rewind and step-size control
# (algorithms/hybrid.c, doc/algorithms/hybrid.md), and its tests (its value in the algorithm table is
# federate/config/algo_hybrid.c).
# See the Makefile header for the variables this fragment fills in.

UNIT_TESTS += tests/unit/hybrid_test
hybrid_test_LIBS := algo
INTEG_SCRIPTS += tests/integration/hybrid_test.sh
# The plots of its page, rendered to PNG (tests/figures.sh plot_png_ok).
INTEG_SCRIPTS += tests/integration/hybrid_plots.sh
# The case study in one process: the bouncing ball on stairs against the monolithic FMU.
UNIT_TESTS += tests/unit/hybrid_fmu_test
hybrid_fmu_test_LIBS := run config fmu algo fom
$(O)/tests/unit/hybrid_fmu_test: build/fmus/bball_ball_me.fmu build/fmus/bball_steps_me.fmu \
                                 build/fmus/bouncingball_me.fmu build/fmus/bouncingball_cs.fmu \
                                 build/fmus/bball_stairs_me.fmu build/fmus/osc_twomass_me.fmu \
                                 build/fmus/osc_omega2tau_me.fmu build/fmus/osc_tau2omega_me.fmu
