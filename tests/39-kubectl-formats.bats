#!/usr/bin/env bats
# The rest of kubectl's -o formats — go-template (and template, its other
# name), go-template-file, jsonpath-file, jsonpath-as-json — against
# kubectl itself on the same kube-sim, byte for byte: stdout, stderr and
# status.  The templates are the kind people paste from READMEs and
# answers: names, images, node addresses, decoded secrets, restart counts.

load test_helper
bats_require_minimum_version 1.5.0

kc() { "${KUBECTL:-kubectl}" --kubeconfig "$SIM_KUBECONFIG" "$@"; }
get() { "$KINF" get --kubeconfig "$SIM_KUBECONFIG" "$@"; }

# same_as_kubectl ARGS... — `kinf get ARGS` (from the server, then with
# --from-cache) prints what `kubectl get ARGS` prints on stdout and on
# stderr, with the same status.  $output is kinf's, for more checks.
# $KUBECTL, when set, is the kubectl.
same_as_kubectl() {
	local want want_err want_status mode
	want_status=0
	want=$(kc get "$@" 2>"$BATS_TEST_TMPDIR/kc.err") || want_status=$?
	want_err=$(cat "$BATS_TEST_TMPDIR/kc.err")
	for mode in server cache; do
		if [ $mode = server ]; then
			run --separate-stderr get "$@"
		else
			run --separate-stderr get "$@" --from-cache
		fi
		if [ "$output" != "$want" ] || [ "$stderr" != "$want_err" ] ||
		   [ "$status" != "$want_status" ]; then
			echo "# kinf get $* ($mode) differs from kubectl's (status $status, kubectl's $want_status):" >&2
			diff <(echo "$want"; echo "$want_err") <(echo "$output"; echo "$stderr") |
				cut -c1-300 | head -20 | sed 's/^/# /' >&2
			return 1
		fi
	done
}

# Real-world templates, one a line: RESOURCE<TAB>TEMPLATE.
templates() {
	cat <<'T'
pods	{{range .items}}{{.metadata.name}}{{"\n"}}{{end}}
pods	{{range .items}}{{.metadata.name}}{{"\t"}}{{.status.phase}}{{"\n"}}{{end}}
pods	{{range .items}}{{.metadata.name}}:{{range .spec.containers}} {{.image}}{{end}}{{"\n"}}{{end}}
pods	{{range .items}}{{printf "%-30s %-10s %s\n" .metadata.name .status.phase .spec.nodeName}}{{end}}
pods	{{range .items}}{{.metadata.name}} {{range .status.containerStatuses}}{{.restartCount}}{{end}}{{"\n"}}{{end}}
pods	{{range .items}}{{range .status.conditions}}{{if eq .type "Ready"}}{{.status}} {{end}}{{end}}{{end}}
pods	{{range .items}}{{.metadata.labels}}{{"\n"}}{{end}}
pods	{{range .items}}{{index .metadata.labels "pod-template-hash"}}{{"\n"}}{{end}}
pods	{{len .items}}
pods	{{range .items}}{{with .spec.nodeName}}{{.}}{{else}}unscheduled{{end}}{{"\n"}}{{end}}
pods	{{range .items}}{{$.kind}}/{{.metadata.name}} {{end}}
pods	{{range $i, $p := .items}}{{if $i}},{{end}}{{$p.metadata.name}}{{end}}
pods	{{range .items}}{{range .metadata.ownerReferences}}{{.kind}}/{{.name}}{{end}}{{"\n"}}{{end}}
pods	{{range .items}}{{range .spec.containers}}{{.resources.requests.cpu}} {{.resources.limits.memory}}{{end}}{{"\n"}}{{end}}
pods	{{range .items}}{{range .spec.containers}}{{range .env}}{{.name}}={{.value}} {{end}}{{end}}{{"\n"}}{{end}}
pods	{{range .items}}{{if ne .status.phase "Running"}}{{.metadata.name}}{{"\n"}}{{end}}{{end}}
pods	{{range .items}}{{(index .status.podIPs 0).ip}}{{"\n"}}{{end}}
pods	{{range .items}}{{.spec.terminationGracePeriodSeconds}} {{.spec.priority}} {{eq .spec.priority 0}}{{"\n"}}{{end}}
pods	{{range .items}}{{$name := .metadata.name}}{{range .spec.containers}}{{$name}}/{{.name}} {{end}}{{end}}
pods	{{range .items}}{{if and .spec.nodeName (eq .status.phase "Running")}}{{.metadata.name}} {{end}}{{end}}
pods	{{range .items}}{{.metadata.name | printf "%q"}} {{.spec.containers | len}}{{"\n"}}{{end}}
pods	{{range .items}}{{.metadata.annotations}}{{.spec.nothere}}{{"\n"}}{{end}}
nodes	{{range .items}}{{range .status.addresses}}{{if eq .type "InternalIP"}}{{.address}}{{"\n"}}{{end}}{{end}}{{end}}
nodes	{{range .items}}{{.metadata.name}} {{.status.capacity.cpu}} {{index .status.capacity "memory"}}{{"\n"}}{{end}}
nodes	{{range .items}}{{.status.nodeInfo.kubeletVersion}} {{.spec.taints}}{{"\n"}}{{end}}
deployments	{{range .items}}{{.metadata.name}} {{.spec.replicas}}/{{.status.readyReplicas}}{{"\n"}}{{end}}
deployments	{{range .items}}{{range .spec.template.spec.containers}}{{.image}}{{end}}{{"\n"}}{{end}}
secrets	{{range .items}}{{.metadata.name}}:{{range $k, $v := .data}} {{$k}}={{$v | base64decode}}{{end}}{{"\n"}}{{end}}
configmaps	{{range .items}}{{.metadata.name}}:{{range $k, $v := .data}} {{$k}}{{end}}{{"\n"}}{{end}}
events	{{range .items}}{{.reason}}: {{.message}}{{"\n"}}{{end}}
T
}

