import Logging
import OSSResumable

/// The checked settings of one resumable transfer call: part size, concurrency and CRC mode.
struct OSSTransferSettings: Sendable {
    /// The part size asked for, raised to the smallest allowed (an upload refuses a smaller one first, with the
    /// file's size: ``OSSResumableUploadRequest/checkPartSize(_:fileSize:)``).
    let partSize: Int64
    let threadNum: Int
    let crcMode: OSSCRCMode
    let priority: OSSTransferPriority
    let logger: Logger

    /// - Throws: `invalidArgument` naming the first bad value: an empty bucket or key, a part size not positive,
    ///   a `threadNum` outside `1...maximumThreadNum`.
    init<Request: OSSTransferRequest>(operation: String, request: Request, client: OSSClient) throws {
        let (partSize, threadNum, maximumThreadNum) = (request.partSize, request.threadNum, Request.maximumThreadNum)
        guard !request.bucketName.isEmpty, !request.objectKey.isEmpty else {
            throw OSSClientError(.invalidArgument, "\(operation) needs a bucket name and an object key")
        }
        guard partSize > 0 else {
            throw OSSClientError(.invalidArgument, "partSize must be positive, not \(partSize)")
        }
        guard (1...maximumThreadNum).contains(threadNum) else {
            throw OSSClientError(.invalidArgument, "threadNum must be 1...\(maximumThreadNum), not \(threadNum)")
        }
        self.partSize = max(partSize, Request.minimumPartSize)
        self.threadNum = threadNum
        crcMode = (request.crcFlag ?? client.configuration.crcCheckEnabled) ? .enabled : .disabled
        priority = request.priority
        logger = client.configuration.logger
    }

    /// Where the record lives, `nil` without a record directory.
    func records(store: OSSRecordStore?, name: String, noun: String) -> OSSTransferRecordSlot? {
        store.map { OSSTransferRecordSlot(store: $0, name: name, noun: noun, logger: logger) }
    }
}

/// What the two resumable transfer requests share: the settings ``OSSTransferSettings`` checks.
protocol OSSTransferRequest {
    static var minimumPartSize: Int64 { get }
    static var maximumThreadNum: Int { get }
    var bucketName: String { get }
    var objectKey: String { get }
    var partSize: Int64 { get }
    var threadNum: Int { get }
    var crcFlag: Bool? { get }
    var priority: OSSTransferPriority { get }
}

extension OSSResumableUploadRequest: OSSTransferRequest {}

extension OSSResumableDownloadRequest: OSSTransferRequest {}
