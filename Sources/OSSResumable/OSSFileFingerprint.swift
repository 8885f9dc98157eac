import OSSCRC64

/// A cheap content fingerprint of a file: the CRC-64 of a few sampled blocks (start, middle, end).
///
/// It catches the common in-place edits that keep size and modification time (a `touch -d` afterwards, a
/// restored backup, a copy over the original) without reading the whole file. Blocks never overlap and never
/// exceed the file; a file no larger than the sampled total is fingerprinted whole.
package struct OSSFileFingerprint: Sendable, Hashable, Codable {
    /// One sampled block.
    package struct Sample: Sendable, Hashable, Codable {
        package let offset: Int64
        package let length: Int64
        package let crc64: UInt64

        package init(offset: Int64, length: Int64, crc64: UInt64) {
            self.offset = offset
            self.length = length
            self.crc64 = crc64
        }
    }

    /// The default block size: 64 KiB.
    package static let defaultBlockSize: Int64 = 64 * 1024

    /// The samples, in offset order.
    package let samples: [Sample]

    package init(samples: [Sample]) {
        self.samples = samples
    }

    /// The blocks sampled from a file of `size` bytes: start, middle and end, `blockSize` each, merged when they
    /// would overlap.
    package static func sampleRanges(fileSize size: Int64, blockSize: Int64 = defaultBlockSize) -> [OSSByteRange] {
        guard size > 0, blockSize > 0 else { return [] }
        if size <= 3 * blockSize { return [OSSByteRange(unchecked: 0, size)] }
        let middle = size / 2 - blockSize / 2
        return [
            OSSByteRange(unchecked: 0, blockSize),
            OSSByteRange(unchecked: middle, blockSize),
            OSSByteRange(unchecked: size - blockSize, blockSize),
        ]
    }

    /// Reads the sampled blocks of the open file `fd` (whose size is `size`).
    static func compute(fd: Int32, path: String, size: Int64, blockSize: Int64 = defaultBlockSize) throws(OSSResumableError)
        -> OSSFileFingerprint
    {
        var samples: [Sample] = []
        for range in sampleRanges(fileSize: size, blockSize: blockSize) {
            switch POSIXFile.read(fd: fd, offset: range.start, count: Int(range.length)) {
            case .failure(let code):
                throw .fileCantRead(path: path, errno: code.value)
            case .success(let bytes):
                // A short read means the file shrank while we looked at it: record what is there, the size
                // comparison will flag the change.
                samples.append(Sample(offset: range.start, length: Int64(bytes.count), crc64: CRC64.checksum(bytes)))
            }
        }
        return OSSFileFingerprint(samples: samples)
    }
}
