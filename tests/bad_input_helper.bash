# The bad-input sweep's rows and helpers, shared by 50-bad-input.bats
# (the list) and 50-bad-input-watch.bats (the watch, kubeconfigs, flags
# and the TUI): see the first file's header for what a row checks.

KINF_PID=
B=

setup() {
	B=$BATS_TEST_TMPDIR
	TMUX_SOCK="kinf-bad-$$-${BATS_TEST_NUMBER}"
}

teardown() {
	if [ -n "$KINF_PID" ]; then
		kill -TERM "$KINF_PID" 2>/dev/null || true
		wait "$KINF_PID" 2>/dev/null || true
	fi
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	sim_stop
}

# ---- helpers -------------------------------------------------------------

fault() { simctl POST /faults "$1" >/dev/null; }

# fault_file FILE — a fault too big for a command line (curl reads FILE).
fault_file() {
	curl -sS -f -H 'Content-Type: application/json' --data-binary "@$1" \
		"$SIM_CONTROL/faults" >/dev/null
}

# body VERB CONTENT-TYPE STATUS BODY — a `body` fault's JSON.
body() {
	jq -cn --arg v "$1" --arg t "$2" --argjson s "$3" --arg b "$4" \
		'{verb:$v, resource:"pods", kind:"body", contentType:$t, status:$s, body:$b}'
}

# body64 VERB BASE64 — the same with bytes JSON can't carry (NUL, \xff).
body64() {
	jq -cn --arg v "$1" --arg b "$2" \
		'{verb:$v, resource:"pods", kind:"body", base64:true, body:$b}'
}

# lines LINE... — a `lines` fault: these lines open the next pods watch.
lines() {
	jq -cn '{verb:"watch", resource:"pods", kind:"lines", lines:$ARGS.positional}' --args "$@"
}

# A list body that lists `items` (JSON) at resourceVersion 1: too old once
# compacted, so kinf's next watch gets a 410 and relists the truth.
fake_list() {
	printf '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":%s}' "$1"
}

pod() {	# pod NAME [RV [NAMESPACE]] — the least a pod can be
	printf '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"%s","namespace":"%s","resourceVersion":"%s"}}' \
		"$1" "${3-default}" "${2:-5}"
}

# No output holds a credential, whole or in part.
no_secrets() {
	local f
	for f in "$@"; do
		[ -f "$f" ] || continue
		if grep -aqF -e "$SIM_TOKEN" -e "${SIM_TOKEN:0:16}" -e "$SIM_VIEWER_TOKEN" "$f"; then
			echo "# a token is in $f" >&2
			return 1
		fi
	done
}

# one_line FILE REGEX — FILE is exactly one line, matching REGEX, with no
# control character in it.
one_line() {
	local n
	n=$(wc -l <"$1")
	if [ "$n" -ne 1 ] || ! grep -qE -- "$2" "$1"; then
		echo "# expected one line matching: $2; got $n:" >&2
		sed 's/^/#   /' "$1" | head -20 >&2
		return 1
	fi
	if LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n' <"$1"); then
		echo "# a control character in: $(cat -v "$1")" >&2
		return 1
	fi
}

assert_exit() {	# assert_exit GOT WANT FILE
	if [ "$1" -ne "$2" ]; then
		echo "# exit status $1, expected $2; stderr:" >&2
		sed 's/^/#   /' "$3" | head -20 >&2
		return 1
	fi
}

# ---- the row kinds --------------------------------------------------------

get_row() {	# get_row FAULT STATUS ERROR
	sim_start --pods 4
	fault "$1"
	local rc=0
	"$KINF" get pods --kubeconfig "$SIM_KUBECONFIG" >"$B/out" 2>"$B/err" || rc=$?
	assert_exit "$rc" "$2" "$B/err"
	one_line "$B/err" "$3"
	[ ! -s "$B/out" ] || { echo "# stdout: $(head -c 300 "$B/out")" >&2; return 1; }
	no_secrets "$B/out" "$B/err"
}

