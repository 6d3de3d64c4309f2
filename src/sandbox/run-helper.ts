/**
 * `coreb-run`, the tiny C program that runs inside every sandbox: it sets the resource limits, runs
 * the command as its child and reports the child's exit status, CPU time and peak memory on a file
 * descriptor (bubblewrap's pid-1 reaper hides these from the judge otherwise). The harness is not
 * dumpable and the program runs under a seccomp filter that forbids ptrace and cross-process memory
 * access, so the program cannot stop, read or forge its harness or the sandbox's pid 1.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CorebError } from '../core/errors.js';

/**
 * C source of the helper. Usage inside the sandbox:
 * `coreb-run CPU_S AS_BYTES NPROC FSIZE_BYTES NOFILE STACK_BYTES STATUS_FD SECRET_FD -- CMD ARGS...`;
 * a limit of 0 leaves that limit unset. Writes `status cpu_us maxrss_kb` to STATUS_FD. With
 * SECRET_FD >= 0, the file open on descriptor 4 (a `program` test's proof token, see
 * sandbox.ts `ProcessSpec.secret`) is moved to SECRET_FD in the program; otherwise descriptor 4 is closed.
 * On the host, before the sandbox starts: `coreb-run --enter UID N FILE_1 .. FILE_N -- CMD ARGS...`
 * writes its pid to each file (the run's `cgroup.procs`, so the whole process tree is accounted from
 * its first instruction), drops to UID (no groups) unless UID < 0, then runs CMD as a child subreaper
 * (below). `coreb-run --reap -- CMD ARGS...` does the last step alone.
 *
 * The subreaper: bubblewrap's outer process exits without waiting for the sandbox's first process,
 * which init then reaps, so the CPU time of everything run in a sandbox (compilers, programs) was
 * charged to nobody: `time coreb exec ...`, a test runner's total or a parent's `RUSAGE_CHILDREN`
 * left it out (4 C++ judge calls: 0.04 s counted of ~1.2 s). The helper marks itself a child
 * subreaper (PR_SET_CHILD_SUBREAPER), dies with its parent (the judge) as bubblewrap does, runs CMD
 * as its child (killed if the helper dies), reaps every
 * process handed to it until none is left, and exits as CMD did, so its own parent's accounting
 * includes the whole sandbox. SIGTERM (the judge stopping a run at a limit) kills the sandbox's
 * processes from the inside out, each while its parent is alive to reap it, and goes on reaping:
 * killed with its sandbox instead (or killing the outer bubblewrap first), the helper left the
 * sandbox's processes to a dying init and a run stopped at the time limit (2 s of CPU) was charged
 * nothing.
 */
