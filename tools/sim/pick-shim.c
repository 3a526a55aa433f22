// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's domain idle state decision, genpd_cpu_pick_state(), built
 * for user space: tools/governor-sim.py extracts struct genpd_power_state
 * from include/linux/pm_domain.h and the function from
 * drivers/base/power/domain_governor.c of the generated tree into
 * kernel-pick.inc, which this file compiles with the few kernel types
 * they use. Nothing of the decision is written here.
 */
#include <stdint.h>
#include <string.h>

typedef int64_t s64;
typedef uint64_t u64;
struct fwnode_handle;
#define VISIBLE_IF_KUNIT

#include "kernel-pick.inc"

#define SIM_MAX_STATES 8

/* The deepest state of @n that fits, as the kernel picks it, or -1. */
int sim_pick(int n, const s64 *off_ns, const s64 *on_ns, const s64 *res_ns,
	     int start, s64 idle_ns, s64 limit_ns)
{
	struct genpd_power_state states[SIM_MAX_STATES];
	int i;

	if (n < 1 || n > SIM_MAX_STATES || start >= n)
		return -2;
	memset(states, 0, sizeof(states));
	for (i = 0; i < n; i++) {
		states[i].power_off_latency_ns = off_ns[i];
		states[i].power_on_latency_ns = on_ns[i];
		states[i].residency_ns = res_ns[i];
	}
	return genpd_cpu_pick_state(states, start, idle_ns, limit_ns);
}
