#!/usr/bin/env bats
# The documentation and the shell completions: the man page is clean and
# names every option --help lists; each completion script, loaded by its
# own shell, completes commands, options, values and (from the cluster)
# resource types; make install puts everything where the shells look.

load test_helper
load completion_helper
bats_require_minimum_version 1.5.0

ROOT=$BATS_TEST_DIRNAME/..
MAN=$ROOT/man/kinf.1

setup() {
	# The completion scripts run "kinf" as typed: put the binary under
	# test first on PATH.
	BIN=$BATS_TEST_TMPDIR/bin
	mkdir -p "$BIN"
	ln -sf "$(cd "$(dirname "$KINF")" && pwd)/$(basename "$KINF")" "$BIN/kinf"
	export PATH=$BIN:$PATH
}

# The man page as text, without overstrikes.
man_text() { mandoc -T ascii "$MAN" | col -bx; }

# The text of one section of the man page (its .Sh title).
man_section() { man_text | awk -v s="$1" '/^[A-Z]/ { on = ($0 == s) } on'; }

# The long options COMMAND's --help lists.
# (--help itself is documented once, under COMMANDS.)
help_options() {
	"$KINF" "$1" --help | sed -n '/^options:/,/^$/p' | grep -oE -- '--[a-z][a-z-]*' |
		grep -vx -- --help | sort -u
}

# Each of the options (stdin) appears in the text ($1).
all_in() {
	local opt missing=0
	while read -r opt; do
		grep -qE -- "(^|[^a-z-])$opt([^a-z-]|$)" <<<"$1" ||
			{ echo "# $opt is not documented ($2)" >&2; missing=1; }
	done
	return $missing
}

@test "man page: mandoc -T lint is clean" {
	command -v mandoc >/dev/null || skip "mandoc not installed"
	run mandoc -T lint -W warning "$MAN"
	[ -z "$output" ] || { echo "$output" >&2; false; }
	assert_status 0
}

@test "man page: every quote closes where it opens, under groff and under mandoc" {
	# mdoc's Ql and Dq take the rest of their line: a second one on it
	# nests, '(‘100m before ‘1’’)'
	local r found=0
	for r in "groff -mdoc -Tutf8" "mandoc -Tutf8"; do
		command -v "${r%% *}" >/dev/null || continue
		found=1
		run bash -c "$r '$MAN' 2>/dev/null | sed 's/.\x08//g' | grep -nE '’’|””|‘[^’]*‘|“[^”]*“'"
		[ -z "$output" ] || { echo "# $r: $output" >&2; false; }
	done
	[ "$found" -eq 1 ]
}

@test "man page: every option of every command's --help is documented" {
	command -v mandoc >/dev/null || skip "mandoc not installed"
	conn=$(man_section "CONNECTION OPTIONS")
	[ -n "$conn" ]
	help_options watch | all_in "$(man_section "WATCH OPTIONS")$conn" "WATCH OPTIONS"
	help_options get | all_in "$(man_section "GET OPTIONS")$conn" "GET OPTIONS"
	help_options verify | all_in "$(man_section VERIFY)$(man_section "WATCH OPTIONS")$conn" "VERIFY"
	for c in tui api-resources; do
		help_options "$c" | all_in "$(man_text)" "$c"
	done
	# And every command.
	for c in watch get verify tui api-resources help version; do
		man_section COMMANDS | grep -qE "^ +$c( |$)" || { echo "# no $c in COMMANDS" >&2; false; }
	done
}

@test "man page: every JSON member of a delta is documented" {
	command -v mandoc >/dev/null || skip "mandoc not installed"
	json=$(man_section "JSON OUTPUT")
	for m in time type resource kind namespace name key resourceVersion \
		oldResourceVersion initialList tombstone resync source listNumber object diff \
		Relist listed added changed deleted unchanged reason; do
		grep -qw -- "$m" <<<"$json" || { echo "# $m" >&2; false; }
	done
	# The exit statuses.
	status=$(man_section "EXIT STATUS")
	for s in 0 1 2 3 130 143; do
		grep -qw "$s" <<<"$status" || { echo "# exit status $s" >&2; false; }
	done
}

