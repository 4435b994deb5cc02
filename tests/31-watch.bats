#!/usr/bin/env bats
# `kinf watch`, option by option, against the simulated apiserver: what
# reaches stdout (and only stdout), what goes to stderr, how it ends.

load test_helper
bats_require_minimum_version 1.5.0

OUT= ERR= KINF_PID=

# start_watch ARGS... — kinf watch in the background, stdout in $OUT and
# stderr in $ERR.  No -o is added: the caller says which output.
# The output formats, shown on the paged LIST and DeltaFIFO of client-go
# up to 1.32, whose delta types (Replaced, Sync) the checks name; the
# newer generations' output is in 12-client-go.bats.
start_watch() { kinf_bg watch --kubeconfig "$SIM_KUBECONFIG" --client-go 1.32 "$@"; }

stop_watch() { kinf_stop; }

# synced [N] — N resources (default 1) said they synced.
synced() { [ "$(count_lines "$ERR" 'synced')" -ge "${1:-1}" ]; }

# watch_synced ARGS... — runs kinf watch until its informers synced, then
# stops it: $OUT holds the initial list's deltas.
watch_synced() {
	# One "synced" per resource in $1.
	local n=$(($(tr -cd , <<<"$1" | wc -c) + 1))
	start_watch "$@"
	wait_until 20 synced "$n"
	stop_watch
}

# The keys the server lists for a list path and query.
server_keys() {
	simcurl "$1" | jq -r '.items[].metadata | (if .namespace then .namespace + "/" else "" end) + .name' | sort
}

out_keys() { jq -r '.key' "$OUT" | sort; }

# every SELECT COND — some records of $OUT match SELECT, and all meet COND.
every() {
	jq -s -e "map(select($1)) | length > 0 and all(.[]; $2)" "$OUT" >/dev/null ||
		{ echo "# not every record with $1 has $2" >&2; return 1; }
}

update_pod() {	# update_pod NAME PATCH-JSON
	simctl POST /update "{\"resource\":\"pods\",\"namespace\":\"default\",\"name\":\"$1\",\"patch\":$2}" >/dev/null
}

# Stderr says nothing but notices ("kinf: RESOURCE: ...").
only_notices() {
	if grep -v '^kinf: [a-z.]*: ' "$ERR"; then
		echo "# unexpected text on stderr (above)" >&2
		return 1
	fi
}

# ended PID — the process is gone, or a zombie waiting to be reaped.
ended() {
	! kill -0 "$1" 2>/dev/null || grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null
}

teardown() {
	stop_watch
	sim_stop
}

@test "-n lists one namespace, -A every namespace" {
	sim_start --pods 12 --namespaces 2
	watch_synced pods -n ns-1 -o json
	run out_keys
	[ "${#lines[@]}" -eq 4 ]
	[ "$output" = "$(server_keys /api/v1/namespaces/ns-1/pods)" ]
	watch_synced pods -nns-2 -o json
	[ "$(out_keys)" = "$(server_keys /api/v1/namespaces/ns-2/pods)" ]
	# Without -n: the kubeconfig's namespace.
	watch_synced pods -o json
	[ "$(out_keys)" = "$(server_keys /api/v1/namespaces/default/pods)" ]
	watch_synced pods -A -o json
	run out_keys
	[ "${#lines[@]}" -eq 12 ]
	[ "$output" = "$(server_keys /api/v1/pods)" ]
	grep -q '^ns-1/' <<<"$output"
	grep -q '^ns-2/' <<<"$output"
	grep -q '^default/' <<<"$output"
}

@test "-l and --field-selector are applied by the server" {
	sim_start --pods 12
	watch_synced pods -l app=web -o json
	run out_keys
	[ "${#lines[@]}" -ge 1 ]
	[ "$output" = "$(server_keys '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')" ]
	[ "$(jq -r '.object.metadata.labels.app' "$OUT" | sort -u)" = web ]
	watch_synced pods --selector='app!=web,tier' -o json
	[ "$(out_keys)" = "$(server_keys '/api/v1/namespaces/default/pods?labelSelector=app%21%3Dweb%2Ctier')" ]
	! jq -r '.object.metadata.labels.app' "$OUT" | grep -qx web || false
	watch_synced pods --field-selector spec.nodeName=node-2 -o json
	run out_keys
	[ "${#lines[@]}" -ge 1 ]
	[ "$output" = "$(server_keys '/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3Dnode-2')" ]
	[ "$(jq -r '.object.spec.nodeName' "$OUT" | sort -u)" = node-2 ]
	# The selector is sent on the watch too: a pod relabelled out of it
	# is seen as Deleted.
	start_watch pods -l app=web -o json
	wait_until 20 synced
	victim=$(jq -r 'select(.type=="Replaced") | .name' "$OUT" | head -n1)
	update_pod "$victim" '{"metadata":{"labels":{"app":"moved"}}}'
	wait_until 10 file_has "$OUT" "\"type\":\"Deleted\".*\"name\":\"$victim\""
}

