#!/usr/bin/env bats
# kubectl's output formats: `kinf get` (from the server and --from-cache)
# prints what `kubectl get` prints on the same objects, byte for byte —
# kubectl running against kube-sim, which serves Tables as the apiserver
# does and the CRD of its crontabs.

load test_helper
bats_require_minimum_version 1.5.0

kc() { kubectl --kubeconfig "$SIM_KUBECONFIG" "$@"; }
get() { "$KINF" get --kubeconfig "$SIM_KUBECONFIG" "$@"; }

# like_kubectl ARGS... — `kinf get ARGS`, with and without --from-cache,
# prints what `kubectl get ARGS` prints (stdout), status 0 both.
like_kubectl() {
	local want try mode
	for mode in server cache; do
		# An AGE column may tick between two commands: a second try settles it.
		for try in 1 2; do
			want=$(kc get "$@" 2>/dev/null)
			if [ $mode = server ]; then
				run --separate-stderr get "$@"
			else
				run --separate-stderr get "$@" --from-cache
			fi
			assert_status 0
			[ "$output" = "$want" ] && break
		done
		if [ "$output" != "$want" ]; then
			echo "# kinf get $* ($mode) differs from kubectl's:" >&2
			diff <(echo "$want") <(echo "$output") | head -20 | sed 's/^/# /' >&2
			return 1
		fi
	done
	[ -n "$want" ]
}

@test "-o yaml, -o json and -o jsonpath: byte for byte kubectl's, for pods, deployments, nodes, crontabs" {
	sim_start --pods 6 --namespaces 1
	# strings that YAML must quote, a multi-line one, a long one that folds
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-0","patch":{"metadata":{"annotations":{"yes":"true","n":"0755","t":"2024-05-01T10:00:00Z","star":"*","e":"","multi":"line one\nline two\n","long":"'"$(printf 'word %.0s' {1..40})"'","html":"<a&b>","colon":"a: b","f":"1.5e3"}}}}' >/dev/null
	for r in pods deployments nodes crontabs; do
		like_kubectl "$r" -A -o yaml
		like_kubectl "$r" -A -o json
		like_kubectl "$r" -A -o 'jsonpath={range .items[*]}{.metadata.name}{"\t"}{.metadata.labels}{"\n"}{end}'
	done
	like_kubectl pods -o yaml
	[[ $output == *'"yes": "true"'* && $output == *"star: '*'"* && $output == *'multi: |'* ]]
	like_kubectl pods -o 'jsonpath={.items[?(@.status.phase=="Running")].metadata.name}'
	like_kubectl pods -o 'jsonpath={.items[0].spec.containers[*].ports[0].containerPort} {.items[-1:].metadata.name}'
	like_kubectl pods -o 'jsonpath={.items[0].metadata.annotations}'
	like_kubectl pods -o 'jsonpath={.items[0].status.conditions[0].lastProbeTime}{@.kind}'
	like_kubectl pods -o 'jsonpath={range .items[*]}{range .spec.containers[*]}{.name},{end};{end}'
}

@test "jsonpath and custom-columns see managedFields, as kubectl's do; json and yaml drop them" {
	sim_start --pods 3
	like_kubectl pods -o 'jsonpath={.items[0].metadata.managedFields[0].manager}'
	[ -n "$output" ]
	like_kubectl pods -o 'jsonpath={.items[0]}'
	like_kubectl pods -o 'custom-columns=NAME:.metadata.name,MANAGER:.metadata.managedFields[0].manager'
	like_kubectl pods -o json
	[[ $output != *managedFields* ]]
}