@test "go-template: real-world templates print what kubectl prints, byte for byte" {
	sim_start --pods 6 --namespaces 1
	# one pod not running, one with annotations to print (a map, HTML in it)
	local ns name
	ns=$(kc get pods -A -o jsonpath='{.items[1].metadata.namespace}')
	name=$(kc get pods -A -o jsonpath='{.items[1].metadata.name}')
	simctl POST /update '{"resource":"pods","namespace":"'"$ns"'","name":"'"$name"'","patch":{"status":{"phase":"Pending"},"metadata":{"annotations":{"html":"<a&b>","n":"1.5e3"}}}}' >/dev/null
	local n=0 resource tmpl
	while IFS=$'\t' read -r resource tmpl; do
		same_as_kubectl "$resource" -A -o "go-template=$tmpl"
		# an empty answer would compare nothing
		[ -n "$output" ] || { echo "# nothing printed for $tmpl" >&2; return 1; }
		n=$((n + 1))
	done < <(templates)
	[ "$n" -ge 25 ]
	# one object prints as itself, not in a List
	same_as_kubectl pods pod-0 -o 'go-template={{.kind}} {{.metadata.name}} {{.status.podIP}}'
}

@test "go-template: trim markers over several lines, template=, go-template-file= and templatefile=" {
	sim_start --pods 3
	local tmpl=$'{{- range .items }}\n  {{- .metadata.name }} {{/* a comment */}}\n  {{- "\\n" -}}\n{{- end }}\n'
	same_as_kubectl pods -o "go-template=$tmpl"
	[ "$(echo "$output" | wc -l)" -eq 3 ]
	same_as_kubectl pods -o "template=$tmpl"
	printf '%s' "$tmpl" >"$BATS_TEST_TMPDIR/t.tmpl"
	same_as_kubectl pods -o "go-template-file=$BATS_TEST_TMPDIR/t.tmpl"
	same_as_kubectl pods -o "templatefile=$BATS_TEST_TMPDIR/t.tmpl"
}

