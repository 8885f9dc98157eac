extension OSSClient {
    /// RestoreObject (`POST /key?restore`): starts restoring an Archive object (202), or extends a finished
    /// restore (200). A restore already running is 409 `RestoreAlreadyInProgress`; a Standard object is 400
    /// `OperationNotSupported`. Poll ``headObject(_:)``'s ``OSSHeadObjectResult/restoreStatus``.
    @discardableResult
    public func restoreObject(_ request: OSSRestoreObjectRequest) async throws -> OSSEmptyResult {
        try await perform(request)
    }

    /// CleanRestoredObject (`POST /key?cleanRestoredObject`): drops the readable copy of a restored archived
    /// object before its days run out. A restore still running is 409 `ArchiveRestoreNotFinished`; an object not
    /// restored (or whose copy expired) 409 `ArchiveRestoreFileStale`.
    @discardableResult
    public func cleanRestoredObject(bucketName: String, objectKey: String, versionId: String? = nil) async throws -> OSSEmptyResult {
        try await perform(
            OSSCall(
                OSSAPI("CleanRestoredObject", "POST", subresource: "cleanRestoredObject"), bucket: bucketName, key: objectKey,
                versionId: versionId, as: OSSEmptyResult.self))
    }
}

extension OSSRestoreObjectRequest: OSSObjectOperation {
    typealias Result = OSSEmptyResult
    var api: OSSAPI { OSSAPI("RestoreObject", "POST", subresource: "restore") }
    static var parameters: [OSSParameter<Self>] { [.query("versionId", \.versionId)] }
    var body: OSSRestoreRequestDocument? { OSSRestoreRequestDocument(days: days) }

    func validate() throws {
        guard (1...365).contains(days) else {
            throw OSSClientError.invalidArgument("a restore lasts 1 to 365 days, not \(days)")
        }
    }
}

/// `<RestoreRequest><Days>…</Days></RestoreRequest>`.
struct OSSRestoreRequestDocument: OSSXMLDocument, Encodable {
    static let root = "RestoreRequest"
    var days: Int
}
