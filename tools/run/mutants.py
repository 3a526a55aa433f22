#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check that the suites catch broken rules: apply one small, deliberate
breakage ("mutant") at a time to build/linux, build it as the test kernel
into build/kunit-mutants and run kunit/checks/mutants on it (the KUnit
suites and the taskstats boot, with tools/run/runner.py), and report which
cases failed. A mutant that no case
catches is a hole in the suites; the script then exits non-zero. The tree
is restored after each mutant, even on error or interrupt.

    mutants.py [NAME-SUBSTRING ...]
"""

import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), '..'))
from harness import BUILD, TOOLS, TOP, TREE, proc  # noqa: E402

KERNEL = os.path.join(BUILD, 'kunit-mutants')
RESULTS = os.path.join(BUILD, 'results', 'mutants')


class Run:
    """A program's exit status and output."""

    def __init__(self, argv):
        with open(os.path.join(RESULTS + '.out'), 'w+') as out, \
                open(os.path.join(RESULTS + '.err'), 'w+') as err:
            self.returncode = proc.run(argv, group=True, stdout=out, stderr=err,
                                       stdin=subprocess.DEVNULL)
            out.seek(0)
            err.seek(0)
            self.stdout, self.stderr = out.read(), err.read()


def run_checks():
    """Build the mutated tree as the test kernel and run the mutants'
    checks on it."""
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    build = Run([os.path.join(TOOLS, 'kernel', 'build-kernel.py'), '--kernel', KERNEL])
    if build.returncode:
        return build
    return Run([os.path.join(TOOLS, 'run', 'runner.py'), '--list',
                os.path.join(TOP, 'kunit', 'checks', 'mutants'), '--kernel', KERNEL,
                '--out', RESULTS])
GOV = 'drivers/base/power/domain_governor.c'
DOM = 'drivers/base/power/domain.c'
HDR = 'include/linux/pm_domain.h'
PSCI = 'drivers/cpuidle/cpuidle-psci.h'
PSCI_C = 'drivers/cpuidle/cpuidle-psci.c'
MODEL = 'drivers/firmware/psci/psci_fw_model.c'
CPUTIME = 'kernel/sched/cputime.c'
TASKSTATS = 'kernel/taskstats.c'

