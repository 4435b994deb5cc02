# bash completion for kinf                                 -*- shell-script -*-
#
# Candidates come from `kinf __complete`, which reads kinf's own option
# tables (and, for resource types, namespaces and contexts, the cluster).

_kinf()
{
	local cur=${COMP_WORDS[COMP_CWORD]}
	local IFS=$'\n'
	local out c i word prefix
	local -a words=()
	# bash splits a word around "=" and ":" (COMP_WORDBREAKS): "--index
	# node=no" comes as "--index" "node" "=" "no".  Glue the pieces back,
	# so that the helper reads the words zsh and fish hand it.
	for ((i = 1; i <= COMP_CWORD; i++)); do
		if ((i > 1)) && [[ ${COMP_WORDS[i]} =~ ^[=:]+$ || ${COMP_WORDS[i-1]} =~ ^[=:]+$ ]]; then
			words[${#words[@]}-1]+=${COMP_WORDS[i]}
		else
			words+=("${COMP_WORDS[i]}")
		fi
	done
	# Readline completes what follows the last "=" or ":" (nothing, right
	# after one); in quotes ('generation|la: --predicate's a|b needs
	# them), what follows the quote, and so does the helper.
	[[ $cur =~ ^[=:]+$ ]] && cur=
	word=${words[${#words[@]}-1]}
	if [[ $cur == [\"\']* ]]; then
		word=${word%"$cur"}${cur:1}
		cur=${cur:1}
		words[${#words[@]}-1]=$word
	fi
	prefix=${word%"$cur"}
	out=$("${COMP_WORDS[0]}" __complete "${words[@]}" 2>/dev/null)
	if [[ $out == ":file" ]]; then
		COMPREPLY=($(compgen -f -- "$cur"))
		compopt -o filenames 2>/dev/null
		return
	fi
	# The helper's candidates are whole words: readline's part follows the prefix.
	COMPREPLY=()
	while read -r c; do
		[[ -n $c && $c == "$prefix$cur"* ]] && COMPREPLY+=("${c#"$prefix"}")
	done <<<"$out"
	# Keep completing a list (a,b or a|b) or a NAME= without a trailing space.
	[[ $word == *[,\|]* || ${COMPREPLY[0]} == *[,=] ]] && compopt -o nospace 2>/dev/null
}

complete -F _kinf kinf
