# SPDX-License-Identifier: GPL-2.0
# Hierarchical CPU idle for Arm: the patch series against Debian's Linux 6.1
# and the tools that build, test and check it. `make help` lists the targets.

.DEFAULT_GOAL := help
SHELL := /bin/bash
T := tools

.PHONY: help deps tree tree-reset export demo test check each-patch mutants bench bench-cputime x86 ci clean

help: ## this list
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 14

deps: ## install the Debian packages the build needs (only those missing)
	@$(T)/install-deps.sh

tree: deps ## build/linux: pristine 6.1 + patches/series, as a git tree
	@$(T)/make-tree.sh

tree-reset: deps ## rebuild build/linux from patches/, saving local commits on a branch
	@$(T)/make-tree.sh --reset

export: ## write the commits of build/linux back into patches/
	@$(T)/export-series.sh

demo: deps ## boot the series in QEMU, OSI mode on a 1x4 topology, and print the idle report
	@$(T)/make-tree.sh --ensure
	@$(T)/demo.sh

test: deps ## build for arm64 and run every KUnit suite of the series in QEMU
	@$(T)/make-tree.sh --ensure
	@$(T)/run-kunit.sh

check: deps ## checkpatch --strict, sign-offs, prefixes; the series applies in order; dt bindings
	@$(T)/make-tree.sh --ensure
	@$(T)/check-series.sh
	@$(T)/check-bindings.sh

each-patch: deps ## build and test every prefix of the series (bisectability)
	@$(T)/make-tree.sh --ensure
	@$(T)/check-each-patch.sh

mutants: deps ## break each tested rule in turn and show which cases catch it
	@$(T)/make-tree.sh --ensure
	@$(T)/check-mutants.py

bench: deps ## instructions per governor decision, 6.1 vs the series (4 and 64 CPUs)
	@$(T)/make-tree.sh --ensure
	@$(T)/bench-governor.sh

bench-cputime: deps ## instructions per tick of CPU time accounting: 6.1, scaled time off and on
	@$(T)/make-tree.sh --ensure
	@$(T)/bench-cputime.sh

x86: deps ## build the series for x86-64 (defconfig + scaled CPU time) and run its suite in QEMU
	@$(T)/make-tree.sh --ensure
	@$(T)/build-x86.sh

ci: check test ## what .ci/run does

clean: ## remove build outputs, keep build/linux
	rm -rf build/kunit-arm64