@test "NAME watches one object only" {
	sim_start --pods 4
	start_watch pods pod-1 -o json
	wait_until 20 synced
	[ "$(out_keys)" = default/pod-1 ]
	update_pod pod-2 '{"metadata":{"labels":{"seen":"no"}}}'
	update_pod pod-1 '{"metadata":{"labels":{"seen":"yes"}}}'
	wait_until 10 file_has "$OUT" '"type":"Updated"'
	stop_watch
	[ "$(out_keys | sort -u)" = default/pod-1 ]
	[ "$(jq -r 'select(.type=="Updated") | .object.metadata.labels.seen' "$OUT")" = yes ]
	# kubectl's TYPE/NAME form says the same: deploy/web is the deployment web
	start_watch deploy/web -o json
	wait_until 20 synced
	stop_watch
	[ "$(out_keys | sort -u)" = default/web ]
	[ "$(jq -r .kind "$OUT" | sort -u)" = Deployment ]
	# A name holding ',' and '=' (an RBAC role's may) is one term of the
	# field selector, escaped as fields.OneTermEqualSelector escapes it.
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"a,b=c"}}}' >/dev/null
	start_watch pods 'a,b=c' -o json
	wait_until 20 synced
	stop_watch
	[ "$(out_keys | sort -u)" = 'default/a,b=c' ]
}

@test "NAME of an object not there yet: said once, then printed when it is created" {
	sim_start --pods 2
	start_watch pods pod-new -o json
	wait_until 20 synced
	wait_until 10 file_has "$ERR" "^kinf: pods: no object named 'pod-new' yet; watching for it$"
	[ ! -s "$OUT" ]
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"pod-new"}}}' >/dev/null
	wait_until 10 file_has "$OUT" '"type":"Added"'
	stop_watch
	[ "$(out_keys | sort -u)" = default/pod-new ]
	[ "$(count_lines "$ERR" 'no object named')" -eq 1 ]
	# An object that is there: no such notice.
	start_watch pods pod-1 -o json
	wait_until 20 synced
	stop_watch
	[ "$(count_lines "$ERR" 'no object named')" -eq 0 ]
}

@test "-o line: a header, then one aligned line per delta with its markers" {
	sim_start --pods 3
	watch_synced pods
	run cat "$OUT"
	[ "${#lines[@]}" -eq 4 ]
	[[ ${lines[0]} =~ ^TIME\ +TYPE\ +KEY\ +RV\ +STATUS$ ]]
	for i in 1 2 3; do
		[[ ${lines[$i]} =~ ^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]\.[0-9]{3}\ +Replaced\ +default/pod-[0-2]\ +[0-9]+\ +.*\ \(initial\)$ ]] ||
			{ echo "# line: ${lines[$i]}" >&2; false; }
	done
	# Aligned: the KEY column starts at the same offset on every line.
	[ "$(for l in "${lines[@]}"; do l=${l%%default/*}; echo ${#l}; done | sed 1d | sort -u | wc -l)" -eq 1 ]
	[ "$(awk '{print index($0, "KEY")}' <<<"${lines[0]}")" -eq \
	  "$(awk '{print index($0, "default/")}' <<<"${lines[1]}")" ]
	# The resourceVersion printed is the server's.
	rv=$(simctl GET '/object?resource=pods&namespace=default&name=pod-0' | jq -r .metadata.resourceVersion)
	grep -qE "default/pod-0 +$rv " "$OUT"
	# A pod's status: phase and readiness.
	grep -qE 'default/pod-0 +[0-9]+ +[A-Za-z]+ [0-9]+/[0-9]+ ' "$OUT"
	only_notices
}

@test "--no-headers leaves out the header line" {
	sim_start --pods 3
	watch_synced pods --no-headers
	run cat "$OUT"
	[ "${#lines[@]}" -eq 3 ]
	! grep -q TIME "$OUT" || false
	watch_synced pods -o wide --no-headers
	[ "$(wc -l <"$OUT")" -eq 3 ]
	! grep -q TIME "$OUT"
}

@test "-o wide adds AGE and the kind's details" {
	sim_start --pods 3
	watch_synced pods -o wide
	run cat "$OUT"
	[[ ${lines[0]} =~ ^TIME\ +TYPE\ +KEY\ +RV\ +STATUS\ +AGE\ +DETAILS$ ]]
	node=$(simctl GET '/object?resource=pods&namespace=default&name=pod-0' | jq -r .spec.nodeName)
	grep -E "default/pod-0 .* ([0-9]+[smhd])+ +.*node=$node" "$OUT"
}

@test "-o name prints kind/name per delta" {
	sim_start --pods 3
	watch_synced pods -o name
	run cat "$OUT"
	[ "$output" = $'pod/pod-0\npod/pod-1\npod/pod-2' ]
	watch_synced deployments -o name
	[ "$(sort "$OUT")" = $'deployment.apps/api\ndeployment.apps/web\ndeployment.apps/worker' ]
}

