#!/usr/bin/env bats
# The simulated kube-apiserver (tests/apiserver/kube-sim) itself: kubectl
# works against it as against a real cluster, and lists, discovery and
# authentication look on the wire as a v1.28 server's do.

load sim_helper

teardown() {
	sim_stop
}

kc() { kubectl --kubeconfig "$SIM_KUBECONFIG" "$@"; }

# gone PID — the process has exited: no such process, or a zombie not yet
# waited for (kill -0 still reaches a zombie).
gone() { ! kill -0 "$1" 2>/dev/null || [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ]; }

# gone_within SECONDS PID
gone_within() {
	local i
	for ((i = 0; i < $1 * 10; i++)); do
		gone "$2" && return 0
		sleep 0.1
	done
	gone "$2"
}

# http_code PATH [curl args...]: the status, with the body in $BATS_TEST_TMPDIR/body
http_code() {
	local path=$1
	shift
	simcurl -o "$BATS_TEST_TMPDIR/body" -w '%{http_code}' "$@" "$path"
}

body() { cat "$BATS_TEST_TMPDIR/body"; }

@test "kubectl lists pods in all namespaces, deployments and the CRD by its short name" {
	sim_start --pods 12 --namespaces 2 --deployments 4
	run kc get pods -A --no-headers
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 12 ]
	[[ "$output" == *"ns-1 "*"pod-1 "* ]]
	run kc get deploy -A -o name
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 4 ]
	[[ "$output" == *"deployment.apps/web"* ]]
	run kc get ct
	[ "$status" -eq 0 ]
	[[ "$output" == *"my-new-cron-object"* ]]
	run kc get crontabs.stable.example.com -A --no-headers
	[ "${#lines[@]}" -eq 3 ]
	run kc get no -o name
	[ "$output" = "$(printf 'node/node-1\nnode/node-2\nnode/node-3')" ]
	run kc get ns -o name
	[[ "$output" == *"namespace/default"* && "$output" == *"namespace/kube-system"* && "$output" == *"namespace/ns-2"* ]]
	run kc get cm,secrets,ev -n default -o name
	[[ "$output" == *"configmap/kube-root-ca.crt"* && "$output" == *"secret/app-secret"* && "$output" == *"event/pod-0."* ]]
}

@test "kubectl api-resources sees short names, groups and scopes as discovery says" {
	sim_start --pods 0
	run kc api-resources --no-headers
	[ "$status" -eq 0 ]
	[[ "$output" == *"crontabs"*"ct"*"stable.example.com/v1"*"true"*"CronTab"* ]]
	[[ "$output" == *"deployments"*"deploy"*"apps/v1"*"true"*"Deployment"* ]]
	run kc api-resources --namespaced=false -o name
	[ "$output" = "$(printf 'namespaces\nnodes')" ]
	run simcurl /version
	[ "$(jq -r .gitVersion <<<"$output")" = v1.28.15 ]
	run simcurl /api/v1
	jq -e '.kind == "APIResourceList" and (.resources[] | select(.name == "pods") | .shortNames == ["po"] and .singularName == "pod" and .namespaced and (.verbs | index("watch")))' <<<"$output"
	run simcurl /apis
	jq -e '[.groups[].name] == ["apps", "stable.example.com"]' <<<"$output"
	run simcurl /apis/stable.example.com/v1
	jq -e '.resources[0] | .kind == "CronTab" and .shortNames == ["ct"]' <<<"$output"
	[ "$(http_code /openapi/v2)" = 404 ]
}

