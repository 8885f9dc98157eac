#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A first-in first-out queue of body chunks, for a transport's buffer between the network and the reader. A chunk
/// taken out is released at once (its slot is emptied), so a queue that never runs dry does not keep what was read.
struct OSSChunkQueue {
    private var chunks: [Data] = []
    private var head = 0
    /// The bytes queued.
    private(set) var byteCount = 0

    var isEmpty: Bool { head == chunks.count }

    mutating func append(_ chunk: Data) {
        chunks.append(chunk)
        byteCount += chunk.count
    }

    mutating func popFirst() -> Data? {
        guard head < chunks.count else { return nil }
        let chunk = chunks[head]
        chunks[head] = Data()
        head += 1
        byteCount -= chunk.count
        if head == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 32, head * 2 >= chunks.count {
            chunks.removeFirst(head)
            head = 0
        }
        return chunk
    }
}
