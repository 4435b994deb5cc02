#!/usr/bin/env bats
# Hostile strings (the CVE-2021-25743 class): whoever can write to an
# object kinf reads can put into it what a terminal obeys.  Every class
# goes into labels' values, annotations, ConfigMap data, a Pod's status
# and an Event's message, and every output path is checked: nothing a
# terminal acts on reaches it, except where kinf must stay byte for byte
# kubectl's (piped custom-columns, jsonpath, name) and in -o json and
# -o yaml, which escape by their format (get -o yaml refuses DEL and C1
# with kubectl's error, as its go-yaml does).

load test_helper
load tui_helper
load kubeconfig_helper
bats_require_minimum_version 1.5.0

# Every class, as a JSON string: an OSC that sets the window title, a CSI
# that clears the screen, CR, BS, DEL, C1 (U+009B is a CSI by itself),
# a bidi override and an isolate, a newline and a tab.
HOSTILE='"\u001b]0;pwned\u0007 \u001b[2J cr\rx bs\u0008 del\u007f c1\u009b31m bidi\u202eevil\u2066 nl\nx tab\tx"'
# The same without the tab and newline, which a table's tabwriter takes
# as a cell's and a row's end.
HOSTILE_FLAT='"\u001b]0;pwned\u0007 \u001b[2J cr\rx bs\u0008 del\u007f c1\u009b31m bidi\u202eevil\u2066"'
# How kinf shows HOSTILE (a grep -F pattern, up to the tab).
SHOWN='^[]0;pwned^G ^[[2J cr\rx bs^H del^? c1\u009b31m bidi\u202eevil\u2066'

setup() {
	sim_start --pods 0 --namespaces 0
	TMUX_SOCK="kinf-hostile-$$-${BATS_TEST_NUMBER}"
	simctl POST /create "{\"resource\":\"configmaps\",\"object\":{\"metadata\":{\"name\":\"hostile\",
		\"labels\":{\"h\":$HOSTILE},\"annotations\":{\"h\":$HOSTILE}},\"data\":{\"note\":$HOSTILE}}}" >/dev/null
	simctl POST /create "{\"resource\":\"configmaps\",\"object\":{\"metadata\":{\"name\":\"flat\",
		\"labels\":{\"h\":$HOSTILE_FLAT}},\"data\":{\"note\":$HOSTILE_FLAT}}}" >/dev/null
	simctl POST /create "{\"resource\":\"pods\",\"object\":{\"metadata\":{\"name\":\"hostile\",
		\"labels\":{\"h\":$HOSTILE}},\"status\":{\"reason\":$HOSTILE,\"message\":$HOSTILE}}}" >/dev/null
	simctl POST /create "{\"resource\":\"events\",\"object\":{\"metadata\":{\"name\":\"hostile.1\"},
		\"message\":$HOSTILE,\"reason\":\"Hostile\",\"type\":\"Warning\",
		\"involvedObject\":{\"kind\":\"Pod\",\"name\":\"hostile\",\"namespace\":\"default\"}}}" >/dev/null
}

teardown() {
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	kinf_stop	# a watch a failed test left running
	sim_stop
}

kc() { kubectl --kubeconfig "$SIM_KUBECONFIG" "$@"; }

# on_tty COMMAND... — runs it on a pseudo-terminal (stdout a terminal),
# without the terminal's own \n -> \r\n, so that a CR seen is the
# program's.
on_tty() {
	local cmd
	printf -v cmd '%q ' "$@"
	script -qfec "stty -onlcr; $cmd" /dev/null </dev/null
}

# terminal_safe FILE — no byte a terminal acts on: C0 but tab and
# newline, DEL, C1 as UTF-8 (or raw: no valid UTF-8), bidi overrides.
terminal_safe() {
	[ -s "$1" ] || { echo "# $1 is empty" >&2; return 1; }
	local bad='[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]'
	if LC_ALL=C grep -qaP "$bad" "$1"; then
		echo "# a raw control, C1 or bidi override in $1:" >&2
		LC_ALL=C grep -naP "$bad" "$1" | od -c | head -n 8 >&2
		return 1
	fi
	iconv -f UTF-8 -t UTF-8 "$1" >/dev/null || { echo "# invalid UTF-8 in $1" >&2; return 1; }
}

