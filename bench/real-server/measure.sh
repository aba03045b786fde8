# SPDX-License-Identifier: BSD-2-Clause
# measure.sh: sourced by run.sh (nginx) and apache.sh, after debsrc.sh:
# the measuring both share, so that the two servers' figures mean the
# same.  The caller has built load.c as $work/load and sets
#   blocks, block_ms, prof_pairs, conns, idle   the run's sizes
#   instances                                  how many times both servers
#                                              are started (rs_measure)
#   port_kqueue, port_epoll                    each build's port
#   worker_kqueue, worker_epoll                the process measured
# and $calls, the system calls counted one by one (rs_calls), and defines
# start WHICH (build WHICH's server started on a port of its own, setting
# the variables above through rs_started) and stop (every server it
# started stopped and waited for).  A run: start kqueue, start epoll,
# rs_pin, rs_header, rs_measure, rs_done.

# rs_pin: both measured processes (all their threads) on the last
# processor, the client (rs_load) on the first.  Left to the scheduler,
# the client and the measured process shared one processor in some blocks
# and not in others (a wake-up across processors costs the server more
# than one on its own), and pairs of blocks differed by up to 1.6x.  The
# two servers never run at once (blocks alternate), so they may share
# one.  Sets pinned (yes or no, for rs_header) and pin_client.
pinned=no pin_client=""
rs_pin() {
	rp_n=$(getconf _NPROCESSORS_ONLN)
	[ "$rp_n" -ge 2 ] && command -v taskset >/dev/null 2>&1 || return 0
	# shellcheck disable=SC2154
	if taskset -a -p -c $((rp_n - 1)) "$worker_kqueue" >/dev/null &&
	   taskset -a -p -c $((rp_n - 1)) "$worker_epoll" >/dev/null; then
		pinned=yes pin_client="taskset -c 0"
	else
		say "could not pin the servers (taskset failed): left to the scheduler"
	fi
}

# rs_header SERVER VERSION FIELD...: the output's first line, the machine
# and the run's sizes (FIELDs: more key=value ones), and whether rs_pin
# pinned.
rs_header() {
	rh_server=$1 rh_version=$2
	shift 2
	echo "# real-server kernel=$(uname -r) arch=$(uname -m) cpu=\"$(sh "$top/bench/cpu-model.sh")\"" \
	     "cpus=$(getconf _NPROCESSORS_ONLN) loadavg=$(cut -d' ' -f1 /proc/loadavg) server=$rh_server" \
	     "version=$rh_version conns=$conns blocks=$blocks instances=$instances block_ms=$block_ms $* pinned=$pinned"
}

# rs_measure CASE...: the cases' blocks on $instances pairs of server
# instances, their combined figures (rs_combine), then the system call
# counts and the profile of keepalive and close on the last pair.
#
# Why instances: the same two binaries, measured in two runs ten minutes
# apart, moved by up to 0.12 in a case's paired ratio, far more than the
# pairs of one run spread around their median.  What differs between
# runs is the server processes themselves (where the address space puts
# their code, heap and stacks, which cache sets those land in), fixed for
# a process's life: more blocks in one run cannot average it out, more
# processes can.  So each run starts both servers afresh $instances times
# (a fresh layout each time) and runs every case on each pair.
rs_measure() {
	t0=$(date +%s)
	: >"$work/cases" && : >"$work/blocks" || exit 1
	rm_i=1
	while [ $rm_i -le "$instances" ]; do
		if [ $rm_i -gt 1 ]; then
			stop
			start kqueue
			start epoll
			rs_pin
			say "instance $rm_i of $instances started"
		fi
		rs_cases $rm_i "$@"
		rm_i=$((rm_i + 1))
	done
	rs_combine "$@" | tee -a "$work/cases"
	rs_calls
	rs_profile
}

# rs_done SERVER REGEX: fails if a build's error log ($run/BUILD/logs)
# has a line matching REGEX (its alerts), else prints the summary.
rs_done() {
	for w in kqueue epoll; do
		if grep -E "$2" "$run/$w/logs/error.log" >"$work/bad-lines"; then
			head -5 "$work/bad-lines"
			die "$1 ($w) logged alerts (see $run/$w/logs/error.log)"
		fi
	done
	rs_summary "$1"
	say "done in $(( $(date +%s) - t0 )) s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
}

