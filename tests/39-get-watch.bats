#!/usr/bin/env bats
# `kinf get -w`, `--watch-only` and `--output-watch-events` against
# `kubectl get` itself on the same kube-sim: both watch at once, the same
# changes are made one at a time (each waited for in both outputs), and
# their stdout must be the same bytes, in every format kubectl has.

load test_helper
load h2_helper
bats_require_minimum_version 1.5.0

kc() { kubectl --kubeconfig "$SIM_KUBECONFIG" "$@"; }

setup() {
	command -v kubectl >/dev/null || skip "kubectl is not installed (tests/deps installs it)"
	O=$BATS_TEST_TMPDIR
}

teardown() {
	h2_stop
	sim_stop 2>/dev/null || true
}

size() { stat -c %s "$1"; }
# pod_watches N — N watches of pods opened since the round began ($T0):
# those of the round before may not be closed yet.
pod_watches() {
	[ "$(simctl GET /watches | jq --argjson t0 "${T0:-0}" \
		'[.[] | select(.resource == "pods" and .started >= $t0)] | length')" -ge "$1" ]
}
round_begins() { T0=$(date +%s.%N); }
# grew FILE SIZE — FILE is longer than SIZE bytes.
grew() { [ "$(size "$1")" -gt "$2" ]; }
same_sizes() {
	local j
	for ((j = 1; j <= NSETS; j++)); do
		[ "$(size "$O/k.$j.out")" -eq "$(size "$O/i.$j.out")" ] || return 1
	done
}

# change PATH BODY — make a change, wait until every output grew.
change() {
	local f before=()
	for f in "$O"/[ki].*.out; do before+=("$(size "$f")"); done
	simctl POST "$1" "$2" >/dev/null
	local n=0
	for f in "$O"/[ki].*.out; do
		wait_until 15 grew "$f" "${before[n++]}"
	done
}

# lines_of J — $output and $lines: kinf's stdout of the round's Jth set.
lines_of() {
	output=$(cat "$O/i.$1.out")
	mapfile -t lines <"$O/i.$1.out"
}