# no_c0 FILE — what JSON and YAML promise: no C0 but newline (and tab in YAML).
no_c0() {
	[ -s "$1" ] || return 1
	run ! env LC_ALL=C grep -naP '[\x00-\x08\x0b-\x1f]' "$1"
}

@test "watch: the line, -o wide and --diff show every control escaped" {
	out=$BATS_TEST_TMPDIR/out err=$BATS_TEST_TMPDIR/err
	"$KINF" watch pods,configmaps --kubeconfig "$SIM_KUBECONFIG" -o wide --diff >"$out" 2>"$err" 3>&- &
	pid=$!
	wait_until 20 file_has "$err" 'configmaps: synced'
	simctl POST /update "{\"resource\":\"configmaps\",\"namespace\":\"default\",\"name\":\"hostile\",
		\"patch\":{\"data\":{\"note\":\"calm\",\"new\":$HOSTILE_FLAT},\"metadata\":{\"annotations\":{\"h\":\"calm\"}}}}" >/dev/null
	wait_until 20 file_has "$out" 'data.new: '
	kill -TERM "$pid"; wait "$pid" || true
	grep -qF "$SHOWN" "$out"			# the Pod's STATUS on its line
	grep -qF "data.new: + $SHOWN" "$out"	# --diff, bare
	grep -qF 'data.note: "\u001b]0;pwned\u0007' "$out"	# --diff, quoted (it has a newline)
	terminal_safe "$out"
	terminal_safe "$err"
}

@test "watch -o json: the format escapes C0; -o name on a terminal is safe" {
	out=$BATS_TEST_TMPDIR/out
	"$KINF" watch configmaps --kubeconfig "$SIM_KUBECONFIG" -o json --quiet --timeout 3s >"$out" || true
	grep -qF '\u001b]0;pwned\u0007' "$out"
	no_c0 "$out"
	on_tty "$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG" -o name --quiet --max-deltas 1 >"$out"
	grep -qx 'pod/hostile' "$out"
	terminal_safe "$out"
}

@test "get: the default table and -o wide escape, as kubectl's ESC and CR and the rest" {
	out=$BATS_TEST_TMPDIR/out
	for o in "" wide; do
		"$KINF" get pods,events --kubeconfig "$SIM_KUBECONFIG" ${o:+-o "$o"} >"$out"
		grep -qF '^[]0;pwned^G ^[[2J cr...' "$out"	# kubectl cuts the cell at its newline
		terminal_safe "$out"
		on_tty "$KINF" get pods,events --kubeconfig "$SIM_KUBECONFIG" ${o:+-o "$o"} >"$out"
		terminal_safe "$out"
	done
	"$KINF" get configmaps --kubeconfig "$SIM_KUBECONFIG" --show-labels >"$out"
	grep -qF "h=$SHOWN" "$out"
	terminal_safe "$out"
}

