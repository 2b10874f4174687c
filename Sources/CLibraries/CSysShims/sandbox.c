// The worker's confinement primitives: capabilities, identity, Landlock and descriptor passing.
// None of these calls is exported by the Glibc module (capget/capset, prctl, the landlock_*
// system calls, struct msghdr's CMSG_* macros).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "CSysShims.h"

// <linux/capability.h> and <linux/landlock.h> from the build host may predate the running
// kernel: the numbers below are the kernel's ABI, which never changes.
struct shim_cap_header { uint32_t version; int pid; };
struct shim_cap_data { uint32_t effective, permitted, inheritable; };
#define SHIM_CAP_VERSION_3 0x20080522

int shim_drop_bounding_set(void) {
    for (int cap = 0; cap < 64; cap++) {
        int present = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
        if (present < 0) break;                 /* EINVAL: past the last capability */
        if (present == 0) continue;
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
            if (errno == EPERM) return 0;       /* no CAP_SETPCAP: an unprivileged caller */
            return -1;
        }
    }
    return 0;
}

int shim_clear_capabilities(void) {
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) return -1;
    struct shim_cap_header h = { SHIM_CAP_VERSION_3, 0 };
    struct shim_cap_data d[2];
    memset(d, 0, sizeof d);
    return (int)syscall(SYS_capset, &h, d);
}

int shim_capabilities(uint64_t *effective, uint64_t *permitted, uint64_t *inheritable, uint64_t *bounding) {
    struct shim_cap_header h = { SHIM_CAP_VERSION_3, 0 };
    struct shim_cap_data d[2];
    memset(d, 0, sizeof d);
    if (syscall(SYS_capget, &h, d) != 0) return -1;
    *effective = (uint64_t)d[1].effective << 32 | d[0].effective;
    *permitted = (uint64_t)d[1].permitted << 32 | d[0].permitted;
    *inheritable = (uint64_t)d[1].inheritable << 32 | d[0].inheritable;
    *bounding = 0;
    for (int cap = 0; cap < 64; cap++) {
        int present = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
        if (present < 0) break;
        if (present) *bounding |= (uint64_t)1 << cap;
    }
    return 0;
}

int shim_become_user(uint32_t uid, uint32_t gid) {
    if (setgroups(0, NULL) != 0) return -1;
    if (setresgid(gid, gid, gid) != 0) return -1;
    if (setresuid(uid, uid, uid) != 0) return -1;
    return 0;
}

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

struct shim_landlock_ruleset_attr { uint64_t handled_access_fs, handled_access_net, scoped; };
struct shim_landlock_path_beneath { uint64_t allowed_access; int32_t parent_fd; } __attribute__((packed));

#define LL_EXECUTE (1ULL << 0)
#define LL_READ_FILE (1ULL << 2)
#define LL_READ_DIR (1ULL << 3)

int shim_landlock_abi(void) {
    return (int)syscall(SYS_landlock_create_ruleset, NULL, 0, 1 /* LANDLOCK_CREATE_RULESET_VERSION */);
}

int shim_landlock_confine(const char *const *paths, int count) {
    int abi = shim_landlock_abi();
    if (abi < 1) return -1;
    struct shim_landlock_ruleset_attr attr = { 0, 0, 0 };
    attr.handled_access_fs = (1ULL << 13) - 1;               /* ABI 1: execute ... make_sym */
    if (abi >= 2) attr.handled_access_fs |= 1ULL << 13;      /* refer */
    if (abi >= 3) attr.handled_access_fs |= 1ULL << 14;      /* truncate */
    if (abi >= 5) attr.handled_access_fs |= 1ULL << 15;      /* ioctl_dev */
    size_t size = sizeof(uint64_t);
    if (abi >= 4) { attr.handled_access_net = 3; size = 2 * sizeof(uint64_t); }   /* bind, connect TCP */
    if (abi >= 6) { attr.scoped = 3; size = sizeof attr; }   /* abstract unix sockets, signals */
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0) return -1;
    for (int i = 0; i < count; i++) {
        int fd = open(paths[i], O_PATH | O_CLOEXEC);
        if (fd < 0) {
            if (errno == ENOENT || errno == ENOTDIR) continue;
            int e = errno; close(ruleset); errno = e; return -1;
        }
        struct stat st;
        if (fstat(fd, &st) != 0) { int e = errno; close(fd); close(ruleset); errno = e; return -1; }
        struct shim_landlock_path_beneath rule = {
            .allowed_access = S_ISDIR(st.st_mode) ? (LL_READ_FILE | LL_READ_DIR) : LL_READ_FILE,
            .parent_fd = fd };
        long rc = syscall(SYS_landlock_add_rule, ruleset, 1 /* LANDLOCK_RULE_PATH_BENEATH */, &rule, 0);
        int e = errno;
        close(fd);
        if (rc != 0) { close(ruleset); errno = e; return -1; }
    }
    long rc = syscall(SYS_landlock_restrict_self, ruleset, 0);
    int e = errno;
    close(ruleset);
    if (rc != 0) { errno = e; return -1; }
    return abi;
}

long shim_send_with_fd(int socket, const void *buffer, unsigned long len, int fd) {
    return shim_send_with_fds(socket, buffer, len, &fd, fd >= 0 ? 1 : 0);
}

long shim_receive_with_fd(int socket, void *buffer, unsigned long len, int *fd) {
    /* One descriptor per frame; any more is a bug, and is closed. */
    int count = 0;
    *fd = -1;
    long n = shim_receive_with_fds(socket, buffer, len, fd, 1, &count);
    if (count == 0) *fd = -1;
    return n;
}

long shim_send_with_fds(int socket, const void *buffer, unsigned long len, const int *fds, int count) {
    if (count < 0 || count > 8) { errno = EINVAL; return -1; }
    struct iovec iov = { (void *)buffer, len };
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    union { char bytes[CMSG_SPACE(8 * sizeof(int))]; struct cmsghdr align; } control;
    if (count > 0) {
        memset(&control, 0, sizeof control);
        msg.msg_control = control.bytes;
        msg.msg_controllen = CMSG_SPACE(count * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(count * sizeof(int));
        memcpy(CMSG_DATA(c), fds, count * sizeof(int));
    }
    return sendmsg(socket, &msg, MSG_NOSIGNAL);
}

long shim_receive_with_fds(int socket, void *buffer, unsigned long len, int *fds, int max, int *count) {
    struct iovec iov = { buffer, len };
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    union { char bytes[CMSG_SPACE(8 * sizeof(int))]; struct cmsghdr align; } control;
    msg.msg_control = control.bytes;
    msg.msg_controllen = sizeof control.bytes;
    *count = 0;
    long n = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
    if (n < 0) return n;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        int received_count = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int i = 0; i < received_count; i++) {
            int received;
            memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            if (*count < max && *count < 8) fds[(*count)++] = received; else close(received);
        }
    }
    return n;
}

int shim_socketpair_cloexec(int fds[2]) { return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds); }

long shim_syscall4(long number, long a, long b, long c, long d) { return syscall(number, a, b, c, d); }
long shim_syscall6(long number, long a, long b, long c, long d, long e, long f) { return syscall(number, a, b, c, d, e, f); }