@test "go-template: kubectl's errors, its debugging block on stdout, and status 1" {
	sim_start --pods 3
	# execution: a field of a string, a float64 against an int, a bad index
	same_as_kubectl pods -o 'go-template={{range .items}}{{.metadata.name}} {{.metadata.name.x}}{{end}}'
	[ "$status" -eq 1 ]
	[[ $output == "pod-0 Error executing template: "*"raw data was:"*"object given to template engine was:"* ]]
	same_as_kubectl pods -o 'go-template={{range .items}}{{if eq .spec.priority 0.0}}x{{end}}{{end}}'
	same_as_kubectl pods -o 'go-template={{index .items 9}}'
	# index's argument as Go's indexArg takes it; one past the end is reflect's panic
	same_as_kubectl pods -o 'go-template={{len .items | index .items}}'
	[[ $stderr == *'error calling index: reflect: slice index out of range' ]]
	same_as_kubectl pods -o 'go-template={{range .items}}{{len .metadata.name | index .metadata.name}}{{end}}'
	[[ $stderr == *'error calling index: reflect: string index out of range' ]]
	same_as_kubectl pods -o 'go-template={{.nope | index "app"}}'
	[[ $stderr == *'error calling index: cannot index slice/array with nil' ]]
	same_as_kubectl pods -o 'go-template={{index "app" .kind}}'
	[[ $stderr == *'error calling index: cannot index slice/array with type string' ]]
	same_as_kubectl pods -o 'go-template={{index "app" 1.0}}'
	# a message past kinf's one-line errors: stdout's block has it whole
	local want
	want=$(kc get pods -o 'go-template={{eq $ $}}' 2>/dev/null) || true
	[ ${#want} -gt 1000 ]
	run -1 --separate-stderr get pods -o 'go-template={{eq $ $}}'
	[ "$output" = "$want" ]
	same_as_kubectl pods -o 'go-template={{range .items}}{{printf "%d|%s|%5.1f" .metadata.name .spec.priority 2.25}}{{end}}'
	# parsing
	same_as_kubectl pods -o 'go-template={{range .items}}{{.metadata.name}}'
	same_as_kubectl pods -o 'go-template={{upper .kind}}'
	# a missing space: Go chains the fields on the function, called with nothing
	same_as_kubectl pods -o 'template={{len.items}}'
	[[ $stderr == *'at <len>: wrong number of args for len: want 1 got 0' ]]
	same_as_kubectl pods -o 'go-template={{if}}{{end}}'
	[ "$status" -eq 1 ]
	[[ $stderr == 'error: error parsing template {{if}}{{end}}, template: output:1: missing value for if' ]]
	# a template too long for one error line: its middle left out, not the cause
	long="{{.kind}} $(printf 'x%.0s' {1..700}) {{.nope"
	run --separate-stderr get pods -o "go-template=$long"
	[ "$status" -eq 1 ]
	[[ $stderr == 'error: error parsing template {{.kind}} xxx'*'x ... x'*'xxx {{.nope, template: output:1: unclosed action' ]]
	# string literals as strconv.Unquote reads them: octal, and escapes it refuses
	same_as_kubectl pods -o 'go-template={{"\101\x42\u00e9\U0001F600"}}'
	[ "$output" = "ABé😀" ]
	same_as_kubectl pods -o 'go-template={{"\'"'"'"}}'
	[ "$status" -eq 1 ]
	same_as_kubectl pods -o 'go-template={{"\ud800"}}'
	[ "$status" -eq 1 ]
	same_as_kubectl pods -o 'go-template={{"\x4"}}'
	[ "$status" -eq 1 ]
}