# watch_same [--no-changes] ARGS... [:: ARGS...]... — for each set of
# ARGS, `kubectl get ARGS` and `kinf get ARGS` watch, all at once; a pod
# is added, modified and deleted while they do; then all are stopped with
# SIGTERM (status 1, as kubectl's) and each kinf's stdout compared with
# its kubectl's, byte for byte.  $output and $lines: the first set's.
watch_same() {
	local changes=1 n=$((++ROUND)) name j
	if [ "$1" = --no-changes ]; then changes=0; shift; fi
	name="watched-pod-with-a-long-name-$n"
	local -a sets=() pids=()
	local cur=""
	NSETS=0
	rm -f "$O"/[ki].*.out
	round_begins
	while :; do
		local -a args=()
		while [ $# -gt 0 ] && [ "$1" != "::" ]; do args+=("$1"); shift; done
		NSETS=$((NSETS + 1))
		sets[NSETS]="${args[*]}"
		# kubectl itself in the background, not a function's subshell: the signal is for it
		kubectl --kubeconfig "$SIM_KUBECONFIG" get "${args[@]}" >"$O/k.$NSETS.out" 2>"$O/k.$NSETS.err" &
		pids+=($!)
		"$KINF" get --kubeconfig "$SIM_KUBECONFIG" "${args[@]}" >"$O/i.$NSETS.out" 2>"$O/i.$NSETS.err" &
		pids+=($!)
		[ $# -gt 0 ] || break
		shift
	done
	# all printed their list: all watches are open
	wait_until 30 pod_watches $((2 * NSETS))
	if [ $changes = 1 ]; then
		change /create '{"resource":"pods","object":{"metadata":{"name":"'"$name"'"}}}'
		change /update '{"resource":"pods","namespace":"default","name":"'"$name"'","patch":{"status":{"phase":"Failed"},"metadata":{"labels":{"x":"y"}}}}'
		change /delete '{"resource":"pods","namespace":"default","name":"'"$name"'","graceful":false}'
	fi
	wait_until 10 same_sizes || true
	kill -TERM "${pids[@]}"
	local st=() p
	for p in "${pids[@]}"; do
		local s=0
		wait "$p" || s=$?
		st+=("$s")
	done
	for ((j = 1; j <= NSETS; j++)); do
		local ks=${st[2 * j - 2]} is=${st[2 * j - 1]}
		if ! cmp -s "$O/k.$j.out" "$O/i.$j.out" || [ "$ks" != 1 ] || [ "$is" != 1 ]; then
			echo "# kinf get ${sets[j]} differs from kubectl's (status $is, kubectl's $ks):" >&2
			diff "$O/k.$j.out" "$O/i.$j.out" | cut -c1-200 | head -20 | sed 's/^/# /' >&2
			sed 's/^/# kinf stderr: /' "$O/i.$j.err" >&2
			return 1
		fi
		# a comparison of nothing compares nothing
		[ -s "$O/k.$j.out" ]
	done
	lines_of 1
}

@test "get -w: the table, wide, -A, labels and kind columns, as kubectl's, row by row" {
	sim_start --pods 4
	watch_same pods -w :: pods --watch -o wide :: pods -w -A --show-kind -L app --show-labels \
		:: pods -w --no-headers
	[ "${#lines[@]}" -eq 8 ]
	[[ ${lines[0]} == "NAME "* ]]
	# the new pod's rows are wider than the list's: kubectl's remembered widths
	[[ ${lines[5]} == "watched-pod-with-a-long-name-1   "* ]]
	[[ ${lines[7]} == "watched-pod-with-a-long-name-1   "* ]]
}

@test "get -w --output-watch-events and --watch-only: EVENT, ADDED then MODIFIED and DELETED; no list" {
	sim_start --pods 3
	watch_same pods -w --output-watch-events :: pods -w -A -o wide --output-watch-events \
		:: pods --watch-only :: pods --watch-only --output-watch-events :: pods --watch-only -o name
	[[ ${lines[0]} == "EVENT      NAME "* ]]
	[[ ${lines[1]} == "ADDED      pod-0 "* ]]
	[[ ${lines[5]} == "MODIFIED   watched-pod-"* ]]
	[[ ${lines[6]} == "DELETED    watched-pod-"* ]]
	# --watch-only: the header with the first event
	lines_of 3
	[ "${#lines[@]}" -eq 4 ]
	[[ ${lines[1]} == watched-pod-* ]]
}

@test "get -w -o json, yaml and name, with and without --output-watch-events" {
	sim_start --pods 3
	watch_same pods -w -o json :: pods -w -o json --output-watch-events :: pods -w -o yaml \
		:: pods -w -o yaml --output-watch-events :: pods -w -o name
	[ "$(grep -c '^{$' <<<"$output")" -eq 6 ]
	lines_of 2
	[ "${#lines[@]}" -eq 6 ]
	[[ ${lines[5]} == '{"type":"DELETED","object":{"apiVersion":"v1","kind":"Pod",'* ]]
	lines_of 3
	[ "$(grep -c '^---$' <<<"$output")" -eq 5 ]
	lines_of 5
	[ "${lines[5]}" = "pod/watched-pod-with-a-long-name-1" ]
}

@test "get -w over a LIST of pages: kubectl's List of them, each page printed whole where its printer does" {
	sim_start --pods 3
	local i x=(c b a)
	for i in 0 1 2; do
		simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-'$i'","patch":{"metadata":{"labels":{"x":"'${x[i]}'"}}}}' >/dev/null
	done
	watch_same pods -w -o json --chunk-size=2 :: pods -w -o 'jsonpath={.kind}{"\n"}' --chunk-size=2 \
		:: pods -w -o yaml --output-watch-events --chunk-size=2 :: pods -w -o name --chunk-size=2 \
		:: pods -w -o 'custom-columns=E:.type,K:.object.kind' --output-watch-events --chunk-size=2 \
		:: pods -w -o 'custom-columns=K:.kind' --chunk-size=2 \
		:: pods -w --sort-by=.metadata.labels.x --chunk-size=2
	[ "$(grep -c '^    "kind": "PodList",$' <<<"$output")" -eq 2 ]
	lines_of 2
	[ "$output" = $'PodList\nPodList\nPod\nPod\nPod' ]
	# -o name and the objects' custom columns take a list's items
	lines_of 4
	[ "${#lines[@]}" -eq 6 ]
	lines_of 6
	[ "${lines[1]}" = Pod ]
	# each page's Table sorted, not the whole list
	lines_of 7
	[[ ${lines[1]} == "pod-1 "* && ${lines[2]} == "pod-0 "* && ${lines[3]} == "pod-2 "* ]]
	# nor a Table of one row: a field it has not fails nothing
	local want
	want=$(kc get pods pod-0 -w --sort-by=.status.nope --request-timeout=1s 2>/dev/null)
	run --separate-stderr "$KINF" get pods pod-0 -w --sort-by=.status.nope --request-timeout=1s \
		--kubeconfig "$SIM_KUBECONFIG"
	assert_status 0
	[ "$output" = "$want" ] && [[ $output == *pod-0* ]]
}

@test "get -w over pages whose resourceVersions differ: the watch asks for none, as kubectl's" {
	local sc=$BATS_TEST_TMPDIR/sc.json who want got
	# kubectl's and kinf's LISTs, one page a request: first disagreeing, then agreeing
	jq -n '{resource: "pods", namespace: "default", final: {rv: "7", items: ["a@3", "b@4"]},
		list: ([["5", "6"], ["5", "6"], ["5", "5"], ["5", "5"]] | map(
			{rv: .[0], items: ["a@3"], continue: "c1"}, {rv: .[1], items: ["b@4"]}))}' >"$sc"
	sim_start --scenario "$sc"
	for who in kubectl kinf kubectl kinf; do
		if [ $who = kubectl ]; then
			want=$(kc get pods -w --chunk-size=1 --request-timeout=1s -o json)
		else
			got=$("$KINF" get pods -w --chunk-size=1 --request-timeout=1s -o json \
				--kubeconfig "$SIM_KUBECONFIG")
			[ "$got" = "$want" ]
		fi
	done
	[ "$(grep -c '"kind": "PodList"' <<<"$got")" -eq 2 ]
	run jq -r 'select(.kind == "watch") | .query' "$SIM_KUBECONFIG.requests"
	[ "$output" = "$(printf '%s\n' timeout=1s\&watch=true timeout=1s\&watch=true \
		resourceVersion=5\&timeout=1s\&watch=true resourceVersion=5\&timeout=1s\&watch=true)" ]
}

@test "get -w -o custom-columns, jsonpath and go-template: each event printed as kubectl does" {
	sim_start --pods 3
	watch_same pods -w -o custom-columns=NAME:.metadata.name,PHASE:.status.phase \
		:: pods -w -o 'jsonpath={.metadata.name} {.status.phase} {.metadata.labels.x}{"\n"}' \
		:: pods -w -o 'jsonpath={.type}:{.object.metadata.name}{"\n"}' --output-watch-events \
		:: pods -w -o 'go-template={{.metadata.name}} {{len .metadata.labels}}{{"\n"}}' \
		:: pods -w -o 'custom-columns=E:.type,N:.object.metadata.name' --output-watch-events \
		:: pods -w -o 'jsonpath={.metadata.name}{"\t"}{.status.phase}{"\t"}{.metadata.labels.x}{"\n"}' \
		:: pods --watch-only -o 'go-template={{.metadata.name}}{{"\t"}}{{.kind}}{{"\n"}}'
	[ "${lines[0]}" = "NAME    PHASE" ]
	lines_of 2
	[ "${lines[4]}" = "watched-pod-with-a-long-name-1 Failed y" ]
	lines_of 3
	[ "${lines[5]}" = "DELETED:watched-pod-with-a-long-name-1" ]
	# tabs aligned by kubectl's tabwriter, each column as wide as it ever was
	lines_of 6
	[[ ${lines[0]} == "pod-0   "*"   "* ]] && [[ ${lines[0]} != *$'\t'* ]]
	[[ ${lines[4]} == "watched-pod-with-a-long-name-1   Failed    y" ]]
}

@test "get -w: a template that fails prints kubectl's debugging text through its tabwriter, then the error" {
	sim_start --pods 2
	local args want want_status
	for args in "pods -w" "pods pod-0 -w" "pods --watch-only"; do
		want=$(kc get $args --request-timeout=1s '--template={{len .items}}' 2>/dev/null) &&
			want_status=0 || want_status=$?
		run --separate-stderr "$KINF" get $args --request-timeout=1s '--template={{len .items}}' \
			--kubeconfig "$SIM_KUBECONFIG"
		[ "$status" -eq "$want_status" ] && [ "$output" = "$want" ] ||
			{ echo "# get $args: status $status, kubectl's $want_status" >&2
			  diff <(echo "$want") <(echo "$output") | sed 's/^/# /' >&2; false; }
	done
	run --separate-stderr "$KINF" get pods -w --request-timeout=1s '--template={{len .items}}' \
		--kubeconfig "$SIM_KUBECONFIG"
	assert_status 1
	[ "${lines[1]}" = "      template was:" ]
	[[ $stderr == "error: unable to output the provided object: error executing template"* ]]
	# custom columns that fail: only a line of one cell leaves the tabwriter
	local cc
	for cc in 'N:.a["b"]' 'N:.metadata.name,X:.a["b"]' 'I:.spec.containers[5].name' \
		  'N:.metadata.name,I:.spec.containers[5].name'; do
		want=$(kc get pods -w --request-timeout=1s -o "custom-columns=$cc" 2>/dev/null) &&
			want_status=0 || want_status=$?
		run --separate-stderr "$KINF" get pods -w --request-timeout=1s -o "custom-columns=$cc" \
			--kubeconfig "$SIM_KUBECONFIG"
		[ "$status" -eq "$want_status" ] && [ "$output" = "$want" ] ||
			{ echo "# custom-columns=$cc: status $status, kubectl's $want_status" >&2
			  diff <(echo "$want") <(echo "$output") | sed 's/^/# /' >&2; false; }
	done
}

@test "get -w -o jsonpath with a range: after its first object, kubectl's printer starts inside the range, and fails" {
	sim_start --pods 3
	local args want want_status tpl
	for tpl in '{range .items[*]}{.metadata.name}{"\n"}{end}' \
		   '{.metadata.name}{range .spec.containers[*]} {.name}{end}{"\n"}'; do
		for args in "pods -w" "pods -w --chunk-size=1" "pods pod-0 -w"; do
			want=$(kc get $args --request-timeout=1s -o jsonpath="$tpl" 2>/dev/null) &&
				want_status=0 || want_status=$?
			run --separate-stderr "$KINF" get $args --request-timeout=1s -o jsonpath="$tpl" \
				--kubeconfig "$SIM_KUBECONFIG"
			[ "$status" -eq "$want_status" ] && [ "$output" = "$want" ] ||
				{ echo "# get $args -o jsonpath=$tpl: status $status, kubectl's $want_status" >&2
				  diff <(echo "$want") <(echo "$output") | sed 's/^/# /' >&2; false; }
		done
	done
	# the second template's last run: pod-0's line, then pod-1's fails
	[ "$output" = "pod-0 app" ]
	run --separate-stderr "$KINF" get pods -w --request-timeout=1s -o jsonpath="$tpl" \
		--kubeconfig "$SIM_KUBECONFIG"
	assert_status 1
	[ "$output" = "pod-0 app" ]
	[[ $stderr == *"Error executing template: not in range, nothing to end"* ]]
}

@test "get NAME -w: the object, then its changes only (the watch's first event not printed again)" {
	sim_start --pods 3
	watch_same --no-changes pods pod-1 -w
	[ "${#lines[@]}" -eq 2 ]
	# a change to it is printed, one to another pod is not
	round_begins
	kubectl --kubeconfig "$SIM_KUBECONFIG" get pod/pod-1 -w -o name >"$O/k.1.out" & local kpid=$!
	"$KINF" get pod/pod-1 -w -o name --kubeconfig "$SIM_KUBECONFIG" >"$O/i.1.out" & local ipid=$!
	wait_until 20 pod_watches 2
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-2","patch":{"metadata":{"labels":{"x":"1"}}}}' >/dev/null
	change /update '{"resource":"pods","namespace":"default","name":"pod-1","patch":{"metadata":{"labels":{"x":"1"}}}}'
	kill "$kpid" "$ipid"
	wait "$kpid" "$ipid" || true
	cmp "$O/k.1.out" "$O/i.1.out"
	[ "$(cat "$O/i.1.out")" = $'pod/pod-1\npod/pod-1' ]
}

@test "get -w asks what kubectl asks: one LIST (a Table where one is printed), one WATCH from its RV" {
	sim_start --pods 3
	# A name holding ',' and '=' (an RBAC role's may) is escaped in the
	# watch's field selector as kubectl escapes it.
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"a,b=c"}}}' >/dev/null
	local a
	for a in "pods -w" "pods -w -o json" "pods -w --sort-by=.metadata.name" "pods pod-1 -w" \
		 "pods a,b=c -w" \
		 "pods -A -w -o wide -l app=web --chunk-size=1" "pods -w --field-selector=spec.nodeName=node-1" \
		 "pods -w --chunk-size=-1"; do
		simctl DELETE /requests >/dev/null
		round_begins
		kubectl --kubeconfig "$SIM_KUBECONFIG" get $a >/dev/null 2>&1 & local kpid=$!
		"$KINF" get --kubeconfig "$SIM_KUBECONFIG" $a >/dev/null 2>&1 & local ipid=$!
		wait_until 20 pod_watches 2
		kill "$kpid" "$ipid"
		wait "$kpid" "$ipid" || true
		run simctl GET /requests
		local who want got
		for who in kubectl kinf; do
			printf -v "$who" '%s' "$(jq -cS --arg ua "$who/" '[.[] | select(.verb != "discovery" and (.userAgent | startswith($ua)))
				| {verb, path, query, accept: .headers.Accept}]' <<<"$output")"
		done
		if [ "$kinf" != "$kubectl" ]; then
			echo "# get $a: kinf asked $kinf" >&2
			echo "#        kubectl asked $kubectl" >&2
			return 1
		fi
		[ "$(jq '[.[] | select(.verb == "watch")] | length' <<<"$kinf")" -eq 1 ]
	done
}

