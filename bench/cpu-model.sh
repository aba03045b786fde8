#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Prints the processor's name from /proc/cpuinfo, with the x86 family and
# model beside it, as bench.h's bench_cpu_model() names it to the
# benchmark programs: a virtual machine often names only the vendor's line
# ("AMD EPYC"), which spans processors of very different costs.
awk -F': *' '/^model name/ && !n { n = $2 } /^cpu family/ && f == "" { f = $2 }
	/^model[ \t]*:/ && m == "" { m = $2 } /^$/ { exit }
	END {
		if (n == "") n = "unknown"
		if (f != "" && m != "") n = n " (family " f ", model " m ")"
		print n
	}' /proc/cpuinfo 2>/dev/null || echo unknown
