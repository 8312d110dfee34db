/**
 * The program a client under test starts as its stdio server when the mock runs inside the
 * harness (stdio-relay.ts): `perl -e STDIO_RELAY_SCRIPT SOCKET TOKEN`. Perl, because a stdio
 * server is a process of the client's, one per case, and perl starts in about a tenth of the
 * CPU of Node.js with the mock's modules; it ships in every Debian and Ubuntu base image
 * (perl-base is Essential) and the relay uses no module at all, not even Socket. Where there is
 * no perl the suite starts the mock itself (stdio-process.ts).
 *
 * It connects to the harness's Unix socket SOCKET and frames what it reads, so that a stdin
 * that ended, a SIGTERM and a relay that was killed are told apart, as the mock's own process
 * would journal them:
 *   `H` + TOKEN (32 hex digits)     once, first
 *   `D` + length (u32 BE) + bytes   read from stdin
 *   `E`                             stdin ended
 *   `T1` / `T0`                     SIGTERM while the parent that started it ran / after it exited
 * What the harness sends back is the server's stdout, byte for byte; when the harness closes
 * the socket, the relay exits 0 (as the mock does once its session ends). Killed otherwise, it
 * sends nothing more: the session ends with no word of its end, as a killed process's does.
 *
 * Signals are deferred by perl to the next op, and a blocked read or write returns EINTR (perl
 * installs handlers without SA_RESTART), so the SIGTERM frame goes out between frames, never
 * inside one. Numbers are Linux's: AF_UNIX 1, SOCK_STREAM 1, EINTR 4, EAGAIN 11.
 */
export const STDIO_RELAY_SCRIPT = [
  '$SIG{PIPE}="IGNORE";my($path,$tok)=@ARGV;my $pp=getppid();my $term;',
  '$SIG{TERM}=sub{$term="T".(getppid()==$pp?1:0)};',
  'socket(S,1,1,0) or exit 2;connect(S,pack("S Z108",1,$path)) or exit 2;',
  'sub again{return $!==4||$!==11}',
  'sub put{my $b=shift;while(length $b){my $n=syswrite(S,$b);if(!defined $n){next if again();exit 1}substr($b,0,$n)=""}}',
  'sub bye{put($term);exit 143}',
  'sub out{my $b=shift;while(length $b){bye() if defined $term;my $n=syswrite(STDOUT,$b);if(!defined $n){next if again();exit 1}substr($b,0,$n)=""}}',
  'put("H$tok");my $in=1;',
  'for(;;){bye() if defined $term;my $r="";vec($r,fileno(S),1)=1;vec($r,0,1)=1 if $in;',
  'my $n=select(my $ready=$r,undef,undef,undef);if($n<0){next if again();exit 1}',
  'if($in&&vec($ready,0,1)){my $got=sysread(STDIN,my $b,65536);',
  'if(!defined $got){next if again();$got=0}',
  'if($got==0){$in=0;put("E")}else{put("D".pack("N",$got).$b)}}',
  'if(vec($ready,fileno(S),1)){my $got=sysread(S,my $b,65536);',
  'if(!defined $got){next if again();exit 1}exit 0 if $got==0;out($b)}}',
].join('');
