@testable import AliyunOSS
import Testing

/// One system session per background identifier in a process (a second URLSession with one identifier is
/// undefined behaviour): the registry behind ``OSSURLSessionBackgroundTaskSystem``.
@Suite("Background session registry")
struct BackgroundSessionRegistryTests {
    final class Session: Sendable {
        let name: String
        init(_ name: String) { self.name = name }
    }

    @Test("the same identifier and settings reuse the session; it is made once")
    func reusesTheSession() throws {
        let registry = OSSBackgroundSessionRegistry<String, Session>()
        var made = 0
        let first = try registry.session(identifier: "com.example.oss", settings: "events") {
            made += 1
            return Session("first")
        }
        let second = try registry.session(identifier: "com.example.oss", settings: "events") {
            made += 1
            return Session("second")
        }
        #expect(first === second)
        #expect(made == 1)
        let other = try registry.session(identifier: "com.example.other", settings: "events") { Session("other") }
        #expect(other !== first, "another identifier is another session")
    }

    @Test("the same identifier with other settings is refused, naming the identifier")
    func refusesOtherSettings() throws {
        let registry = OSSBackgroundSessionRegistry<String, Session>()
        _ = try registry.session(identifier: "com.example.oss", settings: "events-a") { Session("a") }
        var made = false
        #expect {
            _ = try registry.session(identifier: "com.example.oss", settings: "events-b") {
                made = true
                return Session("b")
            }
        } throws: { error in
            guard let error = error as? OSSClientError else { return false }
            return error.code == .invalidArgument && error.message.contains("com.example.oss")
                && error.message.contains("events-a")
        }
        #expect(!made, "no second session is made")
    }
}
