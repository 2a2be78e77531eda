# mk/55-fmus.mk: the example FMUs of examples/fmus/ (doc/fmu.md, doc/example-fmus.md).
#
# Each model NAME is one file examples/fmus/NAME/NAME.c defining `fw_model_def` (see
# examples/fmus/framework/fw.h). For every model the build
#   1. compiles NAME.c with the framework into build/fmus/so/NAME.so (-fPIC -shared, hidden
#      visibility except the fmi2* functions, never sanitized: a host loads it with dlopen);
#   2. links NAME.c with fw_mdgen.c into a generator that writes modelDescription.xml for the
#      model-exchange ("me") and co-simulation ("cs") kinds;
#   3. lays out build/fmus/stage/NAME_KIND/{modelDescription.xml,binaries/linux64/NAME.so} and
#      zips it into build/fmus/NAME_KIND.fmu.
# Adding a model: create examples/fmus/NAME/NAME.c and add NAME to FMU_MODELS below. A model
# with only one kind sets NAME_FMU_KINDS := cs (or me).

FMU_MODELS := dahlquist vanderpol bouncingball stair \
              lv_prey lv_predator lv \
              osc_omega2tau osc_tau2omega osc_twomass \
              spring mass springmass \
              lorenz_x lorenz_yz lorenz \
              vdp_x vdp_y bball_stairs bball_ball bball_steps passthrough \
              house environment gain
# The F3ORNITS speed-control case: the car and its controller (co-simulation only: it reads
# its input's derivative).
FMU_MODELS += car speedctl
speedctl_FMU_KINDS := cs
FMU_MODELS += chain_heavy chain_light lin_half
# Outputs its own time: the integer-tick test (tests/integration/ticks_end.sh).
FMU_MODELS += clock
# The fault matrix (doc/robustness.md): an FMU that fails on demand (both kinds: method
# "strong" needs model exchange), and one declaring canBeInstantiatedOnlyOncePerProcess.
FMU_MODELS += fault once
# The ball on stairs has a stiff contact (1e6): model exchange only, integrated by CVODE BDF
# (the framework's explicit Dormand-Prince CS solver drifts by several per cent over 30 s).
bball_stairs_FMU_KINDS := me
bball_ball_FMU_KINDS := me
bball_steps_FMU_KINDS := me

FMU_DIR  := build/fmus
FW_SRCS  := examples/fmus/framework/fw_fmi.c examples/fmus/framework/fw_cs.c \
            examples/fmus/framework/fw_rk.c examples/fmus/framework/fw_desc.c \
            examples/fmus/framework/fw_fmi3.c
FW_OBJS  := $(patsubst examples/fmus/%.c,$(FMU_DIR)/obj/%.o,$(FW_SRCS))
FW_GEN_OBJS := $(FMU_DIR)/obj/framework/fw_mdgen.o $(FMU_DIR)/obj/framework/fw_desc.o
# FMU objects: release flags, no sanitizers (CFLAGS_OPT is not used on purpose).
FMU_CFLAGS := $(CFLAGS_BASE) -O2 -fPIC -fvisibility=hidden

fmu_kinds = $(or $($(1)_FMU_KINDS),me cs)
EXAMPLE_FMUS := $(foreach m,$(FMU_MODELS),$(foreach k,$(call fmu_kinds,$(m)),$(FMU_DIR)/$(m)_$(k).fmu))
# The same models in FMI 3.0 form (doc/fmu.md "FMI 3.0"): build/fmus/fmi3/NAME_KIND.fmu, the
# same binary (it exports both fmi2* and fmi3* functions, fw_fmi3.c) under
# binaries/x86_64-linux/, with an FMI 3.0 modelDescription.xml. A federation file runs them
# unchanged but for the paths (tests/integration/fmi3_examples.sh).
EXAMPLE_FMUS3 := $(foreach m,$(FMU_MODELS),$(foreach k,$(call fmu_kinds,$(m)),$(FMU_DIR)/fmi3/$(m)_$(k).fmu))
EXTRA_ALL += $(EXAMPLE_FMUS) $(EXAMPLE_FMUS3)

$(FMU_DIR)/obj/%.o: examples/fmus/%.c
	@mkdir -p $(@D)
	$(CC) $(FMU_CFLAGS) -MMD -MP -c $< -o $@

# The same binaries built with ASan+UBSan, loaded only by the sanitized fmus_* tests (a
# sanitized host may load them; an ordinary host may not, so they never go into a .fmu).
FMU_SAN_CFLAGS := $(CFLAGS_BASE) -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
                  -fno-sanitize-recover=undefined -fPIC -fvisibility=hidden
