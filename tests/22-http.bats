#!/usr/bin/env bats
# How kinf talks to the server: HTTP/2 over TLS with every request of a run
# on one connection (behind nghttpx, a real HTTP/2 front end, since
# kube-sim speaks HTTP/1.1), HTTP/1.1 when asked or offered nothing else,
# the HTTP/2 health check and TCP keepalive, certificates named when they
# are out of date, and the -v trace.

load test_helper
load kubeconfig_helper
load h2_helper
bats_require_minimum_version 1.5.0

KINF_PID= ERR= OUT=

setup() {
	T=$BATS_TEST_TMPDIR
}

teardown() {
	kinf_stop
	h2_stop
	sim_stop
	[ -z "${SILENT_PID:-}" ] || kill "$SILENT_PID" 2>/dev/null || true
}

# silent_start [reset|h2] — a TCP server on 127.0.0.1 that takes every
# connection and never says a word (with reset: resets it at once; with
# h2: says nothing after a TLS handshake, kube-sim's certificate, that
# chose HTTP/2); SILENT_PORT, and a line "accept" in $T/accepts each.
silent_start() {
	python3 -c 'import socket, ssl, struct, sys, threading
mode = sys.argv[1]
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
print(s.getsockname()[1], flush=True)
held = []
def h2(c):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[2] + ".server.crt", sys.argv[2] + ".server.key")
    ctx.set_alpn_protocols(["h2"])
    t = ctx.wrap_socket(c, server_side=True)
    while t.recv(65536):
        pass
while True:
    c = s.accept()[0]; print("accept", flush=True)
    if mode == "reset":
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)); c.close()
    elif mode == "h2":
        threading.Thread(target=h2, args=(c,), daemon=True).start()
    else:
        held.append(c)' "${1:-silent}" "$SIM_KUBECONFIG" >"$T/accepts" 3>&- &
	SILENT_PID=$!
	wait_until 10 test -s "$T/accepts"
	SILENT_PORT=$(head -1 "$T/accepts")
}

accepts() { [ "$(grep -c '^accept$' "$T/accepts")" -ge "$1" ]; }

# start_watch KUBECONFIG ARGS... — kinf watch -v in the background.
start_watch() {
	local kc=$1; shift
	kinf_bg watch --kubeconfig "$kc" -v "$@"
}

stop_watch() { kinf_stop; }

open_watches() { [ "$(simctl GET /stats | jq .openWatches)" -eq "$1" ]; }

# drop_synced_watch KUBECONFIG ARGS... — kinf watches pods as client-go
# 1.32 does; once synced, past a bookmark, the sim drops the watch's
# connection abruptly.
drop_synced_watch() {
	local kc=$1; shift
	start_watch "$kc" pods --client-go 1.32 "$@"
	wait_until 20 open_watches 1
	wait_until 10 file_has "$ERR" "synced"
	simctl POST /bookmark '{"resource":"pods"}' >/dev/null
	simctl POST /drop-watches '{"mode":"abrupt"}' >/dev/null
}

@test "watching three resources over HTTP/2: one TCP connection carries all of them" {
	sim_start --pods 5
	h2_start
	# LISTs (not streaming lists), so that -v logs three finished requests.
	start_watch "$H2_KUBECONFIG" pods,deployments,configmaps --streaming-list=false
	wait_until 20 open_watches 3
	# Discovery, three lists and three watches: all HTTP/2, all on one connection.
	[ "$(h2_connections)" -eq 1 ]
	[ "$(grep -c '^GET .* (HTTP/2)$' "$ERR")" -ge 6 ]
	! grep -q '^GET .* OK in [0-9]* ms$' "$ERR" || false
	# And the watches work: a change arrives through the front end.
	simctl POST /update '{"resource":"configmaps","namespace":"default","name":"app-config","patch":{"data":{"k":"v2"}}}' >/dev/null
	wait_until 10 file_has "$OUT" "Updated +ConfigMap +default/app-config"
	[ "$(h2_connections)" -eq 1 ]
}

@test "--http-version 1.1: a connection per watch, no HTTP/2" {
	sim_start --pods 5
	h2_start
	start_watch "$H2_KUBECONFIG" pods,deployments,configmaps --http-version 1.1
	wait_until 20 open_watches 3
	[ "$(h2_connections)" -ge 3 ]
	! grep -q 'HTTP/2' "$ERR"
}

@test "DISABLE_HTTP2 in the environment means HTTP/1.1, as for client-go" {
	sim_start --pods 2
	h2_start
	run --separate-stderr env DISABLE_HTTP2=1 "$KINF" get pods --kubeconfig "$H2_KUBECONFIG" -v
	assert_status 0
	grep -q '^GET .*/pods.* 200 OK in [0-9]* ms$' <<<"$stderr"
	! grep -q 'HTTP/2' <<<"$stderr"
}

