#pragma once
#include <stdint.h>
#include <sys/types.h>

/// The subset of statx(2) that FSIndex uses. Birth time is only valid when `has_birth` is 1
/// (the file system must report STATX_BTIME: ext4, btrfs, xfs and tmpfs do; overlayfs may not).
struct shim_statx {
    uint32_t mode;
    uint32_t uid;
    uint32_t gid;
    uint32_t nlink;
    uint64_t ino;
    uint64_t size;
    uint64_t blocks;
    uint64_t dev;          /* makedev(major, minor) */
    /* Nanoseconds since 1970, saturated at INT64_MIN/INT64_MAX: exact for 1677 to 2262, what
       change detection compares. The times themselves are the *_sec and *_nsec pairs below. */
    int64_t atime_ns;
    int64_t mtime_ns;
    int64_t ctime_ns;
    int64_t btime_ns;
    int has_birth;
    /* Each time as statx gives it: seconds since 1970 (any year a file system holds) and
       nanoseconds (0 to 999,999,999). */
    int64_t atime_sec, mtime_sec, ctime_sec, btime_sec;
    uint32_t atime_nsec, mtime_nsec, ctime_nsec, btime_nsec;
};

/// statx relative to `dirfd` without following a final symlink. Returns 0 or -1 with errno set.
int shim_statx(int dirfd, const char *path, struct shim_statx *out);
/// statx of an open descriptor. Returns 0 or -1 with errno set.
int shim_fstatx(int fd, struct shim_statx *out);

/// An eventfd(2) counter with EFD_CLOEXEC | EFD_NONBLOCK, used to wake a thread blocked in poll(2)
/// (the Glibc module does not export <sys/eventfd.h>). Returns the descriptor or -1 with errno set.
int shim_eventfd(void);

/// The process at the other end of a connected Unix-domain socket, from getsockopt(SO_PEERCRED)
/// (the Glibc module does not export `struct ucred`). Returns 0 or -1 with errno set.
int shim_peer_credentials(int fd, int32_t *pid, uint32_t *uid, uint32_t *gid);
/// accept4(2) without the peer address: `flags` (SOCK_CLOEXEC, SOCK_NONBLOCK) are set atomically,
/// so a child spawned by another thread never inherits the connection. Returns the new fd or -1.
int shim_accept4(int fd, int flags);

/// Puts the calling process in the idle I/O scheduling class (ioprio_set(2)); 0 or -1 with errno.
int shim_ioprio_idle(void);

/// pidfd_open(2): a descriptor for process `pid` that polls readable once it has ended (a
/// child not yet reaped included); -1 with errno (ENOSYS before Linux 5.3).
int shim_pidfd_open(int pid);
/// Puts the calling process at the lowest priority there is: nice 19, the SCHED_IDLE CPU class
/// (it runs only when nothing else wants the core) and the idle I/O class, each tried even when
/// another fails. For OCR workers. Returns 0, or -1 with errno set when any step failed.
int shim_lowest_priority(void);

#include <spawn.h>
/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34+): close every descriptor from `low` up in the child.
int shim_spawn_close_from(posix_spawn_file_actions_t *actions, int low);

#include <sys/resource.h>
/// setrlimit(2) with a plain int resource (the Glibc module's enum type does not import cleanly);
/// `value` RLIM_INFINITY is spelled UINT64_MAX. Returns 0 or -1 with errno set.
int shim_setrlimit(int resource, uint64_t soft, uint64_t hard);
/// prctl(PR_SET_NO_NEW_PRIVS, 1): the prerequisite of an unprivileged seccomp filter.
int shim_no_new_privs(void);
/// prctl(PR_SET_DUMPABLE, 0): no core dumps, no ptrace by the same user.
int shim_not_dumpable(void);
/// pipe2(2) with O_CLOEXEC.
int shim_pipe_cloexec(int fds[2]);
/// CPU time the calling process has used, user plus system, in microseconds.
int64_t shim_cpu_micros(void);

/// Drops every capability from the bounding set (PR_CAPBSET_DROP), so that nothing can ever
/// regain one. Needs CAP_SETPCAP: an unprivileged caller, who holds none to regain, is left as
/// it is. Returns 0 or -1 with errno set.
int shim_drop_bounding_set(void);
/// Clears the ambient set, then the effective, permitted and inheritable sets (capset, which
/// anyone may do to lower their own). Returns 0 or -1 with errno set.
int shim_clear_capabilities(void);
/// The effective, permitted and inheritable capability sets (capget), and the bounding set
/// (PR_CAPBSET_READ), each as a 64-bit mask. Returns 0 or -1 with errno set.
int shim_capabilities(uint64_t *effective, uint64_t *permitted, uint64_t *inheritable, uint64_t *bounding);
/// Becomes `uid`/`gid` for good: no supplementary groups, then real, effective and saved gid,
/// then uid (in that order: after setuid there is no right left to change groups). Returns 0 or
/// -1 with errno set.
int shim_become_user(uint32_t uid, uint32_t gid);

