import Foundation
import OSSResumable

/// The on-disk hand-over between app processes and the simulated transfer daemon, for one session identifier:
///
/// ```
/// <root>/<session>/submitted/<id>.json   tasks the app submitted (written atomically, synced)
/// <root>/<session>/running/<id>.json     claimed by the daemon (renamed from submitted/)
/// <root>/<session>/completed/<id>.json   outcomes (written atomically and synced before running/ is removed)
/// <root>/<session>/files/<id>            download bodies
/// <root>/<session>/daemon.lock           held by the running daemon for its whole life
/// ```
/// `<id>` starts with the submission time, so listing order is submission order. Every write is a temporary
/// file, synced, renamed into place, with its directory synced (``OSSDurableFile``). Blocking calls.
struct OSSTransferSpool: Sendable {
    let directory: String

    init(root: String, sessionIdentifier: String) {
        // The identifier becomes one safe path component.
        let safe = sessionIdentifier.unicodeScalars.map { scalar -> String in
            let c = Character(scalar)
            return (c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_" || c == ".")) ? String(c) : "%\(scalar.value)"
        }.joined()
        directory = OSSRecordStore.absolutePath(root) + "/" + (safe.hasPrefix(".") ? "%" + safe : safe)
    }

    var submitted: String { directory + "/submitted" }
    var running: String { directory + "/running" }
    var completed: String { directory + "/completed" }
    var files: String { directory + "/files" }
    var lockPath: String { directory + "/daemon.lock" }

    /// A new entry name: submission time (ns, zero-padded) and a random suffix.
    static func newEntryId() -> String {
        let nanos = UInt64(Date().timeIntervalSince1970 * 1_000_000_000)
        let padded = String(nanos)
        return String(repeating: "0", count: max(0, 20 - padded.count)) + padded + "-"
            + String(UInt64.random(in: 0...UInt64.max), radix: 16)
    }

    func makeDirectories() throws {
        for path in [submitted, running, completed, files] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
    }

    /// The entry ids in `folder`, oldest first (temporary files skipped).
    func entries(_ folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.map { String($0.dropLast(5)) }.sorted()
    }

    func write<Value: Encodable>(_ value: Value, folder: String, id: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes = Array(try encoder.encode(value))
        let path = folder + "/" + id + ".json"
        let temporary = folder + "/." + id + ".tmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        try OSSDurableFile.write(bytes, to: path, temporaryPath: temporary)
    }

    func read<Value: Decodable>(_ type: Value.Type, folder: String, id: String) -> Value? {
        guard let data = FileManager.default.contents(atPath: folder + "/" + id + ".json") else { return nil }
        return try? JSONDecoder().decode(type, from: data)
    }

    /// Removes an entry and makes the removal durable.
    func remove(folder: String, id: String) {
        try? FileManager.default.removeItem(atPath: folder + "/" + id + ".json")
        _ = OSSDurableFile.syncDirectory(folder)
    }

    /// Moves an entry between folders atomically (the claim of a task by the daemon).
    func move(id: String, from: String, to: String) throws {
        try OSSDurableFile.rename(from + "/" + id + ".json", to: to + "/" + id + ".json")
    }

    /// Where a download body goes while it arrives, before it is renamed to `destination`: `<destination>.partial`,
    /// shortened to fit NAME_MAX (``OSSDerivedFileName``). The daemon writes it and ``cancelOrphanedTasks()`` removes
    /// a dead daemon's, both through this.
    static func partialPath(of destination: String) -> String {
        OSSDerivedFileName.path(destination, suffix: ".partial")
    }

    /// The outcomes waiting in `completed/`, oldest first.
    func completedEvents() -> [OSSBackgroundTaskEvent] {
        entries(completed).compactMap { read(OSSBackgroundTaskEvent.self, folder: completed, id: $0) }
    }

    /// Forgets `events` (and their downloaded files, which the receiver has moved or copied away).
    func acknowledge(_ events: [OSSBackgroundTaskEvent]) {
        for event in events {
            if let file = event.downloadedFilePath { try? FileManager.default.removeItem(atPath: file) }
            remove(folder: completed, id: event.eventId)
        }
    }

    /// Removes the submitted (not yet claimed) tasks with these descriptions.
    func withdraw(describedAs descriptions: Set<String>) {
        for id in entries(submitted) {
            guard let task = read(OSSBackgroundTask.self, folder: submitted, id: id), descriptions.contains(task.taskDescription)
            else { continue }
            remove(folder: submitted, id: id)
        }
    }

    /// Ends the tasks a dead daemon had claimed, as the system ends the tasks of a force-quit app: each gets a
    /// `cancelled` outcome (unless its outcome was written before the daemon died), so it can be submitted
    /// again. Call only while holding ``lockPath``.
    func cancelOrphanedTasks() throws {
        for id in entries(running) {
            if read(OSSBackgroundTaskEvent.self, folder: completed, id: id) == nil,
                let task = read(OSSBackgroundTask.self, folder: running, id: id)
            {
                let event = OSSBackgroundTaskEvent(
                    eventId: id, taskDescription: task.taskDescription, status: nil, headers: [:],
                    error: OSSBackgroundTaskEvent.cancelled)
                try write(event, folder: completed, id: id)
            }
            remove(folder: running, id: id)
            try? FileManager.default.removeItem(atPath: Self.partialPath(of: files + "/" + id))
        }
    }
}
