#!/usr/bin/env bats
# `kinf get`: straight from the server, and --from-cache from a synced
# informer's Indexer.  The two must print the same thing.

load test_helper
bats_require_minimum_version 1.5.0

get() { "$KINF" get --kubeconfig "$SIM_KUBECONFIG" "$@"; }

# same_both ARGS... — `get ARGS` and `get ARGS --from-cache` print the
# same, non-empty, with status 0; the output is left in $output.
same_both() {
	local server try
	# AGE columns may tick between the two commands: a second try settles it.
	for try in 1 2; do
		run --separate-stderr get "$@"
		assert_status 0
		server=$output
		run --separate-stderr get "$@" --from-cache
		assert_status 0
		[ "$output" = "$server" ] && break
	done
	if [ "$output" != "$server" ]; then
		echo "# kinf get $* differs from the cache:" >&2
		diff <(echo "$server") <(echo "$output") | sed 's/^/# /' >&2
		return 1
	fi
	[ -n "$output" ]
}

# The names of the pods the server lists with QUERY, sorted.
server_names() {
	simcurl "/api/v1/pods?$1" | jq -r '.items[] | .metadata.name' | sort
}

# assert_one_error PATTERN — status 1, nothing on stdout, one line on stderr.
assert_one_error() {
	assert_status 1
	[ -z "$output" ] || { echo "# stdout: $output" >&2; return 1; }
	[ "${#stderr_lines[@]}" -eq 1 ] || { echo "# stderr: $stderr" >&2; return 1; }
	[[ $stderr == error:*$1* ]] || { echo "# stderr: $stderr" >&2; return 1; }
}

@test "the cache answers as the server does: table, wide, name, json" {
	sim_start --pods 14 --namespaces 1
	same_both pods
	[[ ${lines[0]} =~ ^NAME\ +READY\ +STATUS\ +RESTARTS\ +AGE$ ]]
	[ "${#lines[@]}" -eq 8 ]
	same_both pods -A
	[[ ${lines[0]} =~ ^NAMESPACE\ +NAME\ +READY ]]
	[ "${#lines[@]}" -eq 15 ]
	same_both pods -A -o wide
	[[ ${lines[0]} =~ ^NAMESPACE\ +NAME\ +READY\ +STATUS\ +RESTARTS\ +AGE\ +IP\ +NODE\ +NOMINATED\ NODE\ +READINESS\ GATES$ ]]
	same_both pods -n ns-1 -o name
	[ "$output" = "$(server_names 'fieldSelector=metadata.namespace%3Dns-1' | sed 's|^|pod/|')" ]
	same_both pods -A -o json
	jq -e '.kind == "List" and .apiVersion == "v1" and (.items | length) == 14 and
		all(.items[]; .kind == "Pod" and .apiVersion == "v1")' <<<"$output" >/dev/null
	run bash -c "'$KINF' get pods -A --from-cache --kubeconfig '$SIM_KUBECONFIG' -o json | jq -r '.items[].metadata.name' | sort"
	[ "$output" = "$(server_names '')" ]
}

