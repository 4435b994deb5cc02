#!/usr/bin/env bats
# kinf tui for k9s hands: the columns that give way on a narrow screen,
# `:` for a resource, `n` for a namespace, `y` for YAML, sorting by the
# columns as they are on screen, `/` with regexes and selectors, Esc,
# unknown keys, and a resize that leaves nothing behind.

load test_helper
load tui_helper
bats_require_minimum_version 1.5.0

setup() {
	sim_start --pods 0 --namespaces 1
	for p in alpha bravo charlie; do
		make_pod "$p" >/dev/null
	done
	TMUX_SOCK="kinf-tui-$$-${BATS_TEST_NUMBER}"
}

teardown() {
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	sim_stop
}

# make_pod NAME [APP [NAMESPACE]]
make_pod() {
	simctl POST /create "{\"resource\":\"pods\",\"object\":{\"metadata\":{\"name\":\"$1\",\"namespace\":\"${3:-default}\",\"labels\":{\"app\":\"${2:-tui}\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}}"
}

start_synced() {
	tui_start pods --kubeconfig "$SIM_KUBECONFIG" "$@"
	wait_synced
}

# The table's rows (the lines between its column header and the deltas).
table_rows() { screen | sed -n '/ NAME /,/ deltas /p' | sed '1d;$d' | grep -v '^ *$'; }

# cursor_on NAME — the table's cursor (its row in reverse video) is on NAME.
cursor_on() {
	tmux -L "$TMUX_SOCK" capture-pane -e -p | grep -a $'\e\\[[0-9;]*7m' | sed 's/\x1b\[[0-9;]*m//g' |
		grep -E ' (ReplacedAll|Replaced|Added|Updated|Sync) ' | grep -q " $1 "
}

# The table's column header, as words (NAMESPACE NAME READY ...).
header() { screen | grep -m1 -E '^  (NAMESPACE|NAME) ' | sed 's/  */ /g; s/^ //'; }
has_column() { [[ " $(header) " == *" $1 "* ]]; }

