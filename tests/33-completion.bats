#!/usr/bin/env bats
# The shell completions where a word holds an "=" (--index node=VALUE,
# -o=FORMAT), the values of --client-go and --dump-on, and
# kubectl_complete-kinf, which completes `kubectl kinf ...`.  Each script is
# loaded by its own shell; the last tests type into interactive bash and
# zsh, and ask kubectl itself.  (33-docs.bats has the first completion
# tests.)

load test_helper
load completion_helper
bats_require_minimum_version 1.5.0

ROOT=$BATS_TEST_DIRNAME/..
KCOMP=$ROOT/completions/kubectl_complete-kinf

setup() {
	# The completion scripts run "kinf" as typed: put the binary under
	# test first on PATH.
	BIN=$BATS_TEST_TMPDIR/bin
	mkdir -p "$BIN"
	ln -sf "$(cd "$(dirname "$KINF")" && pwd)/$(basename "$KINF")" "$BIN/kinf"
	export PATH=$BIN:$PATH
}

# bash_line LINE — what kinf.bash offers at the end of LINE, one per line,
# with the words split as bash splits them: at blanks, and around each run
# of "=" and ":" (COMP_WORDBREAKS), so that "--index node=no" comes as
# "--index" "node" "=" "no".
bash_line() {
	local word piece
	local -a parts words=()
	read -ra parts <<<"$1"
	[[ $1 == *' ' ]] && parts+=("")
	for word in "${parts[@]}"; do
		[ -n "$word" ] || { words+=(""); continue; }
		while IFS= read -r piece; do
			words+=("$piece")
		done < <(grep -oE '[=:]+|[^=:]+' <<<"$word")
	done
	LINE=$1 bash --norc --noprofile -c '
		source "$0"
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE=$LINE
		COMP_POINT=${#COMP_LINE}
		_kinf
		printf "%s\n" "${COMPREPLY[@]}"' "$ROOT/completions/kinf.bash" "${words[@]}"
}

# Lines (stdin) on one line, sorted.
sorted() { sort | tr '\n' ' '; }

FORMATS="custom-columns-file= custom-columns= json jsonpath-file= jsonpath= line name wide yaml "

@test "bash completion: get --index NAME=<TAB> completes the values after the =, as zsh does" {
	sim_start --pods 4 --namespaces 1
	export KUBECONFIG=$SIM_KUBECONFIG
	run bash_line "kinf get pods --from-cache --index node="
	[ "$output" = "$(printf 'node-1\nnode-2\nnode-3')" ]
	run bash_line "kinf get pods --from-cache --index node=node-2"
	[ "$output" = node-2 ]
	run bash_line "kinf get pods --from-cache --index=label="
	grep -qx app=web <<<"$output"
	run bash_line "kinf get pods --from-cache --index label=app="
	[ "$(sorted <<<"$output")" = "web worker " ]
	run bash_line "kinf get pods --from-cache --index=label=app=wo"
	[ "$output" = worker ]
	run bash_line "kinf get pods --from-cache --index namespace=ns"
	[ "$output" = ns-1 ]
	# zsh hands the word whole, and the helper whole words
	run zsh_complete get pods --from-cache --index node=
	[ "$(tr '\n' ' ' <<<"$output")" = "node=node-1 node=node-2 node=node-3 " ]
	# A flag's value written after an "=" counts for the completion in both
	unset KUBECONFIG
	run bash_line "kinf get --kubeconfig=$SIM_KUBECONFIG --namespace=ns-1 pods "
	[ "$(sorted <<<"$output")" = "$(sim_oracle pods | jq -r '.items | keys[] | select(startswith("ns-1/")) | ltrimstr("ns-1/")' | sort | tr '\n' ' ')" ]
	run zsh_complete get --kubeconfig="$SIM_KUBECONFIG" -n=ns-1 pods ""
	[ "$(sorted <<<"$output")" = "$(sim_oracle pods | jq -r '.items | keys[] | select(startswith("ns-1/")) | ltrimstr("ns-1/")' | sort | tr '\n' ' ')" ]
}

@test "bash and zsh completion: -o=<TAB> and --output=<TAB> offer the formats, as -o <TAB> does" {
	run bash_line "kinf watch pods -o "
	[ "$(sorted <<<"$output")" = "$FORMATS" ]
	run bash_line "kinf watch pods -o="
	[ "$(sorted <<<"$output")" = "$FORMATS" ]
	run bash_line "kinf watch pods --output="
	[ "$(sorted <<<"$output")" = "$FORMATS" ]
	run bash_line "kinf watch pods -o=y"
	[ "$output" = yaml ]
	run bash_line "kinf get pods -Ao=t"
	[ "$(sorted <<<"$output")" = "table template= templatefile= " ]
	run zsh_complete watch pods -o=
	[ "$(sorted <<<"$output")" = "$(sed 's/\([^ ]*\) /-o=\1 /g' <<<"$FORMATS")" ]
	run zsh_complete watch pods --output=
	[ "$(sorted <<<"$output")" = "$(sed 's/\([^ ]*\) /--output=\1 /g' <<<"$FORMATS")" ]
	# (zsh keeps those that begin with the word)
	run zsh_complete watch pods -o=y
	[ "$(grep '^-o=y' <<<"$output")" = -o=yaml ]
	run zsh_complete get pods -Ao=t
	[ "$(grep '^-Ao=t' <<<"$output" | sorted)" = "-Ao=table -Ao=template= -Ao=templatefile= " ]
	# the value attached, as -nNS is: -oy
	run zsh_complete watch pods -oy
	[ "$(grep '^-oy' <<<"$output")" = -oyaml ]
}

@test "bash and zsh completion: --client-go's versions and --dump-on's triggers, from kinf's tables" {
	# every version kinf imitates, each profile's range whole
	run bash_line "kinf watch pods --client-go "
	[ "$(tr '\n' ' ' <<<"$output")" = "1.27 1.28 1.29 1.30 1.31 1.32 1.33 1.34 1.35 1.36 " ]
	run bash_line "kinf replay x.rec --client-go=1.3"
	[ "$(tr '\n' ' ' <<<"$output")" = "1.30 1.31 1.32 1.33 1.34 1.35 1.36 " ]
	run bash_line "kinf verify pods --client-go 1.2"
	[ "$(tr '\n' ' ' <<<"$output")" = "1.27 1.28 1.29 " ]
	run bash_line "kinf watch pods --flight-recorder 5m --dump-on "
	[ "$(tr '\n' ' ' <<<"$output")" = "verify relist rv-regression watch-error controller-unseen controller-coalesced " ]
	# a comma list: what is listed already is not offered again
	run bash_line "kinf tui pods --dump-on=relist,"
	[ "$(tr '\n' ' ' <<<"$output")" = "relist,verify relist,rv-regression relist,watch-error relist,controller-unseen relist,controller-coalesced " ]
	run bash_line "kinf watch pods --dump-on verify,r"
	[ "$(tr '\n' ' ' <<<"$output")" = "verify,relist verify,rv-regression " ]
	run zsh_complete watch pods --client-go ""
	[ "$(tr '\n' ' ' <<<"$output")" = "1.27 1.28 1.29 1.30 1.31 1.32 1.33 1.34 1.35 1.36 " ]
	run zsh_complete tui pods --client-go=1.3
	[ "$(grep '^--client-go=1.3' <<<"$output" | tr '\n' ' ')" = "--client-go=1.30 --client-go=1.31 --client-go=1.32 --client-go=1.33 --client-go=1.34 --client-go=1.35 --client-go=1.36 " ]
	run zsh_complete watch pods --dump-on verify,
	[ "$(tr '\n' ' ' <<<"$output")" = "verify,relist verify,rv-regression verify,watch-error verify,controller-unseen verify,controller-coalesced " ]
	run zsh_complete watch pods --dump-on=w
	grep -qx -- --dump-on=watch-error <<<"$output"
	# --controller-runtime's versions, the controller view's predicates by source
	run bash_line "kinf watch pods --controller --controller-runtime v0.2"
	[ "$(tr '\n' ' ' <<<"$output")" = "v0.20 v0.21 v0.22 v0.23 v0.24 " ]
	run zsh_complete replay x.rec --controller --controller-runtime ""
	[ "$(wc -l <<<"$output")" -eq 10 ]
	run bash_line "kinf watch pods --controller --event-filter gen"
	[ "$output" = generation ]
	run bash_line "kinf watch pods --controller --owns-predicate label"
	[ "$output" = labels ]
	# The scripts hold no copy of either list: it is kinf's own.
	run ! grep -nE '1\.3[0-9]|v0\.2[0-9]|rv-regression|watch-error' "$ROOT"/completions/*
}

# type_tab SOCKET KEYS WANT — types KEYS and a Tab into the shell of tmux
# server SOCKET, waits for WANT on its screen, then clears the line.
type_tab() {
	tmux -L "$1" send-keys "$2" Tab
	wait_until 10 bash -c "tmux -L '$1' capture-pane -p | grep -qF -- '$3'" ||
		{ echo "# waiting for '$3' after '$2':" >&2; tmux -L "$1" capture-pane -p >&2; return 1; }
	tmux -L "$1" send-keys C-u
}

@test "completions: interactive bash and zsh complete get --index node=, -o= and --dump-on" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	sim_start --pods 4
	local sh sock shells=0
	for sh in bash zsh; do
		command -v $sh >/dev/null || continue
		shells=$((shells + 1))
		sock=kinf-compl-eq-$$-$sh
		case $sh in
		bash) tmux -L "$sock" -f /dev/null new-session -d -x 150 -y 30 \
			"env PATH=$PATH KUBECONFIG=$SIM_KUBECONFIG bash --norc --noprofile -i"
			tmux -L "$sock" send-keys "source '$ROOT/completions/kinf.bash'" Enter ;;
		zsh) tmux -L "$sock" -f /dev/null new-session -d -x 150 -y 30 \
			"env PATH=$PATH KUBECONFIG=$SIM_KUBECONFIG zsh -f -i"
			tmux -L "$sock" send-keys "fpath=('$ROOT/completions' \$fpath); autoload -Uz compinit && compinit -u -d '$BATS_TEST_TMPDIR/zcd'" Enter ;;
		esac
		tmux -L "$sock" send-keys "echo RE''ADY" Enter
		wait_until 10 bash -c "tmux -L '$sock' capture-pane -p | grep -qx READY" &&
		type_tab "$sock" "kinf get pods --from-cache --index node=" "--index node=node-" &&
		type_tab "$sock" "kinf watch pods -o=ya" "pods -o=yaml" &&
		type_tab "$sock" "kinf watch pods --dump-on relist,rv" "--dump-on relist,rv-regression" ||
			{ echo "# in $sh" >&2; tmux -L "$sock" kill-server; false; }
		tmux -L "$sock" kill-server
	done
	[ "$shells" -eq 2 ]
}

@test "kubectl_complete-kinf: run as kubectl runs it, prints the candidates and a directive line" {
	[ -x "$KCOMP" ]
	run --separate-stderr "$KCOMP" ""
	assert_status 0
	for c in watch get verify tui; do grep -qx "$c" <<<"$output"; done
	[ "${lines[-1]}" = :4 ]
	run "$KCOMP" wa
	[ "$output" = "$(printf 'watch\n:4')" ]
	run "$KCOMP" watch pods -o ""
	[ "$(sed '$d' <<<"$output" | sort | tr '\n' ' ')" = "$FORMATS" ]
	[ "${lines[-1]}" = :4 ]
	# kubectl's shells complete after the "=" of a flag: the values alone
	run "$KCOMP" watch pods --output=y
	[ "$output" = "$(printf 'yaml\n:4')" ]
	run "$KCOMP" watch pods -o=
	[ "$(sed '$d' <<<"$output" | sort | tr '\n' ' ')" = "$FORMATS" ]
	run "$KCOMP" watch pods --client-go ""
	[ "$output" = "$(printf '1.27\n1.28\n1.29\n1.30\n1.31\n1.32\n1.33\n1.34\n1.35\n1.36\n:4')" ]
	# a list goes on: no space after the candidate (2)
	run "$KCOMP" watch pods --types Added,D
	[ "$output" = "$(printf 'Added,Deleted\n:6')" ]
	run "$KCOMP" watch pods --dump-on=relist,rv
	[ "$output" = "$(printf 'relist,rv-regression\n:6')" ]
	run "$KCOMP" get pods --from-cache --index ""
	[ "$output" = "$(printf 'namespace=\nnode=\nlabel=\nowner=\n:6')" ]
	# a file: no candidate, and the default directive, files
	run "$KCOMP" watch pods --dump-cache ""
	[ "$output" = :0 ]
	sim_start --pods 4
	run "$KCOMP" get --kubeconfig "$SIM_KUBECONFIG" pods --from-cache --index node=
	[ "$output" = "$(printf 'node=node-1\nnode=node-2\nnode=node-3\n:4')" ]
	# kubectl itself, finding the plugin and this script on PATH
	if command -v kubectl >/dev/null; then
		ln -s kinf "$BIN/kubectl-kinf"
		ln -s "$KCOMP" "$BIN/kubectl_complete-kinf"
		run --separate-stderr kubectl __complete kinf watch --kubeconfig "$SIM_KUBECONFIG" po
		grep -qx pods <<<"$output"
		[ "${lines[-1]}" = :4 ]
		run --separate-stderr kubectl __complete kinf watch pods --client-go=1.3
		[ "$output" = "$(printf '1.30\n1.31\n1.32\n1.33\n1.34\n1.35\n1.36\n:4')" ]
	fi
}

@test "make install puts kubectl_complete-kinf beside kubectl-kinf, kubectl then completes kubectl kinf; make uninstall removes it" {
	command -v make >/dev/null || skip "make not installed"
	dest=$BATS_TEST_TMPDIR/dest
	# the binary under test, neither rebuilt nor linked as ./kinf (-o kinf)
	build=$(cd "$(dirname "$KINF")" && pwd)
	run make -C "$ROOT" --no-print-directory -o kinf install DESTDIR="$dest" PREFIX=/usr BUILD="$build"
	assert_status 0
	[ -x "$dest/usr/bin/kubectl_complete-kinf" ]
	cmp "$KCOMP" "$dest/usr/bin/kubectl_complete-kinf"
	[ "$(readlink "$dest/usr/bin/kubectl-kinf")" = kinf ]
	# it runs the kinf beside it, none on PATH
	run env PATH=/usr/bin:/bin "$dest/usr/bin/kubectl_complete-kinf" wat
	[ "$output" = "$(printf 'watch\n:4')" ]
	if kubectl=$(command -v kubectl); then
		run --separate-stderr env PATH="$dest/usr/bin:/usr/bin:/bin" "$kubectl" __complete kinf get pods -o=y
		[ "$output" = "$(printf 'yaml\n:4')" ]
	fi
	run make -C "$ROOT" --no-print-directory uninstall DESTDIR="$dest" PREFIX=/usr
	assert_status 0
	[ ! -e "$dest/usr/bin/kubectl_complete-kinf" ]
	[ -z "$(find "$dest" -type f -o -type l)" ]
}