# rs_children PID: the processes whose parent is PID.
rs_children() {
	awk -v p="$1" '$4 == p { print $1 }' /proc/[0-9]*/stat 2>/dev/null
}

# rs_started WHICH PID PORT LOGS WHAT: waits until the server PID (WHAT,
# build WHICH, its logs in the directory LOGS) has its one child process,
# the one measured, and answers on PORT; sets port_WHICH and
# worker_WHICH.  Dies when it does not within 10 s, or has more children.
rs_started() {
	rs_port=$3
	i=0
	until w=$(rs_children "$2") && [ -n "$w" ] && "$work/load" probe "$3"; do
		kill -0 "$2" 2>/dev/null && [ $i -lt 100 ] ||
			{ cat "$4/stdout.log" "$4/error.log" 2>/dev/null; die "$5 ($1) did not start (see $4)"; }
		sleep 0.1
		i=$((i + 1))
	done
	rs_what=$5
	set -- "$1" $w
	[ $# = 2 ] || die "$rs_what ($1) has $(($# - 1)) child processes, not 1"
	eval "port_$1=$rs_port worker_$1=$2"
}

# rs_load CASE BLOCKS OUT: load.c's run of CASE, BLOCKS pairs, output to
# OUT.  Cases: keepalive, close, memory (nginx's empty_gif), and the
# first two with -idle.
rs_load() {
	case $1 in
	keepalive*) set -- "$@" --conn=keepalive --path=/small.txt --body=100 ;;
	close*) set -- "$@" --conn=close --path=/small.txt --body=100 ;;
	memory) set -- "$@" --conn=keepalive --path=/empty.gif --body=43 ;;
	esac
	case $1 in
	*-idle) set -- "$@" --idle=$idle ;;
	esac
	ld_case=$1 ld_blocks=$2 ld_out=$3
	shift 3
	# shellcheck disable=SC2154
	timeout 300 $pin_client "$work/load" run "$@" --conns=$conns --blocks="$ld_blocks" --block-ms=$block_ms \
		--label="$ld_case" kqueue "$port_kqueue" "$worker_kqueue" epoll "$port_epoll" "$worker_epoll" \
		>"$ld_out" 2>&1
}

# rs_cases INSTANCE CASE...: each case's blocks on the servers running
# now, the load's lines printed with instance=INSTANCE after their first
# word (its per-case summary renamed real-server-instance) and kept in
# $work/blocks for rs_combine.
rs_cases() {
	rc_inst=$1
	shift
	for c in "$@"; do
		rs_load "$c" $blocks "$work/case-$c.txt"
		rc=$?
		sed -e "s/^\(real-server[a-z-]*\) /\1 instance=$rc_inst /" \
		    -e 's/^real-server instance=/real-server-instance instance=/' \
		    "$work/case-$c.txt" >"$work/case-$c-$rc_inst.txt"
		cat "$work/case-$c-$rc_inst.txt"
		[ $rc = 0 ] || die "the $c case failed (status $rc; see $work/case-$c.txt, $run/*/logs)"
		grep -E '^real-server-(block|instance) ' "$work/case-$c-$rc_inst.txt" >>"$work/blocks"
		say "$c done (instance $rc_inst of $instances), $(( $(date +%s) - t0 )) s so far"
	done
}