FW_SAN_OBJS := $(patsubst examples/fmus/%.c,$(FMU_DIR)/san/obj/%.o,$(FW_SRCS))
FMU_SAN_SOS := $(foreach m,$(FMU_MODELS),$(FMU_DIR)/san/$(m).so)

$(FMU_DIR)/san/obj/%.o: examples/fmus/%.c
	@mkdir -p $(@D)
	$(CC) $(FMU_SAN_CFLAGS) -MMD -MP -c $< -o $@

define fmu_model_rules
$(FMU_DIR)/san/$(1).so: $(FMU_DIR)/san/obj/$(1)/$(1).o $(FW_SAN_OBJS)
	@mkdir -p $$(@D)
	$(CC) -shared -fsanitize=address,undefined -o $$@ $$^ -lm

$(FMU_DIR)/so/$(1).so: $(FMU_DIR)/obj/$(1)/$(1).o $(FW_OBJS)
	@mkdir -p $$(@D)
	$(CC) -shared -Wl,-z,defs -o $$@ $$^ -lm

$(FMU_DIR)/gen/$(1)_mdgen: $(FMU_DIR)/obj/$(1)/$(1).o $(FW_GEN_OBJS)
	@mkdir -p $$(@D)
	$(CC) -o $$@ $$^ -lm

endef

define fmu_kind_rule
$(FMU_DIR)/$(1)_$(2).fmu: $(FMU_DIR)/so/$(1).so $(FMU_DIR)/gen/$(1)_mdgen
	@rm -rf $(FMU_DIR)/stage/$(1)_$(2) $$@
	@mkdir -p $(FMU_DIR)/stage/$(1)_$(2)/binaries/linux64
	$(FMU_DIR)/gen/$(1)_mdgen $(2) $(FMU_DIR)/stage/$(1)_$(2)/modelDescription.xml
	cp $(FMU_DIR)/so/$(1).so $(FMU_DIR)/stage/$(1)_$(2)/binaries/linux64/$(1).so
	cd $(FMU_DIR)/stage/$(1)_$(2) && zip -q -X -r ../../$(1)_$(2).fmu modelDescription.xml binaries
endef
define fmu_kind_rule3
$(FMU_DIR)/fmi3/$(1)_$(2).fmu: $(FMU_DIR)/so/$(1).so $(FMU_DIR)/gen/$(1)_mdgen
	@rm -rf $(FMU_DIR)/stage3/$(1)_$(2) $$@
	@mkdir -p $(FMU_DIR)/stage3/$(1)_$(2)/binaries/x86_64-linux $(FMU_DIR)/fmi3
	$(FMU_DIR)/gen/$(1)_mdgen $(2)3 $(FMU_DIR)/stage3/$(1)_$(2)/modelDescription.xml
	cp $(FMU_DIR)/so/$(1).so $(FMU_DIR)/stage3/$(1)_$(2)/binaries/x86_64-linux/$(1).so
	cd $(FMU_DIR)/stage3/$(1)_$(2) && zip -q -X -r ../../fmi3/$(1)_$(2).fmu modelDescription.xml binaries
endef
$(foreach m,$(FMU_MODELS),$(eval $(call fmu_model_rules,$(m))))
$(foreach m,$(FMU_MODELS),$(foreach k,$(call fmu_kinds,$(m)),$(eval $(call fmu_kind_rule3,$(m),$(k)))))
$(foreach m,$(FMU_MODELS),$(foreach k,$(call fmu_kinds,$(m)),$(eval $(call fmu_kind_rule,$(m),$(k)))))

# feedthrough3: an FMI 3.0 FMU written by hand against federate/fmu/fmi3.h (every type,
# arrays), both kinds from one binary and one modelDescription.xml with both elements.
$(FMU_DIR)/obj/fmus3/feedthrough3.o: examples/fmus3/feedthrough3.c
	@mkdir -p $(@D)
	$(CC) $(FMU_CFLAGS) -MMD -MP -c $< -o $@
$(FMU_DIR)/so/feedthrough3.so: $(FMU_DIR)/obj/fmus3/feedthrough3.o
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-z,defs -o $@ $^
$(FMU_DIR)/fmi3/feedthrough3.fmu: $(FMU_DIR)/so/feedthrough3.so examples/fmus3/modelDescription.xml
	@rm -rf $(FMU_DIR)/stage3/feedthrough3 $@
	@mkdir -p $(FMU_DIR)/stage3/feedthrough3/binaries/x86_64-linux $(FMU_DIR)/fmi3
	cp examples/fmus3/modelDescription.xml $(FMU_DIR)/stage3/feedthrough3/
	cp $< $(FMU_DIR)/stage3/feedthrough3/binaries/x86_64-linux/feedthrough3.so
	cd $(FMU_DIR)/stage3/feedthrough3 && zip -q -X -r ../../fmi3/feedthrough3.fmu modelDescription.xml binaries
