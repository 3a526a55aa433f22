// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU PM domain governor of a kernel that has no separate decision
 * function (7.3 and mainline): its whole cpu_power_down_ok(), with the
 * wakeup checks it calls, built for user space. tools/sim/governor-sim.py
 * extracts them from drivers/pmdomain/governor.c and kernel/smp.c of a
 * tree (the series, or its pristine base for mainline's governor) into
 * kernel-power-down.inc; this file gives them the kernel types and helpers
 * they use, backed by the state of one simulated domain: its CPUs' next
 * timers, the latency limit, and each CPU's pending wakeups (a queued call
 * in call_single_queue, or a reschedule request of its idle task). Only
 * the device PM QoS check, _default_power_down_ok(), is a stand-in: no
 * device constraint, the search starting at the deepest state.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int64_t s64;
typedef uint64_t u64;
typedef int32_t s32;
typedef s64 ktime_t;
struct fwnode_handle;

#define SIM_NR_CPUS	64

#define READ_ONCE(x)		(x)
#define WRITE_ONCE(x, v)	((x) = (v))
#define NSEC_PER_USEC		1000L
#define KTIME_MAX		INT64_MAX
#define KTIME_SEC_MAX		(KTIME_MAX / 1000000000L)
#define ktime_set(s, ns)	((s) >= KTIME_SEC_MAX ? KTIME_MAX : \
				 (s) * 1000000000L + (ns))
#define ktime_before(a, b)	((a) < (b))
#define ktime_sub(a, b)		((a) - (b))
#define ktime_to_ns(t)		(t)
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define pr_warn(...)		fprintf(stderr, __VA_ARGS__)
#define container_of(p, type, member) \
	((type *)((char *)(p) - offsetof(type, member)))

struct cpumask {
	bool bit[SIM_NR_CPUS];
};

#define for_each_cpu(cpu, m) \
	for ((cpu) = 0; (cpu) < SIM_NR_CPUS; (cpu)++) if ((m)->bit[cpu])
#define for_each_cpu_and(cpu, a, b) \
	for ((cpu) = 0; (cpu) < SIM_NR_CPUS; (cpu)++) \
		if ((a)->bit[cpu] && (b)->bit[cpu])

struct llist_head {
	void *first;
};

struct task_struct {
	bool need_resched;
};

struct cpuidle_device {
	ktime_t next_hrtimer;
};

struct device;
struct dev_pm_domain {
	int unused;
};

static struct cpumask sim_online;
static struct llist_head call_single_queue[SIM_NR_CPUS];
static struct task_struct sim_idle_tasks[SIM_NR_CPUS];
static struct cpuidle_device sim_cpuidle[SIM_NR_CPUS];
static struct cpuidle_device *cpuidle_devices[SIM_NR_CPUS];
static s64 sim_limit_us;
static int sim_start;

#define cpu_online_mask			(&sim_online)
#define per_cpu(var, cpu)		((var)[cpu])
#define per_cpu_ptr(ptr, cpu)		(&(*(ptr))[cpu])
#define idle_task(cpu)			(&sim_idle_tasks[cpu])
#define test_tsk_need_resched(t)	((t)->need_resched)

static inline bool llist_empty(const struct llist_head *h)
{
	return !h->first;
}

static inline ktime_t ktime_get(void)
{
	return 0;
}

static inline struct device *get_cpu_device(int cpu)
{
	return NULL;
}

static inline s32 dev_pm_qos_raw_resume_latency(struct device *dev)
{
	return INT32_MAX;
}

static inline s32 cpu_latency_qos_limit(void)
{
	return sim_limit_us;
}

static inline s32 cpu_wakeup_latency_qos_limit(void)
{
	return sim_limit_us;
}

#ifdef SIM_HAS_POLICY
/* What the policy switch of the series' test harness needs. */
struct kernel_param;
struct kernel_param_ops {
	int (*set)(const char *val, const struct kernel_param *kp);
	int (*get)(char *buf, const struct kernel_param *kp);
};
#define module_param_cb(name, ops, arg, perm) \
	static const void *sim_param_##name __attribute__((unused)) = (ops)
