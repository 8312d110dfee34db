# wirecheck's warm relay: the per-case process of a target whose real work runs in a long-running
# server (docs/warm-targets.md). Usage, as the target command of a suite:
#   perl /path/to/wirecheck/bin/warm-relay.pl SOCKET
# It connects to the Unix socket SOCKET and sends its whole environment, then its stdin as it
# arrives; it writes what the server sends to its stdout and stderr, and exits with the status
# the server names. Frames both ways: one type byte, a 32-bit big-endian length, the payload.
#   to the server:   E environment (NAME=value, NUL-separated), once, first
#                    I bytes read from stdin        Z stdin ended (empty)
#   from the server: O bytes for stdout   R bytes for stderr   X exit status (decimal)
# A relay that cannot reach the server, or loses it before the exit status, says so on stderr
# and exits 111. SIGTERM ends it with 143; the server sees the connection close and stops the
# case. No module is loaded but strict, not even Socket (perl starts in a few milliseconds); the numbers are
# Linux's: AF_UNIX 1, SOCK_STREAM 1, EINTR 4, EAGAIN 11.
use strict;
$SIG{PIPE} = 'IGNORE';
$SIG{TERM} = sub { exit 143 };
sub quit { print STDERR "warm-relay: $_[0]\n"; exit 111 }
my $path = shift @ARGV;
quit('usage: perl warm-relay.pl SOCKET') unless defined $path && length $path;
socket(S, 1, 1, 0) or quit("no Unix socket: $!");
connect(S, pack('S Z108', 1, $path)) or quit("cannot connect to $path: $!");
sub again { return $! == 4 || $! == 11 }
sub put {
  my ($fh, $bytes) = @_;
  while (length $bytes) {
    my $n = syswrite($fh, $bytes);
    if (!defined $n) { next if again(); quit("write failed: $!") }
    substr($bytes, 0, $n) = '';
  }
}
sub frame { put(\*S, $_[0] . pack('N', length $_[1]) . $_[1]) }
frame('E', join("\0", map { "$_=$ENV{$_}" } sort keys %ENV));
my $in = 1;
my $got_buffer = '';
for (;;) {
  my $want = '';
  vec($want, fileno(S), 1) = 1;
  vec($want, 0, 1) = 1 if $in;
  my $n = select(my $ready = $want, undef, undef, undef);
  if ($n < 0) { next if again(); quit("select failed: $!") }
  if ($in && vec($ready, 0, 1)) {
    my $got = sysread(STDIN, my $bytes, 65536);
    if (!defined $got) { next if again(); $got = 0 }
    if ($got == 0) { $in = 0; frame('Z', '') } else { frame('I', $bytes) }
  }
  if (vec($ready, fileno(S), 1)) {
    my $got = sysread(S, my $bytes, 65536);
    if (!defined $got) { next if again(); quit("read failed: $!") }
    quit('the server closed the connection before an exit status') if $got == 0;
    $got_buffer .= $bytes;
    while (length($got_buffer) >= 5) {
      my ($type, $length) = unpack('a N', $got_buffer);
      last if length($got_buffer) < 5 + $length;
      my $payload = substr($got_buffer, 5, $length);
      substr($got_buffer, 0, 5 + $length) = '';
      if ($type eq 'O') { put(\*STDOUT, $payload) }
      elsif ($type eq 'R') { put(\*STDERR, $payload) }
      elsif ($type eq 'X') { exit(($payload =~ /^\d+$/ ? $payload : 111) & 255) }
      else { quit("unknown frame type from the server: $type") }
    }
  }
}