@test "a single object comes with kind and apiVersion; a missing one is a NotFound Status" {
	sim_start --pods 3
	run simcurl /api/v1/namespaces/default/pods/pod-1
	jq -e '.kind == "Pod" and .apiVersion == "v1" and .metadata.name == "pod-1" and
		(.metadata.managedFields | length) == 2 and .metadata.ownerReferences[0].kind == "ReplicaSet" and
		.spec.nodeName != null and .status.phase != null and (.status.containerStatuses | length) == 1' <<<"$output"
	[ "$(wc -c <<<"$output")" -gt 3000 ]
	[ "$(http_code /api/v1/namespaces/default/pods/nope)" = 404 ]
	jq -e '.kind == "Status" and .reason == "NotFound" and .message == "pods \"nope\" not found" and .code == 404' <(body)
	[ "$(http_code /apis/apps/v1/namespaces/default/deployments/web)" = 200 ]
	jq -e '.kind == "Deployment" and .apiVersion == "apps/v1" and .spec.replicas == 1' <(body)
	# A name is read %-decoded from the path, as the apiserver reads it.
	simctl POST /create '{"resource":"configmaps","object":{"metadata":{"name":"a b?"}}}' >/dev/null
	[ "$(http_code '/api/v1/namespaces/default/configmaps/a%20b%3F')" = 200 ]
	jq -e '.metadata.name == "a b?"' <(body)
}

@test "the viewer is forbidden everything but discovery" {
	sim_start --pods 2
	run kubectl --kubeconfig "$SIM_KUBECONFIG.viewer" get pods
	[ "$status" -ne 0 ]
	[[ "$output" == *'pods is forbidden: User "system:serviceaccount:default:viewer" cannot list resource "pods" in API group "" in the namespace "default"'* ]]
	run kubectl --kubeconfig "$SIM_KUBECONFIG.viewer" get deploy -A
	[[ "$output" == *'deployments.apps is forbidden'*'in API group "apps" at the cluster scope'* ]]
	run kubectl --kubeconfig "$SIM_KUBECONFIG.viewer" api-resources -o name
	[ "$status" -eq 0 ]
	[[ "$output" == *pods* ]]
	code=$(curl -sS -o "$BATS_TEST_TMPDIR/body" -w '%{http_code}' --cacert "$SIM_CACERT" \
		-H "Authorization: Bearer $SIM_VIEWER_TOKEN" "$SIM_API/api/v1/pods")
	[ "$code" = 403 ]
	jq -e '.reason == "Forbidden" and .code == 403' <(body)
}

@test "client certificates from files and from -data fields authenticate as kinf-admin" {
	sim_start --pods 2
	run kubectl --kubeconfig "$SIM_KUBECONFIG.certfile" get pods -o name
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'pod/pod-0\npod/pod-1')" ]
	run kubectl --kubeconfig "$SIM_KUBECONFIG.certdata" get pods -o name
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	grep -q 'client-certificate-data: ' "$SIM_KUBECONFIG.certdata"
	grep -q 'certificate-authority-data: ' "$SIM_KUBECONFIG.certdata"
	simctl GET '/requests?verb=list' | jq -e 'length == 2 and all(.[]; .user == "kinf-admin")'
	# curl with the certificate, no token
	run curl -sS --cacert "$SIM_CACERT" --cert "$SIM_KUBECONFIG.client.crt" --key "$SIM_KUBECONFIG.client.key" \
		"$SIM_API/api/v1/namespaces/default/pods"
	jq -e '.kind == "PodList"' <<<"$output"
}