@test "get -o custom-columns, jsonpath, name: escaped on a terminal, kubectl's bytes piped" {
	out=$BATS_TEST_TMPDIR/out
	for o in 'custom-columns=NAME:.metadata.name,NOTE:.data.note,H:.metadata.labels.h' \
		 'jsonpath={.data.note}' 'jsonpath={range .items[*]}{.metadata.labels.h}{"\n"}{end}' name; do
		one=; [[ $o == *'{.data.note}' ]] && one=hostile
		on_tty "$KINF" get configmaps $one --kubeconfig "$SIM_KUBECONFIG" -o "$o" >"$out"
		terminal_safe "$out"
		[ "$o" = name ] || grep -qF "$SHOWN" "$out"
		for cm in flat ""; do
			[[ $o == *items* && -n $cm ]] && continue
			[[ $o == *'{.data.note}' && -z $cm ]] && continue
			"$KINF" get configmaps $cm --kubeconfig "$SIM_KUBECONFIG" -o "$o" >"$out.kinf"
			kc get configmaps $cm -o "$o" >"$out.kubectl"
			cmp "$out.kinf" "$out.kubectl" || { od -c "$out.kinf" | head; od -c "$out.kubectl" | head; false; }
		done
	done
	# get -w too, through kubectl's tabwriter
	for o in name json 'jsonpath={.metadata.name}{"\t"}{.data.note}{"\n"}'; do
		on_tty "$KINF" get configmaps -w --request-timeout=1s --kubeconfig "$SIM_KUBECONFIG" \
			-o "$o" >"$out"
		terminal_safe "$out"
		[[ $o != jsonpath* ]] || grep -qF "$SHOWN" "$out"
	done
	# kubectl escapes ESC and CR in custom-columns even piped; kinf too.
	"$KINF" get configmaps flat --kubeconfig "$SIM_KUBECONFIG" -o custom-columns=N:.data.note >"$out"
	grep -qF '^[]0;pwned' "$out"
	# The rest stays raw, piped, as kubectl leaves it.
	LC_ALL=C grep -qP '\x07' "$out"
}

@test "watch --verify-every: a key only the server has is told escaped" {
	err=$BATS_TEST_TMPDIR/err
	"$KINF" watch configmaps --kubeconfig "$SIM_KUBECONFIG" --verify-every 1s --lag-wait 1s \
		-o name >/dev/null 2>"$err" 3>&- &
	pid=$!
	wait_until 20 file_has "$err" 'configmaps: synced'
	simctl POST /silent "{\"op\":\"create\",\"resource\":\"configmaps\",\"object\":{\"metadata\":{\"name\":$HOSTILE_FLAT}}}" >/dev/null
	wait_until 20 file_has "$err" 'verify: 1 missing'
	kill -TERM "$pid"; wait "$pid" || true
	grep -qF "default/$SHOWN (missing)" "$err"
	terminal_safe "$err"
}

@test "api-resources: names from discovery escaped on a terminal, kubectl's bytes piped" {
	out=$BATS_TEST_TMPDIR/out cache=$BATS_TEST_TMPDIR/cache
	"$KINF" api-resources --kubeconfig "$SIM_KUBECONFIG" --cache-dir "$cache" >/dev/null
	local f o
	f=$(find "$cache" -path '*/v1/serverresources.json' ! -path '*/apps/*' | head -1)
	jq -c '.resources += [{"name":"evil\u001b[2Jx","singularName":"","namespaced":true,
		"kind":"Ev\u001b]0;pwned\u0007il","verbs":["get","list"],"shortNames":["e\u009bv"]}]' "$f" >"$f.new"
	mv "$f.new" "$f"
	for o in wide name; do
		on_tty "$KINF" api-resources --kubeconfig "$SIM_KUBECONFIG" --cache-dir "$cache" --cached -o $o >"$out"
		grep -qF 'evil^[[2Jx' "$out"
		terminal_safe "$out"
		"$KINF" api-resources --kubeconfig "$SIM_KUBECONFIG" --cache-dir "$cache" --cached -o $o >"$out.kinf"
		kc api-resources --cache-dir "$cache" --cached -o $o >"$out.kubectl"
		cmp "$out.kinf" "$out.kubectl"
	done
}