@test "go-template: named templates, character constants and numbers past int64, as kubectl" {
	sim_start --pods 3
	# a template per container line, defined after its use, with a block
	same_as_kubectl pods -o 'go-template={{range .items}}{{template "pod" .}}{{end}}{{define "pod"}}{{.metadata.name}}:{{range .spec.containers}} {{block "c" .}}{{.name}}={{.image}}{{end}}{{end}}{{"\n"}}{{end}}'
	[ "${#lines[@]}" -eq 3 ]
	same_as_kubectl pods -o 'go-template={{define "output"}}{{len .items}} pods{{end}}'
	[ "$output" = "3 pods" ]
	same_as_kubectl pods -o 'go-template={{template "x" .items}}'
	[ "$status" -eq 1 ]
	same_as_kubectl pods -o 'go-template={{define "x"}}A{{end}}{{define "x"}}B{{end}}'
	same_as_kubectl pods -o 'go-template={{range .items}}{{define "x"}}{{end}}{{end}}'
	same_as_kubectl pods -o "go-template={{printf \"%c%c\" 'o' 'k'}} {{'\\n'}} {{eq 'a' 97}}"
	[ "$output" = "ok 10 true" ]
	same_as_kubectl pods -o 'go-template={{18446744073709551615}}'
	same_as_kubectl pods -o 'go-template={{99999999999999999999}}'
	same_as_kubectl pods -o 'go-template={{.items | len | 3}}'
	# A template that calls itself for ever: Go stops at 100,000 calls, and
	# so does kinf, its stack let grow from the 8 MiB bats gives it ...
	[ "$(ulimit -s)" = 8192 ] || skip "ulimit -s is not 8192"
	same_as_kubectl pods -o 'go-template={{define "x"}}{{template "x" .}}{{end}}{{template "x" .}}'
	[[ $stderr == *'exceeded maximum template depth (100000)' ]]
	# ... unless the stack may not grow (a hard limit): then where it would
	# run out, with an error of its own, not a crash
	run --separate-stderr bash -c 'ulimit -Hs 8192 && "$@"' _ "$KINF" get --kubeconfig "$SIM_KUBECONFIG" \
		pods -o 'go-template={{define "x"}}{{template "x" .}}{{end}}{{template "x" .}}'
	[ "$status" -eq 1 ]
	[[ $stderr == *'executing "x" at <{{template "x" .}}>: template depth '*' takes more stack than kinf has (Go'"'"'s limit is 100000)' ]]
	# and a template whose calls take more stack runs out first too, at
	# whichever action the stack's random start leaves it short
	run --separate-stderr get pods -o 'go-template={{define "x"}}{{range .items}}{{if .}}{{with .}}{{template "x" $}}{{end}}{{end}}{{end}}{{end}}{{template "x" .}}'
	[ "$status" -eq 1 ]
	local short='executing "x" at <[^>]*>: (template depth [0-9]+ takes more stack than kinf has [(]Go.s limit is 100000[)]|nested deeper than kinf.s stack)$'
	[[ $stderr =~ $short ]]
}

@test "custom-columns: a column that fails prints the header first, as kubectl's tabwriter flushes it" {
	sim_start --pods 3
	same_as_kubectl pods -o 'custom-columns=NAME:.metadata.name,C:.spec.containers[5].name'
	[ "$status" -eq 1 ]
	[ "$output" = "NAME   C" ]
	same_as_kubectl pods -o 'custom-columns=A:.metadata.name B:.kind'
	[ "$output" = "A" ]
}

@test "jsonpath-as-json= and jsonpath-file=: kubectl's" {
	sim_start --pods 3
	same_as_kubectl pods -o 'jsonpath-as-json={.items[*].metadata.name}'
	[ "${lines[0]}" = "[" ]
	same_as_kubectl pods -o 'jsonpath-as-json={.items[0].metadata.labels}'
	same_as_kubectl pods pod-1 -o 'jsonpath-as-json={.spec.containers[*].ports}'
	printf '%s' '{range .items[*]}{.metadata.name}{"\t"}{.spec.nodeName}{"\n"}{end}' >"$BATS_TEST_TMPDIR/jp"
	same_as_kubectl pods -o "jsonpath-file=$BATS_TEST_TMPDIR/jp"
}

@test "integers beyond int64 (as a custom resource may hold them) are floats, as kubectl's: never saturated" {
	sim_start --pods 1
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-0","patch":{"spec":{"big":123456789012345678901234567890,"u":18446744073709551615,"over":9223372036854775808,"max":9223372036854775807,"min":-9223372036854775808,"under":-9223372036854775809,"e20":[1,100000000000000000000]}}}' >/dev/null
	same_as_kubectl pods pod-0 -o json
	[[ $output == *'"big": 1.2345678901234568e+29,'* && $output == *'"over": 9223372036854776000,'* ]]
	[[ $output == *'"max": 9223372036854775807,'* && $output == *'"min": -9223372036854775808,'* ]]
	same_as_kubectl pods pod-0 -o yaml
	[[ $output == *"u: 1.8446744073709552e+19"* ]]
	local jp='{.spec.big} {.spec.u} {.spec.over} {.spec.max} {.spec.min} {.spec.under} {.spec.e20}'
	same_as_kubectl pods pod-0 -o "jsonpath=$jp"
	same_as_kubectl pods pod-0 -o 'go-template={{.spec.big}} {{.spec.u}} {{.spec.over}} {{.spec.max}} {{.spec.min}} {{.spec.under}} {{.spec.e20}} {{printf "%v %T" .spec.over .spec.over}}'
}

