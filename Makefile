# SPDX-License-Identifier: GPL-2.0
# Hierarchical CPU idle for Arm: the patch series against Debian's Linux 6.1
# and the tools that build, test and check it. `make help` lists the targets.

.DEFAULT_GOAL := help
SHELL := /bin/bash
T := tools

.PHONY: help deps tree tree-reset export demo test test-debug test-boards check-dt dtbs kunit check check-configs kunit-tree fresh-check repeat each-patch mutants bench bench-cputime sim trace lava x86 ci clean

help: ## this list
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 14

deps: ## install the Debian packages the build needs (only those missing)
	@$(T)/install-deps.sh

tree: deps ## build/linux: pristine 6.1 + the four series of patches/ (patches/series), as a git tree
	@$(T)/make-tree.sh

tree-reset: deps ## rebuild build/linux from patches/, saving local commits on a branch
	@$(T)/make-tree.sh --reset

export: ## write the commits of build/linux back into patches/, series by series (end/NAME branches)
	@$(T)/export-series.sh

demo: deps ## boot the series in QEMU, OSI mode on a 1x4 topology, and print the idle report (DEMO_POLICY=pending or learn: the governor's other policies)
	@$(T)/make-tree.sh --ensure
	@$(T)/demo.sh

test: deps ## build for arm64, run every KUnit suite in QEMU, then the guest checks and topology boots
	@$(T)/make-tree.sh --ensure
	@$(T)/run-kunit.sh

test-debug: deps ## make test on a debug kernel (lockdep, KASAN, UBSAN, KFENCE, kmemleak...): any report fails
	@$(T)/make-tree.sh --ensure
	@KERNEL_VARIANT=debug $(T)/run-kunit.sh

test-boards: deps ## boot the in-tree corpus (kunit/boards): each board's idle topology with the model and the workload (KERNEL_VARIANT=debug: on the debug kernel)
	@$(T)/make-tree.sh --ensure
	@$(T)/test-boards.sh

check-dt: deps ## check a board's idle topology in QEMU and print the report (DTB=board.dtb)
	@$(T)/make-tree.sh --ensure
	@$(T)/check-dt.sh $(or $(DTB),$(error DTB=board.dtb is needed; make dtbs DTBS=qcom/sdm845-db845c.dtb builds one))

dtbs: deps ## build board DTBs from the tree into build/dtbs (DTBS="qcom/sdm845-db845c.dtb ...")
	@$(T)/make-tree.sh --ensure
	@$(T)/build-dtbs.sh $(or $(DTBS),$(error DTBS=vendor/board.dtb is needed))

kunit: deps ## the inner loop: build incrementally and run the KUnit suites only
	@$(T)/make-tree.sh --ensure
	@$(T)/run-kunit.sh --suites-only

check: deps ## checkpatch --strict, sign-offs, prefixes; the series apply in order (independent ones to base alone), cover letters name base, deps, tests; dt bindings; sparse; the LAVA jobs validate
	@$(T)/make-tree.sh --ensure
	@$(T)/check-series.sh
	@$(T)/check-bindings.sh
	@$(T)/check-sparse.sh
	@LAVA_OUT=build/lava-check $(T)/lava-jobs.sh

check-configs: deps ## the series builds with KUNIT=n, KUNIT=m, and in arm64 defconfig (scaled time on, off)
	@$(T)/make-tree.sh --ensure
	@$(T)/check-configs.sh

kunit-tree: deps ## kunit.py run --kunitconfig=DIR in build/linux for each suite's directory (ALLTESTS=yes: --alltests too)
	@$(T)/make-tree.sh --ensure
	@$(T)/run-kunit-tree.sh

fresh-check: deps ## make demo then make test in a bare Debian 12 root (debootstrap, chroot)
	@$(T)/fresh-check.sh

repeat: deps ## boot one topology COUNT times and print each boot's model counts (TOPOLOGY=osi-2x4-system COUNT=20)
	@$(T)/make-tree.sh --ensure
	@$(T)/build-kernel.sh
	@$(T)/boot-repeat.sh $(or $(TOPOLOGY),osi-2x4-system) $(or $(COUNT),20)

each-patch: deps ## build and test every prefix of the series (bisectability)
	@$(T)/make-tree.sh --ensure
	@$(T)/check-each-patch.sh

mutants: deps ## break each tested rule in turn and show which cases catch it
	@$(T)/make-tree.sh --ensure
	@$(T)/check-mutants.py

bench: deps ## instructions per governor decision: 6.1, the series, its "pending" policy (4-256 CPUs)
	@$(T)/make-tree.sh --ensure
	@$(T)/bench-governor.sh

sim: deps ## replay idle traces through the kernel's domain-state decision: timers, pending, learn, a rate-informed reference and the oracle
	@$(T)/make-tree.sh --ensure
	@$(T)/governor-sim.py --synthetic $(TRACES)

trace: deps ## build the trace kernel (test kernel + ftrace events) and run its suites, record a topology boot's idle trace (TOPOLOGY=osi-2x4-system), replay it in the simulator
	@$(T)/make-tree.sh --ensure
	@KERNEL_VARIANT=trace $(T)/run-kunit.sh --suites-only
	@KERNEL_VARIANT=trace $(T)/record-trace.sh $(or $(TOPOLOGY),osi-2x4-system)

lava: deps ## write the LAVA jobs (QEMU, db845c and FVP templates) and their artifacts into build/lava (BASE_URL=where the artifacts go; docs/lab.md)
	@$(T)/make-tree.sh --ensure
	@$(T)/lava-jobs.sh $(TOPOLOGY)

bench-cputime: deps ## instructions per tick of CPU time accounting: 6.1, scaled time off and on
	@$(T)/make-tree.sh --ensure
	@$(T)/bench-cputime.sh

x86: deps ## build the series for x86-64 (defconfig + scaled CPU time) and run its suite in QEMU
	@$(T)/make-tree.sh --ensure
	@$(T)/build-x86.sh

ci: check test-debug test test-boards ## what .ci/run does

clean: ## remove build outputs, keep build/linux (and build/fresh-root: rm it by hand, unmounted)
	rm -rf build/kunit-arm64 build/kunit-arm64-debug build/kunit-nohz-full build/kunit-tree build/kunit-alltests \
		build/kunit-nohz-full-debug build/sparse build/configs build/topologies build/topologies-debug \
		build/taskstats* build/demo build/guest build/lava build/lava-check build/lava-check-debug