@test "get -w: a 410 (ERROR event) and the server's end of the watch end it with status 0, as kubectl's" {
	sim_start --pods 3
	local a
	for a in "pods -w" "pods -w --output-watch-events" "pods -w -o json" \
		 "pods -w -o json --output-watch-events" "pods -w -o yaml" "pods -w -o name" \
		 "pods -w -o custom-columns=N:.metadata.name"; do
		simctl POST /faults '{"verb":"watch","resource":"pods","kind":"410","count":2}' >/dev/null
		run --separate-stderr timeout 10 kubectl --kubeconfig "$SIM_KUBECONFIG" get $a
		assert_status 0
		local want=$output
		run --separate-stderr timeout 10 "$KINF" get --kubeconfig "$SIM_KUBECONFIG" $a
		assert_status 0
		[ "$output" = "$want" ] || { diff <(echo "$want") <(echo "$output") | head >&2; return 1; }
		[ -z "$stderr" ]
	done
	# custom columns: a header again for the Status, its cell <none>
	[ "$(tail -n 2 <<<"$output")" = $'N\n<none>' ]
	simctl POST /faults '{"verb":"watch","resource":"pods","kind":"410"}' >/dev/null
	run --separate-stderr timeout 10 "$KINF" get --kubeconfig "$SIM_KUBECONFIG" pods --watch-only
	[ "${lines[0]}" = "STATUS    REASON    MESSAGE" ]
	[[ ${lines[1]} =~ ^Failure\ +Expired\ +too\ old\ resource\ version ]]
	# the server ends the watch (its timeout): status 0, nothing more
	round_begins
	"$KINF" get --kubeconfig "$SIM_KUBECONFIG" pods -w -o name >"$O/i.out" & local ipid=$!
	wait_until 20 pod_watches 1
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	local st=0
	wait "$ipid" || st=$?
	[ "$st" -eq 0 ]
	[ "$(wc -l <"$O/i.out")" -eq 3 ]
}

