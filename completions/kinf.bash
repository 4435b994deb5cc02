# bash completion for kinf                                 -*- shell-script -*-
#
# Candidates come from `kinf __complete`, which reads kinf's own option
# tables (and, for resource types, namespaces and contexts, the cluster).

_kinf()
{
	local cur=${COMP_WORDS[COMP_CWORD]}
	local IFS=$'\n'
	local out
	out=$("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
	if [[ $out == ":file" ]]; then
		COMPREPLY=($(compgen -f -- "$cur"))
		compopt -o filenames 2>/dev/null
		return
	fi
	COMPREPLY=($(compgen -W "$out" -- "$cur"))
	# Keep completing a comma list without a trailing space.
	[[ $cur == *,* || ${COMPREPLY[0]} == *, ]] && compopt -o nospace 2>/dev/null
}

complete -F _kinf kinf