@test "-o json: every line is one object with every documented member, typed" {
	sim_start --pods 4
	start_watch pods -o json
	wait_until 20 synced
	update_pod pod-1 '{"metadata":{"labels":{"v":"2"}}}'
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"fresh","namespace":"default"}}}' >/dev/null
	simctl POST /delete '{"resource":"pods","namespace":"default","name":"pod-2","graceful":false}' >/dev/null
	wait_until 10 file_has "$OUT" '"type":"Deleted"'
	stop_watch
	# NDJSON: one compact object per line, nothing else on stdout.
	[ "$(wc -l <"$OUT")" -eq 7 ]
	jq -e -c . "$OUT" >/dev/null
	[ "$(jq -c . "$OUT" | wc -l)" -eq 7 ]
	run jq -r '
		def want: ["time","type","handler","resource","kind","namespace","name","key",
			"resourceVersion"] + (if .type == "Updated" then ["oldResourceVersion"] else [] end)
			+ ["initialList","tombstone","resync","unchanged","source","listNumber","object"];
		select((keys_unsorted == want) | not) | "members: \(keys_unsorted)"' "$OUT"
	[ -z "$output" ]
	run jq -r '
		def check(name; cond): if cond then empty else "\(.key) \(.type): bad \(name)" end;
		check("time"; .time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$")),
		check("type"; .type | IN("Added","Updated","Deleted","Replaced","Sync")),
		check("resource"; .resource == "pods"),
		check("kind"; .kind == "Pod"),
		check("namespace"; .namespace == "default"),
		check("name"; .name == .object.metadata.name),
		check("key"; .key == .namespace + "/" + .name),
		check("resourceVersion"; (.resourceVersion | test("^[0-9]+$")) and .resourceVersion == .object.metadata.resourceVersion),
		check("oldResourceVersion"; (.oldResourceVersion // "0" | test("^[0-9]+$"))),
		check("initialList"; .initialList == (.type == "Replaced")),
		check("tombstone"; .tombstone == false),
		check("resync"; .resync == false),
		check("source"; .source == (if .type == "Replaced" then "list" else "watch" end)),
		check("listNumber"; .listNumber == 0),
		check("object"; .object | type == "object"),
		check("managedFields"; .object.metadata | has("managedFields") | not)' "$OUT"
	[ -z "$output" ] || { echo "$output" >&2; false; }
	[ "$(jq -r 'select(.type=="Replaced") | .key' "$OUT" | sort | tr '\n' ' ')" = \
	  "default/pod-0 default/pod-1 default/pod-2 default/pod-3 " ]
	run jq -r 'select(.type=="Updated") | [.key, (.oldResourceVersion|tonumber) < (.resourceVersion|tonumber)] | @tsv' "$OUT"
	[ "$output" = $'default/pod-1\ttrue' ]
	[ "$(jq -r 'select(.type=="Added") | .key' "$OUT")" = default/fresh ]
	[ "$(jq -r 'select(.type=="Deleted") | .key' "$OUT")" = default/pod-2 ]
	# The times are in order (queued order) and recent.
	jq -s -e 'map(.time) | . == sort' "$OUT" >/dev/null
	only_notices
}

@test "kinf watch pods -o json | jq -r 'select(.type==\"Deleted\") | .key'" {
	sim_start --pods 5
	KEYS=$BATS_TEST_TMPDIR/keys ERR=$BATS_TEST_TMPDIR/err
	{ sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$BATS_TEST_TMPDIR/pid" \
		"$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG" -o json 2>"$ERR" |
		jq --unbuffered -r 'select(.type=="Deleted") | .key' >"$KEYS"; } 3>&- &
	pipeline=$!
	wait_until 5 test -s "$BATS_TEST_TMPDIR/pid"
	KINF_PID=$(cat "$BATS_TEST_TMPDIR/pid")
	wait_until 20 synced
	simctl POST /delete '{"resource":"pods","namespace":"default","name":"pod-3","graceful":false}' >/dev/null
	simctl POST /delete '{"resource":"pods","namespace":"default","name":"pod-1","graceful":true}' >/dev/null
	wait_until 10 bash -c "[ \$(wc -l <'$KEYS') -ge 2 ]"
	[ "$(cat "$KEYS")" = $'default/pod-3\ndefault/pod-1' ]
	# Ending kinf ends the pipeline.
	kill -TERM "$KINF_PID"
	KINF_PID=
	wait "$pipeline"
}

@test "stdout is pure NDJSON: notices go to stderr only" {
	sim_start --pods 3
	watch_synced pods -o json -v
	jq -e . "$OUT" >/dev/null
	! grep -v '^{' "$OUT" || false
	grep -q '^kinf: pods: listed 3 objects' "$ERR"
	grep -q '^kinf: pods: synced: 3 objects cached' "$ERR"
	# -q: no notices at all.
	start_watch pods -o json -q --max-deltas 3
	wait "$KINF_PID"
	KINF_PID=
	[ "$(wc -l <"$OUT")" -eq 3 ]
	[ ! -s "$ERR" ]
}

@test "--diff on line output prints the changed fields, noise left out" {
	sim_start --pods 2
	simctl POST /update '{"resource":"deployments","namespace":"default","name":"web","patch":{"spec":{"replicas":2}}}' >/dev/null
	start_watch deployments web --diff
	wait_until 20 synced
	simctl POST /update '{"resource":"deployments","namespace":"default","name":"web","patch":{"spec":{"replicas":3},"metadata":{"labels":{"team":"blue"}}}}' >/dev/null
	wait_until 10 file_has "$OUT" 'spec\.replicas'
	stop_watch
	cat "$OUT"
	grep -qE '^ +Updated +default/web ' "$OUT" || grep -qE ' Updated +default/web ' "$OUT"
	grep -qx '    spec\.replicas: 2 → 3' "$OUT"
	grep -qx '    metadata\.labels\.team: + blue' "$OUT"
	grep -qxE '    metadata\.generation: [0-9]+ → [0-9]+' "$OUT"
	# Noise: the resourceVersion (on the line already) and the managed
	# fields; and nothing else changed.
	! grep -q 'resourceVersion' "$OUT" || false
	! grep -q 'managedFields' "$OUT" || false
	[ "$(grep -c '^    ' "$OUT")" -eq 3 ]
}

@test "--diff on JSON output: an RFC 6902 patch from the cached object" {
	sim_start --pods 2
	start_watch deployments web --diff -o json
	wait_until 20 synced
	old=$(jq -c '.object' "$OUT")
	simctl POST /update '{"resource":"deployments","namespace":"default","name":"web","patch":{"spec":{"replicas":3},"metadata":{"labels":{"team":"blue"}}}}' >/dev/null
	wait_until 10 file_has "$OUT" '"type":"Updated"'
	stop_watch
	# No diff on the initial list's deltas.
	[ "$(jq -r 'select(.type=="Replaced") | has("diff")' "$OUT")" = false ]
	run jq -c 'select(.type=="Updated") | .diff[]' "$OUT"
	# each replace and remove says what it replaced: "changed from what"
	assert_output_contains '{"op":"replace","path":"/spec/replicas","value":3,"old":1}'
	assert_output_contains '{"op":"add","path":"/metadata/labels/team","value":"blue"}'
	# no resourceVersion noise: the record has both versions already
	! grep -q '"path":"/metadata/resourceVersion"' "$OUT" || false
	# Every op is well formed...
	every '.type=="Updated"' '.diff | type == "array" and length > 0 and
		all(.[]; (.op | IN("add","remove","replace")) and (.path | startswith("/"))
			and ((.op == "add") == (has("old") | not)))'
	# ... and applying them to the old object gives the new one (but its RV).
	jq -n -e --argjson old "$old" --slurpfile d "$OUT" '
		def ptr: ltrimstr("/") | split("/") | map(gsub("~1"; "/") | gsub("~0"; "~")
			| if test("^[0-9]+$") then tonumber else . end);
		($d[] | select(.type=="Updated")) as $u
		| reduce $u.diff[] as $op ($old;
			if $op.op == "remove" then delpaths([$op.path | ptr])
			else setpath($op.path | ptr; $op.value) end)
		| .metadata.resourceVersion = $u.object.metadata.resourceVersion
		| . == $u.object' >/dev/null
}

@test "--events: a Relist record in JSON after a 410; the summary on stderr otherwise" {
	sim_start --pods 4
	start_watch pods -o json --events
	wait_until 20 synced
	simctl POST /faults '{"verb":"watch","kind":"410","count":1}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_until 20 file_has "$OUT" '"type":"Relist"'
	stop_watch
	run jq -c 'select(.type=="Relist")' "$OUT"
	[ "${#lines[@]}" -eq 1 ]
	every '.type=="Relist"' '
		(keys_unsorted == ["time","type","resource","listNumber","reason","listed","added","changed","deleted","unchanged","disconnectedMs","keys"]) and
		.resource == "pods" and .listNumber == 1 and (.reason | type == "string") and
		.listed == 4 and .added == 0 and .changed == 0 and .deleted == 0 and .unchanged == 4 and
		(.disconnectedMs | type == "number") and .keys == {"added":[],"changed":[],"deleted":[]}'
	# In JSON with --events the record replaces the notice.
	! grep -q 'relist #1' "$ERR" || false
	# Without --events: the summary is a notice on stderr.
	start_watch pods
	wait_until 20 synced
	simctl POST /faults '{"verb":"watch","kind":"410","count":1}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_until 20 file_has "$ERR" 'relist #1'
	grep -qE '^kinf: pods: relist #1 .*0 changed, 0 added, 0 deleted \(tombstones\), 4 unchanged' "$ERR"
	! grep -q Relist "$OUT" || false
}

@test "a relist's reason too long for its line ends in ..., cut between characters" {
	local sc=$BATS_TEST_TMPDIR/sc.json long reason
	long="too old resource version: $(printf 'é%.0s' {1..80}) the end"
	jq -n --arg m "$long" '{resource: "pods", namespace: "default",
		list: [range(4) | {rv: "5", items: ["a@3"]}],
		watch: [{events: [{type: "ERROR", status: 410, message: $m}], then: "hang"},
			{events: [], then: "hang"},
			{events: [{type: "ERROR", status: 410, message: $m}], then: "hang"}],
		final: {rv: "6", items: ["a@3"]}}' >"$sc"
	sim_start --scenario "$sc"
	start_watch pods -o json --events
	wait_until 20 file_has "$OUT" '"type":"Relist"'
	stop_watch
	reason=$(jq -r 'select(.type == "Relist") | .reason' "$OUT")
	# the record's reason: its start as the server sent it, then the mark
	[[ $reason == "watch expired: too old resource version: éé"*"é..." ]]
	[ "$(printf %s "$reason" | iconv -f UTF-8 -t UTF-8)" = "$reason" ]
	run ! grep -q 'the end' "$OUT"
	start_watch pods
	wait_until 20 file_has "$ERR" 'relist #1'
	stop_watch
	grep -qE '^kinf: pods: relist #1 \(watch expired: too old resource version: (é)+\.\.\.\): ' "$ERR"
}

@test "a relist tells what the gap hid: added, changed (from which rv) and tombstones, how long, which keys" {
	sim_start --pods 4
	start_watch pods -v -o json --events --client-go 1.32
	wait_until 20 synced
	watch_settled
	# The next watch hangs: changes made now reach no watch.
	simctl POST /faults '{"verb":"watch","kind":"hang","count":1,"seconds":60}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	local was
	was=$(sim_oracle pods | jq -r '.items["default/pod-1"]')
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-1","patch":{"metadata":{"labels":{"x":"y"}}}}' >/dev/null
	simctl POST /delete '{"resource":"pods","namespace":"default","name":"pod-2"}' >/dev/null
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"new-1","namespace":"default"}}}' >/dev/null
	# Too old to watch from: the re-watch gets a 410, then a relist.
	simctl POST /compact >/dev/null
	sleep 1
	simctl POST /drop-watches '{"mode":"abrupt"}' >/dev/null
	wait_until 30 file_has "$OUT" '"type":"Relist"'
	stop_watch
	local now
	now=$(sim_oracle pods | jq -r '.items["default/pod-1"]')
	run jq -c 'select(.type == "Relist") | [.added, .changed, .deleted, .unchanged, (.disconnectedMs >= 1000), .keys]' "$OUT"
	[ "$output" = "[1,1,1,2,true,{\"added\":[{\"key\":\"default/new-1\",\"resourceVersion\":\"$(sim_oracle pods | jq -r '.items["default/new-1"]')\"}],\"changed\":[{\"key\":\"default/pod-1\",\"oldResourceVersion\":\"$was\",\"resourceVersion\":\"$now\"}],\"deleted\":[{\"key\":\"default/pod-2\",\"oldResourceVersion\":\"$(jq -r 'select(.key == "default/pod-2" and .initialList) | .resourceVersion' "$OUT")\"}]}]" ] ||
		{ echo "# $output"; return 1; }
	# The deltas say it too, as handlers get them.
	[ "$(jq -r 'select(.listNumber == 1 and .key) | [.key, .handler] | @tsv' "$OUT" | sort)" = "$(printf '%s\t%s\n' \
		default/new-1 OnAdd default/pod-0 OnUpdate default/pod-1 OnUpdate default/pod-2 OnDelete default/pod-3 OnUpdate)" ]
	# Lines: (added), (changed from rv N), (tombstone).
	start_watch pods -v --client-go 1.32
	wait_until 20 synced
	watch_settled
	simctl POST /faults '{"verb":"watch","kind":"hang","count":1,"seconds":60}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	was=$now
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-1","patch":{"metadata":{"labels":{"x":"z"}}}}' >/dev/null
	simctl POST /delete '{"resource":"pods","namespace":"default","name":"pod-3"}' >/dev/null
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"new-2","namespace":"default"}}}' >/dev/null
	simctl POST /compact >/dev/null
	sleep 1
	simctl POST /drop-watches '{"mode":"abrupt"}' >/dev/null
	wait_until 30 file_has "$ERR" 'relist #1'
	wait_until 10 file_has "$OUT" 'new-2'
	stop_watch
	grep -qE "default/new-2 .*\(relist #1\) \(added\)$" "$OUT"
	grep -qE "default/pod-1 .*\(relist #1\) \(changed from rv $was\)$" "$OUT"
	grep -qE "default/pod-3 .*\(tombstone\) \(relist #1\)$" "$OUT"
	grep -qE "^kinf: pods: relist #1 \(watch expired: .*\): disconnected [0-9.]+ s: 1 changed, 1 added, 1 deleted \(tombstones\), [0-9]+ unchanged; changed default/pod-1 \(rv $was -> [0-9]+\); deleted default/pod-3; added default/new-2$" "$ERR"
}

