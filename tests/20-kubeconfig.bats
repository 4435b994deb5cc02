#!/usr/bin/env bats
# Reaching the cluster kubectl would reach: which kubeconfig, which
# context, TLS as the kubeconfig says — and when it cannot, one line that
# says why.  Against the simulated apiserver over TLS.

load test_helper
load kubeconfig_helper
load tui_helper

setup() {
	sim_start
	T=$BATS_TEST_TMPDIR
}

teardown() {
	[ -z "${TMUX_SOCK:-}" ] || tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	sim_stop 2>/dev/null || true
}

@test "the simulator's kubeconfig (bearer token, CA file) lists its resources" {
	run_kinf api-resources --kubeconfig "$SIM_KUBECONFIG"
	assert_status 0
	[ "${lines[0]}" = "$(printf '%-14s%-13s%-24s%-13s%s' NAME SHORTNAMES APIVERSION NAMESPACED KIND)" ]
	assert_output_contains "pods          po           v1                      true         Pod"
	assert_output_contains "deployments   deploy       apps/v1"
	[ "$(request_users)" = admin ]
	simctl GET /requests | jq -e 'all(.[]; .userAgent | startswith("kinf/"))'
}

@test "api-resources -o name and -o wide print what kubectl prints" {
	run_kinf api-resources --kubeconfig "$SIM_KUBECONFIG" -o name
	assert_status 0
	[ "${lines[0]}" = configmaps ]
	assert_output_contains "deployments.apps"
	run_kinf api-resources --kubeconfig "$SIM_KUBECONFIG" -o wide --api-group apps
	assert_status 0
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[0]} == *"VERBS"*"CATEGORIES" ]]
	[[ ${lines[1]} == *"create,delete,deletecollection,get,list,patch,update,watch   all" ]]
	run_kinf api-resources --kubeconfig "$SIM_KUBECONFIG" --namespaced=false --no-headers -o name
	assert_status 0
	[ "$output" = "$(printf 'namespaces\nnodes')" ]
	# --verbs and --categories take lists, repeated or with commas, and keep
	# the resources that have all of them, as kubectl's
	local args
	for args in "--categories all" "--categories all --categories nope" "--verbs create --verbs watch" \
		    "--verbs list,watch --categories=all -o name"; do
		run_kinf api-resources --kubeconfig "$SIM_KUBECONFIG" $args
		assert_status 0
		[ "$output" = "$(kubectl api-resources --kubeconfig "$SIM_KUBECONFIG" $args)" ] ||
			{ echo "# differs from kubectl: $args" >&2; false; }
	done
	run_kinf api-resources --kubeconfig "$SIM_KUBECONFIG" --categories all -o name
	[ "${#lines[@]}" -ge 2 ]
}

@test "client certificate and key from files" {
	run_kinf api-resources --kubeconfig "$SIM_KUBECONFIG.certfile" -o name
	assert_status 0
	assert_output_contains pods
	[ "$(request_users)" = kinf-admin ]
}

