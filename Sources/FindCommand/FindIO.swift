import CommandSupport
import MemberwiseInit
import Querying
import SystemPackage
import Glibc

/// Where one `fsfind` query writes, and the folder its relative paths start from.
///
/// `fsfind-direct` uses its own stdout, stderr and working folder; fsindexd, answering for the
/// small `fsfind`, uses the descriptors the client handed over and the client's folder (the
/// daemon's own is `/`, and a process has only one).
@MemberwiseInit
package struct FindIO: Sendable {
    package var out: Output
    package var errors: Output
    /// The client's working folder; nil: this process's.
    package var workingDirectory: [UInt8]? = nil
    /// The client's variables that choose the index (`HOME`, `XDG_DATA_HOME`,
    /// `FSINDEX_INDEX_DIR`); nil: this process's environment. The daemon's own would name its
    /// default index, not the one the client asked for.
    package var environment: [String: String]? = nil
    /// What is done with results whose files are gone; nil: `DaemonOrIndexRepair`. fsindexd
    /// answering a query gives its own writer.
    package var repair: (any StaleResultRepair)? = nil

    /// `status`, unless the results could not all be written into the client's output (a full
    /// disk, a read-only descriptor): then that is said on `errors`, and the status is 2. (The
    /// program's own standard output exits 2 by itself: see `Output`.)
    package func finished(_ status: Int32) -> Int32 {
        guard let failure = out.failure else { return status }
        errors.report("fsfind", "cannot write to standard output: \(String(cString: strerror(failure.rawValue)))")
        return 2
    }
}
