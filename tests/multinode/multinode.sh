#!/bin/bash
# Several "nodes" on one machine, for real MPI runs across a network (suite 'multinode').
#
#   multinode.sh cases PROG [ARGS...]   2 nodes x 2 ranks run PROG; its exit status is ours
#   multinode.sh fault PROG [ARGS...]   the same, and node 2's link goes down mid-run: the job
#                                       must fail and end by mpiexec's time limit (MPIEXEC_TIMEOUT)
#
# Each node is a network namespace with its own hostname (a UTS namespace per launch), its own
# boot id (UCX's idea of "the same machine") and a veth into a bridge in a hub namespace, where
# mpiexec runs; addresses are 198.18.0.0/24 (the benchmark-testing range) on those interfaces
# only. MPICH's hydra starts its proxies through launch.sh, used as ssh would be. Node identity
# agrees everywhere: hydra's node of a rank is its host entry (one proxy per host, which is what
# MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) follows), and MPI_Get_processor_name() is the UTS
# hostname of that host's namespace.
#
# Per node (NODE_NAMES, NODE_DEVS): the hostname and how many PoCL CPU devices OpenCL sees.
# Needs root, ip (iproute2), unshare/nsenter (util-linux) and MPICH's hydra; exits 77 (meson:
# SKIP) with the reason when any of that is missing or the kernel refuses namespaces. Removes
# its namespaces on every exit path; every mpiexec runs under timeout.
set -u
mode=${1:-}
shift || true
[ "$mode" = cases ] || [ "$mode" = fault ] || {
    echo "usage: $0 cases|fault PROG [ARGS...]" >&2
    exit 2
}
JOB_TIMEOUT=${MULTINODE_TIMEOUT:-240} # seconds for one whole mpiexec
FAULT_AFTER=${FAULT_AFTER:-4}         # seconds of running before the link goes down
NODE_NAMES=(amd01 nv01)
NODE_DEVS=(2 3)
PPN=2

skip() {
    echo "SKIP: $*"
    exit 77
}
[ "$(id -u)" = 0 ] || skip "needs root to create network namespaces"
for c in ip unshare mount mpiexec hydra_pmi_proxy timeout; do
    command -v $c >/dev/null || skip "'$c' not found"
done
mpiexec -info 2>/dev/null | grep -q HYDRA || skip "mpiexec is not MPICH's hydra"

