#!/usr/bin/env bats
# The TUI's controller pane (`w`, with --controller) and the detail
# view's story of where each delta went, driven in tmux against kube-sim:
# a key updated several times while a long Reconcile runs shows its
# coalesced states as unseen, in the pane and in the story; a status-only
# change under --predicate generation is "filtered by generation".

load test_helper
load tui_helper

setup() {
	TMUX_SOCK="kinf-tuictl-$$-${BATS_TEST_NUMBER}"
}

teardown() {
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	sim_stop
}

# The pane at the bottom right, from its title down, cut from its column.
ctl_pane() {
	local line x=
	while IFS= read -r line; do
		if [ -z "$x" ]; then
			case $line in
			*" controller "*"w: informer"*) x=${line%%" controller "*}; x=${#x} ;;
			*) continue ;;
			esac
		fi
		printf '%s\n' "${line:x}"
	done < <(screen)
}
ctl_pane_has() { ctl_pane | grep -qE -- "$1"; }

pod_rv() {
	simctl GET "/object?resource=pods&namespace=default&name=$1" | jq -r .metadata.resourceVersion
}

# touch_pod NAME VALUE — a label change; prints the new resourceVersion.
touch_pod() {
	simctl POST /update "{\"resource\":\"pods\",\"namespace\":\"default\",\"name\":\"$1\",\"patch\":{\"metadata\":{\"labels\":{\"n\":\"$2\"}}}}" |
		jq -r .metadata.resourceVersion
}

@test "tui --controller: w shows the queue; updates during a long Reconcile are coalesced and named unseen" {
	sim_start --pods 1 --deployments 0
	TUI_COLS=140 TUI_LINES=40 kinf_in_pane tui pods --kubeconfig "$SIM_KUBECONFIG" \
		--controller --reconcile-time 6s
	wait_screen '1:pods 1'
	keys w
	wait_screen ' controller .*w: informer'
	# The initial list's Add: Reconcile #1 runs, for 6 s.
	wait_until 10 ctl_pane_has '#1 default/pod-0 rv [0-9]+'
	ctl_pane_has 'workers +1 of 1 busy'
	rv1=$(touch_pod pod-0 1)
	rv2=$(touch_pod pod-0 2)
	rv3=$(touch_pod pod-0 3)
	echo "# rvs: $rv1 $rv2 $rv3"
	# Still within #1: the first update made it dirty, the others coalesced.
	wait_until 10 ctl_pane_has 'enqueued new 1  coalesced 2  dirty 1'
	ctl_pane_has 'now +reconciling, dirty; 3 states unread'
	# #2 reads the newest and names the two before it as never seen.
	wait_until 15 ctl_pane_has "last +#2 read rv $rv3: success after 6.000s"
	ctl_pane | sed 's/^/# /'
	ctl_pane | tr '\n' ' ' | tr -s ' ' |
		grep -qE "rv $rv1 and $rv2 were never seen by a Reconcile \(coalesced while a Reconcile ran\)"
	ctl_pane_has 'unseen +2 states, 1 key'
	# The story: where each delta went.
	keys Enter
	wait_screen 'Delta history'
	wait_screen "rv $rv1 .*dirty (→|->) Reconcile #2 read rv $rv3: unseen"
	screen_has "rv $rv2 .*coalesced (→|->) Reconcile #2 read rv $rv3: unseen"
	screen_has "rv $rv3 .*coalesced (→|->) Reconcile #2 read rv $rv3\$"
	screen_has "initial .*new (→|->) Reconcile #1 read rv"
	# w again: the informer's pane is back.
	keys Escape w
	wait_screen ' informer'
	screen_lacks ' controller .*w: informer'
}

@test "tui --controller --predicate generation: a status-only change is filtered by generation in the story" {
	sim_start --pods 0 --deployments 1
	kinf_in_pane watch deployments --tui --kubeconfig "$SIM_KUBECONFIG" \
		--controller --predicate generation
	wait_screen '1:deployments 1'
	keys w
	wait_until 10 ctl_pane_has 'reconciles 1$'
	simctl POST /update '{"resource":"deployments","namespace":"default","name":"web","patch":{"status":{"availableReplicas":7}}}' >/dev/null
	rv=$(simctl GET '/object?resource=deployments&namespace=default&name=web' | jq -r .metadata.resourceVersion)
	wait_until 10 ctl_pane_has 'filtered 1'
	ctl_pane_has 'reconciles 1$'
	keys Enter
	wait_screen "Updated +rv $rv .*filtered by generation"
}

@test "tui: w without --controller says how to get one" {
	sim_start --pods 1 --deployments 0
	kinf_in_pane tui pods --kubeconfig "$SIM_KUBECONFIG"
	wait_screen '1:pods 1'
	keys w
	wait_screen 'w: no controller \(kinf tui RESOURCE --controller\)'
	screen_has ' informer'
}