# rs_combine CASE...: each case's line over all its instances' blocks,
# in load.c's fields (each build's median CPU per request, the ratio of
# the medians, ratio_paired: the median of all pairs' ratios, the lowest
# and highest pair, each build's spread), blocks the pairs in all, and
# instances, instance_ratios (each instance's median pair ratio, in
# order, "/" between) with their lowest and highest.  Quantiles are
# linear between ranks, as load.c's.
rs_combine() {
	awk -v order="$*" '
	function fields(   i, e) {
		split("", f)
		for (i = 2; i <= NF; i++) { e = index($i, "="); f[substr($i, 1, e - 1)] = substr($i, e + 1) }
	}
	function q(v, n, p,   i, j, t, s, r, lo) {
		for (i = 1; i <= n; i++) s[i] = v[i]
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && s[j - 1] > s[j]; j--) { t = s[j]; s[j] = s[j - 1]; s[j - 1] = t }
		r = p * (n - 1); lo = int(r)
		return lo + 1 < n ? s[lo + 1] + (r - lo) * (s[lo + 2] - s[lo + 1]) : s[lo + 1]
	}
	$1 == "real-server-block" {
		fields()
		k = f["case"] SUBSEP f["instance"] SUBSEP f["pair"]
		us[k, f["build"]] = f["us_per_req"]
		if (!(k in pairs)) {
			pairs[k] = 1
			np[f["case"]]++
			pk[f["case"], np[f["case"]]] = k
		}
		idle[f["case"]] = f["idle"]
	}
	$1 == "real-server-instance" {
		fields()
		ni[f["case"]]++
		ir[f["case"], ni[f["case"]]] = f["ratio_paired"]
		conns = f["conns"]
	}
	END {
		nc = split(order, cs, " ")
		for (c = 1; c <= nc; c++) {
			cs0 = cs[c]; n = np[cs0]
			if (!n) continue
			for (i = 1; i <= n; i++) {
				k = pk[cs0, i]
				a[i] = us[k, "kqueue"]; b[i] = us[k, "epoll"]; r[i] = a[i] / b[i]
			}
			ma = q(a, n, 0.5); mb = q(b, n, 0.5)
			m = ni[cs0]; list = ""
			for (i = 1; i <= m; i++) { x[i] = ir[cs0, i]; list = list (i > 1 ? "/" : "") x[i] }
			printf "real-server case=%s idle=%s conns=%s blocks=%d kqueue_us_per_req=%.3f epoll_us_per_req=%.3f", \
				cs0, idle[cs0], conns, n, ma, mb
			printf " ratio=%.3f ratio_paired=%.3f pair_min=%.3f pair_max=%.3f kqueue_iqr_pct=%.1f epoll_iqr_pct=%.1f", \
				ma / mb, q(r, n, 0.5), q(r, n, 0), q(r, n, 1), \
				100 * (q(a, n, 0.75) - q(a, n, 0.25)) / ma, 100 * (q(b, n, 0.75) - q(b, n, 0.25)) / mb
			printf " instances=%d instance_ratios=%s instance_min=%.3f instance_max=%.3f\n", \
				m, list, q(x, m, 0), q(x, m, 1)
		}
	}' "$work/blocks"
}

# ---- which system calls each build makes per request ----
# rs_calls: one more pair of blocks of keepalive and close, each measured
# process's system calls counted by perf's tracepoints (all of them, and
# those in $calls one by one) from the first request to the last, the
# unmeasured blocks included.
rs_calls() {
	set -- -e raw_syscalls:sys_enter
	for k in $calls; do
		set -- "$@" -e "syscalls:sys_enter_$k"
	done
	if ! command -v perf >/dev/null 2>&1 || ! perf stat -x, -o /dev/null "$@" true >/dev/null 2>&1; then
		say "perf cannot count these system calls here (not installed, no tracepoints, or not allowed): no counts per request"
		return 0
	fi
	for c in keepalive close; do
		for w in kqueue epoll; do
			eval "pw=\$worker_$w"
			perf stat -x, -o "$work/calls-$w-$c.csv" "$@" -p "$pw" &
			eval "perf_$w=\$!"
		done
		sleep 1   # perf attached
		rs_load "$c" 1 "$work/calls-$c.txt"
		rc=$?
		# shellcheck disable=SC2154
		kill -INT "$perf_kqueue" "$perf_epoll"
		wait "$perf_kqueue" "$perf_epoll"
		[ $rc = 0 ] || die "counting the $c case's calls failed (see $work/calls-$c.txt)"
		for w in kqueue epoll; do
			n=$(awk -v w="$w" '$1 ~ /^real-server-(block|warmup)$/ && $0 ~ " build=" w " " {
				for (i = 2; i <= NF; i++) if ($i ~ /^requests=/) n += substr($i, 10)
			} END { print n + 0 }' "$work/calls-$c.txt")
			awk -F, -v c="$c" -v w="$w" -v n="$n" '
			$1 ~ /^[0-9]+$/ && $3 == "raw_syscalls:sys_enter" { all = $1 }
			$1 ~ /^[0-9]+$/ && $3 ~ /^syscalls:sys_enter_/ && $1 > 0 { k[++m] = substr($3, 20); v[m] = $1 }
			END {
				if (n <= 0 || all == "") exit
				s = sprintf("real-server-calls case=%s build=%s requests=%d per_req=%.3f", c, w, n, all / n)
				for (i = 1; i <= m; i++) s = s sprintf(" %s=%.3f", k[i], v[i] / n)
				print s
			}' "$work/calls-$w-$c.csv"
		done
	done
}