@test "get -w: a BOOKMARK the server sends anyway is never printed" {
	sim_start --pods 1
	simctl POST /faults "$(jq -cn '{verb:"watch", resource:"pods", kind:"lines", end:true, lines:[
		"{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"99\"}}}",
		"{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"late\",\"namespace\":\"default\",\"resourceVersion\":\"100\"}}}"]}')" >/dev/null
	run --separate-stderr timeout 10 "$KINF" get --kubeconfig "$SIM_KUBECONFIG" pods --watch-only -o name
	assert_status 0
	[ "$output" = "pod/late" ]
}

@test "get -w: the flags' rules, and --deltas for kinf's own view" {
	sim_start --pods 2
	run --separate-stderr "$KINF" get --kubeconfig "$SIM_KUBECONFIG" pods --output-watch-events
	assert_status 2
	[[ $stderr == *"--output-watch-events option can only be used with --watch or --watch-only"* ]]
	run --separate-stderr "$KINF" get --kubeconfig "$SIM_KUBECONFIG" pods,deployments -w
	assert_status 2
	[[ $stderr == *"you may only specify a single resource type"* ]]
	run --separate-stderr "$KINF" get --kubeconfig "$SIM_KUBECONFIG" pods -w --from-cache
	assert_status 2
	simctl POST /faults '{"verb":"watch","resource":"pods","kind":"410"}' >/dev/null
	run --separate-stderr timeout 10 "$KINF" get --kubeconfig "$SIM_KUBECONFIG" pods -w --sort-by=.metadata.name -o name
	[ "$stderr" = "warning: --watch or --watch-only requested, --sort-by will be ignored" ]
	# --deltas: what `kinf watch` prints, its options after
	run --separate-stderr "$KINF" get pods -w --deltas --kubeconfig "$SIM_KUBECONFIG" --timeout 3s -q -o json
	assert_status 0
	[ "$(jq -s 'map(select(.handler == "OnAdd")) | length' <<<"$output")" -eq 2 ]
	[ "$(jq -rs '.[0].resource' <<<"$output")" = pods ]
}

