#!/usr/bin/env bash
# Helpers for bats tests that need the simulated kube-apiserver
# (tests/apiserver/kube-sim).  Source it from a .bats file:
#
#   load sim_helper            # or: source "$BATS_TEST_DIRNAME/sim_helper.bash"
#   setup()    { sim_start --pods 50; }
#   teardown() { sim_stop; }
#
# sim_start [kube-sim args...]  start it; exports SIM_KUBECONFIG SIM_DIR
#                               SIM_CONTROL SIM_API SIM_PID (and SIM_TOKEN,
#                               SIM_CACERT, SIM_VIEWER_TOKEN for curl)
# sim_stop                      SIGTERM and wait; safe to call twice
# sim_restart [kube-sim args...] stop it and start a new one on the same
#                               kubeconfig (add --reuse-credentials to keep
#                               the tokens and certificates, --port to keep
#                               the port); the previous log is log.prev
# simctl METHOD PATH [JSON]     call the control interface, print the body,
#                               fail on a non-2xx answer
# sim_oracle RESOURCE           the oracle's JSON for RESOURCE
# simcurl [curl args...] PATH   curl the API as admin (PATH relative to SIM_API)

SIM_HELPER_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# one CA and key pair per bats run, copied into each simulator's folder
if [[ -n "${BATS_RUN_TMPDIR:-}" ]]; then
	export KUBESIM_CERTS_CACHE="${KUBESIM_CERTS_CACHE:-$BATS_RUN_TMPDIR/kube-sim-certs}"
fi
SIM_BIN="$SIM_HELPER_DIR/apiserver/kube-sim"

sim_start() {
	local base="${BATS_TEST_TMPDIR:-}"
	if [[ -z "$base" ]]; then
		base="$(mktemp -d "${TMPDIR:-/tmp}/kube-sim.XXXXXX")"
	fi
	SIM_DIR="$base/sim"
	mkdir -p "$SIM_DIR"
	SIM_KUBECONFIG="$SIM_DIR/kubeconfig"
	rm -f "$SIM_KUBECONFIG"
	_sim_run "$@"
}

sim_restart() {
	if [[ -z "${SIM_KUBECONFIG:-}" || -z "${SIM_DIR:-}" ]]; then
		echo "sim_restart: no simulator was started" >&2
		return 1
	fi
	sim_stop
	if [[ -e "$SIM_DIR/log" ]]; then
		mv -f "$SIM_DIR/log" "$SIM_DIR/log.prev"
	fi
	_sim_run "$@"
}

# Under bats, kube-sims are forked by one zygote per run that has
# imported kube-sim once (apiserver/kubesim/zygote.py): a start costs a
# fork, not a Python start and its imports.  Its port and token are in
# this file; it ends when bats removes the run's folder.
SIM_ZYGOTE=${BATS_RUN_TMPDIR:+$BATS_RUN_TMPDIR/kube-sim-zygote}

# kube-sim ARGS forked by the zygote, its output in $SIM_DIR/log, its
# life bound to this shell's (KUBESIM_PARENT): SIM_PID, or false when no
# zygote answers.  The request goes through bash's /dev/tcp, with every
# exported variable as the child's environment.
_sim_fork() {
	local port token fd name
	[[ -n $SIM_ZYGOTE ]] || return 1
	[[ -s $SIM_ZYGOTE ]] ||
		python3 -S "$SIM_HELPER_DIR/apiserver/kube-sim-fork" --start "$SIM_ZYGOTE" 3>&- || return 1
	read -r port token <"$SIM_ZYGOTE" || return 1
	# (a zygote gone leaves its file: the next start makes another)
	{ exec {fd}<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || { rm -f "$SIM_ZYGOTE"; return 1; }
	{
		printf '%s\0' "$token" "$BASHPID" "$PWD" "$SIM_DIR/log" "$#" "$@"
		for name in $(compgen -e); do
			printf '%s=%s\0' "$name" "${!name}"
		done
		printf '\0'
	} >&"$fd"
	SIM_PID=
	read -r SIM_PID <&"$fd" || true
	exec {fd}>&-
	[[ $SIM_PID =~ ^[0-9]+$ ]]
}

# starts kube-sim on $SIM_KUBECONFIG and waits until it is ready: the
# kubeconfig is there and the log says it serves (the kubeconfig of a
# previous run may be there already)
_sim_run() {
	if ! _sim_fork --kubeconfig "$SIM_KUBECONFIG" "$@"; then
		"$SIM_BIN" --kubeconfig "$SIM_KUBECONFIG" "$@" >"$SIM_DIR/log" 2>&1 3>&- &
		SIM_PID=$!
	fi
	export SIM_DIR SIM_KUBECONFIG SIM_PID
	local i ready=""
	for ((i = 0; i < 1000; i++)); do
		if [[ -s "$SIM_KUBECONFIG" && -f "$SIM_DIR/log" && $'\n'$(<"$SIM_DIR/log") == *$'\nkube-sim: serving'* ]]; then
			ready=1
			break
		fi
		if ! kill -0 "$SIM_PID" 2>/dev/null; then
			break
		fi
		sleep 0.02
	done
	if [[ -z "$ready" ]]; then
		echo "# kube-sim did not come up; its log:" >&2
		sed 's/^/# /' "$SIM_DIR/log" >&2
		sim_stop
		return 1
	fi
	SIM_CONTROL="$(head -n1 "$SIM_KUBECONFIG.control")"
	SIM_API="$(sed -n 's/^ *server: //p' "$SIM_KUBECONFIG" | head -n1)"
	SIM_TOKEN="$(sed -n 's/^ *token: //p' "$SIM_KUBECONFIG" | head -n1)"
	SIM_VIEWER_TOKEN="$(sed -n 's/^ *token: //p' "$SIM_KUBECONFIG.viewer" | head -n1)"
	SIM_CACERT="$SIM_KUBECONFIG.ca.crt"
	[[ -e "$SIM_CACERT" ]] || SIM_CACERT=""
	export SIM_CONTROL SIM_API SIM_TOKEN SIM_VIEWER_TOKEN SIM_CACERT
}

sim_stop() {
	local pid="${SIM_PID:-}"
	[[ -n "$pid" ]] || return 0
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		local i
		for ((i = 0; i < 50; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || true
	SIM_PID=""
	return 0
}

simctl() {
	local method="$1" path="$2" data="${3:-}"
	local out code
	local args=(-sS -X "$method" -w '\n%{http_code}')
	if [[ -n "$data" ]]; then
		args+=(-H 'Content-Type: application/json' --data-binary "$data")
	fi
	out="$(curl "${args[@]}" "$SIM_CONTROL$path")" || {
		echo "simctl: curl failed for $method $path" >&2
		return 1
	}
	code="${out##*$'\n'}"
	out="${out%$'\n'*}"
	printf '%s\n' "$out"
	if [[ "$code" != 2?? ]]; then
		echo "simctl: $method $path answered $code" >&2
		return 1
	fi
}

sim_oracle() {
	simctl GET "/oracle?resource=$1"
}

simcurl() {
	local args=(-sS -H "Authorization: Bearer $SIM_TOKEN")
	[[ -n "$SIM_CACERT" ]] && args+=(--cacert "$SIM_CACERT")
	local last="${*: -1}"
	local rest=("${@:1:$#-1}")
	curl "${args[@]}" "${rest[@]}" "$SIM_API$last"
}
