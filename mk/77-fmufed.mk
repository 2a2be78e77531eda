# mk/77-fmufed.mk: the FMU federate: its pieces (fmufed.c puts together the model
# fmufed_model.c, the rows fmufed_rec.c and the libtempo exchange fmufed_tp.c; the algorithms
# are in algorithms/, doc/algorithms/port.md), the slave role of master methods
# (fmufed_slave.c, doc/master.md), its command line (tempo-fmu --federation, fmufed_cli.c; the
# program is in mk/50-fmu.mk), and integration tests running real federations on the example
# FMUs.
# See the Makefile header for the variables this fragment fills in.
FMUFED_SRCS += federate/fmufed/fmufed.c federate/fmufed/fmufed_model.c federate/fmufed/fmufed_rec.c \
               federate/fmufed/fmufed_tp.c federate/fmufed/fmufed_cli.c federate/fmufed/fmufed_slave.c \
               federate/fmufed/fmufed_all.c federate/fmufed/fmufed_prof.c

INTEG_TESTS += tests/integration/fmufed_lv_test
fmufed_lv_test_LIBS := run fmu client proto fom
INTEG_SCRIPTS += tests/integration/fmufed_errors.sh
BENCHES += tests/bench/fmufed_bench
fmufed_bench_LIBS := fmu client proto fom
INTEG_TESTS += tests/integration/fmufed_osc_test
fmufed_osc_test_LIBS := run fmu client proto fom
# Every peer example file in process (tempo-run --in-process, tempo-fmu --all) and distributed:
# the same bits and the same grants in the two federation logs (doc/inproc.md).
INTEG_SCRIPTS += tests/integration/inproc_examples.sh tests/integration/inproc_examples_2.sh
# Checkpoints of tempo-fmu's model and algorithm over the example FMUs (no RTI).
UNIT_TESTS += tests/unit/fmufed_prof_test
fmufed_prof_test_LIBS := fmufed algo
UNIT_TESTS += tests/unit/fmufed_ckpt_test
fmufed_ckpt_test_LIBS := fmufed msproto run config fmu algo client proto fom
$(O)/tests/unit/fmufed_ckpt_test: $(FMU_DIR)/lv_prey_me.fmu $(FMU_DIR)/lv_predator_me.fmu \
                                  $(FMU_DIR)/lv_prey_cs.fmu $(FMU_DIR)/lv_predator_cs.fmu
# Checkpoints end to end (doc/checkpoint.md "Checking it"): run, kill -9 every process after
# the checkpoint, resume; same CSV bytes and grants; TEMPO_CKPT_FULL=1 for every peer file.
INTEG_SCRIPTS += tests/integration/ckpt_resume.sh