# same_as_kubectl_on [--alone] LINE ARGS... — the watch sends a pod (not
# with --alone: a pod, not a Table, is no row a table would print as
# kubectl does), LINE and a pod, then ends; kinf get pods --watch-only
# ARGS must print what kubectl prints, and end with its status.
same_as_kubectl_on() {
	local first='{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"first","namespace":"default","resourceVersion":"99"}}}'
	[ "$1" != --alone ] || { first=; shift; }
	local line=$1 want wantst
	shift
	local fault
	fault=$(jq -cn --arg bad "$line" --arg first "$first" '{verb:"watch", resource:"pods", kind:"lines", count:1, end:true, lines:[
		$first, $bad,
		"{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"after\",\"namespace\":\"default\",\"resourceVersion\":\"101\"}}}"]}')
	simctl POST /faults "$fault" >/dev/null
	run --separate-stderr timeout 20 kubectl --kubeconfig "$SIM_KUBECONFIG" get pods --watch-only "$@"
	want=$output wantst=$status
	simctl POST /faults "$fault" >/dev/null
	run --separate-stderr timeout 20 "$KINF" get --kubeconfig "$SIM_KUBECONFIG" pods --watch-only "$@"
	if [ "$output" != "$want" ] || [ "$status" != "$wantst" ]; then
		echo "# on $line, get $*: kinf's status $status, kubectl's $wantst" >&2
		diff <(echo "$want") <(echo "$output") | cut -c1-300 | head -20 | sed 's/^/# /' >&2
		return 1
	fi
}

