@testable import Configuration
import Testing

/// `[[provider]]`: apps' reindex commands.
@Suite("Settings: [[provider]]")
struct ProviderSettingsTests {
    static func load(_ toml: String) -> Result<Settings, SettingsError> {
        var s = Settings()
        do { try s.apply(toml: toml, file: "c.toml"); return .success(s) } catch { return .failure(error) }
    }

    @Test("providers are read with their command and time limit; none by default")
    func read() throws {
        #expect(Settings().providers.isEmpty)
        let s = try Self.load("""
            [[provider]]
            domain = "notes"
            reindex = ["notes-cli", "reindex", "--all"]

            [[provider]]
            domain = "org.example.mail"
            reindex = ["/usr/bin/mail-index"]
            timeout = 20
            """).get()
        #expect(s.providers == [Settings.Provider(domain: "notes", reindex: ["notes-cli", "reindex", "--all"]),
                                Settings.Provider(domain: "org.example.mail", reindex: ["/usr/bin/mail-index"], timeoutSeconds: 20)])
    }

    @Test("a bad provider is an error naming the key and what it takes")
    func errors() {
        let cases: [(String, String)] = [
            ("[[provider]]\nreindex = [\"x\"]\n", "provider.domain: expected a domain in every [[provider]]"),
            ("[[provider]]\ndomain = \"notes\"\n", "provider.reindex: expected a reindex command"),
            ("[[provider]]\ndomain = \"no/slash\"\nreindex = [\"x\"]\n", "provider.domain: expected a domain name"),
            ("[[provider]]\ndomain = \"notes\"\nreindex = \"notes-cli reindex\"\n", "provider.reindex: expected an array of strings"),
            ("[[provider]]\ndomain = \"notes\"\nreindex = []\n", "provider.reindex: expected a command as an array"),
            ("[[provider]]\ndomain = \"notes\"\nreindex = [\"x\"]\ntimeout = 0\n", "provider.timeout: expected a number of seconds"),
            ("[[provider]]\ndomain = \"notes\"\nreindex = [\"x\"]\nshell = true\n", "provider.shell: unknown setting"),
            ("[[provider]]\ndomain = \"n\"\nreindex = [\"x\"]\n[[provider]]\ndomain = \"n\"\nreindex = [\"y\"]\n", "one [[provider]] per domain"),
        ]
        for (toml, message) in cases {
            guard case .failure(let e) = Self.load(toml) else { Issue.record("accepted: \(toml)"); continue }
            #expect(e.description.contains(message), "\(e.description)")
        }
    }
}