@test "--http-version 2 against a server that only speaks HTTP/1.1 says so" {
	sim_start --pods 2
	run_kinf get pods --kubeconfig "$SIM_KUBECONFIG" --http-version 2
	discovery_tries
	assert_one_line_error "server '$SIM_API' answered over HTTP/1.1, and --http-version 2 asks for HTTP/2"
	run_kinf get pods --kubeconfig "$SIM_KUBECONFIG" --http-version 3
	assert_status 2
	[[ $stderr == *"invalid value '3' for '--http-version': expected one of 1.1, 2"* ]]
}

# The requests in the front end's access log besides discovery and the
# lists and watches of RESOURCES (an ERE alternation): printed, and grep's
# status 0, if there are any.  client-go's health check adds none.
other_requests() {
	grep -v -E -e '"GET /apis?(/[^/? ]+){0,2}(\?timeout=32s)? HTTP/' \
		-e "\"GET /api(s/[^/]+)?/v1/(namespaces/[^/]+/)?($1)\\?" "$H2_DIR/access.log"
}

@test "a quiet HTTP/2 connection is sent PING frames and kept; one that stops answering is closed, and the informer relists" {
	sim_start --pods 3
	# The front end prints its HTTP/2 frames into its error log.
	h2_start --frontend-frame-debug
	# client-go's knobs, made short: ping after 1 s of silence, give up 2 s later.
	HTTP2_READ_IDLE_TIMEOUT_SECONDS=1 HTTP2_PING_TIMEOUT_SECONDS=2 \
		start_watch "$H2_KUBECONFIG" pods
	wait_until 20 open_watches 1
	local opened=$SECONDS
	# Nothing changes: every quiet second brings a PING frame, answered, and
	# the connection lives on; unanswered, it would be closed 3 s in.
	wait_until 20 bash -c "[ \$(grep -c 'ping answered' '$ERR') -ge 4 ]"
	# The answer is a read too: the next ping waits a whole read-idle period.
	[ "$(grep -c 'ping sent' "$ERR")" -le $((SECONDS - opened + 2)) ]
	[ "$(grep -c 'recv PING frame <length=8, flags=0x00, stream_id=0>' "$H2_DIR/error.log")" -ge 4 ]
	[ "$(grep -c 'send PING frame <length=8, flags=0x01, stream_id=0>' "$H2_DIR/error.log")" -ge 4 ]
	[ "$(grep -c 'quiet for 1\.[0-9] s: ping sent' "$ERR")" -ge 4 ]
	run ! grep -q 'closing it' "$ERR"
	[ "$(grep -c '^GET .*watch=true' "$ERR")" -eq 0 ]	# the first watch still runs
	[ "$(h2_connections)" -eq 1 ]
	# A PING is no request: the server saw discovery, the list and the watch.
	run ! other_requests pods

	# The front end freezes (its socket stays open, nothing moves).
	kill -STOP "$H2_PID"
	# closed 2 s after its ping by kinf's own clock (what a loaded machine
	# adds to the wall clock is no fault of kinf's)
	wait_until 15 file_has "$ERR" "silent for .* s, 2\.[0-9] s after a ping: closing it"
	# client-go's StreamWatcher makes the lost stream an ERROR event (500),
	# no EOF: the watch ends with it, and the reflector relists.  It is
	# told after the close, so it is waited for.
	wait_until 15 file_has "$ERR" "error: watch error event \(code 500\): unable to decode an event from the watch stream: http2: client connection lost$"
	kill -CONT "$H2_PID"
	# A new connection; after the backoff the relist (1.36: a streaming
	# list) hands every cached object over again, unchanged.
	wait_until 20 bash -c "[ \$(grep -c 'listed 3 objects' '$ERR') -ge 2 ]"
	wait_until 10 bash -c "[ \$(grep -c 'default/pod-' '$OUT') -ge 6 ]"
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-0","patch":{"metadata":{"labels":{"after":"freeze"}}}}' >/dev/null
	wait_until 20 file_has "$OUT" "Updated +default/pod-0"
	[ "$(h2_connections)" -eq 1 ]
	run ! other_requests pods
}

# A LIST that waits for its answer (kube-sim holds it) while its HTTP/2
# connection freezes: the health check closes the connection under it.
list_on_frozen_connection() {
	simctl POST /faults '{"verb":"list","kind":"hang","count":1,"seconds":60}' >/dev/null
	HTTP2_READ_IDLE_TIMEOUT_SECONDS=1 HTTP2_PING_TIMEOUT_SECONDS=2 \
		start_watch "$H2_KUBECONFIG" pods --streaming-list=false "$@"
	# a ping answered once the list began: the connection is quiet under it
	wait_until 20 bash -c "grep -A1000 'pods: listing' '$ERR' | grep -q 'ping answered'"
	kill -STOP "$H2_PID"
	wait_until 15 file_has "$ERR" "closing it"
	kill -CONT "$H2_PID"
	wait_until 20 file_has "$ERR" "synced: 2 objects"
	stop_watch
}