EXAMPLE_FMUS3 += $(FMU_DIR)/fmi3/feedthrough3.fmu
EXTRA_ALL += $(FMU_DIR)/fmi3/feedthrough3.fmu

# statespace3: x' = A x + B u, y = C x + D u with arrays sized by structural parameters (the
# Reference FMU StateSpace's interface), written by hand; its description is statespace3.xml.
$(FMU_DIR)/obj/fmus3/statespace3.o: examples/fmus3/statespace3.c
	@mkdir -p $(@D)
	$(CC) $(FMU_CFLAGS) -MMD -MP -c $< -o $@
$(FMU_DIR)/so/statespace3.so: $(FMU_DIR)/obj/fmus3/statespace3.o
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-z,defs -o $@ $^ -lm
$(FMU_DIR)/fmi3/statespace3.fmu: $(FMU_DIR)/so/statespace3.so examples/fmus3/statespace3.xml
	@rm -rf $(FMU_DIR)/stage3/statespace3 $@
	@mkdir -p $(FMU_DIR)/stage3/statespace3/binaries/x86_64-linux $(FMU_DIR)/fmi3
	cp examples/fmus3/statespace3.xml $(FMU_DIR)/stage3/statespace3/modelDescription.xml
	cp $< $(FMU_DIR)/stage3/statespace3/binaries/x86_64-linux/statespace3.so
	cd $(FMU_DIR)/stage3/statespace3 && zip -q -X -r ../../fmi3/statespace3.fmu modelDescription.xml binaries
EXAMPLE_FMUS3 += $(FMU_DIR)/fmi3/statespace3.fmu
EXTRA_ALL += $(FMU_DIR)/fmi3/statespace3.fmu

# clocks3: input clocks whose intervals the FMU tells at run time (countdown, changing,
# tunable), written by hand; its description is clocks3.xml.
$(FMU_DIR)/obj/fmus3/clocks3.o: examples/fmus3/clocks3.c
	@mkdir -p $(@D)
	$(CC) $(FMU_CFLAGS) -MMD -MP -c $< -o $@
$(FMU_DIR)/so/clocks3.so: $(FMU_DIR)/obj/fmus3/clocks3.o
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-z,defs -o $@ $^ -lm
$(FMU_DIR)/fmi3/clocks3.fmu: $(FMU_DIR)/so/clocks3.so examples/fmus3/clocks3.xml
	@rm -rf $(FMU_DIR)/stage3/clocks3 $@
	@mkdir -p $(FMU_DIR)/stage3/clocks3/binaries/x86_64-linux $(FMU_DIR)/fmi3
	cp examples/fmus3/clocks3.xml $(FMU_DIR)/stage3/clocks3/modelDescription.xml
	cp $< $(FMU_DIR)/stage3/clocks3/binaries/x86_64-linux/clocks3.so
	cd $(FMU_DIR)/stage3/clocks3 && zip -q -X -r ../../fmi3/clocks3.fmu modelDescription.xml binaries
EXAMPLE_FMUS3 += $(FMU_DIR)/fmi3/clocks3.fmu
EXTRA_ALL += $(FMU_DIR)/fmi3/clocks3.fmu
INTEG_SCRIPTS += tests/integration/fmi3_examples.sh

.PHONY: fmus
fmus: $(EXAMPLE_FMUS) $(EXAMPLE_FMUS3)

# The framework's own tests: they dlopen each built model directly (no Tempo loader).
# fmus_framework_test checks the .fmu layout, the XML against the binary and the numbers
# against analytic solutions; fmus_robust_test the state machine, allocation failures and
# random call sequences. They need the FMUs built first; their sanitized builds load the
# sanitized binaries instead, so that the framework itself runs under ASan+UBSan.
FMUS_TESTS := fmus_framework_test fmus_robust_test
UNIT_TESTS += $(addprefix tests/unit/,$(FMUS_TESTS))
fmus_framework_test_LIBS :=
fmus_robust_test_LIBS :=
$(addprefix build/release/tests/unit/,$(FMUS_TESTS)): $(EXAMPLE_FMUS)
$(addprefix build/san/tests/unit/,$(FMUS_TESTS)): $(EXAMPLE_FMUS) $(FMU_SAN_SOS)