@test "--sort-by: strings byte by byte, ties and missing fields where kubectl's sort.Sort leaves them" {
	sim_start --pods 0 --namespaces 0
	local n
	for n in 1 10 100 9 2 20 3 30 4 40 5 50 6 60; do
		simctl POST /create "{\"resource\":\"configmaps\",\"object\":{\"metadata\":{\"name\":\"pod-$n\",\"labels\":{\"t\":\"x$((n % 3))\"}}}}" >/dev/null
	done
	run --separate-stderr get configmaps --sort-by=.metadata.name -o name
	assert_status 0
	[ "$(grep -o 'pod-.*' <<<"$output" | tr '\n' ' ')" = "pod-1 pod-10 pod-100 pod-2 pod-20 pod-3 pod-30 pod-4 pod-40 pod-5 pod-50 pod-6 pod-60 pod-9 " ]
	local k
	k=$(kubectl_at_least 31) || skip "no kubectl 1.31 or later to compare ties with"
	local field o from try
	for field in .metadata.name .metadata.labels.t; do
		for o in name wide json; do
			for from in "" --from-cache; do
				# an AGE column may tick between two commands: a second try settles it
				for try in 1 2; do
					want=$("$k" --kubeconfig "$SIM_KUBECONFIG" get configmaps --sort-by=$field -o $o)
					run --separate-stderr get configmaps --sort-by=$field -o $o $from
					[ "$output" = "$want" ] && break
				done
				[ "$output" = "$want" ] || { diff <(echo "$want") <(echo "$output") | head >&2; false; }
			done
		done
	done
}

@test "tables are kubectl's: its columns from the server's Table, and the same from the cache" {
	sim_start --pods 6 --namespaces 1
	for r in pods deployments nodes namespaces configmaps secrets events crontabs; do
		like_kubectl "$r"
		like_kubectl "$r" -A -o wide
	done
	like_kubectl pods -A
	[[ ${lines[0]} =~ ^NAMESPACE\ +NAME\ +READY\ +STATUS\ +RESTARTS\ +AGE$ ]]
	# the CRD's additionalPrinterColumns, the priority-1 one only wide
	like_kubectl crontabs -A
	[[ ${lines[0]} =~ ^NAMESPACE\ +NAME\ +SPEC\ +REPLICAS\ +AGE$ ]]
	like_kubectl ct -o wide
	[[ ${lines[0]} =~ ^NAME\ +SPEC\ +REPLICAS\ +AGE\ +IMAGE$ ]]
	# kinf asked for a Table as kubectl does
	simctl GET '/requests?verb=list&resource=pods' | jq -e '[.[] | select(.userAgent | startswith("kinf/"))
		| .headers.Accept | contains("as=Table;v=v1;g=meta.k8s.io")] | any' >/dev/null
}

