#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smc_run without an SMC module (one VM, impl none): programs still work,
# over TCP, and each process says once why.  Module autoloading is turned
# off first (kernel.modprobe=/bin/true), else socket(AF_SMC) would load the
# distribution's smc.ko.
#   - tools/smc_run/tcp_xfer.py server and client on loopback under smc_run:
#     1 MiB each way checked, their sockets are AF_INET (SO_DOMAIN 2), and
#     each log has exactly one "cannot create AF_SMC sockets (... is the smc
#     module loaded?): using TCP" line;
#   - the same with a rule (-p): the swap at listen()/connect() meets no
#     AF_SMC, warns once per process and the call goes on over TCP.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"

[ "$SMC_IMPL" = none ] || fail "smc-run-none needs impl none"
PY=/usr/bin/python3
bytes=1048576
dir=$REPO/tools/smc_run
SMC_RUN=$dir/smc_run
msg='cannot create AF_SMC sockets (Address family not supported by protocol, is the smc module loaded?): using TCP'

lib=$dir/libsmc-preload.so
if [ ! -f "$lib" ] || [ "$lib" -ot "$dir/smc-preload.c" ]; then
	lib=$RESULTS/libsmc-preload.so
	cc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$lib" "$dir/smc-preload.c" -ldl ||
		fail "cannot build libsmc-preload.so"
	log "built $lib (no current host build)"
fi
export SMC_PRELOAD_LIB=$lib

echo /bin/true >/proc/sys/kernel/modprobe || fail "cannot turn off module autoloading"
lsmod | awk '$1 == "smc" { exit 1 }' || fail "an smc module is loaded"
$PY -c 'import socket; socket.socket(43, socket.SOCK_STREAM, 0)' 2>/dev/null &&
	fail "AF_SMC sockets can be created without a module"
log "no AF_SMC in this kernel"

# once LOG: the warning is in LOG exactly once
once() {
	local n

	n=$(grep -cF -- "$msg" "$1") || true
	[ "$n" -eq 1 ] || fail "$(basename "$1"): $n warnings, want 1: $(grep smc_run "$1" | paste -sd';')"
}

# without rules: socket() falls back
run_bg server "$SMC_RUN" "$PY" "$dir/tcp_xfer.py" server 5200
server=$BG_PID
wait_file_line "$RESULTS/server.log" 'listening on 5200' 60
"$SMC_RUN" "$PY" "$dir/tcp_xfer.py" client 127.0.0.1 5200 "$bytes" >"$RESULTS/client.log" 2>&1 ||
	fail "client failed: $(tail -n 3 "$RESULTS/client.log")"
wait_bg "$server" 60 || fail "server failed: $(tail -n 3 "$RESULTS/server.log")"
grep -q '^client ok' "$RESULTS/client.log" || fail "client not ok"
grep -q '^server ok' "$RESULTS/server.log" || fail "server not ok"
grep -q '^domains connected=2/6 ' "$RESULTS/client.log" || fail "client sockets: $(grep domains "$RESULTS/client.log")"
grep -q '^domains accepted=2/6 listener=2/6 ' "$RESULTS/server.log" || fail "server sockets: $(grep domains "$RESULTS/server.log")"
once "$RESULTS/client.log"
once "$RESULTS/server.log"
log "without rules: $(grep '^received' "$RESULTS/client.log") over TCP; one warning per process"

# with rules: the swap falls back
release=$RESULTS/rules.release
run_bg rules-server "$SMC_RUN" -p 5201 "$PY" "$dir/rules_probe.py" serve --hold "$release" 0.0.0.0:5201
server=$BG_PID
wait_file_line "$RESULTS/rules-server.log" '^listening' 60
"$SMC_RUN" -d -p 5201 "$PY" "$dir/rules_probe.py" connect 127.0.0.1 5201 "$bytes" \
	>"$RESULTS/rules-client.log" 2>&1 || fail "rules client failed: $(tail -n 3 "$RESULTS/rules-client.log")"
: >"$release"
wait_bg "$server" 60 || fail "rules server failed: $(tail -n 3 "$RESULTS/rules-server.log")"
grep -q '^listener 5201 domain 2 .* swapped no$' "$RESULTS/rules-server.log" || fail "rules listener not TCP"
grep -q '^connected 5201 domain 2 proto 6 .* swapped no$' "$RESULTS/rules-client.log" || fail "rules client not TCP"
grep -q '^client ok$' "$RESULTS/rules-client.log" || fail "rules client not ok"
once "$RESULTS/rules-client.log"
once "$RESULTS/rules-server.log"
log "with -p: $(grep '^transfer' "$RESULTS/rules-client.log") over TCP; one warning per process"
log "smc-run-none ok"
