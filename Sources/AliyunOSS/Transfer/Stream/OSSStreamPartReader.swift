#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Cuts a byte stream of unknown length into parts: each call to ``nextPart(size:)`` returns the next `size`
/// bytes (fewer only at the end) and says whether it is the last part, by looking one element ahead.
///
/// It holds the part it is filling and at most one element of the sequence (the rest of an element longer than
/// what the part still needed waits for the next part).
struct OSSStreamPartReader<Base: AsyncIteratorProtocol> where Base.Element: DataProtocol {
    private var base: Base
    /// Bytes read from `base` and not yet put in a part.
    private var carry = Data()
    private var ended = false
    /// The bytes handed out in parts so far.
    private(set) var totalBytes: Int64 = 0

    init(_ base: Base) {
        self.base = base
    }

    /// The next part of up to `size` bytes, and whether the stream ends with it.
    mutating func nextPart(size: Int) async throws -> (data: Data, isLast: Bool) {
        var part = Data()
        while part.count < size {
            if carry.isEmpty {
                guard let chunk = try await pull() else { break }
                if part.isEmpty, chunk.count == size {
                    part = chunk  // one element is exactly the part: no copy
                    break
                }
                carry = chunk
            }
            if part.isEmpty { part.reserveCapacity(size) }
            let take = min(size - part.count, carry.count)
            part.append(carry.prefix(take))
            carry = take == carry.count ? Data() : carry.dropFirst(take)
        }
        totalBytes += Int64(part.count)
        if carry.isEmpty, !ended, part.count == size, let next = try await pull() {
            carry = next
        }
        return (part, carry.isEmpty)
    }

    /// The next non-empty element as `Data`, or nil at the end. The sequence's own failures become
    /// ``OSSClientError``: cancellation `.taskCancelled`, anything else `.fileCantRead` with the error underlying.
    private mutating func pull() async throws -> Data? {
        guard !ended else { return nil }
        while true {
            let element: Base.Element?
            do {
                element = try await base.next()
            } catch {
                throw OSSClientError.passing(error) {
                    OSSClientError(.fileCantRead, "the stream being uploaded failed: \($0)", underlying: $0)
                }
            }
            guard let element else {
                ended = true
                return nil
            }
            if element.isEmpty { continue }
            if let data = element as? Data { return data.startIndex == 0 ? data : Data(data) }
            return Data(element)
        }
    }
}

/// Batches a sequence of single bytes (such as `FileHandle.AsyncBytes`) into `Data` chunks of up to 64 KiB.
struct OSSByteBatches<Base: AsyncSequence>: AsyncSequence where Base.Element == UInt8 {
    typealias Element = Data
    let base: Base

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator

        mutating func next() async throws -> Data? {
            var batch = [UInt8]()
            while batch.count < 65_536, let byte = try await base.next() {
                if batch.isEmpty { batch.reserveCapacity(65_536) }
                batch.append(byte)
            }
            return batch.isEmpty ? nil : Data(batch)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }
}
