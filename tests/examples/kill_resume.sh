#!/usr/bin/env bash
# A run killed with SIGKILL (the whole job: mpiexec and every rank) between checkpoints resumes
# from its last complete checkpoint on another rank count and partition, and ends bitwise where
# an uninterrupted run ends.
#   kill_resume.sh MPIEXEC CHECKPOINT_DEMO DIR EXT [MPIEXEC ARGS...]   (EXT: h5 or ck)
set -u
mpiexec=$1 demo=$2 dir=$3 ext=$4
shift 4
rm -rf "$dir" && mkdir -p "$dir" || exit 1
args=(-n 96 -i 1500 -c 100)
fail() { echo "kill_resume: $*"; exit 1; }

# The uninterrupted reference, 2 ranks in bands.
"$mpiexec" "$@" -n 2 "$demo" "${args[@]}" -f "$dir/ref.$ext" -o "$dir/ref.sten" >/dev/null ||
    fail "the reference run failed"

# 2 ranks in blocks, slowed down (every update computed 1000 times, same result: about 5 ms an
# iteration here: the first checkpoint after about 0.5 s, the end after 7), killed once a
# checkpoint exists, in its own process group so that the kill takes the whole job.
STENCIL_HOST_REPEAT=1000 setsid "$mpiexec" "$@" -n 2 "$demo" "${args[@]}" -p blocks \
    -f "$dir/run.$ext" -o "$dir/run.sten" >"$dir/killed.log" 2>&1 &
job=$!
for _ in $(seq 1200); do [ -e "$dir/run.$ext" ] && break; sleep 0.05; done
[ -e "$dir/run.$ext" ] || { kill -KILL -- -"$job"; fail "no checkpoint appeared"; }
sleep 0.3
kill -KILL -- -"$job"
wait "$job" 2>/dev/null
for _ in $(seq 100); do pgrep -g "$job" >/dev/null || break; sleep 0.05; done
[ -e "$dir/run.sten" ] && fail "the run ended before the kill: nothing was tested"
echo "kill_resume: killed; checkpoint files: $(cd "$dir" && ls run.* | tr '\n' ' ')"

# The same command again, on 1 rank: resumes from the last complete checkpoint.
out=$("$mpiexec" "$@" -n 1 "$demo" "${args[@]}" -f "$dir/run.$ext" -o "$dir/run.sten") ||
    fail "the resumed run failed"
echo "$out"
echo "$out" | grep -q "resumed from the checkpoint" || fail "the run did not resume"
cmp "$dir/ref.sten" "$dir/run.sten" || fail "the resumed run's array differs"
echo "kill_resume: resumed run bitwise equal to the uninterrupted one"
