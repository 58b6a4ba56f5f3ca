# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The kernel log lines that mean the kernel under test went wrong, for
# every harness that reads a kernel's log: tests/vm/vmtest (each guest's
# serial console and dmesg) and tests/kunit/run (the UML kernel's log).
# Source this file: it sets KERNEL_PROBLEMS, one extended regular
# expression (grep -E, awk) per report, and KERNEL_PROBLEM_RE, all of
# them in one.  A line matching any of them fails the run.

KERNEL_PROBLEMS=(
	# WARN() and what reports through it: lockdep ("WARNING: possible
	# circular locking dependency detected"), refcount_t, debug objects
	'WARNING:'
	# BUG(), KASAN ("BUG: KASAN: slab-use-after-free in ..."), NULL
	# dereferences, sleeping in atomic context, soft lockups; SLUB's own
	# checks ("BUG kmalloc-64 (Tainted: G): Redzone overwritten")
	'BUG:'
	'BUG '
	'kernel BUG'
	'Oops'
	'general protection'
	'double fault'
	'stack-protector'
	'Kernel panic'
	# any other stack dump (dump_stack(), warn_alloc())
	'Call Trace'
	# the checkers, also in the lines of their reports without a prefix
	'KASAN'
	'KFENCE'
	'UBSAN'
	'possible [a-z]+ locking'
	'inconsistent lock state'
	# a task or CPU that makes no progress
	'hung task'
	'blocked for more than'
	'soft lockup'
	'hard LOCKUP'
	'rcu_[a-z_]+ self-detected stall'
	'rcu: INFO: .* detected stalls'
	# a net device whose references are never all put (a leaked dst,
	# socket or link holding it)
	'unregister_netdevice: waiting for'
	# memory exhausted
	'Out of memory'
	'invoked oom-killer'
)
# shellcheck disable=SC2034 # for the scripts that source this file
KERNEL_PROBLEM_RE=$(IFS='|'; echo "${KERNEL_PROBLEMS[*]}")
