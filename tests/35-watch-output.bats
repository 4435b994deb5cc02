#!/usr/bin/env bats
# `kinf watch` output: aligned lines when kinds mix and long keys come,
# markers apart from the RV, ASCII under LANG=C, kubectl's object formats
# per delta, and a custom resource's printer columns as its status.

load test_helper
bats_require_minimum_version 1.5.0

start_watch() { kinf_bg watch --kubeconfig "$SIM_KUBECONFIG" "$@"; }

stop_watch() { kinf_stop; }

synced() { [ "$(count_lines "$ERR" 'synced')" -ge "${1:-1}" ]; }

# aligned FILE — every delta line has its RV column where the header has it.
aligned() {
	awk '
		NR == 1 { rv = index($0, " RV ") + 1; st = index($0, " STATUS") + 1; next }
		/^    / { next }	# diff lines
		{
			if (substr($0, rv - 2, 2) != "  " || substr($0, rv, 1) !~ /[0-9]/) {
				printf "# RV column moved: %s\n", $0; bad = 1
			}
		}
		END { exit bad }' "${1:-/dev/stdin}"
}

@test "line output stays aligned when kinds mix; a longer key later is printed whole" {
	sim_start --pods 4 --namespaces 1
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"a-pod-with-a-rather-long-name-from-the-start","namespace":"ns-1"}}}' >/dev/null
	start_watch pods,deployments,crontabs -A
	wait_until 20 synced 3
	# a key longer than any in the initial list
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"another-pod-whose-name-is-longer-than-any-seen-so-far","namespace":"ns-1"}}}' >/dev/null
	wait_until 10 file_has "$OUT" 'Added +Pod +ns-1/another'
	stop_watch
	cat "$OUT"
	[[ $(head -1 "$OUT") =~ ^TIME\ +TYPE\ +KIND\ +KEY\ +RV\ +STATUS$ ]]
	grep -qE ' Deployment +default/web ' "$OUT"
	grep -qE ' CronTab +default/my-new-cron-object ' "$OUT"
	# the initial list sized the KEY column for its longest key
	grep -qE ' ns-1/a-pod-with-a-rather-long-name-from-the-start +[0-9]+ ' "$OUT"
	# the later, longer key is printed whole: a key is never cut; the
	# column widens from that line on, and the lines before it hold
	grep -qE ' ns-1/another-pod-whose-name-is-longer-than-any-seen-so-far +[0-9]+ ' "$OUT"
	run ! grep -q '…' "$OUT"
	sed '/another-pod/,$d' "$OUT" | aligned
}

@test "--watch-only: no list sized the KEY column, and a long key is still printed whole" {
	sim_start --pods 1
	start_watch pods --watch-only
	wait_until 20 synced
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"cart-0ae6ca90-lk2v9-with-a-long-tail","namespace":"default"}}}' >/dev/null
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"short","namespace":"default"}}}' >/dev/null
	wait_until 10 file_has "$OUT" 'Added +default/short'
	stop_watch
	grep -qE ' default/cart-0ae6ca90-lk2v9-with-a-long-tail +[0-9]+' "$OUT"
	run ! grep -q '…' "$OUT"
	# the column kept the width the long key gave it: the RVs line up
	awk '/default\/cart-/ { match($0, /default\/cart-[^ ]+ +/); a = RSTART + RLENGTH }
	     /default\/short/ { match($0, /default\/short +/); b = RSTART + RLENGTH }
	     END { exit !(a && a == b) }' "$OUT"
}

@test "a marker never runs into the RV; LANG=C gives ASCII" {
	sim_start --pods 2
	# configmaps have no status: the marker keeps the status's place
	run --separate-stderr "$KINF" watch configmaps --kubeconfig "$SIM_KUBECONFIG" --timeout 3s -q
	assert_status 0
	grep -qE '^[0-9:.]+ +[A-Za-z]+ +default/app-config +[0-9]+ {3,}\(initial\)$' <<<"$output"
	! grep -qE '[0-9] \(initial\)' <<<"$output" || false
	# the --diff arrow and cut values in ASCII when the locale has no UTF-8
	LC_ALL=C start_watch deployments web --diff
	wait_until 20 synced
	simctl POST /update '{"resource":"deployments","namespace":"default","name":"web","patch":{"spec":{"replicas":7},"metadata":{"annotations":{"long":"'"$(printf 'x%.0s' {1..100})"'"}}}}' >/dev/null
	wait_until 10 file_has "$OUT" 'spec\.replicas'
	stop_watch
	grep -qxE '    spec\.replicas: [0-9]+ -> 7' "$OUT"
	grep -qxE '    metadata\.annotations\.long: \+ x{80}\.\.\.' "$OUT"
	! LC_ALL=C grep -q '[^[:print:][:space:]]' "$OUT"
}