@test "a client pair and a CA as Go reads them: its errors in one line, and never a passphrase asked for" {
	local key=$SIM_KUBECONFIG.client.key crt=$SIM_KUBECONFIG.client.crt form
	# PKCS#8's ENCRYPTED PRIVATE KEY, and OpenSSL's Proc-Type: 4,ENCRYPTED
	openssl pkcs8 -topk8 -in "$key" -passout pass:secret -out "$T/pkcs8.key"
	openssl pkey -in "$key" -traditional -aes256 -passout pass:secret -out "$T/legacy.key"
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$T/other.key" 2>/dev/null
	openssl genpkey -algorithm ED25519 -out "$T/ed25519.key"
	openssl x509 -in "$crt" -outform DER -out "$T/der.crt"
	# PEM headers on a certificate: Go reads its bytes, OpenSSL would decrypt them
	headers() { sed '1a Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-256-CBC,FCEF090EC0C94876F954C9D364EF092B\n' "$1"; }
	headers "$crt" >"$T/headers.crt"
	headers "$SIM_CACERT" >"$T/headers-ca.crt"
	# discovery from the cache: get's five tries of it would each say so
	run_kinf api-resources --kubeconfig "$SIM_KUBECONFIG.certfile" -o name
	assert_status 0
	simctl DELETE /requests >/dev/null
	pair() { sed "s#client-certificate: .*#client-certificate: $1#; s#client-key: .*#client-key: $2#" \
		"$SIM_KUBECONFIG.certfile" >"$T/kc"; }
	for form in "$crt $T/pkcs8.key:tls: failed to parse private key" \
		    "$crt $T/legacy.key:tls: failed to parse private key" \
		    "$crt $T/other.key:tls: private key does not match public key" \
		    "$crt $T/ed25519.key:tls: private key type does not match public key type" \
		    "$T/der.crt $key:tls: failed to find any PEM data in certificate input"; do
		pair ${form%%:*}
		run_kinf get pods --kubeconfig "$T/kc"
		assert_one_line_error "cannot use the client certificate for server '$SIM_API': ${form#*:} (user 'kube-sim-user' (client certificate))"
	done
	# given as data, the pair is Go's static one: refused as the client is
	# made, so a watch ends at once, and not at the first request it retries
	sed "s#client-key-data: .*#client-key-data: $(base64 -w0 "$T/ed25519.key")#" \
		"$SIM_KUBECONFIG.certdata" >"$T/kc"
	run_kinf watch pods --kubeconfig "$T/kc" --timeout 30s
	assert_one_line_error "cannot use the client certificate for server '$SIM_API': tls: private key type does not match public key type (user 'kube-sim-user' (client certificate))"
	[ "$(request_users)" = "" ]
	# a certificate with headers serves, as it serves kubectl
	pair "$T/headers.crt" "$key"
	run_kinf get pods --kubeconfig "$T/kc" -o name
	assert_status 0
	# a CA of such certificates alone holds none for Go
	sed "s#certificate-authority: .*#certificate-authority: $T/headers-ca.crt#" "$SIM_KUBECONFIG" >"$T/kc"
	run_kinf get pods --kubeconfig "$T/kc"
	assert_one_line_error "cannot use the CA for server '$SIM_API': unable to load root certificates: no certificate in it that Go reads (CA '$T/headers-ca.crt')"
}

@test "client certificate and key from -data fields, never written to disk" {
	run_kinf api-resources --kubeconfig "$SIM_KUBECONFIG.certdata" -o name
	assert_status 0
	assert_output_contains pods
	[ "$(request_users)" = kinf-admin ]
	command -v strace >/dev/null || skip "no strace to watch for written files"
	# (LeakSanitizer cannot run under ptrace, in a SANITIZE build.)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -e trace=open,openat,creat -o "$T/trace" \
		"$KINF" api-resources --kubeconfig "$SIM_KUBECONFIG.certdata" -o name >/dev/null
	grep -q "certdata" "$T/trace"	# the trace sees kinf's opens...
	# ... and not a single file opened for writing but kubectl's discovery
	# cache (resource lists, no credential).
	run bash -c "grep -E 'O_WRONLY|O_RDWR|O_CREAT|creat\(' '$T/trace' | grep -vF '\"$HOME/.kube/cache/discovery/'"
	[ "$status" -eq 1 ]
}

@test "paths relative to the kubeconfig's directory" {
	mkdir -p "$T/kube/pki" "$T/elsewhere"
	cp "$SIM_CACERT" "$T/kube/pki/ca.crt"
	write_kubeconfig "$T/kube/config" "    token: $SIM_TOKEN" "    certificate-authority: pki/ca.crt"
	cd "$T/elsewhere"
	run_kinf api-resources --kubeconfig ../kube/config -o name
	assert_status 0
	assert_output_contains pods
}

@test "~/.kube/config when neither --kubeconfig nor KUBECONFIG is given" {
	mkdir -p "$HOME/.kube"
	cp "$SIM_KUBECONFIG" "$HOME/.kube/config"
	run_kinf api-resources -o name
	assert_status 0
	assert_output_contains pods
}

@test "KUBECONFIG merges three files: first to define a name wins, first current-context wins" {
	# a: the good user, no current-context.  b: the current context, a
	# user of the same name with a bad token (a's wins).  c: the cluster,
	# and a current-context that must lose to b's.
	cat >"$T/a" <<-YAML
	users:
	- name: tester
	  user: {token: $SIM_TOKEN}
	YAML
	cat >"$T/b" <<-YAML
	current-context: merged
	users:
	- name: tester
	  user: {token: not-the-token}
	contexts:
	- name: merged
	  context: {cluster: sim, user: tester}
	- name: broken
	  context: {cluster: nowhere, user: tester}
	YAML
	cat >"$T/c" <<-YAML
	current-context: broken
	clusters:
	- name: sim
	  cluster: {server: "$SIM_API", certificate-authority: "$SIM_CACERT"}
	- name: nowhere
	  cluster: {server: "https://127.0.0.1:1"}
	YAML
	KUBECONFIG="$T/a:$T/missing:$T/b:$T/c" run_kinf api-resources -o name
	assert_status 0
	assert_output_contains pods
	[ "$(request_users)" = admin ]
}

