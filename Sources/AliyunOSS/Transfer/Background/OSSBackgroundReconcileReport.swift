/// What one attach (``OSSBackgroundTransferService/reconcile()``) did.
public struct OSSBackgroundReconcileReport: Sendable, Hashable {
    /// One background transfer's reconciliation.
    public struct Transfer: Sendable, Hashable {
        public var kind: OSSTransferKind
        public var transferId: String
        public var bucket: String = ""
        public var key: String = ""
        public var totalParts: Int = 0
        /// Parts confirmed before this attach (progress resumes from them).
        public var partsDoneBefore: Int = 0
        /// Parts confirmed by this attach's events (CRC-64 checked).
        public var partsVerified: [Int] = []
        /// Parts whose task failed, was cancelled or returned other bytes: handed to the system again.
        public var partsFailed: [Int] = []
        /// Parts handed to the system by this attach (new or again).
        public var partsSubmitted: [Int] = []
        /// Parts still in the system's hands.
        public var partsInFlight: [Int] = []
        public var completedBytes: Int64 = 0
        public var totalBytes: Int64 = 0
        /// Set when the transfer finished: the object's (upload) or the file's (download) CRC-64, verified.
        public var completedCRC64: UInt64?
        /// Download: the object was replaced since the download began; its temporary file and record are gone.
        public var objectChanged: Bool = false
        /// The app paused the transfer (``OSSBackgroundTransferService/pause(transferId:)``): outcomes were recorded,
        /// nothing was submitted.
        public var paused: Bool = false
        /// Another process holds the transfer's lock: nothing was done to it.
        public var busy: Bool = false
        /// Why this attach could not reconcile the transfer (its events are kept for the next attach).
        public var error: String?

        public init(kind: OSSTransferKind, transferId: String) {
            self.kind = kind
            self.transferId = transferId
        }

        /// The transfer is complete and verified; its record and temporary files are gone.
        public var finished: Bool { completedCRC64 != nil }
    }

    public var transfers: [Transfer] = []
    /// Events of tasks no record knows (a deleted transfer, another SDK): acknowledged and dropped.
    public var unknownEvents: Int = 0

    /// The transfers this attach could not reconcile.
    public var failures: [Transfer] { transfers.filter { $0.error != nil } }

    /// Whether every transfer this attach saw finished (or ended with its object changed).
    public var allEnded: Bool { transfers.allSatisfy { $0.finished || $0.objectChanged } }
}
