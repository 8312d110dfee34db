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
 *   `K`                             killed (SIGKILL, or a signal it does not handle) while the
 *                                   parent that started it ran, from the watcher below
 * What the harness sends back is the server's stdout, byte for byte; when the harness closes
 * the socket, the relay exits 0 (as the mock does once its session ends).
 *
 * A killed process says nothing, so a forked watcher, holding none of the client's pipes, waits
 * on a pipe the relay writes to only as it exits (END, keeping its exit status): an end of that
 * pipe with nothing in it is the relay killed. Exiting, the relay reaps the watcher (waiting a
 * second at most), so no zombie is left to an init that may not reap. The watcher says `K` only
 * if the parent still runs (not a zombie), and only a kill of the relay alone leaves it alive to
 * say it: wirecheck kills the client's whole group, relay and watcher together, and only once
 * the client exited or its case ran out. A client that kills its server first (Go's
 * exec.CommandContext, Rust's Child::kill) is then told from one that closed stdin first, which
 * MCP asks for (the shutdown-order check). A client that exits the moment its server dies may
 * be gone before the watcher looks: that kill goes unsaid, never blamed on the client wrongly.
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
  'sub alive{my $p=shift;return 0 if $p<2;',
  'if(open(my $f,"<","/proc/$p/stat")){my $s=<$f>;return defined $s&&$s=~/.*\\) (\\S)/s&&$1 ne "Z"&&$1 ne "X"}',
  'return kill(0,$p)||$!==1}',
  'sub out{my $b=shift;while(length $b){bye() if defined $term;my $n=syswrite(STDOUT,$b);if(!defined $n){next if again();exit 1}substr($b,0,$n)=""}}',
  'put("H$tok");',
  'my $w;if(pipe(WR,WW)){$w=fork();if(defined $w&&$w==0){close WW;close STDIN;close STDOUT;close STDERR;$SIG{TERM}="DEFAULT";',
  'my $got;do{$got=sysread(WR,my $b,1)}while(!defined $got&&again());',
  'exit 0 unless defined $got&&$got==0&&alive($pp);put("K");exit 0}close WR}',
  'END{local $?;if($w){syswrite(WW,"x");close WW;for(1..100){last if waitpid($w,1)!=0;select(undef,undef,undef,0.01)}}}',
  'my $in=1;',
  'for(;;){bye() if defined $term;my $r="";vec($r,fileno(S),1)=1;vec($r,0,1)=1 if $in;',
  'my $n=select(my $ready=$r,undef,undef,undef);if($n<0){next if again();exit 1}',
  'if($in&&vec($ready,0,1)){my $got=sysread(STDIN,my $b,65536);',
  'if(!defined $got){next if again();$got=0}',
  'if($got==0){$in=0;put("E")}else{put("D".pack("N",$got).$b)}}',
  'if(vec($ready,fileno(S),1)){my $got=sysread(S,my $b,65536);',
  'if(!defined $got){next if again();exit 1}exit 0 if $got==0;out($b)}}',
].join('');