@test "--context switches cluster and user" {
	cat >"$T/two" <<-YAML
	current-context: broken
	clusters:
	- name: sim
	  cluster: {server: "$SIM_API", certificate-authority: "$SIM_CACERT"}
	- name: nowhere
	  cluster: {server: "https://127.0.0.1:1", certificate-authority: "$SIM_CACERT"}
	users:
	- name: admin
	  user: {token: $SIM_TOKEN}
	contexts:
	- name: good
	  context: {cluster: sim, user: admin}
	- name: broken
	  context: {cluster: nowhere, user: admin}
	YAML
	run_kinf api-resources --kubeconfig "$T/two" -o name
	assert_one_line_error "cannot connect to server 'https://127.0.0.1:1'"
	run_kinf api-resources --kubeconfig "$T/two" --context good -o name
	assert_status 0
	assert_output_contains pods
	run_kinf api-resources --kubeconfig "$T/two" --context broken --cluster sim -o name
	assert_status 0
}

@test "in-cluster: the service account's token, CA and namespace" {
	local sa=$T/sa hostport=${SIM_API#https://}
	mkdir -p "$sa"
	printf '%s\n' "$SIM_TOKEN" >"$sa/token"
	cp "$SIM_CACERT" "$sa/ca.crt"
	echo team-a >"$sa/namespace"
	KINF_SERVICEACCOUNT_DIR=$sa KUBERNETES_SERVICE_HOST=${hostport%:*} \
		KUBERNETES_SERVICE_PORT=${hostport##*:} run_kinf api-resources -o name
	assert_status 0
	assert_output_contains pods
	[ "$(request_users)" = admin ]
	# a flag naming a context, cluster or user turns in-cluster off, as in kubectl
	KINF_SERVICEACCOUNT_DIR=$sa KUBERNETES_SERVICE_HOST=${hostport%:*} \
		KUBERNETES_SERVICE_PORT=${hostport##*:} run_kinf api-resources -o name --user jane
	assert_one_line_error "the in-cluster service account is not used with --context, --cluster or --user (nor by kubectl)"
	# kubectl takes the account with --as and drops --as; kinf says so, sending nothing
	simctl DELETE /requests >/dev/null
	KINF_SERVICEACCOUNT_DIR=$sa KUBERNETES_SERVICE_HOST=${hostport%:*} \
		KUBERNETES_SERVICE_PORT=${hostport##*:} run_kinf api-resources -o name --as jane
	assert_one_line_error "kinf does not impersonate as the in-cluster service account, where kubectl drops --as"
	simctl GET /requests | jq -e 'length == 0'
}

@test "in-cluster is not used when a kubeconfig exists" {
	local sa=$T/sa
	mkdir -p "$sa"
	echo wrong >"$sa/token"
	KINF_SERVICEACCOUNT_DIR=$sa KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=1 \
		KUBECONFIG=$SIM_KUBECONFIG run_kinf api-resources -o name
	assert_status 0
}

@test "tls-server-name verifies the certificate for that name" {
	write_kubeconfig "$T/tls" "    token: $SIM_TOKEN" \
		"$(printf '    certificate-authority: %s\n    tls-server-name: localhost' "$SIM_CACERT")"
	run_kinf api-resources --kubeconfig "$T/tls" -o name
	assert_status 0
	assert_output_contains pods
}

@test "insecure-skip-tls-verify connects without a CA" {
	write_kubeconfig "$T/insecure" "    token: $SIM_TOKEN" "    insecure-skip-tls-verify: true"
	run_kinf api-resources --kubeconfig "$T/insecure" -o name
	assert_status 0
}

@test "a server without a scheme is http, and an http server gets no credential or TLS setting, as from kubectl" {
	cp "$SIM_CACERT" "$T/ca.crt"
	sim_stop
	sim_start --pods 2 --plain-http
	# A CA, a tls-server-name and a token: clientcmd picks the scheme before
	# it reads any of them, and reads none of them for an http server.
	SIM_API=${SIM_API#http://} write_kubeconfig "$T/schemeless" "    token: $SIM_TOKEN" \
		"$(printf '    certificate-authority: %s\n    tls-server-name: localhost' "$T/ca.crt")"
	run_kinf get pods --kubeconfig "$T/schemeless" -v
	[ "$status" -eq 1 ]
	[[ $stderr == *"GET http://${SIM_API#http://}/api?timeout=32s 401 Unauthorized in "* ]]
	[[ ${stderr_lines[-1]} == *"401 Unauthorized: the server rejected the credentials of user 'tester' (no credentials: the server is not https, and client-go sends none over http)" ]]
	simctl GET /requests | jq -e 'length > 0 and all(.[]; .headers.Authorization == null)'
	# http:// written out: the same, a password and a client certificate too.
	write_kubeconfig "$T/http" "$(printf '    username: u\n    password: SECRET')"
	run_kinf get pods --kubeconfig "$T/http"
	discovery_tries
	assert_one_line_error "401 Unauthorized" "(no credentials: the server is not https"
	[[ $stderr != *SECRET* ]]
	simctl GET /requests | jq -e 'all(.[]; .headers.Authorization == null)'
}

@test "a server URL's query and fragment are not sent, as client-go builds its requests" {
	sed "s#server: .*#server: $SIM_API/?x=1\#f#" "$SIM_KUBECONFIG" >"$T/query"
	grep -q "server: $SIM_API/?x=1#f" "$T/query"
	run_kinf get pods --kubeconfig "$T/query"
	assert_status 0
	simctl GET /requests | jq -e 'length > 0 and all(.[]; (.query | has("x") | not) and (.path | startswith("/api")))'
	# A '#' after a longer path is part of it to clientcmd (url.ParseRequestURI).
	sed "s#server: .*#server: $SIM_API/\#f?x=1#" "$SIM_KUBECONFIG" >"$T/hash"
	run kubectl --kubeconfig "$T/hash" get pods
	[ "$status" -ne 0 ]
	simctl DELETE /requests >/dev/null
	run_kinf get pods --kubeconfig "$T/hash"
	assert_status 1
	simctl GET /requests | jq -e 'length > 0 and all(.[]; (.query | has("x") | not) and (.path | startswith("/%23f/api")))'
}

# ---- errors: one line, exit status 1 --------------------------------------

@test "error: --kubeconfig names a missing file" {
	run_kinf api-resources --kubeconfig "$T/nope"
	assert_one_line_error "cannot read kubeconfig '$T/nope': No such file or directory"
}

@test "error: no kubeconfig anywhere and not in a pod" {
	KUBECONFIG="$T/x:$T/y" run_kinf api-resources
	assert_one_line_error "no kubeconfig: KUBECONFIG='$T/x:$T/y' names no existing file" \
		"KUBERNETES_SERVICE_HOST is unset"
	run_kinf api-resources
	assert_one_line_error "no kubeconfig: '$HOME/.kube/config' does not exist"
}

@test "error: malformed YAML names the file and the line" {
	printf 'clusters:\n- name: a\n  cluster:\n    server: https://a\n   oops: x\n' >"$T/bad"
	run_kinf api-resources --kubeconfig "$T/bad"
	assert_one_line_error "malformed kubeconfig '$T/bad' line 5: did not find expected key"
	printf 'clusters: 7\n' >"$T/shape"
	run_kinf api-resources --kubeconfig "$T/shape"
	assert_one_line_error "kubeconfig '$T/shape' line 1: 'clusters' must be a list"
}

@test "error: a kubeconfig of another kind or apiVersion, which kubectl refuses too; either may be left out" {
	local head key value
	grep -v '^kind:\|^apiVersion:' "$SIM_KUBECONFIG" >"$T/untyped"
	for head in 'apiVersion: v2' 'kind: Pod' 'apiVersion: v1beta1'; do
		key=${head%%:*} value=${head#*: }
		{ echo "$head"; cat "$T/untyped"; } >"$T/other"
		run kubectl --kubeconfig "$T/other" get pods
		[ "$status" -ne 0 ]
		run_kinf get pods --kubeconfig "$T/other"
		assert_one_line_error "kubeconfig '$T/other' line 1: $key '$value': a kubeconfig is kind Config of apiVersion v1, as client-go reads it"
	done
	run_kinf get pods --kubeconfig "$T/untyped"
	assert_status 0
}

@test "error: unknown context lists the known ones" {
	run_kinf api-resources --kubeconfig "$SIM_KUBECONFIG" --context prod
	assert_one_line_error "context 'prod' not found in kubeconfig '$SIM_KUBECONFIG' (contexts: 'kube-sim')"
}

@test "error: a context whose cluster is missing" {
	cat >"$T/dangling" <<-YAML
	current-context: c
	contexts: [{name: c, context: {cluster: gone}}]
	YAML
	run_kinf api-resources --kubeconfig "$T/dangling"
	assert_one_line_error "cluster 'gone' of context 'c' not found in kubeconfig '$T/dangling'"
}

@test "a context's user the kubeconfig does not define: no credentials, as client-go" {
	write_kubeconfig "$T/nouser" "    token: $SIM_TOKEN"
	sed -i 's/^    user: tester/    user: gone/' "$T/nouser"
	# clientcmd gives an empty user (only --user's must be there): the
	# flags' credentials go, or none
	kubectl --kubeconfig "$T/nouser" --token "$SIM_TOKEN" get ns default -o name
	run_kinf get ns default -o name --kubeconfig "$T/nouser" --token "$SIM_TOKEN"
	assert_status 0
	[ "$output" = namespace/default ]
	run_kinf api-resources --kubeconfig "$T/nouser"
	assert_one_line_error "discover the server's APIs: 401 Unauthorized: the server rejected" \
		"the credentials of user 'gone' (no credentials: the kubeconfig does not define the user)"
	run_kinf api-resources --kubeconfig "$T/nouser" --user gone
	assert_one_line_error "user 'gone' (--user) not found in kubeconfig '$T/nouser'"
}

@test "--cluster and --user with no context: clientcmd needs none" {
	write_kubeconfig "$T/noctx" "    token: $SIM_TOKEN"
	sed -i '/^current-context:/d' "$T/noctx"
	kubectl --kubeconfig "$T/noctx" --cluster sim --user tester get ns default -o name
	run_kinf get ns default -o name --kubeconfig "$T/noctx" --cluster sim --user tester
	assert_status 0
	[ "$output" = namespace/default ]
	run_kinf get ns default -o name --kubeconfig "$T/noctx" --user tester
	assert_one_line_error "kubeconfig '$T/noctx' has no current-context"
}

@test "a plain yes or 0123 is no string to client-go: refused where it must be one" {
	local ns
	for ns in no "'no'" 0123 '"0123"' 0x1F 1.2.3 y off .5; do
		write_kubeconfig "$T/ns" "    token: $SIM_TOKEN"
		sed -i "/^    user: tester/a\    namespace: $ns" "$T/ns"
		run kubectl --kubeconfig "$T/ns" get pods -o name
		local want=$status
		run_kinf get pods -o name --kubeconfig "$T/ns"
		[ "$status" -eq "$want" ] || { echo "# namespace: $ns: kubectl $want, kinf $status" >&2; false; }
		if [ "$want" -ne 0 ]; then
			assert_one_line_error "line 17: 'namespace' must be a string, and $ns unquoted is"
		fi
	done
}

@test "a user no context uses is checked only as YAML, as clientcmd checks it" {
	write_kubeconfig "$T/unused" "    token: $SIM_TOKEN
- name: unused
  user:
    exec: {command: x, interactiveMode: Sometimes, env: [{value: v}],
           apiVersion: client.authentication.k8s.io/v1}"
	kubectl --kubeconfig "$T/unused" get ns default -o name
	run_kinf get ns default -o name --kubeconfig "$T/unused"
	assert_status 0
	run_kinf get ns default -o name --kubeconfig "$T/unused" --user unused
	assert_one_line_error "exec plugin of user 'unused' has an env entry with no name"
}

@test "error: unreachable server" {
	write_kubeconfig "$T/down" "    token: $SIM_TOKEN" "    insecure-skip-tls-verify: true"
	sed -i "s#server: .*#server: https://127.0.0.1:1#" "$T/down"
	run_kinf api-resources --kubeconfig "$T/down"
	assert_one_line_error "cannot connect to server 'https://127.0.0.1:1': Connection refused"
}

@test "error: a CA that did not sign the server's certificate" {
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/other.key" -out "$T/other.crt" \
		-subj /CN=other-ca -days 1 2>/dev/null
	write_kubeconfig "$T/wrongca" "    token: $SIM_TOKEN" "    certificate-authority: $T/other.crt"
	run_kinf api-resources --kubeconfig "$T/wrongca"
	assert_one_line_error "cannot verify the certificate of server '$SIM_API'" \
		"(CA '$T/other.crt')"
}

@test "error: the server's certificate does not name the host" {
	write_kubeconfig "$T/mismatch" "    token: $SIM_TOKEN" \
		"$(printf '    certificate-authority: %s\n    tls-server-name: api.example.com' "$SIM_CACERT")"
	run_kinf api-resources --kubeconfig "$T/mismatch"
	assert_one_line_error "cannot verify the certificate of server '$SIM_API'" \
		"'api.example.com'" "tls-server-name"
}

@test "error: a missing CA file is named before connecting" {
	write_kubeconfig "$T/noca" "    token: $SIM_TOKEN" "    certificate-authority: ca/missing.crt"
	run_kinf api-resources --kubeconfig "$T/noca"
	assert_one_line_error "cannot read certificate-authority '$T/ca/missing.crt' of cluster 'sim'"
}

@test "error: auth-provider is refused by name" {
	write_kubeconfig "$T/gcp" "$(printf '    auth-provider:\n      name: gcp\n      config: {access-token: SECRET}')"
	run_kinf api-resources --kubeconfig "$T/gcp"
	assert_one_line_error "user 'tester' uses auth-provider 'gcp', which kinf does not support" \
		"gke-gcloud-auth-plugin"
	[[ $stderr != *SECRET* ]]
}

# ---- proxy-url: through an HTTP CONNECT proxy ------------------------------

# proxy_start — the CONNECT proxy fixture on an ephemeral port: PROXY_PORT,
# PROXY_PID, and its log of request lines in $T/proxy.log.  It ends with
# the test (it watches its parent); proxy_stop ends it sooner.
proxy_start() {
	"$BATS_TEST_DIRNAME/fixtures/connect-proxy" "$T/proxy.port" "$T/proxy.log" \
		>"$T/proxy.err" 2>&1 3>&- &
	PROXY_PID=$!
	wait_until 5 test -s "$T/proxy.port"
	PROXY_PORT=$(cat "$T/proxy.port")
}

proxy_stop() { kill "$PROXY_PID" 2>/dev/null || true; }

@test "proxy-url: requests tunnel through the proxy, TLS still verified" {
	proxy_start
	write_kubeconfig "$T/proxied" "    token: $SIM_TOKEN" \
		"$(printf '    certificate-authority: %s\n    proxy-url: http://127.0.0.1:%s' \
			"$SIM_CACERT" "$PROXY_PORT")"
	run_kinf api-resources --kubeconfig "$T/proxied" -o name
	assert_status 0
	assert_output_contains pods
	run_kinf get pods --kubeconfig "$T/proxied"
	assert_status 0
	[ "${lines[0]%% *}" = NAME ]
	[ "$(request_users)" = admin ]
	# Every connection was a tunnel to the simulator, none went around.
	grep -qx "CONNECT ${SIM_API#https://} HTTP/1.1" "$T/proxy.log"
	run grep -vx "CONNECT ${SIM_API#https://} HTTP/1.1" "$T/proxy.log"
	[ "$status" -eq 1 ]
	# The tunnel carries TLS end to end: the wrong CA still fails.
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/other.key" -out "$T/other.crt" \
		-subj /CN=other-ca -days 1 2>/dev/null
	sed -i "s#certificate-authority: .*#certificate-authority: $T/other.crt#" "$T/proxied"
	run_kinf api-resources --kubeconfig "$T/proxied"
	assert_one_line_error "cannot verify the certificate of server '$SIM_API'" \
		"(CA '$T/other.crt')"
	proxy_stop
}

@test "proxy-url wins over HTTPS_PROXY and NO_PROXY, as in kubectl" {
	proxy_start
	write_kubeconfig "$T/proxied" "    token: $SIM_TOKEN" \
		"$(printf '    certificate-authority: %s\n    proxy-url: http://127.0.0.1:%s' \
			"$SIM_CACERT" "$PROXY_PORT")"
	HTTPS_PROXY=http://127.0.0.1:1 https_proxy=http://127.0.0.1:1 \
		NO_PROXY='*' no_proxy='*' run_kinf api-resources --kubeconfig "$T/proxied" -o name
	assert_status 0
	assert_output_contains pods
	grep -qx "CONNECT ${SIM_API#https://} HTTP/1.1" "$T/proxy.log"
	proxy_stop
}

@test "proxy-url socks5: the proxy resolves the server's name, as Go's socks5 dialer has it" {
	proxy_start
	local api=${SIM_API/127.0.0.1/localhost}
	write_kubeconfig "$T/socks" "    token: $SIM_TOKEN" \
		"$(printf '    certificate-authority: %s\n    proxy-url: socks5://127.0.0.1:%s' \
			"$SIM_CACERT" "$PROXY_PORT")"
	sed -i "s#server: .*#server: $api#" "$T/socks"
	run_kinf get pods --kubeconfig "$T/socks"
	assert_status 0
	[ "${lines[0]%% *}" = NAME ]
	# libcurl's socks5 would have resolved localhost itself.
	grep -qx "SOCKS5 CONNECT name ${api#https://}" "$T/proxy.log"
	run grep -vx "SOCKS5 CONNECT name ${api#https://}" "$T/proxy.log"
	[ "$status" -eq 1 ]
	proxy_stop
}

@test "error: a proxy-url client-go refuses, its scheme or its form, and never quoted" {
	local url why
	for url in ftp://u:SECRET@127.0.0.1:1 socks5h://127.0.0.1:1 proxy.local:3128 \
		127.0.0.1:3128 'http://SECRET%zz@127.0.0.1:1'; do
		write_kubeconfig "$T/bad" "    token: $SIM_TOKEN" \
			"$(printf '    certificate-authority: %s\n    proxy-url: %s' "$SIM_CACERT" "$url")"
		run_kinf get pods --kubeconfig "$T/bad"
		case $url in
		ftp*) why="its scheme 'ftp' is not http, https or socks5" ;;
		socks5h*) why="its scheme 'socks5h' is not http, https or socks5" ;;
		proxy.local*) why="its scheme 'proxy.local' is not http, https or socks5" ;;
		*) why="no URL Go can parse" ;;
		esac
		assert_one_line_error "cluster 'sim' has a proxy-url client-go refuses: $why (kubeconfig '$T/bad' line"
		[[ $stderr != *SECRET* ]]
	done
}

@test "error: proxy-url names a closed port" {
	write_kubeconfig "$T/noproxy" "    token: $SIM_TOKEN" \
		"$(printf '    certificate-authority: %s\n    proxy-url: http://127.0.0.1:1' "$SIM_CACERT")"
	run_kinf api-resources --kubeconfig "$T/noproxy"
	assert_one_line_error "cannot connect to proxy 'http://127.0.0.1:1' for server '$SIM_API'" \
		"Connection refused"
	# A user and password in proxy-url stay out of the message.
	sed -i "s#proxy-url: .*#proxy-url: http://someone:SECRET@127.0.0.1:1#" "$T/noproxy"
	run_kinf get pods --kubeconfig "$T/noproxy"
	discovery_tries
	assert_one_line_error "cannot connect to proxy 'http://127.0.0.1:1' for server '$SIM_API'"
	[[ $stderr != *SECRET* ]]
}

@test "HTTPS_PROXY is not used for a loopback server, as in kubectl" {
	proxy_start
	write_kubeconfig "$T/env" "    token: $SIM_TOKEN" \
		"$(printf '    certificate-authority: %s' "$SIM_CACERT")"
	# A working proxy in the environment, which would tunnel the request...
	HTTPS_PROXY=http://127.0.0.1:$PROXY_PORT https_proxy=http://127.0.0.1:$PROXY_PORT \
		run_kinf api-resources --kubeconfig "$T/env" -o name
	assert_status 0
	assert_output_contains pods
	# ...is passed by: 127.0.0.1 is reached directly.
	[ ! -s "$T/proxy.log" ]
	proxy_stop
}

@test "kubectl's --server, --token, --certificate-authority and the like, over the kubeconfig or with none" {
	local dir=${SIM_CACERT%/*} base=${SIM_KUBECONFIG##*/} hostport=${SIM_API#https://}
	# No kubeconfig at all (HOME has none): the flags are the whole config.
	run_kinf api-resources -o name --server "$SIM_API" --token "$SIM_TOKEN" \
		--certificate-authority "$SIM_CACERT"
	assert_status 0
	[ "$(request_users)" = admin ]
	# A refused token: no kubeconfig user names it, and it is no anonymous one.
	run_kinf api-resources -o name --server "$SIM_API" --token "wrong-$SIM_TOKEN" \
		--certificate-authority "$SIM_CACERT"
	assert_one_line_error "the server rejected the credentials of an unnamed user (bearer token)"
	run_kinf api-resources -o name -s "$SIM_API" --insecure-skip-tls-verify \
		--client-certificate "$dir/$base.client.crt" --client-key "$dir/$base.client.key"
	assert_status 0
	# The TUI names no context then, and no in-cluster one.
	TMUX_SOCK=kinf-kc-$$-$BATS_TEST_NUMBER
	tui_start pods --server "$SIM_API" --token "$SIM_TOKEN" --certificate-authority "$SIM_CACERT"
	wait_screen "server $SIM_API "
	screen | head -1 | grep -qF " kinf  context (none)  server $SIM_API  namespace default" ||
		{ show_screen; false; }
	keys q
	wait_screen 'kinf exited 0'
	simctl DELETE /requests >/dev/null
	# Over a kubeconfig whose server is wrong and whose CA does not sign the
	# simulator's certificate: --server and --insecure-skip-tls-verify win,
	# and --token is sent over the user's own.
	sed -e "s#server: .*#server: https://127.0.0.1:1#" \
	    -e "s#certificate-authority: .*#certificate-authority: $dir/$base.client.crt#" \
		"$SIM_KUBECONFIG" >"$T/kc"
	run_kinf api-resources -o name --kubeconfig "$T/kc"
	[ "$status" -eq 1 ]
	run_kinf api-resources -o name --kubeconfig "$T/kc" --server "$SIM_API" \
		--insecure-skip-tls-verify --token "$SIM_VIEWER_TOKEN"
	assert_status 0
	[ "$(request_users)" = system:serviceaccount:default:viewer ]
	# --server drops the cluster's tls-server-name unless the flag gives one.
	sed -e "s#certificate-authority: .*#&\n    tls-server-name: nosuch.example#" "$SIM_KUBECONFIG" >"$T/kc2"
	run_kinf api-resources -o name --kubeconfig "$T/kc2"
	[ "$status" -eq 1 ]
	run_kinf api-resources -o name --kubeconfig "$T/kc2" --server "$SIM_API"
	assert_status 0
	# A username beside the user's token is two ways to prove who it is.
	run_kinf api-resources --kubeconfig "$SIM_KUBECONFIG" --username jane --password x
	assert_one_line_error "has both a token and a username/password"
	# In a pod, --token stands for the service account's, as in kubectl.
	local sa=$T/sa
	mkdir -p "$sa"
	printf '%s\n' "$SIM_VIEWER_TOKEN" >"$sa/token"
	simctl DELETE /requests >/dev/null
	KINF_SERVICEACCOUNT_DIR=$sa KUBERNETES_SERVICE_HOST=${hostport%:*} \
		KUBERNETES_SERVICE_PORT=${hostport##*:} run_kinf api-resources -o name \
		--token "$SIM_TOKEN" --certificate-authority "$SIM_CACERT"
	assert_status 0
	[ "$(request_users)" = admin ]
}

@test "a merge key (<<) and a key given twice read as client-go's yaml.v2 reads them" {
	local users=(
		"{<<: *admin}"				# an anchor's mapping merged
		"{token: bogus, token: $SIM_TOKEN}"	# the last of a key twice
		"{token: $SIM_TOKEN, <<: {token: bogus}}"	# a merge after a key sets it
		"{<<: {token: bogus}, token: $SIM_TOKEN}"	# a key after a merge wins
		"{<<: [{token: $SIM_TOKEN}, {token: bogus}]}"	# the first of a list wins
		"{<<: [*admin, 1]}"			# a list of mappings, or no merge
		"{'<<': {token: bogus}, token: $SIM_TOKEN}"	# a quoted << is a key
	) u want
	for u in "${users[@]}"; do
		write_kubeconfig "$T/merge" "    token: $SIM_TOKEN"
		sed -i 's/^  user:$/  user: \&admin/' "$T/merge"
		printf -- '- name: merged\n  user: %s\n' "$u" >"$T/user"
		sed -i -e "/^contexts:/e cat $T/user" -e 's/^    user: tester/    user: merged/' "$T/merge"
		run kubectl --kubeconfig "$T/merge" get ns default -o name
		want=$status
		run_kinf get ns default -o name --kubeconfig "$T/merge"
		[ "$status" -eq "$want" ] || { echo "# user: $u: kubectl $want, kinf $status" >&2; false; }
	done
	[ "$want" -eq 0 ]
	# the merge's own error, in one line
	sed -i 's/^  user: {.*/  user: {<<: [1]}/' "$T/merge"
	run_kinf get ns default -o name --kubeconfig "$T/merge"
	assert_one_line_error "line 13: a merge (<<) takes a mapping or a list of mappings"
}
