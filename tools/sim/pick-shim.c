// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's domain idle state decision, genpd_cpu_pick_state(), and the
 * "learn" policy's forecast and history, genpd_cpu_predict_idle() and
 * genpd_cpu_learn_period(), built for user space: tools/sim/governor-sim.py
 * extracts the structures they use from include/linux/pm_domain.h and the
 * functions from drivers/base/power/domain_governor.c of the generated tree
 * into kernel-pick.inc, which this file compiles with the few kernel types
 * and helpers they use. Nothing of the decision is written here.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef int64_t s64;
typedef uint64_t u64;
typedef uint32_t u32;
struct fwnode_handle;
#define VISIBLE_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(sym)
#define min_t(type, a, b) ((type)(a) < (type)(b) ? (type)(a) : (type)(b))
#define clamp_t(type, v, lo, hi) \
	min_t(type, (type)(v) > (type)(lo) ? (type)(v) : (type)(lo), hi)
#define div64_u64(a, b) ((u64)(a) / (u64)(b))
#define BIT_ULL(n) (1ULL << (n))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define DIV_ROUND_UP_ULL(n, d) DIV_ROUND_UP((u64)(n), (u64)(d))

#include "kernel-pick.inc"
#include "sim-states.h"

/* The deepest state of @n that fits, as the kernel picks it, or -1. */
int sim_pick(int n, const s64 *off_ns, const s64 *on_ns, const s64 *res_ns,
	     int start, s64 idle_ns, s64 limit_ns)
{
	struct genpd_power_state states[SIM_MAX_STATES];

	if (start >= n || sim_fill_states(states, n, off_ns, on_ns, res_ns))
		return -2;
	return genpd_cpu_pick_state(states, start, idle_ns, limit_ns);
}

/* The "learn" policy's forecast from a history of @idle_ns and @early. */
s64 sim_predict(u64 idle_ns, u32 early, s64 timer_ns)
{
	struct genpd_cpu_history h = { .idle_ns = idle_ns, .early = early };

	return genpd_cpu_predict_idle(&h, timer_ns);
}

/* Adds a period to the history held in @idle_ns and @early. */
void sim_learn(u64 *idle_ns, u32 *early, s64 timer_ns, s64 period_ns)
{
	struct genpd_cpu_history h = { .idle_ns = *idle_ns, .early = *early };

	genpd_cpu_learn_period(&h, timer_ns, period_ns);
	*idle_ns = h.idle_ns;
	*early = h.early;
}