@test "get -w: an event kubectl's decoder refuses is told as kubectl tells it (its Status), and ends the watch" {
	sim_start --pods 1
	local bad a fails=0
	local pod='"kind":"Pod","apiVersion":"v1","metadata":{"name":"x","namespace":"default","resourceVersion":"100"}'
	for bad in '{"type":"ADDED","object":{"kind":"Pod",}}' \
		   '{"type":"ADDED","object":{ "apiVersion":"v1",  "metadata":{"name":"nokind"}}}' \
		   '{"type":"SOMETHING","object":{'"$pod"'}}' '{"type":"ADDED","object":5}' \
		   '{"type":"ADDED"}' '{"type":"ADDED","object":null}' '[1]' '"str"' 'null' 'true x' \
		   '{"type":"ADDED","object":{'"$pod"'}}x' '{"type":5,"object":{}}' \
		   '{"type":"ADDED","object":{"kind":5}}' '{"type":"ADDED","object":{"kind":""}}' \
		   '{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a\qb"}}}' \
		   '{"type":"ERROR","object":{}}' '{"type":"ADDED","kind":7,"object":{'"$pod"'}}' \
		   '{"type":"ADDED","\u212aIND":7,"object":{'"$pod"'}}' \
		   '{"type":"ADDED","AP'$'\xc4\xb1''VERSION":{},"object":{'"$pod"'}}' \
		   '{"type":"ADDED","APIVER'$'\xc5\xbf''ION":{},"object":{'"$pod"'}}' \
		   '{"type":"ADDED","K'$'\xc4\xb0''ND":{},"object":{'"$pod"'}}' \
		   '{"type":"ADDED","'$'\xc5\xbf''ind":7,"object":{'"$pod"'}}' \
		   '{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":7}}}' \
		   '{"type":"ERROR","object":{"kind":"Status"}}' '{"type":"ADDED","object":[]}' \
		   '{"type":"MODIFIED","object":{'"$pod"'}}  {"a"' 'nul' '-' '0.x' '1e' 'tru ' '{"a":"\u12G4"}' \
		   '{"a" 1}' '{"a":1 2}' '[1 2]' '{"é":"'$'\x01''"}' $'\x80' "'" '{"type":"ADDED","object":{"kind":"Pod"}}]' \
		   '{"type":"ADDED","object":{'"$pod"',"spec":{"x":1e400}}}' \
		   '{"type":"ADDED","object":{'"$pod"',"spec":{"a":[1,{"b":-2E+309}],"c":1e999}}}' \
		   '{"type":"ADDED","1e999":1e999,"object":{'"$pod"',"spec":{"y":1e-400,"z":1.7976931348623157e308}}}'; do
		same_as_kubectl_on "$bad" --output-watch-events -o json || fails=$((fails + 1))
	done
	# a Status not of apiVersion v1 is not decoded into kubectl's type
	bad='{"type":"ERROR","object":{"kind":"Status","message":"m","code":7}}'
	for a in "-o name" "-o json" "-o yaml" "-o json --output-watch-events"; do
		same_as_kubectl_on "$bad" $a || fails=$((fails + 1))
	done
	for bad in '{"type":"SOMETHING","object":{'"$pod"'}}' \
		   '{"type":"ADDED","object":{"apiVersion":"v1","metadata":{"name":"nokind"}}}'; do
		for a in "-o name" "-o json" "-o yaml" "-o yaml --output-watch-events" \
			 "-o custom-columns=N:.metadata.name,M:.message" "-o jsonpath={.kind}{.message}"; do
			same_as_kubectl_on "$bad" $a || fails=$((fails + 1))
		done
		for a in "" "-o wide" "--output-watch-events"; do
			same_as_kubectl_on --alone "$bad" $a || fails=$((fails + 1))
		done
	done
	[ "$fails" -eq 0 ]
}

