import Foundation
import TOMLKit

// `[mail]`: who "me" is in mail, and how near a date must be to make a message priority
// (issue 27: `isPriority`).
extension Settings {
    /// `[mail]`: what the priority pass needs to know about the user's mail.
    package struct Mail: Sendable, Hashable {
        /// The user's own mail addresses (matched ignoring case). Empty: the senders of the
        /// mail in folders named Sent (`Sent`, `sent`, `.Sent`, `Sent Items`, ...), the
        /// addresses of `[agent] me` (or git's `user.email`), and `$EMAIL`.
        package var addresses: [String] = []
        /// A message that mentions a day from today to this many days ahead counts as due.
        package var deadlineDays = 7
        package init() {}
    }

    /// Reads one `mail.` key; false when `full` is not one.
    mutating func applyMail(_ full: String, _ v: any TOMLValueConvertible, _ r: KeyReader) throws(SettingsError) -> Bool {
        switch full {
        case "mail.addresses":
            let list = try r.strings(v, full)
            guard list.allSatisfy({ $0.contains("@") && !$0.contains(where: { (c: Character) in c.isWhitespace }) }) else {
                throw r.bad(full, "an array of mail addresses such as [\"ada@example.org\"]")
            }
            mail.addresses = list
        case "mail.deadline_days":
            mail.deadlineDays = try r.int(v, full, 0...365, "a number of days from 0 to 365")
        default:
            return false
        }
        return true
    }
}