@test "go-template printf: Go's fmt, flags, * and [n], every verb and fmt's own reports, as kubectl's" {
	sim_start --pods 2
	# one template of the cases, one a line: a single kubectl run
	local t
	t=$(cat "$BATS_TEST_DIRNAME/fixtures/printf/cases.tmpl")
	[ "$(grep -c printf <<<"$t")" -ge 80 ]
	same_as_kubectl pods -o "go-template=$t"
	[[ $output == *'%!(BADWIDTH)'* && $output == *'%!d(BADINDEX)'* && $output == *'0x000000ff'* ]]
	# %p: a map's or a slice's address (kubectl's is its own), anything else fmt's report
	t='{{printf "%p|%#p|%p|%p" .metadata .spec.containers .metadata.name .nope}}'
	run --separate-stderr get pods/pod-0 -o "go-template=$t"
	assert_status 0
	[[ $output =~ ^0x[0-9a-f]{6,}\|[0-9a-f]{6,}\|%!p\(string=pod-0\)\|%!p\(\<nil\>\)$ ]]
	kc get pods/pod-0 -o "go-template=$t" | grep -E '^0x[0-9a-f]{6,}\|[0-9a-f]{6,}\|'
}

@test "jsonpath and jsonpath-as-json: filters, slices, unions, ranges, as kubectl's; -as-json an array for each group" {
	sim_start --pods 2
	# the cases, one a line, joined into one template (a newline apart)
	local t
	t=$(sed 's/$/{"\\n"}/' "$BATS_TEST_DIRNAME/fixtures/jsonpath/cases.jsonpath" | tr -d '\n')
	[ "${#t}" -gt 1000 ]
	same_as_kubectl pods -o "jsonpath=$t"
	same_as_kubectl pods -o "jsonpath-as-json=$t"
	[ "$(grep -c '^\[$' <<<"$output")" -ge 50 ]
	# an error names the template as Go's %q does
	run --separate-stderr get pods -o 'jsonpath={.items[0].spec.containers[7]}{"\t"}'
	assert_status 1
	[[ ${stderr_lines[0]} == 'error: error executing jsonpath "{.items[0].spec.containers[7]}{\"\\t\"}": Error executing template: array index out of bounds: index 7, length 1'* ]]
}

@test "-o yaml of a string go-yaml refuses (DEL, C1, U+FFFF) is kubectl's error, in get and get -w; a BOM is written" {
	sim_start --pods 1
	local v
	for v in '"del\u007f"' '"c1\u0090"' '"non\uffff"' '"bom\ufeffx"'; do
		simctl POST /update "{\"resource\":\"pods\",\"namespace\":\"default\",\"name\":\"pod-0\",\"patch\":{\"metadata\":{\"annotations\":{\"x\":$v}}}}" >/dev/null
		same_as_kubectl pods pod-0 -o yaml
		same_as_kubectl pods -o yaml
	done
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-0","patch":{"metadata":{"annotations":{"x":"del\u007f"}}}}' >/dev/null
	run --separate-stderr get pods -w -o yaml
	assert_status 1
	[ "$stderr" = "error: unable to output the provided object: yaml: control characters are not allowed" ]
}

@test "-o yaml: go-yaml folds a NEL as a line break, and refuses a line or a key as kubectl's does" {
	sim_start --pods 0
	local nth=0 data long
	long=$(printf 'k%.0s' $(seq 1022))
	# one ConfigMap a case: its data; then the lines of kubectl's YAML or its error
	for data in '{"k":"a \u0085 b"}' '{"k":"x\u0085\u0085 y\u0085"}' '{"k":"a\u0085---b","l":"\u0085..."}' \
		    '{"k":"a\u0085--- b"}' '{"k":"a\u0085\u0085...\u0085"}' '{"a\u0085b":"x"}' \
		    "{\"$long\":\"x\"}" "{\"${long}k\":\"x\"}" "{\"${long:5}<\":\"x\"}"; do
		nth=$((nth + 1))
		simctl POST /create "{\"resource\":\"configmaps\",\"object\":{\"metadata\":{\"name\":\"nel$nth\",\"namespace\":\"default\"},\"data\":$data}}" >/dev/null
		same_as_kubectl configmaps nel$nth -o yaml
		case $nth in
		1) [[ $output == *$'\n  k: a b\n'* ]] ;;
		2) [[ $output == *$'\n  k: "x\\ny "\n'* ]] ;;
		4) [ "$stderr" = "error: yaml: line 2: found unexpected document indicator" ] ;;
		5) [[ $stderr == *"line 3: found unexpected document indicator" ]] ;;
		6) [[ $stderr == *"yaml: line 1: did not find expected ',' or '}'" ]] ;;
		7) [ "$status" -eq 0 ] ;;
		8 | 9) [ "$stderr" = "error: yaml: did not find expected ',' or '}'" ] ;;
		esac
	done
	same_as_kubectl configmaps -o yaml
	[ "$status" -eq 1 ]
	run --separate-stderr get configmaps nel4 -w -o yaml
	assert_status 1
	[ "$stderr" = "error: unable to output the provided object: yaml: line 2: found unexpected document indicator" ]
}