@test "missing or bad credentials get 401 Unauthorized" {
	sim_start --pods 1
	code=$(curl -sS -o "$BATS_TEST_TMPDIR/body" -w '%{http_code}' --cacert "$SIM_CACERT" "$SIM_API/api/v1/pods")
	[ "$code" = 401 ]
	jq -e '.kind == "Status" and .reason == "Unauthorized" and .code == 401' <(body)
	code=$(curl -sS -o /dev/null -w '%{http_code}' --cacert "$SIM_CACERT" -H 'Authorization: Bearer nope' "$SIM_API/version")
	[ "$code" = 401 ]
	# and the server certificate is for 127.0.0.1 and localhost
	port=${SIM_API##*:}
	code=$(curl -sS -o /dev/null -w '%{http_code}' --cacert "$SIM_CACERT" -H "Authorization: Bearer $SIM_TOKEN" "https://localhost:$port/version")
	[ "$code" = 200 ]
}

@test "--plain-http serves HTTP and still checks tokens" {
	sim_start --pods 3 --plain-http
	[[ "$SIM_API" == http://127.0.0.1:* ]]
	[ -z "$SIM_CACERT" ]
	run simcurl /api/v1/pods
	jq -e '(.items | length) == 3' <<<"$output"
	code=$(curl -sS -o /dev/null -w '%{http_code}' "$SIM_API/api/v1/pods")
	[ "$code" = 401 ]
	# (kubectl keeps bearer tokens off plain HTTP, so it is refused too)
	run kc get pods -o name
	[ "$status" -ne 0 ]
}

@test "paging: limit, continue, remainingItemCount over one snapshot" {
	sim_start --pods 25 --namespaces 1
	run simcurl '/api/v1/pods?limit=10'
	jq -e '.kind == "PodList" and .apiVersion == "v1" and (.items | length) == 10 and .metadata.remainingItemCount == 15' <<<"$output"
	jq -e 'all(.items[]; has("kind") | not)' <<<"$output"
	rv=$(jq -r .metadata.resourceVersion <<<"$output")
	tok=$(jq -r .metadata.continue <<<"$output")
	names=$(jq -r '.items[] | .metadata.namespace + "/" + .metadata.name' <<<"$output")
	# the token is what a real server hands out: base64 of {"v":"meta.k8s.io/v1","rv":N,"start":...}
	[[ "$tok" == eyJ2Ijoi* ]]
	# objects change between the pages; the pages still show the first snapshot
	simctl POST /churn '{"resource":"pods","count":40,"seed":5}' >/dev/null
	run simcurl "/api/v1/pods?limit=10&continue=$tok"
	jq -e --arg rv "$rv" '(.items | length) == 10 and .metadata.remainingItemCount == 5 and .metadata.resourceVersion == $rv' <<<"$output"
	jq -e --arg rv "$rv" 'all(.items[]; (.metadata.resourceVersion | tonumber) <= ($rv | tonumber))' <<<"$output"
	names+=$'\n'$(jq -r '.items[] | .metadata.namespace + "/" + .metadata.name' <<<"$output")
	tok=$(jq -r .metadata.continue <<<"$output")
	run simcurl "/api/v1/pods?limit=10&continue=$tok"
	jq -e '(.items | length) == 5 and (.metadata | has("continue") | not) and (.metadata | has("remainingItemCount") | not)' <<<"$output"
	names+=$'\n'$(jq -r '.items[] | .metadata.namespace + "/" + .metadata.name' <<<"$output")
	# 25 distinct keys in key order, all of them pods that existed at $rv
	[ "$(sort -u <<<"$names" | wc -l)" -eq 25 ]
	[ "$(sort <<<"$names")" = "$names" ]
	for i in $(seq 0 24); do grep -q "/pod-$i\$" <<<"$names"; done
	# a namespaced list pages within its namespace
	run simcurl '/api/v1/namespaces/ns-1/pods?limit=5'
	jq -e '(.items | length) == 5 and all(.items[]; .metadata.namespace == "ns-1")' <<<"$output"
}

@test "an expired continue token, or a limited list at a compacted resourceVersion, is 410 Expired" {
	sim_start --pods 6
	run simcurl '/api/v1/pods?limit=2'
	tok=$(jq -r .metadata.continue <<<"$output")
	old=$(jq -r .metadata.resourceVersion <<<"$output")
	# Updates only: the list below must still hold all six pods.
	simctl POST /churn '{"resource":"pods","count":3,"mix":{"update":1}}' >/dev/null
	simctl POST /compact >/dev/null
	[ "$(http_code "/api/v1/pods?limit=2&continue=$tok")" = 410 ]
	jq -e '.kind == "Status" and .reason == "Expired" and .code == 410 and
		(.message | startswith("The provided continue parameter is too old")) and (.metadata.continue | length) > 0' <(body)
	[ "$(http_code "/api/v1/pods?limit=2&resourceVersion=$old")" = 410 ]
	jq -e '.reason == "Expired" and (.message | startswith("too old resource version: '"$old"'"))' <(body)
	[ "$(http_code "/api/v1/pods?resourceVersion=$old&resourceVersionMatch=Exact")" = 410 ]
	# not older than: served from the latest state
	[ "$(http_code "/api/v1/pods?resourceVersion=$old")" = 200 ]
	jq -e --arg old "$old" '(.metadata.resourceVersion | tonumber) > ($old | tonumber)' <(body)
	# resourceVersion=0 ignores the limit, as the watch cache does
	[ "$(http_code '/api/v1/pods?limit=2&resourceVersion=0')" = 200 ]
	jq -e '(.items | length) == 6 and (.metadata | has("continue") | not)' <(body)
	# a token that is not one is a bad request
	[ "$(http_code '/api/v1/pods?limit=2&continue=garbage')" = 400 ]
}

@test "restarted at a lower resourceVersion with the same credentials: too-large resourceVersions get the apiserver's answers" {
	export KUBESIM_CERTS_CACHE=''	# a CA of its own: whether one is kept is the question
	sim_start --pods 3 --start-rv 500
	simctl POST /churn '{"resource":"pods","count":10,"mix":{"update":1}}' >/dev/null
	run simcurl '/api/v1/pods?limit=2'
	high=$(jq -r .metadata.resourceVersion <<<"$output")
	tok=$(jq -r .metadata.continue <<<"$output")
	[ "$high" -ge 513 ]
	sim_oracle pods | jq -e 'all(.items[]; tonumber > 500)'
	api=$SIM_API token=$SIM_TOKEN
	cp "$SIM_CACERT" "$BATS_TEST_TMPDIR/old-ca.crt"
	# a connection open as the simulator stops: the server's end of it
	# stays (FIN_WAIT_2) on the port the restart asks for again
	local held
	exec {held}<>"/dev/tcp/127.0.0.1/${SIM_API##*:}"
	sim_restart --pods 3 --start-rv 100 --reuse-credentials --port "${SIM_API##*:}"
	exec {held}>&-
	grep -q 'reusing the tokens' "$SIM_DIR/log"
	[ "$SIM_API" = "$api" ]
	# the old token and the old CA still work
	code=$(curl -sS -o "$BATS_TEST_TMPDIR/body" -w '%{http_code}' --cacert "$BATS_TEST_TMPDIR/old-ca.crt" \
		-H "Authorization: Bearer $token" "$api/api/v1/pods")
	[ "$code" = 200 ]
	low=$(jq -r .metadata.resourceVersion <(body))
	[ "$low" -gt 100 ] && [ "$low" -lt 200 ]
	# no limit: the watch cache waits 3 s, then 504 with the cause and Retry-After: 1
	local t0 waited at_once
	t0=$(date +%s%N)
	[ "$(http_code "/api/v1/pods?resourceVersion=$high" -D "$BATS_TEST_TMPDIR/h")" = 504 ]
	waited=$(($(date +%s%N) - t0))
	[ "$waited" -ge 2000000000 ]
	grep -qi '^retry-after: 1' "$BATS_TEST_TMPDIR/h"
	jq -e --arg high "$high" --arg low "$low" '.kind == "Status" and .status == "Failure" and .reason == "Timeout" and .code == 504 and
		.message == "Timeout: Too large resource version: \($high), current: \($low)" and
		.details == {"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1}' <(body)
	[ "$(http_code "/api/v1/pods?resourceVersion=$high&resourceVersionMatch=NotOlderThan")" = 504 ]
	# NotOlderThan with a limit: etcd's answer, at once and without a retry:
	# in a fraction of the watch cache's wait, whatever the machine's load
	t0=$(date +%s%N)
	[ "$(http_code "/api/v1/pods?resourceVersion=$high&resourceVersionMatch=NotOlderThan&limit=2" -D "$BATS_TEST_TMPDIR/h")" = 504 ]
	at_once=$(($(date +%s%N) - t0))
	[ $((at_once * 3)) -lt "$waited" ]
	! grep -qi '^retry-after' "$BATS_TEST_TMPDIR/h" || false
	jq -e '.reason == "Timeout" and .details == {"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}]}' <(body)
	# a limit, Exact or a continue token: etcd is asked for a future revision; 1.28 passes its error on as a 500 without a reason
	[ "$(http_code "/api/v1/pods?resourceVersion=$high&limit=2")" = 500 ]
	jq -e '.kind == "Status" and .code == 500 and .message == "etcdserver: mvcc: required revision is a future revision" and (has("reason") | not)' <(body)
	[ "$(http_code "/api/v1/pods?resourceVersion=$high&resourceVersionMatch=Exact")" = 500 ]
	[ "$(http_code "/api/v1/pods?limit=2&continue=$tok")" = 500 ]
	# --future-rev-504: as Kubernetes 1.34+ answers those
	sim_restart --pods 3 --start-rv 100 --reuse-credentials --port "${SIM_API##*:}" --future-rev-504
	[ "$SIM_TOKEN" = "$token" ]
	[ "$(http_code "/api/v1/pods?resourceVersion=$high&limit=2" -D "$BATS_TEST_TMPDIR/h")" = 504 ]
	! grep -qi '^retry-after' "$BATS_TEST_TMPDIR/h" || false
	jq -e --arg high "$high" '.details.causes[0].reason == "ResourceVersionTooLarge" and (.message | startswith("Timeout: Too large resource version: " + $high + ", current: "))' <(body)
	[ "$(http_code "/api/v1/pods?limit=2&continue=$tok")" = 504 ]
	# without --reuse-credentials: new ones
	sim_restart --pods 1
	[ "$SIM_TOKEN" != "$token" ]
	! cmp -s "$SIM_CACERT" "$BATS_TEST_TMPDIR/old-ca.crt"
}

@test "label and field selectors on lists; bad selectors are 400 BadRequest" {
	sim_start --pods 30 --deployments 3
	count() { simcurl "/api/v1/pods?$1" | jq '.items | length'; }
	all=$(count '')
	web=$(count 'labelSelector=app%3Dweb')
	notweb=$(count 'labelSelector=app!%3Dweb')
	[ "$web" -gt 0 ] && [ $((web + notweb)) -eq "$all" ]
	[ "$(count 'labelSelector=app%3D%3Dweb')" -eq "$web" ]
	[ "$(count 'labelSelector=app%20in%20(web,api)')" -eq $((all - $(count 'labelSelector=app%3Dworker'))) ]
	[ "$(count 'labelSelector=app%20notin%20(web)')" -eq "$notweb" ]
	[ "$(count 'labelSelector=tier')" -eq "$all" ]
	[ "$(count 'labelSelector=!tier')" -eq 0 ]
	[ "$(count 'labelSelector=app%3Dweb,tier%3Dfrontend')" -eq \
		"$(simcurl '/api/v1/pods' | jq '[.items[] | select(.metadata.labels.app == "web" and .metadata.labels.tier == "frontend")] | length')" ]
	[ "$(count 'fieldSelector=metadata.name%3Dpod-7')" -eq 1 ]
	[ "$(count 'fieldSelector=metadata.namespace%3Ddefault')" -eq "$all" ]
	n1=$(count 'fieldSelector=spec.nodeName%3Dnode-1')
	[ "$n1" -eq "$(simcurl '/api/v1/pods' | jq '[.items[] | select(.spec.nodeName == "node-1")] | length')" ]
	[ $((n1 + $(count 'fieldSelector=spec.nodeName!%3Dnode-1'))) -eq "$all" ]
	[ "$(count 'fieldSelector=status.phase%3DRunning')" -eq \
		"$(simcurl '/api/v1/pods' | jq '[.items[] | select(.status.phase == "Running")] | length')" ]
	# a selector with a limit pages over the matching objects
	run simcurl '/api/v1/pods?labelSelector=app%3Dweb&limit=2'
	jq -e '(.items | length) == 2 and all(.items[]; .metadata.labels.app == "web") and (.metadata | has("remainingItemCount") | not)' <<<"$output"
	[ "$(http_code '/api/v1/pods?labelSelector=app%20in%20(web')" = 400 ]
	jq -e '.kind == "Status" and .reason == "BadRequest" and .code == 400' <(body)
	[ "$(http_code '/api/v1/pods?fieldSelector=spec.bogus%3Dx')" = 400 ]
	jq -e '.message == "field label not supported: spec.bogus"' <(body)
	run kc get pods -l 'app in (web)' --field-selector spec.nodeName=node-1 -o name
	[ "$status" -eq 0 ]
}

@test "the oracle matches a list, after churn through the control interface" {
	sim_start --pods 20 --namespaces 2
	simctl POST /churn '{"resource":"pods","count":60,"seed":2,"mix":{"add":1,"update":2,"delete":1}}' |
		jq -e '.done == 60 and .counts.add + .counts.update + .counts.delete == 60'
	list=$(simcurl /api/v1/pods)
	oracle=$(sim_oracle pods)
	[ "$(jq -S -c '[.items[] | {key: (.metadata.namespace + "/" + .metadata.name), value: .metadata.resourceVersion}] | from_entries' <<<"$list")" = \
		"$(jq -S -c .items <<<"$oracle")" ]
	[ "$(jq -r .metadata.resourceVersion <<<"$list")" = "$(jq -r .resourceVersion <<<"$oracle")" ]
	# cluster-scoped keys are bare names
	sim_oracle nodes | jq -e '.items | keys == ["node-1", "node-2", "node-3"]'
}

@test "control create, update and delete; each bumps the one global resourceVersion" {
	sim_start --pods 1
	rv0=$(sim_oracle pods | jq -r .resourceVersion)
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"fresh","namespace":"default","labels":{"app":"fresh"}}}}' |
		jq -e --arg rv0 "$rv0" '.kind == "Pod" and .metadata.labels.app == "fresh" and (.metadata.uid | length) == 36 and
			(.metadata.resourceVersion | tonumber) == ($rv0 | tonumber) + 1 and (.spec.containers | length) == 1'
	simctl POST /create '{"resource":"configmaps","object":{"metadata":{"name":"cm1","namespace":"default"},"data":{"a":"1"}}}' |
		jq -e --arg rv0 "$rv0" '.data.a == "1" and (.metadata.resourceVersion | tonumber) == ($rv0 | tonumber) + 2'
	simctl POST /update '{"resource":"pods","namespace":"default","name":"fresh","patch":{"metadata":{"labels":{"app":null,"color":"blue"}},"status":{"phase":"Failed"}}}' |
		jq -e '.metadata.labels.color == "blue" and (.metadata.labels | has("app") | not) and .status.phase == "Failed"'
	run kc get pods --field-selector status.phase=Failed -o name
	[ "$output" = pod/fresh ]
	simctl POST /delete '{"resource":"pods","namespace":"default","name":"fresh"}' | jq -e '.metadata.name == "fresh"'
	run simctl POST /delete '{"resource":"pods","namespace":"default","name":"fresh"}'
	[ "$status" -ne 0 ]
	sim_oracle pods | jq -e --arg rv0 "$rv0" '(.items | keys) == ["default/pod-0"] and (.resourceVersion | tonumber) == ($rv0 | tonumber) + 4'
	sim_oracle configmaps | jq -e '.items | has("default/cm1")'
	run simctl POST /create '{"resource":"configmaps","object":{"metadata":{"name":"cm1","namespace":"default"}}}'
	[ "$status" -ne 0 ]
}

@test "kubectl label and delete go through the API" {
	sim_start --pods 3
	run kc label pod pod-1 color=red
	[ "$status" -eq 0 ]
	run kc get pods -l color=red -o name
	[ "$output" = pod/pod-1 ]
	run kc delete pod pod-2 --wait=false
	[ "$status" -eq 0 ]
	sim_oracle pods | jq -e '.items | keys == ["default/pod-0", "default/pod-1"]'
}

@test "gzip when asked, for big lists" {
	sim_start --pods 100
	simcurl -D "$BATS_TEST_TMPDIR/headers" -o /dev/null --compressed '/api/v1/pods'
	grep -qi '^content-encoding: gzip' "$BATS_TEST_TMPDIR/headers"
	run simcurl --compressed '/api/v1/pods'
	jq -e '(.items | length) == 100' <<<"$output"
	simcurl -D "$BATS_TEST_TMPDIR/headers" -o /dev/null '/api/v1/pods'
	! grep -qi '^content-encoding' "$BATS_TEST_TMPDIR/headers"
}

@test "requests and stats are recorded" {
	sim_start --pods 2
	kc get pods >/dev/null
	simctl GET /requests | jq -e 'any(.[]; .verb == "list" and .path == "/api/v1/namespaces/default/pods" and .status == 200 and
		.user == "admin" and (.userAgent | startswith("kubectl/")) and .query.limit == "500" and .headers.Authorization == "Bearer <redacted>")'
	simctl GET /requests | jq -e 'any(.[]; .verb == "discovery")'
	simctl GET /stats | jq -e '.requests.list == 1 and .openWatches == 0 and (.resourceVersion | tonumber) > 0'
	simctl DELETE /requests >/dev/null
	simctl GET /requests | jq -e 'length == 0'
	run simctl POST /no-such-route
	[ "$status" -ne 0 ]
}

