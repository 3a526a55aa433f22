/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The states of a simulated domain, for both shims of tools/sim: include
 * after the extracted struct genpd_power_state.
 */
#ifndef SIM_STATES_H
#define SIM_STATES_H

#include <string.h>

#define SIM_MAX_STATES 8

/* @n states from their latencies and residencies; -2 for a bad @n. */
static inline int sim_fill_states(struct genpd_power_state *states, int n,
				  const s64 *off_ns, const s64 *on_ns,
				  const s64 *res_ns)
{
	int i;

	if (n < 1 || n > SIM_MAX_STATES)
		return -2;
	memset(states, 0, SIM_MAX_STATES * sizeof(*states));
	for (i = 0; i < n; i++) {
		states[i].power_off_latency_ns = off_ns[i];
		states[i].power_on_latency_ns = on_ns[i];
		states[i].residency_ns = res_ns[i];
	}
	return 0;
}

#endif
