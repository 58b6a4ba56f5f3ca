# SPDX-License-Identifier: GPL-2.0
#
# bash completion for the smc-r tools: smcctl, smc_run, smc_bpf and
# smc_tcpopt.  make install puts one copy per command name in
# share/bash-completion/completions/, where bash-completion loads it the
# first time that command is completed.

# _smc_r_netdevs, _smc_r_ibdevs: the host's network and RDMA devices
_smc_r_netdevs() {
	local d
	for d in /sys/class/net/*; do [ -e "$d" ] && printf '%s\n' "${d##*/}"; done
}

_smc_r_ibdevs() {
	local d
	for d in /sys/class/infiniband/*; do [ -e "$d" ] && printf '%s\n' "${d##*/}"; done
}

# systemd's service units, for smc_bpf --unit (none without systemctl)
_smc_r_services() {
	command -v systemctl >/dev/null || return 0
	systemctl list-unit-files --type=service --no-legend 2>/dev/null |
		awk '$1 !~ /@/ {print $1}'
}

_smcctl() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local cmd="" i words

	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	case $prev in
	--netdev | --eth)
		mapfile -t COMPREPLY < <(compgen -W "$(_smc_r_netdevs)" -- "$cur")
		return ;;
	--ibdev | --ib)
		mapfile -t COMPREPLY < <(compgen -W "$(_smc_r_ibdevs)" -- "$cur")
		return ;;
	--lgr | --port | -t) return ;;
	esac
	case $cmd in
	"") words="info stats fallback connections devices linkgroups links
		reasons check debug-bundle ueid pnet apply -j --json -h --help -V --version" ;;
	stats) words="show reset -d -a" ;;
	fallback) words="-a" ;;
	connections) words="-l --netdev --ibdev --lgr" ;;
	devices) words="--netdev --ibdev" ;;
	linkgroups | links) words="--netdev --ibdev --lgr" ;;
	check) words="-6 -t --server" ;;
	debug-bundle)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return ;;
	ueid) words="add del flush show" ;;
	pnet) words="add del flush show --eth --ib --port" ;;
	apply)
		mapfile -t COMPREPLY < <(compgen -W "-n" -- "$cur"; compgen -f -- "$cur")
		return ;;
	*) return ;;
	esac
	mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}

_smc_run() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local i

	case $prev in
	-p | -a | -r | -t) return ;;
	esac
	# after the options: the program and its own completion
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-p | -a | -r | -t) ((i++)) ;;
		-*) ;;
		*)
			if declare -F _command_offset >/dev/null; then
				_command_offset "$i"
			fi
			return ;;
		esac
	done
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "-d -n -p -a -r -t -v -h" -- "$cur")
	else
		mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
	fi
}

_smc_bpf() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local cmd="" i words

	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		attach | detach | refresh | status) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	case $prev in
	--cgroup)
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		return ;;
	--unit)
		mapfile -t COMPREPLY < <(compgen -W "$(_smc_r_services)" -- "$cur")
		return ;;
	--ports | --addr) return ;;
	esac
	case $cmd in
	"") words="-v attach detach refresh status" ;;
	attach) words="--cgroup --unit --runtime --ports --addr --force" ;;
	refresh) words="--ports --addr --force $(_smc_r_services)" ;;
	detach) words="--cgroup --unit" ;;
	status) words="--json" ;;
	*) return ;;
	esac
	mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}

_smc_tcpopt() {
	local cur=${COMP_WORDS[COMP_CWORD]} i

	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		attach | detach | status) return ;;
		esac
	done
	mapfile -t COMPREPLY < <(compgen -W "-v attach detach status" -- "$cur")
}

complete -F _smcctl smcctl
complete -F _smc_run smc_run
complete -F _smc_bpf smc_bpf
complete -F _smc_tcpopt smc_tcpopt
