/**
 * Top-level host directories the util-linux sandbox shows (read-only), where they exist:
 * programs and their libraries and settings. Nothing else of the host is there: no /run,
 * /var, /home, /root, /srv, /mnt or /tmp, so no Unix socket of the host (a read-only
 * mount does not stop a connect) is within reach.
 */
export const SANDBOX_SYSTEM_DIRS = [
  'usr',
  'bin',
  'sbin',
  'lib',
  'lib32',
  'lib64',
  'libx32',
  'etc',
  'opt',
  'nix',
] as const;

/** `/|/usr|/usr/*|...`: the mount points that end up in the sandbox, as an sh case pattern. */
const SHOWN_MOUNTS = ['/', ...SANDBOX_SYSTEM_DIRS.flatMap((d) => [`/${d}`, `/${d}/*`])].join('|');

/**
 * The sh script that builds the util-linux sandbox. It runs as root as PID 1 of fresh PID,
 * mount, network, IPC and UTS namespaces (unshare), and never execs the command, so the
 * command is PID 2 and gets the runner's SIGTERM (PID 1 ignores signals it has no handler
 * for). Arguments: script, workdir, tmp bytes, /dev/shm bytes, root bytes, uid, gid,
 * setpriv, bash, the number of masked directories, those directories, then the command's
 * environment as NAME=value.
 *
 * The script and the workdir are opened before anything is mounted over them (either may
 * live under /tmp): bash reads the script through /dev/fd/3, and the workdir is bound from
 * /proc/self/fd/4 (`--no-canonicalize`, else mount would resolve the path anew). The
 * mounts that end up in the sandbox (/ and the system directories) are made read-only
 * first (only those: a remount costs a mount call each); a bind mount keeps that flag,
 * hence the rw remount of the workdir. The new root is a small tmpfs holding only mount
 * points: the system directories (SANDBOX_SYSTEM_DIRS; top-level symbolic links such as
 * /bin -> usr/bin are copied as links), the network namespace's own /sys (read-only), a
 * sized /tmp, an empty /run, a /dev of its own (the usual device nodes, a sized /dev/shm,
 * a new devpts; read-only itself), the PID namespace's /proc and the workdir; then
 * pivot_root, and the old root is gone. Every tmpfs has a size. Once the command starts,
 * sh's own stderr goes to /dev/null (the command's is set in a subshell), so sh's job
 * reports ("Killed", "Terminated") are not taken for the command's output.
 */
export const UTIL_LINUX_SETUP = `set -eu
script=$1 workdir=$2 tmp_bytes=$3 shm_bytes=$4 root_bytes=$5 uid=$6 gid=$7 setpriv=$8 bash=$9 masked=\${10}
shift 10
exec 3<"$script" 4<"$workdir"
mount --make-rprivate /
for mp in $(cut -d' ' -f5 /proc/self/mountinfo); do
  case "$mp" in
    ${SHOWN_MOUNTS}) mount -o remount,bind,ro "$(printf '%b' "$mp")" 2>/dev/null || true ;;
  esac
done
new=/tmp
mount -t tmpfs -o "size=$root_bytes,mode=755,nosuid,nodev" wirecheck-root "$new"
for d in ${SANDBOX_SYSTEM_DIRS.join(' ')}; do
  if [ -L "/$d" ]; then
    ln -s "$(readlink "/$d")" "$new/$d"
  elif [ -d "/$d" ]; then
    mkdir "$new/$d"
    mount --rbind "/$d" "$new/$d"
  fi
done
mkdir -p "$new/tmp" "$new/run" "$new/dev" "$new/proc" "$new/sys" "$new/var"
mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$new/sys"
mount -t tmpfs -o "size=$tmp_bytes,mode=1777,nosuid,nodev" tmpfs "$new/tmp"
mount -t tmpfs -o size=1m,mode=755,nosuid,nodev tmpfs "$new/run"
ln -s ../tmp "$new/var/tmp"
mount -t tmpfs -o "size=$root_bytes,mode=755,nosuid,noexec" tmpfs "$new/dev"
for node in null zero full random urandom tty; do
  : > "$new/dev/$node"
  mount --bind "/dev/$node" "$new/dev/$node"
done
ln -s /proc/self/fd "$new/dev/fd"
ln -s /proc/self/fd/0 "$new/dev/stdin"
ln -s /proc/self/fd/1 "$new/dev/stdout"
ln -s /proc/self/fd/2 "$new/dev/stderr"
mkdir "$new/dev/shm" "$new/dev/pts"
mount -t tmpfs -o "size=$shm_bytes,mode=1777,nosuid,nodev" tmpfs "$new/dev/shm"
if mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$new/dev/pts" 2>/dev/null; then
  ln -s pts/ptmx "$new/dev/ptmx"
fi
mount -o remount,bind,ro "$new/dev"
mount -t proc -o nosuid,nodev,noexec proc "$new/proc"
while [ "$masked" -gt 0 ]; do
  if [ -d "$new$1" ] && [ ! -L "$new$1" ]; then
    mount -t tmpfs -o size=1m,mode=755,nosuid,nodev tmpfs "$new$1"
  fi
  shift
  masked=$((masked - 1))
done
mkdir -p "$new$workdir"
mount --no-canonicalize --bind /proc/self/fd/4 "$new$workdir"
mount -o remount,bind,rw "$new$workdir"
exec 4<&-
cd "$new"
mkdir .old
pivot_root . .old
umount -l /.old
rmdir /.old
mount -o remount,bind,ro /
cd "$workdir"
set +e
exec 5>&2 2>/dev/null
(
  exec 2>&5 5>&-
  exec "$setpriv" --reuid="$uid" --regid="$gid" --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all -- env -i "$@" "$bash" --norc --noprofile /dev/fd/3
)
exit $?
`;