# The README's example command lines (its indented code lines).
readme_commands() { grep -E '^    (\$ )?kinf [a-z]' "$ROOT/README.md" | sed -E 's/^ +(\$ )?//'; }

@test "README: the commands it shows exist and their options parse" {
	run readme_commands
	[ "${#lines[@]}" -ge 3 ]
	readme_commands | while read -r line; do
		c=$(awk '{print $2}' <<<"$line")
		"$KINF" help "$c" >/dev/null || { echo "# README: $line" >&2; exit 1; }
		# Every long option before a pipe is that command's.
		for opt in $(grep -oE -- ' --[a-z][a-z-]*' <<<"${line%%|*}"); do
			help_options "$c" | grep -qx -- "$opt" || { echo "# README: $line: $opt" >&2; exit 1; }
		done
	done
}

# bash_complete WORD... — what the bash completion offers for the words
# (the last is being completed), one per line.  Words are split as bash
# would split them (at "=", COMP_WORDBREAKS).
bash_complete() {
	bash -c '
		source /usr/share/bash-completion/bash_completion
		source "$0"
		COMP_WORDS=(kinf "$@")
		COMP_CWORD=$#
		COMP_LINE="kinf $*"
		COMP_POINT=${#COMP_LINE}
		_kinf
		printf "%s\n" "${COMPREPLY[@]}"' "$ROOT/completions/kinf.bash" "$@"
}

@test "bash completion: commands, options, values, comma lists" {
	[ -r /usr/share/bash-completion/bash_completion ] || skip "bash-completion not installed"
	run bash_complete wa
	[ "$output" = watch ]
	run bash_complete ""
	for c in watch get verify tui api-resources version help; do
		grep -qx "$c" <<<"$output"
	done
	! grep -q __complete <<<"$output" || false
	run bash_complete watch --out
	[ "$output" = --output ]
	run bash_complete watch pods --
	assert_output_contains --output
	assert_output_contains --watch-only
	assert_output_contains --kubeconfig
	run bash_complete watch pods -o ""
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "custom-columns-file= custom-columns= json jsonpath-file= jsonpath= line name wide yaml " ]
	run bash_complete watch pods -o y
	[ "$output" = yaml ]
	run bash_complete watch pods -o j
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "json jsonpath-file= jsonpath= " ]
	# --output=y: bash splits the word at "=".
	run bash_complete watch pods --output = y
	[ "$output" = yaml ]
	run bash_complete watch pods --output =
	assert_output_contains json
	run bash_complete get pods -o ""
	assert_output_contains table
	run bash_complete watch pods --fifo ""
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "atomic delta real " ]
	run bash_complete watch pods --types Added,D
	[ "$output" = Added,Deleted ]
	run bash_complete help w
	[ "$output" = watch ]
	# After the resource, no more resources are offered.
	run bash_complete watch pods --output json ""
	[ -z "$output" ]
}

@test "bash completion: resource types and namespaces from the cluster" {
	[ -r /usr/share/bash-completion/bash_completion ] || skip "bash-completion not installed"
	sim_start --pods 2 --namespaces 1
	run bash_complete watch --kubeconfig "$SIM_KUBECONFIG" po
	[ "$output" = pods ]
	run bash_complete watch --kubeconfig "$SIM_KUBECONFIG" ""
	for r in pods deployments nodes namespaces configmaps crontabs; do
		grep -qx "$r" <<<"$output" || { echo "# $r" >&2; false; }
	done
	# A comma list goes on completing after its last comma.
	run bash_complete watch --kubeconfig "$SIM_KUBECONFIG" pods,dep
	[ "$output" = pods,deployments ]
	run bash_complete get --kubeconfig "$SIM_KUBECONFIG" pods -n ns
	[ "$output" = ns-1 ]
	run bash_complete get --kubeconfig "$SIM_KUBECONFIG" pods --context ""
	[ "$output" = kube-sim ]
}

