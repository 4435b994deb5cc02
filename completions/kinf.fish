# fish completion for kinf.  Candidates come from `kinf __complete`, which
# reads kinf's own option tables (and the cluster, for resource types,
# namespaces and contexts).

function __kinf_complete
    # The token as typed, without an opening quote ('generation|la:
    # --predicate's a|b needs quotes); fish quotes what it inserts.
    set -l words (commandline -opc) (commandline -ct | string replace -r '^[\'"]' '')
    set -l candidates ($words[1] __complete $words[2..-1] 2>/dev/null)
    if test "$candidates[1]" = ":file"
        __fish_complete_path (commandline -ct)
        return
    end
    printf '%s\n' $candidates
end

complete -c kinf -f -a '(__kinf_complete)'