# (name, file, text in the series, broken text)
MUTANTS = [
    ('genpd: no release function for the domain device (6.1)', DOM,
     '\tgenpd->dev.release = genpd_provider_release;\n', ''),
    ('genpd: CPUs not propagated on link', DOM,
     '\tgenpd_update_cpumask(genpd, subdomain->cpus, true, SINGLE_DEPTH_NESTING);\n', ''),
    ('genpd: propagation stops at non-CPU domains', DOM,
     '\tstruct gpd_link *link;\n\n\tlist_for_each_entry(link, &genpd->child_links, child_node) {\n\t\tstruct generic_pm_domain *parent = link->parent;\n\n\t\tgenpd_lock_nested(parent, depth + 1);\n\t\tgenpd_update_cpumask(',
     '\tstruct gpd_link *link;\n\n\tif (!genpd_is_cpu_domain(genpd))\n\t\treturn;\n\n\tlist_for_each_entry(link, &genpd->child_links, child_node) {\n\t\tstruct generic_pm_domain *parent = link->parent;\n\n\t\tgenpd_lock_nested(parent, depth + 1);\n\t\tgenpd_update_cpumask('),
    ('gov: residency without power-off latency', GOV,
     'if (idle_ns >= states[i].residency_ns +\n\t\t\t       states[i].power_off_latency_ns &&',
     'if (idle_ns >= states[i].residency_ns &&'),
    ('gov: latency limit ignored', GOV,
     '\t\t    latency_limit_ns >= states[i].power_on_latency_ns +',
     '\t\t    1 | latency_limit_ns >= states[i].power_on_latency_ns +'),
    ('gov: idle boundary > instead of >=', GOV,
     'if (idle_ns >= states[i].residency_ns +', 'if (idle_ns > states[i].residency_ns +'),
    ('gov: latency boundary > instead of >=', GOV,
     'latency_limit_ns >= states[i].power_on_latency_ns +',
     'latency_limit_ns > states[i].power_on_latency_ns +'),
    ('gov: device PM QoS start ignored', GOV,
     'i = genpd_cpu_pick_state(genpd->states, genpd->state_idx,',
     'i = genpd_cpu_pick_state(genpd->states, genpd->state_count - 1,'),
    ('gov: offline CPUs counted', GOV,
     'for_each_cpu_and(cpu, genpd->cpus, cpu_online_mask) {', 'for_each_cpu(cpu, genpd->cpus) {'),
    ('gov: idle <= 0 not checked', GOV, '\tif (idle_ns <= 0)\n\t\treturn -1;\n', ''),
    ('gov: per-CPU resume latency QoS ignored', GOV,
     'if (cpu_constraint < global_constraint)', 'if (cpu_constraint < 0)'),
    ('gov: global CPU latency QoS ignored', GOV,
     'global_constraint = cpu_latency_qos_limit();',
     'global_constraint = PM_QOS_CPU_LATENCY_DEFAULT_VALUE;'),
    ('gov: latest timer instead of earliest', GOV,
     'if (ktime_before(next_hrtimer, domain_wakeup))', 'if (ktime_after(next_hrtimer, domain_wakeup))'),
    ('gov: next wakeup not stored', GOV, '\tgenpd->gd->next_hrtimer = domain_wakeup;\n', ''),
    ('gov: learn: a period learned only if the domain went down', DOM,
     '\tgenpd_cpu_gov_woken(genpd);\n\tif (genpd_status_on(genpd))\n\t\treturn 0;\n',
     '\tif (genpd_status_on(genpd))\n\t\treturn 0;\n\tgenpd_cpu_gov_woken(genpd);\n'),
    ('gov: learn: only the domain a CPU resumes learns', DOM,
     '\tgenpd_cpu_gov_woken(genpd);\n\tif (genpd_status_on(genpd))',
     '\tif (!depth)\n\t\tgenpd_cpu_gov_woken(genpd);\n\tif (genpd_status_on(genpd))'),
    ('gov: learn: a refused decision starts a period', GOV,
     '\tpolicy = READ_ONCE(genpd->gd->cpu_policy);\n',
     '\tpolicy = READ_ONCE(genpd->gd->cpu_policy);\n\tif (policy == GENPD_CPU_POLICY_LEARN)\n\t\tgenpd->gd->period_start = now;\n'),
    ('gov: the system\'s policy decides, not the domain\'s', GOV,
     '\tpolicy = READ_ONCE(genpd->gd->cpu_policy);\n',
     '\tpolicy = READ_ONCE(genpd_cpu_policy);\n'),
    ('gov: learn: the forecast is the timers\'', GOV,
     '\tif (timer_ns <= 0 || !h->early || !h->idle_ns)\n\t\treturn timer_ns;',
     '\tif (1)\n\t\treturn timer_ns;'),
    ('gov: learn: any early end counts as cut short', GOV,
     'bool early = idle_ns < timer_ns - timer_ns / 8;', 'bool early = idle_ns < timer_ns;'),
    ('gov: learn: no decay of the periods cut short', GOV,
     '\th->early -= DIV_ROUND_UP(h->early, 1 << GENPD_HISTORY_DECAY);\n', ''),
    ('gov: learn: the decay rounds down (a floor of 15 never fades)', GOV,
     'DIV_ROUND_UP(h->early, 1 << GENPD_HISTORY_DECAY)', '(h->early >> GENPD_HISTORY_DECAY)'),
    ('gov: learn: timers policy uses the history', GOV,
     '\tif (policy == GENPD_CPU_POLICY_LEARN) {', '\tif (1) {'),
    ('gov: cached state index as bool (6.1)', HDR,
     '\tunsigned int cached_power_down_state_idx;', '\tbool cached_power_down_state_idx;'),
    ('psci: the highest domain state replaces the request (6.1)', PSCI,
     '\tif (!psci_is_level_part(high, level, ext))\n\t\treturn high;',
     '\tif (1)\n\t\treturn high;'),
    ('psci: PowerLevels ORed instead of the highest', PSCI,
     'max(low & pl, high & pl)', '((low | high) & pl)'),
    ('psci: parts always ORed, full composites not recognised', PSCI,
     '\tif (!psci_is_level_part(high, level, ext))\n\t\treturn high;\n', ''),
    ('psci: a level part ORed into its field instead of replacing it', PSCI,
     '\tlow &= ~PSCI_LEVEL_FIELD(level);\n', ''),
    ('psci: a part recognised in any field (bit overlap rule)', PSCI,
     'if (!(state & field) || (state & id & ~field))', 'if (!(state & id))'),
    ('psci: the PowerLevel of a part not compared with its level', PSCI,
     'return ext || (state & PSCI_0_2_POWER_STATE_AFFL_MASK) ==\n\t\t      level << PSCI_0_2_POWER_STATE_AFFL_SHIFT;',
     'return true;'),
    ('psci check: PowerLevel of a full composite not checked', PSCI,
     'if (!ext && (high & pl) < level << PSCI_0_2_POWER_STATE_AFFL_SHIFT)', 'if (0)'),
    ('psci check: powerdown above standby accepted', PSCI,
     'if ((high & type) && !(low & type))', 'if (0)'),
    ('psci check: PowerLevel not checked', PSCI,
     'if (!ext && (high & pl) <= (low & pl))', 'if (0)'),
    ('psci check: equal PowerLevel accepted', PSCI,
     '(high & pl) <= (low & pl)', '(high & pl) < (low & pl)'),
    ('psci: request not cleared after idle', PSCI_C,
     'void psci_domain_idle_done(void)\n{\n\tpsci_set_domain_state(0);\n}',
     'void psci_domain_idle_done(void)\n{\n}'),
    ('psci: domain part stored for CPU0 whatever the CPU', PSCI_C,
     '\t__this_cpu_write(domain_state, psci_compose_state(request, state, level,\n\t\t\t\t\t\t\t  psci_ext_format));',
     '\tper_cpu(domain_state, 0) = psci_compose_state(request, state, level,\n\t\t\t\t\t\t\t  psci_ext_format);'),
    ('psci: a domain state added outside its CPU\'s idle entry', PSCI_C,
     '\tif (!__this_cpu_read(domains_going_off)) {\n', '\tif (0) {\n'),
    ('psci: a domain with a CPU online powered off from elsewhere', PSCI_C,
     '\t\tif (cpu >= nr_cpu_ids)\n\t\t\treturn 0;\n', '\t\tif (true)\n\t\t\treturn 0;\n'),
    ('psci: CPU devices not resumed as system sleep starts', PSCI_C,
     '\tpm_runtime_get_sync(dev);\n}\nEXPORT_SYMBOL_IF_KUNIT(psci_idle_hold_cpu);',
     '\tpm_runtime_get_noresume(dev);\n}\nEXPORT_SYMBOL_IF_KUNIT(psci_idle_hold_cpu);'),
    ('psci: syscore suspend leaves online CPUs\' domains on', PSCI_C,
     '\t\tpsci_idle_domains_off(dev, true, 0);\n\t\treturn;',
     '\t\tdev_pm_genpd_suspend(dev);\n\t\treturn;'),
    ('psci: syscore resume leaves the suspend\'s domain states in the request', PSCI_C,
     '\t/* Clear the domain states of the suspend to re-start fresh. */\n\tpsci_set_domain_state(0);\n',
     ''),
    ('psci: a domain refused outside its CPUs\' idle wakes none of them', PSCI_C,
     '\t\twake_up_if_idle(cpu);\n\t\treturn -EBUSY;',
     '\t\treturn -EBUSY;'),
    ('accounting: above never counted', DOM, '\t\tstate->above++;\n', '\t\t;\n'),
    ('accounting: below never counted', DOM, '\t\tstate->below++;\n', '\t\t;\n'),
    ('accounting: below judged against the same state', DOM,
     '\t\t delta >= state[1].residency_ns + state[1].power_off_latency_ns)',
     '\t\t delta >= state[0].residency_ns + state[0].power_off_latency_ns)'),
    ('model: no DENIED while another core runs', MODEL,
     '\t\t\tif (m->node[k].state == PSCI_FW_MODEL_RUN) {\n\t\t\t\tpsci_fw_model_count_denial(',
     '\t\t\tif (0) {\n\t\t\t\tpsci_fw_model_count_denial('),
    ('model: a denial over a core in its idle path unexplained', MODEL,
     '\tif (m->node[core].idle_path && !blocker->idle_path &&',
     '\tif (m->node[core].idle_path &&'),
    ('model: a core that left its idle path late unexplained', MODEL,
     '\t    blocker->idle_left < m->node[core].idle_entered)',
     '\t    1)'),
    ('model: node powerdown over a child in retention accepted', MODEL,
     'else if (psci_fw_model_is_powerdown(local[i]) &&\n\t\t\t\t !psci_fw_model_is_powerdown(state))',
     'else if (0)'),
    ('model: a request stale over a child node found invalid', MODEL,
     '\t\t\tpsci_fw_model_count_child_denial(m, core, k);\n\t\t\t*ret = PSCI_RET_DENIED;',
     '\t\t\t*ret = PSCI_RET_INVALID_PARAMS;'),
    ('model: a child node that changed state late unexplained', MODEL,
     'if (!m->node[core].idle_path || m->node[k].changed > entered)',
     'if (!m->node[core].idle_path)'),
    ('model: a core below a child node that left its idle path late unexplained', MODEL,
     '\t\t    (m->node[c].idle_path || m->node[c].idle_left > entered))',
     '\t\t    0)'),
    ('model: PowerLevel not checked', MODEL,
     'if (!m->ext_format && level != *top)', 'if (0)'),
    ('model: powerdown above retention accepted', MODEL,
     'if (psci_fw_model_is_powerdown(local[i]) &&\n\t\t    !psci_fw_model_is_powerdown(local[i - 1]))',
     'if (0)'),
    ('cputime: fraction of a nanosecond dropped', CPUTIME,
     '\t*frac = low & (SCHED_CAPACITY_SCALE - 1);\n', '\t*frac = 0;\n'),
    ('cputime: product not split', CPUTIME,
     '\tlow = (cputime & (SCHED_CAPACITY_SCALE - 1)) * scale + *frac;\n'
     '\t*scaled += (cputime >> SCHED_CAPACITY_SHIFT) * scale +\n'
     '\t\t   (low >> SCHED_CAPACITY_SHIFT);\n',
     '\tlow = cputime * scale + *frac;\n\t*scaled += low >> SCHED_CAPACITY_SHIFT;\n'),
    ('cputime: scale above 1024 not clamped', CPUTIME,
     '\treturn min_t(unsigned long, arch_scale_freq_capacity(cpu),\n\t\t     SCHED_CAPACITY_SCALE);',
     '\treturn arch_scale_freq_capacity(cpu);'),
    ('cputime: scale of CPU 0 whatever the CPU', CPUTIME,
     'cputime_freq_scale(smp_processor_id())', 'cputime_freq_scale(0)'),
    ('cputime: system time scaled into user time', CPUTIME,
     '\taccount_scaled(&p->stimescaled, &p->stimescaled_frac, cputime);',
     '\taccount_scaled(&p->utimescaled, &p->stimescaled_frac, cputime);'),
    ('cputime: system time not scaled at the tick', CPUTIME,
     '\tp->stime += cputime;\n\taccount_scaled_system_time(p, cputime);\n',
     '\tp->stime += cputime;\n'),
    ('taskstats: thread group without scaled time (6.1)', TASKSTATS,
     '\tstats->ac_utimescaled += div_u64(utimescaled, NSEC_PER_USEC);\n', ''),
]


