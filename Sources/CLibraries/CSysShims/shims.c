#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>
#include <malloc.h>
#include "CSysShims.h"

/* Nanoseconds since 1970, saturated: an int64_t holds 1677 to 2262, and a file touched to
   2300-01-01 wrapped round to 1715 (issue 22, F12). The exact time is carried apart
   (the *_sec and *_nsec fields); this is what change detection compares. */
static int64_t ns(struct statx_timestamp t) {
    if (t.tv_sec > INT64_MAX / 1000000000LL - 1) return INT64_MAX;
    if (t.tv_sec < INT64_MIN / 1000000000LL + 1) return INT64_MIN;
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int fill(int rc, struct statx *sx, struct shim_statx *out) {
    if (rc != 0) return rc;
    out->mode = sx->stx_mode;
    out->uid = sx->stx_uid;
    out->gid = sx->stx_gid;
    out->nlink = sx->stx_nlink;
    out->ino = sx->stx_ino;
    out->size = sx->stx_size;
    out->blocks = sx->stx_blocks;
    out->dev = makedev(sx->stx_dev_major, sx->stx_dev_minor);
    out->atime_ns = ns(sx->stx_atime);
    out->mtime_ns = ns(sx->stx_mtime);
    out->ctime_ns = ns(sx->stx_ctime);
    out->has_birth = (sx->stx_mask & STATX_BTIME) ? 1 : 0;
    out->btime_ns = out->has_birth ? ns(sx->stx_btime) : 0;
    out->atime_sec = sx->stx_atime.tv_sec;
    out->atime_nsec = sx->stx_atime.tv_nsec;
    out->mtime_sec = sx->stx_mtime.tv_sec;
    out->mtime_nsec = sx->stx_mtime.tv_nsec;
    out->ctime_sec = sx->stx_ctime.tv_sec;
    out->ctime_nsec = sx->stx_ctime.tv_nsec;
    out->btime_sec = out->has_birth ? sx->stx_btime.tv_sec : 0;
    out->btime_nsec = out->has_birth ? sx->stx_btime.tv_nsec : 0;
    return 0;
}

int shim_statx(int dirfd, const char *path, struct shim_statx *out) {
    struct statx sx;
    int rc = statx(dirfd, path, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_BASIC_STATS | STATX_BTIME, &sx);
    return fill(rc, &sx, out);
}

int shim_fstatx(int fd, struct shim_statx *out) {
    struct statx sx;
    int rc = statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_BTIME, &sx);
    return fill(rc, &sx, out);
}

#include <sys/eventfd.h>

int shim_eventfd(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

#include <sys/socket.h>

int shim_peer_credentials(int fd, int32_t *pid, uint32_t *uid, uint32_t *gid) {
    struct ucred cred;
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    *pid = cred.pid;
    *uid = cred.uid;
    *gid = cred.gid;
    return 0;
}

int shim_accept4(int fd, int flags) { return accept4(fd, NULL, NULL, flags); }

#include <sys/syscall.h>
#include <unistd.h>
int shim_ioprio_idle(void) {
    /* IOPRIO_WHO_PROCESS = 1, IOPRIO_CLASS_IDLE = 3, IOPRIO_CLASS_SHIFT = 13 */
    return (int)syscall(SYS_ioprio_set, 1, 0, 3 << 13);
}

#include <sched.h>
#include <sys/resource.h>
int shim_lowest_priority(void) {
    /* Each step is tried even when one before failed (a container may refuse one of them). */
    int failed = setpriority(PRIO_PROCESS, 0, 19) != 0;
    struct sched_param param = { .sched_priority = 0 };
    failed |= sched_setscheduler(0, SCHED_IDLE, &param) != 0;
    failed |= shim_ioprio_idle() != 0;
    return failed ? -1 : 0;
}

#include <spawn.h>
int shim_spawn_close_from(posix_spawn_file_actions_t *actions, int low) {
    return posix_spawn_file_actions_addclosefrom_np(actions, low);
}

int shim_setrlimit(int resource, uint64_t soft, uint64_t hard) {
    struct rlimit rl = { .rlim_cur = soft == UINT64_MAX ? RLIM_INFINITY : (rlim_t)soft,
                         .rlim_max = hard == UINT64_MAX ? RLIM_INFINITY : (rlim_t)hard };
    return setrlimit(resource, &rl);
}
int shim_no_new_privs(void) { return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); }
int shim_not_dumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }
int shim_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
int64_t shim_cpu_micros(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
    return (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}
int shim_getrlimit(int resource, uint64_t *soft, uint64_t *hard) {
    struct rlimit rl;
    if (getrlimit(resource, &rl) != 0) return -1;
    *soft = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
    *hard = rl.rlim_max == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_max;
    return 0;
}

#include <sys/xattr.h>
long shim_llistxattr(const char *path, char *list, unsigned long size) { return (long)llistxattr(path, list, size); }
long shim_lgetxattr(const char *path, const char *name, void *value, unsigned long size) {
    return (long)lgetxattr(path, name, value, size);
}
int shim_lsetxattr(const char *path, const char *name, const void *value, unsigned long size) {
    return lsetxattr(path, name, value, size, 0);
}
int shim_lremovexattr(const char *path, const char *name) { return lremovexattr(path, name); }

int shim_limit_malloc_arenas(int n) { return mallopt(M_ARENA_MAX, n); }
int shim_return_freed_memory(void) { return malloc_trim(0); }

/* main()'s arguments for code that has no CommandLine (fsfind in Embedded Swift). glibc calls
   the functions of .init_array with argc, argv and envp before main. */
static int saved_argc;
static char **saved_argv;
static void save_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    saved_argc = argc;
    saved_argv = argv;
}
__attribute__((section(".init_array"), used)) static void (*const save_arguments_entry)(int, char **, char **) = save_arguments;
int shim_errno(void) { return errno; }
int shim_argc(void) { return saved_argc; }
char **shim_argv(void) { return saved_argv; }

/* pidfd_open(2) (Linux 5.3): a descriptor that polls readable once the process has ended. */
int shim_pidfd_open(int pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}
