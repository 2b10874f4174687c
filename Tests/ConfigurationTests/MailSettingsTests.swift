@testable import Configuration
import Testing

/// `[mail]`: who "me" is in mail, and how near a deadline is (issue 27, `isPriority`).
@Suite("Settings: [mail]")
struct MailSettingsTests {
    static func error(_ toml: String) -> String? {
        var s = Settings()
        do { try s.apply(toml: toml, file: "c.toml"); return nil } catch { return error.description }
    }

    @Test("the defaults: no addresses (derived from the mail), 7 days; both keys are read; bad values name the key")
    func keys() throws {
        #expect(Settings().mail.addresses == [] && Settings().mail.deadlineDays == 7)
        var s = Settings()
        try s.apply(toml: "[mail]\naddresses = [\"ada@example.org\", \"Ada@Work.example\"]\ndeadline_days = 3\n", file: "c.toml")
        #expect(s.mail.addresses == ["ada@example.org", "Ada@Work.example"] && s.mail.deadlineDays == 3)
        #expect(Self.error("[mail]\naddresses = [\"not an address\"]\n")?.contains("mail.addresses") == true)
        #expect(Self.error("[mail]\ndeadline_days = 400\n")?.contains("mail.deadline_days") == true)
        #expect(Self.error("[mail]\nsignature = 1\n")?.contains("signature") == true)
    }
}