export const RUN_HELPER_SOURCE = String.raw`
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <grp.h>
#include <stddef.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static void lim(int res, long long v) {
  if (v <= 0) return;
  struct rlimit r;
  r.rlim_cur = (rlim_t)v;
  r.rlim_max = (rlim_t)v;
  if (res == RLIMIT_CPU) r.rlim_max = (rlim_t)(v + 1);
  setrlimit(res, &r);
}

/*
 * No tracing from the program: ptrace and process_vm_readv/writev fail with EPERM for the program
 * and every descendant (a seccomp filter kept across exec), so it cannot stop, read or forge this
 * harness, the sandbox's pid 1 or another process. Syscalls of another ABI (i386, x32) fail too.
 */
static int deny_tracing(void) {
#if defined(__x86_64__)
#define COREB_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define COREB_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif
#ifdef COREB_AUDIT_ARCH
  struct sock_filter f[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, COREB_AUDIT_ARCH, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#if defined(__x86_64__)
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 3, 0),
#else
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 3, 0),
#endif
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ptrace, 2, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 1, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_writev, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof f[0]), f};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) return -1;
  return 0;
#else
  return -1;
#endif
}

/* Set by SIGTERM (the judge stopping a run at a limit); acted on by the reaping loop. */
static volatile sig_atomic_t stop_requested = 0;

static void on_stop(int sig) {
  (void)sig;
  stop_requested = 1;
}

/* SIGKILLs every process below the children of pid (depth counts from the helper's own child, the
   outer bubblewrap: depth 1 is the sandbox's init, from depth 2 on its processes), leaves first, so
   that each dies with its parent alive to reap it (and its CPU time) as on a normal exit. Returns
   how many were signalled. */
static int kill_below(pid_t pid, int depth) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  DIR *tasks = opendir(path);
  if (tasks == NULL) return 0;
  pid_t kids[512];
  int k = 0;
  struct dirent *t;
  while ((t = readdir(tasks)) != NULL && k < 512) {
    if (t->d_name[0] == '.') continue;
    char file[96];
    snprintf(file, sizeof file, "/proc/%d/task/%s/children", (int)pid, t->d_name);
    FILE *f = fopen(file, "r");
    if (f == NULL) continue;
    int c;
    while (k < 512 && fscanf(f, "%d", &c) == 1) kids[k++] = (pid_t)c;
    fclose(f);
  }
  closedir(tasks);
  int n = 0;
  for (int i = 0; i < k; i++) {
    n += kill_below(kids[i], depth + 1);
    if (depth + 1 >= 2 && kill(kids[i], SIGKILL) == 0) n++;
  }
  return n;
}

/* The judge's stop: the sandbox's processes killed from inside out (bubblewrap then ends as it
   does when its command ends), or, when there are none yet (still starting), the outer bubblewrap. */
static void stop_sandbox(pid_t child) {
  int killed = 0;
  for (int round = 0; round < 20; round++) {
    int n = kill_below(child, 0);
    if (n == 0) break;
    killed += n;
  }
  if (killed == 0) kill(child, SIGKILL);
}

/* Runs cmd as a child and reaps it and everything handed over, then exits as cmd did (see above). */
static int run_reaping(char **cmd) {
  /* Dies with the judge (set after any change of user, which clears it), as bubblewrap does. */
  pid_t judge = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (getppid() != judge) return 129;
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  pid_t child = fork();
  if (child < 0) {
    fprintf(stderr, "coreb-run: cannot fork: %s\n", strerror(errno));
    return 121;
  }
  if (child == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    execvp(cmd[0], cmd);
    fprintf(stderr, "coreb-run: cannot execute %s: %s\n", cmd[0], strerror(errno));
    _exit(127);
  }
  /* No SA_RESTART: the wait below returns EINTR and the stop is made there, outside the handler. */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  /* The sandbox's stdin, stdout, status and proof descriptors are its own: this process holds none open. */
  for (int fd = 0; fd <= 4; fd++)
    if (fd != 2) close(fd);
  int status = 0;
  int main_status = 0;
  for (;;) {
    if (stop_requested == 1) {
      stop_requested = 2;
      stop_sandbox(child);
    }
    pid_t p = waitpid(-1, &status, 0);
    if (p < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (p == child) main_status = status;
  }
  if (WIFSIGNALED(main_status)) {
    signal(WTERMSIG(main_status), SIG_DFL);
    kill(getpid(), WTERMSIG(main_status));
    return 128 + WTERMSIG(main_status);
  }
  return WIFEXITED(main_status) ? WEXITSTATUS(main_status) : 1;
}

static int enter(int argc, char **argv) {
  if (argc < 5) return 120;
  int uid = atoi(argv[2]);
  int n = atoi(argv[3]);
  if (n < 0 || argc < 6 + n || strcmp(argv[4 + n], "--") != 0) {
    fprintf(stderr, "coreb-run: bad --enter arguments\n");
    return 120;
  }
  char pid[32];
  int len = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
  for (int i = 0; i < n; i++) {
    int fd = open(argv[4 + i], O_WRONLY);
    if (fd < 0 || write(fd, pid, len) != len) {
      fprintf(stderr, "coreb-run: cannot join %s: %s\n", argv[4 + i], strerror(errno));
      return 123;
    }
    close(fd);
  }
  if (uid >= 0 && (setgroups(0, NULL) != 0 || setgid(uid) != 0 || setuid(uid) != 0)) {
    fprintf(stderr, "coreb-run: cannot drop to uid %d: %s\n", uid, strerror(errno));
    return 124;
  }
  return run_reaping(argv + 5 + n);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--enter") == 0) return enter(argc, argv);
  if (argc > 3 && strcmp(argv[1], "--reap") == 0 && strcmp(argv[2], "--") == 0) return run_reaping(argv + 3);
  if (argc < 11 || strcmp(argv[9], "--") != 0) {
    fprintf(stderr, "coreb-run: bad arguments\n");
    return 120;
  }
  int sfd = atoi(argv[7]);
  int secret = atoi(argv[8]);
  /* Not dumpable: the program (same uid) can neither attach to this harness nor open its /proc files. */
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  pid_t pid = fork();
  if (pid < 0) return 121;
  if (pid == 0) {
    if (sfd >= 0) close(sfd);
    /* The proof token's file is on descriptor 4 when the judge gave one: moved where the test program reads it. */
    if (secret >= 0 && secret != 4) {
      if (dup2(4, secret) < 0) _exit(126);
      close(4);
    } else if (secret < 0) {
      close(4);
    }
    if (deny_tracing() != 0) {
      fprintf(stderr, "coreb-run: cannot install the seccomp filter that forbids ptrace: %s\n", strerror(errno));
      _exit(125);
    }
    struct rlimit core = {0, 0};
    setrlimit(RLIMIT_CORE, &core);
    lim(RLIMIT_CPU, atoll(argv[1]));
    lim(RLIMIT_AS, atoll(argv[2]));
    lim(RLIMIT_NPROC, atoll(argv[3]));
    lim(RLIMIT_FSIZE, atoll(argv[4]));
    lim(RLIMIT_NOFILE, atoll(argv[5]));
    lim(RLIMIT_STACK, atoll(argv[6]));
    execvp(argv[10], argv + 10);
    fprintf(stderr, "coreb-run: cannot execute %s: %s\n", argv[10], strerror(errno));
    _exit(127);
  }
  if (secret >= 0) close(4);
  int status = 0;
  struct rusage ru;
  while (wait4(pid, &status, 0, &ru) < 0) {
    if (errno != EINTR) return 122;
  }
  long long cpu = (long long)ru.ru_utime.tv_sec * 1000000LL + ru.ru_utime.tv_usec +
                  (long long)ru.ru_stime.tv_sec * 1000000LL + ru.ru_stime.tv_usec;
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (sfd >= 0) dprintf(sfd, "%d %lld %ld\n", code, cpu, ru.ru_maxrss);
  return code;
}
`;

