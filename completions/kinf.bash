# bash completion for kinf                                 -*- shell-script -*-
#
# Candidates come from `kinf __complete`, which reads kinf's own option
# tables (and, for resource types, namespaces and contexts, the cluster).

_kinf()
{
	local cur=${COMP_WORDS[COMP_CWORD]}
	local IFS=$'\n'
	local out i
	local -a words=()
	# bash splits "--output=json" at the "=" (COMP_WORDBREAKS): hand the
	# helper "--output" "json", and complete only what follows the "=".
	for ((i = 1; i <= COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == "=" && ${COMP_WORDS[i-1]} == --* ]]; then
			((i == COMP_CWORD)) && words+=("")
			continue
		fi
		words+=("${COMP_WORDS[i]}")
	done
	[[ $cur == "=" && ${COMP_WORDS[COMP_CWORD-1]} == --* ]] && cur=
	# A quoted word ('generation|la: --predicate's a|b needs quotes):
	# readline completes what follows the quote, and so does the helper.
	if [[ $cur == [\"\']* ]]; then
		cur=${cur:1}
		words[${#words[@]}-1]=$cur
	fi
	out=$("${COMP_WORDS[0]}" __complete "${words[@]}" 2>/dev/null)
	if [[ $out == ":file" ]]; then
		COMPREPLY=($(compgen -f -- "$cur"))
		compopt -o filenames 2>/dev/null
		return
	fi
	COMPREPLY=($(compgen -W "$out" -- "$cur"))
	# Keep completing a list (a,b or a|b) without a trailing space.
	[[ $cur == *[,\|]* || ${COMPREPLY[0]} == *, ]] && compopt -o nospace 2>/dev/null
}

complete -F _kinf kinf
