# SPDX-License-Identifier: GPL-2.0
# Hierarchical CPU idle for Arm: the patch series against Debian's Linux 6.1
# (and 7.3: BASE=7.3) and the tools that build, test and check it. `make
# help` lists the targets and the variables that steer them;
# docs/architecture.md shows how a target reaches its summary line.

.DEFAULT_GOAL := help
SHELL := /bin/bash
T := tools

#: BASE            the kernel: 6.1 (Debian 12's linux-source-6.1) or 7.3 (linux-source-7.3 of trixie-backports)
BASE ?= 6.1
BASES := 6.1 7.3
other_bases := $(filter-out 6.1,$(BASES))
ifeq ($(filter $(BASE),$(BASES)),)
$(error BASE=$(BASE): the bases are $(BASES))
endif
# A base's tree and outputs: build/ for 6.1, build/BASE/ for another; its
# series: patches/, patches/BASE/ (the same rule as tools/lib/common.sh's).
B := build$(if $(filter-out 6.1,$(BASE)),/$(BASE))
TREE := $(B)/linux
KERNEL := $(B)/kunit-arm64
RESULTS := $(B)/results
# Its checks and suites: kunit/checks and kunit/suites for 6.1,
# kunit/BASE/ for another.
K := kunit$(if $(filter-out 6.1,$(BASE)),/$(BASE))
base_arg := $(if $(filter-out 6.1,$(BASE)),--base $(BASE))
# Targets that have no form for another base yet.
only_6.1 := repeat trace lava check-configs kunit-tree mutants fresh-check \
	bench-cputime x86
ifneq ($(BASE),6.1)
ifneq ($(filter $(only_6.1),$(MAKECMDGOALS)),)
$(error make $(filter $(only_6.1),$(MAKECMDGOALS)) runs on BASE=6.1 only (docs/workflow.md))
endif
endif

#: DEMO_TOPOLOGY   make demo's topology (kunit/topologies/NAME): TOPOLOGY, else osi-1x4
DEMO_TOPOLOGY ?= $(or $(TOPOLOGY),osi-1x4)
#: DEMO_POLICY     make demo's CPU governor policy of PM domains: pending (default), timers, learn
DEMO_POLICY ?= pending
#: BOOT_JOBS       make test, test-debug, test-faults, test-boards, test-tfa: boots at a time (2; docs/ci.md)
BOOT_JOBS ?= 2
#: KUNIT_FILTER    make kunit: the suites to run (kunit.py's filter_glob, e.g. genpd_*; all)
KUNIT_FILTER ?=
#: VARIANT         make kernel, test-boards, check-dt, prove-fixes: the kernel (debug: make test-debug's)
VARIANT ?=
#: CHECKS          make prove-fixes: the base's list of checks to run (test; faults with VARIANT=debug)
CHECKS ?=
#: FIXES           make prove-fixes: only the fixes whose subject holds one of these words (all)
FIXES ?=
#: DTB             make check-dt: the board's DTB (make dtbs builds them in build/dtbs/arch/arm64/boot/dts/)
DTB ?=
#: DTBS            make dtbs: kbuild DTB targets (qcom/sdm845-db845c.dtb ...)
DTBS ?=
#: TOPOLOGY        make repeat, trace (osi-2x4-system), lava and demo (osi-1x4): a topology
TOPOLOGY ?=
#: COUNT           make repeat: how many boots (20)
COUNT ?= 20
#: BASE_URL        make lava: where the QEMU job's artifacts will be uploaded
BASE_URL ?= https://lab.example.org/artifacts/hierarchical-idle
#: BENCH_CPUS      make bench: the CPU counts measured (4 16 64 256)
BENCH_CPUS ?= 4 16 64 256
#: EACH_FROM       make each-patch: the first patch checked (1)
EACH_FROM ?= 1
#: EACH_ONLY       make each-patch: only these patches ("3 7"), counted across the series
EACH_ONLY ?=
#: TFA_CORES       make tfa: the machine's CPUs TF-A is built for (4, 8, 16 or 32)
TFA_CORES ?= 4
#: ALLTESTS        make kunit-tree: also kunit.py --alltests (yes), or only it (only)
ALLTESTS ?= no
#: TRACES          make sim: recorded traces to replay beside the synthetic ones
TRACES ?=

variant_kernel = $(KERNEL)$(if $(VARIANT),-$(VARIANT))
variant_sfx = $(if $(VARIANT),-$(VARIANT))
# The debug kernel boots on the debug machine (tools/harness/machine.py).
variant_machine = $(if $(filter debug,$(VARIANT)),--machine debug)
ensure_tree = @$(T)/series/make-tree.sh $(base_arg) --ensure
build_kernel = @$(T)/kernel/build-kernel.py --tree $(TREE)
run = @$(T)/run/runner.py --jobs $(BOOT_JOBS)

