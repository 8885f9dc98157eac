import Logging
import NIOConcurrencyHelpers

/// A swift-log handler at `.trace` that keeps every rendered line (level, source, message, metadata, call site) in
/// memory, for tests that read what a component logged.
package struct CapturingLogHandler: LogHandler {
    package let lines: NIOLockedValueBox<[String]>
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level = .trace

    package init(lines: NIOLockedValueBox<[String]>) {
        self.lines = lines
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.withLockedValue {
            $0.append("\(event.level) [\(event.source)] \(event.message) \(merged) \(event.file):\(event.line)")
        }
    }
}
