#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Runs the benchmarks and reports what they measured.
#
#   bench/report.sh BINDIR [DOCSDIR]
#       Full sizes (about 15 minutes, 5 of them libuv's benchmarks, 3
#       nginx's and 2 Apache httpd's, all built from Debian's source the
#       first time): runs every
#       program in BINDIR, keeps each one's output in
#       DOCSDIR/perf/raw/<program>.txt, draws the figures as
#       DOCSDIR/perf/*.png with gnuplot and writes DOCSDIR/performance.md.
#       DOCSDIR defaults to the docs/ directory next to this script's bench/.
#       gnuplot: if it is missing and this runs as root, gnuplot-nox is
#       installed with apt-get; otherwise the tables are written without
#       plots and performance.md says so.
#   bench/report.sh --headline BINDIR
#       Small sizes (about 10 s): the most important comparisons with raw
#       epoll, in plain words on stdout, without targets or verdicts (those
#       are in performance.md).  Needs only sh and awk (`make demo` runs it).
#   bench/report.sh --from-raw BINDIR [DOCSDIR]
#       Rewrites performance.md and the plots from the raw outputs already in
#       DOCSDIR/perf/raw without running anything (BINDIR is not used).
#
# Every figure is a ratio measured side by side in one run (see
# bench/bench.h); the programs print one machine-readable
# line per result ("<program> key=value ..."), which is all this script reads.
# Exit status: 0, or 1 if a program failed (its output is kept) or a
# directory is wrong.
set -u

usage() {
	echo "usage: $0 [--headline | --from-raw] BINDIR [DOCSDIR]" >&2
	exit 2
}

mode=report
case "${1:-}" in
--headline) mode=headline; shift ;;
--from-raw) mode=raw; shift ;;
-h|--help) sed -n '2,27p' "$0"; exit 0 ;;
esac
[ $# -ge 1 ] || usage
bindir=$1
here=$(cd "$(dirname "$0")" && pwd)
docs=${2:-$here/../docs}
if [ "$mode" != raw ] && [ ! -x "$bindir/wait-one-ready" ]; then
	echo "$0: no benchmark programs in $bindir" >&2
	exit 1
fi
failed=""

# ---- reading the programs' lines ----

# val FILE TAG KEY [FIELD...]: KEY's value on the first line of FILE whose
# first word is TAG and which has every FIELD (key=value) among its fields.
val() {
	_f=$1 _t=$2 _k=$3
	shift 3
	[ -r "$_f" ] || return 0
	awk -v tag="$_t" -v key="$_k" -v filt="$*" '
	BEGIN { nw = split(filt, want, " ") }
	$1 == tag {
		for (i = 1; i <= nw; i++) {
			ok = 0
			for (j = 2; j <= NF; j++)
				if ($j == want[i])
					ok = 1
			if (!ok)
				next
		}
		for (j = 2; j <= NF; j++)
			if (index($j, key "=") == 1) {
				print substr($j, length(key) + 2)
				exit
			}
	}' "$_f"
}

# calc EXPR: evaluates an awk expression, printed with %g-like sense.
calc() {
	awk "BEGIN { v = $1; if (v == int(v) && v < 1e9 && v > -1e9) printf \"%d\\n\", v; else printf \"%.3g\\n\", v }"
}

# fmt FORMAT VALUE: printf through awk; "na" (or empty) stays "na".
fmt() {
	case "${2:-}" in
	''|na) echo na ;;
	*) awk -v f="$1" -v v="$2" 'BEGIN { printf f "\n", v }' ;;
	esac
}

# verdict VALUE LIMIT: "ok" if VALUE <= LIMIT, "MISSED" otherwise, "?" if unknown.
verdict() {
	case "${1:-}" in
	''|na) echo "?" ;;
	*) awk -v v="$1" -v l="$2" 'BEGIN { print (sprintf("%.2f", v) + 0 <= l + 0) ? "ok" : "MISSED" }' ;;
	esac
}

# run NAME OUTFILE ARGS...: runs program NAME from BINDIR, output to OUTFILE.
run() {
	_n=$1 _o=$2
	shift 2
	_t0=$(date +%s)
	"$bindir/$_n" "$@" >"$_o" 2>&1
	_rc=$?
	_t1=$(date +%s)
	if [ $_rc -ne 0 ]; then
		failed="$failed $_n"
		echo "  $_n FAILED (exit $_rc); its output is in $_o" >&2
		tail -n 3 "$_o" >&2
	elif [ "$mode" = report ]; then
		echo "  $_n: $((_t1 - _t0)) s" >&2
	fi
	return 0
}

# run_sh NAME SCRIPT: runs the script that builds a real program against
# the build tree's libkq and measures it (SCRIPT LIBKQ WORKDIR, WORKDIR
# BINDIR/../NAME), its output to $raw/NAME.txt; its exit status 77 means
# skipped, the reason on its last line (kept in that output, which the
# report shows).
run_sh() {
	sh "$2" "$bindir/../src/libkq.so" "$bindir/../$1" >"$raw/$1.txt" 2>&1
	case $? in
	0) ;;
	77) echo "  $1 skipped: $(tail -n 1 "$raw/$1.txt")" >&2 ;;
	*) failed="$failed $1"
	   echo "  $1 FAILED; its output is in $raw/$1.txt" >&2 ;;
	esac
}

# The machine, from a program's header comment and the system.
machine() {
	_h=$(grep -h -m1 '^# ' "$@" 2>/dev/null | head -n 1)
	cpu=$(echo "$_h" | sed -n 's/.* cpu="\([^"]*\)".*/\1/p')
	[ -n "$cpu" ] || cpu=$(sh "$here/cpu-model.sh")
	cpus=$(echo "$_h" | sed -n 's/.* cpus=\([0-9]*\).*/\1/p')
	[ -n "$cpus" ] || cpus=$(getconf _NPROCESSORS_ONLN)
	kernel=$(echo "$_h" | sed -n 's/.* kernel=\([^ ]*\).*/\1/p')
	[ -n "$kernel" ] || kernel=$(uname -r)
	arch=$(echo "$_h" | sed -n 's/.* arch=\([^ ]*\).*/\1/p')
	load=$(echo "$_h" | sed -n 's/.* loadavg=\([^ ]*\).*/\1/p')
}

# ---- headline ----
# `make demo`: what libkq costs next to raw Linux calls doing the same work,
# in plain words for someone who has just built it.  Targets and verdicts
# belong to docs/performance.md, not here.

# group N: 19000 -> 19,000 (integers; anything else unchanged).
group() {
	awk -v n="$1" 'BEGIN {
		if (n !~ /^[0-9]+$/) { print n; exit }
		s = ""
		while (length(n) > 3) {
			s = "," substr(n, length(n) - 2) s
			n = substr(n, 1, length(n) - 3)
		}
		print n s
	}'
}

# cmp WHAT RATIO BASELINE DETAIL: one comparison, e.g.
#   waiting for 1 ready descriptor among 1,000  libkq 1.01x the time of raw epoll   (730 vs 724 ns)
cmp() {
	_r=$(fmt '%.2fx' "$2")
	case "$2" in
	0.0*) _r=$(fmt '%.3fx' "$2") ;;
	esac
	printf '  %-43s libkq %-6s the time of %-14s %s\n' "$1" "$_r" "$3" "$4"
}

# fact WHAT TEXT: a figure that is not a ratio.
fact() {
	printf '  %-43s %s\n' "$1" "$2"
}

headline() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/libkq-headline.XXXXXX") || exit 1
	trap 'rm -rf "$tmp"' EXIT INT TERM
	echo "libkq gives Linux programs FreeBSD's kqueue() and kevent(), built on epoll."
	echo "Timing it against raw Linux calls doing the same work (about 10 s)..."
	run wait-one-ready "$tmp/w" --idle=eventfd --n=1,1000,19000 --blocks=31 --per-block=2000
	run ready-of-n "$tmp/r" --sweeps=spread --spread-n=1000 --blocks=9 --target-us=400
	run add-delete "$tmp/a" --blocks=21
	run user-roundtrip "$tmp/u" --cpu=cross --blocks=11 --per-block=500
	run timers "$tmp/t1" --only=fds
	run timers "$tmp/t2" --only=arm-cancel --blocks=5
	run timeout-precision "$tmp/p" --per-block=150
	run knote-memory "$tmp/m"
	run idle-server "$tmp/i" --idle=0,10000 --blocks=5 --per-block=4000

	machine "$tmp/w"
	echo
	echo "What kevent() costs next to raw epoll"
	echo "Each job below was done both ways, taking turns, in this run on $cpu"
	echo "($cpus CPUs, Linux $kernel).  1.00x means the same time; below 1.00x, libkq"
	echo "is faster.  The times in brackets are CPU time per job, libkq vs raw."
	echo
	# The largest N is what the descriptor limit allowed (19,000 here).
	big=$(val "$tmp/w" wait-one-ready-summary largest_N idle=eventfd)
	for n in 1 1000 ${big:-19000}; do
		k=$(val "$tmp/w" wait-one-ready kevent_ns idle=eventfd N=$n)
		e=$(val "$tmp/w" wait-one-ready epoll_ns idle=eventfd N=$n)
		r=$(val "$tmp/w" wait-one-ready ratio idle=eventfd N=$n)
		cmp "waiting for 1 ready descriptor among $(group "$n")" "$r" "raw epoll" \
			"($(fmt '%.0f' "$k") vs $(fmt '%.0f' "$e") ns)"
	done
	k=$(val "$tmp/r" ready-of-n-summary kevent_per_event_ns sweep=spread)
	e=$(val "$tmp/r" ready-of-n-summary floor_per_event_ns sweep=spread)
	r=$(val "$tmp/r" ready-of-n-summary per_event_ratio sweep=spread)
	cmp "each further ready descriptor in one call" "$r" "raw epoll" \
		"($(fmt '%.0f' "$k") vs $(fmt '%.0f' "$e") ns)"
	for op in add delete disable enable; do
		k=$(val "$tmp/a" add-delete kevent_ns op=$op)
		e=$(val "$tmp/a" add-delete epoll_ns op=$op)
		r=$(val "$tmp/a" add-delete ratio op=$op)
		case $op in
		add) what="starting to watch a descriptor (EV_ADD)" ;;
		delete) what="stopping (EV_DELETE)" ;;
		disable) what="pausing a watch (EV_DISABLE)" ;;
		enable) what="resuming it (EV_ENABLE)" ;;
		esac
		cmp "$what" "$r" "epoll_ctl()" "($(fmt '%.0f' "$k") vs $(fmt '%.0f' "$e") ns)"
	done
	k=$(val "$tmp/u" user-roundtrip kevent_ns cpu=cross)
	e=$(val "$tmp/u" user-roundtrip eventfd_ns cpu=cross)
	r=$(val "$tmp/u" user-roundtrip ratio cpu=cross)
	if [ -n "$r" ]; then
		cmp "waking another thread (EVFILT_USER)" "$r" "eventfd+epoll" \
			"($(fmt '%.1f' "$(calc "${k:-0}/1000")") vs $(fmt '%.1f' "$(calc "${e:-0}/1000")") us)"
	fi
	k=$(val "$tmp/t2" timers kevent_ns op=arm-cancel)
	e=$(val "$tmp/t2" timers timerfd_ns op=arm-cancel)
	s=$(val "$tmp/t2" timers speedup op=arm-cancel)
	r=""
	[ -n "$s" ] && r=$(calc "1/$s")
	cmp "setting and cancelling 1 of 10,000 timers" "$r" "a timerfd each" \
		"($(fmt '%.0f' "$k") vs $(fmt '%.0f' "$e") ns)"
	big=$(val "$tmp/i" idle-server-summary largest_idle)
	for i in 0 ${big:-10000}; do
		k=$(val "$tmp/i" idle-server cpu_us_per_req idle=$i variant=kevent)
		e=$(val "$tmp/i" idle-server cpu_us_per_req idle=$i variant=epoll)
		r=$(val "$tmp/i" idle-server vs_epoll idle=$i variant=kevent)
		if [ "$i" = 0 ]; then
			what="an echo server, per request"
		else
			what="  the same with $(group "$i") idle connections"
		fi
		cmp "$what" "$r" "raw epoll" "($(fmt '%.2f' "$k") vs $(fmt '%.2f' "$e") us)"
	done

	echo
	echo "Other figures from the same run"
	echo
	f=$(val "$tmp/t1" timers timer_fds op=fds)
	b=$(val "$tmp/t1" timers baseline_timer_fds op=fds)
	n=$(val "$tmp/t1" timers N op=fds)
	fact "descriptors for $(group "${n:-10000}") timers" \
		"libkq ${f:-na}; one timerfd per timer: $(group "${b:-na}")"
	m=$(val "$tmp/m" knote-memory read_bytes_per_knote)
	fact "memory per watched socket" "$(fmt '%.0f' "$m") bytes"
	for t in 1 10 100 1000; do
		k=$(val "$tmp/p" timeout-precision kevent_median_us timeout_us=$t)
		e=$(val "$tmp/p" timeout-precision pwait2_median_us timeout_us=$t)
		if [ "$t" = 1000 ]; then tl="1 ms"; else tl="$t us"; fi
		fact "a $tl timeout returns late by" \
			"$(fmt '%.0f' "$k") us (median; epoll_pwait2 alone: $(fmt '%.0f' "$e") us)"
	done
	big=$(val "$tmp/i" idle-server-summary largest_idle)
	fl=$(val "$tmp/i" idle-server-summary kevent_flatness)
	fe=$(val "$tmp/i" idle-server-summary epoll_flatness)
	fp=$(val "$tmp/i" idle-server-summary poll_flatness)
	fact "echo server cost, 0 -> $(group "${big:-10000}") idle clients" \
		"libkq $(fmt '%.2fx' "$fl"), raw epoll $(fmt '%.2fx' "$fe"), poll() $(fmt '%.2fx' "$fp")"
	echo
	echo "These are short runs on a shared machine: expect a few percent of noise."
	echo "Full measurements, with the targets libkq is held to: docs/performance.md"
	echo "(remeasure with: cmake --build <build-dir> --target bench-report, about 15 minutes)."
	if [ -n "$failed" ]; then
		echo "FAILED:$failed" >&2
		exit 1
	fi
	exit 0
}