.PHONY: help deps tree tree-reset export postable kernel demo kunit test test-debug test-faults test-boards test-tfa \
	check check-configs check-dt dtbs kunit-tree each-patch mutants prove-fixes fresh-check repeat \
	bench bench-cputime sim trace lava x86 tfa ci clean

help: ## this list, then the variables
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 15
	@echo; echo "Variables (make VAR=value TARGET):"
	@sed -n 's/^#: /  /p' $(MAKEFILE_LIST)

# --- The series and its tree -------------------------------------------

deps: ## install the Debian packages the build needs (only those missing)
	@$(T)/series/install-deps.sh $(base_arg)

tree: deps ## build/linux: pristine 6.1 + the four series of patches/, as a git tree (BASE=7.3: build/7.3/linux)
	@$(T)/series/make-tree.sh $(base_arg)

tree-reset: deps ## rebuild build/linux from patches/, saving local commits on a branch
	@$(T)/series/make-tree.sh $(base_arg) --reset

export: ## write the commits of build/linux back into patches/, series by series
	@$(T)/series/export-series.sh $(base_arg)

postable: deps ## the series as you post them, in build/postable/: your git identity and Signed-off-by (DCO)
	$(ensure_tree)
	@$(T)/series/postable.sh $(base_arg)

# --- Build and run ------------------------------------------------------

kernel: deps ## build the test kernel into build/kunit-arm64 (VARIANT=debug: the debug kernel; BASE=7.3: build/7.3/)
	$(ensure_tree)
	$(build_kernel) $(if $(VARIANT),--variant $(VARIANT))

demo: deps ## boot the series in QEMU, OSI mode on DEMO_TOPOLOGY, print the idle report (build/demo/)
	$(ensure_tree)
	$(build_kernel)
	@$(T)/boot/demo.py --kernel $(KERNEL) --out $(B)/demo --topology $(DEMO_TOPOLOGY) \
		--policy $(DEMO_POLICY)

kunit: deps ## the inner loop: build incrementally and run the KUnit suites only
	$(ensure_tree)
	$(build_kernel)
	$(run) --list $(K)/checks/kunit --kernel $(KERNEL) --out $(RESULTS)/kunit \
		$(if $(KUNIT_FILTER),--filter '$(KUNIT_FILTER)',--suites $(K)/suites)

test: deps ## build for arm64, run the KUnit suites and the checks of kunit/checks/test
	$(ensure_tree)
	$(build_kernel)
	$(run) --list $(K)/checks/test --kernel $(KERNEL) --out $(RESULTS)/test --suites $(K)/suites

test-debug: deps ## make test on the debug kernel (lockdep, KASAN, UBSAN, KFENCE, kmemleak...)
	$(ensure_tree)
	$(build_kernel) --variant debug
	$(run) --list $(K)/checks/test --kernel $(KERNEL)-debug --out $(RESULTS)/test-debug \
		--suites $(K)/suites --machine debug

test-faults: deps ## the debug kernel with each allocation of the PSCI domain probe and CPU attach failed in turn
	$(ensure_tree)
	$(build_kernel) --variant debug
	$(run) --list $(K)/checks/faults --kernel $(KERNEL)-debug --out $(RESULTS)/faults \
		--machine debug --timeout 43200

test-boards: deps ## boot the in-tree board corpus and the hand-written boards (kunit/checks/boards)
	$(ensure_tree)
	$(build_kernel) $(if $(VARIANT),--variant $(VARIANT))
	$(run) --list $(K)/checks/boards --kernel $(variant_kernel) \
		--out $(RESULTS)/boards$(variant_sfx) $(variant_machine)

test-tfa: deps ## the test kernel under Trusted Firmware-A in OSI mode, the model in shadow mode (kunit/checks/tfa)
	$(ensure_tree)
	$(build_kernel)
	$(run) --list $(K)/checks/tfa --kernel $(KERNEL) --out $(RESULTS)/tfa

check-dt: deps ## check a board's idle topology in QEMU and print the report (DTB=board.dtb)
	$(ensure_tree)
	$(build_kernel) $(if $(VARIANT),--variant $(VARIANT))
	@$(T)/dt/check-dt.sh --kernel $(variant_kernel) --out $(B)/check-dt$(variant_sfx) $(variant_machine) \
		$(or $(DTB),$(error DTB=board.dtb is needed; make dtbs DTBS=qcom/sdm845-db845c.dtb builds build/dtbs/arch/arm64/boot/dts/qcom/sdm845-db845c.dtb))

dtbs: deps ## build board DTBs from the tree into build/dtbs (DTBS=...)
	$(ensure_tree)
	@$(T)/kernel/build-dtbs.sh $(base_arg) --out $(B)/dtbs $(or $(DTBS),$(error DTBS=vendor/board.dtb is needed))

