# fish completion for kinf.  Candidates come from `kinf __complete`, which
# reads kinf's own option tables (and the cluster, for resource types,
# namespaces and contexts).

function __kinf_complete
    set -l words (commandline -opc) (commandline -ct)
    set -l candidates ($words[1] __complete $words[2..-1] 2>/dev/null)
    if test "$candidates[1]" = ":file"
        __fish_complete_path (commandline -ct)
        return
    end
    printf '%s\n' $candidates
end

complete -c kinf -f -a '(__kinf_complete)'
