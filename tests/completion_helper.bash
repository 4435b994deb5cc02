# completion_helper.bash — the shells' own completion machinery, driven
# from a test (33-docs.bats, 33-completion.bats).  Needs ROOT (the
# checkout) and BATS_TEST_TMPDIR.

# zsh_complete WORD... — what the zsh completion hands compadd.
zsh_complete() {
	zsh -f -c '
		fpath=("$1" $fpath)
		autoload -U compinit && compinit -u -d "$2/zcompdump"
		shift 2
		compadd() { while [[ $1 == -* && $1 != -- ]]; do shift; done; [[ $1 == -- ]] && shift; print -l -- "$@"; }
		_files() { print -- ":files:"; }
		words=(kinf "$@")
		CURRENT=$(( $# + 1 ))
		_kinf' zsh "$ROOT/completions" "$BATS_TEST_TMPDIR" "$@"
}