@test "replay --controller: a kind a hostile recording names is escaped in the KIND column and the summary" {
	rec=$BATS_TEST_TMPDIR/two.rec out=$BATS_TEST_TMPDIR/out
	# one delta an object: the recording ends once both lists were delivered
	local n
	n=$("$KINF" get pods,configmaps -o name --kubeconfig "$SIM_KUBECONFIG" | wc -l)
	run "$KINF" watch pods,configmaps --kubeconfig "$SIM_KUBECONFIG" --record "$rec" --max-deltas "$n"
	assert_status 0
	zcat -f "$rec" | grep -q '"stream":"/api/v1/namespaces/default/configmaps"'
	zcat -f "$rec" | sed '1s/"kind":"ConfigMap"/"kind":"Config\\u001b]0;pwned\\u0007Map"/' >"$rec.h"
	"$KINF" replay "$rec.h" --controller >"$out" 2>"$out.err"
	grep -qF 'Config^[]0;pwned^GMap' "$out"
	terminal_safe "$out"
	grep -qF 'controller of Config^[]0;pwned^GMap (' "$out.err"
	terminal_safe "$out.err"
}

@test "replay --at trigger: what a hostile recording's trigger says is escaped" {
	out=$BATS_TEST_TMPDIR/out rec=$BATS_TEST_TMPDIR/h.rec
	{ zcat "$BATS_TEST_DIRNAME/fixtures/replay/relist-tombstone.rec"
	  echo "{\"t\":3000,\"trigger\":$HOSTILE_FLAT,\"time\":\"2026-11-23T16:28:30Z\",\"keys\":[{\"key\":$HOSTILE_FLAT,\"class\":\"stale\"}]}"
	} >"$rec"
	on_tty env NO_COLOR=1 "$KINF" replay "$rec" --at trigger --quiet >"$out"
	grep -qF "trigger: $SHOWN at 2026-11-23T16:28:30Z, 1 key" "$out"
	grep -qF "$SHOWN stale: cache absent" "$out"
	terminal_safe "$out"
	on_tty env NO_COLOR=1 "$KINF" replay "$rec" --at trigger --quiet -o json >"$out"
	tail -1 "$out" | tr -d '\r' | jq -e --argjson h "$HOSTILE_FLAT" '.trigger == $h and .keys[0].key == $h' >/dev/null
	terminal_safe "$out"
}

@test "get -o go-template: a failing template's block on stdout escaped on a terminal, kubectl's bytes piped" {
	out=$BATS_TEST_TMPDIR/out
	local t='go-template={{.data.note}}{{.data.note.x}}'
	on_tty "$KINF" get configmaps hostile --kubeconfig "$SIM_KUBECONFIG" -o "$t" >"$out" || true
	grep -qF "Error executing template: " "$out"
	grep -qF "note:$SHOWN" "$out"	# the object given to the template engine
	terminal_safe "$out"
	run -1 --separate-stderr "$KINF" get configmaps hostile --kubeconfig "$SIM_KUBECONFIG" -o "$t"
	local want
	want=$(kc get configmaps hostile -o "$t" 2>/dev/null) || true
	[ "$output" = "$want" ]
}

# HOSTILE without DEL and C1, which kubectl's go-yaml refuses to write.
HOSTILE_YAML='"\u001b]0;pwned\u0007 \u001b[2J cr\rx bs\u0008 bidi\u202eevil\u2066 nl\nx tab\tx"'
make_yaml_hostile() {
	simctl POST /create "{\"resource\":\"configmaps\",\"object\":{\"metadata\":{\"name\":\"c0\"},
		\"data\":{\"note\":$HOSTILE_YAML}}}" >/dev/null
}

@test "get -o yaml: DEL and C1 are kubectl's error, as go-yaml refuses them; C0 escaped, a bidi override as go-yaml leaves it" {
	out=$BATS_TEST_TMPDIR/out
	local want="error: yaml: control characters are not allowed"
	run --separate-stderr kc get configmap hostile -o yaml
	[ "$status" -eq 1 ] && [ "$stderr" = "$want" ]
	run --separate-stderr "$KINF" get configmap hostile --kubeconfig "$SIM_KUBECONFIG" -o yaml
	assert_status 1
	[ "$stderr" = "$want" ] && [ -z "$output" ]
	make_yaml_hostile
	"$KINF" get configmap c0 --kubeconfig "$SIM_KUBECONFIG" -o yaml >"$out"
	grep -qF 'note: "\e]0;pwned\a \e[2J cr\rx bs\b bidi' "$out"
	diff <(kc get configmap c0 -o yaml) "$out"
	no_c0 "$out"
	"$KINF" get configmap hostile --kubeconfig "$SIM_KUBECONFIG" -o json >"$out"
	no_c0 "$out"
}

