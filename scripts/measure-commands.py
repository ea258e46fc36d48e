#!/usr/bin/env python3
"""
Wall and CPU time of whole commands, run alternately (for bench/results/: the figures beside the
bench's wall medians on a loaded machine, where CPU time moves less than wall time).

Usage: KUBECONFIG=FILE scripts/measure-commands.py RUNS -- NAME HOME [VAR=VALUE...] CMD ARGS... -- NAME HOME ...

Each command runs with a clean environment (PATH, HOME, KUBECONFIG and its VAR=VALUE words; no
NODE_EXTRA_CA_CERTS), stdout and stderr to /dev/null, 3 untimed warm-up runs, then RUNS runs in turn
(the first command, the second, ..., again). Wall: fork to reap. CPU: user+sys of the process and its
threads from wait4's rusage (microseconds, unlike /usr/bin/time's 10 ms). Give each kdyn build a HOME
of its own: two builds sharing one rewrite each other's code cache entry on every run.
Prints each command's median and minimum of both, and the load average.
"""
import os
import statistics
import sys
import time


def parse(argv):
    runs = int(argv[0])
    groups = []
    for a in argv[1:]:
        if a == '--':
            groups.append([])
        elif groups:
            groups[-1].append(a)
        else:
            sys.exit('usage: measure-commands.py RUNS -- NAME HOME [VAR=VALUE...] CMD ARGS... [-- ...]')
    return runs, [dict(name=g[0], home=g[1], cmd=g[2:], wall=[], cpu=[]) for g in groups]


def run(c):
    env = {'PATH': os.environ['PATH'], 'HOME': c['home']}
    if 'KUBECONFIG' in os.environ:
        env['KUBECONFIG'] = os.environ['KUBECONFIG']
    cmd = list(c['cmd'])
    while '=' in cmd[0] and not cmd[0].startswith('/'):
        k, v = cmd.pop(0).split('=', 1)
        env[k] = v
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        null = os.open('/dev/null', os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.execvpe(cmd[0], cmd, env)
    _, status, usage = os.wait4(pid, 0)
    wall = (time.perf_counter() - t0) * 1000
    if status != 0:
        print(f"{c['name']}: exit status {status}", file=sys.stderr)
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def main():
    runs, cmds = parse(sys.argv[1:])
    for c in cmds:
        for _ in range(3):
            run(c)
    for _ in range(runs):
        for c in cmds:
            wall, cpu = run(c)
            c['wall'].append(wall)
            c['cpu'].append(cpu)
    for c in cmds:
        print(f"{c['name']:<28} wall median {statistics.median(c['wall']):6.1f} min {min(c['wall']):6.1f}   "
              f"cpu median {statistics.median(c['cpu']):6.1f} min {min(c['cpu']):6.1f}")
    print('load average', ' '.join(f'{x:.1f}' for x in os.getloadavg()))


main()