@test "a CRD's columns are its group's kind's: Knative's Service's, not the core group's Services'" {
	sim_start --pods 2 --knative
	# both kinds Service: each table with its own columns, from the cache too
	like_kubectl services,ksvc -A
	[[ ${lines[0]} =~ ^NAMESPACE\ +NAME\ +AGE$ ]]
	[[ ${lines[1]} =~ ^default\ +service/kubernetes\ +[0-9a-z]+$ ]]
	[[ $output =~ $'\n'NAMESPACE\ +NAME\ +URL\ +LATESTCREATED\ +LATESTREADY\ +READY\ +REASON$'\n' ]]
	[[ $output =~ service.serving.knative.dev/hello\ +http://hello.default.example.com\ +hello-00001\ + ]]
	like_kubectl ksvc,services -o wide
	run --separate-stderr get services,ksvc -A --from-cache
	assert_status 0
	[ "$(grep -c URL <<<"$output")" -eq 1 ]
}

@test "--show-labels, -L and --sort-by are kubectl's" {
	sim_start --pods 8 --namespaces 1
	like_kubectl pods --show-labels
	[[ ${lines[0]} == *" LABELS" ]]
	like_kubectl pods -A -L app,tier,nothere --show-labels
	[[ ${lines[0]} =~ \ APP\ +TIER\ +NOTHERE\ +LABELS$ ]]
	like_kubectl deployments -A -L app
	for key in .metadata.labels.app .spec.nodeName '{.metadata.name}' .status.podIP \
		.spec.containers[0].resources.requests.memory .metadata.creationTimestamp; do
		like_kubectl pods -A --sort-by="$key" -o name
		like_kubectl pods -A --sort-by="$key"
	done
	like_kubectl crontabs -A --sort-by=.spec.replicas -o wide
	run --separate-stderr get pods --sort-by=.metadata.nothere -o json
	assert_status 1
	[ "$stderr" = 'error: couldn'"'"'t find any field with path "{.metadata.nothere}" in the list of objects' ]
}

@test "custom-columns and custom-columns-file are kubectl's, and so are odd values in any format" {
	sim_start --pods 5
	like_kubectl pods -o custom-columns='NAME:.metadata.name,LABELS:.metadata.labels,PORTS:.spec.containers[*].ports[*].containerPort,NONE:.nothere'
	[[ ${lines[1]} == *"map[app:"*"<none>" ]]
	like_kubectl pods -o custom-columns='NAME:metadata.name,PHASE:{.status.phase},NODE:{.spec.nodeName}' --no-headers
	printf 'NAME   NODE\n.metadata.name .spec.nodeName\n' >"$BATS_TEST_TMPDIR/cols"
	like_kubectl pods -o custom-columns-file="$BATS_TEST_TMPDIR/cols"
	like_kubectl crontabs -A -o custom-columns=NS:.metadata.namespace,SPEC:.spec.cronSpec
	# a tab or a line break in a value splits its cell, as in kubectl's tabwriter
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"tabby",
		"annotations":{"x":"a\tbcdefghijkl","y":"line1\nline2","z":"\b\f\u000b\u001b<&"}}}}' >/dev/null
	like_kubectl pods -o custom-columns='X:.metadata.annotations.x,NAME:.metadata.name'
	[[ ${lines[*]} == *"a        bcdefghijkl   tabby"* ]]
	like_kubectl pods -o custom-columns='Y:.metadata.annotations.y,NAME:.metadata.name,NS:.metadata.namespace'
	# Go's encoding/json (1.22 on) writes \b and \f as such
	like_kubectl pod tabby -o json
	[[ $output == *'"z": "\b\f\u000b\u001b\u003c\u0026"'* ]]
	like_kubectl pod tabby -o 'jsonpath={.metadata.annotations}'
	like_kubectl pod tabby -o 'go-template={{.metadata.annotations.z}}'
	# an integral float: 1e+06 in one object, 1000000 in kubectl's List of
	# several, which went through json.Marshal and its decoder
	simctl POST /create '{"resource":"crontabs","object":{"metadata":{"name":"mill"},"spec":{"mill":1000000.0}}}' >/dev/null
	like_kubectl crontabs mill -o 'jsonpath={.spec.mill}'
	[ "$output" = 1e+06 ]
	like_kubectl crontabs -o 'jsonpath={..mill}'
	[ "$output" = 1000000 ]
	like_kubectl crontabs -o 'custom-columns=M:.spec.mill'
}