@test "a LIST on an HTTP/2 connection found dead is sent again 1 s later from client-go 1.32; up to 1.31 it fails, and the informer relists" {
	sim_start --pods 2
	h2_start
	# request() retries it as it retries an EOF (IsHTTP2ConnectionLost, 1.32 on)
	list_on_frozen_connection --client-go 1.32
	file_has "$ERR" "backing off 1\.0s: no answer from the server: retrying as client-go's REST client does \(1 of 10\)"
	run ! grep -E 'error:|relisting' "$ERR"
	# 1.29 to 1.31: the list fails; the reflector backs off and lists again
	list_on_frozen_connection --client-go 1.31
	file_has "$ERR" "pods: error: connection to server '.*' went silent, even to a ping for 2 s: closed"
	file_has "$ERR" "pods: backing off [0-9.]+m?s: relisting"
	run ! file_has "$ERR" "retrying as client-go's REST client does"
}

# What client-go's StreamWatcher makes of a reset stream, Go's words inside.
GO_STREAM_ERROR='error: watch error event \(code 500\): unable to decode an event from the watch stream: stream error: stream ID [0-9]+; INTERNAL_ERROR; received from peer'

@test "a watch stream the server resets (RST_STREAM) is an error event and a relist; a broken HTTP/1.1 connection only re-watches" {
	sim_start --pods 2
	h2_start
	# The sim drops the watch's connection to the front end abruptly, and
	# nghttpx resets the client's stream: INTERNAL_ERROR, no EOF.  Go's
	# StreamWatcher makes that an ERROR event (500): client-go relists.
	drop_synced_watch "$H2_KUBECONFIG"
	wait_until 20 file_has "$ERR" "$GO_STREAM_ERROR"
	wait_until 20 bash -c "[ \$(grep -c 'listed 2 objects' '$ERR') -ge 2 ]"
	run ! file_has "$ERR" "watch ended \(connection lost"
	stop_watch
	h2_stop
	# Over HTTP/1.1 the same drop is a reset TCP connection, which Go's
	# decoder takes for the end of the stream: re-watched from its RV.
	drop_synced_watch "$SIM_KUBECONFIG" --http-version 1.1
	wait_until 20 file_has "$ERR" "watch ended \(connection lost"
	wait_until 10 file_has "$ERR" "watching from rv"
	[ "$(grep -c 'listed 2 objects' "$ERR")" -eq 1 ]
}

@test "a reset HTTP/2 watch stream replays as it came: an error event and a relist, not a re-watch" {
	sim_start --pods 2
	h2_start
	drop_synced_watch "$H2_KUBECONFIG" --record "$T/rec.gz"
	wait_until 20 file_has "$ERR" "$GO_STREAM_ERROR"
	wait_until 20 bash -c "[ \$(grep -c 'listed 2 objects' '$ERR') -ge 2 ]"
	stop_watch
	zcat "$T/rec.gz" | grep -q '"streamBroken":true,"streamError":"stream error: stream ID'
	run --separate-stderr "$KINF" replay "$T/rec.gz" -v
	grep -Eq "$GO_STREAM_ERROR" <<<"$stderr"
	[ "$(grep -c 'listed 2 objects' <<<"$stderr")" -ge 2 ]
	[[ $stderr != *"watch ended (connection lost"* ]]
}

@test "-v -v -v prints no credential: not the token over HTTP/2 or HTTP/1.1, not a proxy's password" {
	sim_start --pods 1
	h2_start
	SIM_API=https://127.0.0.1:$H2_PORT write_kubeconfig "$T/kc" "    token: $SIM_TOKEN"
	# HTTP/2: libcurl's own text lines carry the request's fields.
	run --separate-stderr "$KINF" get pods --kubeconfig "$T/kc" -v -v -v
	assert_status 0
	grep -qi '^\* .*authorization: <redacted>' <<<"$stderr"
	run ! grep -qF "$SIM_TOKEN" <<<"$stderr"
	run --separate-stderr "$KINF" get pods --kubeconfig "$T/kc" -v -v -v --http-version 1.1
	assert_status 0
	grep -q '^> Authorization: <redacted>' <<<"$stderr"
	run ! grep -qF "$SIM_TOKEN" <<<"$stderr"
	# Through a proxy whose URL holds a user and a password.
	"$BATS_TEST_DIRNAME/fixtures/connect-proxy" "$T/proxy.port" "$T/proxy.log" \
		>"$T/proxy.err" 2>&1 3>&- &
	wait_until 5 test -s "$T/proxy.port"
	write_kubeconfig "$T/proxied" "    token: $SIM_TOKEN" \
		"$(printf '    certificate-authority: %s\n    proxy-url: http://kinfuser:s3cr3t-pw@127.0.0.1:%s' \
			"$SIM_CACERT" "$(cat "$T/proxy.port")")"
	run --separate-stderr "$KINF" get pods --kubeconfig "$T/proxied" -v -v -v
	grep -q "CONNECT" "$T/proxy.log"
	grep -q '^> Proxy-Authorization: <redacted>' <<<"$stderr"
	run ! grep -qF "s3cr3t-pw" <<<"$stderr"
	run ! grep -qF "$SIM_TOKEN" <<<"$stderr"
}

