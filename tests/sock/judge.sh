#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# judge.sh [-s SIDES] [-d DEVIATIONS] ORACLE PAIR
#
# The verdict on a pair's sockdiff transcript (PAIR) against the oracle's
# (ORACLE), line by line.  Lines are keyed like `sockdiff compare` does
# ("scenario side step#k": the NN. index dropped, k counts repeats), but
# every line is judged, none is left out of the output.  See README.md.
#
#   -s SIDES       the transcript sides (C client, S server) run by the
#                  implementation under test or by TCP, default "C S".
#                  Every oracle line of such a side must be in PAIR with
#                  the same value, and PAIR may have no line of its own
#                  there: a missing line (a short or empty transcript), an
#                  extra one or another value FAILs.  Lines of the other
#                  sides (run by a module that is not judged) are listed
#                  as INFO.
#   -d DEVIATIONS  named, known deviations of that other module which show
#                  on a judged side, one a line ('#' starts a comment):
#                    NAME SCENARIO SIDE STEP VALUE
#                  It forgives the PAIR line "SCENARIO SIDE NN.STEP VALUE"
#                  (any repeat), whatever the oracle has there.  VALUE is
#                  the rest of the line, matched exactly, or as a prefix
#                  when it ends in '*'.  For STEP HANG, VALUE is matched
#                  against "after LAST", LAST being the step the hung side
#                  logged last in that scenario; such a forgiven hang also
#                  forgives the lines its scenario then lacks (both sides).
#
# Failure marks FAIL on every side, judged or not (a hang or a lost report
# involves both peers): NN.HANG and NN.CHILD_FAILED (a scenario hung or
# crashed) and report_fetch FAILED (the server half's lines are lost) in
# PAIR unless a deviation names them, and any of them in ORACLE.  An empty
# ORACLE or PAIR fails as well.
#
# Output: FAIL, then WAIVED (with the deviation's name), then INFO lines,
# then one "judge:" summary line.  Exit status: 0 nothing failed, 1
# something did, 2 usage error or a file that cannot be read.

set -euo pipefail

usage() {
	echo "usage: judge.sh [-s SIDES] [-d DEVIATIONS] ORACLE PAIR" >&2
	exit 2
}

sides="C S"
devs=/dev/null
while getopts s:d: o; do
	case $o in
	s) sides=$OPTARG ;;
	d) devs=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || usage

exec awk -v sides="$sides" -v devf="$devs" -v fa="$1" -v fb="$2" '
# parse(l): split a transcript line like sockdiff compare: SC scenario,
# SD side, ST step (without "NN."), V value, K "SC SD ST"; a line of
# fewer than four fields is its own key with an empty value.
function parse(l,   p, r) {
	SC = ""; SD = ""; ST = ""; V = ""; K = l
	p = index(l, " ")
	if (!p) {
		SC = l
		return
	}
	SC = substr(l, 1, p - 1)
	r = substr(l, p + 1)
	p = index(r, " ")
	if (!p) {
		SD = r
		return
	}
	SD = substr(r, 1, p - 1)
	r = substr(r, p + 1)
	p = index(r, " ")
	if (!p)
		return
	ST = substr(r, 1, p - 1)
	V = substr(r, p + 1)
	p = index(ST, ".")
	if (p)
		ST = substr(ST, p + 1)
	K = SC " " SD " " ST
}

function unreadable(f) {
	printf "judge: cannot read %s\n", f
	exit 2
}

# load(f, w): transcript f as w ("A" oracle, "B" pair); returns its lines
function load(f, w,   l, r, n, k) {
	n = 0
	while ((r = (getline l < f)) > 0) {
		if (l == "" || substr(l, 1, 1) == "#")
			continue
		parse(l)
		k = K "#" (occ[w, K]++)
		n++
		key[w, n] = k
		has[w, k] = 1
		val[w, k] = V
		base[k] = K
		scen[k] = SC
		side[k] = SD
		if (ST == "HANG")
			hval[w, k] = "after " last[w, SC, SD]
		else
			hval[w, k] = V
		mark[w, k] = ST == "HANG" || ST == "CHILD_FAILED" ||
			     (ST == "report_fetch" && V == "FAILED")
		last[w, SC, SD] = ST
	}
	if (r < 0)
		unreadable(f)
	close(f)
	return n
}

# forgiven(k, v): the name of the deviation that forgives PAIR line k with
# value v, or ""
function forgiven(k, v,   i, p) {
	for (i = 1; i <= nd; i++) {
		if (dkey[i] != base[k])
			continue
		p = dval[i]
		if (p == v)
			return dname[i]
		if (substr(p, length(p)) == "*" &&
		    substr(v, 1, length(p) - 1) == substr(p, 1, length(p) - 1))
			return dname[i]
	}
	return ""
}