notices() { grep -cE -- "$1" "$B/err" || true; }
notices_at_least() { [ "$(notices "$1")" -ge "$2" ]; }
synced() { grep -q 'synced' "$B/err"; }
watching() { [ "$(simctl GET /stats | jq '.watchesByResource.pods // 0')" -gt 0 ]; }
watch_had_events() { simctl GET /watches | jq -e 'any(.[]; .resource == "pods" and .eventsSent > 0)' >/dev/null; }
has_rv() { grep -q "\"resourceVersion\":\"$1\"" "$B/out"; }
# delta COND — some delta printed meets the jq condition COND.
delta() { jq -s -e "any(.[]; $1)" "$B/out" >/dev/null || { echo "# no delta with $1" >&2; return 1; }; }

# rewatch_into FAULT — the running watch had an event (one ended before
# any is "very short" and relisted, which is not what a row is about);
# then FAULT (a file, or a fault's JSON) is set, and the watch ends
# cleanly, so that kinf re-watches at once and meets it.
rewatch_into() {
	wait_until 10 watching
	simctl POST /bookmark '{"resource":"pods"}' >/dev/null
	wait_until 10 watch_had_events
	if [ -f "$1" ]; then fault_file "$1"; else fault "$1"; fi
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
}

watch_row() {	# watch_row list|watch FAULT NOTICE [COUNT]
	local when=$1 f=$2 notice=$3 count=${4:-1}
	sim_start --pods 4 --namespaces 1
	# RVs from before now are too old: a fake list at RV 1 is relisted.
	simctl POST /compact >/dev/null
	if [ "$when" = list ]; then
		if [ -f "$f" ]; then fault_file "$f"; else fault "$f"; fi
	fi
	# LIST, not a streaming list (1.36's default), so that list faults
	# meet it; the watch rows cover what a streaming list reads.
	"$KINF" watch pods -A -o json --streaming-list=false --dump-cache "$B/cache.json" \
		--kubeconfig "$SIM_KUBECONFIG" >"$B/out" 2>"$B/err" 3>&- &
	KINF_PID=$!
	wait_until 20 synced
	[ "$when" != watch ] || rewatch_into "$f"
	if [ "$count" -gt 0 ]; then
		wait_until 20 notices_at_least "$notice" "$count" ||
			{ sed 's/^/# /' "$B/err" >&2; return 1; }
	fi
	# Recovered: a change made now is delivered, and nothing is missing.
	wait_until 20 watching
	local rv
	rv=$(simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-0","patch":{"metadata":{"labels":{"sweep":"after"}}}}' |
		jq -r .metadata.resourceVersion)
	wait_until 30 has_rv "$rv" || { sed 's/^/# /' "$B/err" >&2; return 1; }
	local truth
	truth=$(sim_oracle pods | jq -S -c .items)
	kill -TERM "$KINF_PID"
	local rc=0
	wait "$KINF_PID" || rc=$?
	KINF_PID=
	assert_exit "$rc" 143 "$B/err"
	[ "$(jq -S -c . "$B/cache.json")" = "$truth" ] ||
		{ echo "# cache: $(head -c 500 "$B/cache.json")"; echo "# truth: $truth"; return 1; }
	local seen
	seen=$(notices "$notice")
	[ "$seen" -eq "$count" ] ||
		{ echo "# '$notice' on stderr $seen times, expected $count:" >&2; sed 's/^/# /' "$B/err" >&2; return 1; }
	# Each line of stderr is one notice; none repeats what the last said.
	if grep -v '^kinf: pods: ' "$B/err" | grep .; then
		echo "# stderr holds more than notices (above)" >&2
		return 1
	fi
	[ -z "$(uniq -d "$B/err" | grep -v 'backing off')" ] || { echo "# a notice repeated" >&2; return 1; }
	# stdout: valid UTF-8, one JSON object a line, no delta twice.
	iconv -f UTF-8 -t UTF-8 "$B/out" >/dev/null || { echo "# stdout is not UTF-8" >&2; return 1; }
	[ -z "$(jq -r '[.type, .key, .resourceVersion, (.listNumber // "")] | @tsv' "$B/out" | sort | uniq -d)" ] ||
		{ echo "# a delta printed twice" >&2; return 1; }
	no_secrets "$B/out" "$B/err" "$B/cache.json"
}