@test "--types shows only the delta types named" {
	sim_start --pods 3
	start_watch pods -o json --types Added,Deleted
	wait_until 20 synced
	update_pod pod-0 '{"metadata":{"labels":{"x":"1"}}}'
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"fresh","namespace":"default"}}}' >/dev/null
	simctl POST /delete '{"resource":"pods","namespace":"default","name":"pod-1","graceful":false}' >/dev/null
	wait_until 10 file_has "$OUT" '"type":"Deleted"'
	stop_watch
	[ "$(jq -r '[.type, .key] | @tsv' "$OUT")" = $'Added\tdefault/fresh\nDeleted\tdefault/pod-1' ]
}

@test "--watch-only hides the initial list, not what follows" {
	sim_start --pods 3
	start_watch pods -o json --watch-only
	wait_until 20 synced
	[ ! -s "$OUT" ]
	update_pod pod-2 '{"metadata":{"labels":{"x":"1"}}}'
	wait_until 10 file_has "$OUT" '"type":"Updated"'
	stop_watch
	[ "$(jq -r '[.type, .key, .initialList] | @tsv' "$OUT")" = $'Updated\tdefault/pod-2\tfalse' ]
}

@test "--resync 1s delivers Sync deltas marked resync" {
	sim_start --pods 3
	start_watch pods -o json --resync 1s
	wait_until 20 synced
	wait_until 10 bash -c "[ \$(grep -c '\"type\":\"Sync\"' '$OUT') -ge 6 ]"
	stop_watch
	every '.type=="Sync"' '.resync == true and .source == "resync" and .initialList == false'
	[ "$(jq -r 'select(.type=="Sync") | .key' "$OUT" | sort -u | wc -l)" -eq 3 ]
	# Not before a period has passed since the list.
	[ "$(jq -r '.type' "$OUT" | head -n 3 | sort -u)" = Replaced ]
	grep -q 'resync' "$ERR"
	# On line output: the (resync) marker.
	start_watch pods --resync 1s --types Sync --max-deltas 1
	wait_until 10 ended "$KINF_PID"
	grep -qE ' Sync +default/pod-[0-2] .*\(resync\)$' "$OUT" || { sed 's/^/# /' "$OUT" "$ERR" >&2; false; }
	# --types Sync means a resync under 1.36 too, whose FIFO queues SyncAll.
	start_watch pods --resync 1s --types Sync --max-deltas 1 --client-go 1.36
	wait_until 10 ended "$KINF_PID"
	grep -qE ' SyncAll +default/pod-[0-2] .*\(resync\)$' "$OUT" || { sed 's/^/# /' "$OUT" "$ERR" >&2; false; }
}