# judge(k): line k is on a judged side (or on none: a malformed line)
function judge(k) {
	return (side[k] in judged) || (side[k] != "C" && side[k] != "S")
}

# out(kind, what, k, text): one output line; kind FAIL, INFO or the name
# of the deviation that forgives it.  Failed marks, empty transcripts and a
# failed oracle come first.
function out(kind, what, k, text) {
	if (kind == "FAIL" && (what == "mark" || what == "empty" || what == "oracle"))
		fails0 = fails0 sprintf("FAIL   %-8s %s  %s\n", what, k, text)
	else if (kind == "FAIL")
		fails = fails sprintf("FAIL   %-8s %s  %s\n", what, k, text)
	else if (kind == "INFO")
		infos = infos sprintf("INFO   %-8s %s  %s\n", what, k, text)
	else
		waived = waived sprintf("WAIVED %-8s %s  %s  [%s]\n", what, k, text, kind)
	count[kind == "FAIL" || kind == "INFO" ? kind : "WAIVED"]++
}

BEGIN {
	n = split(sides, t, " ")
	for (i = 1; i <= n; i++)
		judged[t[i]] = 1
	while ((r = (getline l < devf)) > 0) {
		if (l ~ /^[ \t]*(#|$)/)
			continue
		if (!match(l, /^[^ \t]+[ \t]+[^ \t]+[ \t]+[^ \t]+[ \t]+[^ \t]+[ \t]+/)) {
			printf "judge: bad deviation line: %s\n", l
			exit 2
		}
		split(l, t, /[ \t]+/)
		nd++
		dname[nd] = t[1]
		dkey[nd] = t[2] " " t[3] " " t[4]
		dval[nd] = substr(l, RLENGTH + 1)
	}
	if (r < 0)
		unreadable(devf)
	na = load(fa, "A")
	nb = load(fb, "B")
	count["FAIL"] = count["WAIVED"] = count["INFO"] = 0
	if (!na)
		out("FAIL", "empty", "-", "the oracle transcript " fa " has no lines")
	if (!nb)
		out("FAIL", "empty", "-", "the transcript " fb " has no lines")

	# a forgiven hang excuses the lines its scenario then lacks
	for (j = 1; j <= nb; j++) {
		k = key["B", j]
		if (mark["B", k] && side[k] != "" && base[k] ~ / HANG$/ &&
		    (w = forgiven(k, hval["B", k])) != "")
			hung[scen[k]] = w
	}
	for (i = 1; i <= na; i++) {
		k = key["A", i]
		mine = judge(k)
		if (mine)
			amine++
		if (mark["A", k]) {
			out("FAIL", "oracle", k, "oracle=" val["A", k] " (the oracle run itself failed)")
			continue
		}
		if (!(("B", k) in has)) {
			if (scen[k] in hung)
				out(hung[scen[k]], "missing", k, "oracle=" val["A", k])
			else
				out(mine ? "FAIL" : "INFO", "missing", k, "oracle=" val["A", k])
			continue
		}
		if (val["A", k] == val["B", k]) {
			if (mine)
				same++
			continue
		}
		text = "oracle=" val["A", k] " pair=" val["B", k]
		what = mark["B", k] ? "mark" : "differs"
		if (!mine && !mark["B", k])
			out("INFO", what, k, text)
		else if ((w = forgiven(k, hval["B", k])) != "")
			out(w, what, k, text)
		else
			out("FAIL", what, k, text)
	}
	for (j = 1; j <= nb; j++) {
		k = key["B", j]
		if (judge(k))
			bmine++
		if (("A", k) in has)
			continue
		text = "pair=" val["B", k]
		if (base[k] ~ / HANG$/)
			text = text " (" hval["B", k] ")"
		what = mark["B", k] ? "mark" : "extra"
		if (!judge(k) && !mark["B", k])
			out("INFO", what, k, text)
		else if ((w = forgiven(k, hval["B", k])) != "")
			out(w, what, k, text)
		else
			out("FAIL", what, k, text)
	}
	printf "%s%s%s%s", fails0, fails, waived, infos
	printf "judge: sides \"%s\": %d of %d oracle lines equal, %d lines in the pair; %d failed, %d waived, %d informational\n",
	       sides, same, amine, bmine, count["FAIL"], count["WAIVED"], count["INFO"]
	exit count["FAIL"] ? 1 : 0
}'