@test "over h2c (--http-version 2 to an http:// server) the PING frames go on the socket itself" {
	sim_start --pods 3
	local plain
	plain=$(free_port)
	# Over http client-go, and kinf, send no credential: the front end adds
	# one, as an authenticating proxy before a plain-http server would.
	h2_start --frontend-frame-debug --frontend="127.0.0.1,$plain;no-tls" \
		--add-request-header="Authorization: Bearer $SIM_TOKEN"
	# libcurl 7.88 fails the second request on an h2c connection ("Error in
	# the HTTP2 framing layer", curl's own command too): discovery comes
	# from a cache filled over TLS, so the watch is the connection's one request.
	export KUBECACHEDIR=$T/cache
	"$KINF" get pods --kubeconfig "$H2_KUBECONFIG" >/dev/null
	cp -r "$KUBECACHEDIR/discovery/127.0.0.1_$H2_PORT" "$KUBECACHEDIR/discovery/127.0.0.1_$plain"
	sed "s#server: .*#server: http://127.0.0.1:$plain#" "$SIM_KUBECONFIG" >"$T/h2c.kubeconfig"
	HTTP2_READ_IDLE_TIMEOUT_SECONDS=1 HTTP2_PING_TIMEOUT_SECONDS=2 \
		start_watch "$T/h2c.kubeconfig" pods --http-version 2
	wait_until 20 open_watches 1
	wait_until 20 bash -c "[ \$(grep -c 'ping answered' '$ERR') -ge 3 ]"
	[ "$(grep -c 'recv PING frame <length=8, flags=0x00, stream_id=0>' "$H2_DIR/error.log")" -ge 3 ]
	run ! grep -q 'closing it' "$ERR"
	file_has "$ERR" "^connection to server 'http://127.0.0.1:$plain': ping answered"
}

# The keys and resourceVersions the deltas of RESOURCE in $OUT leave behind
# (a relist's deletions are OnDelete too, whatever their type).
replay() {
	jq -S -s -c --arg r "$1" 'reduce (.[] | select(.key != null and .resource == $r)) as $d ({};
		if $d.handler == "OnDelete" then del(.[$d.key]) else .[$d.key] = $d.resourceVersion end)' "$OUT"
}
converged() { [ "$(replay "$1")" = "$(sim_oracle "$1" | jq -S -c .items)" ]; }

@test "over HTTP/2, through churn, dropped watches and a frozen connection, the deltas rebuild the server's truth" {
	sim_start --pods 3000
	h2_start
	# A 14 MB list in one answer: its reader falls behind, its stream pauses, the others go on.
	HTTP2_READ_IDLE_TIMEOUT_SECONDS=1 HTTP2_PING_TIMEOUT_SECONDS=1 \
		start_watch "$H2_KUBECONFIG" pods,configmaps -A -o json
	wait_until 60 file_has "$ERR" "pods: synced"
	wait_until 20 open_watches 2
	simctl POST /churn '{"resource":"pods","rate":200,"duration":6,"mix":{"add":2,"update":5,"delete":2}}' >/dev/null
	simctl POST /churn '{"resource":"configmaps","rate":50,"duration":6}' >/dev/null
	sleep 1
	# Reset streams: both informers relist (client-go's error event), and
	# watch again on the connection that is then frozen.
	simctl POST /drop-watches '{"mode":"abrupt"}' >/dev/null
	wait_until 30 bash -c "[ \$(grep -c 'relist #1' '$ERR') -ge 2 ]"
	wait_until 20 open_watches 2
	kill -STOP "$H2_PID"
	wait_until 10 file_has "$ERR" "closing it"
	kill -CONT "$H2_PID"
	wait_until 20 bash -c "$(declare -f simctl); ! simctl GET /churn | jq -e .running >/dev/null"
	wait_until 60 converged pods
	wait_until 10 converged configmaps
	run ! other_requests 'pods|configmaps'
}