tag=mn$$ # names unique to this run: several harnesses may run at once
work=$(mktemp -d "${TMPDIR:-/tmp}/multinode.XXXXXX") || exit 1
nss=()
cleanup() {
    local ns p
    for ns in "${nss[@]}"; do # processes left in our namespaces (a killed job's proxies)
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
    done
    for ns in "${nss[@]}"; do ip netns del "$ns" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' INT TERM HUP

# Namespaces of earlier runs that were killed before their cleanup (SIGKILL): their process is
# gone and nothing runs in them.
for ns in $(ip netns list 2>/dev/null | grep -oE '^mn[0-9]+-(hub|n[0-9]+)'); do
    pid=${ns%%-*}
    pid=${pid#mn}
    [ -d "/proc/$pid" ] || [ -n "$(ip netns pids "$ns" 2>/dev/null)" ] || ip netns del "$ns"
done

hub=$tag-hub
ip netns add "$hub" 2>"$work/err" || skip "cannot create a network namespace: $(cat "$work/err")"
nss+=("$hub")
set -e
ip -n "$hub" link set lo up
ip -n "$hub" link add br0 type bridge
ip -n "$hub" addr add 198.18.0.1/24 dev br0
ip -n "$hub" link set br0 up
hosts=$work/hosts
: >"$hosts"
for i in "${!NODE_NAMES[@]}"; do
    ns=$tag-n$i addr=198.18.0.$((11 + i))
    ip netns add "$ns"
    nss+=("$ns")
    ip -n "$hub" link add "v$i" type veth peer name eth0 netns "$ns"
    ip -n "$hub" link set "v$i" master br0 up
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "$addr/24" dev eth0
    ip -n "$ns" link set eth0 up
    cat /proc/sys/kernel/random/uuid >"$work/boot_id.$i"
    echo "$addr:$PPN" >>"$hosts"
done
set +e

# The launcher: "launch.sh [ssh options] HOST COMMAND", run by mpiexec in the hub namespace.
cat >"$work/launch.sh" <<EOF
#!/bin/sh
while [ "\${1#-}" != "\$1" ]; do shift; done
host=\$1
shift
i=\$((\${host##*.} - 11))
names="${NODE_NAMES[*]}" devs="${NODE_DEVS[*]}"
set -- "\$(echo \$names | cut -d' ' -f\$((i + 1)))" "\$(echo \$devs | cut -d' ' -f\$((i + 1)))" \\
    "$work/boot_id.\$i" "\$*"
[ -n "\$1" ] || { echo "launch.sh: unknown host \$host" >&2; exit 255; }
pocl=\$(yes pthread | head -n "\$2" | tr '\n' ' ')
exec ip netns exec "$tag-n\$i" unshare --uts --mount env POCL_DEVICES="\$pocl" sh -c \\
    'hostname "\$1" && mount --bind "\$3" /proc/sys/kernel/random/boot_id && exec sh -c "\$4"' \\
    sh "\$@"
EOF
chmod +x "$work/launch.sh"

# First the plumbing alone: a node's launcher must see its own hostname and boot id.
probe=$(ip netns exec "$hub" timeout 20 "$work/launch.sh" 198.18.0.11 \
    'echo $(hostname) $(cat /proc/sys/kernel/random/boot_id)' 2>&1)
[ "$probe" = "${NODE_NAMES[0]} $(cat "$work/boot_id.0")" ] ||
    skip "no UTS/mount namespace or boot id bind mount here: $probe"

run_job() { # mpiexec in the hub namespace, bounded; output to $work/job.out
    ip netns exec "$hub" timeout -k 10 "$1" mpiexec -launcher ssh \
        -launcher-exec "$work/launch.sh" -f "$hosts" -localhost 198.18.0.1 \
        -n $((PPN * ${#NODE_NAMES[@]})) "${@:2}" >"$work/job.out" 2>&1
}

unset POCL_DEVICES # mpiexec would pass its own to every node
export STENCIL_MULTINODE_DEVS="${NODE_NAMES[*]}:${NODE_DEVS[*]}"
echo "nodes: ${NODE_NAMES[*]} ($PPN ranks each), PoCL devices ${NODE_DEVS[*]}"
if [ "$mode" = cases ]; then
    run_job "$JOB_TIMEOUT" "$@"
    rc=$?
    cat "$work/job.out"
    [ $rc = 124 ] || [ $rc = 137 ] && echo "FAIL: the job ran past ${JOB_TIMEOUT}s"
    exit $rc
fi

# fault: node 2 loses its link while the job runs (about 20 s of runs without a fault). Neither
# UCX over TCP nor hydra notices a silent peer by itself: the ranks wait in MPI_Waitall and
# mpiexec on the lost proxy. Hydra's job time limit, MPIEXEC_TIMEOUT, ends it, and says so.
export MPIEXEC_TIMEOUT=${MPIEXEC_TIMEOUT:-45}
export STENCIL_MULTINODE_STARTED=$work/started
t_start=$(date +%s)
run_job $((MPIEXEC_TIMEOUT + 30)) "$@" &
job=$!
for _ in $(seq 1 600); do # the job's first run is over (at most 60 s of waiting)
    [ -e "$work/started" ] || ! kill -0 $job 2>/dev/null && break
    sleep 0.1
done
[ -e "$work/started" ] || {
    wait $job
    cat "$work/job.out"
    echo "FAIL: the job did not start"
    exit 1
}
sleep "$FAULT_AFTER"
ip -n "$tag-n1" link set eth0 down
echo "fault: ${NODE_NAMES[1]}'s eth0 down at $(date +%T), $(($(date +%s) - t_start)) s into the job"
wait $job
rc=$?
t=$(($(date +%s) - t_start))
cat "$work/job.out"
echo "fault: mpiexec returned $rc after ${t} s (MPIEXEC_TIMEOUT=$MPIEXEC_TIMEOUT)"
if [ $rc = 0 ]; then
    echo "FAIL: the job went on as if nothing happened"
    exit 1
fi
if [ $rc = 124 ] || [ $rc = 137 ] || [ $t -gt $((MPIEXEC_TIMEOUT + 15)) ]; then
    echo "FAIL: mpiexec did not end the job by its time limit"
    exit 1
fi
echo "PASS: the job failed and mpiexec ended it ${t} s after it started"
