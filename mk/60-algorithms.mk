# mk/60-algorithms.mk: the coupling algorithms algorithms/ (libc + libm only; doc/algorithms/).
# See the Makefile header for the variables this fragment fills in.
# Every file of algorithms/, found by name: a new coupling algorithm adds its files and no line
# here (doc/architecture.md, "Where a new coupling algorithm goes").
ALGO_SRCS += $(sort $(wildcard algorithms/*.c))

UNIT_TESTS += tests/unit/quantize_test tests/unit/extrap_test tests/unit/topology_test
quantize_test_LIBS := algo
extrap_test_LIBS := algo
topology_test_LIBS := algo
UNIT_TESTS += tests/unit/port_test
port_test_LIBS := algo
# Fault injection through the port (tests/unit/port_fault.h), which the algorithms' tests use.
UNIT_TESTS += tests/unit/port_fault_test
port_fault_test_LIBS := algo
UNIT_TESTS += tests/unit/peer_algos_test
peer_algos_test_LIBS := algo
# Checkpoints of the peer algorithms: saved inside every request, resumed, same bits.
UNIT_TESTS += tests/unit/peer_ckpt_test
peer_ckpt_test_LIBS := algo
UNIT_TESTS += tests/unit/balance_test
balance_test_LIBS := algo
# The explicit master over two example FMUs in one process (needs the FMUs and fmu_slave).
UNIT_TESTS += tests/unit/explicit_test
explicit_test_LIBS := fmu algo
$(O)/tests/unit/explicit_test: build/fmus/spring_me.fmu build/fmus/mass_me.fmu
# Negotiated power exchange over the same FMUs (power mode), beside the explicit scheme.
UNIT_TESTS += tests/unit/energy_test
energy_test_LIBS := fmu algo
$(O)/tests/unit/energy_test: build/fmus/spring_me.fmu build/fmus/mass_me.fmu
# Defect control (Glumac and Kovačić 2023): the pieces and the master over the port.
UNIT_TESTS += tests/unit/defect_test
defect_test_LIBS := algo
# The same over the example FMUs in one process (fmu_slave).
UNIT_TESTS += tests/unit/defect_fmu_test
defect_fmu_test_LIBS := fmu algo
$(O)/tests/unit/defect_fmu_test: $(FMU_DIR)/osc_omega2tau_cs.fmu $(FMU_DIR)/osc_tau2omega_cs.fmu
# The in-process runner of defect-control federation files (examples/osc_defect*.json).
PROGS += tempo-example-defect
tempo-example-defect_SRCS := examples/defect_run.c
tempo-example-defect_LIBS := run config fmu algo fom
INTEG_SCRIPTS += tests/integration/defect_run.sh
# The F3ORNITS Pareto comparison (RMSE against steps) of an f3ornits file, in one process.
PROGS += tempo-example-f3ornits
tempo-example-f3ornits_SRCS := examples/f3_pareto.c
tempo-example-f3ornits_LIBS := run config fmu algo fom
# F3ORNITS (Éguillon et al. 2021): the pieces.
UNIT_TESTS += tests/unit/f3ornits_test
f3ornits_test_LIBS := algo
# The explicit master's state between steps, cut and resumed (doc/checkpoint.md).
UNIT_TESTS += tests/unit/explicit_ckpt_test
explicit_ckpt_test_LIBS := algo
# The negotiated power exchange's state between steps, cut and resumed (doc/checkpoint.md).
UNIT_TESTS += tests/unit/energy_ckpt_test
energy_ckpt_test_LIBS := algo
