// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark of the CPU PM domain governor, built into a kernel by
 * tools/bench/governor.sh (never part of the series). At boot it puts every
 * online CPU in one CPU PM domain with pm_domain_cpu_gov and three states,
 * counts the instructions one decision takes (PMU event "instructions", on
 * CPU0 with interrupts off, minus an empty loop), then drives the domain
 * through runtime PM of the CPU devices so that its debugfs counters move.
 * The same file builds on 6.1 and on the series: it uses public APIs only.
 */
#include <linux/cpu.h>
#include <linux/cpuidle.h>
#include <linux/delay.h>
#include <linux/init.h>
#include <linux/perf_event.h>
#include <linux/pm_domain.h>
#include <linux/pm_runtime.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#define BENCH_LOOPS	1000

static struct genpd_power_state bench_states[] = {
	{ .power_off_latency_ns = 10000, .power_on_latency_ns = 10000,
	  .residency_ns = 100000 },
	{ .power_off_latency_ns = 50000, .power_on_latency_ns = 100000,
	  .residency_ns = 1000000 },
	{ .power_off_latency_ns = 200000, .power_on_latency_ns = 300000,
	  .residency_ns = 5000000 },
};

static struct generic_pm_domain bench_pd = {
	.name = "bench-domain",
	.flags = GENPD_FLAG_CPU_DOMAIN,
	.states = bench_states,
	.state_count = ARRAY_SIZE(bench_states),
};

static struct cpuidle_device *bench_idle;
static bool bench_sink;
static int bench_last;

static noinline bool bench_nothing(struct dev_pm_domain *pd)
{
	return READ_ONCE(bench_sink);
}

static u64 bench_count(struct perf_event *ev, bool (*fn)(struct dev_pm_domain *))
{
	u64 start, end;
	unsigned long flags;
	int i;

	local_irq_save(flags);
	perf_event_read_local(ev, &start, NULL, NULL);
	for (i = 0; i < BENCH_LOOPS; i++)
		bench_sink = fn(&bench_pd.domain);
	perf_event_read_local(ev, &end, NULL, NULL);
	local_irq_restore(flags);
	return end - start;
}

static long bench_measure(void *unused)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.size = sizeof(attr),
		.pinned = 1,
	};
	struct perf_event *ev;
	u64 gov, empty;

	ev = perf_event_create_kernel_counter(&attr, smp_processor_id(), NULL,
					      NULL, NULL);
	if (IS_ERR(ev)) {
		pr_err("genpd-gov-bench: no instruction counter: %ld\n",
		       PTR_ERR(ev));
		return PTR_ERR(ev);
	}
	/* Warm up, then measure. */
	bench_count(ev, pm_domain_cpu_gov.power_down_ok);
	gov = bench_count(ev, pm_domain_cpu_gov.power_down_ok);
	bench_last = bench_sink;	/* the decision: 1 if the domain may go down */
	empty = bench_count(ev, bench_nothing);
	pr_info("genpd-gov-bench: cpus=%u decisions=%d ok=%d state=%u instructions/decision=%llu (loop overhead %llu subtracted)\n",
		num_online_cpus(), BENCH_LOOPS, bench_last, bench_pd.state_idx,
		div_u64(gov - empty, BENCH_LOOPS), div_u64(empty, BENCH_LOOPS));
	perf_event_release_kernel(ev);
	return 0;
}

static void bench_set_timers(ktime_t t)
{
	int cpu;

	for_each_online_cpu(cpu)
		WRITE_ONCE(bench_idle[cpu].next_hrtimer, t);
}

static void bench_all_idle(bool idle)
{
	int cpu;

	for_each_online_cpu(cpu) {
		if (idle)
			pm_runtime_put_sync_suspend(get_cpu_device(cpu));
		else
			pm_runtime_get_sync(get_cpu_device(cpu));
	}
}

static int __init genpd_gov_bench_init(void)
{
	int cpu, ret;

	bench_idle = kcalloc(nr_cpu_ids, sizeof(*bench_idle), GFP_KERNEL);
	if (!bench_idle)
		return -ENOMEM;
	ret = pm_genpd_init(&bench_pd, &pm_domain_cpu_gov, false);
	if (ret)
		return ret;
	for_each_online_cpu(cpu) {
		if (per_cpu(cpuidle_devices, cpu)) {
			pr_err("genpd-gov-bench: CPU%d has a cpuidle device\n", cpu);
			return -EBUSY;
		}
		bench_idle[cpu].cpu = cpu;
		bench_idle[cpu].next_hrtimer = ktime_add_ms(ktime_get(), 100000);
		smp_store_release(&per_cpu(cpuidle_devices, cpu), &bench_idle[cpu]);
		ret = pm_genpd_add_device(&bench_pd, get_cpu_device(cpu));
		if (ret)
			return ret;
	}

	/* Move the idle period counters: runtime PM as cpuidle-psci uses it. */
	for_each_online_cpu(cpu) {
		struct device *dev = get_cpu_device(cpu);

		pm_runtime_set_active(dev);
		pm_runtime_enable(dev);
		pm_runtime_get_noresume(dev);
	}
	/*
	 * Before the measurement, one period cut short: timers 100 s away,
	 * S2, off for 10 ms (busy wait). A policy that learns from past
	 * periods (genpd.cpu_policy=learn of the series) then decides with a
	 * history, and its forecast, about 20 ms, still lets it choose S2.
	 */
	bench_set_timers(ktime_add_ms(ktime_get(), 100000));
	bench_all_idle(true);
	mdelay(10);
	bench_all_idle(false);

	work_on_cpu(0, bench_measure, NULL);

	/* Timers far away: S2; woken at once: too deep (above). */
	bench_set_timers(ktime_add_ms(ktime_get(), 100000));
	bench_all_idle(true);
	bench_all_idle(false);
	/* Timers 3 ms away: S1; off for 100 ms: S2 fitted (below). */
	bench_set_timers(ktime_add_ms(ktime_get(), 3));
	bench_all_idle(true);
	msleep(100);
	bench_all_idle(false);
	/* Timers 3 ms away: S1; off for 3 ms (busy wait): neither. */
	bench_set_timers(ktime_add_ms(ktime_get(), 3));
	bench_all_idle(true);
	mdelay(3);
	bench_all_idle(false);
	pr_info("genpd-gov-bench: done\n");
	return 0;
}
late_initcall_sync(genpd_gov_bench_init);