cli_row() {	# cli_row STATUS ERROR ARGS...
	local want=$1 re=$2 rc=0
	shift 2
	"$KINF" "$@" >"$B/out" 2>"$B/err" </dev/null || rc=$?
	assert_exit "$rc" "$want" "$B/err"
	one_line "$B/err" "$re"
	[ ! -s "$B/out" ] || { echo "# stdout: $(head -c 300 "$B/out")" >&2; return 1; }
	if [ -n "${SIM_TOKEN:-}" ]; then no_secrets "$B/out" "$B/err"; fi
}

kubeconfig_with() {	# kubeconfig_with TEXT — a file holding TEXT; prints its path
	printf '%s' "$1" >"$B/kubeconfig"
	echo "$B/kubeconfig"
}

# ---- TUI -----------------------------------------------------------------

tui_start() {	# tui_start ARGS... — kinf tui in a 100x30 tmux pane
	command -v tmux >/dev/null || skip "tmux is not installed (make deps)"
	local cmd
	printf -v cmd '%q ' "$KINF" tui "$@"
	tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -x 100 -y 30 \
		"stty -a >'$B/stty.before'; $cmd 2>'$B/err'; echo \"kinf exited \$?\"; stty -a >'$B/stty.after'; sleep 600"
}
screen() { tmux -L "$TMUX_SOCK" capture-pane -p; }
screen_has() { screen | grep -qE -- "$1"; }
pane() { tmux -L "$TMUX_SOCK" display-message -p "$1"; }

# The pane's terminal is as it was: main screen, cursor shown, same modes.
terminal_restored() {
	wait_until 10 screen_has 'kinf exited' || { screen | sed 's/^/# /' >&2; return 1; }
	wait_until 5 test -s "$B/stty.after"
	[ "$(pane '#{alternate_on}')" = 0 ] || { echo "# still on the alternate screen" >&2; return 1; }
	[ "$(pane '#{cursor_flag}')" = 1 ] || { echo "# cursor still hidden" >&2; return 1; }
	diff "$B/stty.before" "$B/stty.after" >&2
}

# stuck_row list|watch FAULT RV — the server hands out RV, then refuses it
# (400): client-go's reflector lists again at RV after each backoff, for
# ever, never at "" (nothing makes it give the RV up but a 410).
stuck_row() {
	local when=$1 f=$2 rv=$3
	sim_start --pods 4 --namespaces 1
	[ "$when" != list ] || fault "$f"
	"$KINF" watch pods -A -o json --streaming-list=false \
		--kubeconfig "$SIM_KUBECONFIG" >"$B/out" 2>"$B/err" 3>&- &
	KINF_PID=$!
	wait_until 20 synced
	[ "$when" != watch ] || rewatch_into "$f"
	wait_until 30 notices_at_least \
		'error: list pods: .*must be a valid resource version \(400\); retrying as client-go does$' 2 ||
		{ sed 's/^/# /' "$B/err" >&2; return 1; }
	notices_at_least 'backing off .*: relisting' 2
	kill -TERM "$KINF_PID"
	local rc=0
	wait "$KINF_PID" || rc=$?
	KINF_PID=
	assert_exit "$rc" 143 "$B/err"
	# Every LIST after the RV came asked for it, and none for "" or "0".
	local asked
	asked=$(simctl GET '/requests?verb=list&resource=pods' | jq -r '.[1:][] | .query.resourceVersion // ""' | sort -u)
	[ "$asked" = "$rv" ] || { echo "# relists asked for: $asked" >&2; return 1; }
}
