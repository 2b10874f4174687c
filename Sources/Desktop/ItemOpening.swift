import Foundation
import Indexing

/// `fsindex open` and `fsfind --open`: open an item, wait for the opening program, then record
/// the use (a failed open is no use).
package enum ItemOpening {
    package static func open(_ identifier: [UInt8], command: [String], location: IndexLocation) throws(DesktopError) {
        let opener = ItemOpener(command: command, location: location)
        let target = try opener.target(for: identifier)
        let pid = try opener.start(target)
        try ItemOpener.wait(pid, program: command[0])
        _ = try UseRecorder.record([identifier], location: location)
    }
}