# A relist after a gap in which pod-0 was deleted and pod-3 changed.
relist_with_gap() {
	simctl POST /faults '{"verb":"any","kind":"500","count":1000}' >/dev/null
	simctl POST /restart-watch-cache >/dev/null
	simctl POST /delete '{"resource":"pods","namespace":"default","name":"pod-0","graceful":false}' >/dev/null
	update_pod pod-3 '{"metadata":{"labels":{"changed":"yes"}}}'
	simctl DELETE /faults >/dev/null
}

@test "--fifo real queues a relist's tombstones before its Replaced deltas" {
	sim_start --pods 5
	start_watch pods -o json --fifo real
	wait_until 20 synced
	relist_with_gap
	wait_until 30 file_has "$OUT" '"listNumber":1'
	wait_until 10 file_has "$OUT" '"key":"default/pod-3".*"listNumber":1'
	stop_watch
	run jq -r 'select(.listNumber == 1) | [.type, .key, .tombstone] | @tsv' "$OUT"
	[ "${lines[0]}" = $'Deleted\tdefault/pod-0\ttrue' ]
	assert_output_contains $'Replaced\tdefault/pod-3\tfalse'
	[ "$(jq -r 'select(.listNumber == 1) | .type' "$OUT" | uniq | paste -sd,)" = Deleted,Replaced ]
	# The DeltaFIFO, by default, queues them in the order client-go's
	# Replace does: the listed keys, then the vanished ones.
	sim_start --pods 5
	start_watch pods -o json --fifo delta
	wait_until 20 synced
	relist_with_gap
	wait_until 30 file_has "$OUT" '"tombstone":true'
	stop_watch
	run jq -r 'select(.listNumber == 1) | [.type, .key, .tombstone] | @tsv' "$OUT"
	assert_output_contains $'Replaced\tdefault/pod-3\tfalse'
	assert_output_contains $'Deleted\tdefault/pod-0\ttrue'
	[ "$(jq -r 'select(.listNumber == 1) | .type' "$OUT" | uniq | paste -sd,)" = Replaced,Deleted ]
}