# kinf drew the status line for width W: all of it, or W columns of it.
redrawn_at() {
	local last
	last=$(screen | tail -n1 | sed 's/ *$//')
	[ ${#last} -eq "$1" ] || [[ $last == *"q quit" ]]
}

# Columns go in this order: RESTARTS, NODE, AGE, RV; STATUS never.
check_give_way() {
	has_column STATUS || { echo "# no STATUS: $(header)" >&2; return 1; }
	local order=(RESTARTS NODE AGE RV) i
	for ((i = 0; i + 1 < ${#order[@]}; i++)); do
		if has_column "${order[i]}" && ! has_column "${order[i + 1]}"; then
			echo "# ${order[i + 1]} went before ${order[i]}: $(header)" >&2
			return 1
		fi
	done
}

@test "tui: at 80x24 the pods table keeps STATUS; RESTARTS, NODE, AGE, RV give way in that order" {
	make_pod frontend-7f9c6d8b5d-abcde-long-name1 >/dev/null
	TUI_COLS=80 TUI_LINES=24 start_synced -A
	wait_screen 'NAMESPACE +NAME +READY +STATUS '
	screen_lacks 'RESTARTS'
	screen_lacks ' NODE '
	table_rows | grep -E 'frontend-7f9c6d8b5d-abcde-long-name1 +[0-9]/[0-9] +[A-Z][A-Za-z]+ '
	[ "$(widest_line)" -le 80 ]
	check_give_way
	# Wider and wider: they come back in the reverse order.
	local w
	for w in 84 88 92 96 100 110; do
		tmux -L "$TMUX_SOCK" resize-window -x $w -y 24
		wait_until 5 redrawn_at $w || { show_screen; false; }
		check_give_way || { show_screen; false; }
	done
	has_column RESTARTS
}

@test "tui: NAME does not take half of a 200-column screen" {
	TUI_COLS=200 start_synced
	wait_screen ' NAME {1,8}READY +STATUS +RESTARTS +NODE +AGE +RV +DELTA +LAST'
	row_of alpha | grep -qE '^. alpha {1,8}[0-9]/[0-9]'
}

# A name of 300 characters, then one of 90: the first too long for any
# screen, the second whole on a line of the detail view.
@test "tui: a long NAME takes half the table at most, cut with …; the detail view has it whole" {
	local name300 name90 cut
	name300=p300-$(printf 'x%.0s' {1..295})
	name90=p90-$(printf 'y%.0s' {1..86})
	make_pod "$name300" >/dev/null
	make_pod "$name90" >/dev/null
	TUI_COLS=120 start_synced
	# Every column is there: the long names gave way, not the columns.
	wait_screen ' NAME +READY +STATUS +RESTARTS +NODE +AGE +RV +DELTA +LAST'
	row_of alpha | grep -qE '^. alpha +[0-9]/[0-9] +[A-Z][a-z]+ +[0-9]+ '
	[ "$(widest_line)" -le 120 ]
	# The names end in the mark, within half the screen.
	cut=$(screen | grep -oE ' p300-x+… ' | tr -d ' ')
	[ -n "$cut" ] || { show_screen; false; }
	[ "${#cut}" -le 60 ]
	screen | grep -qE ' p90-y+… ' || { show_screen; false; }
	keys / p 9 0 Enter
	wait_screen "filter 'p90': 1"
	keys g Enter
	wait_screen "Pod default/$name90 "
	screen_has "\"name\": \"$name90\""
}

@test "tui: : switches to a resource or adds it, Tab completing from discovery" {
	start_synced
	keys : d e p Tab
	wait_screen '^resource: deployments'
	keys Enter
	wait_screen '2:deployments [0-9]'
	wait_screen ' deployments  [0-9]+ objects .*synced rv '
	# An existing one: its tab, no new one.
	keys : p o Enter
	wait_screen ' pods  3 objects'
	screen_lacks ' 3:'
	# Several start alike: Tab says which.
	keys : c Tab
	wait_screen 'configmaps +crontabs'
	keys C-u n o p e Enter
	wait_screen "doesn't have a resource type 'nope'"
	keys Escape
	wait_screen '^\? help'
}

# k9s's way: the prompt does not stay open for a name that failed, to
# take the next keys as text.
@test "tui: : with a name the server does not have closes the prompt, says why on the status line; q quits" {
	start_synced
	keys : n o s u c h Enter
	wait_screen "^the server doesn't have a resource type 'nosuch'"
	run ! screen_has '^resource: '
	keys q
	wait_screen 'kinf exited 0'
	assert_terminal_restored
}

@test "tui: : on a custom resource shows its CRD's printer columns" {
	start_synced
	keys : c r o n t a b s Enter
	wait_screen '2:crontabs [0-9]'
	wait_screen ' crontabs  1 object .*synced'
	# the priority-0 additionalPrinterColumns, not NAME and AGE alone
	wait_screen ' NAME +SPEC +REPLICAS +AGE +RV +DELTA +LAST'
	row_of my-new-cron-object | grep -qE ' my-new-cron-object +\* \* \* \* \*/5 +1 '
}

# How many times kinf read Knative's CRD.
crd_gets() {
	simctl GET '/requests?verb=get' |
		jq '[.[] | select(.path | endswith("/customresourcedefinitions/services.serving.knative.dev"))] | length'
}
crd_gets_are() { [ "$(crd_gets)" -eq "$1" ]; }

@test "tui: Knative's Services (kind Service too) have their CRD's columns, the core group's Services their own" {
	sim_restart --pods 0 --knative
	# both tabs open with both kinds known: each its own group's columns
	tui_start services,ksvc --kubeconfig "$SIM_KUBECONFIG"
	wait_screen ' services  2 objects .*synced'
	wait_screen ' NAME +AGE +RV +DELTA +LAST'
	wait_screen ' kubernetes +[0-9]+[smhdy][0-9a-z]* +[0-9]+ '
	keys 2
	wait_screen ' services  1 object .*synced'
	wait_screen ' NAME +URL +LATESTCREATED +LATESTREADY +READY +REASON'
	wait_screen ' hello +http://hello.default.example.com +hello-00001 +hello-00001 +True '
	keys 1
	wait_screen ' services  2 objects .*synced'
	wait_screen ' NAME +AGE +RV +DELTA +LAST'
	run ! screen_has 'URL'
}

# Object $2 (in default) of resource $1 changed: the frame that shows
# the change (waited for: it lays the columns out anew) has the columns
# NAME and AGE, and none of Knative's.
update_shows_name_and_age() {
	local rv
	rv=$(simctl POST /update "{\"resource\":\"$1\",\"namespace\":\"default\",\"name\":\"$2\",\"patch\":{\"metadata\":{\"labels\":{\"x\":\"y\"}}}}" |
		jq -r .metadata.resourceVersion)
	wait_screen " $2 +[0-9]+[smhdy][0-9a-z]* +$rv Updated "
	wait_screen ' NAME +AGE +RV +DELTA +LAST'
	run ! screen_has 'URL'
}

@test "tui: : on Knative's Services leaves an open tab of the core group's Services as it was" {
	sim_restart --pods 0 --knative
	tui_start services --kubeconfig "$SIM_KUBECONFIG"
	wait_screen ' services  2 objects .*synced'
	# : reads Knative's CRD, of kind Service: not the open tab's kind
	keys : k s v c Enter
	wait_screen '2:services'
	wait_screen ' NAME +URL +LATESTCREATED'
	keys 1
	wait_screen ' services  2 objects .*synced'
	# and the cells a change makes are the core's still
	update_shows_name_and_age services kubernetes
}

@test "tui: a tab whose CRD could not be read keeps NAME and AGE when : reads it later" {
	sim_restart --pods 0 --knative
	# Knative's CRD cannot be read as its tab opens
	simctl POST /faults '{"verb":"get","kind":"403"}' >/dev/null
	tui_start ksvc --kubeconfig "$SIM_KUBECONFIG"
	wait_screen ' services  1 object .*synced'
	wait_screen ' NAME +AGE +RV +DELTA +LAST'
	[ "$(crd_gets)" -eq 1 ]
	keys : k s v c Enter
	wait_until 10 crd_gets_are 2
	sleep 1	# the answer read on the worker, and learned
	wait_gone 'resolving ksvc'
	# the tab's rows were made for NAME and AGE: it keeps them, and the
	# cells a change makes are AGE's still
	update_shows_name_and_age ksvc hello
}

@test "tui: n narrows every tab to one namespace, Tab completing; Esc shows all again, from the top" {
	make_pod omega tui ns-1 >/dev/null
	make_pod zeta tui ns-1 >/dev/null
	start_synced -A
	wait_screen ' 5 objects'
	keys n n s Tab
	wait_screen '^namespace \(empty: all\): ns-1'
	keys Enter
	wait_screen 'namespace ns-1: 2'
	row_of omega
	screen_lacks ' alpha '
	screen_has 'showing ns-1'
	keys j
	wait_until 10 cursor_on zeta || { show_screen; false; }
	# Esc, as n and Enter, shows the table anew: from its first row.
	keys Escape
	wait_gone 'namespace ns-1'
	row_of alpha
	wait_until 10 cursor_on alpha || { show_screen; false; }
}

@test "tui: y shows the object as YAML, as kubectl -o yaml writes it" {
	start_synced
	keys g y
	wait_screen 'Pod default/alpha .*YAML'
	screen_has '^apiVersion: v1$'
	screen_has '^kind: Pod$'
	screen_has '^  name: alpha$'
	screen_has '^  creationTimestamp: "[0-9-]+T[0-9:]+Z"$'
	if command -v kubectl >/dev/null; then
		# The lines on screen are kubectl's, in its order.
		kubectl --kubeconfig "$SIM_KUBECONFIG" get pod alpha -o yaml >"$BATS_TEST_TMPDIR/want"
		screen | sed -n '4,$p' | sed '$d' | sed 's/ *$//' | grep -v '^$' >"$BATS_TEST_TMPDIR/got"
		head -n "$(wc -l <"$BATS_TEST_TMPDIR/got")" "$BATS_TEST_TMPDIR/want" |
			diff - "$BATS_TEST_TMPDIR/got"
	fi
	# y again: the detail view; Esc: the table.
	keys y
	wait_screen 'Delta history'
	keys Escape
	wait_screen 'NAME .*DELTA'
}

@test "tui: Shift+letter sorts by that column, s, < and > in screen order, NAMESPACE too" {
	make_pod aaa tui ns-1 >/dev/null
	start_synced -A
	wait_screen 'sort NAMESPACE'
	table_rows | head -n1 | grep -q ' alpha '
	keys N
	wait_screen 'sort NAME '
	wait_until 5 sh -c "tmux -L '$TMUX_SOCK' capture-pane -p | sed -n 5p | grep -q ' aaa '" ||
		{ show_screen; false; }
	# Again: the next column with that initial, then round.
	keys N
	wait_screen 'sort NODE'
	keys N
	wait_screen 'sort NAMESPACE'
	keys s
	wait_screen 'sort NAME '
	keys '>'
	wait_screen 'sort READY'
	keys '<' '<'
	wait_screen 'sort NAMESPACE'
	keys R
	wait_screen 'sort READY'
	keys R
	wait_screen 'sort RESTARTS'
	keys S
	wait_screen 'sort RESTARTS (▼|desc)'
}

@test "tui: / takes a regex; an invalid one says why and is not applied" {
	start_synced
	keys / '^default/(alpha|charlie)$'
	wait_screen "filter '.*': 2"
	row_of alpha
	row_of charlie
	screen_lacks ' bravo '
	keys Enter
	keys / a '('
	wait_screen "invalid regex 'a\\('"
	screen_has ' bravo '
	keys Enter
	screen_has '^filter \(regex'
	keys Escape
	wait_screen "filter '.*': 2"
}

@test "tui: the label filter takes every form -l takes; one it cannot parse says so" {
	make_pod delta other >/dev/null
	start_synced
	wait_screen ' 4 objects'
	keys / 'l:app in (other)' Enter
	wait_screen "filter 'l:app in \\(other\\)': 1"
	row_of delta
	keys / 'l:app notin (other),app' Enter
	wait_screen "filter 'l:app notin .*': 3"
	screen_lacks ' delta '
	keys / 'l:!app' Enter
	wait_screen "filter 'l:!app': 0"
	keys / 'l:app!=tui' Enter
	wait_screen "filter 'l:app!=tui': 1"
	keys / 'l:app in (other'
	wait_screen 'invalid selector'
	screen_lacks 'no object matches'
	row_of alpha
}

@test "tui: Esc clears a prompt, the filter, a message" {
	start_synced
	keys / b r
	wait_screen "filter 'br': 1"
	keys Escape
	wait_screen '^\? help'
	screen_lacks "filter '"
	keys / b r Enter
	wait_screen "filter 'br': 1"
	keys Escape
	wait_gone "filter 'br'"
	wait_screen 'filter cleared'
	keys z
	wait_screen "'z' does nothing here"
	keys Escape
	wait_gone 'does nothing'
}

@test "tui: an unknown key says so, and the message goes with the next key" {
	start_synced
	keys z
	wait_screen "'z' does nothing here; \\? lists the keys"
	keys j
	# At once, not when the message would have timed out.
	wait_gone 'does nothing' 2
	screen_has '^\? help'
}

@test "tui: a resize (grow, then quit) leaves no rows on the main screen" {
	TUI_COLS=80 TUI_LINES=24 start_synced
	tmux -L "$TMUX_SOCK" resize-window -x 140 -y 40
	wait_screen 'NAME .*AGE .*RV DELTA'
	keys q
	wait_screen 'kinf exited 0'
	assert_terminal_restored
	tmux -L "$TMUX_SOCK" capture-pane -p -S - >"$BATS_TEST_TMPDIR/all"
	if grep -vE '^(kinf exited 0)?$' "$BATS_TEST_TMPDIR/all"; then
		echo "# rows left behind (above)" >&2
		false
	fi
}

# make_event NAME REASON MESSAGE UID [SECONDS-AGO]: an Event of pod delta.
make_event() {
	local ts
	ts=$(date -u -d "-${5:-0} seconds" +%Y-%m-%dT%H:%M:%SZ)
	simctl POST /create "{\"resource\":\"events\",\"object\":{\"metadata\":{\"name\":\"$1\",\"namespace\":\"default\"},\"involvedObject\":{\"kind\":\"Pod\",\"namespace\":\"default\",\"name\":\"delta\",\"uid\":\"$4\"},\"reason\":\"$2\",\"message\":\"$3\",\"type\":\"Normal\",\"source\":{\"component\":\"kubelet\"},\"count\":1,\"firstTimestamp\":\"$ts\",\"lastTimestamp\":\"$ts\"}}" >/dev/null
}

# The field selectors of the LISTs of events the server was asked for.
event_selectors() {
	simctl GET '/requests?verb=list' | jq -r '.[] | select(.resource == "events") | .query.fieldSelector'
}

@test "tui: d describes a pod as kubectl describe does, with its Events, listed by its uid" {
	local uid
	uid=$(make_pod delta | jq -r .metadata.uid)
	make_event delta.1 Scheduled 'assigned to a node' "$uid" 120
	make_event delta.2 Pulled 'pulled the image' "$uid" 60
	# an earlier pod of the same name: not this one's
	make_event delta.3 Killing 'the other delta' 00000000-0000-0000-0000-000000000000
	TUI_COLS=200 TUI_LINES=60 start_synced
	keys / d e l t a Enter
	wait_screen "filter 'delta': 1"
	keys g d
	wait_screen 'Pod default/delta .*DESCRIBE'
	screen_has '^Name: +delta$'
	screen_has '^Namespace: +default$'
	screen_has '^Labels: +app=tui$'
	screen_has '^Containers:$'
	screen_has '^    Image: +nginx$'
	# the Events, the oldest first, as the worker found them
	wait_screen '^  Normal +Pulled +[0-9]+[smh] +kubelet +pulled the image$'
	screen_has '^  Type +Reason +Age +From +Message$'
	screen | grep -A1 -E '^  Normal +Scheduled ' | tail -n1 | grep -q Pulled
	run ! screen_has 'the other delta'
	[ "$(event_selectors)" = "involvedObject.name=delta,involvedObject.namespace=default,involvedObject.uid=$uid" ]
	if command -v kubectl >/dev/null; then
		# Down to its Events, the lines on screen are kubectl's.
		kubectl --kubeconfig "$SIM_KUBECONFIG" describe pod delta |
			sed -n '1,/^Events:/p' | sed 's/ *$//' >"$BATS_TEST_TMPDIR/want"
		screen | sed -n '4,/^Events:/p' | sed 's/ *$//' >"$BATS_TEST_TMPDIR/got"
		diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
	fi
}

@test "tui: d's Events do not hold the screen: keys answer while their LIST hangs, Esc cancels it" {
	TUI_LINES=50 start_synced
	simctl POST /faults '{"verb":"list","resource":"events","kind":"hang","seconds":60}' >/dev/null
	keys g d
	wait_screen 'Pod default/alpha .*DESCRIBE'
	# the object's own lines at once, from the cache; its Events to come
	screen_has '^Name: +alpha$'
	wait_screen '^Events: +\(fetching from the server'
	wait_screen '^fetching the Events of default/alpha.*Esc cancels'
	# The terminal thread answers meanwhile: the YAML, and back.
	keys y
	wait_screen '^kind: Pod$'
	keys d
	wait_screen '^Events: +\(not fetched: the worker is busy fetching the Events of default/alpha'
	keys Escape
	wait_screen 'NAME .*DELTA'
	# Esc again gives the LIST up: the next d lists at once.
	keys Escape
	wait_screen 'cancelled'
	simctl DELETE /faults >/dev/null
	keys d
	wait_screen '^Events: +<none>$'
	keys q
	wait_screen 'kinf exited 0'
	assert_terminal_restored
}

@test "tui: d on a Secret shows its values by their sizes, as kubectl describe does" {
	tui_start secrets --kubeconfig "$SIM_KUBECONFIG"
	wait_screen ' app-secret '
	keys / a p p - s e c r e t Enter
	wait_screen "filter 'app-secret': 1"
	keys g d
	wait_screen 'Secret default/app-secret .*DESCRIBE'
	screen_has '^Type: +Opaque$'
	screen_has '^password: +6 bytes$'
	screen_has '^username: +5 bytes$'
	run ! screen_has 'czNjcjN0|YWRtaW4=|s3cr3t'
	# kubectl shows no Events for a Secret, nor asks for them
	run ! screen_has '^Events:'
	[ -z "$(event_selectors)" ]
}

@test "tui: 0 shows all namespaces, and again the one shown before" {
	make_pod omega tui ns-1 >/dev/null
	start_synced -A
	wait_screen ' 4 objects'
	keys 0
	wait_screen 'all namespaces already'
	keys n n s - 1 Enter
	wait_screen 'showing ns-1'
	row_of omega
	run ! row_of alpha
	keys 0
	wait_gone 'showing ns-1'
	wait_screen 'all namespaces; 0 goes back to ns-1'
	row_of alpha
	row_of omega
	keys 0
	wait_screen 'showing ns-1'
	row_of omega
	run ! row_of alpha
}

@test "tui: 0 says when the informers hold one namespace only" {
	start_synced
	keys 0
	wait_screen 'the informers watch namespace default only'
}

# A value of 3,000 characters, no space in it.
@test "tui: a long value wraps in the detail view, whole; w cuts it with …, and back" {
	local long
	long=start-$(printf 'x%.0s' {1..3000})-tail-marker
	simctl POST /update "{\"resource\":\"pods\",\"namespace\":\"default\",\"name\":\"alpha\",\"patch\":{\"metadata\":{\"annotations\":{\"long\":\"$long\"}}}}" >/dev/null
	TUI_LINES=60 start_synced
	keys g y
	wait_screen 'Pod default/alpha .*YAML'
	# every character on screen, the lines after the first at its indent
	wait_screen 'tail-marker$'
	screen | tr -d ' \n' | grep -qE 'long:start-x{3000}-tail-marker' || { show_screen; false; }
	screen | grep -qE '^    long: start-x+$'
	screen | grep -qE '^    x+-tail-marker$'
	[ "$(widest_line)" -le 100 ]
	keys w
	wait_screen 'long lines cut'
	screen_has '^    long: start-x+…$'
	run ! screen_has 'tail-marker'
	keys w
	wait_screen 'tail-marker$'
}