@test "go-template: slice, html, js, urlquery and call, and their errors, as kubectl's" {
	sim_start --pods 2
	local t
	t=$(cat "$BATS_TEST_DIRNAME/fixtures/gotemplate/funcs.tmpl")
	same_as_kubectl pods -o "go-template=$t"
	[[ $output == "bc abc bc 1"* && $output == *'&lt;a&amp;b&gt;'* && $output == *'a+b%26c%3Dd%2Fe%3Ff~g.h_i-j'* ]]
	while IFS= read -r t; do
		same_as_kubectl pods -o "go-template=$t"
		[ "$status" -eq 1 ]
	done <"$BATS_TEST_DIRNAME/fixtures/gotemplate/funcs-errors.tmpl"
}

@test "go-template: Go 1.24's, as kubectl 1.33's: range over an integer, call's errors name the callee" {
	sim_start --pods 2
	local k t
	k=$(kubectl_at_least 33) || skip "no kubectl 1.33 or later to compare with"
	KUBECTL=$k same_as_kubectl pods -o 'go-template={{range 3}}{{.}},{{end}} {{range $i := len .items}}{{printf "%T" $i}}{{end}} {{range -1}}x{{else}}none{{end}} {{range $e := 5}}{{if eq $e 1}}{{continue}}{{end}}{{if eq $e 3}}{{break}}{{end}}{{$e}}{{end}} {{range .items}}{{range .metadata.generation}}{{printf "%T" .}}{{end}}{{end}}'
	[ "$status" -eq 0 ]
	[[ $output == "0,1,2, intint none 02 "* ]]
	KUBECTL=$k same_as_kubectl pods -o 'go-template={{range $i, $e := 2}}{{end}}'
	[ "$status" -eq 1 ]
	# Go 1.21 to 1.23 panic on a callee from the pipeline; 1.20 names none
	while IFS= read -r t; do
		KUBECTL=$k same_as_kubectl pods -o "go-template=$t"
		[ "$status" -eq 1 ]
	done <<-'T'
		{{call .x}}
		{{call .kind}}
		{{call .items 1}}
		{{call (.kind)}}
		{{call (print 1 | print)}}
		{{call "a\tb"}} {{call 0x1F}}
		{{.kind | call}}
		{{.metadata | call}}
		{{.nope | call}}
		{{3 | call}}
	T
	[[ $stderr == *'non-function <int Value> of type int'* ]]
}