@test "--max-deltas N prints N deltas and exits 0" {
	sim_start --pods 6
	run --separate-stderr timeout 20 "$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG" -o json --max-deltas 4
	assert_status 0
	[ "${#lines[@]}" -eq 4 ]
	# Notices are not deltas.
	run --separate-stderr timeout 20 "$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG" --max-deltas 2 --no-headers
	assert_status 0
	[ "${#lines[@]}" -eq 2 ]
	# Counted after --types.
	start_watch pods -o json --types Updated --max-deltas 1
	wait_until 20 synced
	kill -0 "$KINF_PID"
	update_pod pod-4 '{"metadata":{"labels":{"x":"1"}}}'
	wait_until 10 ended "$KINF_PID"
	wait "$KINF_PID"
	KINF_PID=
	[ "$(jq -r .type "$OUT")" = Updated ]
}

@test "--timeout ends the watch with status 0" {
	sim_start --pods 2
	run --separate-stderr timeout 20 "$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG" -o json --timeout 1500ms
	assert_status 0	# timeout(1)'s kill at 20 s would be 124
	[ "${#lines[@]}" -eq 2 ]
	[[ $stderr != *error* ]]
}

@test "--timeout and --max-deltas: an informer that never synced is status 1, said so" {
	sim_start --pods 3
	# Neither a LIST nor a streaming list of pods gets anything but a 500.
	simctl POST /faults '{"verb":"any","resource":"pods","kind":"500","count":1000}' >/dev/null
	run --separate-stderr timeout 20 "$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG" -o json --timeout 2s -q
	assert_status 1
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "error: pods: not synced after 2s: "*500* ]]
	# Pods reach --max-deltas while deployments never list.
	simctl DELETE /faults >/dev/null
	simctl POST /faults '{"verb":"any","resource":"deployments","kind":"500","count":1000}' >/dev/null
	run --separate-stderr timeout 20 "$KINF" watch pods,deployments --kubeconfig "$SIM_KUBECONFIG" -o json --max-deltas 3 -q
	assert_status 1
	[ "${#lines[@]}" -eq 3 ]
	[[ $stderr == "error: deployments: not synced after "* ]]
}