@test "HTTP2_READ_IDLE_TIMEOUT_SECONDS=0 turns the health check off, as in client-go" {
	sim_start --pods 1
	h2_start --frontend-frame-debug
	HTTP2_READ_IDLE_TIMEOUT_SECONDS=0 start_watch "$H2_KUBECONFIG" pods
	wait_until 20 open_watches 1
	sleep 3	# three read-idle periods of the test above: no ping may come
	grep -q 'recv HEADERS frame' "$H2_DIR/error.log"	# the frames are logged
	run ! grep -q 'PING frame' "$H2_DIR/error.log"
	run ! grep -q 'ping sent' "$ERR"
	run ! other_requests pods
}

@test "every connection has TCP keepalive as Go's dialer: idle 30 s, every 15 s, 9 probes, no user timeout" {
	command -v strace >/dev/null || skip "no strace"
	sim_start --pods 1
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -e trace=setsockopt -o "$T/trace" \
		"$KINF" get pods --kubeconfig "$SIM_KUBECONFIG" >/dev/null
	grep -q 'SO_KEEPALIVE, \[1\]' "$T/trace"
	grep -q 'TCP_KEEPIDLE, \[30\]' "$T/trace"
	grep -q 'TCP_KEEPINTVL, \[15\]' "$T/trace"
	grep -q 'TCP_KEEPCNT, \[9\]' "$T/trace"
	run ! grep -q 'TCP_USER_TIMEOUT' "$T/trace"
}

# ---- certificates out of date, named -----------------------------------------

# sign NAME SUBJECT START END [SAN] — a key and a certificate signed by the
# simulator's CA, valid from START to END (openssl's YYYYMMDDHHMMSSZ).
sign() {
	local name=$1 subj=$2 start=$3 end=$4 san=${5:-}
	local ca=$T/ca
	mkdir -p "$ca"
	[ -f "$ca/ca.cnf" ] || {
		: >"$ca/index.txt"
		echo 01 >"$ca/serial"
		cat >"$ca/ca.cnf" <<-EOF
		[ca]
		default_ca = ca
		[ca]
		dir = $ca
		database = $ca/index.txt
		new_certs_dir = $ca
		serial = $ca/serial
		default_md = sha256
		policy = any
		copy_extensions = copy
		unique_subject = no
		[any]
		commonName = supplied
		organizationName = optional
		EOF
	}
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$T/$name.key" -out "$T/$name.csr" -subj "$subj" \
		${san:+-addext "subjectAltName=$san"} 2>/dev/null
	# `openssl ca` takes any start and end date (x509 -days cannot go back in time).
	openssl ca -batch -preserveDN -config "$ca/ca.cnf" -notext \
		-cert "$SIM_KUBECONFIG.ca.crt" -keyfile "$SIM_KUBECONFIG.ca.key" \
		-startdate "$start" -enddate "$end" -in "$T/$name.csr" -out "$T/$name.crt" 2>/dev/null
}

# A kubeconfig presenting the client certificate NAME.
cert_kubeconfig() {
	write_kubeconfig "$T/kc.$1" "$(printf '    client-certificate: %s\n    client-key: %s' "$T/$1.crt" "$T/$1.key")"
}

@test "an expired client certificate is named, with its subject and dates" {
	sim_start --pods 1
	sign old "/O=system:masters/CN=old-admin" 20200101000000Z 20200102000000Z
	cert_kubeconfig old
	run_kinf get pods --kubeconfig "$T/kc.old"
	discovery_tries
	assert_one_line_error "the client certificate 'CN=old-admin,O=system:masters' of user 'tester'" \
		"expired on 2020-01-02 00:00:00 UTC (valid from 2020-01-01 00:00:00 UTC)" \
		"server '$SIM_API' refused it"
	[[ $stderr != *alert* ]]
	# The server's alert ("remote error: tls: expired certificate" in Go)
	# is no EOF or reset: the REST client does not retry it, and kubectl
	# gives up after its five discovery tries, in a fraction of a second.
	run_kinf get pods --kubeconfig "$T/kc.old" -v 6
	[ "$(grep -c "^GET .* failed after" <<<"$stderr")" -eq 5 ]
	[[ $stderr != *retrying* ]]
}

@test "a client certificate not valid yet is named, with its subject and dates" {
	sim_start --pods 1
	sign future "/O=system:masters/CN=future-admin" 20990101000000Z 20990102000000Z
	cert_kubeconfig future
	run_kinf get pods --kubeconfig "$T/kc.future"
	discovery_tries
	assert_one_line_error "the client certificate 'CN=future-admin,O=system:masters' of user 'tester'" \
		"is not valid before 2099-01-01 00:00:00 UTC (valid until 2099-01-02 00:00:00 UTC)"
}

