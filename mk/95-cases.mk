# mk/95-cases.mk: `make cases` rewrites the generated figure tables of the docs
# (doc/cases/figures/, doc/cases/README.md; doc/cases/README.md "How the figures are made"):
# it runs every test that writes figures with TEMPO_WRITE_FIGURES=1, then tests/cases_readme.sh.
# Run it after a change that moves a figure, read the diff, commit it. The tests themselves
# fail when the committed tables and a fresh run differ.
INTEG_SCRIPTS += tests/integration/cases_doc.sh
CASES_RUNS := $(O)/tests/unit/energy_test $(O)/tests/unit/defect_test $(O)/tests/unit/wr_test $(O)/tests/unit/semi_test $(O)/tests/unit/strong_test $(O)/tests/unit/wr_fmu_test $(O)/tests/unit/semi_fmu_test \
  $(O)/tests/unit/hybrid_fmu_test $(O)/tests/unit/f3ornits_test $(O)/tests/unit/strong_fmu_test \
  tests/integration/balance_cases.sh tests/integration/f3ornits_master_test.sh \
  tests/integration/run_cases.sh tests/integration/defect_run.sh \
  $(O)/tests/integration/fmufed_lv_test $(O)/tests/integration/fmufed_osc_test \
  tests/integration/houses_test.sh
.PHONY: cases
cases: all
	@for t in $(CASES_RUNS); do \
	  echo "make cases: $$t"; TEMPO_WRITE_FIGURES=1 $$t | tail -1; done
	@tests/cases_readme.sh
	@git status --short doc/cases 2>/dev/null || true