@test "-o json and -o yaml on a terminal: nothing raw reaches it, and the text reads back the same" {
	local out=$BATS_TEST_TMPDIR/out o
	make_yaml_hostile
	for o in json yaml; do
		# get, from the server and from the cache (yaml: what go-yaml writes)
		local what=configmaps
		[ $o = json ] || what="configmap c0"
		for from in "" --from-cache; do
			on_tty "$KINF" get $what --kubeconfig "$SIM_KUBECONFIG" -o $o $from >"$out.tty"
			terminal_safe "$out.tty"
			"$KINF" get $what --kubeconfig "$SIM_KUBECONFIG" -o $o $from >"$out.pipe"
			# piped: the format's own bytes, bidi overrides raw as kubectl's
			LC_ALL=C grep -qaP '\xe2\x80\xae' "$out.pipe"
			python3 -c '
import json, sys, yaml
load = json.load if sys.argv[1] == "json" else yaml.safe_load
a, b = (load(open(f, encoding="utf-8")) for f in sys.argv[2:])
sys.exit(a != b)' $o "$out.tty" "$out.pipe"
		done
	done
	# the watch's NDJSON
	on_tty "$KINF" watch configmaps --kubeconfig "$SIM_KUBECONFIG" -o json --quiet --max-deltas 4 >"$out"
	terminal_safe "$out"
	grep -qF '\u202eevil' "$out"
}

# arm_status_fault CODE — the next LIST of pods answers a Status whose
# message quotes the server, invalid UTF-8 included.
arm_status_fault() {
	local body
	body=$(printf '{"kind":"Status","apiVersion":"v1","status":"Failure","message":"%s","code":%d}' \
		$'\e]0;pwned\a \e[2J cr\rx del\x7f c1\xc2\x9b31m bidi\xe2\x80\xae bad\xff\xfe nl\\nx' "$1" | base64 -w0)
	simctl POST /faults "{\"verb\":\"list\",\"resource\":\"pods\",\"kind\":\"body\",\"status\":$1,
		\"base64\":true,\"body\":\"$body\"}" >/dev/null
}

@test "stderr: a server's Status message is one escaped line, in errors and in notices" {
	err=$BATS_TEST_TMPDIR/err
	arm_status_fault 403
	run -1 --separate-stderr "$KINF" get pods --kubeconfig "$SIM_KUBECONFIG"
	printf '%s\n' "$stderr" >"$err"
	grep -qF 'error: list pods: ^[]0;pwned^G ^[[2J cr\rx del^? c1\u009b31m bidi\u202e bad\xff\xfe nl x' "$err"
	terminal_safe "$err"
	# watch retries a 500: the failed LIST is a notice
	arm_status_fault 500
	"$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG" --client-go 1.32 --max-deltas 1 >/dev/null 2>"$err"
	grep -qF 'kinf: pods: error: list pods: ^[]0;pwned^G ^[[2J cr\rx del^? c1\u009b31m' "$err"
	terminal_safe "$err"
}

@test "stderr: a kubeconfig's namespace, in kubectl's note that it has nothing, is escaped" {
	err=$BATS_TEST_TMPDIR/err kc=$BATS_TEST_TMPDIR/kc
	sed 's/namespace: default/namespace: "x\\e[2Jy"/' "$SIM_KUBECONFIG" >"$kc"
	grep -qF 'namespace: "x\e[2Jy"' "$kc"
	"$KINF" get configmaps --kubeconfig "$kc" 2>"$err"
	grep -qxF 'No resources found in x^[[2Jy namespace.' "$err"
	terminal_safe "$err"
}