@test "an expired or not yet valid server certificate is named, with its subject and dates" {
	sim_start --pods 1
	sign srv-old "/CN=kube-sim-old" 20200101000000Z 20200102000000Z "IP:127.0.0.1,DNS:localhost"
	H2_KEY=$T/srv-old.key H2_CERT=$T/srv-old.crt h2_start
	run_kinf get pods --kubeconfig "$H2_KUBECONFIG"
	discovery_tries
	assert_one_line_error "the certificate of server 'https://127.0.0.1:$H2_PORT' (subject 'CN=kube-sim-old')" \
		"expired on 2020-01-02 00:00:00 UTC (valid from 2020-01-01 00:00:00 UTC)"
	h2_stop

	sign srv-new "/CN=kube-sim-new" 20990101000000Z 20990102000000Z "IP:127.0.0.1,DNS:localhost"
	H2_KEY=$T/srv-new.key H2_CERT=$T/srv-new.crt h2_start
	run_kinf get pods --kubeconfig "$H2_KUBECONFIG"
	discovery_tries
	assert_one_line_error "the certificate of server 'https://127.0.0.1:$H2_PORT' (subject 'CN=kube-sim-new')" \
		"is not valid before 2099-01-01 00:00:00 UTC (valid until 2099-01-02 00:00:00 UTC)"
}

@test "a server certificate that names its host in the Common Name alone is refused, as Go refuses it" {
	sim_start --pods 1
	# The CA's own, in date, and its Common Name the very host: libcurl
	# would take it; Go, and so client-go and kubectl, does not.
	sign srv-cn "/CN=127.0.0.1" 20200101000000Z 20990102000000Z
	H2_KEY=$T/srv-cn.key H2_CERT=$T/srv-cn.crt h2_start
	run_kinf get pods --kubeconfig "$H2_KUBECONFIG"
	discovery_tries
	assert_one_line_error "the certificate of server 'https://127.0.0.1:$H2_PORT' (subject 'CN=127.0.0.1')" \
		"names no host in a subjectAltName: client-go (Go) reads no Common Name, and refuses it"
	h2_stop
	# The same with the address in a subjectAltName is good.
	sign srv-san "/CN=127.0.0.1" 20200101000000Z 20990102000000Z "IP:127.0.0.1"
	H2_KEY=$T/srv-san.key H2_CERT=$T/srv-san.crt h2_start
	run_kinf get pods --kubeconfig "$H2_KUBECONFIG"
	[ "$status" -eq 0 ]
}

# ---- the -v trace ---------------------------------------------------------------

@test "-v: a watch ended by --timeout or a signal is 'stopped', not 'failed'" {
	sim_start --pods 2
	run --separate-stderr "$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG" -v --timeout 2s
	grep -q '^GET .*watch=true.* 200 OK in [0-9]* ms, stopped$' <<<"$stderr"
	! grep -q 'failed' <<<"$stderr" || false

	start_watch "$SIM_KUBECONFIG" pods
	wait_until 20 open_watches 1
	stop_watch
	# The simulator counts a watch open before its answer's headers are
	# out: a stop then finds no status yet.  Stopped, either way.
	grep -qE '^GET .*watch=true.*( 200 OK in [0-9]* ms, stopped| stopped after [0-9]* ms)$' "$ERR"
	! grep -q 'failed' "$ERR"
}

@test "-v: a request that does fail says why" {
	sim_start --pods 2
	# (libcurl tries again on another connection when a reused one dies.)
	simctl POST /faults '{"verb":"list","kind":"reset","count":20}' >/dev/null
	run --separate-stderr "$KINF" get pods --kubeconfig "$SIM_KUBECONFIG" -v
	grep -q "^GET .*/pods?.* failed after [0-9]* ms: server '$SIM_API' closed the connection without answering" <<<"$stderr"
}