def run_one(name, rel, old, new):
    path = os.path.join(TREE, rel)
    with open(path) as f:
        src = f.read()
    if src.count(old) != 1:
        return None, f'{name}: the text to break is not in {rel} once'
    try:
        with open(path, 'w') as f:
            f.write(src.replace(old, new))
        r = run_checks()
    finally:
        with open(path, 'w') as f:
            f.write(src)
    lines = r.stdout.splitlines()
    # A run that ended without its summary (the build broke, the script
    # died) says nothing about the mutant: not run, not caught.
    if not any(l.startswith('kunit: ') for l in lines):
        tail = (r.stderr.strip().splitlines() or ['no output'])[-1]
        return None, f'{name}: NOT RUN (no "kunit:" summary; {tail})'
    caught = [l.split(': ', 1)[1] for l in lines
              if l.strip().startswith(('fail:', 'error:', 'missing:'))]
    last = lines[-1]
    return bool(caught) or r.returncode != 0, f'{name}: {last}; caught by: {", ".join(caught) or "NOTHING"}'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('names', nargs='*', metavar='NAME-SUBSTRING',
                    help='only the mutants whose name holds one of these')
    want = ap.parse_args().names
    # A SIGINT or SIGTERM ends the run's children and unwinds like an
    # error, so that the tree is restored.
    proc.stop_on_signals()
    survivors = not_run = 0
    for name, rel, old, new in MUTANTS:
        if want and not any(w in name for w in want):
            continue
        caught, line = run_one(name, rel, old, new)
        print(line, flush=True)
        if caught is None:
            not_run += 1
        elif not caught:
            survivors += 1
    print(f'mutants: {survivors} survived, {not_run} not run')
    return 1 if survivors or not_run else 0


if __name__ == '__main__':
    sys.exit(main())