#define MODULE_PARM_DESC(name, text)
#define sysfs_emit(buf, ...)	sprintf(buf, __VA_ARGS__)

static int sim_match_string(const char * const *list, size_t n,
			    const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list[i] && !strcmp(list[i], s))
			return i;
	return -22;
}
#define sysfs_match_string(list, s) \
	sim_match_string(list, ARRAY_SIZE(list), s)
#endif

#include "kernel-power-down-types.inc"
#include "sim-states.h"

#define GENPD_FLAG_CPU_DOMAIN	(1U << 4)

struct generic_pm_domain {
	struct dev_pm_domain domain;
	unsigned int flags;
	struct cpumask *cpus;
	struct genpd_power_state *states;
	unsigned int state_idx;
	struct genpd_governor_data *gd;
};

#define pd_to_genpd(pd) container_of(pd, struct generic_pm_domain, domain)

/*
 * The device PM QoS check with no device constraint: the deepest state,
 * returned, as from the second decision on, through the governor data's
 * cached index, whose type is the tree's (a bool in mainline).
 */
static bool _default_power_down_ok(struct dev_pm_domain *pd, ktime_t now)
{
	struct generic_pm_domain *genpd = pd_to_genpd(pd);

	genpd->gd->cached_power_down_state_idx = sim_start;
	genpd->state_idx = genpd->gd->cached_power_down_state_idx;
	return true;
}

#include "kernel-power-down.inc"

/* Sets the policy of a tree that has the switch; -1 when it has none. */
int sim_set_policy(const char *name)
{
#ifdef SIM_HAS_POLICY
	return genpd_cpu_policy_set(name, NULL);
#else
	return -1;
#endif
}

/*
 * The state cpu_power_down_ok() lets a domain of @ncpus CPUs (all online)
 * enter, or -1 when it keeps the domain on: its states @off_ns, @on_ns and
 * @res_ns, shallowest first, the CPUs' next timers @timer_ns from now, the
 * CPUs with a queued call (@call) or a reschedule request (@resched), and
 * the latency limit @limit_ns (INT64_MAX: none). -2 for bad arguments.
 */
int sim_power_down(int n, const s64 *off_ns, const s64 *on_ns,
		   const s64 *res_ns, int ncpus, const s64 *timer_ns,
		   const int *call, const int *resched, s64 limit_ns)
{
	static void *queued = &queued;
	struct genpd_power_state states[SIM_MAX_STATES];
	struct genpd_governor_data gd;
	struct generic_pm_domain genpd;
	struct cpumask cpus;
	int i;

	if (ncpus < 1 || ncpus > SIM_NR_CPUS ||
	    sim_fill_states(states, n, off_ns, on_ns, res_ns))
		return -2;
	memset(&gd, 0, sizeof(gd));
	memset(&cpus, 0, sizeof(cpus));
	memset(&sim_online, 0, sizeof(sim_online));
	for (i = 0; i < ncpus; i++) {
		cpus.bit[i] = true;
		sim_online.bit[i] = true;
		sim_cpuidle[i].next_hrtimer = timer_ns[i];
		cpuidle_devices[i] = &sim_cpuidle[i];
		call_single_queue[i].first = call[i] ? queued : NULL;
		sim_idle_tasks[i].need_resched = resched[i];
	}
	genpd = (struct generic_pm_domain) {
		.flags = GENPD_FLAG_CPU_DOMAIN,
		.cpus = &cpus,
		.states = states,
		.gd = &gd,
	};
	sim_start = n - 1;
	sim_limit_us = limit_ns / NSEC_PER_USEC < INT32_MAX ?
		       limit_ns / NSEC_PER_USEC : INT32_MAX;
	if (!cpu_power_down_ok(&genpd.domain))
		return -1;
	return genpd.state_idx;
}
