/**
 * The sh script that builds the util-linux sandbox. It runs as root as PID 1 of fresh PID,
 * mount, network, IPC and UTS namespaces (unshare), and never execs the command, so the
 * command is PID 2 and gets the runner's SIGTERM (PID 1 ignores signals it has no handler
 * for). Arguments: script, workdir, tmp bytes, uid, gid, setpriv, bash, the number of
 * masked directories, those directories, then the command's environment as NAME=value.
 *
 * The script and the workdir are opened before /tmp is covered (either may live under it):
 * bash reads the script through /dev/fd/3, and the workdir is bound from /proc/self/fd/4
 * (`--no-canonicalize`, else mount would resolve the path into the new /tmp). A bind mount
 * keeps the read-only flag of the mount it comes from, hence the rw remount. Once the
 * command starts, sh's own stderr goes to /dev/null (the command's is set in a subshell),
 * so sh's job reports ("Killed", "Terminated") are not taken for the command's output.
 */
export const UTIL_LINUX_SETUP = `set -eu
script=$1 workdir=$2 tmp_bytes=$3 uid=$4 gid=$5 setpriv=$6 bash=$7 masked=$8
shift 8
exec 3<"$script" 4<"$workdir"
mount --make-rprivate /
for mp in $(cut -d' ' -f5 /proc/self/mountinfo); do
  mount -o remount,bind,ro "$(printf '%b' "$mp")" 2>/dev/null || true
done
mount -t tmpfs -o "size=$tmp_bytes,mode=1777,nosuid,nodev" tmpfs /tmp
while [ "$masked" -gt 0 ]; do
  mount -t tmpfs -o size=1m,mode=755,nosuid,nodev tmpfs "$1"
  shift
  masked=$((masked - 1))
done
mkdir -p "$workdir"
mount --no-canonicalize --bind /proc/self/fd/4 "$workdir"
mount -o remount,bind,rw "$workdir"
exec 4<&-
cd "$workdir"
set +e
exec 5>&2 2>/dev/null
(
  exec 2>&5 5>&-
  exec "$setpriv" --reuid="$uid" --regid="$gid" --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all -- env -i "$@" "$bash" --norc --noprofile /dev/fd/3
)
exit $?
`;