@test "zsh completion: commands, options, values, resources from the cluster" {
	command -v zsh >/dev/null || skip "zsh not installed"
	run zsh_complete wa
	assert_status 0
	grep -qx watch <<<"$output"
	grep -qx get <<<"$output"
	run zsh_complete watch --
	assert_output_contains --output
	assert_output_contains --diff
	run zsh_complete watch pods -o ""
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "custom-columns-file= custom-columns= json jsonpath-file= jsonpath= line name wide yaml " ]
	run zsh_complete watch pods --output=
	assert_output_contains --output=json
	run zsh_complete watch pods --types Added,
	assert_output_contains Added,Deleted
	run zsh_complete watch pods --dump-cache ""
	[ "$output" = ":files:" ]
	sim_start --pods 2
	run zsh_complete watch --kubeconfig "$SIM_KUBECONFIG" po
	grep -qx pods <<<"$output"
	grep -qx deployments <<<"$output"
}

# fish_complete LINE — what fish offers for the command line LINE.
fish_complete() {
	fish --no-config -c 'source $argv[1]; complete -C $argv[2]' "$ROOT/completions/kinf.fish" "$1" | cut -f1
}

@test "fish completion: commands, options, values, resources from the cluster" {
	command -v fish >/dev/null || skip "fish not installed"
	run fish_complete "kinf wat"
	[ "$output" = watch ]
	run fish_complete "kinf watch --ou"
	[ "$output" = --output ]
	run fish_complete "kinf watch pods -o "
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "custom-columns-file= custom-columns= json jsonpath-file= jsonpath= line name wide yaml " ]
	run fish_complete "kinf watch pods --output=y"
	[ "$output" = --output=yaml ]
	run fish_complete "kinf watch pods --types Added,S"
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "Added,Sync Added,SyncAll " ]
	run fish_complete "kinf get pods -o t"
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "table template= templatefile= " ]
	sim_start --pods 2
	run fish_complete "kinf watch --kubeconfig $SIM_KUBECONFIG dep"
	[ "$output" = deployments ]
	run fish_complete "kinf get --kubeconfig $SIM_KUBECONFIG pods -n kube-p"
	[ "$output" = kube-public ]
}

@test "__complete lists resource types from the cluster, quickly, and nothing when it is away" {
	sim_start --pods 2
	run --separate-stderr "$KINF" __complete watch --kubeconfig "$SIM_KUBECONFIG" po
	assert_status 0
	grep -qx pods <<<"$output"
	# Only what can be watched, named by the plural.
	! grep -qx po <<<"$output" || false
	run "$KINF" __complete get --kubeconfig "$SIM_KUBECONFIG" -A ""
	grep -qx crontabs <<<"$output"
	# A server that never answers: what kubectl's discovery cache (filled
	# above) knows, at once...
	simctl POST /faults '{"verb":"discovery","kind":"hang","count":100,"seconds":30}' >/dev/null
	start=$SECONDS
	run --separate-stderr timeout 20 "$KINF" __complete watch --kubeconfig "$SIM_KUBECONFIG" po
	assert_status 0
	grep -qx pods <<<"$output"
	# ... and without a cache the helper gives up within its short
	# timeout, printing nothing, status 0.
	export KUBECACHEDIR=$BATS_TEST_TMPDIR/no-cache
	run --separate-stderr timeout 20 "$KINF" __complete watch --kubeconfig "$SIM_KUBECONFIG" ""
	assert_status 0
	[ -z "$output" ]
	[ $((SECONDS - start)) -le 5 ]
	sim_stop
	run --separate-stderr timeout 20 "$KINF" __complete watch --kubeconfig "$SIM_KUBECONFIG" ""
	assert_status 0
	[ -z "$output" ]
	[ -z "$stderr" ]
}