/// The Landlock ABI version the running kernel offers (1 and up), or -1 with errno set (ENOSYS:
/// the kernel lacks it; EOPNOTSUPP: built in but not enabled with lsm=).
int shim_landlock_abi(void);
/// Confines the calling process's file access for good to reading beneath `paths` (directories:
/// read files and list; regular files: read). Every access right the running ABI knows is
/// handled, so writing, creating, removing, linking, truncating and device ioctls are refused
/// everywhere; from ABI 4, TCP bind and connect; from ABI 6, signals to processes outside the
/// sandbox and abstract Unix sockets. Paths that do not exist are skipped. Needs
/// PR_SET_NO_NEW_PRIVS first. Returns the ABI used, or -1 with errno set.
int shim_landlock_confine(const char *const *paths, int count);

/// sendmsg(2) of `len` bytes with `fd` attached (SCM_RIGHTS) when it is >= 0; MSG_NOSIGNAL.
/// Returns the bytes sent or -1 with errno set.
long shim_send_with_fd(int socket, const void *buffer, unsigned long len, int fd);
/// recvmsg(2) of up to `len` bytes; `*fd` is a descriptor that came with them (close-on-exec)
/// or -1. Returns the bytes read, 0 at the end, or -1 with errno set.
long shim_receive_with_fd(int socket, void *buffer, unsigned long len, int *fd);
/// sendmsg(2) of `len` bytes with `count` descriptors attached (SCM_RIGHTS, at most 8);
/// MSG_NOSIGNAL. fsfind hands its stdout and stderr to fsindexd this way. Returns the bytes sent
/// or -1 with errno set.
long shim_send_with_fds(int socket, const void *buffer, unsigned long len, const int *fds, int count);
/// recvmsg(2) of up to `len` bytes and up to `max` (at most 8) descriptors that came with them
/// (close-on-exec; any beyond `max` are closed), their number in `*count`. Returns the bytes read,
/// 0 at the end, or -1 with errno set.
long shim_receive_with_fds(int socket, void *buffer, unsigned long len, int *fds, int max, int *count);
/// socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC). Returns 0 or -1 with errno set.
int shim_socketpair_cloexec(int fds[2]);
/// getrlimit(2) with a plain int resource; RLIM_INFINITY is spelled UINT64_MAX. 0 or -1.
int shim_getrlimit(int resource, uint64_t *soft, uint64_t *hard);
/// syscall(2) with four arguments (the Glibc module does not export `syscall`): the test
/// worker's sandbox probes make the exact calls an attacker would. Returns the result or -1.
long shim_syscall4(long number, long a, long b, long c, long d);
/// syscall(2) with six arguments, as `shim_syscall4`.
long shim_syscall6(long number, long a, long b, long c, long d, long e, long f);

/// Extended attributes of `path` itself, never of what a final symlink points to (the l*xattr
/// calls; <sys/xattr.h> is not exported by the Glibc module). Each returns what the call
/// returns (a size, or 0) or -1 with errno set (ENOTSUP: the file system stores none; ENODATA:
/// no such attribute; ERANGE: the buffer is too small).
long shim_llistxattr(const char *path, char *list, unsigned long size);
long shim_lgetxattr(const char *path, const char *name, void *value, unsigned long size);
int shim_lsetxattr(const char *path, const char *name, const void *value, unsigned long size);
int shim_lremovexattr(const char *path, const char *name);

/// glibc's `mallopt(M_ARENA_MAX, n)`: at most `n` malloc arenas for the process (malloc.h is not
/// in Swift's Glibc module). Returns 1 on success.
int shim_limit_malloc_arenas(int n);
/// glibc's `malloc_trim(0)`: returns free heap memory to the system. Returns 1 when some was.
int shim_return_freed_memory(void);

/// errno, for code without the Glibc module (fsfind in Embedded Swift), where it is a macro.
int shim_errno(void);
/// The arguments the C library gave main(), kept by a constructor (glibc passes argc, argv and
/// envp to them): Embedded Swift has no CommandLine.
int shim_argc(void);
char **shim_argv(void);