open_watches() { [ "$(simctl GET /stats | jq .openWatches)" -eq "$1" ]; }

# reset_watch OUT CMD... — CMD's watch is reset by the HTTP/2 front end
# once open (the sim drops its side abruptly); stdout and status in OUT.
reset_watch() {
	local out=$1 rc=0 pid
	shift
	HOME=$O "$@" >"$out" 2>"$out.err" &
	pid=$!
	wait_until 20 open_watches 1
	simctl POST /drop-watches '{"mode":"abrupt"}' >/dev/null
	wait "$pid" || rc=$?
	echo "status $rc" >>"$out"
	wait_until 10 open_watches 0
}

@test "get -w: an HTTP/2 stream the server resets is told as kubectl tells it (Go's stream error), status 0" {
	sim_start --pods 1
	h2_start
	# discovery from kubectl's cache from now on: each makes its LIST and WATCH alone
	HOME=$O kubectl --kubeconfig "$H2_KUBECONFIG" get pods >/dev/null
	local a fails=0
	for a in "" "-o json" "--output-watch-events -o json" "-o name" "-o wide"; do
		reset_watch "$O/k" kubectl --kubeconfig "$H2_KUBECONFIG" get pods -w $a
		reset_watch "$O/i" "$KINF" get --kubeconfig "$H2_KUBECONFIG" pods -w $a
		cmp -s "$O/k" "$O/i" || { diff "$O/k" "$O/i" | cut -c1-300 | sed "s/^/# $a: /" >&2; fails=$((fails + 1)); }
	done
	grep -q 'stream error: stream ID [0-9]*; INTERNAL_ERROR; received from peer' "$O/i"
	[ "$fails" -eq 0 ]
}

@test "get and get -w from a server without Tables: kubectl's NAME and AGE, from its one answer" {
	sim_start --pods 1
	local pod='{"kind":"Pod","apiVersion":"v1","metadata":{"name":"NAME","namespace":"default","labels":{"app":"x"},"creationTimestamp":"2020-01-01T00:00:00Z"},"status":{"phase":"Running"}}'
	local list event a fails=0
	list=$(jq -cn --argjson p "${pod/NAME/listed}" '{kind:"PodList",apiVersion:"v1",metadata:{resourceVersion:"1"},items:[$p]}')
	event=$(jq -cn --argjson p "${pod/NAME/watched}" '{type:"ADDED",object:$p}')
	local lfault wfault
	lfault=$(jq -cn --arg b "$list" '{verb:"list", resource:"pods", kind:"body", contentType:"application/json", status:200, body:$b}')
	wfault=$(jq -cn --arg e "$event" '{verb:"watch", resource:"pods", kind:"lines", end:true, lines:[$e]}')
	for a in "" "-o wide" "-A" "-L app" "--show-labels" "--show-kind" "--no-headers" \
		 "-w" "-w --output-watch-events" "-w -A --show-kind"; do
		local want wantst
		simctl POST /faults "$lfault" >/dev/null
		[[ $a != -w* ]] || simctl POST /faults "$wfault" >/dev/null
		run --separate-stderr timeout 20 kubectl --kubeconfig "$SIM_KUBECONFIG" get pods $a
		want=$output wantst=$status
		simctl POST /faults "$lfault" >/dev/null
		[[ $a != -w* ]] || simctl POST /faults "$wfault" >/dev/null
		run --separate-stderr timeout 20 "$KINF" get --kubeconfig "$SIM_KUBECONFIG" pods $a
		if [ "$output" != "$want" ] || [ "$status" != "$wantst" ]; then
			echo "# get pods $a: kinf's status $status, kubectl's $wantst" >&2
			diff <(echo "$want") <(echo "$output") | head -10 | sed 's/^/# /' >&2
			fails=$((fails + 1))
		fi
		# the answer printed is the one answer: no second LIST
		[[ $output == *listed* ]] || [[ $a == --no-headers ]] || fails=$((fails + 1))
	done
	[ "$fails" -eq 0 ]
}