[ "$mode" = headline ] && headline

# ---- full report ----

# tab FILE TAG FILTERS COLUMNS: a markdown table, one row per line of FILE
# whose first word is TAG and which has every FILTERS field.  COLUMNS is
# "Header=spec;Header=spec;...", a spec being a key, optionally followed by
# /number or *number (scaled), optionally followed by @printf-format.  A
# missing or "na" value shows as "–".
tab() {
	[ -r "$1" ] || { echo "(no data: $1 is missing)"; return 0; }
	awk -v tag="$2" -v filt="$3" -v cols="$4" '
	BEGIN {
		nw = split(filt, want, " ")
		nc = split(cols, c, ";")
		line = "|"; rule = "|"
		for (i = 1; i <= nc; i++) {
			e = index(c[i], "=")
			hdr = substr(c[i], 1, e - 1); spec = substr(c[i], e + 1)
			fm[i] = ""
			if ((a = index(spec, "@")) > 0) {
				fm[i] = substr(spec, a + 1); spec = substr(spec, 1, a - 1)
			}
			op[i] = ""
			if (match(spec, /[\/*]/)) {
				op[i] = substr(spec, RSTART, 1); num[i] = substr(spec, RSTART + 1) + 0
				spec = substr(spec, 1, RSTART - 1)
			}
			key[i] = spec
			line = line " " hdr " |"; rule = rule " ---: |"
		}
		print line; print rule
	}
	$1 == tag {
		for (i = 1; i <= nw; i++) {
			ok = 0
			for (j = 2; j <= NF; j++) if ($j == want[i]) ok = 1
			if (!ok) next
		}
		delete kv
		for (j = 2; j <= NF; j++) {
			e = index($j, "=")
			if (e) kv[substr($j, 1, e - 1)] = substr($j, e + 1)
		}
		line = "|"
		for (i = 1; i <= nc; i++) {
			v = (key[i] in kv) ? kv[key[i]] : ""
			if (v == "" || v == "na") v = "–"
			else {
				if (op[i] == "/") v = v / num[i]
				else if (op[i] == "*") v = v * num[i]
				if (fm[i] != "") v = sprintf(fm[i], v)
			}
			line = line " " v " |"
		}
		print line
	}' "$1"
}

# dat FILE TAG FILTERS KEYS: whitespace-separated columns for gnuplot ("?"
# where a value is missing).
dat() {
	[ -r "$1" ] || return 0
	awk -v tag="$2" -v filt="$3" -v keys="$4" '
	BEGIN { nw = split(filt, want, " "); nk = split(keys, k, " ") }
	$1 == tag {
		for (i = 1; i <= nw; i++) {
			ok = 0
			for (j = 2; j <= NF; j++) if ($j == want[i]) ok = 1
			if (!ok) next
		}
		delete kv
		for (j = 2; j <= NF; j++) {
			e = index($j, "=")
			if (e) kv[substr($j, 1, e - 1)] = substr($j, e + 1)
		}
		s = ""
		for (i = 1; i <= nk; i++) {
			v = (k[i] in kv) ? kv[k[i]] : "?"
			if (v == "na" || v == "") v = "?"
			s = s (i > 1 ? " " : "") v
		}
		print s
	}' "$1"
}

# idle-server lines pivoted: idle, then KEY of kevent, poll, epoll, floor.
idle_dat() {
	[ -r "$1" ] || return 0
	awk -v key="$2" '
	$1 == "idle-server" {
		delete kv
		for (j = 2; j <= NF; j++) {
			e = index($j, "=")
			if (e) kv[substr($j, 1, e - 1)] = substr($j, e + 1)
		}
		if (!(kv["idle"] in seen)) { seen[kv["idle"]] = 1; order[++n] = kv["idle"] }
		v[kv["idle"], kv["variant"]] = kv[key]
	}
	END {
		for (i = 1; i <= n; i++) {
			d = order[i]
			print d, v[d, "kevent"], v[d, "poll"], v[d, "epoll"], v[d, "floor"]
		}
	}' "$1"
}

# sp_calls FILE: the server-patterns --breakdown lines as a markdown table,
# one row per pattern and system call: kevent's and epoll's calls per request
# and the difference.
sp_calls() {
	[ -r "$1" ] && grep -q '^server-patterns-syscall ' "$1" ||
		{ echo "(no data: no per-call counts in $1)"; return 0; }
	awk '
	$1 == "server-patterns-syscall" {
		delete kv
		for (j = 2; j <= NF; j++) {
			e = index($j, "=")
			if (e) kv[substr($j, 1, e - 1)] = substr($j, e + 1)
		}
		k = kv["pattern"] SUBSEP kv["call"]
		if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		v[k, kv["variant"]] = kv["per_req"]
	}
	END {
		print "| pattern | system call | kevent server (per request) | epoll server (per request) | kevent - epoll |"
		print "| ---: | ---: | ---: | ---: | ---: |"
		for (i = 1; i <= n; i++) {
			split(order[i], pc, SUBSEP)
			a = v[order[i], "kevent"] + 0; b = v[order[i], "epoll"] + 0
			printf "| %s | %s | %.3f | %.3f | %+.3f |\n", pc[1], pc[2], a, b, a - b
		}
	}' "$1"
}

plots=0
plot_note=""
ensure_gnuplot() {
	if ! command -v gnuplot >/dev/null 2>&1; then
		if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
			echo "bench-report: installing gnuplot-nox with apt-get" >&2
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q gnuplot-nox >/dev/null 2>&1 ||
			{ apt-get update -q >/dev/null 2>&1 &&
			  DEBIAN_FRONTEND=noninteractive apt-get install -y -q gnuplot-nox >/dev/null 2>&1; }
		fi
	fi
	if command -v gnuplot >/dev/null 2>&1; then
		plots=1
		term=png
		gnuplot -e 'set terminal' 2>/dev/null | grep -q pngcairo && term=pngcairo
	else
		plot_note="No plots: gnuplot is not installed and could not be installed (the
script installs gnuplot-nox with apt-get only when it runs as root); the
tables below hold every figure's data."
		echo "bench-report: gnuplot is missing: writing the tables without plots" >&2
	fi
}

# gp NAME TITLE: runs the gnuplot commands on stdin into $docs/perf/NAME.png.
gp() {
	[ $plots = 1 ] || { cat >/dev/null; return 0; }
	{
		if [ "$term" = pngcairo ]; then
			echo 'set terminal pngcairo size 860,600 font "sans,10" linewidth 1.5 noenhanced'
		else
			echo 'set terminal png size 860,600 noenhanced'
		fi
		echo "set output '$docs/perf/$1.png'"
		echo "set title \"$2\""
		echo 'set datafile missing "?"'
		echo 'set grid'
		echo 'set key below'
		cat
	} | gnuplot 2>"$tmp/gnuplot.err" || {
		echo "bench-report: gnuplot failed for $1:" >&2
		cat "$tmp/gnuplot.err" >&2
	}
}

# img NAME ALT: the markdown image line, if the plot exists.
img() {
	[ $plots = 1 ] && [ -s "$docs/perf/$1.png" ] && printf '\n![%s](perf/%s.png)\n' "$2" "$1"
	return 0
}

figures() {
	R=$raw
	# Figure 10: registration vs one poll() pass, waits over idle descriptors.
	dat "$R/register-poll.txt" register-poll "" \
		"N kevent_register_ns_per_fd epoll_register_ns_per_fd poll_pass_ns_per_fd idle_kevent_ns idle_epoll_ns" >"$tmp/f10"
	gp fig10-register "Figure 10: first registration of N UDP sockets vs one poll() over them" <<-G
	set logscale xy
	set xlabel "descriptors (N)"
	set ylabel "time (us)"
	plot '$tmp/f10' u 1:(\$1*\$2/1000) w lp pt 7 t "kevent: register N (once)", \
	     '' u 1:(\$1*\$3/1000) w lp pt 5 t "epoll_ctl: register N (once)", \
	     '' u 1:(\$1*\$4/1000) w lp pt 9 t "poll(): one call over N", \
	     '' u 1:(\$5/1000) w lp pt 6 t "kevent: one wait, N idle (kq_descriptor)", \
	     '' u 1:(\$6/1000) w lp pt 4 t "epoll_wait: one wait, N idle"
	G
	dat "$R/ready-of-n.txt" ready-of-n "sweep=idle" "N select_ns poll_ns epoll_ns kevent_ns" >"$tmp/f10w"
	gp fig10-idle-wait "Figure 10 (waits): one call over N idle pipes" <<-G
	set logscale xy
	set xlabel "descriptors (N), none ready"
	set ylabel "ns per call"
	plot '$tmp/f10w' u 1:2 w lp pt 8 t "select", '' u 1:3 w lp pt 9 t "poll", \
	     '' u 1:4 w lp pt 4 t "epoll_wait", '' u 1:5 w lp pt 7 t "kevent"
	G
	# Figure 11: all N active.
	dat "$R/ready-of-n.txt" ready-of-n "sweep=active" "N select_ns poll_ns epoll_ns floor_ns kevent_ns" >"$tmp/f11"
	gp fig11-all-active "Figure 11: all N pipes ready, one call returning all of them" <<-G
	set logscale xy
	set xlabel "descriptors (N), all ready"
	set ylabel "us per call"
	plot '$tmp/f11' u 1:(\$2/1000) w lp pt 8 t "select", '' u 1:(\$3/1000) w lp pt 9 t "poll", \
	     '' u 1:(\$4/1000) w lp pt 4 t "epoll_wait (no byte counts)", \
	     '' u 1:(\$5/1000) w lp pt 5 t "epoll_wait + FIONREAD each", \
	     '' u 1:(\$6/1000) w lp pt 7 t "kevent (data = bytes)"
	G
	# Figure 12: accumulated cost per descriptor.
	for st in idle active; do
		dat "$R/register-poll.txt" register-poll-accum "N=$accum_n state=$st" \
			"k kevent_ns_per_fd epoll_ns_per_fd poll_ns_per_fd" >"$tmp/f12$st"
		gp fig12-accumulated-$st "Figure 12: accumulated cost per descriptor, N = $accum_n $st UDP sockets" <<-G
		set xlabel "calls made over the same descriptors"
		set ylabel "accumulated ns per descriptor (registration included)"
		plot '$tmp/f12$st' u 1:2 w lp pt 7 t "kevent (register once, then wait)", \
		     '' u 1:3 w lp pt 4 t "epoll (register once, then wait + FIONREAD)", \
		     '' u 1:4 w lp pt 9 t "poll (every call passes all N)"
		G
	done
	# Figure 13: the cost of each action.
	dat "$R/add-delete.txt" add-delete "" "op epoll_ns kevent_ns changelist_ns" >"$tmp/f13"
	gp fig13-actions "Figure 13: cost of one change (EVFILT_READ on an idle UNIX socket)" <<-G
	set style data histograms
	set style histogram clustered gap 1
	set style fill solid 0.7 border -1
	set boxwidth 0.9
	set ylabel "ns per change"
	set key below
	set yrange [0:*]
	plot '$tmp/f13' u 2:xtic(1) t "epoll_ctl", '' u 3 t "kevent, one change per call", \
	     '' u 4 t "kevent, all changes in one changelist"
	G
	# The epoll lecture: 1 ready of N, R ready of N.
	dat "$R/ready-of-n.txt" ready-of-n "sweep=one" "N select_ns poll_ns epoll_ns floor_ns kevent_ns" >"$tmp/l1"
	gp lecture-one-ready "One call, 1 ready pipe in the middle of N" <<-G
	set logscale xy
	set xlabel "descriptors (N)"
	set ylabel "ns per call"
	plot '$tmp/l1' u 1:2 w lp pt 8 t "select", '' u 1:3 w lp pt 9 t "poll", \
	     '' u 1:4 w lp pt 4 t "epoll_wait", '' u 1:5 w lp pt 5 t "epoll_wait + FIONREAD", \
	     '' u 1:6 w lp pt 7 t "kevent"
	G
	dat "$R/ready-of-n.txt" ready-of-n "sweep=spread" "R select_ns poll_ns epoll_ns floor_ns kevent_ns" >"$tmp/lr"
	gp lecture-r-of-n "One call, R ready pipes of N = $spread_n" <<-G
	set logscale xy
	set xlabel "ready descriptors (R)"
	set ylabel "ns per call"
	plot '$tmp/lr' u 1:2 w lp pt 8 t "select", '' u 1:3 w lp pt 9 t "poll", \
	     '' u 1:4 w lp pt 4 t "epoll_wait", '' u 1:5 w lp pt 5 t "epoll_wait + FIONREAD each", \
	     '' u 1:6 w lp pt 7 t "kevent"
	G
	# Table 2 of the Linux prototype.
	dat "$R/table2-pipes.txt" table2-pipes "" \
		"N kqueue_us poll_us epoll_us floor_us paper_kqueue_us paper_poll_us" >"$tmp/t2"
	gp table2-pipes "Table 2 (Joukov & Zadok): all N pipes ready, connections living 1000 calls" <<-G
	set xlabel "pipes (N)"
	set ylabel "us per call"
	set xrange [0:1100]
	plot '$tmp/t2' u 1:2 w lp pt 7 t "kevent (libkq, here)", '' u 1:3 w lp pt 9 t "poll (here)", \
	     '' u 1:4 w lp pt 4 t "epoll_wait (here)", '' u 1:5 w lp pt 5 t "epoll_wait + FIONREAD (here)", \
	     '' u 1:6 w lp pt 6 dt 2 t "kqueue (paper, 2002)", '' u 1:7 w lp pt 8 dt 2 t "poll (paper, 2002)"
	G
	# Idle connections.
	idle_dat "$R/idle-server.txt" cpu_us_per_req >"$tmp/ic"
	idle_dat "$R/idle-server.txt" lat_median_us >"$tmp/im"
	idle_dat "$R/idle-server.txt" lat_p99_us >"$tmp/ip"
	gp idle-cpu "Figures 14-16: echo server, 100 active clients, CPU per request" <<-G
	set xlabel "idle connections"
	set ylabel "server CPU per request (us)"
	set yrange [0:*]
	plot '$tmp/ic' u 1:2 w lp pt 7 t "kevent (libkq)", '' u 1:3 w lp pt 9 t "poll", \
	     '' u 1:4 w lp pt 4 t "raw epoll", '' u 1:5 w lp pt 5 t "raw epoll + FIONREAD per event"
	G
	gp idle-latency "Figures 14-16: echo server, 100 active clients, round-trip latency" <<-G
	set xlabel "idle connections"
	set ylabel "latency (us)"
	set logscale y
	plot '$tmp/im' u 1:2 w lp pt 7 t "kevent median", '' u 1:3 w lp pt 9 t "poll median", \
	     '' u 1:4 w lp pt 4 t "epoll median", \
	     '$tmp/ip' u 1:2 w lp pt 7 dt 2 t "kevent p99", '' u 1:3 w lp pt 9 dt 2 t "poll p99", \
	     '' u 1:4 w lp pt 4 dt 2 t "epoll p99"
	G
	# Timeouts.
	dat "$R/timeout-precision.txt" timeout-precision "" \
		"timeout_us kevent_median_us pwait2_median_us timerfd_median_us epoll_ms_median_us kevent_timer_median_us kevent_p99_us" >"$tmp/to"
	gp timeouts "How late a short timeout expires (median)" <<-G
	set logscale xy
	set xlabel "timeout (us)"
	set ylabel "median lateness (us)"
	set xrange [0.7:1400]
	plot '$tmp/to' u 1:2 w lp pt 7 t "kevent timeout", '' u 1:3 w lp pt 4 t "epoll_pwait2", \
	     '' u 1:4 w lp pt 5 t "timerfd in an epoll set", '' u 1:5 w lp pt 9 t "epoll_wait (ms)", \
	     '' u 1:6 w lp pt 6 t "EVFILT_TIMER one-shot", '' u 1:7 w lp pt 7 dt 2 t "kevent timeout p99", \
	     30 w l lc rgb "gray" dt 3 t "target 30 us"
	G
	# wait-one-ready detail.
	dat "$R/wait-one-ready.txt" wait-one-ready "idle=eventfd" "N epoll_ns kevent_ns" >"$tmp/we"
	dat "$R/wait-one-ready.txt" wait-one-ready "idle=pipe" "N epoll_ns kevent_ns" >"$tmp/wp"
	gp wait-one-ready "kevent with 1 of N ready vs epoll_wait + one FIONREAD" <<-G
	set logscale x
	set xlabel "registered descriptors (N)"
	set ylabel "ns per call"
	set yrange [0:*]
	plot '$tmp/we' u 1:3 w lp pt 7 t "kevent (idle: eventfds)", '' u 1:2 w lp pt 4 t "epoll_wait + FIONREAD (idle: eventfds)", \
	     '$tmp/wp' u 1:3 w lp pt 7 dt 2 t "kevent (idle: pipes)", '' u 1:2 w lp pt 4 dt 2 t "epoll_wait + FIONREAD (idle: pipes)"
	G
}

# A target row: NAME, MEASURED text, VERDICT.
trow() {
	printf '| %s | %s | %s |\n' "$1" "$2" "$3"
}

targets() {
	R=$raw
	echo "| target | measured here | met |"
	echo "| --- | --- | :---: |"
	m=$(val "$R/wait-one-ready.txt" wait-one-ready-summary max_ratio idle=eventfd)
	n=$(val "$R/wait-one-ready.txt" wait-one-ready-summary largest_N idle=eventfd)
	f=$(val "$R/wait-one-ready.txt" wait-one-ready-summary flatness idle=eventfd)
	mp=$(val "$R/wait-one-ready.txt" wait-one-ready-summary max_ratio idle=pipe)
	trow "wait with 1 of N ready: flat in N, <= 1.05x epoll_wait + one FIONREAD" \
		"worst $(fmt '%.2fx' "$m") over N = 1 .. $n (idle eventfds; $(fmt '%.2fx' "$mp") with idle pipes); kevent at N = $n / N = 1: $(fmt '%.2f' "$f")" \
		"$(verdict "$(awk -v a="${m:-99}" -v b="${mp:-0}" 'BEGIN { print (b > a) ? b : a }')" 1.05)"
	p=$(val "$R/ready-of-n.txt" ready-of-n-summary per_event_ratio sweep=spread)
	k=$(val "$R/ready-of-n.txt" ready-of-n-summary kevent_per_event_ns sweep=spread)
	e=$(val "$R/ready-of-n.txt" ready-of-n-summary floor_per_event_ns sweep=spread)
	trow "each further returned event <= 1.10x of that floor" \
		"$(fmt '%.2fx' "$p") ($(fmt '%.0f' "$k") vs $(fmt '%.0f' "$e") ns per event, R = 1 .. $spread_n ready pipes)" \
		"$(verdict "$p" 1.10)"
	worst=0 txt=""
	for op in add delete enable disable; do
		r=$(val "$R/add-delete.txt" add-delete ratio op=$op)
		txt="$txt${txt:+, }$op $(fmt '%.2fx' "$r")"
		worst=$(awk -v a="$worst" -v b="${r:-99}" 'BEGIN { print (b > a) ? b : a }')
	done
	trow "EV_ADD / EV_DELETE / EV_ENABLE / EV_DISABLE <= 1.10x one epoll_ctl" "$txt" "$(verdict "$worst" 1.10)"
	r=$(val "$R/user-roundtrip.txt" user-roundtrip ratio cpu=cross)
	trow "EVFILT_USER trigger round trip <= 1.10x eventfd" "$(fmt '%.2fx' "$r") (threads on two CPUs)" "$(verdict "$r" 1.10)"
	f=$(val "$R/timers.txt" timers timer_fds op=fds)
	n=$(val "$R/timers.txt" timers N op=fds)
	s=$(val "$R/timers.txt" timers speedup op=arm-cancel)
	trow "$n EVFILT_TIMER knotes: O(1) descriptors" "$f descriptor(s) for all of them; arm+cancel $(fmt '%.0fx' "$s") cheaper than a timerfd each" "$(verdict "${f:-na}" 1)"
	b=$(val "$R/knote-memory.txt" knote-memory read_bytes_per_knote)
	n=$(val "$R/knote-memory.txt" knote-memory N)
	trow "user memory per socket knote <= 128 bytes" "$(fmt '%.0f' "$b") bytes (mallinfo2 over $n UDP socket knotes)" "$(verdict "$b" 128)"
	t=$(val "$R/timeout-precision.txt" timeout-precision-summary max_kevent_median_us)
	trow "timeouts <= 1 ms: median overshoot <= 30 us" "worst median $(fmt '%.0f' "$t") us (1 us .. 1 ms)" "$(verdict "$t" 30)"
	c=$(val "$R/timeout-precision.txt" timeout-precision-summary max_kevent_cpu_pct)
	k1=$(val "$R/timeout-precision.txt" timeout-precision kevent_cpu_us timeout_us=10)
	f1=$(val "$R/timeout-precision.txt" timeout-precision timerfd_cpu_us timeout_us=10)
	trow "timeouts 100 us .. 1 ms: CPU <= 25% of the wait" "worst $(fmt '%.0f' "$c")%; shorter ones are polled: a 10 us one costs $(fmt '%.1f' "$k1") us of CPU, a timerfd sleep $(fmt '%.1f' "$f1") us" "$(verdict "$c" 25)"
	fl=$(val "$R/idle-server.txt" idle-server-summary kevent_flatness)
	ef=$(val "$R/idle-server.txt" idle-server-summary epoll_flatness)
	rf=$(val "$R/idle-server.txt" idle-server-summary ratio_flatness)
	mx=$(val "$R/idle-server.txt" idle-server-summary max_kevent_vs_epoll)
	mp=$(val "$R/idle-server.txt" idle-server-summary max_kevent_vs_epoll_paired)
	mf=$(val "$R/idle-server.txt" idle-server-summary max_kevent_vs_floor)
	li=$(val "$R/idle-server.txt" idle-server-summary largest_idle)
	# judged by the paired figure (each block's kevent / the epoll block
	# next to it, median): what drifts between blocks cancels in it
	v1=$(verdict "${mp:-$mx}" 1.10)
	v2=$(awk -v f="${rf:-99}" 'BEGIN { print (f <= 1.10 && f >= 0.90) ? "ok" : "MISSED" }')
	[ "$v2" = ok ] || v1=MISSED
	trow "idle connections: CPU per request flat, within 10% of raw epoll" \
		"0 -> $li idle: kevent $(fmt '%.2fx' "$fl") (raw epoll $(fmt '%.2fx' "$ef"), kevent/epoll $(fmt '%.2fx' "$rf")); worst kevent/epoll $(fmt '%.2fx' "$mp") (median of each block's kevent / epoll; of the medians $(fmt '%.2fx' "$mx")), kevent/(epoll + FIONREAD) $(fmt '%.2fx' "$mf")" "$v1"
	# the target speaks of "many processes" accepting; 16 is the level judged
	t=$(val "$R/wakeone-accept.txt" wakeone-accept-level throughput_ratio procs=16)
	w=$(val "$R/wakeone-accept.txt" wakeone-accept-level sleeps_per_conn_wakeone procs=16)
	wp=$(val "$R/wakeone-accept.txt" wakeone-accept-level sleeps_per_conn_plain procs=16)
	t4=$(val "$R/wakeone-accept.txt" wakeone-accept-level throughput_ratio procs=4)
	t32=$(val "$R/wakeone-accept.txt" wakeone-accept-level throughput_ratio procs=32)
	v=$(awk -v t="${t:-0}" -v w="${w:-99}" 'BEGIN { print (t >= 1.10 && w <= 1.05) ? "ok" : "MISSED" }')
	trow "EV_WAKEONE, processes accepting on one socket: 1 woken per connection, throughput >= 1.10x" \
		"16 processes: $(fmt '%.2f' "$w") woken per connection ($(fmt '%.1f' "$wp") without), throughput $(fmt '%.2fx' "$t"); 32: $(fmt '%.2fx' "$t32"); 4 (on 2 CPUs): $(fmt '%.2fx' "$t4")" "$v"
	# process start: judged by the empty program; the library that holds
	# nothing is what any one more library costs, which libkq cannot undo
	ps=$R/process-start.txt
	r=$(val "$ps" process-start ratio pair=empty)
	fl=$(val "$ps" process-start ratio pair=floor)
	kr=$(val "$ps" process-start ratio pair=kqueue)
	trow "process start: an empty program linked with libkq, exec to exit, <= 1.05x the same without libkq" \
		"$(fmt '%.2fx' "$r") ($(fmt '%.0f' "$(val "$ps" process-start us pair=empty)") vs $(fmt '%.0f' "$(val "$ps" process-start base_us pair=empty)") us of CPU); linked with a library holding nothing instead: $(fmt '%.2fx' "$fl"), the cost of one more library; kqueue() + close() against epoll_create1() + close(): $(fmt '%.2fx' "$kr") (process-start)" \
		"$(verdict "$r" 1.05)"
	# server-patterns: every pattern must meet both; fewer calls than epoll is reported
	# keepalive and proxy carry a count in every event: judged against
	# epoll plus that count (the floor); the others against raw epoll
	worst=0 txt="" ftxt="" stxt="" fewer="" sv=ok
	for p in keepalive conn readd disable proxy udp conn2; do
		r=$(val "$R/server-patterns.txt" server-patterns-pattern cpu_ratio pattern=$p)
		[ -n "$r" ] || continue
		txt="$txt${txt:+, }$p $(fmt '%.2fx' "$r")"
		fl=$(val "$R/server-patterns.txt" server-patterns-pattern cpu_vs_floor pattern=$p)
		ftxt="$ftxt${ftxt:+, }$p $(fmt '%.2fx' "$fl")"
		case $p in keepalive|proxy) judged=$fl ;; *) judged=$r ;; esac
		worst=$(awk -v a="$worst" -v b="${judged:-99}" 'BEGIN { print (b > a) ? b : a }')
		k=$(val "$R/server-patterns.txt" server-patterns-pattern kevent_syscalls_per_req pattern=$p)
		e=$(val "$R/server-patterns.txt" server-patterns-pattern epoll_syscalls_per_req pattern=$p)
		l=$(val "$R/server-patterns.txt" server-patterns-pattern syscall_limit pattern=$p)
		m=$(val "$R/server-patterns.txt" server-patterns-pattern syscalls_met pattern=$p)
		f=$(val "$R/server-patterns.txt" server-patterns-pattern fewer_than_epoll pattern=$p)
		stxt="$stxt${stxt:+; }$p $(fmt '%.2f' "$k") vs $(fmt '%.2f' "$e") (limit $(fmt '%.2f' "$l"))"
		[ "$m" = yes ] || sv=MISSED
		[ "$f" = yes ] && fewer="$fewer${fewer:+, }$p"
	done
	[ -n "$txt" ] || worst=na
	[ -n "$stxt" ] || sv="?"
	case "$stxt" in *na*) sv="?" ;; esac
	trow "server patterns: CPU per request <= 1.00x (keepalive, proxy: of epoll + the one count per event FreeBSD's data needs; the others: of raw epoll)" \
		"${txt:-na} (server-patterns; kevent / epoll server CPU per request); against epoll + one FIONREAD per event: ${ftxt:-na}" "$(verdict "$worst" 1.00)"
	meth=$(val "$R/server-patterns.txt" server-patterns-summary method)
	trow "syscalls per request <= raw epoll's + one per event FreeBSD's exact data needs" \
		"kevent vs epoll server, calls per request (limit: epoll's at kevent's number of waits + kevent's records per request), method=${meth:-na}: ${stxt:-na}; fewer calls than epoll: ${fewer:-none}" "$sv"
	# the real servers: every case must meet it, judged by its paired ratio
	real_server_row real-server run.sh "nginx from Debian's source" "nginx's worker"
	real_server_row real-server-apache apache.sh "Apache httpd's event MPM on APR's kqueue pollset, from Debian's sources" "httpd's child"
}

# real_server_row NAME SCRIPT WHAT WHO: the target row of a real server
# (bench/real-server/SCRIPT, its output kept in NAME.txt).
real_server_row() {
	S=$R/$1.txt
	txt=$(awk '$1 == "real-server" {
		for (i = 2; i <= NF; i++) { e = index($i, "="); f[substr($i, 1, e - 1)] = substr($i, e + 1) }
		printf "%s%s %.2fx", (n++ ? ", " : ""), f["case"], f["ratio_paired"]
	}' "$S" 2>/dev/null)
	w=$(val "$S" real-server-summary worst_ratio)
	if [ -n "$txt" ]; then
		txt="$txt ($4 CPU per request, kqueue build on libkq / epoll build, median of the paired blocks' ratios)"
	else
		txt="not measured: $(real_server_why "$1" "$2")"
	fi
	trow "a real server ($3): CPU per request <= 1.00x of its epoll build" "$txt" "$(verdict "$w" 1.00)"
}

# real_server_why NAME SCRIPT: why NAME.txt has no figures (its script's
# last word, SKIP or FAIL).
real_server_why() {
	[ -r "$R/$1.txt" ] || { echo "bench/real-server/$2 was not run (no perf/raw/$1.txt)"; return; }
	_w=$(sed -n 's/^[a-z-]*: \(SKIP\|FAIL\): //p' "$R/$1.txt" | tail -n 1)
	echo "${_w:-bench/real-server/$2 printed no figures (see perf/raw/$1.txt)}"
}

# real_server_md: the section on the real server (bench/real-server/run.sh,
# whose output is kept in real-server.txt).
real_server_md() {
	real_server_head real-server run.sh nginx || return 0
	cat <<-EOF2
	Debian's nginx ($(hv version)) built twice from the same source, as
	test/integration/nginx.sh builds it (test/integration/nginx-build.sh):
	with its kqueue event module on libkq, and as it is, with its epoll
	module. Both run at once, each with one worker and the same
	configuration (\`use kqueue\` / \`use epoll\`, sendfile, no access log),
	and \`bench/real-server/load.c\` drives them in turn on 127.0.0.1 with
	$(hv conns) requests in flight: an unmeasured pair of blocks, then $(hv blocks) pairs of
	blocks of $(hv block_ms) ms, the server going first alternating from pair to pair.
	$(instances_text)
	A block's figure is the worker's CPU time (its threads' scheduler run
	time) over the requests the block issued and finished. Cases: a 100-byte
	file over keep-alive connections ("keepalive") and one connection per
	request, closed by nginx ("close"); a 43-byte reply from memory
	(\`empty_gif\`, "memory"); and the first two with $(group "$(hv idle_max)") more connections
	to each server open and silent ("-idle"). Paired ratio = the median of
	all pairs' kqueue / epoll ratios, what the target judges; instances =
	each pair of server processes' own paired ratio, in the order they ran;
	spread = the interquartile range of a build's blocks, in % of its
	median. Measured on
	$(real_server_machine).

	EOF2
	real_server_tables real-server "worker" \
		"accept4=accept4@%.3f;recvfrom=recvfrom@%.3f;writev=writev@%.3f;sendfile=sendfile64@%.3f;setsockopt=setsockopt@%.3f;openat=openat@%.3f;close=close@%.3f"
}

# real_server_head NAME SCRIPT TITLE: a real server's section heading;
# false, after saying why, when NAME.txt has no figures, else true with
# its header line in $h.
real_server_head() {
	printf "\n## Real programs: %s\n\n" "$3"
	if ! grep -q '^real-server ' "$R/$1.txt" 2>/dev/null; then
		echo "Not measured: $(real_server_why "$1" "$2")."
		return 1
	fi
	h=$(grep -m1 '^# real-server ' "$R/$1.txt")
}

# instances_text: how many times the servers were started (the header's
# instances; an output from before there were instances says nothing).
instances_text() {
	_n=$(hv instances)
	[ -n "$_n" ] || return 0
	[ "$_n" -gt 1 ] 2>/dev/null || { echo "Both servers were started once."; return 0; }
	echo "Both servers were started afresh $_n times, one after the other, and"
	echo "every case ran its pairs on each pair of processes ($((_n * $(hv blocks))) pairs in all): a"
	echo "process's layout (where its code, heap and stacks land) moves its"
	echo "figures for its whole life, more than its blocks vary, so the figures"
	echo "below pool the $_n pairs of processes' blocks."
}

# hv KEY: KEY's value in the header line $h of a real server's output.
hv() { echo "$h" | sed -n "s/.* $1=\\([^ ]*\\).*/\\1/p"; }

# real_server_machine: "**processor** (n CPUs online), Linux ..., load
# average ... at the start", from the header line $h.
real_server_machine() {
	printf '**%s** (%s CPUs online), Linux %s, load average %s at the start' \
		"$(echo "$h" | sed -n 's/.* cpu="\([^"]*\)".*/\1/p')" "$(hv cpus)" "$(hv kernel)" "$(hv loadavg)"
	[ "$(hv quick)" = 1 ] && printf ', a --quick run (rough figures)'
}

# real_server_tables NAME WHO CALLS: a real server's tables, from NAME.txt:
# CPU per request, system calls per request (the columns CALLS after
# those libkq's queries show in), where the CPU time goes.  WHO: the
# process measured.
real_server_tables() {
	S=$R/$1.txt
	tab "$S" real-server "" \
		"case=case;idle connections=idle;kqueue CPU per request (us)=kqueue_us_per_req@%.2f;epoll CPU per request (us)=epoll_us_per_req@%.2f;ratio of the medians=ratio@%.2fx;paired ratio=ratio_paired@%.2fx;lowest pair=pair_min@%.2fx;highest pair=pair_max@%.2fx;instances=instance_ratios;spread kqueue (%)=kqueue_iqr_pct@%.0f;spread epoll (%)=epoll_iqr_pct@%.0f"
	if ! grep -q '^real-server-calls ' "$S"; then
		printf '\nNo system call counts: %s\n' "perf could not count them (see perf/raw/$1.txt)"
		return 0
	fi
	cat <<-EOF2

	The $2's system calls per request, counted by perf's syscall
	tracepoints over one more pair of blocks of each case (the unmeasured
	ones included): every call, and the calls where the builds differ or
	that serve a request. The kqueue build's \`ioctl\` (FIONREAD),
	\`io_uring_enter\` (SIOCINQ for 4 or more TCP connections at once) and
	\`getsockopt\` (a listener's pending connections) are libkq's queries
	for FreeBSD's \`data\`, which the epoll build does not ask for.

	EOF2
	tab "$S" real-server-calls "" \
		"case=case;build=build;all calls=per_req@%.2f;epoll_wait=epoll_wait@%.3f;epoll_ctl=epoll_ctl@%.3f;io_uring_enter=io_uring_enter@%.3f;ioctl=ioctl@%.3f;getsockopt=getsockopt@%.3f;$3"
	grep -q '^real-server-profile ' "$S" || return 0
	cat <<-EOF2

	Where each $2's CPU time goes, in % of its samples (\`perf record\`
	at 4000 samples a second of CPU time, over more pairs of blocks):
	libkq's own code (its \`kevent()\` and the C library functions it
	replaces), the kernel's byte counts (io_uring and its socket commands,
	SIOCINQ/FIONREAD), and three system calls with everything they do.
	A sample taken as a system call returns lands on the instruction after
	it: in the function libkq replaces (in the epoll build, in glibc's
	own), so most of those functions' share below is their calls', not
	libkq's work.

	EOF2
	tab "$S" real-server-profile "" \
		"case=case;build=build;samples=samples;libkq (%)=libkq_pct@%.2f;byte counts (%)=counts_pct@%.2f;epoll_ctl (%)=epoll_ctl_pct@%.2f;getsockopt (%)=getsockopt_pct@%.2f;epoll_wait (%)=epoll_wait_pct@%.2f"
	echo
	awk '$1 == "real-server-profile" && / build=kqueue / {
		for (i = 2; i <= NF; i++) { e = index($i, "="); f[substr($i, 1, e - 1)] = substr($i, e + 1) }
		t = f["top_libkq"]
		gsub(/@[A-Z_0-9.]*|\.(lto_priv|constprop|isra|part)\.[0-9.]*/, "", t)
		gsub(/:/, " ", t); gsub(/,/, "%, ", t)
		printf "libkq'"'"'s hottest functions, %s: %s%%.\n", f["case"], t
	}' "$S"
}

# apache_md: the section on Apache httpd (bench/real-server/apache.sh,
# whose output is kept in real-server-apache.txt).
apache_md() {
	real_server_head real-server-apache apache.sh "Apache httpd" || return 0
	cat <<-EOF2
	Debian's httpd and APR ($(hv version | sed 's/+/ and /')) and apr-util,
	built twice by \`bench/real-server/apache.sh\`: APR configured against
	libkq's headers and linked with libkq, where it finds kqueue and the
	event MPM takes its kqueue pollset, and APR as it is, with its epoll
	pollset; httpd, the event MPM and the same two static modules on each.
	Both run at once with one child process of $(hv threads) threads and the same
	configuration (no access log, no .htaccess look-ups), and
	\`bench/real-server/load.c\` drives them as it drives nginx above:
	$(hv conns) requests in flight, an unmeasured pair of blocks, then $(hv blocks) pairs of
	blocks of $(hv block_ms) ms.
	$(instances_text)
	A block's figure is the child's CPU time (all its
	threads': the listener's and the workers') over its requests. Cases:
	the 100-byte file over keep-alive connections ("keepalive") and one
	connection per request ("close": httpd shuts its side down, waits in
	its pollset for the client's end of file, then closes). Before the
	blocks, each child's waits are traced (\`strace -k\`): the kqueue
	build's reach epoll through libkq's \`kevent()\`
	($(val "$R/real-server-apache.txt" real-server-check via_libkq build=kqueue) of $(val "$R/real-server-apache.txt" real-server-check waits build=kqueue) traced), the epoll build's come from APR's
	epoll pollset ($(val "$R/real-server-apache.txt" real-server-check via_apr build=epoll) of $(val "$R/real-server-apache.txt" real-server-check waits build=epoll), none through libkq). Measured on
	$(real_server_machine).

	APR's kqueue pollset adds and deletes each knote with a \`kevent()\`
	call of its own, from the worker threads while the listener thread
	sleeps in \`kevent()\` on the same kqueue; it takes its own mutex
	around each change and after each wait (its epoll pollset, with the
	event MPM's APR_POLLSET_NOCOPY, takes none). The kqueue build's
	\`getsockopt\` is the listener's pending connections (FreeBSD's
	\`data\`), one per connection since the listener wakes for each
	accept; its \`ioctl\` and \`io_uring_enter\` are the bytes of the
	READ records (the client's end of file in "close"). It makes fewer
	\`EPOLL_CTL_DEL\` than the epoll build, which makes one per removal:
	a deleted knote's entry stays parked, and a private connection's close
	frees it, unless the entry reports first (an end of file stays
	readable), which removes it. Its \`epoll_pwait2\` are waits whose timeout (httpd's, in
	microseconds) is no whole number of milliseconds, which the epoll
	pollset rounds for \`epoll_wait\`. The \`futex\` calls are httpd's
	own (its worker queue and mutexes, APR's pollset mutex; libkq's lock
	made about 3% of them when profiled): they, and the context
	switches behind them, follow how the listener and the workers meet,
	and move from run to run, as the ratios do on a shared machine
	(docs/design.md, "What a connection costs beyond epoll", has several
	runs).

	EOF2
	real_server_tables real-server-apache "child" \
		"epoll_pwait2=epoll_pwait2@%.3f;fcntl=fcntl@%.3f;accept4=accept4@%.3f;read=read@%.3f;writev=writev@%.3f;shutdown=shutdown@%.3f;close=close@%.3f;futex=futex@%.3f"
}

# libc_calls_md: what the C library functions libkq replaces cost
# (libc-calls, run once single-threaded and once with a second thread).
libc_calls_md() {
	cat <<-EOF2

	## The C library functions libkq replaces

	A program linked with libkq calls libkq's \`close()\`, \`read()\`,
	\`sigaction()\` and the others (src/libc/) for every such call, whether it
	uses a kqueue or not. \`libc-calls\` times each one against glibc's own
	function (\`dlsym()\` in libc.so.6) in the same process, in the state
	nearly every call is made in: descriptors and signals libkq knows nothing
	of. Nanoseconds of process CPU time per call (posix_spawn and vfork: with
	their children's), ratio = libkq / glibc, spread = the interquartile
	range of the blocks in % of the median. glibc skips the cancellation
	steps of its calls while a process has one thread; libkq's calls made
	as raw system calls (readv, recv, sendto, ..., sigtimedwait) take them
	always, hence the two tables. The method against itself (glibc's
	\`read()\` both ways):
	$(fmt '%.3fx' "$(val "$R/libc-calls.txt" libc-calls-null ratio)").
	EOF2
	for f in libc-calls libc-calls-threads; do
		echo
		if [ $f = libc-calls ]; then
			echo "One thread:"
		else
			echo "A second thread alive (blocked):"
		fi
		echo
		tab "$R/$f.txt" libc-calls "state=common" \
			"call=call;case=what;libkq (ns)=libkq_ns@%.0f;glibc (ns)=glibc_ns@%.0f;ratio=ratio@%.2fx;libkq - glibc (ns)=diff_ns@%+.0f;spread libkq (%)=libkq_iqr_pct@%.0f;spread glibc (%)=glibc_iqr_pct@%.0f"
	done
	R1=$R/libc-calls.txt
	cat <<-EOF2

	Median ratio over these rows: $(fmt '%.2fx' "$(val "$R1" libc-calls-summary common_median_ratio)")
	with one thread, $(fmt '%.2fx' "$(val "$R/libc-calls-threads.txt" libc-calls-summary common_median_ratio)") with two. Where libkq has work to do (one
	thread): closing a descriptor that has a knote $(fmt '%.2fx' "$(val "$R1" libc-calls ratio call=close state=watched)")
	($(fmt '%+.0f' "$(val "$R1" libc-calls diff_ns call=close state=watched)") ns: the knote goes with it; glibc's close leaves it);
	\`sigaction()\` on a signal an EVFILT_SIGNAL knote watches, against glibc's on
	an unwatched one (glibc's on the watched signal would replace libkq's
	handler): query $(fmt '%.2fx' "$(val "$R1" libc-calls ratio call=sigaction state=watched what=query)"), set $(fmt '%.2fx' "$(val "$R1" libc-calls ratio call=sigaction state=watched what=set)");
	\`posix_spawn()\` with a watched signal ignored $(fmt '%.2fx' "$(val "$R1" libc-calls ratio call=posix_spawn state=watched)").
	EOF2
}

# libuv_md: the section on libuv's own benchmarks, its kqueue loop on libkq
# against its epoll loop (bench/libuv-bench.sh, whose output is kept in
# libuv-bench.txt).  Everything shown comes from that file's lines; a run
# that was skipped or failed is said to be, with its reason.
libuv_md() {
	L=$R/libuv-bench.txt
	printf "\n## Real programs: libuv's benchmarks\n\n"
	if ! grep -q '^libuv-bench ' "$L" 2>/dev/null; then
		# the script's last word (SKIP or FAIL) is why there are no figures
		why=$(sed -n 's/^libuv-bench: \(SKIP\|FAIL\): //p' "$L" 2>/dev/null | tail -n 1)
		[ -r "$L" ] || why="bench/libuv-bench.sh was not run (no perf/raw/libuv-bench.txt)"
		echo "Not measured: ${why:-bench/libuv-bench.sh printed no figures (see perf/raw/libuv-bench.txt)}."
		return 0
	fi
	awk '
	# the value of key=value, or of key="value with spaces", on line s
	function get(s, k) {
		if (match(s, " " k "=\"[^\"]*\"")) return substr(s, RSTART + length(k) + 3, RLENGTH - length(k) - 4)
		if (match(s, " " k "=[^ ]*")) return substr(s, RSTART + length(k) + 2, RLENGTH - length(k) - 2)
		return ""
	}
	# a count per operation: 3 figures, "under 0.01" below that
	function num(v) {
		if (v == "" || v == "na") return "–"
		v += 0
		return (v > 0 && v < 0.01) ? "under 0.01" : sprintf("%.3g", v)
	}
	# "a:1,b:2" as "a 1, b 2", leaving out the items under 0.01 but the
	# first (function names without GCC'"'"'s suffixes or symbol versions)
	function words(s, unit,   n, i, p, k, out) {
		if (s == "" || s == "na" || s == "none") return "none"
		n = split(s, p, ",")
		out = ""
		for (i = 1; i <= n; i++) {
			k = index(p[i], ":")
			if (i > 1 && substr(p[i], k + 1) + 0 < 0.01) continue
			p[i] = substr(p[i], 1, k - 1) " " num(substr(p[i], k + 1)) unit
			sub(/\.(lto_priv|constprop|isra|part)\.[0-9.]*/, "", p[i])
			sub(/@[A-Z_0-9.]*/, "", p[i])
			out = out (i > 1 ? ", " : "") p[i]
		}
		return out
	}
	# v rounded, its thousands grouped: 1234567 as 1,234,567
	function group(v,   s, out) {
		s = sprintf("%.0f", v); out = ""
		while (length(s) > 3) {
			out = "," substr(s, length(s) - 2) out
			s = substr(s, 1, length(s) - 3)
		}
		return s out
	}
	function show(v, unit) {
		if (v == "" || v == "na") return "–"
		if (unit == "time") return sprintf("%.2f", v)
		return v + 0 < 100 ? sprintf("%.1f", v) : group(v)
	}
	$1 == "libuv-bench-method" { m = $0 }
	$1 == "libuv-bench" { b[++nb] = $0; ratio[get($0, "name")] = get($0, "ratio") }
	$1 == "libuv-bench-cause" { cause[get($0, "name")] = $0 }
	$1 == "libuv-bench-profile" { prof[get($0, "name")] = $0 }
	END {
		pings = get(m, "pings"); timers = get(m, "timers")
		fig["ping_pongs"] = "round trips/s"
		fig["pipe_pump1_client"] = "Gbit/s through a pipe"
		fig["tcp_pump1_client"] = "Gbit/s through a TCP connection"
		fig["tcp4_pound_100"] = "connections/s (100 at a time)"
		fig["async1"] = "s for " group(pings) " round trips between 2 threads"
		fig["loop_count"] = "loop iterations/s"
		fig["spawn"] = "children spawned/s"
		fig["million_timers"] = "s for " group(timers) " timers"
		fig["million_async"] = "async events/s"
		printf "libuv'"'"'s own benchmarks (`uv_run_benchmarks_a`, from Debian'"'"'s source %s) built\n", get(m, "libuv")
		print "twice from the same source: with its kqueue loop on libkq (kqueue, file system"
		print "events and child processes through libkq, the build whose test suite"
		print "test/integration/libuv.sh runs), and with its epoll loop as it is."
		if (get(m, "loading") == "path")
			print "The kqueue runner names libkq by its path, as a program finds an installed libkq, without searching (as built, its RUNPATH made the loader search a directory for every library at each of spawn'"'"'s starts)."
		else
			printf "The kqueue runner finds libkq through its RUNPATH, which makes the loader search that directory for every library it needs at each start%s: spawn pays that search.\n", (get(m, "loading") == "runpath" ? " (patchelf was not available to name libkq by its path)" : "")
		printf "`bench/libuv-bench.sh` runs every benchmark on both builds back to back, in %d\n", get(m, "rounds")
		print "rounds, the build going first alternating from round to round; each figure is"
		print "that build'"'"'s median over the rounds, spread = (highest − lowest) / median."
		print "A round'"'"'s ratio = kqueue rate / epoll rate of its two runs, or epoll time /"
		print "kqueue time for the two timed ones: above 1 the kqueue build is faster; the"
		print "ratio shown is the median of the rounds'"'"' ratios, with the lowest and highest."
		if (get(m, "pinned") == "yes")
			print "Every run (the benchmark, its helper processes and threads) is pinned to one processor, so that its rate is set by the CPU time both ends spend per operation, not by where the scheduler put them."
		print "To fit the rounds in about 5"
		print "minutes, both builds'"'"' benchmarks are shortened alike (the code they run is"
		printf "libuv'"'"'s): %s s windows (libuv: 5 s), tcp4_pound_100 %s s (10 s), async1\n", get(m, "window_s"), get(m, "pound_s")
		printf "%s round trips (1,000,000), million_timers %s timers (10,000,000).\n", group(pings), group(timers)
		printf "Measured on **%s** (%s CPUs online), Linux %s%s.\n", get(m, "cpu"), get(m, "cpus"),
			get(m, "kernel"), (get(m, "quick") == 1 ? ", a --quick run (rough figures)" : "")
		print "Where the kqueue build is slower, one more run of each build under `perf stat`"
		print "counts the system calls of every process in it (the benchmark and its helper"
		print "server), per operation of the benchmark, and one run of the kqueue build under"
		print "`perf record` gives the share of the CPU time spent in libkq. A ratio nearer to"
		print "1 than its spreads is within this shared machine'"'"'s noise."
		print ""
		print "| benchmark | figure | kqueue | epoll | ratio (rounds) | spread kqueue / epoll | target ≥ 1.00x met? |"
		print "| --- | --- | ---: | ---: | ---: | ---: | :---: |"
		met = 0; nmiss = 0
		for (i = 1; i <= nb; i++) {
			s = b[i]; n = get(s, "name"); u = get(s, "unit"); r = get(s, "ratio")
			ok = (r == "" || r == "na") ? "?" : (sprintf("%.2f", r) + 0 >= 1 ? "yes" : "**no**")
			if (ok == "yes") met++
			if (ok == "**no**") miss[++nmiss] = n
			printf "| %s | %s | %s | %s | %s | %s%% / %s%% | %s |\n", n, fig[n], show(get(s, "kqueue"), u),
				show(get(s, "epoll"), u), (r == "na" ? "–" : sprintf("%.2fx", r) \
					(get(s, "ratio_low") == "" ? "" : sprintf(" (%.2f–%.2f)", get(s, "ratio_low"), get(s, "ratio_high")))),
				get(s, "spread_kqueue"), get(s, "spread_epoll"), ok
		}
		printf "\nTarget met by %d of %d.", met, nb
		if (!nmiss) { print ""; exit }
		print " Where it is not, what was measured:"
		print ""
		for (i = 1; i <= nmiss; i++) {
			n = miss[i]; c = cause[n]; p = prof[n]
			if (c == "") { printf "- **%s**: the cause was not measured (perf could not count system calls).\n", n; continue }
			printf "- **%s** (%.2fx): system calls per %s: kqueue %s, epoll %s, of which failed:\n",
				n, ratio[n], get(c, "op"), num(get(c, "kqueue_syscalls_per_op")), num(get(c, "epoll_syscalls_per_op"))
			printf "  kqueue %s, epoll %s. Most made: kqueue %s; epoll %s.\n",
				num(get(c, "kqueue_failed_per_op")), num(get(c, "epoll_failed_per_op")),
				words(get(c, "top_calls_kqueue")), words(get(c, "top_calls_epoll"))
			# which calls failed, where either build has failures to speak of
			if (get(c, "kqueue_failed_per_op") + 0 >= 0.01 || get(c, "epoll_failed_per_op") + 0 >= 0.01)
				printf "  Most failed: kqueue %s; epoll %s.", words(get(c, "top_failed_kqueue")),
					words(get(c, "top_failed_epoll"))
			else
				printf " "
			if (p != "")
				printf " libkq'"'"'s own functions had %s%% of the kqueue run'"'"'s CPU samples (%s).",
					get(p, "libkq_pct"), words(get(p, "top_libkq"), "%")
			print ""
		}
	}' "$L"
	# the eventfd counter, what async1 and million_async pay for per wake-up
	A=$R/async-roundtrip.txt
	grep -q '^async-roundtrip ' "$A" 2>/dev/null || return 0
	cat <<-EOF2

	**The eventfd counter.** async1 and million_async wake a loop through an
	eventfd. FreeBSD's READ record on it carries the counter, which Linux
	shows without consuming it only in the eventfd's fdinfo file in /proc;
	libkq keeps that file open and reads it with one \`pread()\` per record,
	$(fmt '%.0f' "$(val "$A" async-roundtrip pread_ns cpu=same)") ns of CPU here (the kernel formats the whole file each time).
	No other exact source exists: counting the writes libkq sees misses
	those of other processes, of the kernel (io_uring, AIO) and of the C
	library's own \`eventfd_write()\`. \`async-roundtrip\` plays the same
	ping-pong between two threads over two eventfds. On one CPU, CPU per
	round trip: kevent() $(fmt '%.2fx' "$(val "$A" async-roundtrip ratio cpu=same)") of raw epoll; raw epoll with that one
	read per wake-up, the least the exact counter costs, $(fmt '%.2fx' "$(val "$A" async-roundtrip floor_ratio cpu=same)"); kevent()
	against that floor $(fmt '%.2fx' "$(val "$A" async-roundtrip vs_floor cpu=same)") (it makes the same system calls). On two
	CPUs, where waking the other CPU is most of a round trip: $(fmt '%.2fx' "$(val "$A" async-roundtrip ratio cpu=cross)"),
	$(fmt '%.2fx' "$(val "$A" async-roundtrip floor_ratio cpu=cross)") and $(fmt '%.2fx' "$(val "$A" async-roundtrip vs_floor cpu=cross)").
	EOF2
}

write_md() {
	R=$raw
	out=$docs/performance.md
	{
	cat <<-EOF2
	# libkq performance

	Measured $when on **$cpu** ($cpus CPUs online), Linux **$kernel** ($arch),
	load average $load when the first program started; libkq $rev, $btype build.
	The hard limit of descriptors per process is $fdlim, so the largest N is
	about 19,000 (9,900 where each descriptor is a pipe, i.e. two of them).

	Generated by \`bench/report.sh\` (\`cmake --build <build> --target bench-report\`);
	do not edit by hand. Raw output of every program: [perf/raw/](perf/raw/).
	\`make demo\` prints a short version of the first table (\`bench/report.sh --headline\`).

	**Method.** The machine is shared and noisy, so nothing here is a bare time
	compared with another run: every ratio compares contenders measured side by
	side in one process, in interleaved blocks whose order rotates, taking the
	median over the blocks; blocks are timed in process CPU time unless a
	figure is about lateness or latency (wall clock). "Floor" is raw epoll plus
	the one \`ioctl(FIONREAD)\` per event that BSD's exact \`data\` costs at the
	least on Linux. The programs are in [bench/](../bench/); each one's header
	comment says exactly what it does.
	EOF2
	[ -n "$plot_note" ] && printf '\n%s\n' "$plot_note"
	[ -n "$failed" ] && printf '\n**Failed programs (their tables are incomplete):**%s\n' "$failed"

	printf '\n## Targets\n\n'
	targets

	cat <<-EOF2

	## The kqueue paper (Lemon, USENIX 2001)

	### Figure 10: first registration against poll(), and waiting over idle descriptors

	The paper: adding a knote cost about twice a \`poll()\` pass over the same
	descriptor, and once registered a \`kevent()\` wait over N idle descriptors
	is constant in N ("kq_descriptor"). Here: N UDP sockets bound to 127.0.0.1,
	fresh every block (\`register-poll\`), and N idle pipes (\`ready-of-n\`,
	sweep=idle).
	EOF2
	img fig10-register "Figure 10: registration vs poll"
	echo
	tab "$R/register-poll.txt" register-poll "" \
		"N=N;kevent register (ns/fd)=kevent_register_ns_per_fd;epoll_ctl register (ns/fd)=epoll_register_ns_per_fd;poll() pass (ns/fd)=poll_pass_ns_per_fd;register / poll pass=register_vs_poll@%.1fx;kevent wait, N idle (ns)=idle_kevent_ns;epoll_wait, N idle (ns)=idle_epoll_ns;poll, N idle (us)=idle_poll_ns/1000@%.1f"
	img fig10-idle-wait "Figure 10: waits over idle descriptors"
	echo
	tab "$R/ready-of-n.txt" ready-of-n "sweep=idle" \
		"N=N;select (ns)=select_ns@%.0f;poll (ns)=poll_ns@%.0f;epoll_wait (ns)=epoll_ns@%.0f;kevent (ns)=kevent_ns@%.0f;kevent / epoll=kevent_vs_epoll@%.2fx;kevent / poll=kevent_vs_poll@%.3fx"

	cat <<-EOF2

	### Figure 11: all descriptors active

	The paper: even with every descriptor active, kevent stayed below
	\`poll()\`. On Linux each returned record costs libkq the FIONREAD for
	\`data\`, which \`poll()\` does not compute, so compare kevent with the
	floor (epoll_wait + FIONREAD) rather than with \`poll()\`.
	EOF2
	img fig11-all-active "Figure 11: all active"
	echo
	tab "$R/ready-of-n.txt" ready-of-n "sweep=active" \
		"N, all ready=N;select (us)=select_ns/1000@%.1f;poll (us)=poll_ns/1000@%.1f;epoll_wait (us)=epoll_ns/1000@%.1f;floor (us)=floor_ns/1000@%.1f;kevent (us)=kevent_ns/1000@%.1f;kevent / floor=ratio@%.2fx;kevent / poll=kevent_vs_poll@%.2fx"

	cat <<-EOF2

	Could the counts come from fewer calls? \`count-sources\` asks the
	kernel for N descriptors' byte counts every way we know of, on the same
	descriptors, and checks every answer: one ioctl each, io_uring
	(\`URING_CMD\` SIOCINQ, POLL_ADD, RECV with MSG_PEEK, READ, TEE), \`tee(2)\`,
	\`/proc/self/fdinfo\`, \`fstat\`, and for sockets the sock_diag dumps.
	For a pipe only an ioctl or a \`tee(2)\` answers without consuming the
	bytes: io_uring's socket commands and MSG_PEEK are refused
	(EOPNOTSUPP, ENOTSOCK), its TEE always runs on a worker thread (several
	times dearer), and fdinfo and \`st_size\` carry no count. For TCP the
	io_uring SIOCINQ batch, which libkq uses, costs about half an ioctl; a
	sock_diag dump walks the whole namespace's socket table and its
	\`rqueue\` counts a FIN or an urgent byte that SIOCINQ does not. So with
	every pipe active the least Linux allows for exact counts is the floor,
	epoll_wait plus one FIONREAD per pipe ("bound": the cheapest exact
	source plus epoll_wait's share), many times \`poll()\`, which computes
	no count; kevent's distance to it is libkq's own cost.
	EOF2
	for k in pipe tcp; do
		echo
		tab "$R/count-sources.txt" count-sources-summary "kind=$k" \
			"$k, N all ready=N;cheapest exact source=cheapest_exact;its ns per descriptor=cheapest_exact_ns@%.0f;poll (ns)=poll_ns@%.1f;epoll_wait (ns)=epoll_ns@%.1f;floor (ns)=floor_ns@%.0f;kevent (ns)=kevent_ns@%.0f;kevent / bound=kevent_vs_bound@%.2fx;bound / poll=bound_vs_poll@%.1fx"
	done

	cat <<-EOF2

	### Figure 12: accumulated cost per descriptor

	Registration once plus k waits, against k \`poll()\` passes, per descriptor
	(computed from the Figure 10 blocks' medians, N = $accum_n UDP sockets). The
	paper found kqueue ahead from about 4 calls on.
	EOF2
	img fig12-accumulated-idle "Figure 12, idle descriptors"
	img fig12-accumulated-active "Figure 12, all descriptors active"
	echo
	echo "Calls after which kevent's total is the smaller (\"never\": each kevent call costs more than a poll() pass):"
	echo
	tab "$R/register-poll.txt" register-poll-crossover "" \
		"N=N;descriptors=state;kevent beats poll after (calls)=kevent_calls;epoll beats poll after (calls)=epoll_calls;kevent wait (ns)=kevent_wait_ns@%.0f;poll (ns)=poll_ns@%.0f"

	cat <<-EOF2

	### Figure 13: the cost of each action

	One change of an \`EVFILT_READ\` knote on an idle UNIX stream socket, one
	change per \`kevent()\` call and all of a phase's changes in one changelist,
	against one \`epoll_ctl\` (\`add-delete\`).
	EOF2
	img fig13-actions "Figure 13: actions"
	echo
	tab "$R/add-delete.txt" add-delete "" \
		"action=op;epoll_ctl (ns)=epoll_ns@%.0f;kevent, 1 per call (ns)=kevent_ns@%.0f;ratio=ratio@%.2fx;kevent, changelist (ns per change)=changelist_ns@%.0f;ratio=changelist_ratio@%.2fx;baseline=baseline"

	cat <<-EOF2

	## The epoll lecture (Kerrisk): 1 ready of N, and R ready of N

	The lecture timed 1,000,000 calls with one ready pipe in the middle of N:
	N = 1: select 0.23 s, poll 0.19 s, epoll 0.16 s; N = 1000: select 30.0 s,
	poll 36.4 s, epoll 0.16 s. The same, here (seconds per 1,000,000 calls =
	ns per call / 1000):
	EOF2
	img lecture-one-ready "1 ready of N"
	echo
	tab "$R/ready-of-n.txt" ready-of-n "sweep=one" \
		"N=N;select (s/1M)=select_ns/1000@%.2f;poll (s/1M)=poll_ns/1000@%.2f;epoll_wait (s/1M)=epoll_ns/1000@%.2f;floor (s/1M)=floor_ns/1000@%.2f;kevent (s/1M)=kevent_ns/1000@%.2f;kevent / floor=ratio@%.2fx;kevent / epoll_wait=kevent_vs_epoll@%.2fx"
	ps=$(val "$R/ready-of-n.txt" ready-of-n-summary poll_beats_epoll_from_R sweep=spread)
	cat <<-EOF2

	With many ready descriptors \`poll()\` can beat epoll (the lecture: from
	R/N of about 0.2). Here, N = $spread_n pipes, R of them ready, \`poll()\` is
	cheaper than raw \`epoll_wait\` from R = $ps on (−1: never):
	EOF2
	img lecture-r-of-n "R ready of N"
	echo
	tab "$R/ready-of-n.txt" ready-of-n "sweep=spread" \
		"R=R;select (us)=select_ns/1000@%.2f;poll (us)=poll_ns/1000@%.2f;epoll_wait (us)=epoll_ns/1000@%.2f;floor (us)=floor_ns/1000@%.2f;kevent (us)=kevent_ns/1000@%.2f;kevent / floor=ratio@%.2fx"
	echo
	echo "Cost of each further returned event (least-squares slope over R):"
	echo
	tab "$R/ready-of-n.txt" ready-of-n-summary "sweep=spread" \
		"N=N;kevent (ns/event)=kevent_per_event_ns;floor (ns/event)=floor_per_event_ns;epoll_wait (ns/event)=epoll_per_event_ns;poll (ns/event)=poll_per_event_ns;kevent / floor=per_event_ratio@%.2fx"

	cat <<-EOF2

	## Table 2 of the Linux kqueue prototype (Joukov & Zadok, 2002)

	Microseconds per call with all N pipes ready; each connection lives 1000
	calls, its registration included (\`table2-pipes\`). The paper's numbers
	(2002 hardware) are beside ours for the shape, not the scale.
	EOF2
	img table2-pipes "Table 2"
	echo
	tab "$R/table2-pipes.txt" table2-pipes "" \
		"N=N;kqueue (us)=kqueue_us@%.1f;poll (us)=poll_us@%.1f;epoll_wait (us)=epoll_us@%.1f;floor (us)=floor_us@%.1f;kqueue / poll=kqueue_vs_poll@%.2fx;kqueue / floor=kqueue_vs_floor@%.2fx;paper kqueue (us)=paper_kqueue_us;paper poll (us)=paper_poll_us;paper kqueue / poll=paper_kqueue_vs_poll@%.2fx"

	cat <<-EOF2

	## Idle connections (the paper's Figures 14-16)

	An echo server on 127.0.0.1 built three times (on \`kevent()\`, on \`poll()\`,
	on raw epoll, and on raw epoll plus the FIONREAD per event that kevent's
	\`data\` needs, "floor"; all level-triggered), 100 active clients with one 64-byte
	request in flight each, and 0 .. $(val "$R/idle-server.txt" idle-server-summary largest_idle) idle connections; the
	clients run in a child process (the fd limit is per process). CPU per
	request is the server's \`getrusage()\` (user + system) over a block
	divided by its requests; latency is the clients' round trip (wall clock).
	The paper: kqueue's CPU stayed flat while the \`select()\` server saturated.
	EOF2
	img idle-cpu "Idle connections: CPU per request"
	img idle-latency "Idle connections: latency"
	echo
	tab "$R/idle-server.txt" idle-server "" \
		"idle=idle;server=variant;CPU per request (us)=cpu_us_per_req@%.2f;vs raw epoll=vs_epoll@%.2fx;latency median (us)=lat_median_us@%.0f;latency p99 (us)=lat_p99_us@%.0f;requests/s=req_per_s@%.0f"

	cat <<-EOF2

	## Server patterns: kevent() against the same server on raw epoll

	Seven servers written twice each, on \`kevent()\` and as the raw-epoll
	program a careful Linux programmer would write for the same work
	(\`server-patterns\`; its header comment gives each one's calls): 100
	keep-alive TCP connections ("keepalive"), a new connection per request
	("conn"), the keep-alive connections served with the read knote removed
	while a request is served and added again at EAGAIN ("readd", epoll:
	DEL/ADD) or disabled and enabled ("disable", epoll: MOD/MOD), a proxy
	making an outgoing non-blocking connect per request, every 4th one
	refused ("proxy"), UDP request-response ("udp"), and "conn" served by
	two threads with a kqueue / epoll set and a listener each, the
	listeners sharing one port with SO_REUSEPORT ("conn2": close() in one
	thread must cost no more while the other is in \`kevent()\` on its own
	kqueue; its system calls are counted by perf only). Clients and the
	proxy's backend run in a second process. CPU per request is the
	server's \`getrusage()\` over a block divided by its requests (median
	over the blocks); system calls per request are counted in the server
	process alone, in separate untimed blocks (method $(val "$R/server-patterns.txt" server-patterns-summary method):
	perf = the raw_syscalls:sys_enter tracepoint, ptrace = syscall stops).
	"Events" are the records \`kevent()\` / \`epoll_wait()\` returned per
	request; the target allows kevent the epoll server's calls plus one per
	record, the epoll server's calls taken at the kevent server's number of
	waits: how often a server runs out of work is timing (a udp block waits
	0 to 10 times in 4000 requests), so each wait more or fewer is counted
	at what one of the epoll server's waits cost it (the wait call and the
	calls that found nothing before it). A third server, "floor", is the epoll one plus an
	\`ioctl(FIONREAD)\` on every returned event: the least the exact
	\`data\` costs on Linux, so "kevent / floor" is what libkq costs beyond
	the count.
	EOF2
	echo
	tab "$R/server-patterns.txt" server-patterns "" \
		"pattern=pattern;server=variant;CPU per request (us)=cpu_us_per_req@%.2f;vs raw epoll=vs_epoll@%.2fx;system calls per request=syscalls_per_req@%.2f;events per request=events_per_req@%.2f;CPU spread (IQR %)=cpu_iqr_pct@%.0f"
	echo
	tab "$R/server-patterns.txt" server-patterns-pattern "" \
		"pattern=pattern;CPU kevent / epoll=cpu_ratio@%.2fx;CPU kevent / floor=cpu_vs_floor@%.2fx;kevent calls per request=kevent_syscalls_per_req@%.2f;epoll calls per request=epoll_syscalls_per_req@%.2f;limit=syscall_limit@%.2f;kevent - epoll=extra_syscalls_per_req@%+.2f;met=syscalls_met;fewer than epoll=fewer_than_epoll"
	cat <<-EOF2

	Which calls make the difference: each server's system calls per
	request, one call at a time (\`server-patterns --breakdown --blocks=1\`,
	counted by ptrace; one block per variant, so a knote's first-event
	calls weigh a little more than in the blocks above).

	EOF2
	sp_calls "$R/server-patterns-breakdown.txt"

	cat <<-EOF2

	### Asking a harvest's socket counts through io_uring

	Linux 6.7 and later answer SIOCINQ, SIOCOUTQ and getsockopt for a
	socket as an io_uring command, so the k counts a \`kevent()\` needs after
	a wait could come from one \`io_uring_enter()\` instead of k system calls
	(\`uring-queries\`: TCP pairs over 127.0.0.1, ns per query, median of
	interleaved blocks; "ring" is the best ring set-up; every answer is
	checked against the ioctl's). The kernel refuses these commands on
	AF_UNIX sockets (\`EOPNOTSUPP\`).

	EOF2
	tab "$R/uring-queries.txt" uring-queries "fdtable=private kind=tcp" \
		"query=op;k=k;ioctl (ns)=ioctl_ns@%.0f;ring (ns)=best_ns@%.0f;ring / ioctl=ratio_paired@%.2fx"
	cat <<-EOF2

	One submission costs a fixed part and then less than an ioctl per
	query, so batching loses for a single ready socket and wins from the
	break-even batch size on (in this run: SIOCINQ from k = $(val "$R/uring-queries.txt" uring-queries-summary breakeven_inq kind=tcp), SIOCOUTQ
	from k = $(val "$R/uring-queries.txt" uring-queries-summary breakeven_outq kind=tcp), a WRITE count from k = $(val "$R/uring-queries.txt" uring-queries-summary breakeven_space kind=tcp)); finding out whether
	the kernel allows it costs $(val "$R/uring-queries.txt" uring-queries-probe probe_ok_us) us once. The break-even moves between
	runs (from 2 to 8 for SIOCINQ on this machine, higher when it is
	loaded). So libkq asks the input counts of the TCP READ knotes a call
	is about to report in one submission when there are at least 4 of
	them, and by ioctl otherwise, and always on kernels that refuse the
	command; AF_UNIX sockets, pipes and the rest have no io_uring form of
	these queries. In the server patterns above this takes the keep-alive
	server from 3.0 to 2.3 calls per request and the proxy from 12.5 to
	10.9.

	## Timeout precision (the epoll_pwait1 proposal, 2015)

	How late a wait with a short timeout returns, with nothing to report
	(\`timeout-precision\`; wall clock, $(val "$R/timeout-precision.txt" timeout-precision samples timeout_us=1) samples per
	timeout and contender, timer slack $(val "$R/timeout-precision.txt" timeout-precision-summary slack_ns) ns).
	EOF2
	img timeouts "Timeout lateness"
	echo
	tab "$R/timeout-precision.txt" timeout-precision "" \
		"timeout (us)=timeout_us;kevent median=kevent_median_us;kevent p99=kevent_p99_us;epoll_pwait2 median=pwait2_median_us;p99=pwait2_p99_us;timerfd median=timerfd_median_us;p99=timerfd_p99_us;epoll_wait (ms) median=epoll_ms_median_us;EVFILT_TIMER median=kevent_timer_median_us;p99=kevent_timer_p99_us"
	echo
	echo "(microseconds late)"
	echo
	echo "What the waits cost the waiting thread in CPU time (its CPU clock, user and"
	echo "system, over the wall-clock time of the waits; and per wait):"
	echo
	tab "$R/timeout-precision.txt" timeout-precision "" \
		"timeout (us)=timeout_us;kevent CPU %=kevent_cpu_pct;epoll_pwait2 CPU %=pwait2_cpu_pct;timerfd CPU %=timerfd_cpu_pct;kevent us per wait=kevent_cpu_us;timerfd us per wait=timerfd_cpu_us"
	echo
	echo "A timeout of at most 1 ms sleeps (with no timer slack) until shortly"
	echo "before its deadline and polls the rest, at most an eighth of the"
	echo "timeout; one shorter than a sleep's wake-up latency is polled throughout,"
	echo "which costs less CPU than the sleep would and ends on time."

	cat <<-EOF2

	## Other measurements

	### Waiting with 1 of N ready, N up to the descriptor limit

	\`wait-one-ready\`: the ready descriptor is a pipe in the middle of the
	registration order; the others are idle eventfds (N up to 19,000) or idle
	pipes (up to 9,968).
	EOF2
	img wait-one-ready "wait, 1 of N ready"
	echo
	tab "$R/wait-one-ready.txt" wait-one-ready "" \
		"N=N;idle=idle;epoll_wait + FIONREAD (ns)=epoll_ns@%.0f;kevent (ns)=kevent_ns@%.0f;ratio=ratio@%.3fx;paired ratio=ratio_paired@%.3fx"

	cat <<-EOF2

	### EVFILT_USER round trip, timers, memory

	EOF2
	tab "$R/user-roundtrip.txt" user-roundtrip "" \
		"threads=cpu;kevent (ns)=kevent_ns@%.0f;eventfd + epoll (ns)=eventfd_ns@%.0f;ratio (CPU)=cpu_ratio@%.2fx;ratio (wall)=wall_ratio@%.2fx"
	echo
	tab "$R/timers.txt" timers "op=arm-cancel" \
		"timers=N;kevent arm+cancel (ns)=kevent_ns@%.0f;timerfd each (ns)=timerfd_ns@%.0f;speedup=speedup@%.1fx;one timerfd_settime (ns)=settime_floor_ns@%.0f"
	echo
	tab "$R/timers.txt" timers "op=oneshot-fire" \
		"timers=N;kevent per timer (ns)=kevent_per_timer_ns@%.0f;timerfd per timer (ns)=timerfd_per_timer_ns@%.0f;speedup=speedup@%.1fx"
	echo
	tab "$R/timers.txt" timers "op=fds" \
		"timers=N;fds of a kqueue=kqueue_fds;fds for the timers=timer_fds;threads=kqueue_threads;heap per timer (B)=heap_bytes_per_timer"
	echo
	tab "$R/knote-memory.txt" knote-memory "" \
		"sockets=N;first knote per socket (B)=read_bytes_per_knote;of which process-wide tables (B)=kept_bytes_per_socket;second knote (B)=write_bytes_per_knote;RSS per knote (B)=rss_bytes_per_knote;empty kqueue (B)=kqueue_bytes;kept after close (B)=after_close_bytes"
	cat <<-EOF2

	### EV_WAKEONE: processes accepting on one listening socket

	Worker processes, each with its own kqueue and a READ knote on one TCP
	listener, accept short connections from 4 client threads
	(\`wakeone-accept\`); "woken" counts every time a worker slept and was
	woken (voluntary context switches), including the herd's losers whose
	wake-up \`kevent()\` swallows on re-validation.

	EOF2
	tab "$R/wakeone-accept.txt" wakeone-accept-level "" \
		"processes=procs;throughput EV_WAKEONE / plain=throughput_ratio@%.2fx;worker CPU per connection, ratio=cpu_ratio@%.2fx;woken per connection, EV_WAKEONE=sleeps_per_conn_wakeone@%.2f;woken per connection, plain=sleeps_per_conn_plain@%.2f"
	libc_calls_md
	libuv_md
	real_server_md
	apache_md
	} >"$out.tmp" && mv "$out.tmp" "$out"
	echo "bench-report: wrote $out" >&2
}

report() {
	raw=$docs/perf/raw
	mkdir -p "$raw" || exit 1
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/libkq-report.XXXXXX") || exit 1
	trap 'rm -rf "$tmp"' EXIT INT TERM
	if [ "$mode" = report ]; then
		echo "bench-report: running every benchmark at full size (about 15 minutes)" >&2
		# before meta.txt is rewritten, which would make the tree dirty
		rev=$(git -C "$here/.." describe --always --dirty 2>/dev/null || echo unknown)
		{
			echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
			echo "rev=$rev"
			bt=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$bindir/../CMakeCache.txt" 2>/dev/null)
			echo "build=${bt:-unknown}"
			echo "fdlimit=$(ulimit -Hn)"
		} >"$raw/meta.txt"
		for p in wait-one-ready ready-of-n register-poll add-delete table2-pipes \
			 idle-server timeout-precision knote-memory user-roundtrip timers \
			 wakeone-accept server-patterns uring-queries count-sources process-start \
			 async-roundtrip; do
			run "$p" "$raw/$p.txt"
		done
		# which system calls each server makes (ptrace; one block per variant)
		run server-patterns "$raw/server-patterns-breakdown.txt" --breakdown --blocks=1
		# the replaced C library functions, with one thread and with two
		run libc-calls "$raw/libc-calls.txt"
		run libc-calls "$raw/libc-calls-threads.txt" --second-thread
		# libuv's own benchmarks on its kqueue loop (this libkq) and its epoll
		# loop, about 5 minutes (libuv-bench.sh; its exit status 77: skipped,
		# the reason kept in its output, which libuv_md shows)
		echo "  libuv-bench: libuv's benchmarks, kqueue against epoll (about 5 minutes)" >&2
		CMAKE=$(sed -n 's/^CMAKE_COMMAND:INTERNAL=//p' "$bindir/../CMakeCache.txt" 2>/dev/null)
		CMAKE=${CMAKE:-cmake} run_sh libuv-bench "$here/libuv-bench.sh"
		# a real server: nginx on libkq against nginx on epoll, CPU per
		# request, about 3 minutes (real-server/run.sh), the compiler the
		# build tree's
		echo "  real-server: nginx on kqueue (libkq) against nginx on epoll (about 3 minutes)" >&2
		CC=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$bindir/../CMakeCache.txt" 2>/dev/null)
		CC=${CC:-cc} run_sh real-server "$here/real-server/run.sh"
		# Apache httpd on APR's kqueue pollset (libkq) against its epoll
		# pollset, about 2 minutes (real-server/apache.sh; about 10 more to
		# build APR, apr-util and httpd twice the first time)
		echo "  real-server-apache: httpd on kqueue (libkq) against httpd on epoll (about 2 minutes)" >&2
		CC=${CC:-cc} run_sh real-server-apache "$here/real-server/apache.sh"
	fi
	[ -r "$raw/meta.txt" ] || { echo "$0: no raw results in $raw" >&2; exit 1; }
	when=$(sed -n 's/^date=//p' "$raw/meta.txt")
	rev=$(sed -n 's/^rev=//p' "$raw/meta.txt")
	btype=$(sed -n 's/^build=//p' "$raw/meta.txt")
	fdlim=$(sed -n 's/^fdlimit=//p' "$raw/meta.txt")
	machine "$raw/wait-one-ready.txt" "$raw"/*.txt
	accum_n=1000
	grep -q "^register-poll-accum N=$accum_n " "$raw/register-poll.txt" 2>/dev/null ||
		accum_n=$(val "$raw/register-poll.txt" register-poll N)
	spread_n=$(val "$raw/ready-of-n.txt" ready-of-n-summary N sweep=spread)
	mkdir -p "$docs/perf" || exit 1
	ensure_gnuplot
	[ $plots = 1 ] && rm -f "$docs/perf/"*.png
	figures
	write_md
	if [ -n "$failed" ]; then
		echo "bench-report: FAILED:$failed" >&2
		exit 1
	fi
	exit 0
}

report