@test "a redirect is followed as Go follows it, and the token goes only to the server's own origin" {
	sim_start --pods 2
	local path='/api/v1/namespaces/default/pods?limit=500&resourceVersion=0'
	local other=${SIM_API/127.0.0.1/localhost}
	# The first LIST is sent on (to a path of its own server), then to
	# another origin: the same kube-sim, by another name.
	simctl POST /faults "$(jq -nc --arg to "$path&hop=2" \
		'{verb:"list",kind:"body",status:302,location:$to,body:"{}"}')" >/dev/null
	simctl POST /faults "$(jq -nc --arg to "$other$path&hop=3" \
		'{verb:"list",kind:"body",status:307,location:$to,body:"{}"}')" >/dev/null
	start_watch "$SIM_KUBECONFIG" pods -n default --client-go 1.32
	wait_until 20 open_watches 1
	stop_watch
	simctl GET '/requests?verb=list' >"$T/lists"
	jq -e 'length >= 4' "$T/lists"
	# Each hop has the one before as its Referer, as Go's http.Client sends.
	jq -e --arg api "$SIM_API" --arg p "$path" '
		(.[0].query | has("hop") | not) and (.[0].headers.Referer == null) and
		.[0].headers.Authorization == "Bearer <redacted>" and
		.[1].query.hop == "2" and .[1].headers.Referer == $api + $p and
		.[1].headers.Authorization == "Bearer <redacted>" and
		.[2].query.hop == "3" and .[2].headers.Referer == $api + $p + "&hop=2" and
		.[2].headers.Authorization == null' "$T/lists"
	grep -q "^GET $SIM_API.*pods?limit=500&resourceVersion=0 302 Found in" "$ERR"
	grep -q "^GET $other.*&hop=3 401 Unauthorized in" "$ERR"
}

@test "every request asks for gzip alone, as Go's transport asks, and none with disable-compression" {
	sim_start --pods 2
	run "$KINF" get pods --kubeconfig "$SIM_KUBECONFIG"
	[ "$status" -eq 0 ]
	simctl GET /requests | jq -e 'length >= 2 and all(.[]; .headers["Accept-Encoding"] == "gzip")'
	simctl DELETE /requests >/dev/null
	sed 's/^\( *\)\(server: .*\)$/\1\2\n\1disable-compression: true/' "$SIM_KUBECONFIG" >"$T/kc"
	grep -q '^    disable-compression: true$' "$T/kc"
	run "$KINF" get pods --kubeconfig "$T/kc"
	[ "$status" -eq 0 ]
	simctl GET /requests | jq -e 'length >= 1 and all(.[]; .headers["Accept-Encoding"] == null)'
}

pod_watches_at_least() {
	[ "$(simctl GET '/requests?verb=watch&resource=pods' | jq length)" -ge "$1" ]
}

@test "the server's Warning headers: each 299 text once on stderr, as kubectl prints it, escaped" {
	sim_start --pods 2
	simctl POST /warnings "$(jq -nc '{resource: "pods", values: [
		"299 - \"policy/v1beta1 Pods are deprecated\"",
		"299 k8s.io \"two \\\"quoted\\\"\" \"Wed, 21 Oct 2015 07:28:00 GMT\", 299 - \"three \u009b31mred\"",
		"199 - \"not a 299\"", "299 - unquoted"]}')" >/dev/null
	run --separate-stderr "$KINF" get pods --kubeconfig "$SIM_KUBECONFIG"
	[ "$status" -eq 0 ]
	[ "${stderr_lines[0]}" = "Warning: policy/v1beta1 Pods are deprecated" ]
	[ "${stderr_lines[1]}" = 'Warning: two "quoted"' ]
	[ "${stderr_lines[2]}" = 'Warning: three \x9b31mred' ]
	[ "${#stderr_lines[@]}" -eq 3 ]
	# A watch hears them on every request, and says each once.
	start_watch "$SIM_KUBECONFIG" pods --client-go 1.32
	wait_until 20 open_watches 1
	watch_settled
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_until 20 pod_watches_at_least 2
	stop_watch
	[ "$(grep -c '^Warning: policy/v1beta1 Pods are deprecated$' "$ERR")" -eq 1 ]
}

@test "watch -q: not the server's warnings either" {
	sim_start --pods 2
	simctl POST /warnings '{"resource": "pods", "values": ["299 - \"deprecated\""]}' >/dev/null
	kinf_bg watch --kubeconfig "$SIM_KUBECONFIG" pods --client-go 1.32 -q
	wait_until 20 pod_watches_at_least 1
	stop_watch
	[ "$(grep -c '^Warning: deprecated$' "$ERR")" -eq 0 ]
	# the same watch without -q says it
	kinf_bg watch --kubeconfig "$SIM_KUBECONFIG" pods --client-go 1.32
	wait_until 20 pod_watches_at_least 2
	stop_watch
	[ "$(grep -c '^Warning: deprecated$' "$ERR")" -eq 1 ]
}

@test "a header with a control character in it fails the response, as Go's reader fails it" {
	sim_start --pods 2
	simctl POST /warnings "$(jq -nc '{resource: "pods", values: ["299 - \"\u001b]0;owned\u0007\""]}')" >/dev/null
	run --separate-stderr "$KINF" get pods --kubeconfig "$SIM_KUBECONFIG"
	[ "$status" -eq 1 ]
	[[ $stderr == "error: "*"server '$SIM_API' sent a header line with a control character in it: net/http: HTTP/1.x transport connection broken: malformed MIME header line"* ]]
	[[ $stderr != *owned* ]]
}