@test "bad templates and formats: kubectl's messages, one line, status 1, told once the objects are got, as kubectl's" {
	sim_start --pods 3
	run --separate-stderr get pods -o 'jsonpath={.items[}'
	assert_status 1
	[ "$stderr" = "error: error parsing jsonpath {.items[}, unterminated array" ]
	run --separate-stderr get pods -o 'jsonpath={.items[9].metadata.name}'
	assert_status 1
	[ -z "$output" ]
	[ "$stderr" = 'error: error executing jsonpath "{.items[9].metadata.name}": Error executing template: array index out of bounds: index 9, length 3' ]
	run --separate-stderr get pods -o custom-columns=NAME
	assert_status 1
	[ "$stderr" = "error: unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>" ]
	# a column's path kubectl parses as it prints: the header comes first
	same_as_kubectl pods -o 'custom-columns=N:.metadata.name,X:.a["b"]'
	[ "$status" -eq 1 ]
	[ "$output" = "N     X" ]
	run --separate-stderr get pods -o jsonpath-file=/nonexistent
	assert_status 1
	[ "$stderr" = "error: error reading --template /nonexistent, open /nonexistent: no such file or directory" ]
	run --separate-stderr get pods -o custom-columns-file="$BATS_TEST_TMPDIR"
	assert_status 1
	[ "$stderr" = "error: error reading template $BATS_TEST_TMPDIR, read $BATS_TEST_TMPDIR: is a directory" ]
	# kubectl makes its printer after its LIST (or GETs): a -o it cannot
	# make is told then, alone; a single NAME's failure comes first
	simctl DELETE /requests >/dev/null
	run --separate-stderr get pods -oxml
	assert_status 1
	[[ $stderr == 'error: unable to match a printer suitable for the output format "xml", allowed formats are: table, wide,'* ]]
	simctl GET '/requests?verb=list&resource=pods' | jq -e 'length == 1'
	same_as_kubectl pods -o 'jsonpath={.items[}'
	same_as_kubectl pods nope nope2 -o 'go-template={{.x'
	[ "$stderr" = "error: error parsing template {{.x, template: output:1: unclosed action" ]
	same_as_kubectl pods nope nope2 -o 'go-template={{.x' --ignore-not-found
	[ -z "$stderr" ]
	run --separate-stderr get pods nope -o 'jsonpath={.x'
	[ "$stderr" = 'error: pods "nope" not found' ]
	run --separate-stderr get pods nope -w -o yml
	[ "$stderr" = 'error: pods "nope" not found' ]
	simctl DELETE /requests >/dev/null
	run --separate-stderr get pods -w -o yml --request-timeout=1s
	assert_status 1
	[[ $stderr == *'"yml"'* ]]
	simctl GET '/requests?verb=list&resource=pods' | jq -e 'length == 1'
}

