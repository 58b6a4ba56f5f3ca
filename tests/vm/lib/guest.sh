# SPDX-License-Identifier: GPL-2.0
#
# Helpers for VM scenarios: source "$REPO/tests/vm/lib/guest.sh".
# The scenario runs in every VM with VM_INDEX, VM_COUNT, VM_IP, VM_IP_<i>,
# PEER_IPS, SMC_IMPL, SHARED, REPO, RESULTS and VM_TOOLS set (see README.md).

: "${BARRIER_TIMEOUT:=120}"
export PATH="$VM_TOOLS:$PATH"

# log MSG...: a time-stamped line on stdout (kept in the VM's results).
log() {
	printf '[%s vm%s] %s\n' "$(date +%T.%3N)" "$VM_INDEX" "$*"
}

# fail MSG...: report and end the scenario with exit code 1.
fail() {
	printf '[%s vm%s] FAIL: %s\n' "$(date +%T.%3N)" "$VM_INDEX" "$*" >&2
	: >"$SHARED/.abort.vm$VM_INDEX"
	exit 1
}

# barrier NAME [TIMEOUT]: wait until all VMs have reached barrier NAME.
# A name may be reused; each use is a new round.  Fails after TIMEOUT
# seconds (default $BARRIER_TIMEOUT) or as soon as another VM has failed.
barrier() {
	local name=$1 timeout=${2:-$BARRIER_TIMEOUT}
	local roundf="/tmp/.barrier-round.$name" round=0 deadline n f

	[ -r "$roundf" ] && round=$(<"$roundf")
	round=$((round + 1))
	echo "$round" >"$roundf"
	: >"$SHARED/.barrier.$name.$round.vm$VM_INDEX"
	deadline=$((SECONDS + timeout))
	while :; do
		n=0
		for f in "$SHARED/.barrier.$name.$round.vm"*; do
			[ -e "$f" ] && n=$((n + 1))
		done
		[ "$n" -ge "$VM_COUNT" ] && return 0
		for f in "$SHARED/.abort.vm"*; do
			[ -e "$f" ] && fail "barrier $name: ${f##*.} failed"
		done
		[ "$SECONDS" -ge "$deadline" ] &&
			fail "barrier $name: only $n of $VM_COUNT VMs after ${timeout}s"
		sleep 0.2
	done
}

# wait_tcp_port IP PORT [TIMEOUT]: wait until a TCP connect to IP:PORT works.
# Note: the probe is a real (empty) connection that the server accepts.
wait_tcp_port() {
	local ip=$1 port=$2 timeout=${3:-60} deadline

	deadline=$((SECONDS + timeout))
	until timeout 3 bash -c "exec 3<>/dev/tcp/$ip/$port" 2>/dev/null; do
		[ "$SECONDS" -ge "$deadline" ] &&
			fail "nothing listens on $ip:$port after ${timeout}s"
		sleep 0.3
	done
}

# smcctl_path: print the path of a current smcctl: the host's build
# (tests/run makes it) unless it is missing or older than its source, else
# one built here into $RESULTS.  Returns 1 when neither is possible.
smcctl_path() {
	local src=$REPO/tools/smcctl/smcctl.c bin=$REPO/tools/smcctl/smcctl

	if [ -x "$bin" ] && ! [ "$bin" -ot "$src" ]; then
		echo "$bin"
		return 0
	fi
	[ -f "$src" ] || return 1
	cc -O2 -Wall -Wextra -I"$REPO/include/uapi" -o "$RESULTS/smcctl" "$src" \
		2>"$RESULTS/smcctl-build.log" || return 1
	echo "$RESULTS/smcctl"
}

# rdma_counter NAME [DEV]: a hw counter of port 1 of rxe0 (sent_pkts, ...).
rdma_counter() {
	cat "/sys/class/infiniband/${2:-rxe0}/ports/1/hw_counters/$1"
}

# run_bg LOGNAME CMD...: start CMD in the background with its output in
# $RESULTS/LOGNAME.log; the PID is in $BG_PID.
run_bg() {
	local name=$1

	shift
	"$@" >"$RESULTS/$name.log" 2>&1 &
	BG_PID=$!
	export BG_PID
}

# wait_bg PID [TIMEOUT]: wait for a background job, killing it on timeout.
# Returns its exit code (124 on timeout).
wait_bg() {
	local pid=$1 timeout=${2:-60} deadline

	deadline=$((SECONDS + timeout))
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			kill -9 "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			return 124
		fi
		sleep 0.2
	done
	wait "$pid"
}

# wait_file_line FILE PATTERN [TIMEOUT]: wait until FILE has a line matching
# the extended regex PATTERN (e.g. a server's "listening" line).
wait_file_line() {
	local file=$1 pattern=$2 timeout=${3:-60} deadline

	deadline=$((SECONDS + timeout))
	until grep -Eq -- "$pattern" "$file" 2>/dev/null; do
		[ "$SECONDS" -ge "$deadline" ] &&
			fail "no line /$pattern/ in $file after ${timeout}s"
		sleep 0.2
	done
}