@test "__complete reaches the cluster through -s, --token and the other connection flags, --as and --as-group too" {
	sim_start --pods 2
	# No kubeconfig at all: kubectl's completion connects with the flags
	# of the line, and so does kinf's.
	export HOME=$BATS_TEST_TMPDIR KUBECONFIG=$BATS_TEST_TMPDIR/none
	c() { "$KINF" __complete "$@"; }
	run --separate-stderr c watch -s "$SIM_API" --token "$SIM_TOKEN" \
		--certificate-authority "$SIM_CACERT" po
	assert_status 0
	grep -qx pods <<<"$output"
	run --separate-stderr c get --server="$SIM_API" --token="$SIM_TOKEN" \
		--insecure-skip-tls-verify pods -n ""
	grep -qx kube-public <<<"$output"
	# A false boolean counts as false: no CA, so nothing comes.
	run --separate-stderr c get --server="$SIM_API" --token="$SIM_TOKEN" \
		--insecure-skip-tls-verify=false pods -n ""
	assert_status 0
	[ -z "$output" ]
	# Impersonated: jane may not list pods, her group may.
	local as=(-s "$SIM_API" --token "$SIM_TOKEN" --certificate-authority "$SIM_CACERT" --as jane)
	run --separate-stderr c get "${as[@]}" pods ""
	[ -z "$output" ]
	run --separate-stderr c get "${as[@]}" --as-group system:masters pods ""
	grep -qx pod-0 <<<"$output"
}

@test "__complete: no duplicates in lists, object names for NAME, index names and values for --index" {
	sim_start --pods 4 --namespaces 1
	c() { "$KINF" __complete "$@"; }
	# an item already in the list is not offered again
	run c watch --kubeconfig "$SIM_KUBECONFIG" pods,
	grep -qx pods,deployments <<<"$output"
	! grep -qx pods,pods <<<"$output" || false
	run c watch pods --types Added,Sync,
	! grep -qE '(Added|Sync)$' <<<"$output" || false
	grep -qx Added,Sync,Deleted <<<"$output"
	# NAME: the objects of the resource, in the namespace asked
	run c get --kubeconfig "$SIM_KUBECONFIG" pods ""
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "$(sim_oracle pods | jq -r '.items | keys[] | select(startswith("default/")) | ltrimstr("default/")' | sort | tr '\n' ' ')" ]
	run c watch --kubeconfig "$SIM_KUBECONFIG" -n ns-1 pods ""
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "$(sim_oracle pods | jq -r '.items | keys[] | select(startswith("ns-1/")) | ltrimstr("ns-1/")' | sort | tr '\n' ' ')" ]
	run c get --kubeconfig "$SIM_KUBECONFIG" nodes ""
	[ "$(tr '\n' ' ' <<<"$output")" = "node-1 node-2 node-3 " ]
	# TYPE/NAME: the objects after the type, as typed
	run c get --kubeconfig "$SIM_KUBECONFIG" nodes/
	[ "$(tr '\n' ' ' <<<"$output")" = "nodes/node-1 nodes/node-2 nodes/node-3 " ]
	run c watch --kubeconfig "$SIM_KUBECONFIG" no/node-
	[ "$(tr '\n' ' ' <<<"$output")" = "no/node-1 no/node-2 no/node-3 " ]
	# get offers kubectl's "all" as a type, alone; watch has no such thing
	run c get --kubeconfig "$SIM_KUBECONFIG" ""
	grep -qx all <<<"$output"
	run c get --kubeconfig "$SIM_KUBECONFIG" pods,
	! grep -q all <<<"$output" || false
	run c watch --kubeconfig "$SIM_KUBECONFIG" ""
	! grep -qx all <<<"$output" || false
	# none after a list of resources, nor for tui (no NAME there)
	run c watch --kubeconfig "$SIM_KUBECONFIG" pods,nodes ""
	[ -z "$output" ]
	# --index: the index names, then values from the cluster
	run c get --kubeconfig "$SIM_KUBECONFIG" pods --from-cache --index ""
	[ "$(tr '\n' ' ' <<<"$output")" = "namespace= node= label= owner= " ]
	run c get --kubeconfig "$SIM_KUBECONFIG" pods --from-cache --index node=
	[ "$(tr '\n' ' ' <<<"$output")" = "node=node-1 node=node-2 node=node-3 " ]
	run c get --kubeconfig "$SIM_KUBECONFIG" pods --from-cache --index=label=
	grep -qx -- '--index=label=app=web' <<<"$output"
	[ "$(sort <<<"$output" | uniq -d)" = "" ]
	run c get --kubeconfig "$SIM_KUBECONFIG" pods --from-cache --index owner=
	[ -n "$output" ]
	[[ $output == owner=* ]]
}

