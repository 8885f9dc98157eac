import Dispatch

/// Runs blocking file-system work (open/ftruncate/rename/fsync/stat) on a Dispatch thread instead of one of the
/// few threads of Swift's cooperative pool, so a slow disk stalls only the transfer that waits for it. The work
/// always runs to its end, also when the calling task is cancelled.
enum OSSOffPool {
    static func run<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        let result: Result<Value, any Error> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { try body() })
            }
        }
        return try result.get()
    }
}