@test "the simulator exits with its parent, and on SIGTERM" {
	local dir=$BATS_TEST_TMPDIR/orphan
	mkdir -p "$dir"
	bash -c '"$1" --kubeconfig "$2/kc" --pods 1 >"$2/log" 2>&1 3>&- & echo $! >"$2/pid"; for i in $(seq 100); do [ -s "$2/kc" ] && break; sleep 0.1; done' \
		_ "$BATS_TEST_DIRNAME/apiserver/kube-sim" "$dir"
	pid=$(cat "$dir/pid")
	[ -s "$dir/kc" ]
	gone_within 5 "$pid"
	grep -q 'parent process went away' "$dir/log"
	# SIGTERM alone ends it (sim_stop would fall back to SIGKILL)
	sim_start --pods 1
	pid=$SIM_PID
	kill -TERM "$pid"
	gone_within 5 "$pid"
	sim_stop
}

@test "under bats a simulator is forked by the zygote, with the caller's environment, and exits with its caller" {
	# this shell's environment: a certificates' cache of this test's own
	KUBESIM_CERTS_CACHE=$BATS_TEST_TMPDIR/certs sim_start --pods 1
	# forked: not this shell's child, and from the zygote's imports, not a Python of its own
	[ "$(ps -o ppid= -p "$SIM_PID" | tr -d ' ')" != "$BASHPID" ]
	[ -s "$BATS_RUN_TMPDIR/kube-sim-zygote" ]
	[ -s "$BATS_TEST_TMPDIR/certs/kube-sim.ca.crt" ]
	cmp "$BATS_TEST_TMPDIR/certs/kube-sim.ca.crt" "$SIM_CACERT"
	simcurl /api/v1/pods | jq -e '.items | length == 1'
	sim_stop
	# one asked for by a shell that then ends goes with it
	local dir=$BATS_TEST_TMPDIR/caller
	mkdir -p "$dir"
	bash -c 'source "$1/sim_helper.bash"; SIM_DIR=$2; SIM_KUBECONFIG=$2/kc; _sim_run --pods 1 && echo "$SIM_PID" >"$2/pid"' \
		_ "$BATS_TEST_DIRNAME" "$dir"
	pid=$(cat "$dir/pid")
	gone_within 30 "$pid"
	grep -q 'parent process went away' "$dir/log"
}

