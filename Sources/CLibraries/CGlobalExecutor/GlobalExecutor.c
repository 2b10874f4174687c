#define _GNU_SOURCE
#include "CGlobalExecutor.h"
#include <stdint.h>
#include <time.h>

// The few libdispatch calls used, declared here rather than through <dispatch/dispatch.h>
// (C targets do not get the toolchain's dispatch headers). `dispatch_queue_t` is a pointer.
typedef void *fs_dispatch_queue_t;
extern fs_dispatch_queue_t dispatch_get_global_queue(intptr_t identifier, uintptr_t flags);
extern void dispatch_async_f(fs_dispatch_queue_t queue, void *context, void (*work)(void *));
extern void dispatch_after_f(uint64_t when, fs_dispatch_queue_t queue, void *context, void (*work)(void *));
extern uint64_t dispatch_time(uint64_t when, int64_t delta);
#define FS_DISPATCH_QUEUE_OVERCOMMIT 0x2ull   /* libdispatch private/queue_private.h */
#define FS_DISPATCH_TIME_NOW 0ull

// The Swift runtime's side (include/swift/Runtime/Concurrency.h, ConcurrencyHooks.def).
typedef struct SwiftJob SwiftJob;
typedef struct { void *identity; uintptr_t implementation; } FSSerialExecutorRef;
#define SWIFTCC __attribute__((swiftcall))
extern SWIFTCC void swift_job_run(SwiftJob *job, FSSerialExecutorRef executor);

typedef SWIFTCC void (*EnqueueOriginal)(SwiftJob *job);
typedef SWIFTCC void (*EnqueueDelayOriginal)(unsigned long long delay, SwiftJob *job);
typedef SWIFTCC void (*EnqueueDeadlineOriginal)(long long sec, long long nsec, long long tsec,
                                                 long long tnsec, int clock, SwiftJob *job);
extern SWIFTCC void (*swift_task_enqueueGlobal_hook)(SwiftJob *job, EnqueueOriginal original);
extern SWIFTCC void (*swift_task_enqueueGlobalWithDelay_hook)(unsigned long long delay, SwiftJob *job,
                                                              EnqueueDelayOriginal original);
extern SWIFTCC void (*swift_task_enqueueGlobalWithDeadline_hook)(long long sec, long long nsec, long long tsec,
                                                                 long long tnsec, int clock, SwiftJob *job,
                                                                 EnqueueDeadlineOriginal original);

static fs_dispatch_queue_t queue(void) {
    // DISPATCH_QUEUE_PRIORITY_DEFAULT is 0.
    return dispatch_get_global_queue(0, FS_DISPATCH_QUEUE_OVERCOMMIT);
}

/// Runs a global job the way the runtime's own dispatch executor does (`__swift_run_job`):
/// on the generic executor.
static void run_job(void *job) {
    FSSerialExecutorRef generic = { 0, 0 };
    swift_job_run((SwiftJob *)job, generic);
}

static SWIFTCC void enqueue(SwiftJob *job, EnqueueOriginal original) {
    (void)original;
    dispatch_async_f(queue(), job, run_job);
}

static SWIFTCC void enqueue_with_delay(unsigned long long delay, SwiftJob *job, EnqueueDelayOriginal original) {
    (void)original;
    int64_t ns = delay > (unsigned long long)INT64_MAX ? INT64_MAX : (int64_t)delay;
    dispatch_after_f(dispatch_time(FS_DISPATCH_TIME_NOW, ns), queue(), job, run_job);
}

// The runtime's clock ids: 1 continuous (CLOCK_BOOTTIME on Linux), 2 suspending (CLOCK_MONOTONIC).
static SWIFTCC void enqueue_with_deadline(long long sec, long long nsec, long long tsec, long long tnsec,
                                          int clock, SwiftJob *job, EnqueueDeadlineOriginal original) {
    (void)tsec; (void)tnsec; (void)original;
    struct timespec now;
    clock_gettime(clock == 1 ? CLOCK_BOOTTIME : CLOCK_MONOTONIC, &now);
    long double left = (long double)(sec - now.tv_sec) * 1e9L + (long double)(nsec - now.tv_nsec);
    int64_t ns = left <= 0 ? 0 : (left >= (long double)INT64_MAX ? INT64_MAX : (int64_t)left);
    dispatch_after_f(dispatch_time(FS_DISPATCH_TIME_NOW, ns), queue(), job, run_job);
}

static int installed;

void fsindex_install_overcommit_executor(void) {
    swift_task_enqueueGlobal_hook = enqueue;
    swift_task_enqueueGlobalWithDelay_hook = enqueue_with_delay;
    swift_task_enqueueGlobalWithDeadline_hook = enqueue_with_deadline;
    __atomic_store_n(&installed, 1, __ATOMIC_RELEASE);
}

int fsindex_overcommit_executor_installed(void) { return __atomic_load_n(&installed, __ATOMIC_ACQUIRE); }
