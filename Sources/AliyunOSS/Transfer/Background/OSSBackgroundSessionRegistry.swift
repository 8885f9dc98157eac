/// One system session per background identifier in a process.
///
/// A background identifier "uniquely identifies a background session object" (Apple's documentation of
/// `URLSessionConfiguration.identifier`), and two sessions with one identifier in a process are undefined
/// behaviour. An app may still build its background service twice (a second scene, a model made again), so the
/// session is kept here, by identifier, for the life of the process (a background session is never invalidated:
/// it must be there when the system delivers events), and a second request for the same identifier gets the same
/// session. A request with other settings (another event directory, another discretionary flag) is refused: it
/// would silently get the first settings.
final class OSSBackgroundSessionRegistry<Settings: Hashable & Sendable, Session: Sendable>: Sendable {
    private struct Entry: Sendable {
        let settings: Settings
        let session: Session
    }

    private let entries = OSSLockedValue<[String: Entry]>([:])

    init() {}

    /// The session of `identifier`: the one made earlier in this process, else one made now by `make` (under the
    /// registry's lock, so two callers never both make one).
    ///
    /// - Throws: `invalidArgument` when `identifier` is in use with other settings.
    func session(identifier: String, settings: Settings, make: () -> Session) throws(OSSClientError) -> Session {
        let found = entries.withLockedValue { entries -> Result<Session, OSSClientError> in
            if let entry = entries[identifier] {
                guard entry.settings == settings else {
                    return .failure(
                        .invalidArgument(
                            "the background session \"\(identifier)\" exists in this process with other settings "
                                + "(\(entry.settings)); a second session with one identifier is undefined behaviour"))
                }
                return .success(entry.session)
            }
            let session = make()
            entries[identifier] = Entry(settings: settings, session: session)
            return .success(session)
        }
        return try found.get()
    }
}