@test "objects past their kind's first 32 KiB, kept packed, read back as the server sent them" {
	sim_start --pods 300 --namespaces 2
	same_both pods -A -o json
	jq -e '(.items | length) == 300' <<<"$output" >/dev/null
	# watch -o json splices each object's text as the cache holds it
	run --separate-stderr bash -c "'$KINF' watch pods -A -o json --max-deltas 300 --kubeconfig '$SIM_KUBECONFIG' |
		jq -cS '.object' | sort"
	assert_status 0
	[ "${#lines[@]}" -eq 300 ]
	[ "$output" = "$(simcurl /api/v1/pods | jq -cS '.items[] | del(.metadata.managedFields) |
		. + {kind: "Pod", apiVersion: "v1"}' | sort)" ]
}

@test "every kind the simulator serves: the cache equals the server" {
	sim_start --pods 4 --namespaces 1
	for r in deployments nodes namespaces configmaps secrets events crontabs; do
		same_both "$r" -A
		same_both "$r" -A -o wide
		same_both "$r" -A -o name
	done
	same_both deploy -A
	[[ ${lines[0]} =~ ^NAMESPACE\ +NAME\ +READY\ +UP-TO-DATE\ +AVAILABLE\ +AGE$ ]]
	same_both no
	[[ ${lines[0]} =~ ^NAME\ +STATUS\ +ROLES\ +AGE\ +VERSION$ ]]
	same_both deployments -o name
	[[ ${lines[0]} == deployment.apps/* ]]
}

@test "objects in the server's order, and the cache in etcd's: app-x/ before app/, as kubectl prints them" {
	sim_start --pods 2 --namespaces 1
	simctl POST /create '{"resource":"namespaces","object":{"metadata":{"name":"ns-1-x"}}}' >/dev/null
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"a","namespace":"ns-1-x"}}}' >/dev/null
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"b","namespace":"ns-1"}}}' >/dev/null
	local o want
	for o in "-o name" "-o jsonpath={.items[*].metadata.namespace}" "-o custom-columns=NS:.metadata.namespace,N:.metadata.name"; do
		want=$(kubectl --kubeconfig "$SIM_KUBECONFIG" get pods -A $o)
		for cache in "" --from-cache; do
			run get pods -A $o $cache
			assert_status 0
			[ "$output" = "$want" ] || { echo "# $o $cache" >&2; diff <(echo "$want") <(echo "$output") | sed 's/^/# /' >&2; false; }
		done
	done
	[ "$(grep -m1 -o '^ns-1[^ ]*' <<<"$output")" = ns-1-x ]
	# a server (an aggregated one) whose list is in no order: printed as it came
	fault '{"verb":"list","resource":"pods","kind":"body","status":200,"body":"{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{},\"items\":[{\"metadata\":{\"name\":\"b\",\"namespace\":\"default\"}},{\"metadata\":{\"name\":\"a\",\"namespace\":\"default\"}}]}"}'
	run get pods -o name
	[ "$output" = $'pod/b\npod/a' ]
}

@test "-o wide shows the pod's IP and node" {
	sim_start --pods 3
	run get pods -o wide --no-headers
	assert_status 0
	[ "${#lines[@]}" -eq 3 ]
	for i in 0 1 2; do
		obj=$(simctl GET "/object?resource=pods&namespace=default&name=pod-$i")
		ip=$(jq -r '.status.podIP // "<none>"' <<<"$obj")
		node=$(jq -r .spec.nodeName <<<"$obj")
		grep -qE "^pod-$i .* $ip +$node " <<<"$output" || { echo "# pod-$i: $ip $node" >&2; false; }
	done
}

@test "--index node=, namespace=, label= and owner= look up the Indexer" {
	sim_start --pods 15 --namespaces 2
	run get pods -A --from-cache --index node=node-2 -o name
	assert_status 0
	[ -n "$output" ]
	# Sorted by namespace, then name (as kubectl): compare as sets here.
	[ "$(sort <<<"$output")" = "$(server_names 'fieldSelector=spec.nodeName%3Dnode-2' | sed 's|^|pod/|')" ]
	run get pods -A --from-cache --index namespace=ns-2 -o name
	assert_status 0
	[ -n "$output" ]
	[ "$output" = "$(server_names 'fieldSelector=metadata.namespace%3Dns-2' | sed 's|^|pod/|')" ]
	run get pods -A --from-cache --index label=tier=backend -o name
	assert_status 0
	[ -n "$output" ]
	[ "$(sort <<<"$output")" = "$(server_names 'labelSelector=tier%3Dbackend' | sed 's|^|pod/|')" ]
	uid=$(simctl GET '/object?resource=pods&namespace=default&name=pod-0' | jq -r '.metadata.ownerReferences[0].uid')
	[ -n "$uid" ] && [ "$uid" != null ]
	run get pods -A --from-cache --index "owner=$uid" -o name
	assert_status 0
	[ -n "$output" ]
	[ "$(sort <<<"$output")" = "$(simcurl /api/v1/pods | jq -r --arg u "$uid" \
		'.items[] | select(any(.metadata.ownerReferences[]?; .uid == $u)) | "pod/" + .metadata.name' | sort)" ]
	# The table of an index look-up is the same table.
	run get pods -A --from-cache --index node=node-1
	[[ ${lines[0]} =~ ^NAMESPACE\ +NAME ]]
	# Nothing under a value: no output, status 0.
	run --separate-stderr get pods -A --from-cache --index node=node-99
	assert_status 0
	[ -z "$output" ]
	[[ $stderr == "No resources found"* ]]
}

@test "--index: a bad argument is a usage error, an unknown index one line and status 1" {
	sim_start --pods 2
	run --separate-stderr get pods --index node=node-1
	assert_status 2
	[[ $stderr == *"--from-cache"* ]]
	run --separate-stderr get pods --from-cache --index nodenode-1
	assert_status 2
	[[ $stderr == *"'nodenode-1'"* ]]
	run --separate-stderr get pods --from-cache --index shoesize=42
	assert_one_error "'shoesize'"
	# it names the indexes there are
	[ "$stderr" = "error: no index named 'shoesize' (the indexes: namespace, label, node, owner)" ]
}

@test "-l is applied to the cache as the server applies it" {
	sim_start --pods 12
	for sel in app=web 'app!=web' 'tier in (frontend,cache)' 'tier notin (frontend)' \
		'app=web,tier=frontend' tier '!nonexistent' 'app==api'; do
		same_both pods -l "$sel" -o name
		[ "$output" = "$(server_names "labelSelector=$(jq -rn --arg s "$sel" '$s|@uri')&fieldSelector=metadata.namespace%3Ddefault" | sed 's|^|pod/|')" ] ||
			{ echo "# selector $sel" >&2; false; }
	done
	# Nothing matching: both say so on stderr, status 0.
	run --separate-stderr get pods -l app=nothing --from-cache
	assert_status 0
	[ -z "$output" ]
	[ "$stderr" = "No resources found in default namespace." ]
	# A selector that does not parse: a usage error, one line, status 2.
	run --separate-stderr get pods -l 'app in (web' --from-cache
	assert_status 2
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "error: invalid selector"* ]]
}

@test "a single NAME; a missing one is NotFound, one line, status 1" {
	sim_start --pods 4
	same_both pods pod-2
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[1]} == "pod-2 "* ]]
	# the object itself, as kubectl prints one NAME, not a List
	same_both pods pod-2 -o json
	jq -e '.kind == "Pod" and .metadata.name == "pod-2"' <<<"$output" >/dev/null
	same_both deployments web -o name
	[ "$output" = deployment.apps/web ]
	run --separate-stderr get pods nosuchpod
	assert_one_error 'pods "nosuchpod" not found'
	server_err=$stderr
	run --separate-stderr get pods nosuchpod --from-cache
	assert_one_error 'pods "nosuchpod" not found'
	[ "$stderr" = "$server_err" ]
}

@test "several NAMEs and TYPE/NAMEs: a GET each, as kubectl's, in its order; what is missing after" {
	sim_start --pods 3
	local args want
	# kubectl's stdout and status; kinf's from the server and from the cache
	for args in "pods pod-2 pod-0" "pods pod-2 nope pod-0 -o name" "pods,deploy pod-0 web" \
		    "pods/pod-2 deploy/web pods/pod-0" "pods pod-1 pod-0 -o json" "pods nope nope2 -o yaml"; do
		want=$(kubectl --kubeconfig "$SIM_KUBECONFIG" get $args 2>/dev/null) && want_status=0 || want_status=$?
		run --separate-stderr get $args
		[ "$status" -eq "$want_status" ] && [ "$(no_age <<<"$output")" = "$(no_age <<<"$want")" ] ||
			{ diff <(echo "$want") <(echo "$output") | sed 's/^/# /' >&2; false; }
		[ "$(get $args --from-cache 2>&1)" = "$(get $args 2>&1)" ]
	done
	[ "${lines[0]}" = "apiVersion: v1" ] && [ "${lines[1]}" = "items: []" ]
	[ "$stderr" = $'error: pods "nope" not found\nerror: pods "nope2" not found' ]
	run --separate-stderr get pods,deploy pod-0 web
	[ "$stderr" = $'error: pods "web" not found\nerror: deployments.apps "pod-0" not found' ]
	# a GET of each, as kubectl asks: a role that may get but not list is enough
	simctl POST /faults '{"verb":"list","kind":"403","count":100}' >/dev/null
	simctl DELETE /requests >/dev/null
	run --separate-stderr get pods pod-1 pod-0 -o name
	assert_status 0
	[ "$output" = $'pod/pod-1\npod/pod-0' ]
	run simctl GET /requests
	[ "$(jq -c '[.[] | select(.verb != "discovery") | [.verb, .name]]' <<<"$output")" = '[["get","pod-1"],["get","pod-0"]]' ]
}

# like_kubectl ARGS... — kinf get ARGS sends what kubectl get ARGS sends
# (discovery aside: paths, queries and Accept, in order), prints the same
# and ends with the same status; kubectl's "Error from server (NotFound): "
# is kinf's "error: ".
like_kubectl() {
	local want want_status sent
	simctl DELETE /requests >/dev/null
	want=$(kubectl --kubeconfig "$SIM_KUBECONFIG" get "$@" 2>&1) && want_status=0 || want_status=$?
	sent=$(simctl GET /requests | jq -c '[.[] | select(.verb != "discovery") | [.path, .query, .headers.Accept]]')
	simctl DELETE /requests >/dev/null
	run get "$@"
	[ "$status" -eq "$want_status" ] || { echo "# $*: kubectl $want_status, kinf $status" >&2; false; }
	[ "$(simctl GET /requests | jq -c '[.[] | select(.verb != "discovery") | [.path, .query, .headers.Accept]]')" = "$sent" ] ||
		{ echo "# $*: kubectl sent $sent" >&2; false; }
	[ "$(sed 's/^Error from server (NotFound): /error: /' <<<"$want")" = "$output" ] ||
		{ diff <(echo "$want") <(echo "$output") | sed 's/^/# /' >&2; false; }
}

@test "a NAME missing from a namespace that is missing too: the namespace is not found, as kubectl's Info.Get asks" {
	sim_start --pods 2
	local args
	# "default" is never asked for; kube-system is there, so its pod is what is missing
	for args in "pods nope -n gone" "pods nope nope2 -n gone -o yaml" "pods/nope deploy/web -n gone -o name" \
		    "pods nope -n gone --sort-by .metadata.name" "pods nope -n default" "pods nope -n kube-system" \
		    "pods nope -n gone --ignore-not-found"; do
		like_kubectl $args
	done
	run --separate-stderr get pods nope nope2 -n gone
	[ "$stderr" = $'error: namespaces "gone" not found\nerror: namespaces "gone" not found' ]
}

@test "selectors as kubectl's builder takes them: trimmed, none when blank; a blank --sort-by sorts nothing; -l= is \"=\", as pflag's" {
	sim_start --pods 3
	like_kubectl pods -l ' app=web ' -o name
	like_kubectl pods --field-selector $'\tmetadata.name=pod-1 ' -o name
	like_kubectl pods pod-0 -l ' ' -o name
	like_kubectl pods/pod-0 --field-selector= -o name
	like_kubectl pods --sort-by= --no-headers -o custom-columns=N:.metadata.name
	like_kubectl pods -n= -o name
	# kubectl sends "=" and the server refuses it; kinf tells it before any request
	run --separate-stderr get pods -l=
	[ "$status" -eq 2 ] && [[ $stderr == "error: invalid selector '=': "* ]]
}

@test "a verb the type lacks is the server's to refuse, as kubectl's get leaves it; an informer needs list and watch first" {
	# componentstatuses' verbs are get and list; tokenreviews' only create
	sim_start --pods 2 --verbs configmaps=get,list --verbs secrets=create
	like_kubectl cm -o name
	like_kubectl secrets nope	# a 404 whose Status says no more: its message, as kubectl prints it
	[ "$output" = "error: the server could not find the requested resource" ]
	local sent
	simctl DELETE /requests >/dev/null
	run --separate-stderr get secrets
	assert_one_error "the server does not allow this method on the requested resource"
	sent=$(simctl GET /requests | jq -r '[.[] | select(.verb != "discovery") | .verb + " " + (.status | tostring)] | join(",")')
	[ "$sent" = "list 405" ]
	# get -w: the list printed, then the server's refusal of the watch
	run --separate-stderr kubectl --kubeconfig "$SIM_KUBECONFIG" get cm -w -o name
	assert_status 1
	local want=$output
	run --separate-stderr get cm -w -o name
	assert_status 1
	[ "$output" = "$want" ] && [ -n "$output" ]
	[[ $stderr == *'watch is not supported on resources of kind "configmaps"'* ]]
	for args in "get cm --from-cache" "watch cm"; do
		run --separate-stderr "$KINF" $args --kubeconfig "$SIM_KUBECONFIG"
		assert_status 1
		[ "$stderr" = "error: resource 'configmaps' cannot be watched, so no informer can follow it (its verbs: get, list)" ]
	done
}

@test "a type the server refuses is told after what the others found; -o json prints its List first, as kubectl's" {
	sim_start --pods 2
	local args want want_status
	for args in "pods -o json" "pods -o yaml" "pods,deploy" "pods,deploy -o name" "pods,deploy -o json"; do
		simctl POST /faults '{"verb":"list","kind":"403","count":1}' >/dev/null
		want=$(kubectl --kubeconfig "$SIM_KUBECONFIG" get $args 2>/dev/null) && want_status=0 || want_status=$?
		simctl DELETE /faults >/dev/null
		simctl POST /faults '{"verb":"list","kind":"403","count":1}' >/dev/null
		run --separate-stderr get $args
		simctl DELETE /faults >/dev/null
		[ "$status" -eq "$want_status" ] && [ "$(no_age <<<"$output")" = "$(no_age <<<"$want")" ] ||
			{ diff <(echo "$want") <(echo "$output") | sed 's/^/# /' >&2; false; }
		[ "${#stderr_lines[@]}" -eq 1 ] && [[ $stderr == "error: list pods: "*"(403)" ]]
	done
	# the List holds the deployments, the one type that answered
	[ "$(jq -c '.items | map(.kind) | unique' <<<"$output")" = '["Deployment"]' ]
}

@test "--from-cache: a type whose list the server refuses is told after the other types, as kubectl's get tells it" {
	sim_start --pods 4
	local args want want_status refused
	# kube-sim, as the apiserver, has no status.phase field for deployments
	# and nodes: their lists and watches are refused (400), the pods' not
	for args in "pods,deploy,nodes" "deploy,pods -o name" "pods,deploy -o json" "deploy -o yaml" \
		    "nodes,pods -o custom-columns=N:.metadata.name" "deploy,pods -o go-template={{.kind}}"; do
		want=$(kubectl --kubeconfig "$SIM_KUBECONFIG" get $args --field-selector=status.phase=Running 2>/dev/null) &&
			want_status=0 || want_status=$?
		run --separate-stderr get $args --field-selector=status.phase=Running --from-cache
		[ "$status" -eq "$want_status" ] && [ "$(no_age <<<"$output")" = "$(no_age <<<"$want")" ] ||
			{ echo "# get $args: status $status, kubectl's $want_status" >&2
			  diff <(echo "$want") <(echo "$output") | sed 's/^/# /' >&2; false; }
		refused=$(grep -o 'deploy\|nodes' <<<"$args" | wc -l)
		[ "${#stderr_lines[@]}" -eq "$refused" ] && [[ $stderr == "error: list "*"field label not supported"*"(400)" ]] ||
			{ echo "# get $args: $stderr" >&2; false; }
	done
	# the names of a refused type fail each, as a GET of each would
	simctl POST /faults '{"verb":"list","resource":"deployments","kind":"403","count":100}' >/dev/null
	simctl POST /faults '{"verb":"watch","resource":"deployments","kind":"403","count":100}' >/dev/null
	run --separate-stderr get pods/pod-0 deploy/web pods/pod-1 deploy/api -o name --from-cache
	simctl DELETE /faults >/dev/null
	assert_status 1
	[ "$output" = "$(printf 'pod/pod-0\npod/pod-1')" ]
	[ "${#stderr_lines[@]}" -eq 2 ] && [[ ${stderr_lines[0]} == "error: list deployments: "*"(403)" ]] &&
		[ "${stderr_lines[1]}" = "${stderr_lines[0]}" ]
}

@test "--ignore-not-found: a missing NAME, or nothing at all, prints nothing, as kubectl's" {
	sim_start --pods 2
	local args want
	for args in "pods nope" "pods nope pod-0" "pods nope nope2 -o json" "pods -l app=none -o json" \
		    "configmaps -n empty -o name" "pods,deploy -l app=none"; do
		want=$(kubectl --kubeconfig "$SIM_KUBECONFIG" get $args --ignore-not-found 2>&1)
		[ "$(no_age <<<"$(get $args --ignore-not-found 2>&1)")" = "$(no_age <<<"$want")" ]
		[ "$(no_age <<<"$(get $args --ignore-not-found --from-cache 2>&1)")" = "$(no_age <<<"$want")" ]
	done
	[[ $want == "" ]]
	run --separate-stderr get pods nope pod-0 --ignore-not-found
	assert_status 0
	[ "${#lines[@]}" -eq 2 ] && [ -z "$stderr" ]
	# only NotFound: a refusal is still told
	simctl POST /faults '{"verb":"get","kind":"403","count":1}' >/dev/null
	run --separate-stderr get pods pod-0 --ignore-not-found
	assert_status 1
	[[ $stderr == error:*403* ]]
	# a LIST's NotFound too, as apimachinery's IsNotFound reads the answer
	# (as kubectl 1.33 does): a Status's reason NotFound whatever the
	# code, or its code 404 with a reason it does not know; a 404's own
	# reason Forbidden is told
	local body fault b
	for b in '404 - NotFound' '500 - NotFound' '200 - NotFound' '404 404 Weird' '404 - Forbidden'; do
		read -r code scode reason <<<"$b"
		body=$(jq -nc --arg r "$reason" --arg c "$scode" '{kind: "Status", apiVersion: "v1",
			status: "Failure", message: "gone?", reason: $r} + (if $c == "-" then {} else {code: ($c | tonumber)} end)')
		for out in name table; do
			fault=$(jq -nc --argjson s "$code" --arg b "$body" '{verb: "list", resource: "pods",
				kind: "body", status: $s, contentType: "application/json", body: $b, count: 1}')
			simctl POST /faults "$fault" >/dev/null
			run --separate-stderr get pods,deploy --ignore-not-found $([ $out = name ] && echo -o name)
			simctl DELETE /faults >/dev/null
			[[ $output == *web* && $output != *pod-0* ]] || { echo "# $b $out: $output" >&2; false; }
			if [ "$reason" = Forbidden ]; then
				assert_status 1
				[[ $stderr == "error: list pods: gone? (404)" ]]
			else
				assert_status 0
				[ -z "$stderr" ] || { echo "# $b $out: $stderr" >&2; false; }
			fi
		done
	done
	# from the caches too: an informer's list refused with a NotFound
	for reason in NotFound Forbidden; do
		body=$(jq -nc --arg r "$reason" '{kind: "Status", apiVersion: "v1", status: "Failure",
			message: "gone?", reason: $r, code: 404}')
		for verb in list watch; do
			simctl POST /faults "$(jq -nc --arg v $verb --arg b "$body" '{verb: $v,
				resource: "pods", kind: "body", status: 404, contentType: "application/json",
				body: $b, count: 100}')" >/dev/null
		done
		run --separate-stderr get pods,deploy --ignore-not-found --from-cache -o name
		simctl DELETE /faults >/dev/null
		[[ $output == *deployment.apps/web* && $output != *pod/* ]]
		if [ $reason = Forbidden ]; then
			assert_status 1
			[[ $stderr == "error: list pods: gone? (404)" ]]
		else
			assert_status 0
			[ -z "$stderr" ]
		fi
	done
	# kubectl's name for --keep-managed-fields
	[ "$(get pods pod-0 -o json --show-managed-fields | jq '.metadata.managedFields | length')" -gt 0 ]
}

@test "NAMEs refuse a selector, and -A for a namespaced type, as kubectl" {
	sim_start --pods 1
	run --separate-stderr get pods pod-0 -l app=web
	[ "$status" -eq 2 ] && [[ $stderr == "error: name cannot be provided when a selector is specified"* ]]
	# -A: not for a namespaced type's objects (nodes have no namespace), from the server or the cache
	run --separate-stderr get pods,nodes pod-0 -A
	assert_status 1
	[ "$stderr" = "error: a resource cannot be retrieved by name across all namespaces" ]
	run --separate-stderr get pods pod-0 -A --from-cache
	assert_status 1
	[ "$stderr" = "error: a resource cannot be retrieved by name across all namespaces" ]
	run --separate-stderr get nodes node-1 -A -o name
	assert_status 0
	[ "$output" = node/node-1 ]
}

@test "TYPES NAME...: a GET for each type string and name (po,pods twice); -w: several got, printed, then refused; -A's column, as kubectl's" {
	sim_start --pods 2
	local args want want_status
	for args in "po,pods pod-0" "pods,pods pod-0 -o json" "po,pods pod-0 -o json" "pods,po,pods pod-0 pod-1 -o name" \
		    "pods pod-0 pod-1 -w" "po,pods pod-0 -w -o json" "pods/pod-0 po/pod-0 -w -o name" \
		    "pods pod-0 nope -w" "pods/pod-0 deploy/web -w" "pods,pods -w -o name" "pods pod-0 pod-1 --watch-only" \
		    "pods pod-0 -w -A" "nodes -w -A" "nodes node-1 node-2 -w -A -o wide"; do
		want=$(kubectl --kubeconfig "$SIM_KUBECONFIG" get $args --request-timeout=1s 2>&1) &&
			want_status=0 || want_status=$?
		simctl DELETE /requests >/dev/null
		run get $args --request-timeout=1s
		[ "$status" -eq "$want_status" ] &&
			[ "$(no_age <<<"$output")" = "$(no_age <<<"${want//Error from server (NotFound): /error: }")" ] ||
			{ echo "# get $args: status $status, kubectl's $want_status" >&2
			  diff <(echo "$want") <(echo "$output") | sed 's/^/# /' >&2; false; }
		# several objects are never watched
		[[ $args != *" -w"* || $want_status -eq 0 ]] ||
			[ "$(simctl GET '/requests?verb=watch' | jq length)" -eq 0 ]
	done
	for args in "po,pods pod-0" "pods,po,pods pod-0 pod-1 -o name"; do
		[ "$(get $args --from-cache)" = "$(get $args)" ]
	done
	[ "$(get po,pods pod-0 -o name --from-cache)" = "$(printf 'pod/pod-0\npod/pod-0')" ]
}

@test "--no-headers leaves out the header; -A adds a NAMESPACE column" {
	sim_start --pods 6 --namespaces 1
	same_both pods --no-headers
	[ "${#lines[@]}" -eq 3 ]
	! grep -q NAME <<<"$output" || false
	[[ ${lines[0]} == pod-* ]]
	same_both pods -A --no-headers
	[ "${#lines[@]}" -eq 6 ]
	grep -q '^default  *pod-' <<<"$output"
	grep -q '^ns-1  *pod-' <<<"$output"
	same_both pods --all-namespaces
	[[ ${lines[0]} == NAMESPACE* ]]
	# Cluster-scoped: no NAMESPACE column even with -A.
	same_both nodes -A
	[[ ${lines[0]} == NAME* ]]
}

@test "an empty namespace: nothing on stdout, a note on stderr for a table, status 0" {
	sim_start --pods 2 --namespaces 1
	simctl POST /delete '{"resource":"pods","namespace":"ns-1","name":"pod-1","graceful":false}' >/dev/null
	for cache in "" --from-cache; do
		run --separate-stderr get pods -n ns-1 $cache
		assert_status 0
		[ -z "$output" ]
		[ "$stderr" = "No resources found in ns-1 namespace." ]
		run --separate-stderr get pods -n ns-1 -o json $cache
		assert_status 0
		jq -e '.kind == "List" and .items == []' <<<"$output" >/dev/null
		# kubectl notes it for a table only: its printGeneric says nothing
		run --separate-stderr get pods -n ns-1 -o name $cache
		assert_status 0
		[ -z "$output$stderr" ]
	done
	# a cluster-scoped type among them: the note names no namespace, as kubectl's
	run --separate-stderr get pods,nodes -l nosuch=label
	assert_status 0
	[ -z "$output" ]
	[ "$stderr" = "No resources found" ]
	run --separate-stderr get pods,nodes -l nosuch=label -o name
	assert_status 0
	[ -z "$output$stderr" ]
}

@test "--keep-managed-fields keeps metadata.managedFields in -o json" {
	sim_start --pods 2
	for cache in "" --from-cache; do
		run get pods -o json $cache
		[ "$(jq '[.items[].metadata | has("managedFields")] | unique' <<<"$output")" = '[
  false
]' ]
		run get pods -o json --keep-managed-fields $cache
		[ "$(jq -c '[.items[].metadata | has("managedFields")] | unique' <<<"$output")" = '[true]' ]
	done
}

@test "--sync-timeout gives up on an informer that cannot sync: one line, status 1" {
	sim_start --pods 2
	# Neither a LIST nor a streaming list (a watch) gets an answer.
	simctl POST /faults '{"verb":"list","kind":"hang","count":10,"seconds":30}' >/dev/null
	simctl POST /faults '{"verb":"watch","kind":"hang","count":10,"seconds":30}' >/dev/null
	start=$SECONDS
	run --separate-stderr timeout 20 "$KINF" get pods --from-cache --sync-timeout 1s --kubeconfig "$SIM_KUBECONFIG" --request-timeout 30s
	assert_one_error "did not sync within 1s"
	[ $((SECONDS - start)) -le 6 ]
}

@test "errors from the server: forbidden, unknown resource" {
	sim_start --pods 2
	run --separate-stderr "$KINF" get pods --kubeconfig "$SIM_KUBECONFIG.viewer"
	assert_one_error forbidden
	[[ $stderr == *403* ]]
	# A one-shot command does not wait for RBAC as the informer would:
	# the first refused list ends it, the one line names the cause, and
	# no retry is claimed (21-auth.bats: cold and warm discovery cache).
	run --separate-stderr "$KINF" get pods --from-cache --kubeconfig "$SIM_KUBECONFIG.viewer"
	assert_one_error "list pods: pods is forbidden"
	[[ $stderr == *"(403)" ]]
	for cache in "" --from-cache; do
		run --separate-stderr get podz $cache
		assert_one_error "did you mean 'pods'"
	done
}

# assert_list_error PATTERN — assert_one_error, but for kubectl's empty
# List, which -o json and yaml print before a list's error: no object.
assert_list_error() {
	local out=$output
	[[ $output == *'"items": []'* || $output == *'items: []'* ]] && output=""
	assert_one_error "$1"
	output=$out
}

# fault JSON — arm one kube-sim fault.
fault() { simctl POST /faults "$1" >/dev/null; }

# kubectl's get ARGS and kinf's, FAULT armed before each: the same status
# and output (ages aside).  kinf's run is left in status, output, stderr.
same_as_kubectl_under() {
	local f=$1 want
	shift
	fault "$f"
	want=$(kubectl --kubeconfig "$SIM_KUBECONFIG" get "$@" 2>/dev/null) && want=0:$want || want=$?:$want
	fault "$f"
	run --separate-stderr get "$@"
	[ "$status:$(no_age <<<"$output")" = "$(no_age <<<"$want")" ] ||
		{ echo "# $*: kubectl $want" >&2; diff <(echo "$want") <(echo "$status:$output") | sed 's/^/# /' >&2; false; }
}

@test "a 200 whose body is not JSON: one line naming it, every output path" {
	sim_start --pods 3
	for o in "" "-o wide" "-o json" "-o yaml" "-o name"; do
		fault '{"verb":"list","resource":"pods","kind":"garbage"}'
		run --separate-stderr get pods $o
		assert_list_error "the server's list of pods is not JSON: it begins '<html>"
	done
}

@test "a 200 that is no list: one object when it says its kind, else kubectl's missing-kind error" {
	sim_start --pods 3
	local body o
	for body in '{"error":"no route"}' '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"lone"}}'; do
		for o in "" "-o name" "-o json" "-w --request-timeout=1s -o name"; do
			# shellcheck disable=SC2086
			same_as_kubectl_under "$(jq -nc --arg b "$body" '{verb:"list",resource:"pods",kind:"body",status:200,body:$b}')" \
				pods $o
			case $body in
			*error*) [ "$stderr" = "error: list pods: Object 'Kind' is missing in '{\"error\":\"no route\"}'" ] ;;
			*) [[ $output == *lone* ]] ;;
			esac
		done
	done
}

@test "a continue page whose items are null is the last, and items of another type kubectl's error" {
	sim_start --pods 5
	local body o
	for body in null 5; do
		body='{"kind":"PodList","apiVersion":"v1","metadata":{},"items":'$body'}'
		for o in "" "-o name" "-o json" "-w --request-timeout=1s -o name"; do
			# shellcheck disable=SC2086
			same_as_kubectl_under "$(jq -nc --arg b "$body" '{verb:"list-continue",resource:"pods",kind:"body",status:200,body:$b}')" \
				pods --chunk-size=2 $o
			case $body in
			*null*) [[ $output == *pod-1* ]] ;;
			*) [[ $stderr == *"items"*"no array" ]] ;;
			esac
		done
	done
}

@test "a garbage continue page: the first page is printed, then the error, as kubectl's" {
	sim_start --pods 1200
	local o
	for o in "" "-o json" "-o name"; do
		fault '{"verb":"list-continue","resource":"pods","kind":"garbage"}'
		run --separate-stderr get pods -A $o
		assert_status 1
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ $stderr == "error: the server's list of pods is not JSON"* ]]
		case $o in
		"") [ "${#lines[@]}" -eq 501 ] ;;
		"-o json") [ "$(jq '.items | length' <<<"$output")" -eq 500 ] ;;
		"-o name") [ "${#lines[@]}" -eq 500 ] ;;
		esac
	done
	# A cut continue page likewise: none of its own objects.
	fault '{"verb":"list-continue","resource":"pods","kind":"truncate"}'
	run --separate-stderr get pods -A -o json
	assert_status 1
	[ "$(jq '.items | length' <<<"$output")" -eq 500 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "a 429 or a 503 with Retry-After is retried after the wait, as kubectl's REST client" {
	sim_start --pods 3
	for o in "" "-o json"; do
		fault '{"verb":"list","resource":"pods","kind":"429","count":2,"retryAfter":1}'
		start=$SECONDS
		run --separate-stderr get pods $o
		assert_status 0
		[[ $output == *pod-0* ]]
		[ -z "$stderr" ]
		[ $((SECONDS - start)) -ge 2 ]
	done
	fault '{"verb":"list","resource":"pods","kind":"503","retryAfter":1}'
	run --separate-stderr get pods -o name
	assert_status 0
	[ "${#lines[@]}" -eq 3 ]
	# Ten retries, then the 429 itself is the answer.
	throttled() { simctl GET '/requests?verb=list&resource=pods' | jq '[.[] | select(.status == 429)] | length'; }
	before=$(throttled)
	fault '{"verb":"list","resource":"pods","kind":"429","count":11,"retryAfter":0}'
	run --separate-stderr get pods
	assert_one_error "(429)"
	[ $(($(throttled) - before)) -eq 11 ]
}

@test "a retry the rate limit would hold past --request-timeout is not sent, as client-go's Wait refuses it" {
	sim_start --pods 3
	# Ten 429s spend the bucket's ten tokens; the eleventh try's token is
	# 200 ms away, past a deadline of 150 ms that began with the first try
	# (however long the tries took: the bucket refills as the deadline nears).
	simctl DELETE /requests >/dev/null
	fault '{"verb":"list","resource":"pods","kind":"429","count":10,"retryAfter":0}'
	run --separate-stderr get pods --request-timeout 150ms
	assert_status 1
	[ -z "$output" ]
	local said=$stderr
	run simctl GET '/requests?verb=list&resource=pods'
	[ "$(jq -c '[.[] | .status]' <<<"$output")" = "$(jq -nc '[range(10) | 429]')" ]
	case $said in
	*"request timeout"* | *"(429)"*) ;;	# the tries alone took 150 ms: the deadline came first
	*) [ "$said" = "error: client rate limiter Wait returned an error: rate: Wait(n=1) would exceed context deadline" ] ;;
	esac
}

@test "a Retry-After past --request-timeout is slept to the deadline, then a timeout, as client-go's from 1.33" {
	sim_start --pods 3
	simctl DELETE /requests >/dev/null
	fault '{"verb":"list","resource":"pods","kind":"503","count":2,"retryAfter":30}'
	run --separate-stderr get pods --request-timeout 1s
	assert_status 1
	[ -z "$output" ]
	# not the 503 in hand: the retry's rate limiter refuses at the deadline
	[ "$stderr" = "error: no complete answer from server '$SIM_API' within the request timeout of 1s" ]
	[ "$(simctl GET '/requests?verb=list&resource=pods' | jq length)" -eq 1 ]
}

@test "a page that fails after others: the pages before it are printed, then the error, as kubectl's" {
	sim_start --pods 5
	local o want
	for o in "" "-o name" "-o json" "-o wide"; do
		fault '{"verb":"list-continue","resource":"pods","kind":"500","count":1}'
		want=$(kubectl --kubeconfig "$SIM_KUBECONFIG" get pods,configmaps --chunk-size 2 $o 2>/dev/null) && false || [ $? -eq 1 ]
		fault '{"verb":"list-continue","resource":"pods","kind":"500","count":1}'
		run --separate-stderr get pods,configmaps --chunk-size 2 $o
		assert_status 1
		[[ $output == *pod-1* && $output != *pod-2* && $output == *kube-root-ca.crt* ]]
		[ "$(no_age <<<"$output")" = "$(no_age <<<"$want")" ] ||
			{ diff <(echo "$want") <(echo "$output") | sed 's/^/# /' >&2; false; }
		[ "$stderr" = "error: list pods: Internal error occurred: injected fault (500)" ]
	done
}

@test "--request-timeout bounds the whole request, not only the connect" {
	sim_start --pods 3
	for o in "" "-o json"; do
		fault '{"verb":"list","resource":"pods","kind":"hang","seconds":30}'
		run --separate-stderr timeout 20 "$KINF" get pods $o --request-timeout 2s --kubeconfig "$SIM_KUBECONFIG"
		# the request timeout's error, not timeout(1)'s kill at 20 s nor the 30 s hang's end
		assert_list_error "within the request timeout of 2s"
	done
	# Discovery too (no cache: --cache-dir is empty); then asked again,
	# as kubectl's get asks it, it answers.
	fault '{"verb":"discovery","kind":"hang","seconds":30}'
	run --separate-stderr timeout 20 "$KINF" get pods --request-timeout 2s --cache-dir "$BATS_TEST_TMPDIR/nocache" --kubeconfig "$SIM_KUBECONFIG"
	assert_status 0
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "warning: "*"within the request timeout of 2s; asking again, as kubectl does" ]]
	grep -q '^pod-1 ' <<<"$output"
}

@test "-l: a bad selector is told as watch -l tells it, status 2, no request sent" {
	sim_start --pods 2
	run --separate-stderr timeout 20 "$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG" -l 'app in (web'
	assert_status 2
	watch_msg=${stderr#error: }
	watch_msg=${watch_msg% (see *}
	[[ $watch_msg == "invalid selector 'app in (web': "*" at offset "* ]]
	for cache in "" --from-cache; do
		run --separate-stderr get pods $cache -l 'app in (web'
		assert_status 2
		[ -z "$output" ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ $stderr == "error: $watch_msg"* ]]
	done
	[ "$(simctl GET '/requests?resource=pods' | jq length)" -eq 0 ]
}

@test "get all: the types whose categories hold 'all', a table each, kubectl's kind/name" {
	sim_start --pods 3
	# The simulator's discovery puts pods, deployments and crontabs in "all".
	[ "$(simcurl /api/v1 | jq -c '[.resources[] | select(.categories // [] | index("all")) | .name]')" = '["pods"]' ]
	run --separate-stderr get all
	assert_status 0
	[[ ${lines[0]} =~ ^NAME\ +READY\ +STATUS ]]
	[[ ${lines[1]} =~ ^pod/pod-0\ + ]]
	[[ $output == *$'\n\nNAME '*deployment.apps/web* ]]
	[[ $output == *$'\n\nNAME '*'crontab.stable.example.com/'* ]]
	[ "$(grep -c '^NAME ' <<<"$output")" -eq 3 ]
	run --separate-stderr get all -o name
	assert_status 0
	[ "$output" = "$(printf 'pod/pod-%s\n' 0 1 2)
$(get deployments -o name)
$(get crontabs -o name)" ]
	run --separate-stderr get all -o json
	assert_status 0
	[ "$(jq -c '[.items[].kind] | unique' <<<"$output")" = '["CronTab","Deployment","Pod"]' ]
	# Nothing in a namespace: one note, status 0.
	run --separate-stderr get all -n kube-public
	assert_status 0
	[ -z "$output" ]
	[[ $stderr == "No resources found"* ]]
	# One type that fails: the others printed, its error after, as kubectl's builder goes on.
	fault '{"verb":"list","resource":"deployments","kind":"garbage"}'
	run --separate-stderr get all
	assert_status 1
	[[ $output == *pod/pod-0* && $output == *crontab.stable.example.com/* && $output != *deployment* ]]
	[ "${#stderr_lines[@]}" -eq 1 ] && [[ $stderr == "error: the server's list of deployments is not JSON"* ]]
	# Only one kind answering: its names bare, as kubectl names them by the kinds it got.
	run --separate-stderr get all --field-selector status.phase=Running
	assert_status 1
	[[ ${lines[1]} =~ ^pod-0\ + ]]
	[ "${#stderr_lines[@]}" -eq 2 ]
	run --separate-stderr get all --from-cache
	assert_status 2
}

@test "get -w and watch | head -1 on a quiet cluster: both end as the reader leaves, status 0" {
	sim_start --pods 3
	# Nothing changes: no write after the list would tell kinf the pipe
	# closed; it watches its stdout for the reader's end.  timeout only
	# guards a hang (124).
	run bash -c "timeout 30 '$KINF' get pods -w --kubeconfig '$SIM_KUBECONFIG' | head -1; echo \"status \${PIPESTATUS[0]}\""
	[ "${lines[0]%% *}" = NAME ]
	[ "${lines[-1]}" = "status 0" ]
	run bash -c "timeout 30 '$KINF' get pods -w -o name --kubeconfig '$SIM_KUBECONFIG' | head -1; echo \"status \${PIPESTATUS[0]}\""
	[[ ${lines[0]} == pod/* ]]
	[ "${lines[-1]}" = "status 0" ]
	run bash -c "timeout 30 '$KINF' watch pods --kubeconfig '$SIM_KUBECONFIG' -q | head -1; echo \"status \${PIPESTATUS[0]}\""
	[[ ${lines[0]} == TIME* ]]
	[ "${lines[-1]}" = "status 0" ]
}

@test "get -L repeated adds a column for each, as kubectl's; -w=false is no watch" {
	sim_start --pods 2
	run -0 "$KINF" get pods --kubeconfig "$SIM_KUBECONFIG" -L app -L tier,missing
	[[ ${lines[0]} =~ AGE\ +APP\ +TIER\ +MISSING$ ]]
	run -0 "$KINF" get pods --kubeconfig "$SIM_KUBECONFIG" -L app,tier
	[[ ${lines[0]} =~ AGE\ +APP\ +TIER$ ]]
	# a boolean with its value, short or long, as pflag reads it
	run -0 timeout 20 "$KINF" get pods --kubeconfig "$SIM_KUBECONFIG" -w=false
	[ "${lines[0]%% *}" = NAME ]
	[ "${#lines[@]}" -eq 3 ]
	run -0 timeout 20 "$KINF" get pods --kubeconfig "$SIM_KUBECONFIG" --watch=F
	[ "${#lines[@]}" -eq 3 ]
	run -2 "$KINF" get pods --kubeconfig "$SIM_KUBECONFIG" -w=maybe
	[[ $output == *"invalid value 'maybe' for '-w': expected true or false"* ]]
}

@test "a Table cell: a NUL is a byte like any other, shown as ^@; a line break ends the cell with ..., as kubectl's printTable" {
	sim_start --pods 1 --namespaces 0
	simctl POST /create '{"resource":"crontabs","object":{"metadata":{"name":"odd","namespace":"default"},"spec":{"cronSpec":"* *\u0000* * *","image":"top\nbottom","replicas":2}}}' >/dev/null
	run --separate-stderr get crontabs odd -o wide
	assert_status 0
	[[ ${lines[1]} =~ ^odd\ +\*\ \*\^@\*\ \*\ \*\ +2\ +[0-9]+s\ +top\.\.\.$ ]] || { echo "# ${lines[1]}" >&2; false; }
}

@test "a name or namespace client-go refuses is refused before any request (a namespace for namespaced types); the others go escaped as Go escapes a path" {
	sim_start --pods 1
	local n
	for n in . .. % a%2Fb; do
		run --separate-stderr get pods "$n"
		[ "$status" -eq 1 ]
		[[ $stderr == "error: invalid resource name \"$n\": [may not "* ]]
	done
	for n in .. a/b a%b; do
		run --separate-stderr get pods -n "$n"
		[ "$status" -eq 1 ]
		[[ $stderr == "error: invalid namespace \"$n\": [may not "* ]]
		# a cluster-scoped type never puts it in a path: kubectl lists it
		run --separate-stderr get nodes -n "$n" -o name
		[ "$status" -eq 0 ]
		[ "${lines[0]}" = node/node-1 ]
	done
	# each type fails alone, as in kubectl's builder: the nodes, then the error
	for n in nodes,pods 'pods/pod-0 nodes/node-1' 'nodes,pods --from-cache'; do
		run --separate-stderr get $n -n .. -o name
		[ "$status" -eq 1 ]
		[ "${lines[0]}" = node/node-1 ]
		[[ $output != *pod* ]]
		[ "$stderr" = "error: invalid namespace \"..\": [may not be '..']" ]
	done
	# none left: what kubectl prints of nothing (a header), then why
	for names in "" "pod-0 nope"; do
		run --separate-stderr get pods $names --from-cache -n .. -o custom-columns=N:.metadata.name
		[ "$status" -eq 1 ]
		[ "$output" = N ]
	done
	simctl GET /requests | jq -e 'all(.[]; .path | test("/pods") | not)'
	# A query or a space in a name is the name's: kubectl's paths, to the byte.
	run get pods 'x?watch=true'
	[ "$status" -eq 1 ]
	run get pods "a b!(c)*'"
	[ "$status" -eq 1 ]
	simctl GET /requests | jq -e '[.[] | select(.path | test("/pods/")) | [.path, .query]] == [
		["/api/v1/namespaces/default/pods/x%3Fwatch=true", {}],
		["/api/v1/namespaces/default/pods/a%20b%21%28c%29%2A%27", {}]]'
}

@test "--request-timeout goes in every query as client-go's Request puts it, in Go's words, among the others in order" {
	sim_start --pods 1
	local t want
	# a negative one too, which kubectl sends and which then limits nothing
	for t in 1500ms:1.5s 90s:1m30s 7:7s +5:5s 2h:2h0m0s 250ms:250ms -1s:-1s -90s:-1m30s; do
		run --separate-stderr get pods -l app=x --request-timeout "${t%%:*}" -v
		[ "$status" -eq 0 ]
		want="/api/v1/namespaces/default/pods?labelSelector=app%3Dx&limit=500&timeout=${t#*:} 200 OK"
		[[ $stderr == *"$want"* ]]
		# every request, discovery's too
		local gets
		gets=$(grep '^GET ' <<<"$stderr")
		[ -n "$gets" ]
		run grep -v "[?&]timeout=${t#*:}[& ]" <<<"$gets"
		[ "$status" -eq 1 ]
	done
	run --separate-stderr get pods -v
	[[ $stderr != *timeout=* ]]
	# as clientcmd's ParseTimeout reads it: empty and "-0" are none, "-1"
	# and "1.5" no duration
	for t in "" -0; do
		run --separate-stderr get pods --request-timeout="$t" -v
		[ "$status" -eq 0 ]
		[[ $stderr != *timeout=* ]]
	done
	for t in -1 1.5; do
		run --separate-stderr get pods --request-timeout="$t"
		[ "$status" -eq 2 ]
		[[ $stderr == *"invalid duration '$t'"* ]]
	done
}

@test "-v takes kubectl's levels too: 1 to 6 trace each request as -v, 7 and up headers as -v -v, 0 nothing" {
	sim_start --pods 1 --namespaces 0
	local v want="GET $SIM_API/api/v1/namespaces/default/pods?limit=500 200 OK"
	for v in "-v=6" "-v 6" "-v6" "--v=6" "--v 6" "-v 2" "-v"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$KINF" get pods --kubeconfig "$SIM_KUBECONFIG" $v
		assert_status 0
		# the table of the one pod: the 6 is no pod's name
		[ "${#lines[@]}" -eq 2 ] || { echo "# $v: $output" >&2; false; }
		[[ $stderr == *"$want"* ]] || { echo "# $v: $stderr" >&2; false; }
		[[ $stderr != *"> GET "* ]] || { echo "# $v: $stderr" >&2; false; }
	done
	for v in "-v=7" "--v 9" "-v8" "-vv"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$KINF" get pods --kubeconfig "$SIM_KUBECONFIG" $v
		assert_status 0
		[[ $stderr == *"> GET /api/v1/namespaces/default/pods?limit=500 "* ]] ||
			{ echo "# $v: $stderr" >&2; false; }
	done
	for v in "-v=0" "--v 0"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$KINF" get pods --kubeconfig "$SIM_KUBECONFIG" $v
		assert_status 0
		[ -z "$stderr" ] || { echo "# $v: $stderr" >&2; false; }
	done
	run --separate-stderr "$KINF" get pods --kubeconfig "$SIM_KUBECONFIG" -v=x
	assert_status 2
	[[ $stderr == "error: invalid value 'x' for '-v': expected a level, as kubectl's -v takes"* ]]
}
