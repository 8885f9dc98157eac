#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OSSXML

extension OSSClient {
    /// RestoreObject (`POST /key?restore`): starts restoring an Archive object (202), or extends a finished
    /// restore (200). A restore already running is 409 `RestoreAlreadyInProgress`; a Standard object is 400
    /// `OperationNotSupported`. Poll ``headObject(_:)``'s ``OSSHeadObjectResult/restoreStatus``.
    @discardableResult
    public func restoreObject(_ request: OSSRestoreObjectRequest) async throws -> OSSEmptyResult {
        guard (1...365).contains(request.days) else {
            throw OSSClientError.invalidArgument("a restore lasts 1 to 365 days, not \(request.days)")
        }
        var writer = OSSXMLWriter()
        writer.element("RestoreRequest") { r in r.element("Days", String(request.days)) }
        var operation = OSSOperation(
            name: "RestoreObject", method: "POST", bucket: request.bucketName, key: request.objectKey,
            query: ["restore": ""], body: .bytes(Data(writer.output.utf8)))
        operation.setHeader("content-type", "application/xml")
        return try await executeEmpty(operation)
    }
}