/**
 * Builds the helper into `cacheDir` once (keyed by a hash of its source) and returns its path.
 * Needs a C compiler (`gcc`, `cc` or `g++`, Debian package gcc or g++). The binary is world-readable
 * and executable so the unprivileged sandbox user can run it.
 */
export function buildRunHelper(cacheDir: string): string {
  const hash = createHash('sha256').update(RUN_HELPER_SOURCE).digest('hex').slice(0, 12);
  const dir = join(cacheDir, 'bin');
  const exe = join(dir, `coreb-run-${hash}`);
  if (existsSync(exe)) return exe;
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  chmodSync(dir, 0o755);
  const src = join(dir, `coreb-run-${hash}.${process.pid}.c`);
  writeFileSync(src, RUN_HELPER_SOURCE);
  const tmp = `${exe}.${process.pid}.tmp`;
  const compilers = [
    ['/usr/bin/gcc', ['-O2', '-x', 'c']],
    ['/usr/bin/cc', ['-O2', '-x', 'c']],
    ['/usr/bin/g++', ['-O2', '-x', 'c']],
  ] as const;
  let last = '';
  for (const [cc, flags] of compilers) {
    if (!existsSync(cc)) continue;
    const r = spawnSync(cc, [...flags, src, '-o', tmp], { encoding: 'utf8' });
    if (r.status === 0) {
      chmodSync(tmp, 0o755);
      renameSync(tmp, exe);
      return exe;
    }
    last = `${cc}: ${r.stderr || r.error?.message || ''}`;
  }
  throw new CorebError(
    'TOOLCHAIN',
    `cannot build the sandbox helper: no working C compiler${last ? ` (${last.trim()})` : ''}; ` +
      'install the Debian package gcc (apt-get install -y gcc)',
  );
}