@test "get -w: a last page without metadata is printed as kubectl prints it, whole or by its items" {
	sim_start --pods 2 --namespaces 0
	local pod='{"kind":"Pod","apiVersion":"v1","metadata":{"name":"lastpage","namespace":"default","creationTimestamp":"2020-01-01T00:00:00Z"}}'
	local lfault wfault a want wantst fails=0
	lfault=$(jq -cn --arg b "$(jq -cn --argjson p "$pod" '{kind:"PodList",apiVersion:"v1",items:[$p]}')" \
		'{verb:"list-continue", resource:"pods", kind:"body", contentType:"application/json", status:200, body:$b, count:1}')
	wfault='{"verb":"watch","resource":"pods","kind":"lines","end":true,"lines":[]}'
	for a in "-o json" "-o name" "-o jsonpath={.items[*].metadata.name}" "--output-watch-events -o json" \
		 "-o go-template={{.kind}}" "-o custom-columns=N:.metadata.name"; do
		simctl POST /faults "$lfault" >/dev/null
		simctl POST /faults "$wfault" >/dev/null
		run --separate-stderr timeout 20 kubectl --kubeconfig "$SIM_KUBECONFIG" get pods --chunk-size=1 -w $a
		want=$output wantst=$status
		simctl DELETE /faults >/dev/null
		simctl POST /faults "$lfault" >/dev/null
		simctl POST /faults "$wfault" >/dev/null
		run --separate-stderr timeout 20 "$KINF" get --kubeconfig "$SIM_KUBECONFIG" pods --chunk-size=1 -w $a
		simctl DELETE /faults >/dev/null
		if [ "$output" != "$want" ] || [ "$status" != "$wantst" ]; then
			echo "# get pods -w $a: kinf's status $status, kubectl's $wantst" >&2
			diff <(echo "$want") <(echo "$output") | head -10 | cut -c1-200 | sed 's/^/# /' >&2
			fails=$((fails + 1))
		fi
	done
	[[ $want == *lastpage* ]]
	[ "$fails" -eq 0 ]
}

@test "a Table's column names upper-cased as kubectl's strings.ToUpper: by Unicode, in any locale" {
	sim_start --pods 1
	local table fault a want fails=0
	table=$(jq -cn 'def col($n): {name:$n, type:"string", format:"", description:"", priority:0};
		{kind:"Table", apiVersion:"meta.k8s.io/v1", metadata:{resourceVersion:"1"},
		 columnDefinitions:[col("Name"), col("größe ǆ ÿ"), col("µ ı ſ ﬀ é")],
		 rows:[{cells:["a","b","c"], object:{kind:"PartialObjectMetadata", apiVersion:"meta.k8s.io/v1",
			metadata:{name:"a", namespace:"default"}}}]}')
	fault=$(jq -cn --arg b "$table" '{verb:"list", resource:"crontabs", kind:"body", contentType:"application/json", status:200, body:$b}')
	simctl POST /faults "$fault" >/dev/null
	want=$(kubectl --kubeconfig "$SIM_KUBECONFIG" get crontabs)
	[[ $want == *GRÖßE* ]]
	for a in C C.UTF-8; do
		simctl POST /faults "$fault" >/dev/null
		run --separate-stderr env LC_ALL=$a "$KINF" get --kubeconfig "$SIM_KUBECONFIG" crontabs
		assert_status 0
		[ "$output" = "$want" ] || { diff <(echo "$want") <(echo "$output") | sed "s/^/# $a: /" >&2; fails=$((fails + 1)); }
	done
	[ "$fails" -eq 0 ]
}

@test "get -w: an event over 16 MiB is told as kubectl tells it (client-go's decoder's limit)" {
	sim_start --pods 1
	python3 - "$O/big.json" <<-'PY'
		import json, sys
		big = '{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"' + "x" * (17 << 20) + '"}}}'
		json.dump({"verb": "watch", "resource": "pods", "kind": "lines", "end": True, "lines": [big]},
		          open(sys.argv[1], "w"))
	PY
	local a want wantst fails=0
	for a in "-o json --output-watch-events" "-o name"; do
		curl -sS -f -H 'Content-Type: application/json' --data-binary "@$O/big.json" "$SIM_CONTROL/faults" >/dev/null
		run --separate-stderr timeout 30 kubectl --kubeconfig "$SIM_KUBECONFIG" get pods --watch-only $a
		want=$output wantst=$status
		curl -sS -f -H 'Content-Type: application/json' --data-binary "@$O/big.json" "$SIM_CONTROL/faults" >/dev/null
		run --separate-stderr timeout 30 "$KINF" get --kubeconfig "$SIM_KUBECONFIG" pods --watch-only $a
		if [ "$output" != "$want" ] || [ "$status" != "$wantst" ]; then
			echo "# get pods --watch-only $a: kinf's status $status, kubectl's $wantst" >&2
			diff <(echo "$want") <(echo "$output") | cut -c1-300 | head -6 | sed 's/^/# /' >&2
			fails=$((fails + 1))
		fi
		# a comparison of nothing compares nothing
		[ -n "$want" ] || fails=$((fails + 1))
	done
	[ "$fails" -eq 0 ]
}
