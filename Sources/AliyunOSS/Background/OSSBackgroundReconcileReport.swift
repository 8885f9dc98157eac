/// What one attach (``OSSBackgroundTransferService/reconcile()``) did.
public struct OSSBackgroundReconcileReport: Sendable, Hashable {
    /// One background upload's reconciliation.
    public struct Upload: Sendable, Hashable {
        public var transferId: String
        public var bucket: String
        public var key: String
        public var totalParts: Int
        /// Parts confirmed before this attach (progress resumes from them).
        public var partsDoneBefore: Int
        /// Parts confirmed by this attach's events (CRC-64 checked).
        public var partsVerified: [Int]
        /// Parts whose task failed, was cancelled or returned another CRC-64.
        public var partsFailed: [Int]
        /// Parts handed to the system by this attach (new or again).
        public var partsSubmitted: [Int]
        /// Parts still in the system's hands.
        public var partsInFlight: [Int]
        public var completedBytes: Int64
        public var totalBytes: Int64
        /// Set when CompleteMultipartUpload ran and the object's CRC-64 equalled the file's.
        public var completedCRC64: UInt64?
        /// Another process holds the transfer's lock: nothing was done to it.
        public var busy: Bool = false

        /// The upload is complete and verified; its record and part copies are gone.
        public var finished: Bool { completedCRC64 != nil }
    }

    public var uploads: [Upload] = []
    /// Events of tasks no record knows (a deleted transfer, another SDK): acknowledged and dropped.
    public var unknownEvents: Int = 0

    /// Whether every upload this attach saw finished.
    public var allFinished: Bool { uploads.allSatisfy(\.finished) }
}