repeat: deps ## boot one topology COUNT times (osi-2x4-system x 20, ~9 min) and print each boot's model counts
	$(ensure_tree)
	$(build_kernel)
	@$(T)/boot/repeat.sh --kernel $(KERNEL) --out build/repeat $(or $(TOPOLOGY),osi-2x4-system) $(COUNT)

trace: deps ## the trace kernel: its suites, a topology boot's idle trace, replayed in the simulator
	$(ensure_tree)
	$(build_kernel) --variant trace
	$(run) --list $(K)/checks/kunit --kernel $(KERNEL)-trace --out $(RESULTS)/trace \
		--suites $(K)/suites
	@$(T)/sim/record-trace.sh --kernel $(KERNEL)-trace --out build/traces $(or $(TOPOLOGY),osi-2x4-system)

lava: deps ## write the LAVA jobs (QEMU, db845c and FVP templates) and their artifacts into build/lava
	$(ensure_tree)
	$(build_kernel)
	@$(T)/lab/lava-jobs.py write --out build/lava --kernel $(KERNEL) \
		--topology $(or $(TOPOLOGY),osi-1x4) --base-url $(BASE_URL)

# --- Review gates -------------------------------------------------------

check: deps ## checkpatch --strict, sign-offs, prefixes, the series apply; bindings; sparse; KUNIT_ALL_TESTS; LAVA jobs; the runner
	$(ensure_tree)
	@$(T)/run/test-runner.py
	@$(T)/check/series.sh $(base_arg)
	@$(T)/check/bindings.sh $(base_arg)
	@$(T)/check/sparse.sh $(base_arg)
	@[ "$(BASE)" != 6.1 ] || $(T)/check/configs.sh alltests
	@$(T)/lab/lava-jobs.py write --out $(B)/lava-check
	@$(T)/lab/lava-jobs.py validate $(B)/lava-check/*.yaml

check-configs: deps ## the series builds with KUNIT=n, KUNIT=m, and in arm64 defconfig (scaled time on, off); KUNIT_ALL_TESTS
	$(ensure_tree)
	@$(T)/check/configs.sh

kunit-tree: deps ## kunit.py run --kunitconfig=DIR in build/linux for each suite's directory
	$(ensure_tree)
	@$(T)/kernel/kunit-tree.sh --alltests $(ALLTESTS)

each-patch: deps ## build and test every prefix of the series (bisectability)
	$(ensure_tree)
	@$(T)/run/each-patch.sh $(base_arg) --from $(EACH_FROM) $(if $(EACH_ONLY),--only "$(EACH_ONLY)")

mutants: deps ## break each tested rule in turn and show which cases catch it
	$(ensure_tree)
	@$(T)/run/mutants.py

prove-fixes: deps ## take each fix of the base's fixes series out in turn and show which checks fail
	$(ensure_tree)
	@$(T)/run/prove-fixes.py --base $(BASE) $(if $(VARIANT),--variant $(VARIANT)) \
		$(if $(CHECKS),--checks $(CHECKS)) $(FIXES)

fresh-check: deps ## make demo then make test in a bare Debian 12 root (debootstrap, chroot)
	@$(T)/run/fresh-check.sh

# --- Measurements -------------------------------------------------------

bench: deps ## instructions per governor decision: the pristine base, the series under each policy
	$(ensure_tree)
	@$(T)/bench/governor.sh $(base_arg) $(BENCH_CPUS)

bench-cputime: deps ## instructions per tick of CPU time accounting: 6.1, scaled time off and on
	$(ensure_tree)
	@$(T)/bench/cputime.sh

sim: deps ## replay idle traces through the kernel's domain-state decision (synthetic, TRACES=...)
	$(ensure_tree)
	@$(T)/sim/governor-sim.py --tree $(TREE) --out $(B)/sim --synthetic $(TRACES)

x86: deps ## build the series for x86-64 (defconfig + scaled CPU time) and run its suite in QEMU
	$(ensure_tree)
	@$(T)/kernel/build-x86.sh

tfa: deps ## Trusted Firmware-A for QEMU in OSI mode (Debian's source): build/tfa/ (docs/tfa.md)
	@$(T)/firmware/build-tfa.sh --cores $(TFA_CORES)

ci: ## what .ci/run does: check, test-debug, test, test-tfa, test-boards (both kernels), test, test-tfa and test-boards BASE=7.3
	@.ci/run

clean: ## remove every output of the tools, keep each base's tree (and build/fresh-root: rm it by hand, unmounted)
	@for b in build $(addprefix build/,$(other_bases)); do \
		[ -d $$b ] || continue; \
		find $$b -mindepth 1 -maxdepth 1 ! -name linux ! -name fresh-root \
			$(foreach o,$(other_bases),! -path build/$(o)) -exec rm -rf {} +; \
		git -C $$b/linux worktree prune 2>/dev/null || true; \
	done
	@find tools kunit -name __pycache__ -prune -exec rm -rf {} +
