# mk/63-semi.mk: semi-implicit coupling with quasi-Newton (algorithms/semi.c,
# doc/algorithms/semi-implicit.md) and its unit tests over closed-form fakes.
# See the Makefile header for the variables this fragment fills in.

UNIT_TESTS += tests/unit/semi_test
semi_test_LIBS := algo
# The Lorenz case study over real FMUs in one process, each solver variant against the
# monolithic FMU (examples/lorenz_semi.json).
UNIT_TESTS += tests/unit/semi_fmu_test
semi_fmu_test_LIBS := run config fmu algo fom
$(O)/tests/unit/semi_fmu_test: build/fmus/gain_cs.fmu build/fmus/lv_me.fmu build/fmus/vanderpol_me.fmu \
  build/fmus/lv_prey_me.fmu build/fmus/lv_predator_me.fmu build/fmus/vdp_x_me.fmu build/fmus/vdp_y_me.fmu \
  build/fmus/lorenz_me.fmu build/fmus/lorenz_x_me.fmu \
                               build/fmus/lorenz_yz_me.fmu
# Strong coupling with CVODE in the master (algorithms/strong.c,
# doc/algorithms/strong-coupling.md), tested over closed-form evaluator fakes.
UNIT_TESTS += tests/unit/strong_test
strong_test_LIBS := algo
