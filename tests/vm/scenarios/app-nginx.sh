#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nginx (master + one worker) on VM 0, curl and wrk on VM 1, unmodified,
# first through smc_run, then in the eBPF policy's cgroup (lib/app.sh).
# VM 0 serves a fresh pseudo-random file of SMCR_APP_HTTP_SIZE bytes
# (default 64 KiB, sendfile on).  Each way:
#   - curl fetches it: HTTP 200, the same size and sha256 as on VM 0;
#   - wrk (1 thread, 4 keep-alive connections) for SMCR_APP_HTTP_SECS
#     (default 15) seconds: at least SMCR_APP_HTTP_MIN (default 20)
#     requests, no connect, read, write or timeout error, no non-2xx/3xx
#     status, and the bytes it read cover every body;
#   - nginx's access log has a 200 of the full size for every request
#     wrk counted (and at most the 4 it had in flight at the end more);
#   - smcctl stats: every new handshake on both VMs is SMC-R (the server
#     accepted as many as the client made), no fallback; rxe0 moved at
#     least a packet per KiB of bodies from VM 0.

set -euo pipefail
. "$REPO/tests/vm/lib/guest.sh"
. "$REPO/tests/vm/lib/app.sh"

app_need nginx wrk curl sha256sum
app_setup app-nginx
secs=${SMCR_APP_HTTP_SECS:-15}
min=${SMCR_APP_HTTP_MIN:-20}
size=${SMCR_APP_HTTP_SIZE:-65536}
port=8080
url=http://$VM_IP_0:$port/blob.bin

# nginx_conf DIR: a self-contained configuration below DIR (the root file
# system is read-only in the VM: no default path may be written).
nginx_conf() {
	cat <<EOF
daemon off;
master_process on;
worker_processes 1;
user root;
pid $1/nginx.pid;
error_log $1/error.log info;
events { worker_connections 64; }
http {
	access_log $1/access.log;
	client_body_temp_path $1/body;
	proxy_temp_path $1/proxy;
	fastcgi_temp_path $1/fastcgi;
	uwsgi_temp_path $1/uwsgi;
	scgi_temp_path $1/scgi;
	default_type application/octet-stream;
	sendfile on;
	keepalive_requests 100000;
	server {
		listen $VM_IP_0:$port;
		root $1/www;
	}
}
EOF
}

# The wrk script: print the counters wrk's report leaves out or rounds.
wrk_lua=/tmp/app-nginx.lua
cat >"$wrk_lua" <<'EOF'
function done(summary, latency, requests)
	local e = summary.errors
	io.write(string.format("wrk: requests=%d bytes=%d connect=%d read=%d write=%d status=%d timeout=%d\n",
		summary.requests, summary.bytes, e.connect, e.read, e.write,
		e.status, e.timeout))
end
EOF

for way in $APP_WAYS; do
	app_begin "$way"
	if [ "$VM_INDEX" -eq 0 ]; then
		dir=/tmp/nginx-$way
		mkdir -p "$dir/www"
		head -c "$size" /dev/urandom >"$dir/www/blob.bin"
		sha256sum <"$dir/www/blob.bin" | cut -d' ' -f1 >"$SHARED/app-nginx.$way.sha256"
		nginx_conf "$dir" >"$dir/nginx.conf"
		app_bg "$way" "nginx-$way" nginx -e "$dir/error.log" -p "$dir" -c "$dir/nginx.conf"
		pid=$BG_PID
		wait_listen "$port"
		barrier "$way-listening"
		barrier "$way-client-done" 180
		kill -QUIT "$pid"
		wait_bg "$pid" 30 ||
			smcr_problem "app-nginx $way: nginx exited $?: $(tail -n 3 "$dir/error.log" | paste -sd';')"
		cp "$dir/error.log" "$RESULTS/nginx-error-$way.log"
		cp "$dir/access.log" "$RESULTS/nginx-access-$way.log"
		total=$(wc -l <"$dir/access.log")
		ok=$(grep -c "\"GET /blob.bin HTTP/1.1\" 200 " "$dir/access.log") || ok=0
		good=$(grep -c "\"GET /blob.bin HTTP/1.1\" 200 $size " "$dir/access.log") || good=0
		want=$(cat "$SHARED/app-nginx.$way.requests" 2>/dev/null) || want=0
		log "nginx access log: $total requests, $ok x 200, $good of them with all $size bytes (the client counted $want)"
		# wrk does not count the requests in flight when its time is
		# up (one per connection), nginx may log them cut short
		[ "$ok" -eq "$total" ] && [ "$good" -ge "$want" ] && [ "$total" -le $((want + 4)) ] ||
			smcr_problem "app-nginx $way: access log has $total requests, $ok x 200, $good complete; the client counted $want"
		grep -E '\[(alert|crit|emerg)\]' "$dir/error.log" &&
			smcr_problem "app-nginx $way: nginx logged errors"
		app_end "$way" 0 $((total * size)) "nginx: $total requests served, $good x 200 of $size bytes"
		continue
	fi

	barrier "$way-listening"
	sum=$(cat "$SHARED/app-nginx.$way.sha256")
	app_run "$way" "curl-$way" 60 curl -sS -o "/tmp/blob-$way.bin" \
		-w '%{http_code} %{size_download}\n' "$url" ||
		smcr_problem "app-nginx $way: curl exited $?: $(paste -sd';' "$RESULTS/curl-$way.log")"
	got=$(sha256sum <"/tmp/blob-$way.bin" | cut -d' ' -f1)
	log "curl: $(cat "$RESULTS/curl-$way.log") sha256 $got"
	[ "$(cat "$RESULTS/curl-$way.log")" = "200 $size" ] && [ "$got" = "$sum" ] ||
		smcr_problem "app-nginx $way: curl got '$(cat "$RESULTS/curl-$way.log")' sha256 $got, want '200 $size' $sum"

	app_run "$way" "wrk-$way" $((secs + 60)) wrk -t 1 -c 4 -d "${secs}s" --timeout 20s \
		-s "$wrk_lua" "$url" ||
		smcr_problem "app-nginx $way: wrk exited $?: $(tail -n 3 "$RESULTS/wrk-$way.log" | paste -sd';')"
	line=$(grep '^wrk: ' "$RESULTS/wrk-$way.log") || line=
	log "$line"
	reqs=$(sed -n 's/.* requests=\([0-9]*\) .*/\1/p' <<<"$line")
	bytes=$(sed -n 's/.* bytes=\([0-9]*\) .*/\1/p' <<<"$line")
	[ -n "$reqs" ] && [ "$reqs" -ge "$min" ] && [ "$bytes" -ge $((reqs * size)) ] &&
		[[ $line == *" connect=0 read=0 write=0 status=0 timeout=0" ]] ||
		smcr_problem "app-nginx $way: wrk: '$line', want >= $min requests, no errors"
	# the server's access log must count the curl request and wrk's
	echo $((${reqs:-0} + 1)) >"$SHARED/app-nginx.$way.requests"
	barrier "$way-client-done" 180
	app_end "$way" 0 $((${reqs:-0} * size)) \
		"curl 1 request ($size bytes, sha256 ok) + wrk $reqs requests ($bytes bytes), 0 errors, 0 non-2xx"
done
app_verdict
