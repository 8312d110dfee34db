import { lstat, mkdir, readlink, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

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

/** The device nodes of the sandbox's /dev, bound from the host's. */
const DEV_NODES = ['null', 'zero', 'full', 'random', 'urandom', 'tty'] as const;

/**
 * Writes, once per runner, the tree every util-linux sandbox's root starts from (`skeleton` in
 * the runner's private directory; its path is returned), so that one
 * `cp -PR` makes it instead of a `mkdir` or `ln` per entry: the mount points, the host's
 * top-level links among the system directories (/bin -> usr/bin) and their directories
 * (the script binds each one that is still a directory on the host), /var/tmp -> ../tmp,
 * and /dev: the device node placeholders, shm, pts and the links fd, stdin, stdout,
 * stderr and ptmx.
 */
export async function writeSandboxSkeleton(privateDir: string): Promise<string> {
  const path = join(privateDir, 'skeleton');
  const dev = join(path, 'dev');
  for (const dir of ['tmp', 'run', 'proc', 'sys', 'var', 'dev/shm', 'dev/pts']) {
    await mkdir(join(path, dir), { recursive: true });
  }
  await symlink('../tmp', join(path, 'var', 'tmp'));
  for (const name of SANDBOX_SYSTEM_DIRS) {
    const info = await lstat(`/${name}`).catch(() => undefined);
    if (info?.isSymbolicLink() === true) await symlink(await readlink(`/${name}`), join(path, name));
    else if (info?.isDirectory() === true) await mkdir(join(path, name));
  }
  for (const node of DEV_NODES) await writeFile(join(dev, node), '');
  await symlink('/proc/self/fd', join(dev, 'fd'));
  for (const [name, fd] of [
    ['stdin', 0],
    ['stdout', 1],
    ['stderr', 2],
  ] as const) {
    await symlink(`/proc/self/fd/${fd}`, join(dev, name));
  }
  await symlink('pts/ptmx', join(dev, 'ptmx'));
  return path;
}

/** `/|/usr|/usr/*|...`: the mount points that end up in the sandbox, as an sh case pattern. */
const SHOWN_MOUNTS = ['/', ...SANDBOX_SYSTEM_DIRS.flatMap((d) => [`/${d}`, `/${d}/*`])].join('|');

/**
 * The sh script that builds the util-linux sandbox. It runs as root as PID 1 of fresh PID,
 * mount, network, IPC and UTS namespaces (unshare, which has made every mount private), and
 * never execs the command, so the command is PID 2 and gets the runner's SIGTERM (PID 1
 * ignores signals it has no handler for). Arguments: script, workdir, skeleton
 * (writeSandboxSkeleton), tmp bytes, /dev/shm bytes, root bytes, uid, gid, setpriv, bash,
 * the number of masked directories, those directories, then the command's environment as
 * NAME=value.
 *
 * The script, the workdir and the skeleton are opened before anything is mounted over
 * them (each may live under /tmp): bash reads the script through /dev/fd/3, the skeleton is
 * copied from /proc/self/fd/6, and the workdir is bound from /proc/self/fd/4
 * (`--no-canonicalize`, else mount would resolve the path anew). The mounts that end up in
 * the sandbox (/ and the system directories) are made read-only first (only those: a
 * remount costs a mount call each); a bind mount keeps that flag,
 * hence the rw remount of the workdir. The new root is a small tmpfs holding only mount
 * points: the system directories (SANDBOX_SYSTEM_DIRS; top-level symbolic links such as
 * /bin -> usr/bin are copied as links), the network namespace's own /sys (read-only), a
 * sized /tmp, an empty /run, a /dev of its own (the usual device nodes bound from the
 * host's, a sized /dev/shm, a new devpts; read-only with the root), the PID namespace's
 * /proc and the workdir (its mount point made by mount itself, `X-mount.mkdir`); then
 * `pivot_root . .` and a lazy unmount of `.`, which stacks the old root on the new one and
 * takes it away, with no directory to make and remove for it (pivot_root(2)). Every tmpfs
 * has a size. Once the command starts, sh's own stderr goes to /dev/null (the command's is
 * set in a subshell), so sh's job reports ("Killed", "Terminated") are not taken for the
 * command's output. The subshell leaves exported only the command's environment (sh
 * exports PATH, PWD and OLDPWD of its own) and execs setpriv, which execs bash.
 *
 * The sandbox is built for every command the runner runs, and starting a program costs
 * milliseconds (4 to 5 ms on a 2-core VM): one `mount`, `mkdir` or `ln` per mount point and
 * link made it 50 programs and 220 ms a command, and `mkdir`, `rmdir` and `env -i` were
 * three of the 19 left (16 now, on a host that shows one mount). So one `cp -PR` copies the skeleton
 * (writeSandboxSkeleton), and one `mount -a` makes every mount that needs nothing but its
 * mount point, from an fstab file the script writes with builtins into the new root's
 * /tmp, where the sandbox's own /tmp, mounted last, hides it (`mount -a` skips `/`, hence
 * the remounts in place one by one). That file holds only fixed names; the workdir and
 * the masked directories, which can be any path, are mounted one by one.
 */
export const UTIL_LINUX_SETUP = `set -eu
script=$1 workdir=$2 skeleton=$3 tmp_bytes=$4 shm_bytes=$5 root_bytes=$6 uid=$7 gid=$8 setpriv=$9 bash=\${10} masked=\${11}
shift 11
exec 3<"$script" 4<"$workdir" 6<"$skeleton"
while read -r _ _ _ _ mp _; do
  case "$mp" in
    ${SHOWN_MOUNTS}) mount -o remount,bind,ro "$(printf '%b' "$mp")" 2>/dev/null || true ;;
  esac
done </proc/self/mountinfo
new=/tmp
mount -t tmpfs -o "size=$root_bytes,mode=755,nosuid,nodev" wirecheck-root "$new"
cp -PR /proc/self/fd/6/. "$new/"
exec 6<&-
entry() { printf '%s\n' "$@"; }
{
  for d in ${SANDBOX_SYSTEM_DIRS.join(' ')}; do
    if [ ! -L "/$d" ] && [ -d "/$d" ]; then
      [ -d "$new/$d" ] || mkdir "$new/$d"
      entry "/$d $new/$d none rbind 0 0"
    fi
  done
  entry "sysfs $new/sys sysfs ro,nosuid,nodev,noexec 0 0" \
    "tmpfs $new/run tmpfs size=1m,mode=755,nosuid,nodev 0 0" \
    "proc $new/proc proc nosuid,nodev,noexec 0 0"
  for node in ${DEV_NODES.join(' ')}; do entry "/dev/$node $new/dev/$node none bind 0 0"; done
  entry "tmpfs $new/dev/shm tmpfs size=$shm_bytes,mode=1777,nosuid,nodev 0 0" \
    "tmpfs $new/tmp tmpfs size=$tmp_bytes,mode=1777,nosuid,nodev 0 0"
} >"$new/tmp/sandbox.fstab"
mount -a -T "$new/tmp/sandbox.fstab"
mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$new/dev/pts" 2>/dev/null || rm "$new/dev/ptmx"
while [ "$masked" -gt 0 ]; do
  if [ "$1" != /run ] && [ -d "$new$1" ] && [ ! -L "$new$1" ]; then
    mount -t tmpfs -o size=1m,mode=755,nosuid,nodev tmpfs "$new$1"
  fi
  shift
  masked=$((masked - 1))
done
mount --no-canonicalize --bind -o X-mount.mkdir /proc/self/fd/4 "$new$workdir"
mount -o remount,bind,rw "$new$workdir"
exec 4<&-
cd "$new"
pivot_root . .
umount -l .
mount -o remount,bind,ro /
cd "$workdir"
set +e
exec 5>&2 2>/dev/null
(
  exec 2>&5 5>&-
  unset PATH PWD OLDPWD
  [ "$#" -eq 0 ] || export "$@"
  exec "$setpriv" --reuid="$uid" --regid="$gid" --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all -- "$bash" --norc --noprofile /dev/fd/3
)
exit $?
`;