@test "--template and --allow-missing-template-keys=false, as kubectl's" {
	sim_start --pods 2
	same_as_kubectl pods -o go-template --template '{{len .items}}'
	[ "$output" = 2 ]
	same_as_kubectl pods --template '{{range .items}}{{.metadata.name}} {{end}}'
	[ "$output" = "pod-0 pod-1 " ]
	same_as_kubectl pods -o jsonpath --template '{.items[0].metadata.name}'
	same_as_kubectl pods -o jsonpath-as-json --template '{.items[*].metadata.name}'
	same_as_kubectl pods pod-0 -o go-template --template '{{.metadata.labels.nope}}'
	[ "$output" = "<no value>" ]
	local t
	for t in '{{.metadata.labels.nope}}' '{{.metadata.nope.x}}' '{{$x := .nope}}{{$x.y}}' \
		 '{{index .metadata.labels "nope"}}'; do
		same_as_kubectl pods pod-0 -o go-template --template "$t" --allow-missing-template-keys=false
	done
	[ "$status" -eq 0 ]
	same_as_kubectl pods pod-0 -o go-template --template '{{.metadata.nope.x}}' --allow-missing-template-keys=false
	[ "$status" -eq 1 ] && [[ $stderr == *'at <.metadata.nope.x>: map has no entry for key "nope"' ]]
	# jsonpath: kubectl's first line (its debugging block, the whole List as %#v, left out)
	run --separate-stderr get pods -o jsonpath='{.items[*].metadata.nope}' --allow-missing-template-keys=false
	assert_status 1
	[ "$stderr" = 'error: error executing jsonpath "{.items[*].metadata.nope}": Error executing template: nope is not found' ]
	[[ $(kc get pods -o jsonpath='{.items[*].metadata.nope}' --allow-missing-template-keys=false 2>&1) == "$stderr. Printing more"* ]]
	run --separate-stderr get pods -o jsonpath
	[[ $stderr == "error: template format specified but no template given"* ]]
	run --separate-stderr get pods -o custom-columns
	[[ $stderr == "error: custom-columns format specified but no custom columns given"* ]]
}

@test "--show-kind names table rows KIND/NAME, as kubectl's" {
	sim_start --pods 3
	same_as_kubectl pods --show-kind
	[[ ${lines[1]} == pod/pod-* ]]
	same_as_kubectl deployments -A --show-kind -o wide
	[[ ${lines[1]} == *deployment.apps/* ]]
	# an Event's name column is its last, wide only: the apiserver's format "name"
	same_as_kubectl events --show-kind -o wide
	[[ ${lines[1]} == *" event/pod-"* ]]
}

@test "--chunk-size N: the LISTs kubectl's page size makes, 0 for one response, a negative one sent" {
	sim_start --pods 5
	local n want
	for n in 2 0 -2 1; do
		simctl DELETE /requests >/dev/null
		kc get pods --chunk-size "$n" -o name >/dev/null
		want=$(simctl GET '/requests?verb=list' | jq -c '[.[] | .query.limit]')
		simctl DELETE /requests >/dev/null
		run --separate-stderr get pods --chunk-size "$n" -o name
		assert_status 0
		[ "${#lines[@]}" -eq 5 ]
		run simctl GET '/requests?verb=list'
		[ "$(echo "$output" | jq -c '[.[] | .query.limit]')" = "$want" ]
	done
	[ "$want" = '["1","1","1","1","1"]' ]
}

# client-go's REST client takes a token of a bucket of 10, refilled 5 a
# second, before each request but a watch's first try: of pages a+1 to b,
# ten at most go out at once, the rest 0.2 s apart.  kube-sim stamps a
# page when it starts on it, after the client sent it and before the
# client can send the next, so page b's stamp comes at least (b - a - 10)
# * 0.2 s after page a's however loaded the machine is.
paced_as_client_go() {
	simctl GET '/requests?verb=list' | jq -e '[.[] | .time] as $t
		| [range(0; $t | length) as $a | range($a + 1; $t | length) as $b
		   | select($t[$b] - $t[$a] < ($b - $a - 10) * 0.2 - 0.02)] | length == 0' >/dev/null
}

@test "get's pages are paced as kubectl's: bursts of 10, then 5 a second; its watch is not" {
	sim_start --pods 24
	simctl DELETE /requests >/dev/null
	kc get pods --chunk-size 1 -o name >/dev/null
	paced_as_client_go
	simctl DELETE /requests >/dev/null
	run --separate-stderr get pods --chunk-size 1 -o name -v 1
	assert_status 0
	[ "${#lines[@]}" -eq 24 ]
	[ "$(simctl GET '/requests?verb=list' | jq length)" -eq 24 ]
	paced_as_client_go
	[[ $stderr == *"waited "*" ms before sending /api/v1/namespaces/default/pods?"*"client-side throttling"* ]]
	# the watch of get -w is not throttled, its LIST pages are
	run --separate-stderr get pods --chunk-size 1 -w --request-timeout 1s -v 1
	[[ $stderr == *"waited "*"limit=1: client-side throttling"* ]]
	[ -z "$(grep 'waited .*watch=true' <<<"$stderr")" ]
}