@test "stderr: -v -v's trace of headers and bodies is escaped" {
	err=$BATS_TEST_TMPDIR/err
	arm_status_fault 403
	run -1 "$KINF" get pods --kubeconfig "$SIM_KUBECONFIG" -v -v
	printf '%s\n' "$output" >"$err"
	grep -qF '< [' "$err"
	# the raw body, as the fault sends it
	grep -qF '"message":"^[]0;pwned^G ^[[2J cr\rx del^? c1\u009b31m bidi\u202e bad\xff\xfe' "$err"
	terminal_safe "$err"
}

@test "stderr: an exec plugin's own messages pass on escaped" {
	mkdir -p "$BATS_TEST_TMPDIR/plugin"
	write_kubeconfig "$BATS_TEST_TMPDIR/kc" "$(printf '    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: %s\n      interactiveMode: Never\n      env:\n      - {name: PLUGIN_DIR, value: "%s"}\n      - {name: PLUGIN_TOKEN, value: "%s"}\n      - {name: PLUGIN_STDERR, value: "%s"}\n' \
		"$BATS_TEST_DIRNAME/fixtures/exec-plugin" "$BATS_TEST_TMPDIR/plugin" "$SIM_TOKEN" \
		'plugin says \\033]0;pwned\\007 cr\\rx del\\0177 c1\\0302\\0233 bidi\\0342\\0200\\0256 bad\\0377')"
	err=$BATS_TEST_TMPDIR/err
	"$KINF" get pods --kubeconfig "$BATS_TEST_TMPDIR/kc" >/dev/null 2>"$err"
	grep -qxF 'plugin says ^[]0;pwned^G cr\rx del^? c1\u009b bidi\u202e bad\xff' "$err"
	terminal_safe "$err"
}

@test "tui: the screen shows the escapes, and the terminal obeys none" {
	raw=$BATS_TEST_TMPDIR/raw
	kinf_in_pane tui --kubeconfig "$SIM_KUBECONFIG" pods
	tmux -L "$TMUX_SOCK" pipe-pane -o "cat >>'$raw'"
	title=$(pane '#{pane_title}')
	# the table's STATUS, then the object in the detail view, to its end
	wait_screen '^\+ hostile +1/1 +\^\[\]0;pwned\^G \^\[\[2J cr\\rx'
	keys Enter
	wait_screen 'Object \(Pod\)'
	keys G
	wait_screen '"message": ".*del\^\? c1\\u009b31m bidi\\u202eevil\\u2066'
	[ "$(pane '#{pane_title}')" = "$title" ]
	# What kinf wrote holds ncurses' own sequences, never the object's.
	[ -s "$raw" ]
	run ! env LC_ALL=C grep -qaP '\x1b\]0;|\x07|\x7f|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]' "$raw"
}

# nested N — an object N levels deep, as JSON: {"a":{"a":...1...}}
nested() { python3 -c "import sys; n = int(sys.argv[1]); print('{\"a\":' * n + '1' + '}' * n)" "$1"; }

@test "an object nested 9,990 levels deep (Go reads 10,000): synced, verified, printed" {
	simctl POST /create "{\"resource\":\"configmaps\",\"object\":{\"metadata\":{\"name\":\"deep\"},\"spec\":$(nested 9990)}}" >/dev/null
	simctl POST /create "{\"resource\":\"configmaps\",\"object\":{\"metadata\":{\"name\":\"deep2k\"},\"spec\":$(nested 2000)}}" >/dev/null
	# the informer takes it in, and the cache is the server's
	kinf_bg watch --kubeconfig "$SIM_KUBECONFIG" configmaps --verify-every 1s -o name
	wait_until 60 file_has "$ERR" 'verify: cache equals the server'
	kinf_stop INT
	grep -qx 'configmap/deep' "$OUT"
	run ! grep -q 'nested too deeply' "$ERR"
	# get, from the server and from the cache
	run --separate-stderr "$KINF" get --kubeconfig "$SIM_KUBECONFIG" configmaps deep \
		-o go-template='{{.metadata.name}} {{len .spec}}'
	assert_status 0
	[ "$output" = "deep 1" ]
	run --separate-stderr "$KINF" get --kubeconfig "$SIM_KUBECONFIG" configmaps --from-cache \
		-o jsonpath='{.items[*].metadata.name}'
	assert_status 0
	[[ " $output " == *" deep deep2k "* ]]
	# the whole of it as JSON and YAML (kubectl's indentation makes 9,990
	# levels 400 MB: 2,000 show it)
	run --separate-stderr "$KINF" get --kubeconfig "$SIM_KUBECONFIG" configmaps deep2k -o json
	assert_status 0
	[ "$(grep -c '"a": {' <<<"$output")" -eq 1999 ]
	run --separate-stderr "$KINF" get --kubeconfig "$SIM_KUBECONFIG" configmaps deep2k -o yaml
	assert_status 0
	[ "$(grep -c '^ *a:$' <<<"$output")" -eq 1999 ]
}