# ---- where each build's CPU goes ----
# rs_profile: more pairs of keepalive and close blocks with both measured
# processes sampled by perf record (4000 times a second of CPU time, with
# call chains): each build's share of its samples in libkq's code, in the
# kernel's byte counts (io_uring and its socket commands, tcp_ioctl:
# SIOCINQ and FIONREAD), under epoll_ctl, getsockopt and epoll_wait, and
# libkq's five hottest functions ("function:% of all samples").  The
# samples stay in $work/prof-BUILD-CASE.data.
rs_profile() {
	if ! command -v perf >/dev/null 2>&1 || ! perf record -q -o "$work/perf-check.data" true >/dev/null 2>&1; then
		say "perf cannot sample here (not installed, or not allowed): no profile"
		return 0
	fi
	for c in keepalive close; do
		for w in kqueue epoll; do
			eval "pw=\$worker_$w"
			perf record -q -F 4000 -g -o "$work/prof-$w-$c.data" -p "$pw" >/dev/null 2>&1 &
			eval "perf_$w=\$!"
		done
		sleep 1
		rs_load "$c" $prof_pairs "$work/prof-$c.txt"
		rc=$?
		kill -INT "$perf_kqueue" "$perf_epoll"
		wait "$perf_kqueue" "$perf_epoll"
		[ $rc = 0 ] || die "profiling the $c case failed (see $work/prof-$c.txt)"
		for w in kqueue epoll; do
			{
				perf report -i "$work/prof-$w-$c.data" --no-children --sort dso,sym --stdio -g none 2>/dev/null |
					sed 's/^/self /'
				perf report -i "$work/prof-$w-$c.data" --children --sort sym --stdio -g none 2>/dev/null |
					sed 's/^/children /'
			} | awk -v c="$c" -v w="$w" '
			function pct(s) { sub(/%$/, "", s); return s + 0 }
			$1 == "self" && $2 == "#" && $3 == "Samples:" { n = $4 }
			$1 == "self" && $2 ~ /%$/ {
				p = pct($2)
				if ($3 ~ /^libkq/) {
					kq += p
					if (++k <= 5) top = top (k > 1 ? "," : "") $5 ":" p
				} else if ($3 == "[kernel.kallsyms]" && ($5 ~ /^_*io_/ || $5 ~ /io_uring/ || $5 == "tcp_ioctl"))
					counts += p
			}
			$1 == "children" && $2 ~ /%$/ && $5 ~ /^__x64_sys_(epoll_ctl|getsockopt|epoll_wait)$/ {
				sc[substr($5, 11)] = pct($2)
			}
			END {
				printf "real-server-profile case=%s build=%s samples=%s libkq_pct=%.2f counts_pct=%.2f", c, w, n, kq, counts
				printf " epoll_ctl_pct=%.2f getsockopt_pct=%.2f epoll_wait_pct=%.2f top_libkq=%s\n",
					sc["epoll_ctl"], sc["getsockopt"], sc["epoll_wait"], (top == "" ? "none" : top)
			}'
		done
	done
}

# rs_summary SERVER: the worst case's paired ratio and the cases' median.
rs_summary() {
	awk -v srv="$1" '{
		for (i = 2; i <= NF; i++) { e = index($i, "="); f[substr($i, 1, e - 1)] = substr($i, e + 1) }
		r[++n] = f["ratio_paired"] + 0
		if (n == 1 || r[n] > worst) { worst = r[n]; wc = f["case"] }
	}
	END {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && r[j - 1] > r[j]; j--) { t = r[j]; r[j] = r[j - 1]; r[j - 1] = t }
		m = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
		printf "real-server-summary server=%s cases=%d worst_ratio=%.3f worst_case=%s median_ratio=%.3f\n", srv, n, worst, wc, m
	}' "$work/cases"
}
