/// What a local file looked like when a transfer record was written: size, modification time (nanoseconds),
/// inode and device (where the platform has them) and a sampled content fingerprint.
///
/// ``changes(from:)`` lists every difference, so the error for a changed file can say exactly what changed.
package struct OSSFileIdentity: Sendable, Hashable, Codable {
    /// One way in which a file differs from its recorded identity.
    package enum Change: Sendable, Hashable, Codable, CustomStringConvertible {
        case size(recorded: Int64, current: Int64)
        case modificationTime(recordedNanoseconds: Int64, currentNanoseconds: Int64)
        case inode(recorded: UInt64, current: UInt64)
        case device(recorded: UInt64, current: UInt64)
        case content

        package var description: String {
            switch self {
            case .size(let recorded, let current): "size \(recorded) → \(current)"
            case .modificationTime(let recorded, let current): "modification time \(recorded) ns → \(current) ns"
            case .inode(let recorded, let current): "inode \(recorded) → \(current)"
            case .device(let recorded, let current): "device \(recorded) → \(current)"
            case .content: "sampled content differs"
            }
        }
    }

    /// File size in bytes.
    package let size: Int64
    /// Modification time as nanoseconds since 1970-01-01T00:00:00Z.
    package let modificationTimeNanoseconds: Int64
    /// The inode number, when the platform reports one.
    package let inode: UInt64?
    /// The device number, when the platform reports one.
    package let device: UInt64?
    /// CRCs of sampled blocks.
    package let fingerprint: OSSFileFingerprint

    package init(
        size: Int64,
        modificationTimeNanoseconds: Int64,
        inode: UInt64?,
        device: UInt64?,
        fingerprint: OSSFileFingerprint
    ) {
        self.size = size
        self.modificationTimeNanoseconds = modificationTimeNanoseconds
        self.inode = inode
        self.device = device
        self.fingerprint = fingerprint
    }

    /// Inspects the regular file at `path` and reads its sampled blocks.
    ///
    /// Throws `fileCantRead` if the file is missing, unreadable or not a regular file.
    package static func capture(path: String, blockSize: Int64 = OSSFileFingerprint.defaultBlockSize) throws(OSSResumableError)
        -> OSSFileIdentity
    {
        let fd: Int32
        switch POSIXFile.openForReading(path) {
        case .success(let opened): fd = opened
        case .failure(let code): throw .fileCantRead(path: path, errno: code.value)
        }
        defer { POSIXFile.close(fd) }
        let status: POSIXFile.Status
        switch POSIXFile.status(fd: fd) {
        case .success(let st): status = st
        case .failure(let code): throw .fileCantRead(path: path, errno: code.value)
        }
        guard status.isRegularFile else { throw .fileCantRead(path: path, errno: POSIXFile.notRegularFile) }
        let fingerprint = try OSSFileFingerprint.compute(fd: fd, path: path, size: status.size, blockSize: blockSize)
        let (seconds, overflow1) = status.modificationSeconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (nanos, overflow2) = seconds.addingReportingOverflow(status.modificationNanoseconds)
        return OSSFileIdentity(
            size: status.size,
            modificationTimeNanoseconds: overflow1 || overflow2 ? Int64.max : nanos,
            inode: status.inode,
            device: status.device,
            fingerprint: fingerprint
        )
    }

    /// This identity without inode and device numbers, which change when a file is restored or copied to a
    /// new container although its bytes, size and modification time did not.
    package var withoutFileSystemIdentity: OSSFileIdentity {
        OSSFileIdentity(
            size: size, modificationTimeNanoseconds: modificationTimeNanoseconds, inode: nil, device: nil,
            fingerprint: fingerprint)
    }

    /// Every difference between `recorded` (the identity stored in a record) and `self` (the file now).
    /// Inode and device are compared only when both sides know them. An empty result means "unchanged".
    package func changes(from recorded: OSSFileIdentity) -> [Change] {
        var changes: [Change] = []
        if recorded.size != size { changes.append(.size(recorded: recorded.size, current: size)) }
        if recorded.modificationTimeNanoseconds != modificationTimeNanoseconds {
            changes.append(
                .modificationTime(
                    recordedNanoseconds: recorded.modificationTimeNanoseconds,
                    currentNanoseconds: modificationTimeNanoseconds
                )
            )
        }
        if let old = recorded.inode, let new = inode, old != new { changes.append(.inode(recorded: old, current: new)) }
        if let old = recorded.device, let new = device, old != new { changes.append(.device(recorded: old, current: new)) }
        if recorded.fingerprint != fingerprint { changes.append(.content) }
        return changes
    }
}