@test "a server that takes the connection and never answers the TLS handshake is given up after 10 s, as Go's TLSHandshakeTimeout, and retried as client-go retries it" {
	sim_start
	silent_start
	write_kubeconfig "$T/kc" "    token: $SIM_TOKEN"
	sed -i "s|server: .*|server: https://127.0.0.1:$SILENT_PORT|" "$T/kc"
	# the watch's discovery from a warm cache (kubectl's layout: host_port)
	run_kinf api-resources --kubeconfig "$SIM_KUBECONFIG" --cache-dir "$T/cache" -o name
	assert_status 0
	local sim_dir=$T/cache/discovery/${SIM_API#https://}
	cp -r "${sim_dir/:/_}" "$T/cache/discovery/127.0.0.1_$SILENT_PORT"
	start_watch "$T/kc" pods --cache-dir "$T/cache"
	# a LIST (1.28's first request) is a GET: Do retries no timeout
	"$KINF" watch pods --client-go 1.28 --kubeconfig "$T/kc" --cache-dir "$T/cache" \
		2>"$T/err128" 3>&- &
	local pid128=$! t0 elapsed_ms
	t0=$(date +%s%N)
	run_kinf api-resources --kubeconfig "$T/kc" --cache-dir "$T/cold"
	elapsed_ms=$((($(date +%s%N) - t0) / 1000000))
	assert_one_line_error "TLS handshake with server 'https://127.0.0.1:$SILENT_PORT' timed out: no answer for 10 s (Go's net/http: TLS handshake timeout)"
	[ "$elapsed_ms" -ge 9900 ]
	# the watch: a timeout, which Watch's isErrRetryableFunc retries after a second
	wait_until 60 file_has "$ERR" "backing off 1\.0s: no answer from the server: retrying as client-go's REST client does \(1 of 10\)"
	wait_until 30 file_has "$T/err128" "backing off .*: relisting"
	wait_until 30 accepts 4	# api-resources' connection, the watch's two, the LIST's
	stop_watch
	kill "$pid128"
	wait "$pid128" || true
	file_has "$ERR" "TLS handshake with server .* timed out: no answer for 10 s"
	run ! grep -q "REST client" "$T/err128"
}

# warm_cache_for KUBECONFIG — the discovery cache in $T/cache holds the
# sim's under the server of KUBECONFIG too (kubectl's layout: host_port).
warm_cache_for() {
	local server
	server=$(sed -n 's|^ *server: https://||p' "$1")
	run_kinf api-resources --kubeconfig "$SIM_KUBECONFIG" --cache-dir "$T/cache" -o name
	assert_status 0
	local sim_dir=$T/cache/discovery/${SIM_API#https://}
	cp -r "${sim_dir/:/_}" "$T/cache/discovery/${server/:/_}"
}

@test "a connection reset in the TLS handshake is Go's 'connection reset by peer': the REST client retries it a second later, a watch's and a get's" {
	sim_start
	silent_start reset
	write_kubeconfig "$T/kc" "    token: $SIM_TOKEN"
	sed -i "s|server: .*|server: https://127.0.0.1:$SILENT_PORT|" "$T/kc"
	warm_cache_for "$T/kc"
	start_watch "$T/kc" pods --cache-dir "$T/cache"
	wait_until 30 file_has "$ERR" "no answer from the server: retrying as client-go's REST client does \(3 of 10\)"
	stop_watch
	run ! grep -q "relisting" "$ERR"
	# kubectl's GET, Do: retried too, here until the request timeout
	local before
	before=$(grep -c '^accept$' "$T/accepts")
	run_kinf get pods --kubeconfig "$T/kc" --cache-dir "$T/cache" --request-timeout 2500ms
	assert_one_line_error "Connection reset by peer"
	[ "$(($(grep -c '^accept$' "$T/accepts") - before))" -ge 2 ]
}

@test "an HTTP/2 connection whose server never answers its first request is checked with PINGs from its handshake on, as Go's, and closed" {
	sim_start
	silent_start h2
	write_kubeconfig "$T/kc" "    token: $SIM_TOKEN"
	sed -i "s|server: .*|server: https://127.0.0.1:$SILENT_PORT|" "$T/kc"
	warm_cache_for "$T/kc"
	HTTP2_READ_IDLE_TIMEOUT_SECONDS=1 HTTP2_PING_TIMEOUT_SECONDS=1 \
		start_watch "$T/kc" pods --cache-dir "$T/cache"
	wait_until 30 file_has "$ERR" "connection to server 'https://127.0.0.1:$SILENT_PORT' went silent, even to a ping for 1 s: closed"
	wait_until 30 accepts 2	# and the next request opens another
	stop_watch
}