@test "--keep-managed-fields keeps metadata.managedFields; dropped by default" {
	sim_start --pods 2
	watch_synced pods -o json
	[ "$(jq -r '.object.metadata | has("managedFields")' "$OUT" | sort -u)" = false ]
	watch_synced pods -o json --keep-managed-fields
	[ "$(jq -r '.object.metadata | has("managedFields")' "$OUT" | sort -u)" = true ]
	[ "$(jq -r '.object.metadata.managedFields | type' "$OUT" | sort -u)" = array ]
}

# Runs kinf on a terminal (script(1) gives it one), printing what it wrote.
on_tty() {
	local cmd
	printf -v cmd '%q ' "$@"
	script -qfec "$cmd" /dev/null </dev/null
}

@test "--color: always colours, never doesn't, auto on a terminal unless NO_COLOR" {
	sim_start --pods 2
	esc=$'\e['
	watch_synced pods --color always
	grep -qF "${esc}" "$OUT"
	watch_synced pods --color never
	! grep -qF "${esc}" "$OUT" || false
	# Not a terminal: auto means no colour.
	(unset NO_COLOR; watch_synced pods)
	! grep -qF "${esc}" "$OUT" || false
	# On a terminal.
	run env -u NO_COLOR bash -c "$(declare -f on_tty); on_tty '$KINF' watch pods --kubeconfig '$SIM_KUBECONFIG' -q --max-deltas 2"
	assert_status 0
	assert_output_contains "${esc}"
	run env NO_COLOR=1 bash -c "$(declare -f on_tty); on_tty '$KINF' watch pods --kubeconfig '$SIM_KUBECONFIG' -q --max-deltas 2"
	assert_status 0
	assert_output_contains Replaced
	[[ $output != *"${esc}"* ]]
	run env NO_COLOR=1 bash -c "$(declare -f on_tty); on_tty '$KINF' watch pods --kubeconfig '$SIM_KUBECONFIG' -q --max-deltas 2 --color always"
	assert_output_contains "${esc}"
	# JSON is never coloured.
	watch_synced pods -o json --color always
	jq -e . "$OUT" >/dev/null
}

@test "several resources at once: one informer each, a KIND column" {
	sim_start --pods 3
	watch_synced pods,deployments
	head -n1 "$OUT" | grep -qE '^TIME +TYPE +KIND +KEY +RV +STATUS$'
	[ "$(grep -cE ' Replaced +Pod +default/pod-' "$OUT")" -eq 3 ]
	[ "$(grep -cE ' Replaced +Deployment +default/' "$OUT")" -eq 3 ]
	grep -q '^kinf: pods: synced' "$ERR"
	grep -q '^kinf: deployments: synced' "$ERR"
	simctl DELETE /requests >/dev/null
	start_watch pods,deploy,cm -o json
	wait_until 20 synced 3
	simctl POST /update '{"resource":"deployments","namespace":"default","name":"api","patch":{"spec":{"replicas":5}}}' >/dev/null
	update_pod pod-0 '{"metadata":{"labels":{"x":"1"}}}'
	wait_until 10 file_has "$OUT" '"type":"Updated".*"resource":"deployments"'
	wait_until 10 file_has "$OUT" '"type":"Updated".*"resource":"pods"'
	stop_watch
	[ "$(jq -r '.resource' "$OUT" | sort -u | tr '\n' ' ')" = "configmaps deployments pods " ]
	every '.resource=="deployments"' '.kind == "Deployment"'
	every '.resource=="configmaps"' '.kind == "ConfigMap"'
	every '.resource=="pods"' '.kind == "Pod"'
	# One list and one watch per resource, however many resources.
	[ "$(simctl GET '/requests?verb=list' | jq '[.[] | .resource] | sort == ["configmaps","deployments","pods"]')" = true ]
}

@test "| head -n 3 ends promptly with status 0 and no error text" {
	sim_start --pods 10
	run bash -c "timeout 20 '$KINF' watch pods --kubeconfig '$SIM_KUBECONFIG' 2>'$BATS_TEST_TMPDIR/err' | head -n 3; echo \"status \${PIPESTATUS[0]}\""
	[ "${#lines[@]}" -eq 4 ]
	[ "${lines[3]}" = "status 0" ]
	ERR=$BATS_TEST_TMPDIR/err
	only_notices
	# The reader leaves while kinf has nothing more to print: it must
	# still notice and end.
	run bash -c "timeout 20 '$KINF' watch pods pod-4 --kubeconfig '$SIM_KUBECONFIG' -o name 2>'$ERR' | head -n 1; echo \"status \${PIPESTATUS[0]}\""
	[ "$output" = $'pod/pod-4\nstatus 0' ]	# not timeout(1)'s 124
	only_notices
	run bash -c "timeout 20 '$KINF' watch pods -A --kubeconfig '$SIM_KUBECONFIG' -o json 2>'$ERR' | head -c 100 >/dev/null; echo \"status \${PIPESTATUS[0]}\""
	[ "$output" = "status 0" ]
	only_notices
}

