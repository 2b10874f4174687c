// PLACEHOLDER until branch `me` merges (it replaces this file).
public struct Identity: Sendable, Hashable, Codable {
    public var name: String?
    public var emails: [String]
    public var source: String
    public init(name: String?, emails: [String], source: String) {
        self.name = name
        self.emails = emails
        self.source = source
    }
    public static func resolve(configured: Identity?) -> Identity? { configured }
}
