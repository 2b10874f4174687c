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
    int64_t atime_ns;
    int64_t mtime_ns;
    int64_t ctime_ns;
    int64_t btime_ns;
    int has_birth;
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