@test "a list asked as PartialObjectMetadataList gets metadata only, as the apiserver answers it" {
	sim_start --pods 3 --namespaces 1
	local accept='application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json'
	run simcurl -D "$BATS_TEST_TMPDIR/headers" -H "Accept: $accept" '/api/v1/pods?limit=2'
	[ "$status" -eq 0 ]
	grep -qi '^content-type: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' "$BATS_TEST_TMPDIR/headers"
	jq -e '.kind == "PartialObjectMetadataList" and .apiVersion == "meta.k8s.io/v1" and
		(.metadata.resourceVersion | length) > 0 and (.metadata.continue | length) > 0 and
		(.items | length) == 2 and
		all(.items[]; .kind == "PartialObjectMetadata" and .apiVersion == "meta.k8s.io/v1" and
			keys == ["apiVersion", "kind", "metadata"] and (.metadata.name | startswith("pod-")) and
			(.metadata.resourceVersion | length) > 0)' <<<"$output"
	# plain JSON first, or another as=: whole objects, as before
	run simcurl -H 'Accept: application/json,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' /api/v1/pods
	jq -e '.kind == "PodList" and all(.items[]; has("spec"))' <<<"$output"
	run simcurl -H 'Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta9,application/json' /api/v1/pods
	jq -e '.kind == "PodList"' <<<"$output"
}