@test "__complete: --predicate offers controller-runtime's predicates, after a comma and after a |" {
	c() { "$KINF" __complete "$@"; }
	run c watch pods --controller --predicate ""
	[ "$(tr '\n' ' ' <<<"$output")" = "generation resource-version labels annotations " ]
	run c tui pods --controller --predicate 'generation|'
	[ "$(tr '\n' ' ' <<<"$output")" = "generation|resource-version generation|labels generation|annotations " ]
	# a new term (after ,) offers all but a whole earlier term; --predicate= too
	run c watch pods --controller --predicate=generation,lab
	[ "$(tr '\n' ' ' <<<"$output")" = "--predicate=generation,resource-version --predicate=generation,labels --predicate=generation,annotations " ]
	run c replay x.rec --controller --predicate 'labels|annotations,generation|r'
	grep -qx 'labels|annotations,generation|resource-version' <<<"$output"
	run ! grep -qx 'labels|annotations,generation|generation' <<<"$output"
}

@test "completions: bash, zsh and fish complete a quoted 'a|b' --predicate" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	local sh sock shells=0
	for sh in bash zsh fish; do
		command -v $sh >/dev/null || continue
		shells=$((shells + 1))
		sock=kinf-compl-$$-$sh	# one server each: a killed one may linger
		case $sh in
		bash) tmux -L "$sock" -f /dev/null new-session -d -x 150 -y 10 \
			"env PATH=$PATH bash --norc --noprofile -i"
			tmux -L "$sock" send-keys "source '$ROOT/completions/kinf.bash'" Enter ;;
		zsh) tmux -L "$sock" -f /dev/null new-session -d -x 150 -y 10 "env PATH=$PATH zsh -f -i"
			tmux -L "$sock" send-keys "fpath=('$ROOT/completions' \$fpath); autoload -Uz compinit && compinit -u" Enter ;;
		fish) tmux -L "$sock" -f /dev/null new-session -d -x 150 -y 10 "env PATH=$PATH fish --no-config"
			sleep 1
			tmux -L "$sock" send-keys "source '$ROOT/completions/kinf.fish'" Enter ;;
		esac
		sleep 1
		tmux -L "$sock" send-keys "kinf watch pods --controller --predicate 'labels|ann" Tab
		wait_until 10 bash -c "tmux -L '$sock' capture-pane -p | grep -qF -- \"--predicate 'labels|annotations'\"" ||
			{ echo "# $sh:" >&2; tmux -L "$sock" capture-pane -p >&2; tmux -L "$sock" kill-server; false; }
		tmux -L "$sock" kill-server
	done
	[ "$shells" -ge 1 ]
}