@test "kube-sim serves Tables (metadata or whole objects) and the crontabs' CRD" {
	sim_start --pods 3
	t=$(simcurl -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json' /api/v1/namespaces/default/pods)
	jq -e '.kind == "Table" and .apiVersion == "meta.k8s.io/v1" and
		([.columnDefinitions[].name] | join(",")) == "Name,Ready,Status,Restarts,Age,IP,Node,Nominated Node,Readiness Gates" and
		(.rows | length) == 3 and .rows[0].object.kind == "PartialObjectMetadata" and
		(.rows[0].cells | length) == 9' <<<"$t" >/dev/null
	t=$(simcurl -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io' '/api/v1/namespaces/default/pods?includeObject=Object')
	jq -e '.rows[0].object.kind == "Pod" and .rows[0].object.spec.containers' <<<"$t" >/dev/null
	crd=$(simcurl /apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com)
	jq -e '.spec.names.kind == "CronTab" and
		([.spec.versions[0].additionalPrinterColumns[].name] | join(",")) == "Spec,Replicas,Age,Image"' <<<"$crd" >/dev/null
}

@test "kubectl's argument forms: NAME and TYPE/NAME print the object itself, pods,deploy a table each" {
	sim_start --pods 4 --namespaces 1
	# one object: itself, not a List, in every object format
	for args in "pods pod-0" "pod/pod-0" "deploy/web" "deployments.apps/web"; do
		# shellcheck disable=SC2086
		like_kubectl $args -o json
		[ "$(jq -r .kind <<<"$output")" != List ]
		# shellcheck disable=SC2086
		like_kubectl $args -o yaml
		# shellcheck disable=SC2086
		like_kubectl $args -o 'jsonpath={.metadata.name}'
		# shellcheck disable=SC2086
		like_kubectl $args
	done
	# several types: a table each, names as kind/name; one List for json
	like_kubectl pods,deploy
	[[ ${lines[0]} =~ ^NAME\ +READY\ +STATUS ]] && [[ ${lines[1]} == pod/pod-0\ * ]]
	[[ $output == *deployment.apps/web* ]]
	like_kubectl pods,deploy -o name
	like_kubectl pods,configmaps -A -o json
	[ "$(jq -r '.items | map(.kind) | unique | join(",")' <<<"$output")" = ConfigMap,Pod ]
	like_kubectl deploy,pods -o wide
	# TYPE/NAME that is not there: kubectl's NotFound
	run --separate-stderr get deploy/nope
	assert_status 1
	[ "$stderr" = 'error: deployments "nope" not found' ] || [[ $stderr == *'"nope" not found'* ]]
}

@test "argument forms kubectl refuses are usage errors, one line, status 2" {
	sim_start --pods 1 --namespaces 1
	local bad
	for bad in "pods/pod-0 pod-0" "pods/" "/pod-0" "pods,deploy/web" "pods," ",pods" "pods,,deploy" "all pod-0" "pods,all"; do
		# shellcheck disable=SC2086
		run --separate-stderr get $bad
		assert_status 2
		[ "${#stderr_lines[@]}" -eq 1 ] && [[ $stderr == error:* ]] && [ -z "$output" ]
	done
	run --separate-stderr get all --from-cache
	assert_status 2
	run --separate-stderr "$KINF" watch --kubeconfig "$SIM_KUBECONFIG" pods/pod-0 pod-0
	assert_status 2
	[[ $stderr == *'TYPE/NAME'* ]]
}

@test "several types: --no-headers leaves no blank line, -o name --sort-by sorts them together, --show-labels only with a table" {
	sim_start --pods 3
	like_kubectl deploy,pods --no-headers
	[[ $output != *$'\n\n'* ]]
	like_kubectl deploy,pods -o name --sort-by=.metadata.name
	[ "${lines[0]}" = deployment.apps/api ] && [ "${lines[1]}" = pod/pod-0 ] &&
		[ "${lines[4]}" = deployment.apps/web ]
	run --separate-stderr get pods -o name --show-labels
	assert_status 2
	[[ $stderr == "error: --show-labels option cannot be used with name printer"* ]]
	run --separate-stderr get pods --template '{{len .items}}' --show-labels
	assert_status 0
	[ "$output" = 3 ]
}

@test "--sort-by over a table of one row, or one object by name, prints it as it is, as kubectl's" {
	sim_start --pods 2
	like_kubectl deployments web --sort-by=.status.phase
	like_kubectl pods pod-0 --sort-by=.status.nope -o wide
	# one object by name is no list: nothing to sort, in any format
	like_kubectl configmaps app-config -o name --sort-by=.status.nope
}

@test "--sort-by a field kubectl's RelaxedJSONPathExpression refuses: read only when it sorts, as kubectl's" {
	sim_start --pods 2
	# its sorter of Tables takes the field as typed: rows it cannot sort print nothing
	same_as_kubectl pods --sort-by='{.bad'
	[ "$status" -eq 0 ] && [ -z "$output" ]
	same_as_kubectl pods --sort-by='{.metadata.name}{.kind}'
	[ "${#lines[@]}" -eq 3 ]
	# its SortingPrinter of objects refuses it once there is an object to sort
	same_as_kubectl pods -o name --sort-by='{.metadata.name}{.kind}'
	[ "$status" -eq 1 ] && [[ $stderr == "error: unexpected path string, expected a 'name1.name2' or"* ]]
	same_as_kubectl pods -n empty -o json --sort-by='{.bad'
	[ "$status" -eq 0 ]
	# one object by name: nothing to sort
	same_as_kubectl pods pod-0 -o yaml --sort-by='{.bad'
}

# same_as_kubectl ARGS... — `kinf get ARGS`, from the server and from
# the cache, prints what `kubectl get ARGS` prints, on stdout and on
# stderr, with its status.
same_as_kubectl() {
	local want want_err want_status mode try
	for mode in "" --from-cache; do
		# an AGE column may tick between two commands: a second try settles it
		for try in 1 2; do
			want_status=0
			want=$(kc get "$@" 2>"$BATS_TEST_TMPDIR/err") || want_status=$?
			want_err=$(<"$BATS_TEST_TMPDIR/err")
			run --separate-stderr get "$@" $mode
			[ "$status" = "$want_status" ] && [ "$output" = "$want" ] &&
				[ "$stderr" = "$want_err" ] && break
		done
		if [ "$status" != "$want_status" ] || [ "$output" != "$want" ] || [ "$stderr" != "$want_err" ]; then
			echo "# kinf get $* $mode: status $status, kubectl's $want_status" >&2
			diff <(echo "$want"; echo "$want_err") <(echo "$output"; echo "$stderr") | sed 's/^/# /' >&2
			return 1
		fi
	done
}

@test "--sort-by with a table: kubectl's sorter orders several Tables as objects, a table whose rows it cannot sort prints nothing" {
	sim_start --pods 3
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"aa"}}}' >/dev/null
	# rows no sorter can order: nothing printed, kubectl's note, status 0
	same_as_kubectl pods --sort-by=.status.nope
	[ -z "$output" ] && [ "$stderr" = "No resources found in default namespace." ]
	same_as_kubectl pods --sort-by=.status.nope --ignore-not-found
	[ -z "$stderr" ]
	# several Tables (types, or names: one each) have no .metadata.name
	same_as_kubectl pods,deploy --sort-by=.metadata.name
	[ "$status" -eq 1 ] && [ -z "$output" ]
	same_as_kubectl pods pod-1 pod-0 --sort-by=.metadata.name -o wide
	[[ $stderr == "error: couldn't find any field with path"* ]]
	# but a resourceVersion: a GET's Table has its object's, so aa comes last
	same_as_kubectl pods/aa deploy/web pods/pod-0 --sort-by=.metadata.resourceVersion
	[[ ${lines[-1]} == "pod/aa "* ]]
	same_as_kubectl deploy,pods --sort-by=.metadata.resourceVersion
	# the Tables have it, the rows have not: each table prints nothing
	same_as_kubectl pods,deploy -A --sort-by=.columnDefinitions[0].name
	[ "$stderr" = "No resources found" ]
	# kubectl lists whole to sort, whatever the chunk size
	simctl DELETE /requests >/dev/null
	get pods --sort-by=.metadata.name --chunk-size=1 >/dev/null
	simctl GET '/requests?verb=list&resource=pods' | jq -e 'length == 1 and (.[0].query | has("limit") | not)'
	# and sends a negative chunk size as it is (the apiserver takes it as none)
	simctl DELETE /requests >/dev/null
	kc get pods --chunk-size=-1 >/dev/null
	get pods --chunk-size=-1 >/dev/null
	[ "$(simctl GET '/requests?verb=list&resource=pods' | jq -c '[.[].query.limit]')" = '["-1","-1"]' ]
	# a float beside an int: kubectl's Less cannot compare them and exits
	simctl POST /create '{"resource":"crontabs","object":{"metadata":{"name":"half"},"spec":{"replicas":0.5}}}' >/dev/null
	for mode in "" --from-cache; do
		run kc get crontabs --sort-by=.spec.replicas
		[ "$status" -eq 1 ]
		[[ $output == *"unsortable type"* ]]
		run --separate-stderr get crontabs --sort-by=.spec.replicas $mode
		[ "$status" -eq 1 ]
		[ -z "$output" ]
		[[ $stderr == *"unsortable type"* ]]
	done
}

@test "a Turkish locale changes no case: kubectl's headers, as Go upper-cases them" {
	sim_start --pods 2
	mkdir -p "$BATS_TEST_TMPDIR/loc"
	localedef -i tr_TR -f UTF-8 "$BATS_TEST_TMPDIR/loc/tr_TR.UTF-8"
	export LOCPATH=$BATS_TEST_TMPDIR/loc
	# (glibc's newlocale(), which json-c calls, leaks what it read of LOCPATH:
	# no leak of kinf's for a SANITIZE build to report)
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	local mode want
	want=$(kc get pods -o wide | head -1)
	[[ $want == *"NOMINATED NODE   READINESS GATES" ]]
	for mode in "" --from-cache; do
		LC_ALL=tr_TR.UTF-8 run --separate-stderr get pods -o wide $mode
		[ "$status" -eq 0 ]
		[ "${lines[0]}" = "$want" ]
		[ ${#lines[@]} -eq 3 ]
	done
}