@test "a NUL inside a string is shown, never cut: yaml (server, cache, TUI) and --diff" {
	simctl POST /create '{"resource":"configmaps","object":{"metadata":{"name":"nul"},"data":{"k":"a\u0000b"}}}' >/dev/null
	local from
	for from in "" --from-cache; do
		run --separate-stderr "$KINF" get --kubeconfig "$SIM_KUBECONFIG" configmaps nul -o yaml $from
		assert_status 0
		grep -qxF '  k: "a\0b"' <<<"$output" || { echo "$output" >&2; false; }
	done
	# a change after the NUL is a change, shown with it
	kinf_bg watch --kubeconfig "$SIM_KUBECONFIG" configmaps --diff
	wait_until 20 file_has "$OUT" 'default/nul'
	simctl POST /update '{"resource":"configmaps","namespace":"default","name":"nul","patch":{"data":{"k":"a\u0000c"}}}' >/dev/null
	wait_until 20 file_has "$OUT" 'data.k: '
	kinf_stop INT
	grep -qF 'data.k: "a\u0000b" → "a\u0000c"' "$OUT" || { cat "$OUT" >&2; false; }
	# the TUI's yaml view of it
	kinf_in_pane tui --kubeconfig "$SIM_KUBECONFIG" configmaps
	wait_screen '^ *nul '
	keys / n u l Enter
	# the filter applied (the row was there before it): y opens nul's
	wait_screen "filter 'nul': 1 "
	keys y
	wait_screen 'k: "a\\0c"'
}

@test "a NUL in a CRD column's value is ^@ wherever kinf makes the cell: get --from-cache, the watch line, the TUI" {
	simctl POST /create '{"resource":"crontabs","object":{"metadata":{"name":"odd","namespace":"default"},"spec":{"cronSpec":"* *\u0000* * *","replicas":2}}}' >/dev/null
	# The server's Table is the reference.
	run --separate-stderr "$KINF" get --kubeconfig "$SIM_KUBECONFIG" crontabs odd
	assert_status 0
	[[ ${lines[1]} =~ ^odd\ +\*\ \*\^@\*\ \*\ \*\ +2\  ]] || { echo "# ${lines[1]}" >&2; false; }
	local server=${lines[1]}
	run --separate-stderr "$KINF" get --kubeconfig "$SIM_KUBECONFIG" crontabs odd --from-cache
	assert_status 0
	# the same but for AGE, which a second may have passed
	[ "${lines[1]% *}" = "${server% *}" ] || { echo "# ${lines[1]}" >&2; false; }
	kinf_bg watch --kubeconfig "$SIM_KUBECONFIG" crontabs
	wait_until 20 file_has "$OUT" 'default/odd'
	kinf_stop INT
	grep -qF 'spec=* *^@* * * replicas=2 ' "$OUT" || { cat "$OUT" >&2; false; }
	kinf_in_pane tui --kubeconfig "$SIM_KUBECONFIG" crontabs
	wait_screen '^ *odd +\* \*\^@\* \* \* +2 '
}
