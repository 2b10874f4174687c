// TestSupport is an ordinary target, built by `swift build` too, where the Testing module is not
// on the search path: the traits exist only in test builds.
#if canImport(Testing)
import Testing
#endif
import Glibc

extension RealCorpus {
    /// Why a test is skipped without the corpus; `.ci/run` looks for this text among the skipped
    /// tests, so keep the two in step.
    package static let skipReason = "needs the real-document corpus (../shared/corpus/real beside the checkout, or FSINDEX_REAL_CORPUS)"
}

#if canImport(Testing)
extension Trait where Self == ConditionTrait {
    /// For a test or suite that reads the shared real-document corpus: skipped, with the reason,
    /// where the corpus is not beside the checkout (a clean clone), instead of failing.
    package static var realCorpus: Self {
        .enabled(if: RealCorpus.isAvailable, Comment(rawValue: RealCorpus.skipReason))
    }

    /// For a test that runs something as another user (setpriv): only root can.
    package static var needsRoot: Self {
        .enabled(if: geteuid() == 0, "needs root to run as another user")
    }

    /// For a test that mounts file systems (a loop-mounted image, a tmpfs): only root can, and
    /// only where `mount` is installed.
    package static var needsRootToMount: Self {
        .enabled(if: geteuid() == 0 && access("/usr/bin/mount", X_OK) == 0 && access("/usr/bin/umount", X_OK) == 0,
                 "needs root (and mount, umount) to mount file systems")
    }

    /// For a test that needs a file to be unreadable, which it never is for root.
    package static var needsNonRoot: Self {
        .enabled(if: geteuid() != 0, "needs a user other than root (root reads files of mode 000)")
    }
}
#endif