@test "make install DESTDIR= PREFIX= puts everything in place, kubectl-kinf too; make uninstall removes it" {
	command -v make >/dev/null || skip "make not installed"
	dest=$BATS_TEST_TMPDIR/dest
	run make -C "$ROOT" --no-print-directory install DESTDIR="$dest" PREFIX=/usr
	assert_status 0
	for f in bin/kinf share/man/man1/kinf.1 share/bash-completion/completions/kinf \
		share/zsh/site-functions/_kinf share/fish/vendor_completions.d/kinf.fish; do
		[ -f "$dest/usr/$f" ] || { echo "# missing /usr/$f; installed:" >&2; find "$dest" >&2; false; }
	done
	[ -x "$dest/usr/bin/kinf" ]
	"$dest/usr/bin/kinf" --version
	cmp "$ROOT/man/kinf.1" "$dest/usr/share/man/man1/kinf.1"
	cmp "$ROOT/completions/_kinf" "$dest/usr/share/zsh/site-functions/_kinf"
	[ "$(stat -c %a "$dest/usr/share/man/man1/kinf.1")" = 644 ]
	# The kubectl plugin: kubectl finds kubectl-kinf on PATH, and kinf then
	# speaks of itself as "kubectl kinf".
	[ "$(readlink "$dest/usr/bin/kubectl-kinf")" = kinf ]
	run env PATH="$dest/usr/bin:$PATH" kubectl kinf version
	assert_status 0
	[[ $output == "kinf "* ]]
	run env PATH="$dest/usr/bin:$PATH" kubectl kinf watch --help
	[[ ${lines[0]} == "usage: kubectl kinf watch "* ]]
	assert_output_contains "  kubectl kinf watch pods -n default"
	run --separate-stderr "$dest/usr/bin/kubectl-kinf" get
	[ "$status" -eq 2 ]
	[[ $stderr == *"(see 'kubectl kinf get --help')" ]]
	run "$dest/usr/bin/kinf" watch --help
	[[ ${lines[0]} == "usage: kinf watch "* ]]
	# Nothing outside PREFIX.
	[ "$(ls "$dest")" = usr ]
	run make -C "$ROOT" --no-print-directory uninstall DESTDIR="$dest" PREFIX=/usr
	assert_status 0
	[ -z "$(find "$dest" -type f -o -type l)" ]
	# The default PREFIX is /usr/local.
	run make -C "$ROOT" --no-print-directory install DESTDIR="$dest"
	assert_status 0
	[ -x "$dest/usr/local/bin/kinf" ]
	[ -f "$dest/usr/local/share/man/man1/kinf.1" ]
}

# ---- the examples, run as written ------------------------------------------

# The README's command line that contains TEXT, verbatim.
readme_line() { grep -F -- "$1" "$ROOT/README.md" | sed -E 's/^ +(\$ )?//' | head -1; }

# A `kinf` first on a PATH of its own, $B/$1/bin, that runs the one under
# test under client-go $1 for 10 s, its stderr kept in $B/$1/err: the
# example itself runs as written.
kinf_as_profile() {
	mkdir -p "$B/$1/bin"
	printf '#!/bin/sh\nexec "%s" "$@" --client-go %s --timeout 10s 2>>"%s/err"\n' \
		"$KINF" "$1" "$B/$1" >"$B/$1/bin/kinf"
	chmod +x "$B/$1/bin/kinf"
	: >"$B/$1/err"
}

@test "README: the OnDelete example names a delete that only a relist finds, under every profile" {
	local v pids=() profiles=(1.28 1.32 1.34 1.35 1.36)
	B=$BATS_TEST_TMPDIR
	cmd=$(readme_line "select(.handler==\"OnDelete\")")
	[[ $cmd == "kinf watch pods -A -o json | jq -r "* ]]
	sim_start --pods 0
	for i in 0 1 2; do
		simctl POST /create "{\"resource\":\"pods\",\"object\":{\"metadata\":{\"name\":\"pod-$i\",\"namespace\":\"default\"}}}" >/dev/null
	done
	# every profile at once, on the one cluster
	for v in "${profiles[@]}"; do
		kinf_as_profile "$v"
		PATH=$B/$v/bin:$PATH KUBECONFIG=$SIM_KUBECONFIG bash -c "$cmd" >"$B/$v/out" 3>&- &
		pids+=($!)
	done
	for v in "${profiles[@]}"; do
		wait_until 20 grep -q synced "$B/$v/err"
	done
	# kinf kept out while pod-1 goes: only the relist can find it
	simctl POST /faults '{"verb":"any","kind":"500","count":1000}' >/dev/null
	simctl POST /restart-watch-cache >/dev/null
	simctl POST /delete '{"resource":"pods","namespace":"default","name":"pod-1"}' >/dev/null
	sleep 1
	simctl DELETE /faults >/dev/null
	for v in "${profiles[@]}"; do
		wait_until 20 grep -q 'relist #1' "$B/$v/err"
	done
	wait "${pids[@]}"	# jq prints when kinf's --timeout ends the pipe
	for v in "${profiles[@]}"; do
		[ "$(cat "$B/$v/out")" = default/pod-1 ] || { echo "# $v: $(cat "$B/$v/out")" >&2; false; }
	done
}
