#!/usr/bin/env bats
# Discovery as kubectl does it: aggregated discovery (/api and /apis in two
# requests) when the server offers it, and kubectl's disk cache
# (~/.kube/cache/discovery/HOST_PORT/), read and written by both.  The
# simulator logs every request by verb; discovery requests are verb
# "discovery".

load test_helper
load kubeconfig_helper
bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR
}

# The paths of the discovery requests since the last clear, one line.
discovery_requests() {
	simctl GET '/requests?verb=discovery' | jq -r '[.[].path] | join(" ")'
}
clear_requests() { simctl DELETE /requests >/dev/null; }

# Where kubectl (and kinf) keep the simulator's discovery documents.
cache_dir() { echo "$HOME/.kube/cache/discovery/127.0.0.1_${SIM_API##*:}"; }

@test "kube-sim: aggregated discovery v2 or v2beta1, whichever the client's Accept header names first" {
	sim_start --pods 1 --aggregated-discovery
	local v2='application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'
	local v2b1='application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList'
	run simcurl -H "Accept: $v2,$v2b1,application/json" -D "$T/h" /apis
	[ "$(jq -r .apiVersion <<<"$output")" = apidiscovery.k8s.io/v2 ]
	grep -qi "^content-type: $v2" "$T/h"
	run simcurl -H "Accept: $v2b1,application/json" /api
	[ "$(jq -r .apiVersion <<<"$output")" = apidiscovery.k8s.io/v2beta1 ]
	# Subresources come with their parent, as a real server sends them.
	[ "$(jq -r '.items[0].versions[0].resources[] | select(.resource == "pods") | [.subresources[].subresource] | join(",")' <<<"$output")" = status,log ]
	run simcurl -H "Accept: application/json,$v2" /api
	[ "$(jq -r .kind <<<"$output")" = APIVersions ]
	sim_stop
	sim_start --pods 1 --aggregated-discovery v2beta1
	run simcurl -H "Accept: $v2,$v2b1,application/json" /apis
	[ "$(jq -r .apiVersion <<<"$output")" = apidiscovery.k8s.io/v2beta1 ]
}