@test "watch -o yaml, jsonpath and custom-columns print each delta's object as kubectl does" {
	sim_start --pods 3
	run --separate-stderr "$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG" --timeout 3s -q -o yaml
	assert_status 0
	[ "$(grep -c '^---$' <<<"$output")" -eq 2 ]
	[ "$(grep -c '^kind: Pod$' <<<"$output")" -eq 3 ]
	# each document is what kubectl prints for the object
	first=$(awk '/^---$/ { exit } { print }' <<<"$output")
	name=$(awk '/^  name: / { print $2; exit }' <<<"$first")
	[ "$first" = "$(kubectl --kubeconfig "$SIM_KUBECONFIG" get pod "$name" -o yaml)" ]
	run --separate-stderr "$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG" --timeout 3s -q \
		-o 'jsonpath={.metadata.name}={.spec.nodeName}{"\n"}'
	assert_status 0
	[ "$output" = "$(kubectl --kubeconfig "$SIM_KUBECONFIG" get pods -o 'jsonpath={range .items[*]}{.metadata.name}={.spec.nodeName}{"\n"}{end}')" ]
	run --separate-stderr "$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG" --timeout 3s -q \
		-o custom-columns=NAME:.metadata.name,PHASE:.status.phase
	assert_status 0
	# kubectl get -w's widths: the header and the first row, kept for the rest
	[ "${lines[0]}" = "NAME    PHASE" ]
	[ "${#lines[@]}" -eq 4 ]
	[[ ${lines[1]} =~ ^pod-[0-9]\ +(Running|Pending)$ ]]
	# a template error stops the watch: one line, status 1
	run --separate-stderr "$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG" --timeout 10s -q -o 'jsonpath={.spec.containers[5]}'
	assert_status 1
	[ "$stderr" = 'error: error executing jsonpath "{.spec.containers[5]}": Error executing template: array index out of bounds: index 5, length 1' ]
	run --separate-stderr "$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG" -o table
	[ "$status" -eq 2 ]
}

# kinf watch's own output: the initial list held, as line output's.
@test "watch -o custom-columns: the initial list's rows in one width, a later wider row widens the column from there" {
	sim_start --pods 3
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"zz-a-pod-with-a-longer-name","namespace":"default"}}}' >/dev/null
	start_watch pods -o custom-columns=NAME:.metadata.name,PHASE:.status.phase
	wait_until 20 synced
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"zzz-a-pod-whose-name-is-longer-still","namespace":"default"}}}' >/dev/null
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"zzzz","namespace":"default"}}}' >/dev/null
	wait_until 10 file_has "$OUT" '^zzzz '
	stop_watch
	cat "$OUT"
	# the header and the four listed pods: PHASE in one column
	[ "$(sed -n '1,5p' "$OUT" | awk '{ print index($0, $2) }' | sort -u | wc -l)" -eq 1 ]
	grep -qE '^NAME {26}PHASE$' "$OUT"
	grep -qE '^pod-0 {25}(Running|Pending)$' "$OUT"
	# the longer one widened it; the row after it keeps that width
	grep -qE '^zzz-a-pod-whose-name-is-longer-still   [A-Z]' "$OUT"
	grep -qE '^zzzz {35}[A-Z]' "$OUT"
}

@test "a custom resource's printer columns give its watch status and its cache table" {
	sim_start --pods 1
	run --separate-stderr "$KINF" watch crontabs --kubeconfig "$SIM_KUBECONFIG" --timeout 3s -q -o wide
	assert_status 0
	grep -qE 'default/my-new-cron-object +[0-9]+ +spec=\* \* \* \* \*/5 replicas=1 +[0-9a-z]+ +image=my-awesome-cron-image \(initial\)$' <<<"$output"
	# the viewer may not read CRDs: NAME and AGE, no error
	run --separate-stderr "$KINF" get crontabs --kubeconfig "$SIM_KUBECONFIG.viewer" --from-cache --sync-timeout 3s
	[[ $stderr != *CustomResourceDefinition* ]]
}

@test "a CRD's printer columns give its own group's kind's status only: Knative's Service, not the core's" {
	sim_start --pods 1 --knative
	run --separate-stderr "$KINF" watch services,ksvc --kubeconfig "$SIM_KUBECONFIG" --timeout 3s -q -o wide
	assert_status 0
	grep -qE ' default/hello +[0-9]+ +url=http://hello.default.example.com latestcreated=hello-00001 latestready=hello-00001 ready=True reason= +[0-9a-z]+ +\(initial\)$' <<<"$output"
	# the core group's Services: no status, as any kind without columns
	grep -qE ' default/kubernetes +[0-9]+ +[0-9a-z]+ +\(initial\)$' <<<"$output"
	run ! grep -E 'default/(kubernetes|web) .*url=' <<<"$output"
}