@test "SIGINT ends the watch with 130, SIGTERM with 143, SIGHUP with 129, cleanly" {
	sim_start --pods 3
	for sig in INT TERM HUP; do
		start_watch pods -o json
		wait_until 20 synced
		kill -"$sig" "$KINF_PID"
		rc=0
		wait "$KINF_PID" || rc=$?
		KINF_PID=
		case $sig in
		INT) [ $rc -eq 130 ] ;;
		TERM) [ $rc -eq 143 ] ;;
		HUP) [ $rc -eq 129 ] ;;
		esac
		only_notices
		[ "$(wc -l <"$OUT")" -eq 3 ]
		jq -e . "$OUT" >/dev/null
	done
	# A signal while still connecting (the list hangs) ends it too.
	simctl POST /faults '{"verb":"list","kind":"hang","count":1,"seconds":30}' >/dev/null
	simctl DELETE /requests >/dev/null
	start_watch pods
	wait_until 10 bash -c "$(declare -f simctl); [ \$(simctl GET '/requests?verb=list' | jq length) -ge 1 ]"
	kill -INT "$KINF_PID"
	rc=0
	wait_until 10 ended "$KINF_PID"
	wait "$KINF_PID" || rc=$?
	KINF_PID=
	[ $rc -eq 130 ]
	only_notices
}

@test "a bad label selector kinf refuses is one line, status 2; one the server refuses (400) is retried as client-go's Run retries it" {
	sim_start --pods 1
	run --separate-stderr timeout 20 "$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG" -l 'app in (web'
	assert_status 2
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == error:*selector* ]]
	# One the server refuses: backoff and again, until --timeout ends it
	# with one error line naming the cause.
	run --separate-stderr "$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG" --field-selector spec.bogus=1 --timeout 3s
	assert_status 1
	[ -z "$output" ]
	[ "$(grep -c '^error: ' <<<"$stderr")" -eq 1 ]
	[[ ${stderr_lines[-1]} == "error: pods: not synced after 3s: "*"(400); retrying as client-go does" ]]
	[ "$(grep -c '^kinf: pods: error: .*(400); retrying as client-go does$' <<<"$stderr")" -ge 2 ]
}

@test "forbidden (the viewer's kubeconfig): retried with backoff until --timeout, each retry saying so, as client-go's Run" {
	sim_start --pods 1
	run --separate-stderr "$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG.viewer" --client-go 1.32 --timeout 4s
	# Never synced: --timeout ends it with one error line naming the cause.
	assert_status 1
	[ -z "$output" ]
	[ "$(grep -c '^error: ' <<<"$stderr")" -eq 1 ]
	[[ ${stderr_lines[-1]} == "error: pods: not synced after 4s: list pods: pods is forbidden"*"; retrying as client-go does" ]]
	[ "$(grep -c '^kinf: pods: error: list pods: pods is forbidden: User "system:serviceaccount:default:viewer" cannot list resource "pods" .*403.*; retrying as client-go does$' <<<"$stderr")" -ge 2 ]
	grep -q '^kinf: pods: backing off' <<<"$stderr"
	run --separate-stderr "$KINF" watch pods -A -o json --kubeconfig "$SIM_KUBECONFIG.viewer" -q --timeout 3s
	assert_status 1
	[[ $stderr == *"403"*"retrying as client-go does"* ]]
}

@test "401, 403 or 404 before the first list: events flow once the server lets the informer in" {
	sim_start --pods 2
	for kind in 403 401 404; do
		simctl POST /faults "{\"verb\":\"list\",\"resource\":\"pods\",\"kind\":\"$kind\",\"count\":2}" >/dev/null
		run --separate-stderr "$KINF" watch pods -o json --kubeconfig "$SIM_KUBECONFIG" --client-go 1.32 --max-deltas 2
		assert_status 0
		[ "$(grep -c "^kinf: pods: error: list pods: .*$kind.*; retrying as client-go does\$" <<<"$stderr")" -eq 2 ]
		[ "$(jq -s 'map(select(.handler == "OnAdd")) | length' <<<"$output")" -eq 2 ]
	done
}

@test "an unknown resource is one line with a suggestion and status 1" {
	sim_start --pods 1
	run --separate-stderr timeout 20 "$KINF" watch podz --kubeconfig "$SIM_KUBECONFIG"
	assert_status 1
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == error:*"'podz'"*"did you mean 'pods'"* ]]
	run --separate-stderr timeout 20 "$KINF" watch pods,deploymnts --kubeconfig "$SIM_KUBECONFIG"
	assert_status 1
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == *"'deploymnts'"*"did you mean 'deployments"* ]]
	# Names as kubectl takes them.
	for r in po pod pods Pod deploy deployments.apps deployments.v1.apps; do
		run --separate-stderr timeout 20 "$KINF" watch "$r" --kubeconfig "$SIM_KUBECONFIG" -q --max-deltas 1 -o name
		assert_status 0
		[[ $output == */* ]]
	done
}

@test "an open-file limit below what the watch polls ends it with one line naming the limit" {
	sim_start --pods 2
	start_watch pods -o name
	wait_until 20 synced
	# Fewer descriptors than the loop polls: its next poll() is refused.
	prlimit --pid "$KINF_PID" --nofile=3:3
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"wake"}}}' >/dev/null
	# in this shell: `run` waits in a subshell, which cannot reap it
	local rc=0
	wait "$KINF_PID" || rc=$?
	KINF_PID=
	[ "$rc" -eq 1 ]
	grep -qE '^error: cannot wait on [0-9]+ descriptors: the open-file limit is 3 \(ulimit -n\)$' "$ERR" ||
		{ cat "$ERR"; false; }
	[ "$(count_lines "$ERR" 'poll')" -eq 0 ]
}
