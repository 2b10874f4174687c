import Glibc

/// The users of this host and their groups, which a watcher publishes so that the shared
/// index can answer each role with what the user of that name may read here.
package struct Account: Sendable, Hashable {
    package var name: String
    package var uid: UInt32
    package var gids: [UInt32]
}

package enum AccountNames {
    /// The login name of `uid`, if it has one.
    package static func name(ofUser uid: uid_t) -> String? {
        var pw = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getpwuid_r(uid, &pw, &buffer, buffer.count, &result) == 0, result != nil, let name = pw.pw_name else { return nil }
        return String(cString: name)
    }

    /// The uid of the user called `name`, if there is one.
    package static func uid(ofUser name: String) -> uid_t? {
        var pw = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getpwnam_r(name, &pw, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return pw.pw_uid
    }

    /// Every account in the passwd database (files, LDAP… as NSS has them) with its groups.
    package static func all() -> [Account] {
        var out: [Account] = []
        setpwent()
        defer { endpwent() }
        while let p = getpwent() {
            guard let n = p.pointee.pw_name else { continue }
            let name = String(cString: n)
            out.append(Account(name: name, uid: p.pointee.pw_uid, gids: groups(name, p.pointee.pw_gid)))
        }
        return out
    }

    static func groups(_ name: String, _ primary: gid_t) -> [UInt32] {
        var count: Int32 = 64
        var list = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, primary, &list, &count) < 0 {
            list = [gid_t](repeating: 0, count: Int(count))
            if getgrouplist(name, primary, &list, &count) < 0 { return [primary] }
        }
        return Array(Set(list.prefix(Int(count)))).sorted()
    }
}
