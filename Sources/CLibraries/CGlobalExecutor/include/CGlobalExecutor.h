#pragma once

/// Sends Swift concurrency's global jobs (plain, delayed and with a deadline) to libdispatch's
/// *overcommit* default queue instead of its width-limited global queues.
///
/// Why: the first thread of a non-overcommit libdispatch root queue (the pool Swift's default
/// global executor uses on Linux, and `DispatchQueue.concurrentPerform`) starts libdispatch's
/// workqueue monitor (src/event/workqueue.c): a timer on the manager thread that fires once a
/// second for the rest of the process, busy or idle. A watcher that should cost nothing at rest
/// wakes 86,400 times a day for it (issue 14). Overcommit threads are not monitored, and they end
/// after a few idle seconds, so an idle process has no thread that wakes.
///
/// The cost: the overcommit pool starts a thread whenever a job waits and none is idle, where
/// the default pool stops at one per core. Call it before the first `await` that leaves the
/// main task (the first statement of `main()`); a monitor already started is not stopped.
/// Uses `swift_task_enqueueGlobal_hook` and its siblings (the hooks SwiftNIO uses to take over
/// the global executor). Idempotent.
void fsindex_install_overcommit_executor(void);

/// 1 once `fsindex_install_overcommit_executor` has run (for tests).
int fsindex_overcommit_executor_installed(void);
