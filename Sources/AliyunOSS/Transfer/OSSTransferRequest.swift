/// What the two resumable transfer requests share: the settings ``OSSTransferSettings`` checks.
protocol OSSTransferRequest {
    static var minimumPartSize: Int64 { get }
    static var maximumThreadNum: Int { get }
    var bucketName: String { get }
    var objectKey: String { get }
    var partSize: Int64 { get }
    var threadNum: Int { get }
    var crcFlag: Bool? { get }
}

extension OSSResumableUploadRequest: OSSTransferRequest {}

extension OSSResumableDownloadRequest: OSSTransferRequest {}
