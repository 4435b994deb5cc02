#!/usr/bin/env bash
# An HTTP/2 front end before kube-sim, which speaks only HTTP/1.1: nghttpx
# (Debian's nghttp2-proxy) terminates TLS with ALPN h2 and http/1.1, using
# kube-sim's own server certificate (so the kubeconfig's CA verifies it),
# and forwards each request to kube-sim over TLS.  As with a real
# apiserver, every stream of one client connection may carry a watch.
#
#   load h2_helper
#   sim_start ...; h2_start [nghttpx args...]
#   h2_connections      established TCP connections to the front end
#   h2_stop             (safe twice; teardown calls it)
#
# h2_start exports H2_PORT, H2_PID, H2_KUBECONFIG (the sim's kubeconfig,
# server pointed at the front end) and H2_DIR (access.log, error.log, and
# frames.log: nghttpx's stderr, where --frontend-frame-debug prints the
# HTTP/2 frames of the front end).

NGHTTPX=$(command -v nghttpx || echo /usr/sbin/nghttpx)

# A TCP port nothing listens on right now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

h2_start() {
	local sim_port=${SIM_API##*:}
	H2_DIR="$SIM_DIR/h2"
	mkdir -p "$H2_DIR"
	H2_PORT=$(free_port)
	# Long timeouts: a quiet watch is not nghttpx's business to end.
	"$NGHTTPX" --conf=/dev/null --single-process --no-ocsp \
		--frontend="127.0.0.1,$H2_PORT" \
		--backend="127.0.0.1,$sim_port;;tls;sni=localhost" --cacert="$SIM_CACERT" \
		--backend-read-timeout=1h --frontend-http2-read-timeout=1h \
		--accesslog-file="$H2_DIR/access.log" --errorlog-file="$H2_DIR/error.log" \
		"$@" "${H2_KEY:-$SIM_KUBECONFIG.server.key}" "${H2_CERT:-$SIM_KUBECONFIG.server.crt}" \
		>/dev/null 2>"$H2_DIR/frames.log" 3>&- &
	H2_PID=$!
	H2_KUBECONFIG="$H2_DIR/kubeconfig"
	sed "s#server: .*#server: https://127.0.0.1:$H2_PORT#" "$SIM_KUBECONFIG" >"$H2_KUBECONFIG"
	export H2_DIR H2_PORT H2_PID H2_KUBECONFIG
	local i
	for ((i = 0; i < 100; i++)); do
		grep -q "Listening on 127.0.0.1:$H2_PORT" "$H2_DIR/error.log" 2>/dev/null && return 0
		kill -0 "$H2_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "# nghttpx did not come up:" >&2
	sed 's/^/# /' "$H2_DIR/error.log" >&2
	return 1
}

h2_stop() {
	local pid=${H2_PID:-}
	[ -n "$pid" ] || return 0
	kill -CONT "$pid" 2>/dev/null || true
	kill -TERM "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	H2_PID=""
}

h2_connections() {
	ss -Htn state established "( dport = :$H2_PORT )" | wc -l
}