@test "aggregated discovery: two requests, asking for v2, then v2beta1, then the legacy documents" {
	sim_start --pods 2 --aggregated-discovery
	run_kinf get pods --kubeconfig "$SIM_KUBECONFIG" -v
	assert_status 0
	[ "$(discovery_requests)" = "/api /apis" ]
	[[ $stderr == *"discovery: aggregated (apidiscovery.k8s.io/v2), 2 requests"* ]]
	[ "$(simctl GET '/requests?verb=discovery' | jq -r '.[0].headers.Accept')" = \
	  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json" ]
	# A server of the v2beta1 days (Kubernetes 1.26, 1.27).
	sim_stop
	sim_start --pods 2 --aggregated-discovery v2beta1
	run_kinf watch crontabs --kubeconfig "$SIM_KUBECONFIG" -v --timeout 1s
	[[ $stderr == *"discovery: aggregated (apidiscovery.k8s.io/v2beta1), 2 requests"* ]]
	[ "$(discovery_requests)" = "/api /apis" ]
}

@test "a server without aggregated discovery: one request per group version, as before" {
	sim_start --pods 2
	run_kinf get pods --kubeconfig "$SIM_KUBECONFIG"
	assert_status 0
	[ "$(discovery_requests | tr ' ' '\n' | sort | tr '\n' ' ')" = \
	  "/api /api/v1 /apis /apis/apps/v1 /apis/stable.example.com/v1 " ]
}

@test "each discovery request says kubectl's limit, its own 32 s or --request-timeout" {
	sim_start --pods 2
	# (/version is the kubectl dispatcher's, which picks a kubectl by it)
	local queries='[.[] | select(.path != "/version") | "\(.path) \(.query.timeout)"] | sort | join(" ")'
	local flags
	for flags in "" "--request-timeout 5s"; do
		rm -rf "$T/k" "$T/i"
		clear_requests
		kubectl get pods --kubeconfig "$SIM_KUBECONFIG" --cache-dir "$T/k" $flags >/dev/null
		local want
		want=$(simctl GET '/requests?verb=discovery' | jq -r "$queries")
		clear_requests
		run_kinf get pods --kubeconfig "$SIM_KUBECONFIG" --cache-dir "$T/i" $flags
		assert_status 0
		[ "$(simctl GET '/requests?verb=discovery' | jq -r "$queries")" = "$want" ]
		[[ $want == "/api ${flags#--request-timeout }"* ]] || [[ $want == "/api 32s"* && -z $flags ]]
	done
}

@test "the second start reads discovery from the disk cache: no discovery request" {
	sim_start --pods 2 --aggregated-discovery
	run_kinf get pods --kubeconfig "$SIM_KUBECONFIG"
	assert_status 0
	[ -f "$(cache_dir)/servergroups.json" ]
	[ -f "$(cache_dir)/v1/serverresources.json" ]
	[ -f "$(cache_dir)/apps/v1/serverresources.json" ]
	clear_requests
	run_kinf watch pods,deployments,crontabs --kubeconfig "$SIM_KUBECONFIG" -v --timeout 2s
	[[ $stderr == *"discovery: from the cache in '$(cache_dir)'"* ]]
	[ -z "$(discovery_requests)" ]
	# It watched all three all the same.
	[ "$(simctl GET '/requests?verb=watch' | jq -r '[.[].resource] | sort | join(",")')" = crontabs,deployments,pods ]
}

@test "kubectl fills the cache, kinf reads it: no discovery request" {
	command -v kubectl >/dev/null || skip "no kubectl"
	sim_start --pods 2 --aggregated-discovery
	kubectl --kubeconfig "$SIM_KUBECONFIG" get pods >/dev/null
	[ -f "$(cache_dir)/servergroups.json" ]
	clear_requests
	run_kinf get deployments --kubeconfig "$SIM_KUBECONFIG"
	assert_status 0
	assert_output_contains web
	[ -z "$(discovery_requests)" ]
	run_kinf get ct --kubeconfig "$SIM_KUBECONFIG"	# a short name, from kubectl's file
	assert_status 0
	[ -z "$(discovery_requests)" ]
}

@test "kinf fills the cache, kubectl reads it: no request for /api or /apis" {
	command -v kubectl >/dev/null || skip "no kubectl"
	sim_start --pods 2 --aggregated-discovery
	run_kinf get pods --kubeconfig "$SIM_KUBECONFIG"
	assert_status 0
	clear_requests
	run kubectl --kubeconfig "$SIM_KUBECONFIG" get deployments.apps,ct
	[ "$status" -eq 0 ]
	assert_output_contains web
	# (kubectl asks /version for itself; the groups and resources came from kinf's files.)
	[ -z "$(discovery_requests | tr ' ' '\n' | grep -v '^/version$' || true)" ]
	# Files as client-go writes them: mode 0660, in 0750 directories.
	[ "$(stat -c %a "$(cache_dir)/servergroups.json")" = 660 ]
	[ "$(stat -c %a "$(cache_dir)/apps/v1/serverresources.json")" = 660 ]
	[ "$(( 0$(stat -c %a "$(cache_dir)/apps") & 027 ))" -eq 0 ]
	# Subresources are kept for kubectl, though kinf itself has no use for them.
	jq -e '.resources[] | select(.name == "deployments/scale")' "$(cache_dir)/apps/v1/serverresources.json" >/dev/null
}

@test "a cached group version whose file is missing is asked for alone" {
	sim_start --pods 2
	run_kinf get pods --kubeconfig "$SIM_KUBECONFIG"
	rm "$(cache_dir)/stable.example.com/v1/serverresources.json"
	clear_requests
	run_kinf get crontabs --kubeconfig "$SIM_KUBECONFIG"
	assert_status 0
	[ "$(discovery_requests)" = "/apis/stable.example.com/v1" ]
	[ -f "$(cache_dir)/stable.example.com/v1/serverresources.json" ]
}

@test "a name the cache does not know: kinf asks the server again, and rewrites the cache" {
	sim_start --pods 2 --aggregated-discovery
	run_kinf get pods --kubeconfig "$SIM_KUBECONFIG"
	# As if the cache were from before the CRD existed.
	jq 'del(.groups[] | select(.name == "stable.example.com"))' "$(cache_dir)/servergroups.json" >"$T/groups"
	cp "$T/groups" "$(cache_dir)/servergroups.json"
	clear_requests
	run_kinf watch pods,crontabs --kubeconfig "$SIM_KUBECONFIG" -v --timeout 1s
	assert_status 0
	[[ $stderr == *"discovery: 'crontabs' is not in the cache, asking the server"* ]]
	[ "$(discovery_requests)" = "/api /apis" ]
	jq -e '.groups[] | select(.name == "stable.example.com")' "$(cache_dir)/servergroups.json" >/dev/null
	# A name nobody has: the server is asked once, and the answer is the usual one.
	clear_requests
	run_kinf get nosuchthings --kubeconfig "$SIM_KUBECONFIG"
	assert_one_line_error "the server doesn't have a resource type 'nosuchthings'"
	[ "$(discovery_requests)" = "/api /apis" ]
}

@test "cache files older than 6 hours are not used" {
	sim_start --pods 2 --aggregated-discovery
	run_kinf get pods --kubeconfig "$SIM_KUBECONFIG"
	find "$(cache_dir)" -type f -exec touch -d '359 minutes ago' {} +
	clear_requests
	run_kinf get pods --kubeconfig "$SIM_KUBECONFIG"
	[ -z "$(discovery_requests)" ]
	find "$(cache_dir)" -type f -exec touch -d '361 minutes ago' {} +
	clear_requests
	run_kinf get pods --kubeconfig "$SIM_KUBECONFIG"
	[ "$(discovery_requests)" = "/api /apis" ]
}

@test "--cache-dir, else KUBECACHEDIR, else ~/.kube/cache" {
	sim_start --pods 2 --aggregated-discovery
	local hp=127.0.0.1_${SIM_API##*:}
	run_kinf get pods --kubeconfig "$SIM_KUBECONFIG" --cache-dir "$T/flag"
	[ -f "$T/flag/discovery/$hp/servergroups.json" ]
	KUBECACHEDIR=$T/env run_kinf get pods --kubeconfig "$SIM_KUBECONFIG"
	[ -f "$T/env/discovery/$hp/servergroups.json" ]
	KUBECACHEDIR=$T/env run_kinf get pods --kubeconfig "$SIM_KUBECONFIG" --cache-dir "$T/flag2"
	[ -f "$T/flag2/discovery/$hp/servergroups.json" ]
	[ ! -e "$HOME/.kube/cache" ]
}

@test "api-resources asks the server, as kubectl does; --cached reads the cache" {
	sim_start --pods 2 --aggregated-discovery
	run_kinf api-resources --kubeconfig "$SIM_KUBECONFIG" -o name
	clear_requests
	run_kinf api-resources --kubeconfig "$SIM_KUBECONFIG" -o name
	assert_output_contains deployments.apps
	[ "$(discovery_requests)" = "/api /apis" ]
	clear_requests
	run_kinf api-resources --kubeconfig "$SIM_KUBECONFIG" -o name --cached
	assert_output_contains deployments.apps
	[ -z "$(discovery_requests)" ]
	# the tables are kubectl's, to the byte: "ct" in a column at least six wide
	for args in "" "-o wide" "--no-headers" "--api-group=stable.example.com --no-headers" \
		"--sort-by=name" "--sort-by=kind -o wide" "--namespaced=false --sort-by=kind" \
		"--namespaced" "--namespaced=F -o name" "--sort-by= --output="; do
		want=$(kubectl --kubeconfig "$SIM_KUBECONFIG" api-resources $args)
		run_kinf api-resources --kubeconfig "$SIM_KUBECONFIG" $args
		[ "$output" = "$want" ] || { diff <(echo "$want") <(echo "$output"); false; }
	done
}

@test "api-resources whose discovery fails prints kubectl's header, then the error" {
	sim_start --pods 2
	local args want
	for args in "" "-o wide" "-o name" "--no-headers"; do
		simctl POST /faults '{"verb":"discovery","kind":"500"}' >/dev/null
		want=$(kubectl --kubeconfig "$SIM_KUBECONFIG" api-resources $args 2>/dev/null) && false || [ $? -eq 1 ]
		simctl POST /faults '{"verb":"discovery","kind":"500"}' >/dev/null
		run_kinf api-resources --kubeconfig "$SIM_KUBECONFIG" $args
		assert_status 1
		[ "$output" = "$want" ] || { diff <(echo "$want") <(echo "$output"); false; }
		[[ $stderr == "error: discover the server's APIs: "*"(500)" ]]
	done
	[ "$output" = "" ]	# --no-headers: nothing
	run_kinf api-resources --kubeconfig "$SIM_KUBECONFIG"
	assert_status 0
}

@test "a cache that cannot be written costs nothing but the cache" {
	sim_start --pods 2 --aggregated-discovery
	: >"$T/not-a-dir"
	run_kinf get pods --kubeconfig "$SIM_KUBECONFIG" --cache-dir "$T/not-a-dir" -v
	assert_status 0
	assert_output_contains pod-0
	[[ $stderr == *"discovery: not cached: cannot make directory '$T/not-a-dir/discovery"* ]]
}

@test "get asks for discovery again after a failure, five times in all, as kubectl's get" {
	sim_start --pods 2
	# Two failures: said, then the third try answers.
	simctl POST /faults '{"verb":"discovery","kind":"503","count":2}' >/dev/null
	clear_requests
	run --separate-stderr "$KINF" get pods --kubeconfig "$SIM_KUBECONFIG"
	assert_status 0
	grep -q '^pod-1 ' <<<"$output"
	[ "$(grep -c "unable to handle the request (503); asking again, as kubectl does$" <<<"$stderr")" -eq 2 ]
	[ "$(discovery_requests | tr ' ' '\n' | grep -c '^/api$')" -eq 3 ]
	# A server that keeps failing: five tries, then the error, status 1.
	rm -rf "$(cache_dir)"
	simctl POST /faults '{"verb":"discovery","kind":"503","count":100}' >/dev/null
	clear_requests
	run --separate-stderr "$KINF" get pods pod-1 --kubeconfig "$SIM_KUBECONFIG"
	assert_status 1
	[ -z "$output" ]
	[ "$(grep -c 'asking again' <<<"$stderr")" -eq 4 ]
	[ "$(tail -n 1 <<<"$stderr")" = "error: discover the server's APIs: the server is currently unable to handle the request (503)" ]
	[ "$(discovery_requests)" = "/api /api /api /api /api" ]
}
